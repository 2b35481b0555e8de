"""The summary's headline reliability for a declared set of jobs (`?jobs=`): one job per island by default,
the campus-wide job on request, each job's ETTR by Daly's exact form."""

import math

import pytest
from django.urls import reverse

from campus.models import Building, Pod, Rack
from tests.simulations.campus_builder import build_small_campus

pytestmark = pytest.mark.usefixtures("fresh_analytics")


@pytest.fixture
def two_islands(db):
    campus = build_small_campus(racks=4)
    pod2 = Pod.objects.create(campus=campus, building=Building.objects.get(campus=campus), name="Pod 2")
    names = list(Rack.objects.filter(campus=campus).order_by("name").values_list("name", flat=True))
    Rack.objects.filter(campus=campus, name__in=names[2:]).update(pod=pod2)
    return campus


def summary(client, campus, **query):
    response = client.get(reverse("campus-summary", kwargs={"pk": campus.pk}), query)
    assert response.status_code == 200, response.content
    return response.json()


def daly_ettr(job):
    m, d, r = job["job_mttf_hours"], job["checkpoint_minutes"] / 60, job["restart_minutes"] / 60
    tau = job["optimal_checkpoint_minutes"] / 60
    return tau / (m * math.exp(r / m) * (math.exp((tau + d) / m) - 1))


def test_the_headline_is_one_job_per_island_and_the_campus_job_is_labelled(viewer_client, two_islands):
    body = summary(viewer_client, two_islands)
    head, rel = body["reliability"]["headline"], body["reliability"]
    assert [(j["name"], j["gpus"]) for j in head["jobs"]] == [("Pod 1", 64), ("Pod 2", 64)]
    assert head["basis"] == "one synchronous job per island (2 jobs)"
    for job in head["jobs"]:
        assert job["expected_ettr"] == pytest.approx(daly_ettr(job))
        assert (job["checkpoint_minutes"], job["restart_minutes"]) == (5.0, 10.0)
        # half the campus's GPUs: half its failure rate
        assert job["job_failures_per_day"] == pytest.approx(rel["job_failures_per_day"] / 2)
    assert body["compute"]["ettr"] == pytest.approx(head["ettr"])
    assert head["ettr"] > rel["expected_ettr"]
    assert "campus_wide" in rel and head["note"] is None


def test_the_campus_wide_set_and_typed_recovery_are_declared_by_query(viewer_client, two_islands):
    body = summary(viewer_client, two_islands, jobs="campus", checkpoint_minutes=1, restart_minutes=2)
    head = body["reliability"]["headline"]
    assert [j["gpus"] for j in head["jobs"]] == [128]
    assert head["jobs"][0]["checkpoint_minutes_source"] == "typed"
    assert body["compute"]["ettr"] == pytest.approx(body["reliability"]["expected_ettr"])


def test_an_unknown_job_set_is_a_400_naming_jobs(viewer_client, two_islands):
    response = viewer_client.get(reverse("campus-summary", kwargs={"pk": two_islands.pk}), {"jobs": "racks"})
    assert response.status_code == 400
    assert "jobs" in response.json()
