"""liquid_cooling: the RC model against its closed form, throttling, shutdown and recovery."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.heat import heat_map
from campus.analysis.snapshot import CoolingUnitSnap
from simulations.engine.catalogue import explain
from simulations.engine.job import cap_throughput_fraction
from simulations.engine.kinds import liquid_cooling
from simulations.engine.kinds.liquid_cooling.plan import uncovered_cdus
from simulations.engine.params import validate_params
from simulations.engine.rc import rc_temperature
from simulations.engine.runner import prepare, run_replica
from tests.engine.builders import campus

C_LIQ, G_LIQ = 1100.0, 25.0  # the catalog defaults the params start from


def _rk4(t_end, t0, p, g, c, a, b, n=20000):
    h = t_end / n
    temp, t = t0, 0.0

    def f(t, x):
        return (1000 * p - g * (x - (a + b * t))) / c

    for _ in range(n):
        k1 = f(t, temp)
        k2 = f(t + h / 2, temp + h / 2 * k1)
        k3 = f(t + h / 2, temp + h / 2 * k2)
        k4 = f(t + h, temp + h * k3)
        temp += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return temp


@pytest.mark.parametrize("b", [0.0, 0.05])
def test_rc_closed_form_matches_a_numerical_integration(b):
    for t_end in (5.0, 60.0, 400.0):
        exact = float(rc_temperature(t_end, 65.0, 0.7, 3.0, C_LIQ, 25.0, b))
        assert exact == pytest.approx(_rk4(t_end, 65.0, 0.7, 3.0, C_LIQ, 25.0, b), abs=1e-6)


def _cdu_loss(**params):
    base = {"events": [{"kind": "cdu_loss", "at_minutes": 5, "repair_minutes": 30}], "duration_minutes": 120}
    return run_replica("liquid_cooling", campus(), {**base, **params}, seed=1)


def test_time_to_throttle_and_shutdown_after_a_cdu_loss_match_the_exponential():
    r = _cdu_loss()
    h100 = campus().gpus["h100-sxm"]
    g = G_LIQ * 0.03  # residual conductance without flow
    tau = C_LIQ / g
    t_inf = 25 + 1000 / g
    to_slow = tau * math.log((t_inf - 65) / (t_inf - h100.slowdown_temp_c))
    # the flow left cannot hold slowdown above the minimum cap: the GPUs heat on at minimum power
    t_inf_min = 25 + 1000 * h100.min_cap_fraction / g
    to_shut = tau * math.log((t_inf_min - h100.slowdown_temp_c) / (t_inf_min - h100.shutdown_temp_c))
    assert r.metrics["time_to_throttle_s"] == pytest.approx(to_slow, rel=1e-6)
    assert r.metrics["time_to_shutdown_s"] == pytest.approx(to_slow + to_shut, rel=1e-6)
    assert (
        r.metrics["time_to_shutdown_s"] < 60
    )  # Opengate/Active Power cooling study (2007): 10 kW+ cabinets shut down in under a minute


def test_air_cooled_racks_take_minutes_to_reach_shutdown():
    r = run_replica("liquid_cooling", campus(cooling_type="air"), {}, seed=1)
    assert 60 < r.metrics["time_to_shutdown_s"] < 15 * 60


def test_shut_down_gpus_come_back_after_repair_and_node_restart():
    r = _cdu_loss(node_restart_minutes=15)
    gpus_on_unit = 4 * 4 * 8  # the CDU serves 4 racks of 4 eight-GPU nodes
    off_s = (5 + 30 + 15) * 60 - (5 * 60 + r.metrics["time_to_shutdown_s"])
    assert r.metrics["shutdown_gpu_hours"] == pytest.approx(gpus_on_unit * off_s / 3600)
    assert r.metrics["job_interruptions"] == 1
    t = r.series["t_hours"] * 60
    assert np.all(r.series["job_pace"][(t > 6) & (t < 60)] == 0)  # down until restart_minutes after 50 min
    assert np.all(r.series["job_pace"][t > 61] == 1)


def test_a_pump_loss_throttles_to_the_heat_the_reduced_flow_removes():
    r = run_replica(
        "liquid_cooling", campus(), {"events": [{"kind": "pump_loss", "remaining_flow_fraction": 0.2}]}, 1
    )
    h100 = campus().gpus["h100-sxm"]
    g = G_LIQ * 0.2**0.8
    holdable = g * (h100.slowdown_temp_c - 25) / 1000
    assert r.metrics["job_interruptions"] == 0
    assert r.metrics["max_gpu_temp_c"] == pytest.approx(h100.slowdown_temp_c)
    assert r.series["job_pace"].min() == pytest.approx(cap_throughput_fraction(h100, holdable))


def test_a_redundancy_group_with_spare_capacity_absorbs_a_lost_cdu():
    r = run_replica("liquid_cooling", campus(cdu_groups=True), {"events": [{"target_id": 500}]}, seed=1)
    assert "time_to_throttle_s" not in r.metrics
    assert r.metrics["max_gpu_temp_c"] == pytest.approx(25 + 1000 / G_LIQ)


def test_with_every_single_loss_covered_the_default_cdu_loss_fails_a_whole_group_and_names_it():
    # Each pair of CDUs backs each other up with 2.2x its load of capacity: one loss is covered (above), so
    # the smallest set a group cannot cover is a whole pair; both pairs carry as many GPUs, the lower ids win.
    default = run_replica("liquid_cooling", campus(cdu_groups=True), {}, seed=1)
    events = [{"kind": "cdu_loss", "target_id": t} for t in (500, 501)]
    explicit = run_replica("liquid_cooling", campus(cdu_groups=True), {"events": events}, seed=1)
    assert [(f["id"], f["name"]) for f in default.details["failed"]] == [(500, "CDU-0"), (501, "CDU-1")]
    assert default.details["default_set"] is True
    assert default.metrics == explicit.metrics
    assert default.metrics["min_cooling_fraction"] == pytest.approx(0.03)  # the residual: no flow at all
    words = explain("liquid_cooling", {"metrics": default.metrics, "details": default.details}, {})
    assert words[0] == "The run simulated the loss of CDUs CDU-0 and CDU-1, starting 5 min in."
    assert "smallest set" in words[1]


def _covered(snap, lost: set[int]) -> bool:
    """The cover rule written out: the group's other units' spare carries the lost units' heat."""
    load = heat_map(snap).unit_kw
    (group,) = {(u.hall_id, u.group) for u in snap.cooling_units if u.id in lost}
    peers = [u for u in snap.cooling_units if (u.hall_id, u.group) == group]
    heat = sum(load.get(i, 0.0) for i in lost)
    return heat <= sum(u.capacity_kw - load.get(u.id, 0.0) for u in peers if u.id not in lost) + 1e-9


@given(factors=st.lists(st.floats(1.0, 4.0), min_size=4, max_size=4))
@settings(max_examples=30, deadline=None)
def test_the_default_cdu_set_is_the_smallest_uncovered_one_by_brute_force(factors):
    snap = campus(racks=16, cdu_groups=True)
    load = heat_map(snap).unit_kw
    units = tuple(
        replace(u, capacity_kw=load[u.id] * f) for u, f in zip(snap.cooling_units, factors, strict=True)
    )
    snap = replace(snap, cooling_units=units)
    gpus = {u.id: 1 for u in units}
    chosen = uncovered_cdus(snap, gpus, heat_map(snap).unit_kw)
    subsets = [
        set(c)
        for k in range(1, 3)
        for pair in ((500, 501), (502, 503))
        for c in itertools.combinations(pair, k)
    ]
    smallest = min(len(s) for s in subsets if not _covered(snap, s))
    assert not _covered(snap, set(chosen))
    assert len(chosen) == smallest


def test_the_chiller_restart_time_extends_the_outage():
    events = [{"kind": "chiller_loss", "at_minutes": 5, "repair_minutes": 2}]
    quick = run_replica("liquid_cooling", campus(), {"events": events, "chiller_restart_minutes": 0}, 1)
    slow = run_replica("liquid_cooling", campus(), {"events": events, "chiller_restart_minutes": 20}, 1)
    assert quick.metrics["max_coolant_temp_c"] < slow.metrics["max_coolant_temp_c"]
    assert (
        slow.metrics["throttled_gpu_hours"] + slow.metrics["shutdown_gpu_hours"]
        > quick.metrics["throttled_gpu_hours"]
    )
    t = slow.series["t_hours"] * 60
    assert np.all(slow.series["coolant_temp_c"][t > 5 + 2 + 20 + 0.1] == pytest.approx(25.0))


def test_the_supply_excursion_raises_the_steady_temperature_by_the_same_amount():
    r = run_replica(
        "liquid_cooling",
        campus(),
        {"events": [{"kind": "supply_temp_excursion", "supply_rise_k": 10, "repair_minutes": 600}]},
        1,
    )
    assert r.metrics["max_gpu_temp_c"] == pytest.approx(25 + 10 + 1000 / G_LIQ, abs=0.01)
    assert r.metrics["job_slowdown_fraction"] == 0


def test_the_lost_work_depends_on_the_seeded_checkpoint_phase_only():
    a, b, c = _cdu_loss(), _cdu_loss(), run_replica("liquid_cooling", campus(), {}, seed=2)
    assert a.metrics == b.metrics
    # A 3 h checkpoint cycle: the shutdown 5 min in almost always rolls back to a checkpoint from before
    # the run, so the seed moves the work redone from before it (the work lost inside it is the same).
    assert a.metrics["redone_gpu_hours_before_window"] != c.metrics["redone_gpu_hours_before_window"]
    assert a.metrics["time_to_shutdown_s"] == c.metrics["time_to_shutdown_s"]


def test_the_unit_with_most_gpus_is_the_default_target():
    plan = prepare(campus(racks=6), "liquid_cooling", {}).plan
    assert plan.targets == [500]  # 4 racks on CDU 500, 2 on CDU 501


def test_gpus_leave_the_throttle_soon_after_a_short_outage_ends():
    # flow back after 40 s: past the throttle point (~25 s) and short of shutdown (~48 s)
    r = _cdu_loss(events=[{"kind": "cdu_loss", "at_minutes": 5, "repair_minutes": 40 / 60}])
    gpus_on_unit = 4 * 4 * 8
    assert "time_to_shutdown_s" not in r.metrics
    throttled_s = r.metrics["throttled_gpu_hours"] * 3600 / gpus_on_unit
    assert 40 - r.metrics["time_to_throttle_s"] < throttled_s < 40 - r.metrics["time_to_throttle_s"] + 10
    t = r.series["t_hours"] * 60
    assert np.all(r.series["job_pace"][t > 6] == 1)


def test_each_affected_rack_gets_its_own_temperature_series():
    r = _cdu_loss()
    racks = sorted(k for k in r.series if k.startswith("rack."))
    assert racks == [f"rack.{i}.gpu_temp_c" for i in (100, 101, 102, 103)]  # the 4 racks of CDU 500
    assert np.array_equal(r.series["rack.100.gpu_temp_c"], r.series["gpu_temp_c.liquid/h100-sxm/e0"])
    quiet = _cdu_loss(rack_series=False)
    assert not any(k.startswith("rack.") for k in quiet.series)


def test_overlapping_events_on_one_unit_compound():
    events = [
        {"kind": "pump_loss", "remaining_flow_fraction": 0.6, "at_minutes": 5, "repair_minutes": 60},
        {"kind": "supply_temp_excursion", "supply_rise_k": 8, "at_minutes": 20, "repair_minutes": 20},
    ]
    r = run_replica("liquid_cooling", campus(), {"events": events}, 1)
    h100 = campus().gpus["h100-sxm"]
    g = G_LIQ * 0.6**0.8
    alone = 25 + 1000 / g  # the pump loss alone stays under slowdown
    assert alone < h100.slowdown_temp_c
    holdable = g * (h100.slowdown_temp_c - 33) / 1000  # with the excursion it must throttle
    assert r.series["job_pace"].min() == pytest.approx(cap_throughput_fraction(h100, holdable))
    t = r.series["t_hours"] * 60
    assert np.all(r.series["job_pace"][(t > 5) & (t < 20)] == 1)
    assert r.metrics["time_to_throttle_s"] > 15 * 60


def test_a_second_shutdown_during_the_restart_loses_no_more_work():
    def loss(at2):
        events = [
            {"kind": "cdu_loss", "target_id": 500, "at_minutes": 5, "repair_minutes": 10},
            {"kind": "cdu_loss", "target_id": 501, "at_minutes": at2, "repair_minutes": 10},
        ]
        params = {"events": events, "node_restart_minutes": 5, "job": {"restart_minutes": 30}}
        return run_replica("liquid_cooling", campus(), params, seed=4).metrics

    one = run_replica(
        "liquid_cooling",
        campus(),
        {
            "events": [{"kind": "cdu_loss", "target_id": 500, "at_minutes": 5, "repair_minutes": 10}],
            "node_restart_minutes": 5,
            "job": {"restart_minutes": 30},
        },
        seed=4,
    ).metrics
    during = loss(25)  # the first group is back at 20 min, the job restarts until 50 min
    assert during["job_interruptions"] == 2
    assert during["lost_work_hours"] == pytest.approx(one["lost_work_hours"])
    # the second group is back at 40 min (plus its shutdown delay), so the job restarts until ~70 min
    assert during["lost_gpu_hours"] > one["lost_gpu_hours"]


@given(
    kind=st.sampled_from(["cdu_loss", "pump_loss", "chiller_loss", "supply_temp_excursion"]),
    at=st.floats(0, 30),
    repair=st.floats(0, 60),
    flow=st.floats(0, 1),
    rise=st.floats(0, 40),
    air=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_temperatures_never_pass_the_shutdown_limit_and_the_pace_stays_in_range(
    kind, at, repair, flow, rise, air
):
    snap = campus(cooling_type="air" if air else "direct-to-chip")
    event = {"kind": kind, "at_minutes": at, "repair_minutes": repair}
    # Each kind of event takes only its own parameters.
    if kind == "pump_loss":
        event["remaining_flow_fraction"] = flow
    if kind == "supply_temp_excursion":
        event["supply_rise_k"] = rise
    r = run_replica(
        "liquid_cooling", snap, {"events": [event], "duration_minutes": 90, "series_points": 200}, seed=0
    )
    h100 = snap.gpus["h100-sxm"]
    assert r.metrics["max_gpu_temp_c"] <= h100.shutdown_temp_c + 1e-6 or kind == "supply_temp_excursion"
    assert r.metrics["max_coolant_temp_c"] <= h100.shutdown_temp_c + 1e-6 or kind == "supply_temp_excursion"
    assert np.all((r.series["job_pace"] >= 0) & (r.series["job_pace"] <= 1))


def _group_losses(targets, at=5.0, repair=30.0, **params):
    events = [
        {"kind": "cdu_loss", "target_id": t, "at_minutes": at, "repair_minutes": repair} for t in targets
    ]
    base = {"events": events, "duration_minutes": 90, "series_points": 200}
    return run_replica("liquid_cooling", campus(racks=16, cdu_groups=True), {**base, **params}, seed=1)


def test_losing_one_cdu_of_an_n_plus_1_group_with_margin_changes_nothing():
    # CDU 500's partner 501 has 2.2x its own load of capacity: the spare carries 500's heat.
    r = _group_losses([500])
    assert "time_to_throttle_s" not in r.metrics
    assert r.metrics["max_gpu_temp_c"] == pytest.approx(25 + 1000 / G_LIQ)


def test_losing_every_cdu_of_a_group_reaches_shutdown_as_the_rc_model_predicts():
    # Both CDUs of group g0 lost: no live spare, so the flow stops and G falls to the 3% residual:
    # g = 0.03 x 25 = 0.75 W/K per kW, tau = 1,100 / 0.75 = 1,466.7 s, T_inf = 25 + 1000 / 0.75 = 1,358.3 °C.
    # From 65 °C to the H100 slowdown (87 °C): 1,466.7 x ln(1,293.3 / 1,271.3) = 25.16 s.
    # At slowdown the residual flow holds only 0.75 x 62 / 1000 = 4.7% of the heat, below the 29% minimum
    # cap (200 W of 700 W), so the GPUs heat on at the minimum power: T_inf = 25 + 290 / 0.75 = 411.7 °C,
    # 87 -> 92 °C (shutdown) in 1,466.7 x ln(324.7 / 319.7) = 22.76 s. Shutdown 47.9 s after the loss.
    r = _group_losses([500, 501])
    assert r.metrics["time_to_throttle_s"] == pytest.approx(25.16, abs=0.01)
    assert r.metrics["time_to_shutdown_s"] == pytest.approx(47.93, abs=0.01)
    assert r.metrics["job_interruptions"] == 1
    # the 8 racks of group g0 (2 CDUs x 4 racks x 4 servers x 8 GPUs) are off; g1's 256 GPUs run on
    off_s = (5 + 30 + 15) * 60 - (5 * 60 + 47.93)  # back after repair + 15 min node restart
    assert r.metrics["shutdown_gpu_hours"] == pytest.approx(256 * off_s / 3600, rel=1e-4)


def test_spare_counts_once_while_losses_overlap_and_returns_when_one_is_repaired():
    # 501 is lost from 5 to 10 min, 500 from 6 to 36 min: 500's group is uncovered from 6 to 10 min only.
    events = [
        {"kind": "cdu_loss", "target_id": 501, "at_minutes": 5, "repair_minutes": 5},
        {"kind": "cdu_loss", "target_id": 500, "at_minutes": 6, "repair_minutes": 30},
    ]
    plan = prepare(campus(racks=16, cdu_groups=True), "liquid_cooling", {"events": events}).plan
    steps = plan.effects[1].g_steps
    assert [t for t, _ in steps] == [360.0, 600.0]
    assert steps[0][1] == pytest.approx(0.03)  # no live spare while 501 is also down
    assert steps[1][1] == 1.0  # 501 back with 2.2x - 1x spare for 500's load


@given(
    lost=st.lists(st.sampled_from([500, 501, 502, 503]), min_size=1, max_size=4, unique=True),
    extra=st.sampled_from([500, 501, 502, 503]),
    at=st.floats(0, 20),
    repair=st.floats(0, 40),
)
@settings(max_examples=25, deadline=None)
def test_losing_more_units_never_lowers_the_peak_temperature(lost, extra, at, repair):
    fewer = _group_losses(lost, at, repair)
    more = _group_losses(sorted({*lost, extra}), at, repair)
    assert more.metrics["max_gpu_temp_c"] >= fewer.metrics["max_gpu_temp_c"] - 1e-9
    assert more.metrics["shutdown_gpu_hours"] >= fewer.metrics["shutdown_gpu_hours"] - 1e-9


def _two_chillers():
    # CDU 500 on chiller 900, CDU 501 on chiller 901; each chiller alone can take the whole building.
    snap = campus(racks=8)
    (ch,) = snap.cooling_plants
    units = tuple(replace(u, plant_id=900 + i) for i, u in enumerate(snap.cooling_units))
    return replace(snap, cooling_plants=(ch, replace(ch, id=901, name="CH-2")), cooling_units=units)


def test_chillers_lost_together_share_no_spare_and_the_loop_heats():
    # Either chiller alone is covered by the other's spare: no ramp. Both lost: no heat is rejected and
    # the loop water heats at 1,000 W per kW / (3 L/kW x 4,186 J/(L K)) = 0.07963 K/s.
    def plan(targets):
        events = [
            {"kind": "chiller_loss", "target_id": t, "at_minutes": 5, "repair_minutes": 2} for t in targets
        ]
        params = {"events": events, "chiller_restart_minutes": 0, "series_points": 91, "duration_minutes": 90}
        return params, prepare(_two_chillers(), "liquid_cooling", params).plan

    _, one = plan([900])
    _, both = plan([900, 901])
    assert one.effects[0].ramp_k_per_s == 0.0
    assert [e.ramp_k_per_s for e in both.effects] == pytest.approx([0.07963, 0.07963], rel=1e-4)
    alone = run_replica("liquid_cooling", _two_chillers(), plan([900])[0], seed=1)
    together = run_replica("liquid_cooling", _two_chillers(), plan([900, 901])[0], seed=1)
    assert alone.metrics["max_coolant_temp_c"] == pytest.approx(25.0)
    assert together.metrics["max_coolant_temp_c"] == pytest.approx(25 + 60 * 0.07963, rel=1e-4)  # at 6 min


def _liquid_and_air_chillers(cdu_501_on_air_chiller: bool = False):
    # Both CDUs on liquid-loop chiller 900; chiller 901, ten times the building's heat, behind a CRAH (600)
    # of the hall: the air-side loop. With ``cdu_501_on_air_chiller`` CDU 501 is piped to 901, which then
    # takes liquid-loop water too and joins the two loops.
    snap = campus(racks=8)
    (ch,) = snap.cooling_plants
    air = replace(ch, id=901, name="CHL-AIR", capacity_kw=ch.capacity_kw * 10)
    crah = CoolingUnitSnap(600, "CRAH-1", "crah", 500.0, 18.0, 30.0, 0.0, 901, 2, 1, group="air")
    units = tuple(
        replace(u, plant_id=901) if cdu_501_on_air_chiller and u.id == 501 else u for u in snap.cooling_units
    )
    return replace(snap, cooling_plants=(ch, air), cooling_units=(*units, crah))


def test_an_air_side_chiller_does_not_cover_the_liquid_loop():
    # Chiller 900 is the liquid loop's only plant: lost, nothing rejects the loop's heat, whatever spare
    # the air-side chiller has, and the loop heats at 1,000 W per kW / (3 L/kW x 4,186 J/(L K)) = 0.07963
    # K/s (the building-wide pool had the air chiller cover it: no ramp). Piped to both loops, 901 covers.
    events = [{"kind": "chiller_loss", "target_id": 900, "at_minutes": 5, "repair_minutes": 2}]
    params = {"events": events, "chiller_restart_minutes": 0}
    alone = prepare(_liquid_and_air_chillers(), "liquid_cooling", params).plan
    assert alone.effects[0].ramp_k_per_s == pytest.approx(0.07963, rel=1e-4)
    joined = prepare(_liquid_and_air_chillers(cdu_501_on_air_chiller=True), "liquid_cooling", params).plan
    assert joined.effects[0].ramp_k_per_s == 0.0


# ---------------------------------------------------------------- the job's GPU-hour balance


def _balance(m: dict, gpus: int, window_h: float) -> None:
    """Lost GPU-hours are the window's GPU-hours less the work kept, and the named parts add up to them."""
    lost = m["lost_gpu_hours"]
    assert 0.0 <= lost <= gpus * window_h * (1 + 1e-9)
    assert lost == pytest.approx(gpus * window_h * (1.0 - m["job_throughput_fraction"]), rel=1e-9, abs=1e-9)
    parts = m["downtime_hours"] + m["lost_work_hours"] + m["slowdown_hours"]
    assert lost == pytest.approx(gpus * parts, rel=1e-9, abs=1e-9)
    assert m["redone_gpu_hours_before_window"] >= 0.0


def test_lost_gpu_hours_count_the_window_only_by_hand():
    # 512 GPUs (16 racks of 4 eight-GPU servers), 2 h. The CDU is lost at 5 min for 30 min; its GPUs
    # shut down within a minute and are back at 35 + 15 (node restart) = 50 min; the job restarts 10 min
    # later, at 60 min. With a checkpoint every 10^6 min the last checkpoint is (all but surely) from
    # before the run, so everything done from 0 to the shutdown is rolled back and the only work kept
    # is 60 -> 120 min at full pace: goodput = 60 / 120 = 0.5, lost = 512 x 2 h x 0.5 = 512 GPU-h. The
    # work from before the run that is redone is counted apart (the old count added it to the 512).
    params = {
        "events": [{"kind": "cdu_loss", "at_minutes": 5, "repair_minutes": 30}],
        "duration_minutes": 120,
        "node_restart_minutes": 15,
        "job": {"restart_minutes": 10, "checkpoint_interval_minutes": 1e6},
    }
    m = run_replica("liquid_cooling", campus(racks=16), params, seed=3).metrics
    assert m["job_interruptions"] == 1
    assert m["job_throughput_fraction"] == pytest.approx(0.5, abs=1e-3)
    assert m["lost_gpu_hours"] == pytest.approx(512.0, rel=2e-3)
    # down from the shutdown (5 min + time to shutdown) to 60 min
    assert m["downtime_hours"] == pytest.approx((55 * 60 - m["time_to_shutdown_s"]) / 3600, rel=1e-9)
    assert m["redone_gpu_hours_before_window"] > 0
    _balance(m, 512, 2.0)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    at=st.floats(0, 100),
    repair=st.floats(0.5, 90),
    interval=st.sampled_from([1.0, 15.0, 60.0, 180.0, 1e5]),
    write=st.sampled_from([0.0, 5.0]),
    restart=st.sampled_from([0.0, 10.0, 30.0]),
    second=st.none() | st.floats(0, 110),
)
def test_lost_gpu_hours_never_exceed_gpus_times_the_window(
    seed, at, repair, interval, write, restart, second
):
    events = [{"kind": "cdu_loss", "target_id": 500, "at_minutes": at, "repair_minutes": repair}]
    if second is not None:
        events.append({"kind": "cdu_loss", "target_id": 501, "at_minutes": second, "repair_minutes": 10})
    params = {
        "events": events,
        "duration_minutes": 120,
        "job": {
            "checkpoint_interval_minutes": interval,
            "checkpoint_write_minutes": write,
            "restart_minutes": restart,
        },
    }
    m = run_replica("liquid_cooling", campus(racks=16), params, seed=seed).metrics
    _balance(m, 512, 2.0)


def test_a_run_without_events_is_deterministic_and_one_with_events_is_not():
    # Only an interruption's place in the checkpoint cycle is random; with no event nothing interrupts.
    quiet = validate_params("liquid_cooling", {"events": []})
    assert liquid_cooling.stochastic(quiet) is False
    assert liquid_cooling.stochastic(validate_params("liquid_cooling", {})) is True
    a = run_replica("liquid_cooling", campus(), {"events": []}, seed=1)
    b = run_replica("liquid_cooling", campus(), {"events": []}, seed=2)
    assert a.metrics == b.metrics
