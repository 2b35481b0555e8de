"""Every write path answers with the same redundancy warnings (docs/api.md, "Redundancy warnings"): the spec
import, the branch merge (each with ``?strict=true`` a 409 that writes nothing) and the admin (a messages
warning). The API's inventory writes are tests/api/test_redundancy_warnings.py.

The campus of the import: the generator's N+1 design (k + 1 blocks, each rack on two, docs/generator.md)
declared 2N. One of a rack's blocks out for maintenance and the other failed darken it, so it achieves
N+1, below its declaration: a new campus starts from nothing, so its import warns.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from campus.interchange.generate import generate_spec
from campus.models import Campus, PowerFeed
from tests.api.test_redundancy_warnings import _campus

SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}

pytestmark = pytest.mark.usefixtures("fresh_analytics")


def _spec(name: str) -> dict:
    spec = generate_spec(name, 256, cooling="air", power_redundancy="N+1", cooling_redundancy="N+1", **SMALL)
    spec["campus"]["power_redundancy"] = "2N"  # declared above what is built
    return spec


@pytest.mark.django_db
def test_an_import_below_its_declared_level_warns(planner_client):
    response = planner_client.post(
        reverse("campus-import"), data=json.dumps(_spec("Imported")), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    (warning,) = [w for w in body["warnings"] if w["domain"] == "power"]
    assert (warning["campus"], warning["declared"], warning["before"], warning["after"]) == (
        body["id"],
        "2N",
        "",
        "N+1",
    )
    assert warning["gpus_at_risk"] == 256
    assert all("maintenance" in e for e in warning["elements"])


@pytest.mark.django_db
def test_a_strict_import_below_its_declared_level_is_a_409_and_creates_nothing(planner_client):
    response = planner_client.post(
        reverse("campus-import") + "?strict=true",
        data=json.dumps(_spec("Refused")),
        content_type="application/json",
    )
    assert response.status_code == 409
    assert response.json()["warnings"][0]["after"] == "N+1"
    assert not Campus.objects.filter(name="Refused").exists()


def _branch_without_feed_b(client):
    campus, rack, a, b, feed_b = _campus()
    branch = client.post(reverse("campus-branch", kwargs={"pk": campus.pk}), {"name": "B"}, format="json")
    assert branch.status_code in (200, 201), branch.content
    branch_id = branch.json()["id"]
    feed = PowerFeed.objects.get(campus_id=branch_id, side="B")
    assert client.delete(reverse("powerfeed-detail", kwargs={"pk": feed.pk})).status_code == 200
    return campus, feed_b, branch_id


@pytest.mark.django_db
def test_a_merge_that_breaks_the_parent_warns(planner_client):
    campus, feed_b, branch_id = _branch_without_feed_b(planner_client)
    response = planner_client.post(reverse("campus-merge", kwargs={"pk": branch_id}), {}, format="json")
    assert response.status_code == 200, response.content
    (warning,) = response.json()["warnings"]
    assert (warning["campus"], warning["before"], warning["after"]) == (campus.pk, "N+1", "N")
    assert not PowerFeed.objects.filter(pk=feed_b.pk).exists()


@pytest.mark.django_db
def test_a_strict_merge_that_breaks_the_parent_is_a_409_and_merges_nothing(planner_client):
    campus, feed_b, branch_id = _branch_without_feed_b(planner_client)
    url = reverse("campus-merge", kwargs={"pk": branch_id}) + "?strict=true"
    response = planner_client.post(url, {}, format="json")
    assert response.status_code == 409
    assert response.json()["warnings"][0]["racks_at_risk"]
    assert PowerFeed.objects.filter(pk=feed_b.pk).exists()


@pytest.mark.django_db
def test_an_admin_delete_that_breaks_the_declared_level_shows_a_warning():
    campus, rack, a, b, feed_b = _campus()
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", "pw-root"))
    response = client.post(f"/admin/campus/powerfeed/{feed_b.pk}/delete/", {"post": "yes"}, follow=True)
    assert response.status_code == 200
    assert not PowerFeed.objects.filter(pk=feed_b.pk).exists()
    texts = [m.message for m in get_messages(response.wsgi_request)] + [
        str(m) for m in response.context["messages"]
    ]
    assert any("below the declared N+1" in t and "8 GPUs" in t for t in texts), texts
