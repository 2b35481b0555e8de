"""Campus jobs with a real `celery -A twin worker` process: POST -> broker -> worker -> database -> GET, the
progress sampled while it works, and a worker killed with SIGKILL in the middle of a job."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from campus import state as states
from campus.models import Campus, Job, Rack
from tests.api.test_shared_analytics_cache import computed
from tests.interchange.conftest import inventory_counts

from .test_worker_e2e import RUN_DEADLINE_S, STALE_S, planner_api, wait_for, workers  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

GENERATE_URL = "/api/campuses/generate/"


@pytest.fixture
def job_env(monkeypatch):
    # Read by the worker processes started after this (their environment is a copy of this one).
    monkeypatch.setenv("TWIN_JOB_STALE_SECONDS", str(STALE_S))
    monkeypatch.setenv("TWIN_JOB_HEARTBEAT_SECONDS", "0.3")


def follow_job(client, url: str) -> tuple[dict, list[float]]:
    """Poll a job until it has finished or the deadline passed: its last body and every progress read."""
    samples: list[float] = []
    end = time.monotonic() + RUN_DEADLINE_S
    body: dict = {}
    while time.monotonic() < end:
        body = client.get(url).json()
        samples.append(body["progress"])
        if body["status"] in ("succeeded", "failed"):
            break
        time.sleep(0.05)
    return body, samples


def test_a_generation_job_runs_on_a_worker_with_a_rising_progress(job_env, workers, planner_api):  # noqa: F811
    workers(concurrency=1)
    response = planner_api.post(
        GENERATE_URL, {"name": "E2E job", "gpus": 16384, "background": True}, format="json"
    )
    assert response.status_code == 202, response.content
    url = response.json()["url"]

    body, samples = follow_job(planner_api, url)
    assert body["status"] == "succeeded", body
    assert all(0.0 <= p <= 1.0 for p in samples)
    assert samples == sorted(samples)  # never goes backwards
    assert samples[-1] == 1.0 and len(set(samples)) >= 2
    campus = Campus.objects.get(name="E2E job")
    assert body["campus"] == campus.pk
    assert body["result"]["counts"]["racks"] == Rack.objects.filter(campus=campus).count()
    assert body["result"]["counts"]["gpus"] == 16384

    # The worker stored the new campus' default summary and floor map in the shared cache before it reported
    # success: this process, which computed neither, answers both from there, byte for byte what a computation
    # from scratch gives.
    states.forget()
    for endpoint, url in (("summary", "summary/"), ("floor-map", "floor-map/")):
        response = planner_api.get(f"/api/campuses/{campus.pk}/{url}")
        assert response.status_code == 200
        assert states.cached_state(campus.pk) is None  # no state built here
        assert (response.content, response["ETag"]) == computed(campus, endpoint)


def test_a_worker_killed_mid_job_leaves_nothing_and_the_job_failed(job_env, workers, planner_api):  # noqa: F811
    before = inventory_counts()
    first = workers(concurrency=1)
    response = planner_api.post(
        GENERATE_URL, {"name": "E2E killed", "gpus": 65536, "background": True}, format="json"
    )
    job_id = response.json()["job"]
    if connection.vendor == "postgresql":
        # In the middle of the writes inside the campus' one transaction (validated at 0.35, written at 0.9),
        # not at the commit, which the server would finish on its own once sent: the progress thread writes
        # while the work writes, so the kill can wait for the writes to show.
        seen = wait_for(
            lambda: (p := Job.objects.get(pk=job_id).progress) >= 0.35 and p,
            RUN_DEADLINE_S,
            "the job to reach the writes",
            interval=0.05,
        )
        first.kill()
        assert seen < 0.75, (
            f"the writes were at {seen:.2f} when first seen: too near the commit to test a kill"
        )
    else:
        # SQLite has one writer: the progress thread pauses through the writes, its last word "validating"
        # (0.26); the commit is the killed process' own, so it cannot finish without it.
        wait_for(
            lambda: Job.objects.get(pk=job_id).progress >= 0.26, RUN_DEADLINE_S, "the job to reach the writes"
        )
        time.sleep(0.5)
        first.kill()

    job = Job.objects.get(pk=job_id)
    assert job.status == "running"
    assert inventory_counts() == before  # nothing committed, nothing half-written

    # A new worker starting after the heartbeat went stale fails the job (the reaper runs at start).
    time.sleep(STALE_S + 1)
    workers(concurrency=1)
    job = wait_for(
        lambda: (j := Job.objects.get(pk=job_id)).status == "failed" and j,
        RUN_DEADLINE_S,
        "the job to be failed",
    )
    assert "stopped" in job.error["detail"] and "nothing was written" in job.error["detail"]
    assert job.campus_id is None
    assert inventory_counts() == before
    assert not Campus.objects.filter(name="E2E killed").exists()


def test_a_branch_job_runs_on_a_worker_and_gives_the_branch(job_env, workers, planner_api):  # noqa: F811
    workers(concurrency=1)
    response = planner_api.post(GENERATE_URL, {"name": "E2E parent", "gpus": 1024}, format="json")
    assert response.status_code == 201, response.content
    parent = Campus.objects.get(name="E2E parent")
    response = planner_api.post(
        f"/api/campuses/{parent.pk}/branch/?async=1", {"name": "E2E branch"}, format="json"
    )
    assert response.status_code == 202, response.content
    url = response.json()["url"]
    body, samples = follow_job(planner_api, url)
    assert body["status"] == "succeeded", body
    assert samples == sorted(samples) and samples[-1] == 1.0
    branch = Campus.objects.get(name="E2E branch")
    assert body["campus"] == branch.pk and branch.parent_id == parent.pk
    assert Rack.objects.filter(campus=branch).count() == Rack.objects.filter(campus=parent).count()
    diff = planner_api.get(f"/api/campuses/{branch.pk}/diff/", {"against": parent.pk}).json()
    assert diff["objects"] == {"added": [], "removed": [], "changed": []}
