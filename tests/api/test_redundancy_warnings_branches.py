"""The remaining write paths answer with the same redundancy warnings (docs/api.md, "Redundancy warnings"):
a placement or an expansion proposal applied as a branch, branch creation (inline and by a job) and a
background import (``?async=1``); with ``?strict=true`` a 409 (a failed job) that writes nothing.

The campus: the generator's N+1 design declared 2N (k + 1 blocks, each rack on two, docs/generator.md).
One of a rack's blocks out for maintenance and the other failed darken it, so it achieves N+1, below its
declaration (tests/api/test_redundancy_warnings_paths.py). A branch is a copy: judged from its parent's
levels, it warns of nothing; racks placed in it are fed by two blocks too, so they are N+1 too and,
new, newly below the declared 2N: the placement warns for them, and only for them.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from campus.interchange.importer import import_campus
from campus.models import Campus, Job, Rack
from campus.tasks import run_job
from tests.api.test_redundancy_warnings_paths import _spec

pytestmark = [pytest.mark.usefixtures("fresh_analytics"), pytest.mark.django_db]

NODE = "hgx-h100-8"


def _placement(client, campus: Campus, name: str, query: str = ""):
    return client.post(
        f"/api/campuses/{campus.pk}/placement/{query}",
        {"node_model": NODE, "racks": 1, "nodes_per_rack": 1, "apply_as_branch": name},
        format="json",
    )


def test_a_placement_applied_as_a_branch_warns_for_the_new_racks_only(planner_client):
    campus = import_campus(_spec("Placed on"))
    response = _placement(planner_client, campus, "With one more")
    assert response.status_code == 201, response.content
    body = response.json()
    branch = Campus.objects.get(pk=body["branch"])
    new = set(
        Rack.objects.filter(campus=branch)
        .exclude(name__in=Rack.objects.filter(campus=campus).values("name"))
        .values_list("id", flat=True)
    )
    assert len(new) == 1
    (warning,) = [w for w in body["warnings"] if w["domain"] == "power"]
    assert (warning["campus"], warning["declared"], warning["before"], warning["after"]) == (
        branch.pk,
        "2N",
        "N+1",
        "N+1",
    )
    assert set(warning["racks_at_risk"]) == new  # the parent's own racks were below it already
    assert warning["gpus_at_risk"] == 8  # one HGX H100 node of 8 GPUs


def test_a_strict_placement_as_a_branch_is_a_409_and_creates_no_branch(planner_client):
    campus = import_campus(_spec("Strict placed on"))
    response = _placement(planner_client, campus, "Refused branch", "?strict=true")
    assert response.status_code == 409, response.content
    assert response.json()["warnings"][0]["declared"] == "2N"
    assert not Campus.objects.filter(name="Refused branch").exists()


def test_a_branch_is_judged_from_its_parent_and_warns_of_nothing(planner_client):
    # the parent is below its declared 2N already: its copy is no further below (a new campus judged from
    # nothing would warn here, as its import does)
    campus = import_campus(_spec("Parent below"))
    url = reverse("campus-branch", kwargs={"pk": campus.pk})
    response = planner_client.post(url + "?strict=true", {"name": "Copy"}, format="json")
    assert response.status_code == 201, response.content
    assert "warnings" not in response.json()
    bad = planner_client.post(url + "?strict=maybe", {"name": "Copy 2"}, format="json")
    assert bad.status_code == 400 and "strict" in bad.json()


def test_a_branch_job_is_judged_from_its_parent_too(planner_client):
    campus = import_campus(_spec("Parent of a job"))
    url = reverse("campus-branch", kwargs={"pk": campus.pk}) + "?async=1&strict=true"
    response = planner_client.post(url, {"name": "Job copy"}, format="json")
    assert response.status_code == 202, response.content
    job = Job.objects.get(pk=response.json()["job"])
    assert job.params["strict"] is True
    assert run_job(job.pk) == "succeeded"
    job.refresh_from_db()
    assert "warnings" not in job.result and Campus.objects.filter(name="Job copy").exists()


def _import_job(client, name: str, query: str) -> Job:
    response = client.post(
        reverse("campus-import") + query, data=json.dumps(_spec(name)), content_type="application/json"
    )
    assert response.status_code == 202, response.content
    return Job.objects.get(pk=response.json()["job"])


def test_a_background_import_below_its_declared_level_carries_the_warnings_in_its_result(planner_client):
    job = _import_job(planner_client, "Imported by a job", "?async=1")
    assert run_job(job.pk) == "succeeded"
    job.refresh_from_db()
    (warning,) = [w for w in job.result["warnings"] if w["domain"] == "power"]
    assert (warning["campus"], warning["declared"], warning["before"], warning["after"]) == (
        job.campus_id,
        "2N",
        "",
        "N+1",
    )
    assert warning["gpus_at_risk"] == 256


def test_a_strict_background_import_below_its_declared_level_fails_and_creates_nothing(planner_client):
    job = _import_job(planner_client, "Refused by a job", "?async=1&strict=true")
    assert run_job(job.pk) == "failed"
    body = planner_client.get(f"/api/jobs/{job.pk}/").json()
    assert body["status"] == "failed" and body["error"]["field"] == "strict"
    assert body["error"]["errors"][0]["declared"] == "2N"
    assert not Campus.objects.filter(name="Refused by a job").exists()
    assert (
        planner_client.post(
            reverse("campus-import") + "?async=1&strict=maybe",
            data=json.dumps(_spec("Bad strict")),
            content_type="application/json",
        ).status_code
        == 400
    )
