"""Scenario engine benchmark: failure_cascade replica-years per second on a synthetic 100k-GPU campus, with
one and two processes, and the engine's events per second against bare SimPy timeouts in the same run.

    .venv/bin/python bench/bench_engine.py [--gpus 100000] [--replicas 100] [--days 365]

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
from simulations.engine.runner import aggregate, prepare, replica_seed  # noqa: E402

_PREPARED = None


def _init(gpus: int, days: float) -> None:
    global _PREPARED
    snap = synthetic_campus(gpus)
    _PREPARED = prepare(snap, "failure_cascade", {"duration_days": days})


def _one(index: int):
    return _PREPARED.run(replica_seed(2026, index))


def bare_simpy_timeouts_per_s(n: int = 300_000) -> float:
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
    ap.add_argument("--replicas", type=int, default=100)
    ap.add_argument("--days", type=float, default=365.0)
    args = ap.parse_args()
    years = args.replicas * args.days / 365.0

    t0 = time.perf_counter()
    snap = synthetic_campus(args.gpus)
    t_snap = time.perf_counter() - t0
    t0 = time.perf_counter()
    prepared = prepare(snap, "failure_cascade", {"duration_days": args.days})
    t_prep = time.perf_counter() - t0

    t0 = time.perf_counter()
    units = prepared.plan.warm_impacts()
    t_warm = time.perf_counter() - t0

    bare = bare_simpy_timeouts_per_s()
    t0 = time.perf_counter()
    results = [prepared.run(replica_seed(2026, i)) for i in range(args.replicas)]
    t_one = time.perf_counter() - t0
    events = sum(r.events for r in results)
    engine_eps = events / t_one

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    t0 = time.perf_counter()
    with ctx.Pool(2, initializer=_init, initargs=(args.gpus, args.days)) as pool:
        two = pool.map(_one, range(args.replicas), chunksize=max(1, args.replicas // 8))
    t_two_total = time.perf_counter() - t0
    same = all(a.metrics == b.metrics for a, b in zip(results, two, strict=True))

    # The same, with the plan prepared and its impact table filled once in this process and inherited
    # by the forked workers (what a pre-forking worker pool can do).
    t_fork = None
    if ctx.get_start_method() == "fork":
        global _PREPARED
        _PREPARED = prepared
        t0 = time.perf_counter()
        with ctx.Pool(2) as pool:
            pool.map(_one, range(args.replicas), chunksize=max(1, args.replicas // 8))
        t_fork = time.perf_counter() - t0

    agg = aggregate(results)
    rows = [
        ("campus GPUs", f"{prepared.plan.job_gpus:,}"),
        ("failure classes", f"{len(prepared.plan.classes)}"),
        ("snapshot build, s", f"{t_snap:.2f}"),
        ("prepare, s", f"{t_prep:.3f}"),
        (f"impact table of {units} facility units, s", f"{t_warm:.2f}"),
        ("replica-years simulated", f"{years:.0f}"),
        ("events (failures + repairs)", f"{events:,}"),
        ("1 process: wall (impact table warm), s", f"{t_one:.2f}"),
        ("1 process: replica-years/s", f"{years / t_one:.2f}"),
        ("2 processes: wall incl. pool start, prepare, impacts, s", f"{t_two_total:.2f}"),
        ("2 processes: replica-years/s", f"{years / t_two_total:.2f}"),
        ("2 processes: same results as 1", "yes" if same else "NO"),
        (
            "2 processes, plan shared by fork: wall, s",
            f"{t_fork:.2f}" if t_fork is not None else "n/a (no fork)",
        ),
        ("2 processes, plan shared by fork: replica-years/s", f"{years / t_fork:.2f}" if t_fork else "n/a"),
        ("bare SimPy timeouts/s", f"{bare:,.0f}"),
        ("engine events/s (1 process)", f"{engine_eps:,.0f}"),
        ("engine / bare SimPy ratio", f"{engine_eps / bare:.2f}"),
        ("mean ETTR", f"{agg['ettr']['mean']:.3f}"),
        ("mean interruptions per replica", f"{agg['interruptions']['mean']:,.0f}"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'metric':<{width}}  value")
    print(f"{'-' * width}  {'-' * 12}")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


if __name__ == "__main__":
    main()
