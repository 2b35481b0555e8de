"""Scenario engine benchmark: failure_cascade replica-years per second on a synthetic 100k-GPU campus, with
one and two processes, and the engine's events per second against bare SimPy timeouts in the same run.

    .venv/bin/python bench/bench_engine.py [--gpus 100000] [--replicas 1000] [--per-event 20] [--days 365]

Engine events are the failures and repairs a replica goes through (every failure of every class, every repair
due within the run), each booked on the job: the same count whichever walk books them. The batched walk
(``failure_cascade.run``) steps SimPy only on the events that can change the capacity or end a wait and books
the stretches of job failures between them in one vectorised step; the per-event walk
(``failure_cascade.run_per_event``) steps SimPy on every one of them. Bare SimPy is one process yielding
``env.timeout`` as many times as the batched walk had events, timed in the same process run.

Prints a table; asserts nothing (timings depend on the machine).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simpy  # noqa: E402

from campus.analysis.synthetic import synthetic_campus  # noqa: E402
from simulations.engine.kinds.failure_cascade import model as failure_cascade  # noqa: E402
from simulations.engine.runner import aggregate, prepare, replica_seed  # noqa: E402

_PREPARED = None


def _init(gpus: int, days: float) -> None:
    global _PREPARED
    snap = synthetic_campus(gpus)
    _PREPARED = prepare(snap, "failure_cascade", {"duration_days": days})


def _one(index: int):
    return _PREPARED.run(replica_seed(2026, index))


def bare_simpy_timeouts_per_s(n: int) -> float:
    env = simpy.Environment()

    def proc(env):
        for _ in range(n):
            yield env.timeout(1.0)

    env.process(proc(env))
    t0 = time.perf_counter()
    env.run()
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=100_000)
    ap.add_argument("--replicas", type=int, default=1000)
    ap.add_argument("--per-event", type=int, default=20, help="replicas of the per-event walk")
    ap.add_argument("--days", type=float, default=365.0)
    args = ap.parse_args()
    years = args.replicas * args.days / 365.0
    load_before = os.getloadavg()[0]

    t0 = time.perf_counter()
    snap = synthetic_campus(args.gpus)
    t_snap = time.perf_counter() - t0
    t0 = time.perf_counter()
    prepared = prepare(snap, "failure_cascade", {"duration_days": args.days})
    t_prep = time.perf_counter() - t0
    plan = prepared.plan

    t0 = time.perf_counter()
    units = plan.warm_impacts()
    t_warm = time.perf_counter() - t0

    # the batched walk (what runs use) and the per-event walk on the first replicas, then bare SimPy
    t0 = time.perf_counter()
    results = [prepared.run(replica_seed(2026, i)) for i in range(args.replicas)]
    t_one = time.perf_counter() - t0
    events = sum(r.events for r in results)
    k = min(args.per_event, args.replicas)
    t0 = time.perf_counter()
    per_event = [failure_cascade.run_per_event(plan, replica_seed(2026, i)) for i in range(k)]
    t_per_event = time.perf_counter() - t0
    events_pe = sum(r.events for r in per_event)
    same_walk = all(
        a.metrics == b.metrics and a.by_cause == b.by_cause and a.events == b.events
        for a, b in zip(results, per_event, strict=False)
    )
    bare = bare_simpy_timeouts_per_s(events)
    engine_eps = events / t_one
    per_event_eps = events_pe / t_per_event

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    t0 = time.perf_counter()
    with ctx.Pool(2, initializer=_init, initargs=(args.gpus, args.days)) as pool:
        two = pool.map(_one, range(args.replicas), chunksize=max(1, args.replicas // 8))
    t_two_total = time.perf_counter() - t0
    same = all(a.metrics == b.metrics for a, b in zip(results, two, strict=True))

    agg = aggregate(results)
    rows = [
        ("campus GPUs", f"{plan.job_gpus:,}"),
        ("failure classes", f"{len(plan.classes)}"),
        ("snapshot build, s", f"{t_snap:.2f}"),
        ("prepare, s", f"{t_prep:.3f}"),
        (f"impact table of {units} facility units, s", f"{t_warm:.2f}"),
        ("replica-years simulated", f"{years:,.0f}"),
        ("engine events (failures + repairs)", f"{events:,}"),
        ("1 process: wall (impact table warm), s", f"{t_one:.2f}"),
        ("1 process: replica-years/s", f"{years / t_one:.1f}"),
        ("1 process: ms per replica", f"{t_one / args.replicas * 1000:.2f}"),
        ("2 processes: wall incl. pool start, prepare, impacts, s", f"{t_two_total:.2f}"),
        ("2 processes: replica-years/s", f"{years / t_two_total:.1f}"),
        ("2 processes: same results as 1", "yes" if same else "NO"),
        ("bare SimPy timeouts/s (as many as the engine's events)", f"{bare:,.0f}"),
        ("engine events/s, batched walk (1 process)", f"{engine_eps:,.0f}"),
        ("engine / bare SimPy ratio, batched walk", f"{engine_eps / bare:.2f}"),
        ("SimPy steps per replica, batched walk", f"{plan_steps(plan, args.replicas):.1f}"),
        (f"engine events/s, per-event walk ({k} replicas)", f"{per_event_eps:,.0f}"),
        ("engine / bare SimPy ratio, per-event walk", f"{per_event_eps / bare:.2f}"),
        ("per-event walk gives the same replicas", "yes" if same_walk else "NO"),
        ("mean ETTR", f"{agg['ettr']['mean']:.3f}"),
        ("mean interruptions per replica", f"{agg['interruptions']['mean']:,.0f}"),
        ("load average (1 min) before / after", f"{load_before:.1f} / {os.getloadavg()[0]:.1f}"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'metric':<{width}}  value")
    print(f"{'-' * width}  {'-' * 12}")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def plan_steps(plan, replicas: int) -> float:
    """SimPy steps the batched walk takes per replica (a few replicas, counted by a wrapped clock)."""
    n = min(replicas, 10)
    steps = 0
    original = simpy.Environment.step

    def counting(self):
        nonlocal steps
        steps += 1
        return original(self)

    simpy.Environment.step = counting
    try:
        for i in range(n):
            failure_cascade.run(plan, replica_seed(2026, i))
    finally:
        simpy.Environment.step = original
    return steps / n


if __name__ == "__main__":
    main()
