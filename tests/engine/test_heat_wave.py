"""heat_wave: a warmer week never costs less; the GPUs throttle just enough for the plants to reject the
heat (checked hour by hour against the facility engine); a cool week on a roomy plant costs nothing."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.facility.year import facility_year
from campus.analysis.synthetic import synthetic_campus
from campus.analysis.weather import reference_year, weather_of, with_heat_wave, year_from_dew_point
from simulations.engine.catalogue import explain
from simulations.engine.kinds import heat_wave
from simulations.engine.kinds.heat_wave import model as hw
from simulations.engine.params import ParamsError, validate_params
from simulations.engine.registry import MODELS

METRICS = {
    "cooling_shortfall_hours",
    "shutdown_hours",
    "throughput_lost_fraction",
    "peak_facility_mw",
    "max_pue",
    "water_m3",
    "peak_facility_rise_mw",
    "max_pue_rise",
}


@pytest.fixture(scope="module")
def campus():
    # no typed PUE: the plant model's PUE, hour by hour, in the wave's weather
    return dataclasses.replace(synthetic_campus(gpus=1024), climate="phoenix-us", design_pue=None)


def with_plants(snap, kind: str, capacity_kw: float):
    plants = tuple(dataclasses.replace(p, kind=kind, capacity_kw=capacity_kw) for p in snap.cooling_plants)
    return dataclasses.replace(snap, cooling_plants=plants)


def result(snap, **params):
    plan = hw.prepare(snap, validate_params("heat_wave", params))
    return plan, hw.run(plan, seed=0)


def test_registered_deterministic_and_its_metrics():
    assert MODELS["heat_wave"] is heat_wave and heat_wave.DEFAULT_REPLICAS == 1
    assert hw.stochastic(validate_params("heat_wave", {})) is False
    assert validate_params("heat_wave", {}).start_day is None  # the campus's hottest stretch


@given(
    seed=st.integers(0, 2**32 - 1),
    hot_day=st.integers(1, 365),
    bump_k=st.floats(0, 20),
    days=st.integers(1, 30),
)
@settings(max_examples=25, deadline=None)
def test_the_default_start_is_the_hottest_stretch_by_brute_force(seed, hot_day, bump_k, days):
    temps = np.random.default_rng(seed).normal(15, 10, 365 * 24)
    temps[(hot_day - 1) * 24 : hot_day * 24] += bump_k  # a hot day somewhere in the year
    means = [temps[(d - 1) * 24 : (d - 1 + days) * 24].mean() for d in range(1, 366 - days + 1)]
    best = hw.hottest_start_day(temps, days)
    assert 1 <= best <= 366 - days
    assert means[best - 1] == pytest.approx(max(means), abs=1e-9)


def test_without_a_start_day_the_wave_falls_on_the_campuss_hottest_days_and_says_so(campus):
    # Phoenix's reference year: the hottest 5 days start on day 196 (mid-July); Singapore's warmest month is
    # May (its station normals), where its hottest stretch starts, not in July.
    plan, r = result(campus, days=5)
    assert plan.start_day == hw.hottest_start_day(reference_year("phoenix-us").dry_bulb_c, 5) == 196
    assert r.details == {"start_day": 196}
    assert 121 <= hw.hottest_start_day(reference_year("singapore-sg").dry_bulb_c, 5) <= 151
    words = explain("heat_wave", {"metrics": r.metrics, "details": r.details}, {"days": 5})
    assert words[0].startswith("The run warmed 5 days from day 196, the hottest 5 days of the campus's")


def test_a_roomy_plant_on_a_normal_week_costs_nothing(campus):
    plan, r = result(campus, temperature_rise_k=0.0, start_day=10, days=3)
    assert set(r.metrics) == METRICS
    assert r.metrics["cooling_shortfall_hours"] == 0 and r.metrics["throughput_lost_fraction"] == 0
    # the same hours straight through the facility engine at full power
    year = reference_year("phoenix-us")
    direct = facility_year(campus, year.dry_bulb_c[9 * 24 : 12 * 24], year.wet_bulb_c[9 * 24 : 12 * 24])
    assert r.metrics["peak_facility_mw"] == pytest.approx(direct.peak_facility_mw)
    assert r.metrics["max_pue"] == pytest.approx(float(np.nanmax(direct.pue)))
    assert r.metrics["water_m3"] == pytest.approx(direct.water_l.sum() / 1000.0)
    assert r.series["t_hours"].size == 72


def test_a_typed_pue_sets_the_facility_power_and_the_plants_still_throttle(campus):
    # The same week on a small dry-cooler plant, with and without a typed PUE of 1.3: the cooling physics
    # (margin, throttling, lost work, water) are the plant model's either way; with the typed PUE the
    # facility power is IT x 1.3 in every hour (docs/model.md: a typed PUE overrides every consumer).
    snap = with_plants(campus, "dry-cooler", 1500.0)
    plan, modelled = result(snap, temperature_rise_k=4.0, days=2)
    typed_plan, typed = result(dataclasses.replace(snap, design_pue=1.3), temperature_rise_k=4.0, days=2)
    for key in ("cooling_shortfall_hours", "throughput_lost_fraction", "water_m3"):
        assert typed.metrics[key] == pytest.approx(modelled.metrics[key])
    assert typed.metrics["cooling_shortfall_hours"] > 0  # the wave still throttles
    np.testing.assert_allclose(typed.series["gpu_power_fraction"], modelled.series["gpu_power_fraction"])
    np.testing.assert_allclose(typed.series["pue"], 1.3)
    assert typed.metrics["max_pue"] == pytest.approx(1.3)
    # facility = IT x 1.3 at the power the GPUs actually draw, hour by hour
    it = np.where(
        typed.series["gpu_power_fraction"] > 0,
        hw._at(typed_plan.it_mw, hw.throttle(typed_plan)[1]),
        typed_plan.off_it_mw,
    )
    np.testing.assert_allclose(typed.series["facility_mw"], it * 1.3)
    assert typed.metrics["peak_facility_mw"] == pytest.approx(float((it * 1.3).max()))


def test_a_typed_pue_on_a_cool_week_is_the_summarys_facility_power(campus):
    # Full power, no shortfall: the facility power is the summary's IT x the typed PUE in every hour.
    # 1,024 H100 in 128 HGX servers: 128 x (8 x 700 W + 4,600 W) = 1,305.6 kW of servers; the summary's
    # IT adds the network and the other IT (campus_it), the facility is that x 1.3.
    from campus.analysis.summary import campus_it

    snap = dataclasses.replace(campus, design_pue=1.3)
    it = campus_it(snap)
    assert it.gpu_kw + it.server_overhead_kw == pytest.approx(128 * (8 * 700 + 4600) / 1000)
    _, r = result(snap, temperature_rise_k=0.0, start_day=10, days=3)
    assert r.metrics["cooling_shortfall_hours"] == 0
    assert r.metrics["peak_facility_mw"] == pytest.approx(it.it_kw * 1.3 / 1000)
    np.testing.assert_allclose(r.series["facility_mw"], it.it_kw * 1.3 / 1000)
    assert r.metrics["max_pue"] == pytest.approx(1.3)


def test_hotter_waves_never_cost_less(campus):
    snap = with_plants(campus, "dry-cooler", 1500.0)
    previous = None
    for rise in (0.0, 2.0, 4.0, 8.0, 12.0):
        _, r = result(snap, temperature_rise_k=rise)
        m = r.metrics
        if previous is not None:
            assert m["cooling_shortfall_hours"] >= previous["cooling_shortfall_hours"]
            assert m["throughput_lost_fraction"] >= previous["throughput_lost_fraction"] - 1e-12
        previous = m
    assert previous["cooling_shortfall_hours"] > 0 and previous["throughput_lost_fraction"] > 0


def test_the_gpus_throttle_just_enough(campus):
    snap = with_plants(campus, "dry-cooler", 1500.0)
    plan, r = result(snap, temperature_rise_k=4.0, days=2)
    fraction = r.series["gpu_power_fraction"]
    throttled = np.flatnonzero((fraction > 0) & (fraction < 1))
    assert throttled.size > 0
    for h in throttled[:: max(1, throttled.size // 8)]:
        db, wb = plan.dry_bulb_c[h : h + 1], plan.wet_bulb_c[h : h + 1]
        held = facility_year(snap, db, wb, gpu_power_fraction=float(fraction[h]))
        # the margin is linear between grid points only approximately: within 1 % of the heat
        assert held.cooling_margin_mw[0] >= -0.01 * held.it_mw[0]
        more = facility_year(snap, db, wb, gpu_power_fraction=min(1.0, float(fraction[h]) + 0.05))
        assert more.cooling_margin_mw[0] < 0  # a little more power would not be cooled
    assert np.all(r.series["throughput_fraction"] <= 1.0) and np.all(r.series["throughput_fraction"] >= 0.0)


def test_it_uses_the_campus_weather(campus):
    snap = with_plants(campus, "dry-cooler", 1500.0)
    hot = np.full(8760, 44.0)
    own = year_from_dew_point("phoenix-us", "epw: test", hot, hot - 25.0)
    _, uploaded = result(dataclasses.replace(snap, weather=own), temperature_rise_k=0.0, start_day=30)
    _, reference = result(snap, temperature_rise_k=0.0, start_day=30)
    assert uploaded.metrics["cooling_shortfall_hours"] > reference.metrics["cooling_shortfall_hours"]
    assert weather_of(dataclasses.replace(snap, weather=own)) is own
    assert with_heat_wave(own, 30, 5, 0.0).dry_bulb_c.max() == 44.0


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"start_day": 364, "days": 5}, "days"),
        ({"start_day": 0}, "start_day"),
        ({"temperature_rise_k": -1}, "temperature_rise_k"),
        ({"wind": 3}, "wind"),
    ],
)
def test_bad_parameters_name_their_field(params, field):
    with pytest.raises(ParamsError) as caught:
        validate_params("heat_wave", params)
    assert [e["field"] for e in caught.value.errors] == [field]


def test_hours_the_gpus_shut_down_are_counted(campus):
    # A plant far too small for the campus: even the minimum cap leaves heat unrejected in every hour of the
    # 2-day wave, so the GPUs are off for all 48 h (the job does no work: 100 % lost), as the hourly GPU
    # power series (0 = shut down) shows hour by hour.
    snap = with_plants(campus, "dry-cooler", 1.0)
    _, r = result(snap, temperature_rise_k=4.0, days=2)
    assert r.metrics["shutdown_hours"] == 48 == int((r.series["gpu_power_fraction"] == 0).sum())
    assert r.metrics["throughput_lost_fraction"] == 1.0
    # and the 1.5 MW plant of the throttling test shuts nothing down that it could throttle
    _, r = result(with_plants(campus, "dry-cooler", 1500.0), temperature_rise_k=4.0, days=2)
    assert r.metrics["shutdown_hours"] == int((r.series["gpu_power_fraction"] == 0).sum())


def test_the_wave_is_measured_against_the_same_days_without_it(campus):
    # The rise is the difference of two runs of the model: the wave's and the same days at +0 K.
    _, hot = result(campus, start_day=196, days=3, temperature_rise_k=6.0)
    _, calm = result(campus, start_day=196, days=3, temperature_rise_k=0.0)
    assert hot.metrics["peak_facility_rise_mw"] == pytest.approx(
        hot.metrics["peak_facility_mw"] - calm.metrics["peak_facility_mw"]
    )
    assert hot.metrics["max_pue_rise"] == pytest.approx(hot.metrics["max_pue"] - calm.metrics["max_pue"])
    assert hot.metrics["peak_facility_rise_mw"] > 0
    assert calm.metrics["peak_facility_rise_mw"] == 0.0 and calm.metrics["max_pue_rise"] == 0.0
    words = explain(
        "heat_wave", {"metrics": hot.metrics, "details": hot.details}, {"temperature_rise_k": 6.0}
    )
    assert any(w.startswith("Against the same days without the wave, it added ") for w in words)
