"""grid_limit: shedding policies keep the draw under the interconnect limit; batteries and generators."""

from __future__ import annotations

import numpy as np
import pytest

from simulations.engine.runner import prepare, run_replica
from tests.engine.builders import campus

CUT = {"start_hours": 2.0, "duration_hours": 1.0, "cut_fraction": 0.25}


def _run(policy, **params):
    base = {
        "duration_hours": 5,
        "events": [CUT],
        "policy": policy,
        "generator_fail_to_start_probability": 0.0,
    }
    return run_replica("grid_limit", campus(), {**base, **params}, seed=3)


@pytest.mark.parametrize("policy", ["cap", "pause", "ride_through", "generators"])
def test_every_policy_keeps_the_grid_draw_under_the_limit(policy):
    r = _run(policy)
    assert np.all(r.series["grid_kw"] <= r.series["limit_kw"] * (1 + 1e-6))
    assert r.metrics["overload_events"] == 0
    assert r.metrics["shortfall_events"] == 1


def test_the_limit_follows_the_demand_response_event():
    r = _run("cap")
    t, limit = r.series["t_hours"], r.series["limit_kw"]
    base = limit[0]
    assert np.allclose(limit[(t >= 2) & (t < 3)], 0.75 * base)
    assert np.allclose(limit[(t < 2) | (t >= 3)], base)
    shortfall = r.series["demand_kw"][0] - 0.75 * base
    assert r.metrics["shortfall_mwh"] == pytest.approx(shortfall * 1.0 / 1000)


def test_capping_costs_less_throughput_than_pausing():
    cap, pause = _run("cap"), _run("pause")
    assert 0 < cap.metrics["throughput_lost_fraction"] < pause.metrics["throughput_lost_fraction"]
    assert pause.metrics["paused_pod_hours"] == pytest.approx(1.0)


def test_pods_are_paused_lowest_priority_first():
    plan = prepare(campus(pods=2), "grid_limit", {"pod_priorities": {11: 0, 10: 5}}).plan
    assert plan.pod_order == [11, 10]
    default = prepare(campus(pods=2), "grid_limit", {}).plan
    assert default.pod_order == [11, 10]  # unnamed: highest id first
    assert prepare(campus(pods=2), "grid_limit", {"pod_priorities": {10: 0}}).plan.pod_order == [10, 11]


def test_a_battery_large_enough_rides_through_without_losing_throughput():
    r = _run("ride_through", battery_kwh=500.0, battery_recharge_kw=0.0)
    shortfall_kwh = r.metrics["shortfall_mwh"] * 1000
    assert r.metrics["throughput_lost_fraction"] == 0
    assert r.metrics["battery_min_kwh"] == pytest.approx(500.0 - shortfall_kwh)


def test_an_empty_battery_hands_over_to_capping():
    r = _run("ride_through", battery_kwh=20.0, battery_recharge_kw=0.0, ups_reserve_s=0.0)
    assert r.metrics["battery_min_kwh"] == pytest.approx(0.0, abs=1e-9)
    assert r.metrics["throughput_lost_fraction"] > 0
    assert r.metrics["overload_events"] == 0


def test_riding_through_keeps_the_ups_reserve_for_a_generator_start():
    # By hand: the reserve is the campus's load for the generators' start delay + ramp + margin
    # (10 s + 60 s + 120 s by default: 190 s), no more than the batteries hold.
    r = _run("ride_through", battery_kwh=1e6, battery_recharge_kw=0.0)
    plan = prepare(campus(), "grid_limit", {"battery_kwh": 1e6}).plan
    load_kw = min(plan.battery_kw, r.series["demand_kw"][0])
    reserve = load_kw * (10 + 60 + 120) / 3600
    assert r.metrics["ups_reserve_kwh"] == pytest.approx(reserve)
    small = _run("ride_through", battery_kwh=reserve * 1.5, battery_recharge_kw=0.0)
    assert small.metrics["battery_min_kwh"] == pytest.approx(reserve)
    assert small.metrics["throughput_lost_fraction"] > 0  # capping took over at the reserve


def test_generators_deliver_after_the_start_delay_and_ramp_linearly():
    r = _run(
        "generators", battery_kwh=0.0, generator_start_delay_s=600, generator_ramp_s=1200, step_minutes=1
    )
    t, gen = r.series["t_hours"], r.series["generator_kw"]
    assert np.all(gen[(t >= 2) & (t < 2 + 10 / 60)] == 0)
    shortfall = r.series["shortfall_kw"][t >= 2][0]
    k = np.searchsorted(t, 2 + 20 / 60 - 1e-9)  # 10 min into the 20 min ramp
    gen_capacity = prepare(campus(), "grid_limit", {}).plan.generator_kw
    assert gen[k] == pytest.approx(min(shortfall, gen_capacity * 0.5), rel=1e-6)
    assert r.metrics["generator_starts"] == 1
    assert r.metrics["throughput_lost_fraction"] > 0  # capped until the generator is up


def test_a_generator_that_fails_to_start_leaves_the_shortfall_to_capping():
    r = _run("generators", battery_kwh=0.0, generator_fail_to_start_probability=1.0)
    assert r.metrics["generator_failed_starts"] == 1
    assert r.metrics["generator_mwh"] == 0
    assert r.metrics["throughput_lost_fraction"] == pytest.approx(
        _run("cap").metrics["throughput_lost_fraction"]
    )


def test_a_limit_below_the_idle_campus_is_reported_as_an_overload():
    r = _run("pause", events=[{"start_hours": 1, "duration_hours": 2, "cut_fraction": 0.9}])
    assert r.metrics["overload_events"] == 1
    assert r.metrics["overload_mwh"] > 0
    assert r.metrics["throughput_lost_fraction"] == pytest.approx(2 / 5)  # every pod paused for 2 of 5 h


def test_a_capacity_schedule_replaces_the_base_capacity_from_its_start():
    r = _run(
        "cap",
        events=[],
        capacity_schedule=[
            {"start_hours": 1, "capacity_kw": 300.0},
            {"start_hours": 4, "capacity_kw": 1000.0},
        ],
    )
    t, limit = r.series["t_hours"], r.series["limit_kw"]
    assert np.all(limit[(t >= 1) & (t < 4)] == 300.0) and np.all(limit[t >= 4] == 1000.0)
    assert np.all(r.series["grid_kw"][(t >= 1) & (t < 4)] <= 300.0 + 1e-6)
    assert r.metrics["shortfall_events"] == 1


def test_the_default_event_leaves_three_quarters_of_the_campus_draw_so_it_binds():
    # A grid connection four times the campus's draw: a cut of a quarter of it would never bind. The default
    # event (no cut_fraction) sets the limit to 75 % of the full draw, the Phoenix field test's 25 % cut of
    # the cluster's own power, whatever the connection's size.
    first = run_replica("grid_limit", campus(), {"duration_hours": 5, "events": [], "policy": "cap"}, seed=3)
    full_kw = first.series["demand_kw"][0]
    big = campus(grid_capacity_kw=4 * full_kw)
    r = run_replica(
        "grid_limit",
        big,
        {"duration_hours": 5, "events": [{"start_hours": 2, "duration_hours": 1}], "policy": "cap"},
        seed=3,
    )
    t, limit = r.series["t_hours"], r.series["limit_kw"]
    assert np.allclose(limit[(t >= 2) & (t < 3)], 0.75 * full_kw)
    assert np.allclose(limit[(t < 2) | (t >= 3)], 4 * full_kw)
    assert r.metrics["shortfall_mwh"] == pytest.approx(0.25 * full_kw * 1.0 / 1000)
    # a cut_fraction given keeps its meaning: a share of the grid capacity
    given = run_replica("grid_limit", big, {"duration_hours": 5, "events": [CUT], "policy": "cap"}, seed=3)
    assert given.metrics["shortfall_mwh"] == 0
