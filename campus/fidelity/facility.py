"""Published cases on power, energy, fabric and thermal ride-through (docs/fidelity.md explains each)."""

from __future__ import annotations

from campus import catalog_data as cat
from campus.analysis.catalog import catalog_specs
from campus.analysis.energy import facility_energy, it_breakdown
from campus.analysis.fabric import design_campus_fabric, design_fabric, max_endpoints
from campus.fidelity.campuses import generated_rack_kw, synthetic_100k_h100
from campus.fidelity.scorecard import Case, relative
from simulations.engine.kinds.liquid_cooling.params import LiquidCoolingParams
from simulations.engine.rc import crossing

SEMI_100K = "SemiAnalysis, '100,000 H100 Clusters' (2024-06)"


# ---------------------------------------------------------------- power and energy


def _it_mw_100k() -> float:
    return it_breakdown(synthetic_100k_h100()).it_kw / 1000.0


def _server_overhead_w_per_gpu() -> float:
    snap = synthetic_100k_h100()
    node = snap.node_models["hgx-h100-8"]
    return (
        snap.node_power_w("hgx-h100-8") - node.gpus_per_node * snap.gpus[node.gpu].tdp_w
    ) / node.gpus_per_node


def _dgx_h100_kw() -> float:
    specs = catalog_specs()
    node = specs["node_models"]["dgx-h100"]
    gpu = specs["gpus"][node.gpu]
    return (node.gpus_per_node * gpu.tdp_w + node.overhead_w + node.nics * node.nic_extra_w) / 1000.0


def _bluefield3_extra_w_per_nic() -> float:
    nics = cat.node_model("dgx-h100-bf3")["nics"]
    return (cat.node_power_w("dgx-h100-bf3") - cat.node_power_w("dgx-h100")) / nics


def _energy_100k():
    snap = synthetic_100k_h100()
    return facility_energy(it_breakdown(snap).it_kw, snap.design_pue, snap.price_usd_per_kwh)


def _gb300_rack_kw() -> float | None:
    if "gb300" not in {g["slug"] for g in cat.GPU_MODELS}:
        return None
    return generated_rack_kw("gb300")


# ---------------------------------------------------------------- fabric


def _llama3_cluster_tiers() -> float:
    """Tiers of 8 islands of 3,072 GPUs (one 400G port each) on radix-128 Ethernet switches, 1:7 above them."""
    switch = catalog_specs()["switch_models"]["tomahawk5-128x400"]
    return float(design_campus_fabric([3072] * 8, switch, inter_island_oversubscription=7.0).tiers)


def _switch_w(topology: str, leaf_spine_m: float) -> float:
    switch = catalog_specs()["switch_models"]["quantum-2-qm9700"]
    design = design_fabric(2048, switch, topology=topology, leaf_spine_m=leaf_spine_m)
    return design.switch_power_kw * 1000.0 / design.switches


# ---------------------------------------------------------------- thermal ride-through


def _ride_through_s(kind: str) -> float:
    """Seconds from steady state at full load to the H100 shutdown temperature once forced cooling stops
    (the heat path falls to the engine's residual conductance), by the engine's closed-form RC crossing."""
    p = LiquidCoolingParams()
    if kind == "liquid":
        c, g = p.liquid_heat_capacity_j_per_k_per_kw, p.liquid_conductance_w_per_k_per_kw
    else:
        c, g = p.air_heat_capacity_j_per_k_per_kw, p.air_conductance_w_per_k_per_kw
    coolant_c = cat.default_value("supply_temp_c")
    steady_c = coolant_c + 1000.0 / g
    shutdown_c = catalog_specs()["gpus"]["h100-sxm"].shutdown_temp_c
    g_left = g * p.residual_conductance_fraction
    return crossing(steady_c, 1.0, g_left, c, coolant_c, 0.0, shutdown_c, 24 * 3600.0)


# ---------------------------------------------------------------- the cases

CASES: list[Case] = [
    Case(
        "semianalysis-100k-it-power",
        "power",
        "critical IT power of a 100k-H100 campus",
        "MW",
        f"{SEMI_100K}: ~150 MW critical IT for 100k H100",
        "~150 MW",
        *relative(150.0, 0.10),
        twin=_it_mw_100k,
    ),
    Case(
        "semianalysis-server-overhead",
        "power",
        "server power beyond the GPUs, per H100",
        "W",
        f"{SEMI_100K}: ~575 W per GPU (CPUs, NICs, fans, PSU losses)",
        "575 W",
        *relative(575.0, 0.05),
        twin=_server_overhead_w_per_gpu,
    ),
    Case(
        "dgx-h100-max-power",
        "power",
        "DGX H100 system power at full load",
        "kW",
        "NVIDIA DGX H100 User Guide (2023), hardware specifications: 10.2 kW max",
        "10.2 kW",
        *relative(10.2, 0.05),
        twin=_dgx_h100_kw,
    ),
    Case(
        "bluefield3-nic-extra",
        "power",
        "extra power of a BlueField-3 back-end NIC over ConnectX-7",
        "W",
        f"{SEMI_100K}: BlueField-3 adds ~50 W per NIC",
        "50 W",
        *relative(50.0, 0.10),
        twin=_bluefield3_extra_w_per_nic,
    ),
    Case(
        "gb200-nvl72-rack-power",
        "power",
        "GB200 NVL72 rack IT power (generated reference design)",
        "kW",
        "SemiAnalysis, 'GB200 Hardware Architecture' (2024-07): ~120-132 kW per NVL72 rack",
        "120-132 kW",
        120.0,
        132.0,
        "range",
        twin=lambda: generated_rack_kw("gb200"),
    ),
    Case(
        "gb300-nvl72-rack-power",
        "power",
        "GB300 NVL72 rack IT power (generated reference design)",
        "kW",
        "NVIDIA GB300 NVL72 (2025): 72 Blackwell Ultra GPUs at up to 1.4 kW; racks ~135-140 kW",
        "135-140 kW",
        130.0,
        145.0,
        "130-145",
        twin=_gb300_rack_kw,
    ),
    Case(
        "eia-energy-cost-100k",
        "energy",
        "annual energy cost of a 100k-H100 campus at $0.078/kWh",
        "M$/yr",
        f"{SEMI_100K}: 150 MW, 1.59 TWh/yr at the US EIA industrial $0.078/kWh -> $123.9M/yr",
        "$123.9M/yr",
        *relative(123.9, 0.15),
        twin=lambda: _energy_100k().annual_cost_usd / 1e6,
    ),
    Case(
        "semianalysis-100k-annual-energy",
        "energy",
        "annual facility energy of a 100k-H100 campus",
        "TWh/yr",
        f"{SEMI_100K}: 1.59 TWh per year",
        "1.59 TWh",
        *relative(1.59, 0.15),
        twin=lambda: _energy_100k().annual_energy_mwh / 1e6,
    ),
    Case(
        "pue-air-anchor",
        "energy",
        "default PUE of an air-cooled hall",
        "",
        "Uptime Institute Global Data Center Survey 2024: industry average PUE 1.56",
        "1.56",
        *relative(1.56, 0.05),
        twin=lambda: cat.default_value("pue_air"),
    ),
    Case(
        "pue-liquid-anchor",
        "energy",
        "default PUE of a liquid-cooled AI hall",
        "",
        "Google data centers, efficiency report (2023): fleet trailing-twelve-month PUE 1.10",
        "1.10",
        *relative(1.10, 0.10),
        twin=lambda: cat.default_value("pue_liquid"),
    ),
    Case(
        "fat-tree-2-tier-radix-64",
        "fabric",
        "end points of a non-blocking 2-tier fat tree, radix 64 (Quantum-2)",
        "ports",
        "Al-Fares et al., 'A Scalable, Commodity Data Center Network Architecture', SIGCOMM 2008, §3: k²/2",
        "2,048",
        2048,
        2048,
        "exact",
        twin=lambda: max_endpoints(2, 64),
    ),
    Case(
        "fat-tree-3-tier-radix-64",
        "fabric",
        "end points of a non-blocking 3-tier fat tree, radix 64",
        "ports",
        "Al-Fares et al., SIGCOMM 2008, §3: k³/4",
        "65,536",
        65536,
        65536,
        "exact",
        twin=lambda: max_endpoints(3, 64),
    ),
    Case(
        "fat-tree-2-tier-radix-128",
        "fabric",
        "end points of a non-blocking 2-tier fat tree, radix 128 (Spectrum-X, Tomahawk 5)",
        "ports",
        "Al-Fares et al., SIGCOMM 2008, §3: k²/2",
        "8,192",
        8192,
        8192,
        "exact",
        twin=lambda: max_endpoints(2, 128),
    ),
    Case(
        "fat-tree-3-tier-radix-128",
        "fabric",
        "end points of a non-blocking 3-tier fat tree, radix 128",
        "ports",
        "Al-Fares et al., SIGCOMM 2008, §3: k³/4",
        "524,288",
        524288,
        524288,
        "exact",
        twin=lambda: max_endpoints(3, 128),
    ),
    Case(
        "llama3-24k-cluster-tiers",
        "fabric",
        "tiers of a 24,576-GPU RoCE cluster: 8 pods of 3,072 GPUs, full bisection inside, 1:7 above",
        "tiers",
        "Llama 3 Herd of Models, arXiv 2407.21783, §3.3.1: a three-layer Clos (ToR, cluster switch, "
        "aggregation), pods of 3,072 GPUs without oversubscription, 1:7 at the aggregation layer",
        "3",
        3,
        3,
        "exact",
        twin=_llama3_cluster_tiers,
    ),
    Case(
        "quantum-2-switch-power-dac",
        "fabric",
        "Quantum-2 QM9700 power per switch, all ports on DAC copper",
        "W",
        f"NVIDIA QM9700 datasheet (2022); {SEMI_100K}: ~747 W with copper",
        "747 W",
        *relative(747.0, 0.03),
        twin=lambda: _switch_w("middle-of-rack", 2.0),
    ),
    Case(
        "quantum-2-switch-power-optics",
        "fabric",
        "Quantum-2 QM9700 power per switch, all ports on multimode optics",
        "W",
        f"NVIDIA QM9700 datasheet (2022); {SEMI_100K}: ~1,500 W with optics",
        "1,500 W",
        *relative(1500.0, 0.05),
        twin=lambda: _switch_w("rail-optimized", 30.0),
    ),
    Case(
        "liquid-ride-through",
        "thermal",
        "cold-plate GPUs from steady state to shutdown after loss of liquid cooling",
        "s",
        "ASHRAE TC 9.9, 'Emergence and Expansion of Liquid Cooling in Mainstream Data Centers' (2021): "
        "direct-to-chip loss reaches shutdown in under a minute",
        "< 60 s",
        1.0,
        60.0,
        "1-60 s",
        twin=lambda: _ride_through_s("liquid"),
    ),
    Case(
        "air-ride-through",
        "thermal",
        "air-cooled servers from steady state to shutdown after loss of room cooling",
        "s",
        "Active Power white paper on data-centre thermal runaway (Opengate Data Systems study): room "
        "air loss reaches thermal shutdown in minutes",
        "1-10 min",
        60.0,
        600.0,
        "60-600 s",
        twin=lambda: _ride_through_s("air"),
    ),
]
