"""What every step of the generator shares: design constants, the error, the catalog rows, rounding."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from campus import catalog_data as cat
from campus.analysis.rackscale import NVL72_TRAYS_PER_RACK  # noqa: F401  (the generator's racks of 18 GB200 trays)

Row = dict[str, Any]

# ---------------------------------------------------------------- design constants (docs/generator.md)

RACK_WIDTH_M = 0.6
RACK_DEPTH_M = 1.2
ROW_PITCH_M = 3.0  # rack depth 1.2 m + 1.8 m aisle (hot and cold aisles alternate)
HALL_MARGIN_M = 3.0  # perimeter walkway
SERVICE_ZONE_M = 8.0  # far end of the hall: CDUs/CRAHs, spine and core switch racks
BUILDING_MARGIN_M = 10.0
HALL_GAP_M = 6.0
ELECTRICAL_GALLERY_M = 30.0  # UPS, switchgear and battery rooms along the building
BUILDING_GAP_M = 60.0
SITE_ROW_MAX_SINGLE = 4  # up to this many buildings stand in one row; more are laid out in rows
USABLE_RACK_UNITS = 36  # a 48U rack less top-of-rack, PDU, cable management and 1U gaps
LIQUID_RACK_LIMIT_KW = 140.0  # GB200 NVL72 ~132 kW is the densest design in the catalog
GENERATOR_KW = 3000.0  # one 3 MW diesel generator set
UPS_MODULE_KW = 3000.0
PLANT_KW = 10_000.0  # one dry-cooler block or chiller, kW of heat
PLANT_MIN_KW = 1000.0  # smallest plant block for a building with little heat
CRAH_KW = 350.0  # chilled-water CRAH / fan wall unit, kW of heat
DRY_COOLER_COP = 15.0  # fans only; estimate
GRID_MARGIN = 1.15  # grid interconnect above the design facility power
UPLINK_M_SAME_HALL = 20.0
# Middle-of-rack: a leaf serves at most 16 racks, 8 either side: 8 x 0.6 m + 2 m of risers < 7 m (AEC).
MOR_SEGMENT_RACKS = 16
SPINE_CORE_M = 10.0
INTER_BUILDING_EXTRA_M = 100.0  # risers and trays inside both buildings

FABRIC_SWITCH = {
    "infiniband-ndr": "quantum-2-qm9700",
    "spectrum-x": "spectrum-x-sn5600",
    "tomahawk5": "tomahawk5-128x400",
    "roce-200ge": "ethernet-128x200ge",
    "infiniband-xdr": "quantum-x800-q3400",
    "spectrum-x800": "spectrum-x800-sn5600",
    "tomahawk6": "tomahawk6-128x800",
}
COOLING = ("liquid", "air")
# Redundancy of the critical power chain and of the cooling (docs/generator.md, "Redundancy"): N (no
# redundancy), N+1 (distributed redundant power blocks; one spare unit per cooling group and plant set),
# 2N (two complete, independent systems).
POWER_REDUNDANCY = ("N", "N+1", "2N")
COOLING_REDUNDANCY = ("N", "N+1", "2N")
DEFAULT_POWER_REDUNDANCY = "2N"
DEFAULT_COOLING_REDUNDANCY = "N+1"
# Heat rejection (docs/generator.md, "Heat rejection"): the plant kinds of the liquid loop (CDUs) and of the
# air loop (CRAHs). ``auto``: dry coolers on the liquid loop where the climate's design hours let them,
# else water-cooled chillers on towers; water-cooled chillers on the air loop.
HEAT_REJECTION: dict[str, tuple[str, str] | None] = {
    "auto": None,
    "evaporative": ("chiller", "chiller"),
    "air-cooled": ("air-chiller", "air-chiller"),
    "dry": ("dry-cooler", "air-chiller"),
    "adiabatic": ("adiabatic-cooler", "air-chiller"),
    "hybrid": ("adiabatic-cooler", "chiller"),
}
# ASHRAE TC 9.9 liquid cooling classes: the facility water supply at most this warm, °C.
FACILITY_WATER_C = {"W32": 32.0, "W40": 40.0, "W45": 45.0}
COLD_PLATE_MAX_RETURN_C = 65.0  # estimate: cold-plate loops return at most ~60-65 °C


@dataclass(frozen=True)
class PowerArchitecture:
    """The stages of a hall's critical chain below the substation (docs/generator.md, "Power architecture"):
    an MV/LV transformer or not, the module stage that holds the ride-through battery (a UPS, a solid-state
    transformer with storage on its 800 VDC bus, or the sidecar power racks' rectifiers with their battery
    backup units) and what each row's racks hang from (an AC PDU or a DC busway)."""

    name: str
    transformer: bool
    module_kind: str
    row_kind: str


# AC: MV → transformer → LV switchgear → double-conversion UPS → row PDU → rack PSUs.
# dc-800 (NVIDIA 800 VDC, 2025): MV switchgear → solid-state transformer (MV AC → 800 VDC) → DC busway → rack.
# dc-400 (OCP Mt Diablo, 2025): MV → transformer → LV switchgear → sidecar power racks (AC → ±400 VDC) →
# DC busway → rack.
POWER_ARCHITECTURES = {
    "ac": PowerArchitecture("ac", True, "ups", "pdu"),
    "dc-800": PowerArchitecture("dc-800", False, "sst", "dc-busway"),
    "dc-400": PowerArchitecture("dc-400", True, "rectifier", "dc-busway"),
}
DEFAULT_POWER_ARCHITECTURE = "ac"


class GeneratorError(ValueError):
    """A generator parameter that cannot give a campus; ``field`` names the parameter."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


@dataclass(frozen=True)
class Catalog:
    """Catalog rows keyed by slug (the shape of ``campus.catalog_data``; ``gpu`` is the node's GPU slug)."""

    gpus: Mapping[str, Row]
    node_models: Mapping[str, Row]
    switch_models: Mapping[str, Row]
    media: Mapping[str, Row]

    @classmethod
    def defaults(cls) -> Catalog:
        return cls(
            gpus={r["slug"]: r for r in cat.GPU_MODELS},
            node_models={r["slug"]: r for r in cat.NODE_MODELS},
            switch_models={r["slug"]: r for r in cat.SWITCH_MODELS},
            media={r["slug"]: r for r in cat.LINK_MEDIA},
        )

    def node_kw(self, slug: str) -> float:
        node = self.node_models[slug]
        extra_w = cat.NIC_KINDS.get(node["nic_kind"], {}).get("extra_w_per_nic", 0.0)
        return (
            node["gpus_per_node"] * self.gpus[node["gpu"]]["tdp_w"]
            + node["overhead_w"]
            + node["nics"] * extra_w
        ) / 1000.0


COLD_PLATE = "direct-to-chip"
AIR = "air"


def liquid_heat_fraction(node_row: Row) -> float:
    """The node model's cold-plate share (a catalog without the figure: all of it, the older reading)."""
    value = node_row.get("liquid_heat_fraction")
    return 1.0 if value is None else float(value)


def rack_cooling_type(node_row: Row, cooling: str) -> str:
    """A liquid campus cold-plates the servers that have a cold-plate version; the rest stay on air."""
    return COLD_PLATE if cooling == "liquid" and liquid_heat_fraction(node_row) > 0 else AIR


def r3(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


def ceil_to(value: float, step: float) -> float:
    return float(math.ceil(value / step - 1e-9) * step)
