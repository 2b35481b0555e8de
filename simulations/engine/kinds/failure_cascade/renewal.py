"""The renewal walk of failure_cascade: the failure-class model (job classes and propagated facility
failures) with Weibull failure times and a run that ends when the work is done (``work_days``).

The job's failures are not a superposition of Poisson processes any more once their times are Weibull,
so they are drawn as the walk goes, a renewal process: the job's time to its next failure is the first
of its nodes' failure times, each node Weibull of shape k mean-matched to the node MTBF (the job's rate
over its nodes), and the first of n Weibull(k, α) times is Weibull(k, α·n^(−1/k)), one draw whatever the
job's size. The nodes' ages start afresh at every interruption, as in the server-pool walk and the
reference simulator. The failing class is drawn in proportion to the classes' rates. Exponential times
(k = 1) give back the Poisson walk's statistics.

``failures_during_recovery``: True, the job's clock runs through its restarts and waits (a failure
during one starts the recovery again and is counted apart, in ``failures_during_recovery``); False, it
runs only while the job trains: the next failure is drawn when the job is training again, and facility
failures that darken the job's racks while it recovers take capacity away without interrupting it.

Facility failures and repairs do not depend on the job: which racks are dark when is worked out up
front (``books.facility_changes``: every unit down at one time judged together, against the campus as
it is then, not an intact one), and the walk steps through them beside the job's failures and the node
repairs (``hot_spares`` recovery). With ``work_days`` the run ends when the committed work reaches it
(time to train), at most ``duration_days``.

A plain event loop over the three sorted streams (facility changes, a heap of node repairs, the job's
next failure), not SimPy: one process (the job), and its next failure is drawn from its own state.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from simulations.engine.job import JobTimeline
from simulations.engine.kinds.failure_cascade.books import book, draw, facility_changes, result
from simulations.engine.kinds.failure_cascade.plan import JOB, CascadePlan
from simulations.engine.results import Progress, ReplicaResult

_PROGRESS_EVERY = 4096


class _JobClock:
    """The job's next failure: exponential at the job's rate, or the first of its nodes' Weibull times."""

    def __init__(self, plan: CascadePlan, rng: np.random.Generator) -> None:
        p = plan.params
        self.rng = rng
        job = [i for i, c in enumerate(plan.classes) if c.target == JOB]
        rates = np.array([plan.classes[i].rate_per_hour for i in job], dtype=float)
        self.classes = np.array(job, dtype=np.int64)
        self.rate = float(rates.sum())
        self.cum = np.cumsum(rates) / self.rate if self.rate > 0 else rates
        self.shape = p.weibull_shape if p.failure_distribution == "weibull" else None
        if self.shape is not None and self.rate > 0:
            n = max(plan.job_nodes, 1)
            node_mean = n / self.rate
            # Weibull scale of one node, mean-matched, then of the first of n nodes
            self.scale = node_mean / math.gamma(1.0 + 1.0 / self.shape) * n ** (-1.0 / self.shape)

    def next_after(self, t: float) -> float:
        if self.rate <= 0:
            return math.inf
        if self.shape is None:
            return t + float(self.rng.exponential(1.0 / self.rate))
        return t + self.scale * float(self.rng.weibull(self.shape))

    def cause(self) -> int:
        k = int(np.searchsorted(self.cum, self.rng.random(), side="right"))
        return int(self.classes[min(k, self.classes.size - 1)])


def _time_done(tl: JobTimeline, work_h: float) -> float:
    """When the job, training from ``ready_at`` without a failure, commits ``work_h`` in all."""
    left = max(work_h - tl.useful_h, 0.0)
    segs = math.ceil(left / tl.interval_h) - 1 if math.isfinite(tl.interval_h) and left > 0 else 0
    return tl.ready_at + left + max(segs, 0) * tl.write_h


def run_renewal(plan: CascadePlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """One replica of the renewal walk (see the module's docstring)."""
    p = plan.params
    duration_h = p.duration_days * 24.0
    work_h = p.work_days * 24.0 if p.work_days is not None else None
    # the facility's failures as the other walks draw them (the seed's first stream); the job's own from
    # a second stream
    fac_events, fac_repairs_done = facility_changes(plan, draw(plan, seed), duration_h)
    clock = _JobClock(plan, np.random.default_rng([seed, 1]))
    tl = plan.timeline()
    extra_h = plan.copy_h
    during = p.failures_during_recovery
    a = plan.arrays
    consumes = a.consumes.tolist()
    repair = a.repair_hours.tolist()
    eligible_by_rack = plan.eligible_by_rack
    need, eligible = plan.job_nodes, plan.eligible_nodes
    node_repairs: list[float] = []
    down = 0
    inf = math.inf
    nf = len(fac_events)
    fi = 0
    t_job = clock.next_after(0.0)
    wait_h, wait_since = 0.0, -1.0
    outages = job_failures = node_repairs_done = 0
    next_progress = _PROGRESS_EVERY
    t_end, done = duration_h, False

    def rearm(t: float) -> float:
        """The job's next failure after an interruption at ``t``: from ``t`` when failures strike during
        recovery; else from the restart's end, or never while the job waits for capacity (the clock is
        re-armed when capacity comes back)."""
        if during:
            return clock.next_after(t)
        return inf if tl.waiting else clock.next_after(tl.ready_at)

    def settle(was_waiting: bool, t: float) -> None:
        nonlocal wait_h, wait_since
        if tl.waiting and not was_waiting:
            wait_since = t
        elif was_waiting and not tl.waiting:
            wait_h += t - wait_since

    while True:
        t_f = fac_events[fi][0] if fi < nf else inf
        t_r = node_repairs[0] if node_repairs else inf
        t = min(t_f, t_r, t_job)
        if work_h is not None and not tl.waiting:
            t_done = _time_done(tl, work_h)
            if t_done <= t and t_done <= duration_h:
                t_end, done = t_done, True
                break
        if t >= duration_h:
            break
        was_waiting = tl.waiting
        if t_r <= t_f and t_r <= t_job:  # a node back from repair (repairs come first)
            heapq.heappop(node_repairs)
            node_repairs_done += 1
            down -= 1
            if tl.waiting and eligible - down >= need:
                tl.capacity_back(t, extra_h)
                if not during:
                    t_job = clock.next_after(tl.ready_at)
        elif t_f <= t_job:  # the facility: racks go dark or come back
            _, racks, darkens, c, hit = fac_events[fi]
            fi += 1
            nodes = sum(eligible_by_rack[rid] for rid in racks)
            if not darkens:
                down -= nodes
                if tl.waiting and eligible - down >= need:
                    tl.capacity_back(t, extra_h)
                    if not during:
                        t_job = clock.next_after(tl.ready_at)
            else:
                outages += 1
                down += nodes
                training = not tl.waiting and t >= tl.ready_at
                strikes = hit and (during or training)
                book(tl, t, c, strikes, eligible - down >= need, extra_h)
                if strikes or (tl.waiting and not during):
                    t_job = rearm(t)
        else:  # the job's own failure
            job_failures += 1
            c = clock.cause()
            if consumes[c]:
                down += 1
                heapq.heappush(node_repairs, t + repair[c])
            tl.fail(t, c, eligible - down >= need, extra_h)
            t_job = rearm(t)
            if progress is not None and job_failures >= next_progress:
                next_progress += _PROGRESS_EVERY
                progress(t / duration_h)
        settle(was_waiting, t)
    if tl.waiting:
        wait_h += t_end - wait_since
    tl.finish(t_end)
    if progress is not None:
        progress(1.0)
    repairs_in_run = node_repairs_done + sum(1 for r in node_repairs if r < t_end)
    state = {
        "events": job_failures + nf + fac_repairs_done + repairs_in_run,
        "steps": job_failures + nf + node_repairs_done,
        "wait_h": wait_h,
        "outages": outages,
    }
    out = result(plan, tl, t_end, state)
    out.metrics["run_days"] = t_end / 24.0
    if work_h is not None:
        out.metrics["work_done_fraction"] = min(1.0, tl.useful_h / work_h)
        if done:
            out.metrics["time_to_train_days"] = t_end / 24.0
    return out
