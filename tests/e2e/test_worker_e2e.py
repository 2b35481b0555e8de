"""A real `celery -A twin worker` process against the test database and the broker: API call -> broker ->
worker -> database -> results, and a worker killed with SIGKILL in the middle of a run.

The worker reads the test database through DATABASE_URL (pytest-django's test database: PostgreSQL's
``test_<name>``, or the embedded default's SQLite file; rows committed by ``transactional_db``) and the same broker as this process: Redis when REDIS_URL is set, else
kombu's filesystem transport under the same var directory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from simulations.choices import RunStatus
from simulations.models import ReplicaResult, Run, RunChunk, Scenario
from tests.conftest import client_for, make_user
from tests.e2e.conftest import database_url, require_shared_database
from tests.simulations.campus_builder import build_small_campus

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")
# Small and bounded: a run of a few seconds; every wait below has a deadline.
RUN_DEADLINE_S = 120
STALE_S = 3


def worker_env() -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "twin.settings.test",
        "DATABASE_URL": database_url(),
        "CONN_MAX_AGE": "0",
        "TWIN_VAR_DIR": str(settings.VAR_DIR),
        # Short enough that a dead worker's chunk is re-sent within the test's deadline.
        "TWIN_RUN_STALE_SECONDS": str(STALE_S),
        "TWIN_RUN_QUEUED_STALE_SECONDS": str(STALE_S),
        "TWIN_RUN_HEARTBEAT_SECONDS": "1",
        "LOG_LEVEL": "WARNING",
    }
    return env


class Worker:
    """One worker process group; ``kill()`` is SIGKILL to the main process and its pool children."""

    def __init__(self, concurrency: int, log_path: Path) -> None:
        self.log = log_path.open("wb")
        self.proc = subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "twin",
                "worker",
                "--loglevel",
                "WARNING",
                "--concurrency",
                str(concurrency),
                "--hostname",
                f"e2e-{uuid.uuid4().hex[:8]}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=worker_env(),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


@pytest.fixture
def workers(tmp_path):
    require_shared_database()
    started: list[Worker] = []

    def start(concurrency: int = 2) -> Worker:
        worker = Worker(concurrency, tmp_path / f"worker-{len(started)}.log")
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()
    for log in sorted(tmp_path.glob("worker-*.log")):
        text = log.read_text(errors="replace")
        if "Traceback" in text:
            print(f"--- {log.name}\n{text[-4000:]}")


def wait_for(predicate, deadline_s: float, what: str, interval: float = 0.2):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {deadline_s} s waiting for {what}")


def finished(run_id: int) -> Run | None:
    run = Run.objects.get(pk=run_id)
    return run if run.is_finished else None


@pytest.fixture
def planner_api():
    return client_for(make_user("e2e-planner", "planner"))


def test_a_run_started_through_the_api_is_executed_by_a_worker(workers, planner_api):
    campus = build_small_campus("E2E campus")
    scenario = Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="e2e", params={"duration_days": 10}
    )
    workers(concurrency=2)

    response = planner_api.post(f"/api/scenarios/{scenario.pk}/run/", {"replicas": 12, "seed": 3})
    assert response.status_code == 202
    run = wait_for(lambda: finished(response.json()["id"]), RUN_DEADLINE_S, "the run to finish")

    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.progress == 1.0
    indices = sorted(ReplicaResult.objects.filter(run=run).values_list("index", flat=True))
    assert indices == list(range(12))
    body = planner_api.get(f"/api/runs/{run.pk}/").json()
    assert body["summary"]["metrics"]["ettr"]["n"] == 12
    series = planner_api.get(f"/api/runs/{run.pk}/timeseries/?metric=ettr").json()
    assert series["points"] > 1
    assert RunChunk.objects.filter(run=run).exclude(state=RunChunk.State.DONE).count() == 0


def test_a_worker_killed_mid_run_leaves_a_run_that_completes_on_a_new_worker(workers, planner_api):
    campus = build_small_campus("E2E kill campus")
    # grid_limit at one-minute steps over 25 days: a fraction of a second per replica, so the kill lands mid-run;
    # generators that may fail to start make its replicas differ (a deterministic run would be one replica).
    scenario = Scenario.objects.create(
        campus=campus,
        kind="grid_limit",
        name="e2e slow",
        params={"duration_hours": 600, "policy": "generators"},
    )
    first = workers(concurrency=1)
    response = planner_api.post(f"/api/scenarios/{scenario.pk}/run/", {"replicas": 24, "seed": 9})
    run_id = response.json()["id"]
    wait_for(
        lambda: 1 <= Run.objects.get(pk=run_id).replicas_done < 20,
        RUN_DEADLINE_S,
        "the first replicas to be stored",
    )
    # Into the next replica (each takes a second or two), so the kill lands inside one.
    time.sleep(0.5)
    first.kill()

    # Killed mid-run: still running (never half-written), the stored replicas kept, no summary yet.
    run = Run.objects.get(pk=run_id)
    stored = run.replicas_done
    assert run.status == RunStatus.RUNNING
    assert run.summary is None
    assert ReplicaResult.objects.filter(run=run).count() == stored < 24

    # A new worker starting after the heartbeat went stale picks the run up (the reaper runs at start).
    time.sleep(STALE_S + 1)
    workers(concurrency=2)
    run = wait_for(lambda: finished(run_id), RUN_DEADLINE_S, "the run to finish on the new worker")

    assert run.status == RunStatus.SUCCEEDED, run.error
    indices = list(ReplicaResult.objects.filter(run=run).values_list("index", flat=True))
    assert sorted(indices) == list(range(24))  # every replica exactly once
    assert run.summary["replicas"] == 24
