"""Writes that take a campus below its declared redundancy answer with ``warnings``; ``?strict=true`` makes
them a 409 that writes nothing (docs/api.md, "Redundancy warnings"; docs/model.md, "Achieved redundancy").

The campus, worked by hand: PDU-A and PDU-B (300 kW each, sources) feed one rack of one 8-GPU server on sides
A and B. Either PDU alone carries the rack, so no single failure costs a GPU; both out lose it: N+1, as
declared. Removing the B feed leaves PDU-A the rack's one path: N, below the declared N+1.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from campus import models, redundancy_guard, state
from campus.analysis.memo import snapshot_memo
from campus.snapshot_adapter import build_snapshot
from tests import factories as f

pytestmark = pytest.mark.usefixtures("fresh_analytics")


def _campus(power_redundancy: str = "N+1"):
    campus = f.CampusFactory(power_redundancy=power_redundancy, cooling_redundancy="")
    rack = f.RackFactory(hall__building__campus=campus)
    f.NodeFactory(rack=rack)
    a = f.PowerDeviceFactory(campus=campus, name="PDU-A")
    b = f.PowerDeviceFactory(campus=campus, name="PDU-B")
    f.PowerFeedFactory(rack=rack, campus=campus, upstream=a, side="A")
    feed_b = f.PowerFeedFactory(rack=rack, campus=campus, upstream=b, side="B")
    return campus, rack, a, b, feed_b


def _levels(client, campus) -> dict[str, dict]:
    body = client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk})).json()
    return {lv["domain"]: lv for lv in body["levels"]}


@pytest.mark.django_db
def test_the_campus_is_n_plus_1_as_declared(viewer_client):
    campus, *_ = _campus()
    power = _levels(viewer_client, campus)["power"]
    assert (power["declared"], power["achieved"], power["meets_declared"]) == ("N+1", "N+1", True)
    (pair,) = power["pairs"]
    assert {pair["maintenance"]["name"], pair["failure"]["name"]} == {"PDU-A", "PDU-B"}
    assert pair["gpus_lost"] == 8


@pytest.mark.django_db
def test_deleting_the_b_feed_warns_naming_the_element_and_the_gpus(planner_client, viewer_client):
    campus, rack, a, b, feed_b = _campus()
    response = planner_client.delete(reverse("powerfeed-detail", kwargs={"pk": feed_b.pk}))
    assert response.status_code == 200
    (warning,) = response.json()["warnings"]
    assert warning["code"] == "redundancy_below_declared"
    assert (warning["campus"], warning["domain"], warning["declared"]) == (campus.pk, "power", "N+1")
    assert (warning["before"], warning["after"]) == ("N+1", "N")
    assert warning["gpus_at_risk"] == 8 and warning["racks_at_risk"] == [rack.pk]
    assert {"kind": "power", "id": a.pk, "name": "PDU-A"} in warning["elements"]
    assert not models.PowerFeed.objects.filter(pk=feed_b.pk).exists()
    assert _levels(viewer_client, campus)["power"]["achieved"] == "N"


@pytest.mark.django_db
def test_strict_makes_it_a_409_and_writes_nothing(planner_client):
    campus, rack, a, b, feed_b = _campus()
    revision = models.Campus.objects.get(pk=campus.pk).revision
    response = planner_client.delete(reverse("powerfeed-detail", kwargs={"pk": feed_b.pk}) + "?strict=true")
    assert response.status_code == 409
    body = response.json()
    assert body["warnings"][0]["after"] == "N"
    assert models.PowerFeed.objects.filter(pk=feed_b.pk).exists()
    assert models.Campus.objects.get(pk=campus.pk).revision == revision


@pytest.mark.django_db
def test_a_write_that_keeps_the_level_answers_as_before(planner_client):
    campus, rack, a, b, feed_b = _campus()
    response = planner_client.patch(
        reverse("powerdevice-detail", kwargs={"pk": a.pk}), {"name": "PDU-A1"}, format="json"
    )
    assert response.status_code == 200
    assert "warnings" not in response.json()
    deleted = planner_client.delete(reverse("powerfeed-detail", kwargs={"pk": feed_b.pk}) + "?strict=false")
    assert deleted.status_code == 200  # warned, not refused


@pytest.mark.django_db
def test_raising_the_declared_level_above_what_is_built_warns(planner_client):
    campus, *_ = _campus()
    response = planner_client.patch(
        reverse("campus-detail", kwargs={"pk": campus.pk}), {"power_redundancy": "2N"}, format="json"
    )
    assert response.status_code == 200
    (warning,) = response.json()["warnings"]
    assert (warning["declared"], warning["before"], warning["after"]) == ("2N", "N+1", "N+1")
    pairs = [e for e in warning["elements"] if "maintenance" in e]
    assert {pairs[0]["maintenance"]["name"], pairs[0]["failure"]["name"]} == {"PDU-A", "PDU-B"}


@pytest.mark.django_db
def test_bulk_writes_warn_with_their_results(planner_client):
    campus, rack, a, b, feed_b = _campus()
    url = reverse("powerfeed-list")
    response = planner_client.patch(url, [{"id": feed_b.pk, "upstream": a.pk}], format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["results"][0]["id"] == feed_b.pk
    assert body["warnings"][0]["after"] == "N"
    # the rack is already N: moving the feed back to PDU-B (not yet) or deleting it (still on PDU-A) takes
    # nothing further below, so the delete answers as before
    assert planner_client.delete(url, [{"id": feed_b.pk}], format="json").status_code == 204


@pytest.mark.django_db
def test_a_strict_bulk_delete_is_a_409_and_writes_nothing(planner_client):
    campus, rack, a, b, feed_b = _campus()
    url = reverse("powerfeed-list")
    refused = planner_client.delete(url + "?strict=true", [{"id": feed_b.pk}], format="json")
    assert refused.status_code == 409
    assert refused.json()["warnings"][0]["racks_at_risk"] == [rack.pk]
    assert models.PowerFeed.objects.filter(pk=feed_b.pk).exists()


@pytest.mark.django_db
def test_a_bad_strict_is_a_400_naming_it(planner_client):
    campus, rack, a, b, feed_b = _campus()
    response = planner_client.delete(reverse("powerfeed-detail", kwargs={"pk": feed_b.pk}) + "?strict=maybe")
    assert response.status_code == 400
    assert "strict" in response.json()
    assert models.PowerFeed.objects.filter(pk=feed_b.pk).exists()


@pytest.mark.django_db
def test_a_committed_writes_levels_are_the_next_writes_before(
    planner_client, django_capture_on_commit_callbacks
):

    campus, rack, a, b, feed_b = _campus()
    url = reverse("powerdevice-detail", kwargs={"pk": a.pk})
    with django_capture_on_commit_callbacks(execute=True):
        assert planner_client.patch(url, {"name": "PDU-A1"}, format="json").status_code == 200
    key = (campus.pk, state.revision_key(campus.pk), state.today())
    kept = redundancy_guard._committed[key]
    assert (kept.declared["power"], kept.achieved["power"]) == ("N+1", "N+1")
    # the next write starts from them and still finds what it does
    response = planner_client.delete(reverse("powerfeed-detail", kwargs={"pk": feed_b.pk}))
    assert (response.json()["warnings"][0]["before"], response.json()["warnings"][0]["after"]) == ("N+1", "N")


@pytest.mark.django_db
def test_the_next_read_after_a_committed_write_takes_the_state_its_guard_searched(
    planner_client, viewer_client, django_capture_on_commit_callbacks
):
    campus, rack, a, b, feed_b = _campus()
    with django_capture_on_commit_callbacks(execute=True):
        response = planner_client.delete(reverse("powerfeed-detail", kwargs={"pk": feed_b.pk}))
    assert response.json()["warnings"][0]["after"] == "N"
    held = state.cached_state(campus.pk)
    # the state the guard built after the write, its pair search done: the read searches nothing again
    assert held is not None and held.revision == state.revision_key(campus.pk)
    assert "redundancy_pairs:True" in snapshot_memo(held.snap)
    read = _levels(viewer_client, campus)["power"]
    assert state.cached_state(campus.pk) is held
    # the same levels as the rows read afresh
    fresh = build_snapshot(campus.pk, state.today())
    assert fresh == held.snap
    assert read["achieved"] == "N" and read["racks_at_risk"] == [rack.pk]


@pytest.mark.django_db
def test_a_rolled_back_write_leaves_no_state_of_its_rows(planner_client):
    campus, rack, a, b, feed_b = _campus()
    response = planner_client.delete(reverse("powerfeed-detail", kwargs={"pk": feed_b.pk}) + "?strict=true")
    assert response.status_code == 409
    held = state.cached_state(campus.pk)
    # what is kept (the guard's "before") is the campus as committed: the B feed still there
    if held is not None:
        assert held.snap == build_snapshot(campus.pk, state.today())
        assert feed_b.pk in {fd.id for fd in held.snap.power_feeds}
