"""Replay benchmark: a measured campus series (5-minute means, a seeded random walk around 80 MW) as the load
of power_dynamics and grid_limit on a synthetic 10k-GPU campus (docs/live.md, "Replay"). Per case: the steps
simulated, the wall time and steps per second. The database read and the gap filling are not in it (a
year of 5-minute means is 105,120 rows, one indexed query).

    .venv/bin/python bench/bench_replay.py [--days 1,7]

Prints a table; asserts nothing (timings depend on the machine and its load).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from campus.analysis.synthetic import synthetic_campus  # noqa: E402
from simulations.engine.runner import prepare  # noqa: E402


def series(days: float, seed: int = 1) -> list[float]:
    rng = np.random.default_rng(seed)
    n = int(days * 288)
    walk = np.cumsum(rng.normal(0.0, 400.0, n))
    return [float(v) for v in np.clip(80_000.0 + walk - walk.mean(), 0.0, None)]


def cases(days: float) -> list[tuple[str, str, dict]]:
    source = {"kind": "series", "step_seconds": 300.0, "values_kw": series(days)}
    return [
        (
            "power_dynamics",
            "100 ms, no search",
            {"load_source": source, "resolution_ms": 100.0, "search": False},
        ),
        (
            "power_dynamics",
            "1 s, battery search",
            {"load_source": source, "resolution_ms": 1000.0, "search": True},
        ),
        (
            "grid_limit",
            "1 min, cap",
            {"load_source": source, "step_minutes": 1.0, "policy": "cap", "events": []},
        ),
        (
            "grid_limit",
            "5 min, flexibility",
            {"load_source": source, "step_minutes": 5.0, "policy": "flexibility", "capacity_kw": 80_000.0},
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", default="1,7")
    args = parser.parse_args()
    snap = synthetic_campus(10_000)
    print(f"{'days':>5} {'kind':<15} {'case':<22} {'steps':>10} {'wall s':>8} {'steps/s':>12}")
    for days in (float(d) for d in args.days.split(",")):
        for kind, label, params in cases(days):
            prepared = prepare(snap, kind, params)
            t0 = time.perf_counter()
            result = prepared.run(0)
            wall = time.perf_counter() - t0
            steps = result.events
            print(f"{days:>5g} {kind:<15} {label:<22} {steps:>10,} {wall:>8.2f} {steps / wall:>12,.0f}")


if __name__ == "__main__":
    main()
