"""The books of a failure_cascade replica shared by its walks: the failures drawn up front
(:func:`draw`), which facility units darken which racks when (:func:`facility_changes`), how a failure
is booked on the job's timeline (:func:`book`) and the replica's result (:func:`result`)."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from simulations.engine.job import JobTimeline, expected_ettr
from simulations.engine.kinds.failure_cascade.facility import FacilityDown
from simulations.engine.kinds.failure_cascade.plan import CascadePlan, sample_failures
from simulations.engine.results import ReplicaResult


@dataclass(frozen=True)
class Draws:
    """The random half of a replica: every failure of the run, drawn up front with numpy."""

    job_t: np.ndarray  # times (h, sorted) of the failures that interrupt the job directly
    job_c: np.ndarray  # their classes
    fac_t: list[float]  # times (h, sorted) of the facility failures
    fac_c: list[int]  # their classes
    fac_u: list[int]  # the failing unit, an index into the class's units


def draw(plan: CascadePlan, seed: int) -> Draws:
    """The failures of replica ``seed``: the superposed Poisson arrivals of every class
    (:func:`sample_failures`), then one uniform draw per arrival picks the failing unit within its class
    (only facility units are told apart: every GPU, node or link of the job interrupts it alike)."""
    a = plan.arrays
    rng = np.random.default_rng(seed)
    times, cls = sample_failures(rng, a.rates, plan.params.duration_days * 24.0)
    u = rng.random(times.size)
    fac = np.flatnonzero(~a.is_job[cls]) if times.size else np.empty(0, dtype=np.int64)
    job = a.is_job[cls] if times.size else np.empty(0, dtype=bool)
    fac_c = cls[fac]
    return Draws(
        job_t=times[job],
        job_c=cls[job],
        fac_t=times[fac].tolist(),
        fac_c=fac_c.tolist(),
        fac_u=(u[fac] * a.counts[fac_c]).astype(np.int64).tolist(),
    )


def facility_changes(
    plan: CascadePlan, d: Draws, duration_h: float
) -> tuple[list[tuple[float, frozenset[int], bool, int, bool]], int]:
    """The facility failures and repairs of a replica that change which eligible racks are dark, in time
    order (a repair at the very time of a failure comes first): (time, the racks that go dark or come
    back, whether they go dark, the failing class, whether a rack holds job nodes), and the number of
    repairs due within the run."""
    repair = plan.arrays.repair_hours.tolist()
    fdown = FacilityDown(plan)
    out: list[tuple[float, frozenset[int], bool, int, bool]] = []
    repairs: list[tuple[float, int, tuple[int, int]]] = []
    done = 0
    inf = math.inf
    n = len(d.fac_t)
    k = 0
    while True:
        t_f = d.fac_t[k] if k < n else inf
        t_r = repairs[0][0] if repairs else inf
        if t_r <= t_f:
            if t_r >= duration_h:
                break
            _, _, key = heapq.heappop(repairs)
            done += 1
            back = fdown.repair(*key)
            if back:
                out.append((t_r, back, False, -1, False))
            continue
        if t_f >= duration_h:
            break
        c, u = d.fac_c[k], d.fac_u[k]
        k += 1
        new, hit = fdown.fail(c, u)
        if new:
            out.append((t_f, new, True, c, hit))
        heapq.heappush(repairs, (t_f + repair[c], k, (c, u)))
    return out, done


def book(tl: JobTimeline, t: float, c: int, hit: bool, ok: bool, extra_h: float) -> None:
    """A failure of class ``c`` at ``t`` on the job's timeline: ``hit``: it struck the job; ``ok``: enough
    capacity is left to run it."""
    if hit:
        tl.fail(t, c, ok, extra_h)
    elif not ok and not tl.waiting and t < tl.ready_at:
        tl.capacity_lost(t)


def result(plan: CascadePlan, tl: JobTimeline, duration_h: float, state: dict) -> ReplicaResult:
    p = plan.params
    g = plan.job_gpus
    lost_h = tl.lost_work_h + tl.down_h
    # interruptions of a training job; failures that find it restarting or waiting are counted apart
    n_int = tl.interruptions - tl.during_recovery
    expected = (
        expected_ettr(
            plan.job_rate_per_hour,
            plan.interval_h,
            plan.write_h,
            plan.restart_h + plan.spare_wait_h,
            p.failures_during_recovery,
        )
        if p.recovery != "in_memory" and p.failure_distribution == "exponential"
        else math.nan
    )
    metrics = {
        "ettr": tl.useful_h / duration_h,
        "interruptions": float(n_int),
        "failures_during_recovery": float(tl.during_recovery),
        "interruptions_per_day": n_int / (duration_h / 24.0),
        "lost_gpu_hours": lost_h * g,
        "mean_lost_hours_per_interruption": lost_h / n_int if n_int else 0.0,
        "lost_work_hours": tl.lost_work_h,
        "downtime_hours": tl.down_h,
        "waiting_for_capacity_hours": state["wait_h"],
        "checkpoint_overhead_hours": tl.overhead_h,
        "useful_gpu_hours": tl.useful_h * g,
        "useful_eflop": tl.useful_h * 3600.0 * plan.job_tflops * 1e12 / 1e18,
        "job_gpus": float(g),
        "job_nodes": float(plan.job_nodes),
        "spare_nodes": float(plan.spare_nodes),
        "job_mtbf_hours_expected": 1.0 / plan.job_rate_per_hour if plan.job_rate_per_hour > 0 else math.inf,
        "checkpoint_interval_minutes": plan.interval_h * 60.0,
        "facility_outages": float(state["outages"]),
    }
    if math.isfinite(expected):
        metrics["ettr_expected_job_classes"] = expected
    if plan.arrays.consumes.any():
        # the closed form's chance that the spares run dry ("hot_spares": failed nodes wait for repair)
        metrics["spares_run_dry_probability"] = plan.spare_shortfall[0]
    metrics = {k: v for k, v in metrics.items() if math.isfinite(v)}
    by_cause: dict[str, float] = {}
    for c, cnt in zip(plan.classes, tl.by_cause_count, strict=True):
        if cnt:
            by_cause[c.component] = by_cause.get(c.component, 0.0) + cnt
    # series: cumulative interruptions and committed useful hours on an even grid
    t_grid = np.linspace(0.0, duration_h, p.series_points)
    trace_t, trace_useful = tl.trace()
    fail_t = trace_t[1:-1]
    useful = np.interp(t_grid, trace_t, trace_useful)
    with np.errstate(invalid="ignore", divide="ignore"):
        ettr_series = np.where(t_grid > 0, useful / np.where(t_grid > 0, t_grid, 1.0), 1.0)
    series = {
        "t_hours": t_grid,
        "interruptions": np.searchsorted(fail_t, t_grid, side="right").astype(float),
        "useful_hours": useful,
        "ettr": ettr_series,
    }
    return ReplicaResult(metrics=metrics, by_cause=by_cause, series=series, events=state["events"])
