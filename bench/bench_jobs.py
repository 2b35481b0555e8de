"""Campus jobs benchmark: generate (and import) large campuses through the API as background jobs.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin REDIS_URL=redis://127.0.0.1:6379/1 \\
        .venv/bin/python bench/bench_jobs.py [--sizes 100000,250000,1000000] [--import-size 1000000]

End to end as a client sees it: POST /api/campuses/generate/ (or /import/ with a JSON spec) -> 202 -> a real
`celery -A twin worker` process (one pool process, replaced after every job so each job's peak memory is its
own) -> GET /api/jobs/{id}/ until it succeeded -> the campus' first GET summary and first GET floor map (whole
campus), timed client side through the API of this process, which computed neither (the job's worker stored
them in the shared analytics cache; with --cold, also the same two computed from scratch). Runs against a throwaway database created next to the one
DATABASE_URL names ("test_<name>") and dropped afterwards. Peak RSS is the worker pool process's high-water
mark (VmHWM), sampled while the job runs. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["DEBUG"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.db import connection  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from campus import state as states  # noqa: E402
from campus.catalog_loader import ensure_catalog_and_roles  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.models import Job  # noqa: E402


def database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] or "postgres"
    if db["PASSWORD"]:
        auth += f":{db['PASSWORD']}"
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(log_path: Path, recycle: bool) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url(), "CONN_MAX_AGE": "0", "LOG_LEVEL": "WARNING"}
    return subprocess.Popen(
        [
            str(Path(sys.executable).with_name("celery")),
            "-A",
            "twin",
            "worker",
            "--loglevel",
            "WARNING",
            "--concurrency",
            "1",
            *(["--max-tasks-per-child", "1"] if recycle else []),
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"bench-jobs-{os.getpid()}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=log_path.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def pool_hwm_mb(worker: subprocess.Popen) -> float:
    """The largest VmHWM among the worker's child processes (the pool process running the job)."""
    best = 0.0
    for task in Path("/proc").iterdir():
        if not task.name.isdigit():
            continue
        try:
            status = (task / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("PPid", "").strip() == str(worker.pid) and "VmHWM" in fields:
            best = max(best, int(fields["VmHWM"].split()[0]) / 1024.0)
    return best


def wait_job(client: APIClient, url: str, worker: subprocess.Popen) -> tuple[dict, float, int]:
    peak = 0.0
    polls = 0
    last = -1.0
    while True:
        body = client.get(url).json()
        peak = max(peak, pool_hwm_mb(worker))
        assert body["progress"] >= last, "progress went backwards"
        last = body["progress"]
        polls += 1
        if body["status"] in ("succeeded", "failed"):
            return body, peak, polls
        time.sleep(0.25)


def first_reads(client: APIClient, campus_id: int | None, cold: bool) -> dict[str, float]:
    """Seconds of the campus' first GET summary and GET floor map in this process (it holds nothing of the
    campus); with ``cold``, then the same two again with the shared cache's entries removed (computed)."""
    times: dict[str, float] = {}
    if campus_id is None:
        return times
    rounds = [("", False)] + ([("cold ", True)] if cold else [])
    for prefix, drop in rounds:
        states.forget()
        if drop:
            version = states.revision_key(campus_id)
            for endpoint in states.SHARED_ENDPOINTS:
                key = states.shared_key(campus_id, version, states.today(), endpoint)
                caches[states.SHARED_CACHE].delete(key)
            states.forget()
        for endpoint in states.SHARED_ENDPOINTS:
            started = time.perf_counter()
            response = client.get(f"/api/campuses/{campus_id}/{endpoint}/")
            times[prefix + endpoint] = time.perf_counter() - started
            assert response.status_code == 200, response.content[:500]
    states.forget()
    return times


def _seconds(reads: dict[str, float], name: str, width: int) -> str:
    return f"{reads[name]:>{width}.2f}" if name in reads else f"{'-':>{width}}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default="100000,250000,1000000", help="GPU counts to generate, comma-separated"
    )
    parser.add_argument(
        "--import-size", type=int, default=1_000_000, help="GPUs of the spec imported (0: none)"
    )
    parser.add_argument(
        "--keep-child",
        action="store_true",
        help="Keep the pool process between jobs (peak RSS is then the largest so far, not per job).",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="Also time the first summary and floor map computed from scratch (the shared cache emptied).",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    vendor = connection.vendor
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    rows = []
    workdir = Path(tempfile.mkdtemp(prefix="bench-jobs-"))
    worker = None
    try:
        ensure_catalog_and_roles()
        from django.contrib.auth.models import Group

        user = get_user_model().objects.create_user("bench-jobs", password="x")
        user.groups.add(Group.objects.get(name="planner"))
        client = APIClient()
        client.force_authenticate(user)
        worker = start_worker(workdir / "worker.log", not args.keep_child)
        time.sleep(5)  # the worker's start-up is not part of a job
        for gpus in sizes:
            started = time.perf_counter()
            response = client.post(
                "/api/campuses/generate/",
                {"name": f"Bench {len(rows)} {gpus}", "gpus": gpus, "background": True},
                format="json",
            )
            assert response.status_code == 202, response.content
            body, peak, polls = wait_job(client, response.json()["url"], worker)
            wall = time.perf_counter() - started
            job = Job.objects.get(pk=body["id"])
            reads = first_reads(client, body["campus"], args.cold)
            rows.append(("generate", gpus, body, wall, job, peak, None, reads))
        if args.import_size:
            spec = generate_spec(f"Imported {args.import_size}", args.import_size)
            text = json.dumps(spec).encode()
            del spec
            started = time.perf_counter()
            response = client.generic(
                "POST", "/api/campuses/import/?async=1", text, content_type="application/json"
            )
            assert response.status_code == 202, response.content
            size_mb = len(text) / 1e6
            del text
            body, peak, polls = wait_job(client, response.json()["url"], worker)
            wall = time.perf_counter() - started
            job = Job.objects.get(pk=body["id"])
            reads = first_reads(client, body["campus"], args.cold)
            rows.append(("import", args.import_size, body, wall, job, peak, size_mb, reads))
    finally:
        if worker is not None and worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0, keepdb=False)
    load = os.getloadavg()[0]
    print(
        f"campus jobs through the API on {vendor} ({os.cpu_count()} CPUs, load average {load:.1f} at the end)"
    )
    header = (
        f"{'job':>8} {'GPUs':>10} {'racks':>7} {'status':>9} {'202->done s':>11} {'queued':>7} {'in worker s':>11} "
        f"{'gen/read':>8} {'validate':>8} {'write':>6} {'commit':>6} {'analyse':>7} {'spec MB':>8} "
        f"{'peak RSS MB':>12} {'1st summary s':>13} {'1st map s':>9}"
        + (f" {'cold summary s':>14} {'cold map s':>10}" if args.cold else "")
    )
    print(header)
    print("-" * len(header))
    for kind, gpus, body, wall, job, peak, size_mb, reads in rows:
        worker_s = (job.finished - job.started).total_seconds() if job.finished and job.started else 0.0
        queued_s = (job.started - job.created).total_seconds() if job.started else 0.0
        racks = (body.get("result") or {}).get("counts", {}).get("racks", 0)
        size = f"{size_mb:8.1f}" if size_mb else f"{'-':>8}"
        sec = (body.get("result") or {}).get("seconds", {})
        first = sec.get("generate", sec.get("read", 0.0))
        analyse = sec.get("analyse", 0.0)
        commit = sec.get(
            "commit", worker_s - first - sec.get("validate", 0.0) - sec.get("write", 0.0) - analyse
        )
        print(
            f"{kind:>8} {gpus:>10,} {racks:>7,} {body['status']:>9} {wall:>11.1f} {queued_s:>7.1f} {worker_s:>11.1f} "
            f"{first:>8.1f} {sec.get('validate', 0.0):>8.1f} {sec.get('write', 0.0):>6.1f} {commit:>6.1f} "
            f"{analyse:>7.1f} {size} {peak:>12.0f} {_seconds(reads, 'summary', 13)} "
            f"{_seconds(reads, 'floor-map', 9)}"
            + (
                f" {_seconds(reads, 'cold summary', 14)} {_seconds(reads, 'cold floor-map', 10)}"
                if args.cold
                else ""
            )
        )
        if body["status"] != "succeeded":
            print(f"         error: {body['error']}")


if __name__ == "__main__":
    main()
