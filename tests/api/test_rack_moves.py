"""Moving a rack and re-rating a device through the API, as the floor map's edit mode does: the server refuses a
rack on another rack's tiles or outside its hall with a 400 naming the field (nothing written), and the change
log gives each field's value before and after, also for objects written in bulk (an import or a branch writes
no per-row history)."""

import copy

import pytest

from campus.branching import create_branch
from campus.interchange.importer import import_campus
from campus.models import PowerDevice, Rack
from tests.interchange.conftest import SMALL_SPEC
from twin.api.history import BASELINE_REASON


@pytest.fixture
def small(db):
    return import_campus(copy.deepcopy(SMALL_SPEC))


def test_a_rack_moved_onto_another_rack_is_400_on_x_m_and_nothing_moves(planner_client, small):
    # SMALL_SPEC: R01-01 at x=3.0 and R01-02 at x=3.6 (0.6 m wide racks side by side), both at y=3.0.
    one = Rack.objects.get(campus=small, name="R01-01")
    two = Rack.objects.get(campus=small, name="R01-02")
    response = planner_client.patch(f"/api/racks/{two.pk}/", {"x_m": 3.3, "y_m": 3.0}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["x_m"]
    assert f'overlaps rack "{one.name}"' in response.json()["x_m"][0]
    two.refresh_from_db()
    assert (two.x_m, two.y_m) == (3.6, 3.0)
    assert not Rack.history.filter(id=two.pk).exists()


def test_a_rack_moved_past_the_hall_s_far_wall_is_400_on_y_m(planner_client, small):
    # The hall is 20 m long; a 1.2 m deep rack with its corner at y=19.5 reaches 20.7 m.
    rack = Rack.objects.get(campus=small, name="R01-02")
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"y_m": 19.5}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["y_m"]
    assert "outside its hall (0..20.0 m)" in response.json()["y_m"][0]


def test_a_free_spot_is_taken_and_the_change_log_gives_before_and_after(planner_client, small, planner):
    rack = Rack.objects.get(campus=small, name="R01-02")
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"x_m": 10.0, "y_m": 8.0}, format="json")
    assert response.status_code == 200, response.content
    changes = planner_client.get(f"/api/changes/?model=rack&object_id={rack.pk}").json()["results"]
    # Newest first: the move, then the state recorded before it (the import wrote the rack without history).
    assert [c["type"] for c in changes] == ["~", "~"]
    move, before = changes
    assert move["user"]["username"] == planner.username
    assert {c["field"]: (c["old"], c["new"]) for c in move["changes"]} == {
        "x_m": (3.6, 10.0),
        "y_m": (3.0, 8.0),
    }
    assert before["reason"] == BASELINE_REASON
    # A second change diffs against the first; no second baseline.
    planner_client.patch(f"/api/racks/{rack.pk}/", {"x_m": 11.0}, format="json")
    changes = planner_client.get(f"/api/changes/?model=rack&object_id={rack.pk}").json()["results"]
    assert len(changes) == 3
    assert changes[0]["changes"] == [{"field": "x_m", "old": 10.0, "new": 11.0}]


def test_a_branch_s_first_rating_change_shows_the_rating_it_replaced(planner_client, small):
    branch = create_branch(small, "Small – re-rated")
    ups = PowerDevice.objects.get(campus=branch, name="UPS-A")
    old = ups.rated_kw
    refused = planner_client.patch(f"/api/power-devices/{ups.pk}/", {"rated_kw": -5}, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["rated_kw"]
    assert not PowerDevice.history.filter(id=ups.pk).exists()
    response = planner_client.patch(f"/api/power-devices/{ups.pk}/", {"rated_kw": old + 100}, format="json")
    assert response.status_code == 200, response.content
    latest = planner_client.get(f"/api/changes/?model=powerdevice&object_id={ups.pk}").json()["results"][0]
    assert latest["changes"] == [{"field": "rated_kw", "old": old, "new": old + 100}]
