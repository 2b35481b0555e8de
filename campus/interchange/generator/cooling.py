"""Heat rejection plants per building and cooling units per hall, and which unit cools each rack."""

from __future__ import annotations

import math

from campus import catalog_data as cat
from campus.interchange.generator.builder import Builder, HallRow
from campus.interchange.generator.common import (
    CDU_PUMP_FRACTION,
    CRAH_FAN_FRACTION,
    CRAH_KW,
    DRY_COOLER_COP,
    PLANT_KW,
    SERVICE_ZONE_M,
    Row,
    r3,
)


def unit_kw(b: Builder) -> float:
    return cat.default_value("cdu_facility_kw") if b.cooling == "liquid" else CRAH_KW


def unit_power_fraction(b: Builder) -> float:
    return CDU_PUMP_FRACTION if b.cooling == "liquid" else CRAH_FAN_FRACTION


def plant_cop(b: Builder) -> float:
    return DRY_COOLER_COP if b.cooling == "liquid" else cat.default_value("chiller_cop")


def plant_count(heat_kw: float) -> int:
    return math.ceil(heat_kw / PLANT_KW) + 1  # N+1


def unit_count(b: Builder, hall_it_kw: float) -> int:
    return math.ceil(hall_it_kw / unit_kw(b)) + 1  # N+1 per hall group


def building_plants(b: Builder, bname: str, n_plants: int, power_device: str) -> list[str]:
    liquid = b.cooling == "liquid"
    names = []
    for p in range(n_plants):
        names.append(f"{bname}-{'DRY' if liquid else 'CHL'}-{p + 1:02d}")
        b.plants.append(
            {
                "name": names[-1],
                "kind": "dry-cooler" if liquid else "chiller",
                "building": bname,
                "capacity_kw": PLANT_KW,
                "cop": plant_cop(b),
                "restart_minutes": cat.default_value("chiller_restart_minutes"),
                "power_device": power_device,
            }
        )
    return names


def hall_units(
    b: Builder,
    prefix: str,
    bname: str,
    hall: Row,
    rows: list[HallRow],
    n_units: int,
    plants: list[str],
    mpdu: str,
) -> None:
    """Cooling units along the service zone; racks go to units in contiguous blocks."""
    liquid = b.cooling == "liquid"
    kw = unit_kw(b)
    group = f"{prefix}-{'CDU' if liquid else 'CRAH'}"
    units = []
    step = hall["width_m"] / (n_units + 1)
    for u in range(n_units):
        units.append(f"{group}-{u + 1:02d}")
        b.units.append(
            {
                "name": units[-1],
                "kind": "cdu" if liquid else "crah",
                "building": bname,
                "hall": hall["name"],
                "plant": plants[u % len(plants)],
                "power_device": mpdu,
                "capacity_kw": float(kw),
                "supply_temp_c": cat.default_value("supply_temp_c") if liquid else 24.0,
                "return_temp_c": cat.default_value("return_temp_c") if liquid else 40.0,
                "flow_lpm": r3(kw * cat.default_value("coolant_flow_lpm_per_kw")) if liquid else 0.0,
                "group": group,
                "x_m": r3(step * (u + 1)),
                "y_m": r3(hall["length_m"] - SERVICE_ZONE_M / 2),
            }
        )
    all_racks = [(spec, rack) for _, members in rows for spec, rack in members]
    for i, (spec, _) in enumerate(all_racks):
        spec["cooling_unit"] = units[i * n_units // len(all_racks)]
