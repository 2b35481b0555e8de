"""grid_limit in the utility's terms: events as a share of load, MW to shed or a target; the flexibility
resources dispatched in order with their cost; the UPS reserve kept; whether the campus can commit.

The worked case (docs/grid.md, "Demand response"): an event asks 10 MW off the campus's load for 2 h with
30 min notice, paying $100/MWh shed. The campus holds a 5 MW / 10 MWh battery and a 4 MW gas unit at
$40/MWh. In the default order the battery gives 5 MW x 2 h = 10 MWh (wear 10 x $60 = $600), the gas unit
4 MW x 2 h = 8 MWh (fuel 8 x $40 = $320), and GPU capping the last 1 MW x 2 h = 2 MWh; the utility pays
20 MWh x $100 = $2,000.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulations.engine.fields import ParamsError
from simulations.engine.kinds import grid_limit
from simulations.engine.params import validate_params
from simulations.engine.runner import run_replica
from simulations.engine.words import Summary
from tests.engine.builders import campus, with_onsite


def _snap(bess=(5_000.0, 10_000.0, 0.9), prime_kw=4_000.0, fuel=40.0, start_delay_s=0.0):
    return with_onsite(
        320, bess, prime_kw, start_delay_s=start_delay_s, ramp_kw_per_s=1e6, fuel_usd_per_mwh=fuel
    )


def _run(snap, event=None, **extra):
    ev = {"start_hours": 1, "duration_hours": 2, "shed_mw": 10.0, "price_usd_per_mwh": 100.0}
    params = {
        "duration_hours": 4,
        "step_minutes": 1,
        "capacity_kw": 1e6,
        "events": [{**ev, **(event or {})}],
        **extra,
    }
    return run_replica("grid_limit", snap, params, seed=1)


def test_the_worked_case_by_hand():
    r = _run(_snap())
    m, s = r.metrics, r.series
    demand = s["demand_kw"][0]
    t = s["t_hours"]
    event = (t >= 1) & (t < 3)
    assert m["shortfall_mwh"] == pytest.approx(20.0)  # against the load, not the 1 GW connection
    assert m["battery_storage_mwh"] == pytest.approx(10.0)
    assert m["battery_storage_cost_usd"] == pytest.approx(600.0)
    assert m["prime_generation_mwh"] == pytest.approx(8.0)
    assert m["prime_generation_cost_usd"] == pytest.approx(320.0)
    assert m["power_capping_mwh"] == pytest.approx(2.0, rel=1e-6)
    assert m["job_pause_mwh"] == 0
    # capped work costs the GPU-hours it lost at $2 each: 320 racks x 4 nodes x 8 GPUs
    lost_gpu_h = float(np.sum(1 - s["throughput_fraction"][event]) / 60.0) * 320 * 4 * 8
    assert m["power_capping_cost_usd"] == pytest.approx(lost_gpu_h * 2.0, rel=1e-6)
    assert m["flex_cost_usd"] == pytest.approx(600.0 + 320.0 + m["power_capping_cost_usd"])
    assert np.allclose(s["grid_kw"][event], demand - 10_000.0, rtol=1e-6)
    assert m["event_asked_mwh"] == pytest.approx(20.0)
    assert m["event_shed_mwh"] == pytest.approx(20.0, rel=1e-6)
    assert m["event_revenue_usd"] == pytest.approx(2_000.0, rel=1e-6)
    assert m["can_commit"] == 1.0 and m["event_over_mwh"] == 0
    assert m["event_net_usd"] == pytest.approx(2_000.0 - m["flex_cost_usd"], rel=1e-6)


def test_the_order_decides_which_resource_gives_first():
    # 6 MW to shed: battery first gives its 5 MW and the gas unit 1 MW; gas first gives 4 MW and the
    # battery 2 MW
    battery_first = _run(_snap(), {"shed_mw": 6.0}).metrics
    assert battery_first["battery_storage_mwh"] == pytest.approx(10.0)
    assert battery_first["prime_generation_mwh"] == pytest.approx(2.0)
    order = [{"resource": r} for r in ("prime_generation", "battery_storage", "power_capping", "job_pause")]
    gas_first = _run(_snap(), {"shed_mw": 6.0}, flexibility=order).metrics
    assert gas_first["prime_generation_mwh"] == pytest.approx(8.0)
    assert gas_first["battery_storage_mwh"] == pytest.approx(4.0)
    assert gas_first["power_capping_mwh"] == 0 and gas_first["throughput_lost_fraction"] == 0


def test_a_cost_given_replaces_the_resource_rule():
    order = [{"resource": "battery_storage", "cost_usd_per_mwh": 10.0}, {"resource": "power_capping"}]
    m = _run(_snap(), flexibility=order).metrics
    assert m["battery_storage_cost_usd"] == pytest.approx(100.0)
    assert m["prime_generation_mwh"] == 0  # left out of the order: not used


def test_a_prime_unit_slower_than_the_notice_misses_the_events_start():
    # notice 10 min, start 20 min: the unit is there 10 min into the event, capping covers until then
    m = _run(_snap(start_delay_s=1200.0), {"notice_minutes": 10.0}).metrics
    assert m["prime_generation_mwh"] == pytest.approx(4.0 * (2 - 10 / 60))
    assert m["can_commit"] == 1.0
    on_time = _run(_snap(start_delay_s=1200.0), {"notice_minutes": 30.0}).metrics
    assert on_time["prime_generation_mwh"] == pytest.approx(8.0)


def test_pausing_needs_the_notice_of_a_checkpoint_and_the_campus_cannot_commit_without_it():
    # only job_pause, no notice: the first 5 min (checkpoint write) nothing sheds: 3 MW x 5 min over
    snap = _snap(bess=None, prime_kw=0.0)
    flex = [{"resource": "job_pause"}]
    m = _run(snap, {"notice_minutes": 0.0, "shed_mw": 3.0}, flexibility=flex)
    assert m.metrics["can_commit"] == 0.0
    assert m.metrics["event_over_mwh"] == pytest.approx(3.0 * 5 / 60, rel=1e-6)
    assert m.metrics["job_pause_mwh"] > 0
    assert _run(snap, {"notice_minutes": 5.0, "shed_mw": 3.0}, flexibility=flex).metrics["can_commit"] == 1.0


def test_events_in_the_utilitys_terms_set_the_same_level():
    snap = _snap(bess=None, prime_kw=0.0)
    demand = _run(snap, {"shed_mw": 0.0}).series["demand_kw"][0]
    share = _run(snap, {"shed_mw": None, "share_of_load": 0.25}).series
    target = _run(snap, {"shed_mw": None, "target_mw": 0.75 * demand / 1000.0}).series
    shed = _run(snap, {"shed_mw": 0.25 * demand / 1000.0}).series
    t = share["t_hours"]
    event = (t >= 1) & (t < 3)
    for s in (share, target, shed):
        assert np.allclose(s["limit_kw"][event], 0.75 * demand)
        assert np.allclose(s["limit_kw"][~event], 1e6)


def test_an_event_names_one_form_only():
    with pytest.raises(ParamsError) as err:
        validate_params("grid_limit", {"events": [{"share_of_load": 0.2, "shed_mw": 3}]})
    assert err.value.errors[0]["field"] == "events[0].shed_mw"
    ev = validate_params("grid_limit", {}).events[0]
    assert ev.share_of_load == 0.25 and ev.duration_hours == 3.0


def test_the_default_event_forces_a_choice():
    # a campus far under its connection still sheds a quarter of its load
    r = run_replica("grid_limit", campus(racks=320), {"capacity_kw": 1e6}, seed=1)
    assert r.metrics["shortfall_mwh"] > 0
    assert r.metrics["throughput_lost_fraction"] > 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    small=st.floats(0.0, 20_000.0),
    extra=st.floats(0.0, 20_000.0),
    shed=st.floats(1.0, 15.0),
)
def test_more_battery_never_loses_more_throughput(small, extra, shed):
    a = _run(_snap(bess=(5_000.0, small, 0.9), prime_kw=0.0), {"shed_mw": shed}, step_minutes=5)
    b = _run(_snap(bess=(5_000.0, small + extra, 0.9), prime_kw=0.0), {"shed_mw": shed}, step_minutes=5)
    assert b.metrics["throughput_lost_fraction"] <= a.metrics["throughput_lost_fraction"] + 1e-9


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hours=st.floats(0.25, 2.0), more=st.floats(0.0, 1.0), shed=st.floats(1.0, 15.0))
def test_a_longer_event_never_costs_less(hours, more, shed):
    a = _run(_snap(), {"shed_mw": shed, "duration_hours": hours}, step_minutes=5)
    b = _run(_snap(), {"shed_mw": shed, "duration_hours": hours + more}, step_minutes=5)
    assert b.metrics["flex_cost_usd"] >= a.metrics["flex_cost_usd"] - 1e-6


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    battery=st.floats(0.0, 5_000.0),
    reserve=st.floats(0.0, 900.0),
    cut=st.floats(0.05, 0.9),
    policy=st.sampled_from(["ride_through", "generators", "flexibility"]),
)
def test_the_ups_reserve_is_never_dispatched(battery, reserve, cut, policy):
    r = _run(
        campus(racks=32),
        {"shed_mw": None, "share_of_load": cut},
        step_minutes=5,
        policy=policy,
        battery_kwh=battery,
        ups_reserve_s=reserve,
        generator_fail_to_start_probability=0.0,
    )
    floor = r.metrics["ups_reserve_kwh"]
    assert floor <= battery + 1e-9
    assert r.metrics["battery_min_kwh"] >= floor - 1e-6


def test_emissions_by_hand():
    # the worked case: the gas unit gives 8 MWh at full load, 9,500 Btu/kWh (an aeroderivative turbine):
    # 76 MMBtu x 53.06 kg/MMBtu (EPA, 2024) = 4.033 t; the grid's energy at Ashburn's (PJM) 0.35 t/MWh
    m = _run(_snap()).metrics
    assert m["prime_fuel_mmbtu"] == pytest.approx(76.0)
    assert m["onsite_emissions_tco2"] == pytest.approx(76.0 * 53.06 / 1000)
    assert m["grid_emissions_tco2"] == pytest.approx(m["grid_energy_mwh"] * 0.35)
    assert m["emissions_tco2"] == pytest.approx(m["grid_emissions_tco2"] + m["onsite_emissions_tco2"])
    assert m["prime_unit_hours_max"] == pytest.approx(2.0)


def test_an_hourly_intensity_weighs_the_grid_energy_by_the_hour():
    hourly = [0.0] * 24
    hourly[0] = 1.0  # only the first hour of the day counts, at 1 t/MWh
    r = _run(_snap(), grid_co2_t_per_mwh=hourly)
    t, grid = r.series["t_hours"], r.series["grid_kw"]
    assert r.metrics["grid_emissions_tco2"] == pytest.approx(grid[t < 1].sum() / 60 / 1000)


def test_a_reciprocating_engine_burns_less_at_part_load_than_a_turbine():
    # a 1 MW share of a 4 MW unit (x = 0.25): turbine 0.75 x 0.25 + 0.25 = 0.4375 of full fuel;
    # engine 0.92 x 0.3 (its minimum load) + 0.08 = 0.356
    order = [{"resource": r} for r in ("prime_generation", "power_capping")]
    gt = _run(_snap(bess=None), {"shed_mw": 1.0}, flexibility=order).metrics
    recip = _run(_snap(bess=None), {"shed_mw": 1.0}, flexibility=order, prime_mover="recip_engine").metrics
    assert gt["prime_generation_cost_usd"] == pytest.approx(0.4375 * 4 * 2 * 40)
    assert recip["prime_generation_cost_usd"] == pytest.approx((0.92 * 0.3 + 0.08) * 4 * 2 * 40)


def test_the_words_name_the_prime_units_when_they_did_the_work():
    p = validate_params("grid_limit", {"policy": "generators"})

    def words(**metrics):
        s = Summary({"metrics": {"shortfall_mwh": 4.0, "max_shortfall_kw": 2000.0, **metrics}})
        return " ".join(grid_limit.explain(s, p))

    prime_only = words(generator_mwh=4.0, prime_generator_mwh=4.0)
    assert "running its prime units" in prime_only and "standby" not in prime_only
    both = words(generator_mwh=4.0, prime_generator_mwh=1.0)
    assert "running its prime units and starting the standby generators" in both
    assert "starting the standby generators" in words(generator_mwh=4.0, prime_generator_mwh=0.0)
