"""The failure_cascade model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.failure_cascade``).
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import simpy

from simulations.engine.job import (
    JobTimeline,
)
from simulations.engine.kinds.failure_cascade.books import Draws, book, draw, facility_changes, result
from simulations.engine.kinds.failure_cascade.expected import pool_expected
from simulations.engine.kinds.failure_cascade.facility import FacilityDown
from simulations.engine.kinds.failure_cascade.params import FailureCascadeParams
from simulations.engine.kinds.failure_cascade.plan import (
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
from simulations.engine.kinds.failure_cascade.renewal import run_renewal
from simulations.engine.kinds.failure_cascade.servers import run_pool
from simulations.engine.results import Progress, ReplicaResult

# the kind's public names, those of its plan (simulations.engine.kinds.failure_cascade.plan) included
__all__ = [
    "COOLING_PLANT",
    "COOLING_UNIT",
    "CascadePlan",
    "DEAD_RACK_STATUSES",
    "Draws",
    "DEFAULT_HOT_SPARE_FRACTION",
    "FACILITY_COMPONENTS",
    "FailureClass",
    "JOB",
    "JOB_UNITS",
    "LEAF_DOWNLINKS",
    "POWER_DEVICE",
    "UTILITY_FEED",
    "draw",
    "prepare",
    "stochastic",
    "run",
    "run_per_event",
    "sample_failures",
]


# A replica-year of a 100k-GPU campus takes milliseconds: a run's chunks hold at least this many replicas
# (simulations.runs.launch.chunk_size_for), so the per-chunk cost is shared.
MIN_CHUNK_REPLICAS = 100


def stochastic(params: FailureCascadeParams) -> bool:
    """Yes: failures and repairs are drawn at random."""
    return True


_PROGRESS_EVERY = 4096
# Job failures booked in one vectorised step at most (progress is reported between two steps).
_BATCH = 4096


# ---------------------------------------------------------------- one replica


def run(plan: CascadePlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """One replica (:func:`walk`), with the job's MFU, checkpoint write and restart and their sources in
    its details (``job``: typed, from the hardware or the catalog's)."""
    out = walk(plan, seed, progress)
    out.details = {**out.details, "job": plan.job}
    return out


def walk(plan: CascadePlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """One replica: the SimPy process steps from one event that can change the capacity or end a wait to
    the next (facility failures and repairs, node repairs while the job waits for them, a failure that
    finds too few healthy nodes), and books each stretch of job failures between two such events in one
    vectorised step (:meth:`JobTimeline.fail_run`): inside a stretch every failure finds the capacity to
    restart, so nothing but the job's own books changes. Gives the same result as
    :func:`run_per_event`, which steps on every failure and repair.

    With a ``server_pool`` the replica is the server-pool walk (:mod:`.servers`); with Weibull failure
    times or ``work_days`` it is the renewal walk (:mod:`.renewal`); with
    ``failures_during_recovery`` off it is the event-by-event walk, which drops the failures that come
    while the job is not training (the thinning of a Poisson process by the job's downtime)."""
    p = plan.params
    if p.server_pool is not None:
        out = run_pool(plan.pool_setup, seed, progress)
        # the closed form beside the simulated ETTR, and whether the spares run dry (.expected)
        out.metrics.update(pool_expected(plan.pool_setup))
        return out
    if p.failure_distribution == "weibull" or p.work_days is not None:
        return run_renewal(plan, seed, progress)
    if not p.failures_during_recovery:
        return run_per_event(plan, seed, progress)
    d = draw(plan, seed)
    duration_h = p.duration_days * 24.0
    a = plan.arrays
    tl = plan.timeline()
    extra_h = plan.copy_h
    eligible_by_rack = plan.eligible_by_rack
    # nodes that may be down with the job still able to run (restart) on the rest
    slack = plan.eligible_nodes - plan.job_nodes
    jt, jc = d.job_t, d.job_c
    nj = int(jt.size)
    # The facility's failures and repairs do not depend on the job: which racks are dark when is worked
    # out up front (every unit down at one time judged together, :func:`facility_changes`), and only the
    # failures and repairs that change the dark racks are events of the walk.
    nf_all = len(d.fac_t)
    fac_events, fac_repairs_done = facility_changes(plan, d, duration_h)
    fac_t = [e[0] for e in fac_events]
    nf = len(fac_t)
    # Nodes out for repair ("hot_spares"): every failure of a node-consuming class takes one node out
    # until its repair; the count does not depend on the job, so it is known at every failure up front.
    cons = a.consumes[jc] if nj else np.empty(0, dtype=bool)
    if cons.any():
        node_rep = np.sort(jt[cons] + a.repair_hours[jc[cons]])
        consumed = np.zeros(nj + 1, dtype=np.int64)  # consuming failures among the first k
        np.cumsum(cons, out=consumed[1:])
        # nodes out right after each failure (a repair due at the very time of a failure comes first)
        node_down_at = consumed[1:] - np.searchsorted(node_rep, jt, side="right")
    else:
        node_rep = np.empty(0)
        consumed = None
        node_down_at = None
    n_node_rep = int(node_rep.size)
    bad_cache: dict[int, np.ndarray] = {}

    def first_short(i: int, rack_down: int) -> int:
        """Index of the first job failure from ``i`` that leaves too few healthy nodes to restart."""
        room = slack - rack_down
        if node_down_at is None:
            return i if room < 0 else nj
        bad = bad_cache.get(room)
        if bad is None:
            bad = bad_cache[room] = np.flatnonzero(node_down_at > room)
        k = int(np.searchsorted(bad, i))
        return int(bad[k]) if k < bad.size else nj

    def node_down(i: int, t: float) -> int:
        """Nodes out for repair at ``t`` with the first ``i`` job failures done."""
        if consumed is None:
            return 0
        return int(consumed[i]) - int(np.searchsorted(node_rep, t, side="right"))

    state: dict[str, float] = {}

    def proc(env: simpy.Environment):
        i = 0  # next job failure
        fi = 0  # next facility failure
        pr = 0  # node repairs done (kept only while the job waits: otherwise they change nothing)
        rack_down = 0
        steps = 0
        wait_h = 0.0
        wait_since = -1.0
        outages = 0
        next_progress = _BATCH
        inf = math.inf
        while True:
            if progress is not None and i >= next_progress:
                next_progress = i + _BATCH
                progress(env.now / duration_h)
            t_fe = fac_t[fi] if fi < nf else inf
            if not tl.waiting:
                # job failures before the next facility event, up to the first one that finds the
                # capacity short (a repair at the very time of a failure comes first)
                j_end = int(np.searchsorted(jt, t_fe, side="left")) if i < nj else i
                j_end = min(j_end, i + _BATCH)
                if j_end > i:
                    j_stop = min(j_end, first_short(i, rack_down))
                    if j_stop > i:
                        yield env.timeout(float(jt[j_stop - 1]) - env.now)
                        steps += 1
                        tl.fail_run(jt[i:j_stop], jc[i:j_stop], extra_h)
                        i = j_stop
                        continue
                    t = float(jt[i])
                    yield env.timeout(t - env.now)
                    steps += 1
                    tl.fail(t, int(jc[i]), False, extra_h)
                    i += 1
                    wait_since = t
                    pr = int(np.searchsorted(node_rep, t, side="right"))
                    continue
            else:
                t_nr = float(node_rep[pr]) if pr < n_node_rep else inf
                # the job keeps waiting until a repair: the failures before the next one only add up
                j_end = int(np.searchsorted(jt, min(t_fe, t_nr), side="left")) if i < nj else i
                j_end = min(j_end, i + _BATCH)
                if j_end > i:
                    yield env.timeout(float(jt[j_end - 1]) - env.now)
                    steps += 1
                    tl.fail_waiting_run(jt[i:j_end], jc[i:j_end])
                    i = j_end
                    continue
                # a node repair comes before a facility failure at the same time, after a facility repair
                first = t_nr < t_fe or (t_nr == t_fe and fi < nf and not fac_events[fi][2])
                if first and t_nr < duration_h:
                    yield env.timeout(t_nr - env.now)
                    steps += 1
                    pr += 1
                    if int(consumed[i]) - pr + rack_down <= slack:
                        tl.capacity_back(t_nr, extra_h)
                        wait_h += t_nr - wait_since
                    continue
            # a facility event, or the end
            t = t_fe
            if t >= duration_h:
                break
            yield env.timeout(t - env.now)
            steps += 1
            _, racks, darkens, c, hit = fac_events[fi]
            fi += 1
            if not darkens:
                for rid in racks:
                    rack_down -= eligible_by_rack[rid]
                if tl.waiting and node_down(i, t) + rack_down <= slack:
                    tl.capacity_back(t, extra_h)
                    wait_h += t - wait_since
                continue
            outages += 1
            for rid in racks:
                rack_down += eligible_by_rack[rid]
            was_waiting = tl.waiting
            book(tl, t, c, hit, node_down(i, t) + rack_down <= slack, extra_h)
            if tl.waiting and not was_waiting:
                wait_since = t
                pr = int(np.searchsorted(node_rep, t, side="right"))
            elif was_waiting and not tl.waiting:
                wait_h += t - wait_since
        if tl.waiting:
            wait_h += duration_h - wait_since
        # every failure and every repair due within the run, whichever way it was booked
        node_repairs = int(np.searchsorted(node_rep, duration_h, side="left"))
        state["events"] = nj + nf_all + node_repairs + fac_repairs_done
        state["steps"] = steps
        state["wait_h"] = wait_h
        state["outages"] = outages

    return _simulate(proc, plan, tl, duration_h, state, progress)


def run_per_event(plan: CascadePlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """The same replica as :func:`run`, stepping the SimPy clock on every failure and every repair: the
    plain event-by-event walk :func:`run` must agree with (tests and ``bench/bench_engine.py`` compare
    them). A repair due at the very time of a failure comes first."""
    p = plan.params
    d = draw(plan, seed)
    duration_h = p.duration_days * 24.0
    classes = plan.classes
    a = plan.arrays
    # every failure in time order: job failures carry no unit, facility ones theirs
    times = np.concatenate((d.job_t, np.asarray(d.fac_t, dtype=float)))
    order = np.argsort(times, kind="stable")
    times = times[order].tolist()
    cls_l = np.concatenate((d.job_c, np.asarray(d.fac_c, dtype=np.int64)))[order].tolist()
    units = np.concatenate((np.zeros(d.job_t.size, dtype=np.int64), np.asarray(d.fac_u, dtype=np.int64)))[
        order
    ].tolist()

    tl = plan.timeline()
    extra_h = plan.copy_h
    target = [c.target for c in classes]
    repair = a.repair_hours.tolist()
    consumes = a.consumes.tolist()
    eligible_by_rack = plan.eligible_by_rack
    need = plan.job_nodes
    eligible = plan.eligible_nodes
    state: dict[str, float] = {}  # filled by the process when it ends
    fdown = FacilityDown(plan)
    repairs: list[tuple[float, int, tuple[int, int] | None]] = []  # (time, seq, (class, unit)); None: a node
    n = len(times)
    inf = math.inf
    strike_down = p.failures_during_recovery

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
                _, _, key = heapq.heappop(repairs)
                if key is not None:
                    for rid in fdown.repair(*key):
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
            down_now = tl.waiting or t < tl.ready_at
            if target[c] == JOB and down_now and not strike_down:
                continue  # the failure clock of the job's parts stops while it does not train
            if target[c] == JOB:
                if consumes[c]:
                    down += 1
                    seq += 1
                    heapq.heappush(repairs, (t + repair[c], seq, None))
                hit = True
            else:
                new, hit = fdown.fail(c, u)
                hit = hit and (strike_down or not down_now)
                if new:
                    outages += 1
                for rid in new:
                    down += eligible_by_rack[rid]
                seq += 1
                heapq.heappush(repairs, (t + repair[c], seq, (c, u)))
            was_waiting = tl.waiting
            book(tl, t, c, hit, eligible - down >= need, extra_h)
            if tl.waiting and not was_waiting:
                wait_since = t
            elif was_waiting and not tl.waiting:
                wait_h += t - wait_since
        if tl.waiting:
            wait_h += duration_h - wait_since
        state["events"] = events
        state["steps"] = events
        state["wait_h"] = wait_h
        state["outages"] = outages

    return _simulate(proc, plan, tl, duration_h, state, progress)


def _simulate(
    proc, plan: CascadePlan, tl: JobTimeline, duration_h: float, state: dict, progress
) -> ReplicaResult:
    """Run a walk's SimPy process to its end and read the replica off its timeline."""
    env = simpy.Environment()
    env.process(proc(env))
    env.run()
    tl.finish(duration_h)
    if progress is not None:
        progress(1.0)
    return result(plan, tl, duration_h, state)
