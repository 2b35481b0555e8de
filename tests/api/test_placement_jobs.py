"""A placement with ``"async": true`` runs as a background job (docs/placement.md, "Large campuses: the
placement as a job"): 202 and the job's URL; once run, the job's result is the body the request answers
without ``async`` (the truth: the same request answered inline), its progress the proposal's.
"""

from __future__ import annotations

import pytest

from campus.analysis.placement import PlacementRequest
from campus.analysis.placement.proposal import propose
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Campus, Job
from campus.snapshot_adapter import build_snapshot
from campus.state import today
from campus.tasks import run_job

pytestmark = pytest.mark.django_db

NVL72 = "gb200-nvl72-tray"


def url(campus_id: int) -> str:
    return f"/api/campuses/{campus_id}/placement/"


@pytest.fixture(scope="module")
def spec():
    return generate_spec("Full fabric", 4608, gpu_model="gb200")


def test_an_async_placement_is_a_job_whose_result_is_the_inline_answer(planner_client, spec):
    campus = import_campus(spec)
    body = {"node_model": NVL72, "racks": 40, "propose": True}
    res = planner_client.post(url(campus.pk), {**body, "async": True}, format="json")
    assert res.status_code == 202, res.content
    job = Job.objects.get(pk=res.json()["job"])
    assert res.json()["url"].endswith(f"/api/jobs/{job.pk}/") and res["Location"] == res.json()["url"]
    assert (job.kind, job.status, job.campus_id) == ("placement", "queued", None)

    assert run_job(job.pk) == "succeeded"
    done = planner_client.get(f"/api/jobs/{job.pk}/").json()
    assert (done["status"], done["progress"], done["error"], done["campus"]) == (
        "succeeded",
        1.0,
        None,
        campus.pk,
    )
    inline = planner_client.post(url(campus.pk), body, format="json")
    assert inline.status_code == 200
    assert done["result"] == inline.json()
    assert done["result"]["proposal"]["feasible"] is True


def test_async_is_a_boolean_and_not_with_apply_as_branch(planner_client, spec):
    campus = import_campus(spec)
    res = planner_client.post(
        url(campus.pk),
        {"node_model": NVL72, "racks": 1, "async": True, "apply_as_branch": "B"},
        format="json",
    )
    assert res.status_code == 400 and "async" in res.json()
    res = planner_client.post(
        url(campus.pk), {"node_model": NVL72, "racks": 1, "async": "soon"}, format="json"
    )
    assert res.status_code == 400 and "async" in res.json()
    res = planner_client.post(
        url(campus.pk), {"node_model": NVL72, "racks": 1, "asynch": True}, format="json"
    )
    assert res.status_code == 400 and "asynch" in res.json()
    assert not Job.objects.exists()


def test_a_job_whose_campus_was_deleted_fails_naming_it(planner_client, spec):
    campus = import_campus(spec)
    res = planner_client.post(url(campus.pk), {"node_model": NVL72, "racks": 1, "async": True}, format="json")
    Campus.objects.filter(pk=campus.pk).delete()
    job = res.json()["job"]
    assert run_job(job) == "failed"
    error = planner_client.get(f"/api/jobs/{job}/").json()["error"]
    assert error["field"] == "campus"


def test_the_proposals_progress_only_rises_to_one(spec):
    campus = import_campus(spec)
    heard: list[tuple[float, str]] = []
    snap = build_snapshot(campus.pk, today())
    propose(snap, PlacementRequest(NVL72, 40), progress=lambda share, stage: heard.append((share, stage)))
    shares = [s for s, _ in heard]
    assert shares == sorted(shares) and shares[0] >= 0.0 and shares[-1] == 1.0
    assert any(stage.startswith("growing hall") for _, stage in heard)
