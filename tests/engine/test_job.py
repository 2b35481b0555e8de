"""The job model: cap curves, stragglers and checkpoint maths."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulations.engine.job import (
    JobTimeline,
    cap_throughput_fraction,
    expected_ettr,
    expected_lost_hours_per_interruption,
    peak_tflops,
    synchronous_pace,
    young_daly_interval_hours,
)
from tests.engine.builders import gpu_spec


def test_cap_curve_interpolates_between_points_and_clamps_at_the_ends():
    h100 = gpu_spec("h100-sxm")
    pts = dict(h100.cap_curve)
    assert cap_throughput_fraction(h100, 0.8) == pytest.approx(pts[0.8])
    mid = cap_throughput_fraction(h100, 0.75)
    assert mid == pytest.approx((pts[0.7] + pts[0.8]) / 2)
    assert cap_throughput_fraction(h100, 1.3) == pytest.approx(1.0)
    # below the minimum settable cap the driver keeps the minimum
    assert cap_throughput_fraction(h100, 0.05) == pytest.approx(
        cap_throughput_fraction(h100, h100.min_cap_fraction)
    )


def test_a_part_without_fp8_falls_back_to_bf16():
    a100 = gpu_spec("a100-sxm")
    assert "fp8" not in a100.peak_tflops
    assert peak_tflops(a100, "fp8") == a100.peak_tflops["bf16"]


def test_the_slowest_member_sets_the_pace_of_a_synchronous_job():
    assert synchronous_pace({"h100": 1.0, "a100": 0.8}, {"h100": 64, "a100": 8}) == 0.8
    assert synchronous_pace({"h100": 1.0, "a100": 0.8}, {"h100": 64, "a100": 0}) == 1.0


def test_daly_interval_reduces_to_young_for_cheap_checkpoints_and_to_mtbf_for_costly_ones():
    assert young_daly_interval_hours(0.001, 100.0) == pytest.approx(math.sqrt(2 * 0.001 * 100), rel=0.01)
    assert young_daly_interval_hours(300.0, 100.0) == 100.0


def test_renewal_ettr_without_failures_is_the_checkpoint_duty_cycle():
    assert expected_ettr(0.0, 1.0, 0.25, 0.5) == pytest.approx(0.8)
    assert expected_ettr(1e-9, 1.0, 0.25, 0.5) == pytest.approx(0.8, rel=1e-6)
    assert expected_ettr(0.5, 1.0, 0.25, 0.5) < expected_ettr(0.1, 1.0, 0.25, 0.5)


def test_expected_lost_time_tends_to_half_the_period_for_rare_failures():
    assert expected_lost_hours_per_interruption(1e-6, 2.0, 0.5) == pytest.approx(1.25, rel=1e-4)


def test_timeline_rolls_back_to_the_last_checkpoint_and_charges_the_restart():
    tl = JobTimeline(interval_h=1.0, write_h=0.5, restart_h=0.25, n_causes=1)
    tl.fail(3.7, 0, capacity_ok=True)  # two 1.5 h segments committed, 0.7 h lost
    assert tl.useful_h == pytest.approx(2.0)
    assert tl.lost_work_h == pytest.approx(0.7)
    tl.finish(10.0)  # up at 3.95; 6.05 h: four segments (4 h) + 0.05 h compute
    assert tl.down_h == pytest.approx(0.25)
    assert tl.useful_h == pytest.approx(2.0 + 4.0 + 0.05)
    assert tl.by_cause_lost_h[0] == pytest.approx(0.7 + 0.25)


def test_timeline_failure_during_restart_restarts_the_restart_without_losing_work():
    tl = JobTimeline(interval_h=1.0, write_h=0.0, restart_h=0.5, n_causes=2)
    tl.fail(2.5, 0, capacity_ok=True)
    tl.fail(2.8, 1, capacity_ok=True)
    assert tl.lost_work_h == pytest.approx(0.5)
    assert tl.ready_at == pytest.approx(3.3)
    tl.finish(4.0)
    assert tl.down_h == pytest.approx(0.3 + 0.5)
    assert tl.by_cause_lost_h == pytest.approx([0.5 + 0.3, 0.5])


def test_timeline_waits_for_capacity_then_restarts():
    tl = JobTimeline(interval_h=1.0, write_h=0.0, restart_h=0.5, n_causes=1)
    tl.fail(1.0, 0, capacity_ok=False)
    assert tl.waiting
    tl.capacity_back(4.0)
    assert tl.ready_at == pytest.approx(4.5)
    tl.finish(5.0)
    assert tl.down_h == pytest.approx(3.5)
    assert tl.useful_h == pytest.approx(1.0 + 0.5)


def test_in_memory_timeline_loses_only_the_step_in_progress():
    tl = JobTimeline(interval_h=1.0, write_h=0.5, restart_h=0.1, n_causes=1, step_h=0.3, in_memory=True)
    tl.fail(2.0, 0, capacity_ok=True)  # one segment (1 h) done, then 0.5 h into the next: 0.2 h of step lost
    assert tl.lost_work_h == pytest.approx(0.2)
    assert tl.useful_h == pytest.approx(1.0 + 0.3)
    tl.fail(3.35, 0, capacity_ok=True)  # up at 2.1; 1.25 h later: mid checkpoint write, no step lost
    assert tl.lost_work_h == pytest.approx(0.2)
    assert tl.useful_h == pytest.approx(1.3 + 1.0)


@given(
    gaps=st.lists(st.floats(0.001, 5.0), min_size=0, max_size=30),
    blocked=st.lists(st.booleans(), min_size=30, max_size=30),
    in_memory=st.booleans(),
)
@settings(max_examples=200, deadline=None)
def test_useful_overhead_lost_and_down_time_add_up_to_the_wall_time(gaps, blocked, in_memory):
    tl = JobTimeline(interval_h=1.0, write_h=0.2, restart_h=0.3, n_causes=2, step_h=0.05, in_memory=in_memory)
    t = 0.0
    for i, gap in enumerate(gaps):
        t += gap
        if tl.waiting:
            tl.capacity_back(t)
        else:
            tl.fail(t, i % 2, capacity_ok=not blocked[i])
    end = t + 2.0
    tl.finish(end)
    assert tl.useful_h + tl.overhead_h + tl.lost_work_h + tl.down_h == pytest.approx(end, abs=1e-9)
    assert sum(tl.by_cause_lost_h) == pytest.approx(tl.lost_work_h + tl.down_h, abs=1e-9)


def test_expected_ettr_of_a_hopeless_failure_rate_is_zero_not_an_overflow():
    # 100 failures an hour, 1 h segments, 0.1 h restarts: exp(100 x 0.1) x (exp(100 x 1.1) - 1) / 100 h of
    # wall time per committed hour, about 1e51 h: ETTR about 1e-51. At 10,000 an hour exp(11,000) is beyond
    # any float (past exp(709)): the ETTR is 0 to double precision, not an OverflowError.
    from simulations.engine.job import expected_ettr

    assert expected_ettr(100.0, 1.0, 0.1, 0.1) == pytest.approx(
        1.0 / (math.exp(10.0) * math.expm1(110.0) / 100.0), rel=1e-12
    )
    assert expected_ettr(1e4, 1.0, 0.1, 0.1) == 0.0
