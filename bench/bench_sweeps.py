"""A sweep end to end: failure_cascade on a generated 100k-GPU campus, 20 checkpoint intervals x 50 replicas of
one year each (1,000 replica-years), through two Celery worker processes, the same path as the API (a queued
Run with a sweep -> start_run -> chunks -> per-point fan-in). Target (issue "Scale and speed"): <= 30 s.

Makes sure the campus exists (``manage.py generate_campus --gpus 100000``), starts ``--workers`` Celery worker
processes (concurrency 1 each) against the database and broker of the environment, launches the sweep and
prints: points, replicas, replica-years, wall time from launch to *succeeded*, replica-years per second, the
engine's own time summed over the replicas and its share of wall time x workers (the rest: snapshot,
``prepare`` of each point, queueing, storing, fan-in), then the mean lost work per interruption at a few
points. A benchmark, not a test: it asserts nothing.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin_bench REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python bench/bench_sweeps.py [--points 20 --replicas 50 --days 365]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

from bench.bench_runs import ensure_campus, start_workers, stop_workers, timed_run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--campus", default="Bench campus 100k")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--points", type=int, default=20)
    parser.add_argument("--replicas", type=int, default=50, help="Replicas at each point.")
    parser.add_argument("--days", type=float, default=365.0, help="Simulated days per replica.")
    parser.add_argument("--deadline", type=float, default=3600.0, help="Give up on the sweep after this, s.")
    args = parser.parse_args()

    import django

    django.setup()
    from simulations.models import Scenario

    campus_id = ensure_campus(args.campus, args.gpus)
    scenario, _ = Scenario.objects.update_or_create(
        campus_id=campus_id,
        name=f"bench sweep failure_cascade {args.days:g} d",
        defaults={"kind": "failure_cascade", "params": {"duration_days": args.days}},
    )
    sweep = {
        "parameters": [{"name": "checkpoint_interval_minutes", "start": 15, "stop": 300, "num": args.points}]
    }
    workers = start_workers(args.workers)
    try:
        time.sleep(5)  # let the workers connect; the sweep would otherwise pay for their start-up
        wall, run = timed_run(scenario, args.replicas, args.deadline, sweep=sweep)
    finally:
        stop_workers(workers)
    if run.status != "succeeded":
        print(f"sweep run {run.pk} ended {run.status} {run.error}".strip())
        return
    years = run.replicas * args.days / 365.0
    engine = run.summary["compute_s"]
    print(f"\nfailure_cascade sweep on campus {campus_id} ({args.gpus} GPUs), run {run.pk}\n")
    header = (
        f"{'points':>7}{'replicas':>9}{'replica-yr':>11}{'workers':>8}{'wall s':>9}{'replica-yr/s':>13}"
        f"{'engine s':>10}{'engine share':>13}"
    )
    print(header)
    print("-" * len(header))
    share = engine / (wall * args.workers) if wall > 0 else 0.0
    print(
        f"{len(run.summary['points']):>7}{run.replicas:>9}{years:>11.1f}{args.workers:>8}{wall:>9.2f}"
        f"{years / wall:>13.2f}{engine:>10.2f}{share:>13.0%}"
    )
    print(f"\n{'interval min':>13}{'lost h / interruption':>23}{'95 % CI':>22}{'ETTR':>8}")
    points = run.summary["points"]
    for point in points[:: max(1, len(points) // 5)]:
        s = point["summary"]
        lost = s["mean_lost_hours_per_interruption"]
        print(
            f"{point['params']['checkpoint_interval_minutes']:>13.0f}{lost['mean']:>23.3f}"
            f"{lost['ci95_low']:>11.3f}-{lost['ci95_high']:<10.3f}{s['ettr']['mean']:>8.4f}"
        )


if __name__ == "__main__":
    main()
