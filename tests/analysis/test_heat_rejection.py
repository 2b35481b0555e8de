"""Heat rejection choices and design weather: an air-cooled chiller by hand, water by physics, design hours
against the typical year, and the flags a campus that cannot reject its heat raises."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.analysis.design_weather import DESIGN_CONDITIONS
from campus.analysis.facility import campus_facility_year, design_facility, facility_year
from campus.analysis.facility import rejection as rj
from campus.analysis.placement import PlacementRequest, place
from campus.analysis.redundancy import design_redundancy
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.summary import campus_summary
from campus.analysis.weather import reference_year
from campus.interchange.generator.common import GeneratorError
from campus.interchange.generator.document import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot


@cache
def campus(
    climate: str, heat_rejection: str, facility_water: str | None = None, gpus: int = 1024
) -> CampusSnapshot:
    return spec_snapshot(
        generate_spec(
            "heat rejection",
            gpus=gpus,
            climate=climate,
            heat_rejection=heat_rejection,
            facility_water=facility_water,
        )
    )


# ---------------------------------------------------------------- an air-cooled chiller by hand


def test_air_chiller_cop_at_its_rating_point_is_the_ashrae_minimum() -> None:
    # ASHRAE 90.1-2019 Table 6.8.1-3: air-cooled chillers >= 150 tons, 10.1 EER full load = 10.1 / 3.412
    # = 2.96 W/W at AHRI 550/590 conditions (44 °F = 6.67 °C leaving water, 95 °F = 35 °C air).
    assert float(rj.air_chiller_cop(10.1 / 3.412, 6.67, 35.0)) == pytest.approx(2.960, abs=2e-3)


@pytest.mark.parametrize(
    ("dry_bulb_c", "cop"),
    [
        # Carnot between evaporating 6.67 - 3 = 3.67 °C (276.82 K) and condensing air + 15 K (floor 25 °C),
        # scaled to 2.96 at 35 °C air (Carnot 276.82 / 46.33 = 5.9749):
        (5.0, 6.4293),  # condensing at the 25 °C floor: 276.82 / 21.33 = 12.978 -> x 2.96 / 5.9749
        (25.0, 3.7748),  # 276.82 / 36.33 = 7.6196
        (35.0, 2.9600),
        (45.0, 2.4345),  # 276.82 / 56.33 = 4.9143
    ],
)
def test_air_chiller_cop_follows_the_carnot_lift_by_hand(dry_bulb_c: float, cop: float) -> None:
    assert float(rj.air_chiller_cop(2.96, 6.67, dry_bulb_c)) == pytest.approx(cop, abs=2e-3)


def test_air_chiller_year_by_hand_draws_compressors_and_pumps_and_evaporates_nothing() -> None:
    # 500 kW of heat on a 1,000 kW plant, water 10 -> 16 °C: the free-cooling coil cools the return towards
    # air + 6 K, so above 10 °C air it takes nothing and the compressors carry it all.
    db = np.array([12.0, 25.0, 35.0, 45.0])
    power, margin, water, free = rj.air_chiller_year(500.0, 1000.0, 2.96, 10.0, 16.0, db)
    cop = np.array([float(rj.air_chiller_cop(2.96, 10.0, t)) for t in db])
    # chilled-water pump: 22 W/gpm x (1,000 kW / (4,180 kJ/m³K x 6 K) x 15,850.3 gpm per m³/s = 631.99 gpm)
    # = 13.904 kW at design flow, at half flow x 0.5³
    pump_kw = 22.0 * 1000.0 / (4180.0 * 6.0) * 15850.3 / 1000.0 * 0.125
    assert free.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert power == pytest.approx(500.0 / cop + pump_kw, rel=1e-6)
    assert water.tolist() == [0.0, 0.0, 0.0, 0.0]
    # capacity derates 1 %/K above 35 °C: 900 kW at 45 °C, 400 kW of margin on 500 kW of heat
    assert margin.tolist() == pytest.approx([500.0, 500.0, 500.0, 400.0])
    # warmer water lifts the COP: 10 °C leaving water beats the 6.67 °C rating at the same air
    assert cop[2] > 2.96


def test_air_cooled_campus_evaporates_no_water_all_year() -> None:
    year = campus_facility_year(campus("phoenix-us", "air-cooled"))
    assert {p.kind for p in year.plants} == {"air-chiller"}
    assert year.annual()["water_m3"] == 0.0
    assert year.wue_l_per_kwh == 0.0
    assert year.hours_short == 0


# ---------------------------------------------------------------- water and PUE as physics orders them


def test_phoenix_wue_orders_towers_above_adiabatic_above_air_cooled() -> None:
    wue = {
        hr: campus_facility_year(campus("phoenix-us", hr)).wue_l_per_kwh
        for hr in ("evaporative", "hybrid", "adiabatic", "air-cooled")
    }
    # towers evaporate ~1.5-2 L per kWh of heat all year; adiabatic coolers only in hot hours, on the liquid
    # loop alone (hybrid keeps towers on the air loop); air-cooled chillers never
    assert 1.5 <= wue["evaporative"] <= 2.5
    assert wue["evaporative"] > wue["hybrid"] > wue["adiabatic"] > wue["air-cooled"] == 0.0
    # the water saved costs power: evaporative cooling gives the lowest PUE in a desert
    pue = {hr: campus_facility_year(campus("phoenix-us", hr)).energy_weighted_pue for hr in wue}
    assert pue["evaporative"] < pue["air-cooled"]


def test_adiabatic_cooler_sprays_only_when_the_dry_coil_falls_short() -> None:
    # 800 kW on a 1,000 kW adiabatic cooler, water 30 -> 40 °C: dry up to 40 - 0.8 x 16 = 27.2 °C air
    db = np.array([15.0, 25.0, 30.0, 36.0])
    wb = db - 12.0
    _, margin, water, _ = rj.adiabatic_year(800.0, 1000.0, 1000.0 / 15.0, 30.0, 40.0, db, wb)
    assert water[0] == 0.0 and water[1] == 0.0
    assert water[2] > 0.0 and water[3] > water[2]
    # at 30 °C air the pads precool to the 27.2 °C the heat needs: 2.8 K of 100 kW/K of air = 280 kW of
    # sensible heat into evaporation, 280 x 3,600 / 2,430 = 414.8 L in the hour
    assert water[2] == pytest.approx(280.0 * 3600.0 / 2430.0, rel=1e-6)
    assert (margin >= 0).all()


# ---------------------------------------------------------------- hotter weather never lowers PUE

KINDS = ("evaporative", "air-cooled", "adiabatic", "hybrid")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(KINDS),
    db=st.floats(-15.0, 45.0),
    depression=st.floats(0.0, 20.0),
    warmer_db=st.floats(0.0, 8.0),
    share=st.floats(0.0, 1.0),
)
def test_hotter_weather_never_lowers_pue(kind, db, depression, warmer_db, share) -> None:
    snap = campus("dublin-ie", kind)
    wb = db - depression
    # hotter: the dry bulb up by warmer_db, the wet bulb by a share of it (it stays at or below the dry bulb)
    hot_db, hot_wb = db + warmer_db, wb + share * warmer_db
    year = facility_year(snap, [db, hot_db], [wb, hot_wb])
    assert year.pue[1] >= year.pue[0] - 1e-9
    assert year.water_l[1] >= year.water_l[0] - 1e-9


# ---------------------------------------------------------------- design weather


def test_design_conditions_are_hotter_than_the_typical_years_hottest_hour() -> None:
    # the finding: a year from monthly normals peaks below the ASHRAE 0.4 % dry bulb (Phoenix 41.6 °C)
    for climate, design in DESIGN_CONDITIONS.items():
        typical = float(reference_year(climate).dry_bulb_c.max())
        assert design.cooling_db_04_c > typical, climate
        assert design.extreme_db_20y_c >= design.cooling_db_04_c >= design.cooling_db_1_c
    assert DESIGN_CONDITIONS["phoenix-us"].cooling_db_04_c > 43.0
    # the extreme keeps the 0.4 % hour's moisture: a hotter dry bulb, a wet bulb warmer but by less
    hours = DESIGN_CONDITIONS["phoenix-us"].hours()
    assert hours[3][1] - hours[0][1] > hours[3][2] - hours[0][2] > 0


def test_abilene_and_columbus_have_reference_years() -> None:
    abilene, columbus = reference_year("abilene-us"), reference_year("columbus-us")
    # July mean daily max 95.6 °F = 35.3 °C in Abilene, 85.2 °F = 29.6 °C in Columbus (NOAA 1991-2020)
    assert float(abilene.dry_bulb_c.max()) > float(columbus.dry_bulb_c.max()) + 4.0
    assert 34.0 < float(abilene.dry_bulb_c.max()) < 38.0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    climate=st.sampled_from(sorted(DESIGN_CONDITIONS)),
    heat_rejection=st.sampled_from(("auto", "evaporative", "air-cooled", "dry", "adiabatic", "hybrid")),
    facility_water=st.sampled_from((None, "W32", "W40", "W45")),
)
def test_generated_campus_rejects_its_heat_in_every_typical_and_design_hour(
    climate, heat_rejection, facility_water
) -> None:
    try:
        snap = campus(climate, heat_rejection, facility_water, gpus=512)
    except GeneratorError as exc:  # dry coolers where the design hours leave them too little
        assert exc.field == "heat_rejection"
        assert heat_rejection == "dry"
        return
    assert design_facility(snap).hours_short == 0
    assert campus_facility_year(snap).hours_short == 0
    s = campus_summary(snap)
    assert s["power"]["design_peak_facility_mw"] >= s["power"]["peak_facility_mw"] - 1e-9
    assert not [r for r in s["risks"] if r["kind"] == "heat_rejection_short"]


def test_design_peak_is_above_the_typical_peak_in_phoenix() -> None:
    s = campus_summary(campus("phoenix-us", "air-cooled"))
    assert s["power"]["design_peak_facility_mw"] > s["power"]["peak_facility_mw"]
    assert s["power"]["design_grid_headroom_mw"] < s["power"]["grid_headroom_mw"]
    assert s["cooling"]["design_conditions"]["conditions"]["cooling_db_04_c"] == pytest.approx(43.8)
    # the grid connection was sized at design conditions: still headroom there
    assert s["power"]["design_grid_headroom_mw"] > 0


def test_warm_water_lengthens_free_cooling() -> None:
    hours = [
        campus_facility_year(campus("ashburn-us", "air-cooled", w)).plants[0].annual()["free_cooling_hours"]
        for w in (None, "W32", "W45")
    ]
    assert hours[0] < hours[1] < hours[2]


# ---------------------------------------------------------------- dry coolers in Phoenix are flagged


@cache
def dry_in_phoenix() -> CampusSnapshot:
    # a dry-cooler design sized for Dublin, then stood in Phoenix's weather
    return replace(campus("dublin-ie", "dry"), climate="phoenix-us")


def test_dry_coolers_in_phoenix_are_a_summary_risk() -> None:
    s = campus_summary(dry_in_phoenix())
    short = [r for r in s["risks"] if r["kind"] == "heat_rejection_short"]
    assert short and all(r["plant_kind"] == "dry-cooler" for r in short)
    assert all(r["hours_short"] > 1000 and r["design_hours_short"] == 4 for r in short)
    assert s["cooling"]["hours_short"] > 1000


def test_dry_coolers_in_phoenix_fail_the_redundancy_check() -> None:
    cooling = next(c for c in design_redundancy(dry_in_phoenix()) if c["domain"] == "cooling")
    assert cooling["severity"] == "error"
    assert cooling["achieved"] == "N"
    assert cooling["heat_rejection_short"]
    assert "cannot reject the heat" in cooling["message"]
    dublin = next(c for c in design_redundancy(campus("dublin-ie", "dry")) if c["domain"] == "cooling")
    assert not dublin["heat_rejection_short"]


def test_dry_coolers_in_phoenix_bind_placement() -> None:
    snap = dry_in_phoenix()
    node = next(r.nodes[0][0] for r in snap.racks if r.nodes)
    result = place(snap, PlacementRequest(node, 1))
    assert not result["feasible"]
    assert result["binding_constraint"] == "cooling"
    assert result["binding"]["level"] == "cooling plant"
    assert any("cannot reject its heat" in s["detail"] for s in result["short_at_design"])


def test_description_says_which_plants_were_chosen_and_why() -> None:
    auto = generate_spec("auto", gpus=512, climate="ulanqab-cn")["campus"]["description"]
    # Ulanqab's 35.4 °C 20-year extreme leaves a dry cooler on the default loop a quarter of its rating
    assert "Heat rejection chosen for the climate: liquid loop on water-cooled chillers" in auto
    assert "25%" in auto
    chosen = generate_spec("chosen", gpus=512, heat_rejection="adiabatic", facility_water="W40")["campus"]
    assert (
        "Heat rejection adiabatic: liquid loop on dry coolers with adiabatic assist" in chosen["description"]
    )
    assert "facility water W40 (40 °C supply)" in chosen["description"]
