"""Published network bills of materials of 100k-GPU designs (docs/fidelity.md, "Capex").

The source is E. Cheah's spreadsheet to "H100 Freakonomics: the economical tiers of H100s" (tech-talk-cto,
2024-08; prices as of Aug 2024): H100 nodes of 8 x 400G InfiniBand, one fat tree of 64-port Quantum-2
switches per rail (8 rails), two layers up to 2,048 nodes and three up to 65,536. Its rows for 8,192 nodes
(65,536 H100) and 13,107 nodes (104,858 H100) give the switches and "InfiniBand network connector & cable"
cost. The twin designs one rail with ``design_fabric`` (Quantum-2 from the catalog, non-blocking, one port
per node) and multiplies by the 8 rails; it prices the modules and cables with the price catalog
(``bom.fabric_design_cost``). The spreadsheet prices every link alike, so the twin's links are all taken
within multimode reach (spine-core at 50 m); its own default, 150 m of single-mode between halls, costs
more (docs/fidelity.md says how much).
"""

from __future__ import annotations

from campus.analysis.bom import fabric_design_cost
from campus.analysis.catalog import catalog_specs
from campus.analysis.fabric import design_fabric
from campus.fidelity.scorecard import Case, relative

CHEAH = "E. Cheah, 'H100 Freakonomics' (tech-talk-cto, 2024-08), spreadsheet rows of 8,192 and 13,107 nodes"
RAILS = 8
SWITCH = "quantum-2-qm9700"


def _rail_design(nodes: int):
    switch = catalog_specs()["switch_models"][SWITCH]
    return design_fabric(nodes, switch, topology="rail-optimized", spine_core_m=50.0)


def _switches(nodes: int) -> float:
    return float(_rail_design(nodes).switches * RAILS)


def _connector_and_cable_musd(nodes: int) -> float:
    cost = fabric_design_cost(_rail_design(nodes), SWITCH)
    return (cost["optics_usd"] + cost["cables_usd"]) * RAILS / 1e6


CASES: list[Case] = [
    Case(
        "cheah-104k-h100-ib-switches",
        "capex",
        "InfiniBand switches of 104,858 H100 (13,107 nodes, 3 tiers per rail)",
        "switches",
        f"{CHEAH}: 8,192 switches",
        "8,192",
        *relative(8192.0, 0.01),
        twin=lambda: _switches(13_107),
    ),
    Case(
        "cheah-65k-h100-ib-switches",
        "capex",
        "InfiniBand switches of 65,536 H100 (8,192 nodes, 3 tiers per rail)",
        "switches",
        f"{CHEAH}: 5,120 switches",
        "5,120",
        *relative(5120.0, 0.01),
        twin=lambda: _switches(8_192),
    ),
    Case(
        "cheah-104k-h100-ib-optics-cables",
        "capex",
        "InfiniBand transceivers and cables of 104,858 H100",
        "M USD",
        f"{CHEAH}: connector & cable $398,458,880",
        "$398.5 M",
        *relative(398.45888, 0.20),
        twin=lambda: _connector_and_cable_musd(13_107),
    ),
    Case(
        "cheah-65k-h100-ib-optics-cables",
        "capex",
        "InfiniBand transceivers and cables of 65,536 H100",
        "M USD",
        f"{CHEAH}: connector & cable $249,036,800",
        "$249.0 M",
        *relative(249.0368, 0.20),
        twin=lambda: _connector_and_cable_musd(8_192),
    ),
]
