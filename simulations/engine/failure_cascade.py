"""Random failures of every component class, propagated through the power and cooling graphs, against one
synchronous training job that checkpoints, fails, waits for capacity and restarts.

Model
- Rates: job-interrupting events by cause from the job data set of each GPU model in the job
  (``rate_set="per-model"``, the default: H100 "llama3-2024", A100 "meta-rsc1-2024", flagged estimates for
  the other generations; ``campus.analysis.reliability.model_rate_sets``), each applied to that model's GPUs
  and nodes only; or ONE named set for every GPU. Plus, optionally, the facility set
  ("infrastructure-estimates": utility feeds, transformers, UPSs, PDUs, CDUs, chillers...). Overlapping
  job sets are never summed over the same GPUs; a component present in a job set keeps the job set's rate.
- Arrivals: every class is a Poisson process of rate count x 1/MTBF. Their superposition is sampled up
  front with numpy (exponential inter-arrival times at the total rate, the class drawn in proportion to its
  rate, the failing unit drawn uniformly within the class), and one SimPy process walks through the events
  that happen (failures and the repairs that matter), never one process per component.
- Job-level classes (per GPU, node, link, switch of the job) interrupt the job. Facility classes are
  propagated: what a failed device, utility feed, CDU or chiller takes down (A/B failover, overload trips,
  cooling that follows power, N+1 cooling groups and plants) is computed once per unit with
  ``campus.analysis.impact.impact`` (the power roll-up cascade plus the cooling rules), cached, and looked
  up in the hot loop. The job is interrupted when a dark rack holds job
  nodes; dark racks stay out of the pool until the unit is repaired.
- Capacity: the job needs its nodes; the eligible nodes it leaves free (hot spares included) replace
  failed ones. Under "hot_spares" a node failure takes the node out for its repair time; under
  "checkpoint_restart" and "in_memory" the failed part is assumed replaced within the restart (the
  classic Young/Daly setting). When too few healthy nodes remain the job waits for the next repair.
- Recovery: see :mod:`simulations.engine.job`.

Takes a ``CampusSnapshot`` (inventory, failure rate sets, the power and cooling graphs) and
``FailureCascadeParams`` (duration, rate sets, the job and its recovery strategy, repair times). Returns
ETTR, useful and lost GPU-hours and work, interruptions (per cause under ``by_cause``), downtime and waiting
for capacity, facility outages, and the series of cumulative interruptions, useful hours and ETTR over
``t_hours``.

SimPy is the clock: failures and repairs are events at random times whose order decides everything (a
repair that comes before the next failure frees capacity, one that comes after leaves the job waiting), so
one SimPy process walks through them; the arrival times themselves are drawn up front with numpy.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import simpy

from simulations.engine import words
from simulations.engine.contract import ScenarioKind
from simulations.engine.failure_cascade_plan import (
    COOLING_PLANT,
    COOLING_UNIT,
    DEAD_RACK_STATUSES,
    DEFAULT_HOT_SPARE_FRACTION,
    FACILITY_COMPONENTS,
    JOB,
    JOB_UNITS,
    LEAF_DOWNLINKS,
    POWER_DEVICE,
    UTILITY_FEED,
    CascadePlan,
    FailureClass,
    prepare,
    sample_failures,
)
from simulations.engine.job import (
    JobTimeline,
    expected_ettr,
)
from simulations.engine.params import FailureCascadeParams
from simulations.engine.results import Progress, ReplicaResult

# the kind's public names, those of its plan (simulations.engine.failure_cascade_plan) included
__all__ = [
    "COOLING_PLANT",
    "COOLING_UNIT",
    "CascadePlan",
    "DEAD_RACK_STATUSES",
    "DEFAULT_HOT_SPARE_FRACTION",
    "FACILITY_COMPONENTS",
    "FailureClass",
    "JOB",
    "JOB_UNITS",
    "KIND",
    "LABEL",
    "LEAF_DOWNLINKS",
    "POWER_DEVICE",
    "Params",
    "UTILITY_FEED",
    "prepare",
    "stochastic",
    "run",
    "sample_failures",
]

# The scenario model contract (simulations.engine.contract.ScenarioModel), read by the registry.
KIND = ScenarioKind.FAILURE_CASCADE
LABEL = "Failures and recovery"
Params = FailureCascadeParams
# What its metrics mean and what a finished run showed, in words (simulations.engine.catalogue).
METRICS = words.FAILURE_CASCADE_METRICS
explain = words.explain_failure_cascade


def stochastic(params: FailureCascadeParams) -> bool:
    """Yes: failures and repairs are drawn at random."""
    return True


_PROGRESS_EVERY = 4096


# ---------------------------------------------------------------- one replica


def run(plan: CascadePlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    p = plan.params
    rng = np.random.default_rng(seed)
    duration_h = p.duration_days * 24.0
    classes = plan.classes
    rates = np.array([c.rate_per_hour for c in classes], dtype=float)
    times_a, cls_a = sample_failures(rng, rates, duration_h)
    counts = np.array([max(c.count, 1) for c in classes], dtype=np.int64)
    units_a = (rng.random(times_a.size) * counts[cls_a]).astype(np.int64) if times_a.size else cls_a
    times = times_a.tolist()
    cls_l = cls_a.tolist()
    units = units_a.tolist()

    in_memory = p.recovery == "in_memory"
    hot_spares = p.recovery == "hot_spares"
    tl = JobTimeline(
        plan.interval_h,
        plan.write_h,
        plan.restart_h,
        len(classes),
        step_h=p.step_seconds / 3600.0,
        in_memory=in_memory,
    )
    extra_h = plan.copy_h
    target = [c.target for c in classes]
    repair = [c.repair_hours for c in classes]
    consumes = [hot_spares and c.consumes_node for c in classes]
    eligible_by_rack = plan.eligible_by_rack
    need = plan.job_nodes
    eligible = plan.eligible_nodes
    state: dict[str, float] = {}  # filled by the process when it ends
    rack_outages: dict[int, int] = {}
    repairs: list[tuple[float, int, tuple[int, ...]]] = []  # (time, seq, racks); racks () = one node
    n = len(times)
    inf = math.inf

    def proc(env: simpy.Environment):
        down = 0
        seq = 0
        i = 0
        events = 0
        wait_h = 0.0
        wait_since = -1.0
        outages = 0
        next_progress = _PROGRESS_EVERY
        while True:
            t_f = times[i] if i < n else inf
            t_r = repairs[0][0] if repairs else inf
            t = t_f if t_f < t_r else t_r
            if t >= duration_h:
                break
            yield env.timeout(t - env.now)
            events += 1
            if progress is not None and events >= next_progress:
                next_progress += _PROGRESS_EVERY
                progress(t / duration_h)
            if t_r <= t_f:
                _, _, racks = heapq.heappop(repairs)
                if racks:
                    for rid in racks:
                        c = rack_outages[rid] - 1
                        rack_outages[rid] = c
                        if c == 0:
                            down -= eligible_by_rack[rid]
                else:
                    down -= 1
                if tl.waiting and eligible - down >= need:
                    tl.capacity_back(t, extra_h)
                    wait_h += t - wait_since
                continue
            c = cls_l[i]
            u = units[i]
            i += 1
            if target[c] == JOB:
                if consumes[c]:
                    down += 1
                    seq += 1
                    heapq.heappush(repairs, (t + repair[c], seq, ()))
                hit = True
            else:
                racks, hit = plan.impact(c, u)
                if not racks:
                    continue
                outages += 1
                for rid in racks:
                    k = rack_outages.get(rid, 0)
                    rack_outages[rid] = k + 1
                    if k == 0:
                        down += eligible_by_rack[rid]
                seq += 1
                heapq.heappush(repairs, (t + repair[c], seq, racks))
            was_waiting = tl.waiting
            ok = eligible - down >= need
            if hit:
                tl.fail(t, c, ok, extra_h)
            elif not ok and not was_waiting and t < tl.ready_at:
                tl.capacity_lost(t)
            if tl.waiting and not was_waiting:
                wait_since = t
            elif was_waiting and not tl.waiting:
                wait_h += t - wait_since
        if tl.waiting:
            wait_h += duration_h - wait_since
        state["events"] = events
        state["wait_h"] = wait_h
        state["outages"] = outages

    env = simpy.Environment()
    env.process(proc(env))
    env.run()
    tl.finish(duration_h)
    if progress is not None:
        progress(1.0)
    return _result(plan, tl, duration_h, state)


def _result(plan: CascadePlan, tl: JobTimeline, duration_h: float, state: dict) -> ReplicaResult:
    p = plan.params
    g = plan.job_gpus
    lost_h = tl.lost_work_h + tl.down_h
    n_int = tl.interruptions
    expected = (
        expected_ettr(plan.job_rate_per_hour, plan.interval_h, plan.write_h, plan.restart_h)
        if p.recovery != "in_memory"
        else math.nan
    )
    metrics = {
        "ettr": tl.useful_h / duration_h,
        "interruptions": float(n_int),
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
    metrics = {k: v for k, v in metrics.items() if math.isfinite(v)}
    by_cause: dict[str, float] = {}
    for c, cnt in zip(plan.classes, tl.by_cause_count, strict=True):
        if cnt:
            by_cause[c.component] = by_cause.get(c.component, 0.0) + cnt
    # series: cumulative interruptions and committed useful hours on an even grid
    t_grid = np.linspace(0.0, duration_h, p.series_points)
    fail_t = np.asarray(tl.trace_t[1:-1])
    useful = np.interp(t_grid, np.asarray(tl.trace_t), np.asarray(tl.trace_useful))
    with np.errstate(invalid="ignore", divide="ignore"):
        ettr_series = np.where(t_grid > 0, useful / np.where(t_grid > 0, t_grid, 1.0), 1.0)
    series = {
        "t_hours": t_grid,
        "interruptions": np.searchsorted(fail_t, t_grid, side="right").astype(float),
        "useful_hours": useful,
        "ettr": ettr_series,
    }
    return ReplicaResult(metrics=metrics, by_cause=by_cause, series=series, events=state["events"])
