"""Monte Carlo throughput end to end: failure_cascade on a 100k-GPU campus, 1,000 replica-years on two worker
processes, through the same path as the API (a queued Run -> start_run -> chunks -> fan-in).

Makes sure the campus exists (``manage.py generate_campus --gpus 100000``), starts ``--workers`` Celery worker
processes (concurrency 1 each) against the database and broker of the environment, waits until each answers a
ping (their own start-up is not part of a run), runs each configuration of the table once and prints, per
row: replicas, simulated replica-years, wall time from launch to *succeeded*, replica-years per second, the
engine's own time summed over the replicas, the share of wall time x workers the engine used (the rest:
snapshot, queueing, storing, fan-in), the start and chunk phases, the number of chunks and the machine's load
average. The first row is the engine alone in this process (no Celery, no database), for reference. A
benchmark, not a test: it asserts nothing.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin_bench REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python bench/bench_runs.py

Without REDIS_URL the workers use the filesystem broker under var/celery.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
CELERY = str(Path(PYTHON).with_name("celery"))


def ensure_campus(name: str, gpus: int) -> int:
    from campus.models import Campus

    campus = Campus.objects.filter(name=name).first()
    if campus is not None:
        return campus.pk
    started = time.perf_counter()
    out = subprocess.run(
        [PYTHON, "manage.py", "generate_campus", "--name", name, "--gpus", str(gpus)],
        cwd=ROOT,
        env=os.environ.copy(),
        check=True,
        capture_output=True,
        text=True,
    )
    print(f"generated campus {name!r} ({gpus} GPUs) in {time.perf_counter() - started:.1f} s")
    return int(out.stdout.strip().splitlines()[-1])


def start_workers(count: int) -> list[subprocess.Popen]:
    procs = []
    for i in range(count):
        procs.append(
            subprocess.Popen(
                [
                    CELERY,
                    "-A",
                    "twin",
                    "worker",
                    "--loglevel",
                    "WARNING",
                    "--concurrency",
                    "1",
                    "--hostname",
                    f"bench{i}-{os.getpid()}@%h",
                    "--without-gossip",
                    "--without-mingle",
                ],
                cwd=ROOT,
                env=os.environ.copy(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
    return procs


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def wait_for_workers(count: int, timeout_s: float = 180.0) -> float:
    """Seconds until ``count`` workers answer a ping."""
    from twin.celery import app

    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        if len(app.control.ping(timeout=1.0) or []) >= count:
            break
    return time.perf_counter() - started


def engine_only(campus_id: int, params: dict, replicas: int) -> tuple[float, float]:
    """Wall time to prepare once and run ``replicas`` replicas here, and the snapshot build time."""
    from campus.snapshot_adapter import build_snapshot
    from simulations.engine import runner

    t0 = time.perf_counter()
    snap = build_snapshot(campus_id)
    snap_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    prepared = runner.prepare(snap, "failure_cascade", params)
    for i in range(replicas):
        prepared.run(runner.replica_seed(1, i))
    return time.perf_counter() - t1, snap_s


def timed_run(scenario, replicas: int, deadline_s: float, **launch) -> tuple[float, object]:
    """Launch a run of ``scenario`` (``launch``: more of ``launch_run``'s arguments, e.g. ``sweep``) and poll
    it until it has finished or ``deadline_s`` has passed: the wall time from launch and the run."""
    from django.db import transaction

    from simulations import runs as services
    from simulations.models import Run

    started = time.perf_counter()
    with transaction.atomic():
        run = services.launch_run(scenario, replicas=replicas, seed=1, **launch)
    while time.perf_counter() - started < deadline_s:
        run = Run.objects.defer("snapshot").get(pk=run.pk)
        if run.is_finished:
            break
        time.sleep(0.1)
    return time.perf_counter() - started, run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--campus", default="Bench campus 100k")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--replica-years", type=int, default=1000)
    parser.add_argument("--deadline", type=float, default=3600.0, help="Give up on a run after this, s.")
    args = parser.parse_args()

    import django

    django.setup()
    from simulations.models import Scenario

    campus_id = ensure_campus(args.campus, args.gpus)
    # Rows: (label, replicas, days per replica) -- the same replica-years cut two ways.
    from simulations.models import MAX_REPLICAS

    rows = [(f"{args.replica_years} x 1 year", args.replica_years, 365.0)]
    if args.replica_years * 4 <= MAX_REPLICAS:
        rows.append((f"{args.replica_years * 4} x 3 months", args.replica_years * 4, 365.0 / 4))
    scenarios = {}
    for label, _, days in rows:
        scenarios[label], _ = Scenario.objects.update_or_create(
            campus_id=campus_id,
            name=f"bench failure_cascade {days:g} d",
            defaults={"kind": "failure_cascade", "params": {"duration_days": days}},
        )

    probe = 5
    engine_s, snap_s = engine_only(campus_id, {"duration_days": 365.0}, probe)
    # label, replicas, replica-years, wall, engine s, processes, start s, chunks s, chunks, load average
    results = [("engine only, 1 process", probe, probe, engine_s, engine_s, 1, None, None, None, None)]

    workers = start_workers(args.workers)
    try:
        # The workers' own start-up (imports, Django, the broker connection) is not part of a run: wait until
        # each answers a ping.
        boot_s = wait_for_workers(args.workers)
        for label, replicas, days in rows:
            load_before = os.getloadavg()[0]
            wall, run = timed_run(scenarios[label], replicas, args.deadline)
            if run.status != "succeeded":
                print(f"{label}: run {run.pk} ended {run.status} {run.error}".strip())
                continue
            years = replicas * days / 365.0
            results.append(
                (
                    f"{label}, {args.workers} workers",
                    replicas,
                    years,
                    wall,
                    run.summary["compute_s"],
                    args.workers,
                    (run.started - run.created).total_seconds(),
                    (run.finished - run.started).total_seconds(),
                    run.chunks.count(),
                    max(load_before, os.getloadavg()[0]),
                )
            )
    finally:
        stop_workers(workers)

    print(
        f"\nfailure_cascade on campus {campus_id} ({args.gpus} GPUs); snapshot build {snap_s:.2f} s; "
        f"{args.workers} workers answered after {boot_s:.1f} s; {os.cpu_count()} cores\n"
    )
    header = (
        f"{'configuration':<32}{'replicas':>9}{'replica-yr':>11}{'wall s':>9}{'replica-yr/s':>13}"
        f"{'engine s':>10}{'engine share':>13}{'start s':>9}{'chunks s':>10}{'chunks':>8}{'load':>6}"
    )
    print(header)
    print("-" * len(header))
    for label, replicas, years, wall, engine, procs, start_s, chunks_s, chunks, load in results:
        share = engine / (wall * procs) if wall > 0 else 0.0
        extra = (
            f"{start_s:>9.2f}{chunks_s:>10.2f}{chunks:>8}{load:>6.1f}"
            if start_s is not None
            else f"{'':>9}{'':>10}{'':>8}{'':>6}"
        )
        print(
            f"{label:<32}{replicas:>9}{years:>11.1f}{wall:>9.2f}{years / wall:>13.2f}{engine:>10.2f}"
            f"{share:>13.0%}{extra}"
        )
    print(
        "\nstart s: queued until running (start_run: snapshot, prepare, fan-out); chunks s: running until "
        "succeeded (the chunks and the fan-in); load: the 1-minute load average, the higher of before and after."
    )


if __name__ == "__main__":
    main()
