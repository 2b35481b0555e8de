"""Back-end GPU fabric: fat-tree design maths (``design``), islands joined on a campus (``campus``), the
inventory the synthetic campuses lay out (``generate``), and a count of what an inventory holds
(``inventory``).

The public names of all four stay importable from ``campus.analysis.fabric``.
"""

from campus.analysis.fabric.campus import (
    CampusFabricDesign,
    CampusPlan,
    InterIslandDesign,
    campus_layer_counts,
    design_campus_fabric,
    design_inter_island,
    plan_campus,
)
from campus.analysis.fabric.design import (
    INTER_ISLAND_M,
    LEAF_SPINE_M,
    NODE_LEAF_M,
    OPTICAL_MEDIA,
    REACH_M,
    SPINE_CORE_M,
    TIER_NAMES,
    TRANSCEIVERS_PER_NIC,
    FabricDesign,
    FabricLayer,
    closes,
    design_fabric,
    leaf_down_ports,
    leaf_uplinks,
    max_endpoints,
    media_power_w_per_end,
    medium_for_length,
    pod_tiers,
    tier_name,
    tiers_for,
    top_switches_reachable,
)
from campus.analysis.fabric.generate import inventory_for_campus
from campus.analysis.fabric.inventory import FabricSummary, PodFabric, fabric_from_inventory

__all__ = [
    "INTER_ISLAND_M",
    "LEAF_SPINE_M",
    "NODE_LEAF_M",
    "OPTICAL_MEDIA",
    "REACH_M",
    "SPINE_CORE_M",
    "TIER_NAMES",
    "TRANSCEIVERS_PER_NIC",
    "CampusFabricDesign",
    "CampusPlan",
    "FabricDesign",
    "FabricLayer",
    "FabricSummary",
    "InterIslandDesign",
    "PodFabric",
    "campus_layer_counts",
    "closes",
    "design_campus_fabric",
    "design_fabric",
    "design_inter_island",
    "fabric_from_inventory",
    "inventory_for_campus",
    "leaf_down_ports",
    "leaf_uplinks",
    "max_endpoints",
    "media_power_w_per_end",
    "medium_for_length",
    "plan_campus",
    "pod_tiers",
    "tier_name",
    "tiers_for",
    "top_switches_reachable",
]
