"""grid_limit benchmark: one replica of each policy on a synthetic campus, a month of daily 3 h events at
1-minute steps (43,200 steps), and the battery-sizing curve through grid_limit.

    .venv/bin/python bench/bench_grid_limit.py [--gpus 16384] [--days 30]

Prints a table; asserts nothing (timings depend on the machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from campus.analysis import battery_sizing as bs  # noqa: E402
from campus.analysis.snapshot import EnergyStorageSnap  # noqa: E402
from campus.analysis.synthetic import synthetic_campus  # noqa: E402
from simulations.engine.runner import prepare, run_replica  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=16384)
    parser.add_argument("--days", type=int, default=30)
    args = parser.parse_args()
    snap = synthetic_campus(args.gpus)
    events = [{"start_hours": d * 24 + 14, "duration_hours": 3} for d in range(args.days)]
    rows = []
    for policy in ("cap", "pause", "ride_through", "flexibility"):
        params = {"duration_hours": 24 * args.days, "policy": policy, "events": events}
        plan = prepare(snap, "grid_limit", params)
        started = time.perf_counter()
        result = plan.run(1)
        seconds = time.perf_counter() - started
        rows.append((f"grid_limit {policy}", seconds, result.events / seconds))
    # the sizing curve: one 3 h event per battery size, as the calculator runs it with a campus
    need = bs.curtailment(0.25, 3.0)  # 1-minute steps of one 3 h event
    started = time.perf_counter()
    for s in bs.CURVE_SCALES:
        bess = (EnergyStorageSnap(0, "b", 1e3 * s, 3e3 * s, 0.85, 20.0, None, None),) if s else ()
        run_replica(
            "grid_limit",
            replace(snap, energy_storage=bess),
            {"duration_hours": 3, "events": [{"start_hours": 0, "duration_hours": 3, "share_of_load": 0.25}]},
            seed=1,
        )
    seconds = time.perf_counter() - started
    rows.append(
        (
            f"battery-sizing curve ({len(bs.CURVE_SCALES)} runs)",
            seconds,
            len(bs.CURVE_SCALES) * len(need.profile_mw) / seconds,
        )
    )
    print(f"{args.gpus:,} GPUs, {args.days} days at 1 min")
    print(f"{'case':<40} {'seconds':>10} {'steps/s':>12}")
    for name, seconds, rate in rows:
        print(f"{name:<40} {seconds:>10.2f} {rate:>12,.0f}")


if __name__ == "__main__":
    main()
