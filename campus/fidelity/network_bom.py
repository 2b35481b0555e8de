"""The network bill of materials of four 100k-H100 designs (docs/fidelity.md, "Network bill of materials").

SemiAnalysis, "100,000 H100 Clusters: Power, Network Topology, Ethernet vs InfiniBand, Reliability, Failures,
Checkpointing" (D. Patel, D. Nishball, 2024-06-17) compares four back-end fabrics for about 100,000 H100
(8 x 400G per node): (1) a 4-tier InfiniBand network of 32,768-GPU islands, rail optimized, 7:1 above the
islands; (2) a 3-tier Spectrum-X network of the same islands; (3) a 3-tier InfiniBand network of 24,576-GPU
islands, not rail optimized, the islands joined over the front-end network; (4) a 3-tier Tomahawk 5 network
as (2). Its tier counts are published; its counts and dollars are behind the paywall, so each case's expected
count is derived by hand from the stated design (fat-tree arithmetic, docs/fidelity.md) and the capex at
published unit prices where there are some: a Quantum-2 switch at $36,000 and a multimode link (two modules
and the fibre) at $1,266.67, E. Cheah's $3,800 per GPU over its three links ("H100 Freakonomics",
tech-talk-cto, 2024-08); a single-mode link at 2.5 times the multimode one (SemiAnalysis, the same article).

The twin builds each design with its own generator: ``design_campus_fabric`` over one island per rail and
island (a rail-optimized island of 32,768 GPUs is 8 fat trees of 4,096 end points, the rail's leaves and
spines its own; the layer above joins them all at 7:1), ``design_fabric`` for the 24,576-GPU islands; its
media follow its default lengths (30 m node-leaf, 40 m leaf-spine, 150 m between halls, 600 m between
buildings), and it prices them with the catalog (``bom.campus_fabric_design_cost``).
"""

from __future__ import annotations

from functools import cache

from campus.analysis.bom import campus_fabric_design_cost, fabric_design_cost
from campus.analysis.catalog import catalog_specs
from campus.analysis.fabric import CampusFabricDesign, FabricDesign, design_campus_fabric, design_fabric
from campus.fidelity.scorecard import Case, relative

SEMI = "SemiAnalysis, '100,000 H100 Clusters' (2024-06-17)"
RAILS = 8
RAIL_ISLAND_GPUS = 32_768 // RAILS  # end points of one rail of a 32,768-GPU island
ISLANDS = 3  # 3 x 32,768 = 98,304 GPUs
MOR_ISLAND_GPUS = 24_576
MOR_ISLANDS = 4  # 4 x 24,576 = 98,304 GPUs
QM9700, SN5600, TH5 = "quantum-2-qm9700", "spectrum-x-sn5600", "tomahawk5-128x400"


@cache
def _rail_optimized(switch_model: str) -> CampusFabricDesign:
    switch = catalog_specs()["switch_models"][switch_model]
    return design_campus_fabric([RAIL_ISLAND_GPUS] * (ISLANDS * RAILS), switch, "rail-optimized", 7.0)


@cache
def _middle_of_rack() -> FabricDesign:
    switch = catalog_specs()["switch_models"][QM9700]
    return design_fabric(MOR_ISLAND_GPUS, switch, "middle-of-rack")


def _capex_musd(switch_model: str) -> float:
    return campus_fabric_design_cost(_rail_optimized(switch_model), switch_model)["total_usd"] / 1e6


def _mor_capex_musd() -> float:
    return MOR_ISLANDS * fabric_design_cost(_middle_of_rack(), QM9700)["total_usd"] / 1e6


def _exact(value: float) -> tuple[float, float, str]:
    return value, value, "exact"


def _cases(
    slug: str,
    what: str,
    tiers: int,
    switches: int,
    transceivers: int,
    capex_musd: float,
    design,
    capex,
    priced: str,
) -> list[Case]:
    return [
        Case(
            f"semianalysis-100k-{slug}-tiers",
            "capex",
            f"Tiers of the {what}",
            "tiers",
            f"{SEMI}: a {tiers}-tier network",
            f"{tiers}",
            *_exact(float(tiers)),
            twin=lambda: float(design().tiers),
        ),
        Case(
            f"semianalysis-100k-{slug}-switches",
            "capex",
            f"Switches of the {what}",
            "switches",
            f"{SEMI}: the design; count by hand (docs/fidelity.md)",
            f"{switches:,}",
            *_exact(float(switches)),
            twin=lambda: float(design().switches),
        ),
        Case(
            f"semianalysis-100k-{slug}-transceivers",
            "capex",
            f"Optical modules (400G ports) of the {what}",
            "modules",
            f"{SEMI}: the design; count by hand (docs/fidelity.md)",
            f"{transceivers:,}",
            *_exact(float(transceivers)),
            twin=lambda: float(design().transceivers),
        ),
        Case(
            f"semianalysis-100k-{slug}-capex",
            "capex",
            f"Network capex of the {what}",
            "M USD",
            f"{SEMI}: the design, priced by hand at {priced}",
            f"${capex_musd:,.1f} M",
            *relative(capex_musd, 0.20),
            twin=capex,
        ),
    ]


_PUBLISHED = "Cheah's switch and link prices (2024-08)"
_ETHERNET = "Cheah's link prices and the catalog's switch price"

CASES: list[Case] = [
    *_cases(
        "ib-4-tier",
        "4-tier InfiniBand, 32,768-GPU islands, rail optimized, 7:1",
        4,
        8_140,
        617_952,
        897.9088,
        lambda: _rail_optimized(QM9700),
        lambda: _capex_musd(QM9700),
        _PUBLISHED,
    ),
    *_cases(
        "spectrum-x-3-tier",
        "3-tier Spectrum-X, 32,768-GPU islands, rail optimized, 7:1",
        3,
        2_534,
        421_344,
        407.6028,
        lambda: _rail_optimized(SN5600),
        lambda: _capex_musd(SN5600),
        _ETHERNET,
    ),
    *_cases(
        "tomahawk5-3-tier",
        "3-tier Tomahawk 5, 32,768-GPU islands, rail optimized, 7:1",
        3,
        2_534,
        421_344,
        369.5928,
        lambda: _rail_optimized(TH5),
        lambda: _capex_musd(TH5),
        _ETHERNET,
    ),
    *_cases(
        "ib-3-tier-mor",
        "3-tier InfiniBand, 24,576-GPU islands, middle of rack",
        3,
        7_680,
        393_216,
        727.04,
        lambda: _MorTotals(),
        _mor_capex_musd,
        _PUBLISHED + " and the catalog's DAC",
    ),
]


class _MorTotals:
    """The four 24,576-GPU islands together (joined over the front end, so no back-end layer above them)."""

    def __init__(self) -> None:
        island = _middle_of_rack()
        self.tiers = island.tiers
        self.switches = MOR_ISLANDS * island.switches
        self.transceivers = MOR_ISLANDS * island.transceivers
