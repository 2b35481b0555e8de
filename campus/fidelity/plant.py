"""Published PUE and WUE against the plant model (``campus.analysis.facility``) on generated campuses in
the shipped reference years (docs/fidelity.md, "The plant and the weather")."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from campus.analysis.facility import FacilityYear, facility_year
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.weather import reference_year
from campus.fidelity.scorecard import Case, relative
from campus.interchange.generator.document import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

GOOGLE_2023 = "Google data centers, efficiency report (2023): fleet trailing-twelve-month PUE 1.10"
UPTIME_2024 = "Uptime Institute Global Data Center Survey 2024: industry average annual PUE 1.56"
LBNL_2016 = (
    "Shehabi et al., United States Data Center Energy Usage Report, LBNL-1005775 (2016), §5: on-site water "
    "of evaporative cooling ~1.8 L per kWh of IT energy"
)
TGG_WUE = "The Green Grid WP #35, Water Usage Effectiveness (2011): dry (closed-loop) heat rejection uses no site water"


MICROSOFT_2024 = (
    "Microsoft, Sustainable by design: next-generation datacenters consume zero water for cooling (2024-12): "
    "closed-loop chip-level cooling, no water evaporated for cooling"
)
ASHRAE_W32 = (
    "ASHRAE TC 9.9, Liquid Cooling Guidelines for Datacom Equipment Centers (2nd ed., 2014) and the 2021 "
    "W-class update: facility water up to 32 °C (W32) is produced without chillers, by dry coolers or "
    "towers, in most climates"
)


@cache
def _closed_loop(climate: str, heat_rejection: str, facility_water: str | None = None) -> CampusSnapshot:
    return spec_snapshot(
        generate_spec(
            f"fidelity {heat_rejection}",
            gpus=8192,
            climate=climate,
            heat_rejection=heat_rejection,
            facility_water=facility_water,
        )
    )


def _liquid_loop_free_share(climate: str) -> float:
    """Share of the year the liquid loop's plants reject all their heat without compressors: a generated
    W32 campus on dry coolers, in the climate's reference year."""
    snap = _closed_loop(climate, "dry", "W32")
    cdu_plants = {u.plant_id for u in snap.cooling_units if u.kind == "cdu"}
    plants = [p for p in _year(snap, climate).plants if p.id in cdu_plants]
    return min(float((p.free_cooling >= 1.0).mean()) for p in plants)


@cache
def _generated(cooling: str) -> CampusSnapshot:
    return spec_snapshot(generate_spec(f"fidelity {cooling}", gpus=8192, cooling=cooling))


def _year(snap: CampusSnapshot, climate: str, gpu_power_fraction: float = 1.0) -> FacilityYear:
    w = reference_year(climate)
    return facility_year(snap, w.dry_bulb_c, w.wet_bulb_c, gpu_power_fraction)


def _legacy_air() -> CampusSnapshot:
    """An enterprise-style hall: air-cooled on chillers at COP 4 (an older plant), 15 °C supply air (7 °C
    chilled water), double-conversion UPS."""
    snap = _generated("air")
    return replace(
        snap,
        cooling_plants=tuple(replace(p, cop=4.0) for p in snap.cooling_plants),
        cooling_units=tuple(replace(u, supply_temp_c=15.0) for u in snap.cooling_units),
    )


def _all_dry() -> CampusSnapshot:
    snap = _generated("liquid")
    return replace(
        snap, cooling_plants=tuple(replace(p, kind="dry-cooler", cop=15.0) for p in snap.cooling_plants)
    )


CASES: list[Case] = [
    Case(
        "plant-pue-hyperscale-free-cooling",
        "energy",
        "annual PUE of a generated liquid-cooled campus (CDUs on dry coolers, CRAHs on chillers with a "
        "water-side economiser) in Ashburn's reference year",
        "",
        GOOGLE_2023,
        "1.10",
        *relative(1.10, 0.05),
        twin=lambda: _year(_generated("liquid"), "ashburn-us").energy_weighted_pue,
    ),
    Case(
        "plant-pue-industry-average",
        "energy",
        "annual PUE of an enterprise-style air-cooled campus (chillers at COP 4, 7 °C chilled water, 30 % "
        "IT load) in Memphis's reference year",
        "",
        UPTIME_2024,
        "1.56",
        *relative(1.56, 0.15),
        twin=lambda: _year(_legacy_air(), "memphis-us", 0.3).energy_weighted_pue,
    ),
    Case(
        "plant-wue-evaporative",
        "energy",
        "WUE of a generated air-cooled campus on chillers with open cooling towers, Ashburn",
        "L/kWh",
        LBNL_2016,
        "1.8 L/kWh",
        *relative(1.8, 0.3),
        twin=lambda: _year(_generated("air"), "ashburn-us").wue_l_per_kwh,
    ),
    Case(
        "plant-wue-dry-cooling",
        "energy",
        "WUE of the liquid-cooled campus with every plant a dry cooler, Ashburn",
        "L/kWh",
        TGG_WUE,
        "0",
        0.0,
        0.0,
        "exact",
        twin=lambda: _year(_all_dry(), "ashburn-us").wue_l_per_kwh,
    ),
    Case(
        "plant-wue-air-cooled-chillers-desert",
        "energy",
        "WUE of a generated campus on air-cooled chillers with free-cooling coils (heat_rejection "
        "air-cooled), Phoenix",
        "L/kWh",
        MICROSOFT_2024,
        "0",
        0.0,
        0.0,
        "exact",
        twin=lambda: _year(_closed_loop("phoenix-us", "air-cooled"), "phoenix-us").wue_l_per_kwh,
    ),
    Case(
        "plant-free-cooling-w32",
        "energy",
        "share of the hours of Ashburn's reference year in which a W32 liquid loop on dry coolers needs no "
        "compressor (heat_rejection dry, facility_water W32)",
        "fraction",
        ASHRAE_W32,
        "all year (1.0)",
        0.99,
        1.0,
        "≥ 0.99",
        twin=lambda: _liquid_loop_free_share("ashburn-us"),
    ),
]
