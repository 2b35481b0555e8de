"""grid_limit with the campus's own energy storage and on-site generation, checked against hand calculations.

The worked case (docs/scenarios.md): a 10 MW shortfall for 2 h, a 5 MW / 10 MWh battery at 90 % round trip
and a 4 MW prime generator burning $40/MWh. By hand: the generator gives 4 MW x 2 h = 8 MWh, fuel
8 x 40 = $320; the battery gives 5 MW for 2 h = 10 MWh (empty at the end); the last 1 MW is capped; after
the event the battery draws 10 / 0.9 = 11.11 MWh from the grid at 5 MW (2.22 h).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulations.engine.runner import run_replica
from tests.engine.builders import campus, with_onsite

SHORT_KW = 10_000.0
HEADROOM_KW = 6_000.0  # above the battery's 5 MW, so it recharges at its full rating


def _snap(bess=(5_000.0, 10_000.0, 0.9), prime_kw=4_000.0, ramp_kw_per_s=1e6, fuel=40.0, racks=320):
    return with_onsite(racks, bess, prime_kw, ramp_kw_per_s=ramp_kw_per_s, fuel_usd_per_mwh=fuel)


def _demand_kw(snap) -> float:
    return float(
        run_replica("grid_limit", snap, {"duration_hours": 1, "events": []}, seed=1).series["demand_kw"][0]
    )


def _run(snap, policy="generators", **extra):
    demand = _demand_kw(snap)
    base = demand + HEADROOM_KW
    params = {
        "duration_hours": 6,
        "step_minutes": 1,
        "capacity_kw": base,
        "events": [{"start_hours": 1, "duration_hours": 2, "cut_fraction": (SHORT_KW + HEADROOM_KW) / base}],
        "policy": policy,
        "generator_kw": 0.0,  # the standby sets stay out of the worked case
        "battery_kwh": 0.0,  # so do the UPS batteries
        "generator_fail_to_start_probability": 0.0,
        **extra,
    }
    return demand, run_replica("grid_limit", snap, params, seed=1)


def test_the_worked_case_by_hand():
    demand, r = _run(_snap())
    m, s = r.metrics, r.series
    assert m["shortfall_mwh"] == pytest.approx(20.0)
    assert m["prime_generator_mwh"] == pytest.approx(8.0)
    assert m["fuel_cost_usd"] == pytest.approx(320.0)
    assert m["bess_discharge_mwh"] == pytest.approx(10.0)
    assert m["bess_min_fraction"] == pytest.approx(0.0, abs=1e-9)
    assert m["bess_charge_mwh"] == pytest.approx(10.0 / 0.9)
    assert s["bess_kwh"][-1] == pytest.approx(10_000.0)
    # the grid: the full demand outside the event, the limit during it, plus the recharge afterwards
    grid_kwh = demand * 4 + (demand - SHORT_KW) * 2 + 10_000.0 / 0.9
    assert m["grid_energy_mwh"] == pytest.approx(grid_kwh / 1000.0)
    assert m["cost_usd"] == pytest.approx(grid_kwh * 0.078 + 320.0)
    assert m["cost_usd"] == pytest.approx(m["grid_cost_usd"] + m["fuel_cost_usd"])
    t = s["t_hours"]
    event = (t >= 1) & (t < 3)
    assert np.allclose(s["generator_kw"][event], 4_000.0)
    assert np.all(s["grid_kw"] <= s["limit_kw"] * (1 + 1e-9))
    # 1 MW of the 10 is capped: some throughput is lost, all of it during the event
    assert 0 < m["throughput_lost_fraction"] < 2 / 6


def test_a_prime_generator_ramps_no_faster_than_its_rate():
    # 4 MW at 4000/600 kW/s: +400 kW per 1-min step, full after 10 steps. By hand the generator gives
    # 400 x (1 + 2 + ... + 10) kW-min + 4000 x 110 kW-min = 462,000 kW-min = 7.7 MWh. Its fuel at load x is
    # (0.75 max(x, 0.25) + 0.25) of full-load fuel (an aeroderivative turbine, docs/grid.md): 0.4375 for the
    # first two steps (below the 25 % minimum load), 0.75 k / 10 + 0.25 for k = 3..10 (5.9 in all), then 110
    # full steps: 116.775 full-load minutes of a 4 MW unit at $40/MWh = $311.40 (at full-load fuel: $308).
    _, r = _run(_snap(ramp_kw_per_s=4_000.0 / 600.0))
    assert r.metrics["prime_generator_mwh"] == pytest.approx(7.7)
    assert r.metrics["fuel_cost_usd"] == pytest.approx(4 * (110 + 0.875 + 5.9) / 60 * 40)
    t, gen = r.series["t_hours"], r.series["generator_kw"]
    first = np.searchsorted(t, 1.0 - 1e-9)
    assert gen[first : first + 3] == pytest.approx([400.0, 800.0, 1_200.0])


def test_ride_through_uses_the_battery_but_not_the_generation():
    _, r = _run(_snap(), policy="ride_through")
    assert r.metrics["prime_generator_mwh"] == 0 and r.metrics["fuel_cost_usd"] == 0
    assert r.metrics["bess_discharge_mwh"] == pytest.approx(10.0)


def test_capping_alone_leaves_the_campus_assets_idle():
    _, r = _run(_snap(), policy="cap")
    assert r.metrics["bess_discharge_mwh"] == 0 and r.metrics["generator_mwh"] == 0


def test_cheaper_fuel_is_loaded_first():
    snap = _snap(bess=None, prime_kw=4_000.0, fuel=80.0)
    cheap = replace(
        snap.power_devices[-1],
        id=98,
        name="GT-0",
        prime_rating_kw=3_000.0,
        rated_kw=3_300.0,
        fuel_usd_per_mwh=20.0,
    )
    snap = replace(snap, power_devices=(*snap.power_devices, cheap))
    # 7 MW of prime generation for a 10 MW shortfall: both run flat out, 3 MW x 2 h at $20 + 4 MW x 2 h at $80
    _, r = _run(snap)
    assert r.metrics["fuel_cost_usd"] == pytest.approx(6 * 20 + 8 * 80)
    # a 2 MW shortfall is carried by the cheap set alone, at 2/3 load: an aeroderivative turbine's fuel at
    # load x is (0.75 x + 0.25) of full-load fuel (docs/grid.md), 0.75 x 3 MW x 2 h x $20 = $90
    base = _demand_kw(snap) + HEADROOM_KW
    event = {"start_hours": 1, "duration_hours": 2, "cut_fraction": (2_000.0 + HEADROOM_KW) / base}
    _, small = _run(snap, events=[event])
    assert small.metrics["fuel_cost_usd"] == pytest.approx(0.75 * 3 * 2 * 20)


def test_standby_generators_stay_standby_and_burn_diesel_by_default():
    snap = campus(racks=32)  # its one generator has no prime rating
    r = run_replica(
        "grid_limit",
        snap,
        {
            "duration_hours": 5,
            "policy": "generators",
            "battery_kwh": 0.0,
            "generator_fail_to_start_probability": 0.0,
            "events": [{"start_hours": 2, "duration_hours": 1, "cut_fraction": 0.25}],
        },
        seed=1,
    )
    assert r.metrics["prime_generator_mwh"] == 0
    assert r.metrics["generator_mwh"] > 0
    assert r.metrics["fuel_cost_usd"] == pytest.approx(r.metrics["generator_mwh"] * 263.0)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    power_kw=st.floats(100.0, 20_000.0),
    hours=st.floats(0.1, 6.0),
    eff=st.floats(0.5, 1.0),
    prime_kw=st.floats(0.0, 12_000.0),
    policy=st.sampled_from(["ride_through", "generators"]),
)
def test_energy_is_conserved_and_the_grid_stays_under_its_limit(power_kw, hours, eff, prime_kw, policy):
    snap = _snap(bess=(power_kw, power_kw * hours, eff), prime_kw=prime_kw, racks=320)
    _, r = _run(snap, policy=policy, step_minutes=5)
    m, s = r.metrics, r.series
    # the battery ends with what it had, less what it gave, plus the efficiency times what it drew
    assert s["bess_kwh"][-1] == pytest.approx(
        power_kw * hours - m["bess_discharge_mwh"] * 1000 + eff * m["bess_charge_mwh"] * 1000, abs=1e-6
    )
    assert m["bess_discharge_mwh"] <= power_kw * hours / 1000 + 1e-9
    # the grid stays under its limit unless the campus has nothing left to shed (every pod paused)
    over = s["grid_kw"] > s["limit_kw"] * (1 + 1e-9)
    assert np.all(s["paused_pods"][over] == 2)
    assert m["cost_usd"] == pytest.approx(m["grid_cost_usd"] + m["fuel_cost_usd"])
    # nothing covers more than the shortfall
    assert m["bess_discharge_mwh"] + m["generator_mwh"] <= m["shortfall_mwh"] + 1e-9


def test_more_storage_never_loses_more_work():
    lost = [
        _run(_snap(bess=(power, power * 2, 0.9), prime_kw=0.0))[1].metrics["throughput_lost_fraction"]
        for power in (1_000.0, 4_000.0, 8_000.0, 10_000.0)
    ]
    assert lost == sorted(lost, reverse=True)
    assert lost[-1] == pytest.approx(0.0, abs=1e-12)
