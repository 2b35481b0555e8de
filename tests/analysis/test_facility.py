"""Facility physics: component models against their sources, the hourly year against conservation and
monotonicity (hypothesis), and warm-water liquid cooling on dry coolers."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.facility import components as fc
from campus.analysis.facility import facility_year
from campus.analysis.snapshot import CampusSnapshot
from campus.catalog_data import default_value
from campus.interchange.generator.document import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

HOURS = np.arange(8760)


def synthetic_weather(mean_c: float, seasonal_k: float, daily_k: float, depression_k: float):
    """A smooth year: seasonal and daily cosines (coldest mid-January and at 03:00), wet-bulb a fixed
    depression below the dry-bulb. Enough to exercise the model; the shipped reference years are richer."""
    day = HOURS / 24.0
    db = (
        mean_c
        - seasonal_k * np.cos(2 * np.pi * (day - 15) / 365)
        - daily_k * np.cos(2 * np.pi * (HOURS % 24 - 3) / 24)
    )
    return db, db - depression_k


@cache
def generated(cooling: str = "liquid", gpus: int = 2048) -> CampusSnapshot:
    # Dublin's design: dry coolers on the liquid loop (a warmer climate's design has chillers there)
    return spec_snapshot(generate_spec("facility test", gpus=gpus, cooling=cooling, climate="dublin-ie"))


# ---------------------------------------------------------------- components against their sources


def test_chiller_draws_its_rated_power_at_the_curve_reference_conditions() -> None:
    # The DOE-2 curves are normalised to 1 at 6.67 °C leaving chilled water and 29.4 °C entering condenser
    # water (EnergyPlus Chiller:Electric:EIR reference): at full load P = capacity / COP.
    power, cap = fc.chiller_power_kw(1000.0, 1000.0, 5.5, 6.67, 29.4)
    assert float(cap) == pytest.approx(1000.0, rel=0.01)
    assert float(power) == pytest.approx(1000.0 / 5.5, rel=0.01)
    assert sum(fc.CHILLER_EIRFPLR) == pytest.approx(1.0, abs=1e-3)


def test_chiller_cop_falls_as_the_condenser_warms() -> None:
    power = [
        float(fc.chiller_power_kw(800.0, 1000.0, 6.0, 7.0, tc)[0]) for tc in (24.0, 27.0, 30.0, 33.0, 35.0)
    ]
    assert power == sorted(power)
    assert power[-1] > power[0] * 1.15  # lift from 24 to 35 °C costs at least 15 % more power


def test_transformer_is_most_efficient_at_its_rating_load_and_matches_its_efficiency_there() -> None:
    coef = fc.loss_coefficients(fc.TRANSFORMER, 0.99, 0.5)
    x = np.linspace(0.05, 1.0, 400)
    eff = x / (x + fc.device_loss_kw(1.0, coef, x))
    assert x[eff.argmax()] == pytest.approx(0.5, abs=0.01)
    assert float(0.5 / (0.5 + fc.device_loss_kw(1.0, coef, 0.5))) == pytest.approx(0.99)


def test_double_conversion_ups_curve_matches_the_published_band() -> None:
    # ~94-97 % from 30 % to 100 % load (vendor curves), lower at light load; eco mode ~99 %.
    coef = fc.loss_coefficients(fc.loss_shares("ups", 0.96), 0.96, 0.5)
    for x in (0.3, 0.5, 0.75, 1.0):
        assert 0.94 <= x / (x + float(fc.device_loss_kw(1.0, coef, x))) <= 0.97
    assert 0.1 / (0.1 + float(fc.device_loss_kw(1.0, coef, 0.1))) < 0.9
    assert fc.ups_mode(0.96) == "double-conversion" and fc.ups_mode(0.99) == "eco"
    eco = fc.loss_coefficients(fc.loss_shares("ups", 0.99), 0.99, 0.5)
    assert all(x / (x + float(fc.device_loss_kw(1.0, eco, x))) >= 0.98 for x in (0.3, 0.5, 1.0))


def test_tower_make_up_water_per_kwh_from_latent_heat_and_cycles() -> None:
    # 1 kWh = 3,600 kJ / 2,430 kJ/kg = 1.48 kg evaporated; blowdown at 4 cycles adds a third: 1.98 L.
    assert float(fc.make_up_water_l(1.0)) == pytest.approx(3600 / 2430 * 4 / 3, rel=1e-9)
    assert 1.5 < float(fc.make_up_water_l(1.0)) < 2.5


def test_dry_cooler_capacity_falls_to_zero_as_the_dry_bulb_reaches_the_returning_water() -> None:
    approach = default_value("dry_cooler_approach_k")
    db = np.array([0.0, 30.0 - approach, 38.0, 45.0, 50.0])
    cap = fc.dry_cooler_capacity_kw(1000.0, 30.0, 45.0, db)
    assert cap[1] == pytest.approx(1000.0)  # rated at the design dry-bulb
    assert cap[0] > 1000.0 and cap[3] == 0.0 and cap[4] == 0.0
    assert list(cap) == sorted(cap, reverse=True)


def test_affinity_laws_half_flow_takes_an_eighth_of_the_power() -> None:
    assert float(fc.affinity_power_kw(80.0, 0.5)) == pytest.approx(10.0)
    assert float(fc.affinity_power_kw(80.0, 0.0)) == 0.0
    assert float(fc.affinity_power_kw(80.0, 2.0)) == pytest.approx(80.0)


def test_economiser_takes_all_the_load_in_cold_weather_and_none_in_hot() -> None:
    frac = fc.economiser_fraction(np.array([-5.0, 10.0, 13.0, 30.0]), 16.0, 22.0, 4.0, 2.0)
    assert list(frac) == [1.0, 1.0, 0.5, 0.0]


# ---------------------------------------------------------------- the year


def test_facility_is_it_plus_losses_plus_cooling_every_hour() -> None:
    fy = facility_year(generated(), *synthetic_weather(17.0, 11.0, 5.0, 4.0))
    assert fy.hours == 8760
    assert np.allclose(fy.facility_mw, fy.it_mw + fy.losses_mw + fy.cooling_mw)
    assert (fy.losses_mw >= 0).all() and (fy.cooling_mw >= 0).all() and (fy.water_l >= 0).all()
    assert fy.annual_energy_mwh == pytest.approx(fy.facility_mw.sum())
    assert fy.energy_weighted_pue == pytest.approx(fy.annual_energy_mwh / fy.annual_it_energy_mwh)
    assert 1.0 < fy.energy_weighted_pue < 1.6


def test_it_is_the_heat_the_cooling_balance_places() -> None:
    from campus.analysis.energy import it_breakdown

    snap = generated()
    fy = facility_year(snap, [20.0], [15.0], gpu_power_fraction=0.8)
    assert fy.it_mw[0] * 1000 == pytest.approx(it_breakdown(snap, 0.8).it_kw)


def _warm_water(snap: CampusSnapshot, supply_c: float, return_c: float) -> CampusSnapshot:
    units = tuple(
        replace(u, supply_temp_c=supply_c, return_temp_c=return_c) if u.kind == "cdu" else u
        for u in snap.cooling_units
    )
    return replace(snap, cooling_units=units)


def test_warm_water_liquid_cooling_rejects_to_dry_coolers_most_of_the_year() -> None:
    # A warm year for a design sized for Dublin (mean 20 °C, summer afternoons ~36 °C). With W40-class
    # warm water (CDU secondary 40 -> 50 °C) the dry coolers hold the loop every hour; at the 25 °C
    # default they lose the hottest hours.
    weather = synthetic_weather(20.0, 11.0, 5.0, 4.0)
    warm = facility_year(_warm_water(generated(), 40.0, 50.0), *weather)
    dry = [p for p in warm.plants if p.kind == "dry-cooler"]
    assert dry
    assert all(int((p.margin_kw < 0).sum()) == 0 for p in dry)
    cool = facility_year(generated(), *weather)
    cool_short = sum(int((p.margin_kw < 0).sum()) for p in cool.plants if p.kind == "dry-cooler")
    assert cool_short > 0
    # and across every hour the dry coolers carry at least 90 % of the year at the default loop too
    for p in cool.plants:
        if p.kind == "dry-cooler":
            assert (p.margin_kw >= 0).mean() > 0.9


def test_chillers_with_towers_carry_the_hours_dry_coolers_cannot_and_spend_water_on_it() -> None:
    # On a warm loop the towers' economiser does nearly all the work, so the PUE is about the same; the
    # evaporative plant holds the loop in the hot hours the dry coolers lose, and pays in water.
    snap = generated()
    chillers = replace(
        snap, cooling_plants=tuple(replace(p, kind="chiller", cop=6.0) for p in snap.cooling_plants)
    )
    weather = synthetic_weather(20.0, 11.0, 5.0, 4.0)  # warmer than the Dublin design's climate
    dry, chill = facility_year(snap, *weather), facility_year(chillers, *weather)
    assert chill.hours_short == 0 < dry.hours_short
    assert chill.energy_weighted_pue == pytest.approx(dry.energy_weighted_pue, abs=0.03)
    assert chill.wue_l_per_kwh > dry.wue_l_per_kwh + 1.0


def test_air_cooled_campus_on_chillers_uses_water_and_has_a_higher_pue() -> None:
    weather = synthetic_weather(17.0, 11.0, 5.0, 4.0)
    air, liquid = facility_year(generated("air"), *weather), facility_year(generated(), *weather)
    assert air.energy_weighted_pue > liquid.energy_weighted_pue
    assert air.wue_l_per_kwh > 1.0  # every watt through open towers: ~2 L per kWh of heat


def test_bad_weather_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="wet_bulb_c"):
        facility_year(generated(), [20.0, 21.0], [15.0])
    with pytest.raises(ValueError, match="wet_bulb_c"):
        facility_year(generated(), [20.0], [25.0])
    with pytest.raises(ValueError, match="dry_bulb_c"):
        facility_year(generated(), [float("nan")], [10.0])


# ---------------------------------------------------------------- properties

temps = st.lists(st.floats(-25.0, 45.0), min_size=1, max_size=24)


def _weather(db: list[float], depression: float) -> tuple[np.ndarray, np.ndarray]:
    arr = np.array(db)
    return arr, arr - depression


@settings(max_examples=60, deadline=None)
@given(
    db=temps,
    depression=st.floats(0.0, 15.0),
    rise=st.floats(0.0, 20.0),
    cooling=st.sampled_from(["liquid", "air"]),
)
def test_hotter_weather_never_lowers_pue_or_peak(db, depression, rise, cooling) -> None:
    snap = generated(cooling)
    base = facility_year(snap, *_weather(db, depression))
    hot = facility_year(snap, *_weather([t + rise for t in db], depression))
    assert (hot.pue >= base.pue - 1e-12).all()
    assert hot.peak_facility_mw >= base.peak_facility_mw - 1e-12
    assert hot.energy_weighted_pue >= base.energy_weighted_pue - 1e-12
    assert (hot.cooling_margin_mw <= base.cooling_margin_mw + 1e-9).all()


@settings(max_examples=60, deadline=None)
@given(db=temps, depression=st.floats(0.0, 15.0), f=st.floats(0.05, 1.0), more=st.floats(0.0, 0.5))
def test_more_it_never_lowers_facility_power_and_facility_never_below_it(db, depression, f, more) -> None:
    snap = generated()
    low = facility_year(snap, *_weather(db, depression), gpu_power_fraction=f)
    high = facility_year(snap, *_weather(db, depression), gpu_power_fraction=f + more)
    assert (low.facility_mw >= low.it_mw).all()
    assert (high.facility_mw >= low.facility_mw - 1e-9).all()
    assert np.allclose(low.facility_mw, low.it_mw + low.losses_mw + low.cooling_mw)


# ---------------------------------------------------------------- one PUE for every consumer


def test_every_consumer_reads_the_plant_models_pue_and_a_typed_one_overrides_it() -> None:
    from campus.analysis.facility import campus_facility_year, campus_pue
    from campus.analysis.stranded import stranded_capacity
    from campus.analysis.summary import campus_summary
    from campus.analysis.weather import weather_of
    from simulations.engine.loads import campus_load

    snap = replace(generated(), grid_capacity_kw=1e6)
    assert snap.design_pue is None
    w = weather_of(snap)
    fy = facility_year(snap, w.dry_bulb_c, w.wet_bulb_c)
    assert campus_facility_year(snap).energy_weighted_pue == pytest.approx(fy.energy_weighted_pue)
    power = campus_summary(snap, include_redundancy=False)["power"]
    assert (power["pue"], power["pue_source"]) == (pytest.approx(fy.energy_weighted_pue), "plant-model")
    assert power["annual_energy_twh"] == pytest.approx(fy.facility_mw.sum() / 1e6)
    assert power["peak_facility_mw"] == pytest.approx(fy.facility_mw.max())
    assert campus_load(snap, "bf16", 0.4).pue == pytest.approx(fy.energy_weighted_pue)
    # the grid carries the peak hour: IT fits up to grid / (peak facility / IT)
    peak_pue = fy.facility_mw.max() / fy.it_mw[0]
    assert campus_pue(snap).peak_pue == pytest.approx(peak_pue)
    # the scenarios' peaks and grid draw: the summary's IT at that hour's ratio, its peak facility power
    load = campus_load(snap, "bf16", 0.4)
    assert load.peak_pue == pytest.approx(peak_pue)
    assert load.peak_facility_kw([1.0] * len(load.groups)) / 1000 == pytest.approx(power["peak_facility_mw"])
    assert stranded_capacity(snap).campus.limits_kw["grid"] == pytest.approx(1e6 / peak_pue)

    typed = replace(snap, design_pue=1.3)
    power = campus_summary(typed, include_redundancy=False)["power"]
    assert (power["pue"], power["pue_source"]) == (1.3, "override")
    assert power["facility_mw"] == pytest.approx(power["it_mw"] * 1.3)
    assert campus_load(typed, "bf16", 0.4).pue == 1.3
    assert campus_summary(snap, pue=1.45, include_redundancy=False)["power"]["pue_source"] == "override"
