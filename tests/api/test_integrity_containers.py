"""A hall or building that moves or shrinks is checked against what it already holds (issue: an inventory
the API cannot corrupt). The spec importer refuses a rack outside its hall and a hall outside its building;
before, a PATCH of the hall or building was accepted and left racks and halls outside their container.

The small campus (tests/interchange/conftest.py): building B1 is 60 x 40 m; hall H1 sits at (5, 5) and is
20 x 20 m; its racks R01-01 and R01-02 stand at x = 3.0 and 3.6 m, y = 3.0 m, 0.6 x 1.2 m each, so their
far edges are at x = 4.2 m and y = 4.2 m."""

import copy

import pytest

from campus.interchange.importer import import_campus
from campus.interchange.validation import check_spec
from campus.models import Building, CoolingUnit, DataHall, Rack
from tests.interchange.conftest import SMALL_SPEC
from tests.interchange.test_validation_pure import CATALOG


@pytest.fixture
def campus(db):
    return import_campus(copy.deepcopy(SMALL_SPEC))


@pytest.fixture
def other(db, campus):
    spec = copy.deepcopy(SMALL_SPEC)
    spec["campus"]["name"] = "Other"
    return import_campus(spec)


def hall(campus):
    return DataHall.objects.get(building__campus=campus)


def building(campus):
    return Building.objects.get(campus=campus)


@pytest.mark.parametrize(
    "body, field",
    [
        ({"width_m": 4.0}, "width_m"),  # 4.0 < 4.2: R01-02 would stick out
        ({"length_m": 4.0}, "length_m"),  # 4.0 < 4.2: both racks would stick out
    ],
)
def test_shrinking_a_hall_under_its_racks_is_400(planner_client, campus, body, field):
    h = hall(campus)
    response = planner_client.patch(f"/api/halls/{h.pk}/", body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == [field]
    assert "R01-0" in response.json()[field][0]
    h.refresh_from_db()
    assert (h.width_m, h.length_m) == (20.0, 20.0)


def test_shrinking_a_hall_to_just_hold_its_racks_is_fine(planner_client, campus):
    h = hall(campus)
    response = planner_client.patch(f"/api/halls/{h.pk}/", {"width_m": 4.2, "length_m": 4.2}, format="json")
    assert response.status_code == 200, response.content


def test_moving_a_hall_out_of_its_building_is_400(planner_client, campus):
    h = hall(campus)
    # 45 + 20 = 65 m > the building's 60 m.
    response = planner_client.patch(f"/api/halls/{h.pk}/", {"x_m": 45.0}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["width_m"] and "60.0 m" in response.json()["width_m"][0]
    response = planner_client.patch(f"/api/halls/{h.pk}/", {"y_m": -1.0}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["y_m"]


def test_a_new_hall_outside_its_building_is_400(planner_client, campus):
    body = {"building": building(campus).pk, "name": "H2", "x_m": 30.0, "y_m": 0.0, "width_m": 20.0}
    response = planner_client.post("/api/halls/", {**body, "length_m": 41.0}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["length_m"]
    assert planner_client.post("/api/halls/", {**body, "length_m": 40.0}, format="json").status_code == 201


def test_shrinking_a_building_under_its_hall_is_400(planner_client, campus):
    b = building(campus)
    # The hall ends at 5 + 20 = 25 m on both axes.
    response = planner_client.patch(f"/api/buildings/{b.pk}/", {"width_m": 24.0}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["width_m"] and "H1" in response.json()["width_m"][0]
    assert (
        planner_client.patch(f"/api/buildings/{b.pk}/", {"width_m": 25.0}, format="json").status_code == 200
    )


def test_bulk_hall_and_building_updates_are_checked_and_write_nothing(planner_client, campus, other):
    h1, h2 = hall(campus), hall(other)
    body = [{"id": h1.pk, "width_m": 10.0}, {"id": h2.pk, "width_m": 3.0}]
    response = planner_client.patch("/api/halls/", body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["1"] and "width_m" in response.json()["1"]
    assert DataHall.objects.get(pk=h1.pk).width_m == 20.0
    body = [{"id": building(campus).pk, "length_m": 30.0}, {"id": building(other).pk, "length_m": 20.0}]
    response = planner_client.patch("/api/buildings/", body, format="json")
    assert response.status_code == 400 and list(response.json()) == ["1"]
    assert building(campus).length_m == 40.0


def test_moving_a_hall_into_another_campus_building_is_400(planner_client, campus, other):
    h = hall(campus)
    response = planner_client.patch(f"/api/halls/{h.pk}/", {"building": building(other).pk}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["building"]
    assert Rack.objects.filter(hall=h, campus=campus).count() == 2


def test_the_admin_form_refuses_a_hall_shrunk_under_its_racks(campus, admin_user, rf):
    from django.contrib import admin
    from django.forms.models import model_to_dict

    h = hall(campus)
    request = rf.post("/admin/")
    request.user = admin_user
    form_class = admin.site._registry[DataHall].get_form(request, h)
    form = form_class(data={**model_to_dict(h), "width_m": 4.0}, instance=h)
    assert not form.is_valid() and "R01-02" in form.errors["width_m"][0]
    b = building(campus)
    form_class = admin.site._registry[Building].get_form(request, b)
    form = form_class(data={**model_to_dict(b), "length_m": 20.0}, instance=b)
    assert not form.is_valid() and "H1" in form.errors["length_m"][0]


# A cooling unit's floor position is its corner in its hall (the floor map and placement read it): H1 is
# 20 x 20 m, so a corner at x = -5 m or y = 1e9 m says nothing true about where the unit stands.
@pytest.mark.parametrize(
    "body, field",
    [
        ({"x_m": -5.0, "y_m": 1.0}, "x_m"),
        ({"x_m": 1.0, "y_m": 1e9}, "y_m"),
        ({"x_m": 1.0}, "y_m"),  # half a position
    ],
)
def test_a_cooling_unit_outside_its_hall_is_400_naming_the_field(planner_client, campus, body, field):
    unit = CoolingUnit.objects.get(campus=campus, name="CDU-1")
    response = planner_client.patch(f"/api/cooling-units/{unit.pk}/", body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == [field]
    new = {"campus": campus.pk, "hall": hall(campus).pk, "name": "CDU-2", "kind": "cdu", "capacity_kw": 100}
    response = planner_client.post("/api/cooling-units/", [{**new, **body}], format="json")
    assert response.status_code == 400 and list(response.json()["0"]) == [field]
    assert (
        planner_client.post(
            "/api/cooling-units/", {**new, "x_m": 20.0, "y_m": 0.0}, format="json"
        ).status_code
        == 201
    )


def test_a_cooling_unit_in_no_hall_has_no_floor_position(planner_client, campus):
    body = {"campus": campus.pk, "name": "CDU-9", "kind": "cdu", "capacity_kw": 100, "x_m": 1.0, "y_m": 1.0}
    response = planner_client.post("/api/cooling-units/", body, format="json")
    assert response.status_code == 400 and list(response.json()) == ["x_m"]


def test_the_spec_importer_refuses_a_cooling_unit_outside_its_hall():
    spec = copy.deepcopy(SMALL_SPEC)
    spec["cooling_units"][0].update(x_m=25.0, y_m=2.0)
    errors = check_spec(spec, lambda: CATALOG)
    assert [e["path"] for e in errors] == ["cooling_units[0].x_m"]


def test_shrinking_a_hall_under_a_cooling_unit_is_400(planner_client, campus):
    unit = CoolingUnit.objects.get(campus=campus, name="CDU-1")
    assert (
        planner_client.patch(
            f"/api/cooling-units/{unit.pk}/", {"x_m": 15.0, "y_m": 2.0}, format="json"
        ).status_code
        == 200
    )
    h = hall(campus)
    response = planner_client.patch(f"/api/halls/{h.pk}/", {"width_m": 10.0}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["width_m"]
    assert "CDU-1" in response.json()["width_m"][0]
    assert planner_client.patch(f"/api/halls/{h.pk}/", {"width_m": 15.0}, format="json").status_code == 200
