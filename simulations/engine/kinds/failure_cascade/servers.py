"""The server-pool walk of failure_cascade: the job's nodes one by one, as AI-cluster failure simulators
model a training cluster (AIReSim, Kokolis et al. 2024).

Nodes: the job's, ``warm_standbys`` beside them, the campus's other eligible nodes kept for the job (the
working pool's headroom, ``hot_spares``), and a ``spare_pool_nodes`` pool running preemptible work. A
share ``bad_server_fraction`` of all of them, drawn at random, is bad: it fails at
``bad_server_rate_multiple`` times the base rate until a repair that works makes it good.

The job trains on its nodes until the first of them fails (the minimum of the nodes' failure times: for
exponential times the superposed rate, for Weibull times of shape k the minimum of n Weibull times of
scale α is Weibull of scale α·n^(−1/k), so a draw costs O(1) whatever the job's size; the nodes' ages
start afresh when the job restarts, as in the reference simulator). The failed node goes to the repair
pipeline (automatic, escalated to manual with ``escalation_probability``; each can miss the fault), the
job loses the work since its last checkpoint and recovers for ``restart_minutes``; a warm standby then
takes the failed node's place. With no standby left the job is staffed again from the working pool's
idle nodes, then from the spare pool (``preemption_minutes`` per node; it can run dry), and pays a host
selection; with too few nodes anywhere it stalls until a repair returns one. A repaired node becomes a
warm standby again when the job is short of them, else an idle node of the working pool.

``failures_during_recovery``: True, the job's nodes keep failing during a recovery, a host selection or a
preemption (the recovery starts again); False, the failure clock runs only while the job trains. Nodes
never fail while the job stalls for capacity (they are idle).

The run ends after ``duration_days`` or, with ``work_days``, when the work is done (time to train).

Facility failures are not drawn in this walk (the class walk, ``model.run``, propagates them). A plain
event loop over one priority queue of repairs, not SimPy: there is one process (the job) and the repairs
only ever hand a node back, so a heap says everything SimPy's calendar would.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from simulations.engine.job import JobTimeline, young_daly_interval_hours
from simulations.engine.results import Progress, ReplicaResult

_PROGRESS_EVERY = 4096


@dataclass(frozen=True)
class PoolSetup:
    """The seed-independent half of the server-pool walk (from the plan and the parameters)."""

    job_nodes: int
    warm_standbys: int
    headroom: int  # idle nodes of the working pool beside the job and its standbys
    spare_pool: int
    base_rate_per_hour: float  # one good node
    bad_fraction: float
    bad_multiple: float
    auto_h: float
    manual_h: float
    p_escalate: float
    p_auto_miss: float
    p_manual_miss: float
    restart_h: float
    host_h: float
    preempt_h: float
    interval_h: float
    write_h: float
    step_h: float
    in_memory: bool
    weibull_shape: float | None  # None: exponential
    during_recovery: bool
    work_h: float | None
    duration_h: float
    gpus_per_node: float
    job_tflops: float
    series_points: int


class _Walk:
    """One replica's state: where every node is, the repairs under way and the counters."""

    def __init__(self, s: PoolSetup, seed: int) -> None:
        self.s = s
        self.rng = rng = np.random.default_rng(seed)
        n = s.job_nodes + s.warm_standbys + s.headroom + s.spare_pool
        self.bad = np.zeros(n, dtype=bool)
        n_bad = round(s.bad_fraction * n)
        if n_bad:
            self.bad[rng.choice(n, n_bad, replace=False)] = True
        ids = list(range(n))
        j, w, h = s.job_nodes, s.warm_standbys, s.headroom
        self.act_good = [i for i in ids[:j] if not self.bad[i]]
        self.act_bad = [i for i in ids[:j] if self.bad[i]]
        self.standby = ids[j : j + w]
        self.idle = ids[j + w : j + w + h]
        self.spare = ids[j + w + h :]
        self.repairs: list[tuple[float, int]] = []
        self.counts = dict.fromkeys(
            (
                "interruptions",
                "failures_during_recovery",
                "bad_server_failures",
                "auto_repairs",
                "manual_repairs",
                "missed_repairs",
                "host_selections",
                "preemptions",
                "repairs_done",
            ),
            0,
        )
        self.hours = dict.fromkeys(("recovery", "host_selection", "preemption", "stall"), 0.0)
        self.bad_scale = s.bad_multiple

    # ------------------------------------------------------------------ nodes

    @property
    def active(self) -> int:
        return len(self.act_good) + len(self.act_bad)

    def next_failure(self) -> tuple[float, bool]:
        """Time (h) from now to the first failure among the active nodes, and whether a bad one fails."""
        s, rng = self.s, self.rng
        ng, nb = len(self.act_good), len(self.act_bad)
        lam = s.base_rate_per_hour
        if lam <= 0 or ng + nb == 0:
            return math.inf, False
        if s.weibull_shape is None:
            total = lam * (ng + nb * self.bad_scale)
            dt = rng.exponential(1.0 / total)
            return float(dt), bool(rng.random() * total >= lam * ng)
        k = s.weibull_shape
        g = math.gamma(1.0 + 1.0 / k)
        tg = (1.0 / lam) / g * ng ** (-1.0 / k) * rng.weibull(k) if ng else math.inf
        tb = (1.0 / (lam * self.bad_scale)) / g * nb ** (-1.0 / k) * rng.weibull(k) if nb else math.inf
        return (float(tb), True) if tb < tg else (float(tg), False)

    def fail_one(self, t: float, bad_group: bool) -> None:
        """A node of the chosen group fails at ``t``: out of the job and into the repair pipeline."""
        group = self.act_bad if bad_group else self.act_good
        k = int(self.rng.integers(len(group)))
        group[k], group[-1] = group[-1], group[k]
        node = group.pop()
        if bad_group:
            self.counts["bad_server_failures"] += 1
        s, rng, c = self.s, self.rng, self.counts
        dur = rng.exponential(s.auto_h) if s.auto_h > 0 else 0.0
        c["auto_repairs"] += 1
        if rng.random() < s.p_escalate:
            c["manual_repairs"] += 1
            dur += rng.exponential(s.manual_h) if s.manual_h > 0 else 0.0
            fixed = rng.random() >= s.p_manual_miss
        else:
            fixed = rng.random() >= s.p_auto_miss
        if fixed:
            self.bad[node] = False
        else:
            c["missed_repairs"] += 1
        heapq.heappush(self.repairs, (t + float(dur), node))

    def returns_until(self, t: float) -> None:
        """Nodes whose repair ends by ``t`` come back: as warm standbys while the job lacks them."""
        while self.repairs and self.repairs[0][0] <= t:
            _, node = heapq.heappop(self.repairs)
            self.counts["repairs_done"] += 1
            if len(self.standby) < self.s.warm_standbys:
                self.standby.append(node)
            else:
                self.idle.append(node)

    def add_active(self, node: int) -> None:
        (self.act_bad if self.bad[node] else self.act_good).append(node)

    # ------------------------------------------------------------------ downtime

    def window(self, t: float, hours: float, kind: str) -> tuple[float, bool]:
        """A stretch of ``hours`` of downtime from ``t`` (recovery, host selection, preemption): its end,
        and whether a failure of an active node cut it short (then the end is that failure's time)."""
        if self.s.during_recovery:
            dt, bad = self.next_failure()
            if dt < hours:
                self.hours[kind] += dt
                self.fail_one(t + dt, bad)
                self.counts["failures_during_recovery"] += 1
                return t + dt, True
        self.hours[kind] += hours
        return t + hours, False


def run_pool(setup: PoolSetup, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """One replica of the server-pool walk (see the module's docstring)."""
    s = setup
    w = _Walk(s, seed)
    tl = JobTimeline(s.interval_h, s.write_h, 0.0, 2, step_h=s.step_h, in_memory=s.in_memory)
    end_h = s.duration_h
    t = 0.0
    phase = "staff"  # staff (host selection), recover, run
    done = False
    next_progress = _PROGRESS_EVERY
    # the job starts with a host selection: downtime from the start (booked as the first cause's), with no
    # interruption
    tl.waiting = True
    tl.last_cause = 0
    while t < end_h:
        w.returns_until(t)
        if phase == "recover":
            t, cut = w.window(t, s.restart_h, "recovery")
            if cut:
                tl.fail(t, 1, False)
                continue
            w.returns_until(t)
            while w.active < s.job_nodes and w.standby:
                w.add_active(w.standby.pop(0))
            phase = "run" if w.active >= s.job_nodes else "staff"
            if phase == "run":
                tl.capacity_back(t)
            continue
        if phase == "staff":
            while w.active < s.job_nodes and (w.idle or w.standby):
                w.add_active((w.standby or w.idle).pop(0))
            while w.active < s.job_nodes and w.spare and t < end_h:
                t, cut = w.window(t, s.preempt_h, "preemption")
                w.counts["preemptions"] += 1
                w.idle.append(w.spare.pop(0))
                w.returns_until(t)
                while w.active < s.job_nodes and w.idle:
                    w.add_active(w.idle.pop(0))
                if cut:  # a node failed during the preemption: the recovery starts again
                    tl.fail(t, 1, False)
                    phase = "recover"
                    break
            if phase == "recover":
                continue
            if w.active < s.job_nodes:
                # too few nodes anywhere: stall until a repair returns one (to the end if none will)
                t_back = min(w.repairs[0][0], end_h) if w.repairs else end_h
                w.hours["stall"] += t_back - t
                t = t_back
                continue
            # the standbys, from the idle nodes and then the spare pool
            while len(w.standby) < s.warm_standbys and w.idle:
                w.standby.append(w.idle.pop(0))
            while len(w.standby) < s.warm_standbys and w.spare and t < end_h:
                t, cut = w.window(t, s.preempt_h, "preemption")
                w.counts["preemptions"] += 1
                w.standby.append(w.spare.pop(0))
                if cut:
                    tl.fail(t, 1, False)
                    phase = "recover"
                    break
            if phase == "recover" or w.active < s.job_nodes:
                phase = "recover"
                continue
            w.counts["host_selections"] += 1
            t, cut = w.window(t, s.host_h, "host_selection")
            if cut:
                tl.fail(t, 1, False)
                phase = "recover"
                continue
            tl.capacity_back(t)
            phase = "run"
            continue
        # phase == "run": train until the next failure, the work's end or the run's
        dt, bad = w.next_failure()
        t_done = math.inf
        if s.work_h is not None:
            left = max(s.work_h - tl.useful_h, 0.0)
            segs = math.ceil(left / s.interval_h) - 1 if math.isfinite(s.interval_h) and left > 0 else 0
            t_done = tl.ready_at + left + max(segs, 0) * s.write_h
        t_fail = t + dt
        if t_done <= t_fail and t_done <= end_h:
            t = t_done
            done = True
            break
        if t_fail >= end_h:
            t = end_h
            break
        t = t_fail
        w.fail_one(t, bad)
        w.counts["interruptions"] += 1
        tl.fail(t, 0, False)
        phase = "recover"
        if progress is not None and w.counts["interruptions"] >= next_progress:
            next_progress += _PROGRESS_EVERY
            progress(t / end_h)
    t_end = min(t, end_h)
    tl.finish(t_end)
    if progress is not None:
        progress(1.0)
    return _pool_result(s, w, tl, t_end, done)


def _pool_result(s: PoolSetup, w: _Walk, tl: JobTimeline, t_end: float, done: bool) -> ReplicaResult:
    c, h = w.counts, w.hours
    g = s.job_nodes * s.gpus_per_node
    wall = t_end if t_end > 0 else 1.0
    n_int = c["interruptions"]
    lost_h = tl.lost_work_h + tl.down_h
    metrics = {
        "ettr": tl.useful_h / wall,
        "interruptions": float(n_int),
        "interruptions_per_day": n_int / (wall / 24.0),
        "failures_during_recovery": float(c["failures_during_recovery"]),
        "bad_server_failures": float(c["bad_server_failures"]),
        "lost_gpu_hours": lost_h * g,
        "mean_lost_hours_per_interruption": lost_h / n_int if n_int else 0.0,
        "lost_work_hours": tl.lost_work_h,
        "downtime_hours": tl.down_h,
        "recovery_hours": h["recovery"],
        "host_selection_hours": h["host_selection"],
        "preemption_hours": h["preemption"],
        "waiting_for_capacity_hours": h["stall"],
        "checkpoint_overhead_hours": tl.overhead_h,
        "useful_gpu_hours": tl.useful_h * g,
        "useful_eflop": tl.useful_h * 3600.0 * s.job_tflops * 1e12 / 1e18,
        "job_gpus": float(g),
        "job_nodes": float(s.job_nodes),
        "spare_nodes": float(s.warm_standbys + s.headroom + s.spare_pool),
        "spare_pool_left": float(len(w.spare)),
        "host_selections": float(c["host_selections"]),
        "preemptions": float(c["preemptions"]),
        "auto_repairs": float(c["auto_repairs"]),
        "manual_repairs": float(c["manual_repairs"]),
        "missed_repairs": float(c["missed_repairs"]),
        "bad_servers_left": float(w.bad.sum()),
        "job_mtbf_hours_expected": 1.0 / (s.base_rate_per_hour * s.job_nodes)
        if s.base_rate_per_hour > 0
        else math.inf,
        "checkpoint_interval_minutes": s.interval_h * 60.0,
        "run_days": t_end / 24.0,
        "facility_outages": 0.0,
    }
    if s.work_h is not None:
        metrics["work_done_fraction"] = min(1.0, tl.useful_h / s.work_h)
        if done:
            metrics["time_to_train_days"] = t_end / 24.0
    metrics = {k: v for k, v in metrics.items() if math.isfinite(v)}
    by_cause = {}
    good = n_int + c["failures_during_recovery"] - c["bad_server_failures"]
    if good:
        by_cause["node"] = float(good)
    if c["bad_server_failures"]:
        by_cause["bad_node"] = float(c["bad_server_failures"])
    t_grid = np.linspace(0.0, t_end, s.series_points)
    trace_t, trace_useful = tl.trace()
    useful = np.interp(t_grid, trace_t, trace_useful)
    with np.errstate(invalid="ignore", divide="ignore"):
        ettr_series = np.where(t_grid > 0, useful / np.where(t_grid > 0, t_grid, 1.0), 1.0)
    fail_t = trace_t[1:-1]
    series = {
        "t_hours": t_grid,
        "interruptions": np.searchsorted(fail_t, t_grid, side="right").astype(float),
        "useful_hours": useful,
        "ettr": ettr_series,
    }
    events = n_int + c["failures_during_recovery"] + c["repairs_done"]
    return ReplicaResult(metrics=metrics, by_cause=by_cause, series=series, events=events)


def setup_from_plan(plan) -> PoolSetup:
    """The walk's setup from a failure_cascade plan (``plan.CascadePlan``) whose parameters name a
    ``server_pool``: the job's nodes and GPUs, its spare nodes as the working pool's headroom, its
    checkpointing and restart, and the base node rate (``node_mtbf_hours`` or the job's classes over its
    nodes)."""
    p = plan.params
    sp = p.server_pool
    job_rate = plan.job_rate_per_hour
    base = 1.0 / sp.node_mtbf_hours if sp.node_mtbf_hours is not None else job_rate / plan.job_nodes
    headroom = plan.spare_nodes - sp.warm_standbys - sp.spare_pool_nodes
    interval_h = plan.interval_h
    if p.checkpoint_interval_minutes == "optimal" and p.recovery != "in_memory":
        rate = base * plan.job_nodes * (1.0 + sp.bad_server_fraction * (sp.bad_server_rate_multiple - 1.0))
        interval_h = max(
            young_daly_interval_hours(plan.write_h, 1.0 / rate if rate > 0 else math.inf),
            p.step_seconds / 3600.0,
        )
    return PoolSetup(
        job_nodes=plan.job_nodes,
        warm_standbys=sp.warm_standbys,
        headroom=max(headroom, 0),
        spare_pool=sp.spare_pool_nodes,
        base_rate_per_hour=base,
        bad_fraction=sp.bad_server_fraction,
        bad_multiple=sp.bad_server_rate_multiple,
        auto_h=sp.auto_repair_hours,
        manual_h=sp.manual_repair_hours,
        p_escalate=sp.escalation_probability,
        p_auto_miss=sp.auto_repair_fail_probability,
        p_manual_miss=sp.manual_repair_fail_probability,
        restart_h=plan.restart_h + plan.copy_h,
        host_h=sp.host_selection_minutes / 60.0,
        preempt_h=sp.preemption_minutes / 60.0,
        interval_h=interval_h,
        write_h=plan.write_h,
        step_h=p.step_seconds / 3600.0,
        in_memory=p.recovery == "in_memory",
        weibull_shape=p.weibull_shape if p.failure_distribution == "weibull" else None,
        during_recovery=p.failures_during_recovery,
        work_h=p.work_days * 24.0 if p.work_days is not None else None,
        duration_h=p.duration_days * 24.0,
        gpus_per_node=plan.job_gpus / plan.job_nodes,
        job_tflops=plan.job_tflops,
        series_points=p.series_points,
    )
