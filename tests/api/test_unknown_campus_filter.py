"""``?campus=<id>`` naming no campus is a 400 naming the parameter and the id, on every list (the filter
backend's one check, ``twin.api.filters.unknown_references``), not django-filter's generic "Select a valid
choice" nor an empty page that reads as a campus with nothing in it.

Truth from outside the code: the campus ids the test creates; an id one above the largest cannot exist.
"""

from __future__ import annotations

import pytest

from tests.factories import BuildingFactory, CampusFactory, RackFactory

pytestmark = pytest.mark.django_db


def _absent_id() -> int:
    from campus.models import Campus

    return max(Campus.objects.values_list("pk", flat=True), default=0) + 999


@pytest.mark.parametrize(
    "path",
    [
        "/api/buildings/",  # ?campus= a foreign key of the row (django-filter's model choice)
        "/api/racks/",  # ?campus= a foreign key of the row
        "/api/halls/",  # ?campus= through building__campus
        "/api/cooling-units/",
    ],
)
def test_a_campus_that_does_not_exist_is_a_400_naming_the_field_and_the_id(viewer_client, path):
    BuildingFactory()
    missing = _absent_id()
    response = viewer_client.get(f"{path}?campus={missing}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert list(body) == ["campus"]
    (message,) = body["campus"]
    assert f"There is no campus {missing}" in message
    assert "valid choice" not in message


def test_a_list_of_campuses_names_the_missing_ones_only(viewer_client):
    present = CampusFactory().pk
    missing = _absent_id()
    response = viewer_client.get(f"/api/buildings/?campus__in={present},{missing}")
    assert response.status_code == 400, response.content
    assert response.json() == {
        "campus__in": [f"There is no campus {missing} (?campus__in= takes the id of an existing campus)."]
    }


def test_an_existing_campus_still_filters_and_a_word_keeps_its_own_message(viewer_client):
    rack = RackFactory()
    RackFactory()  # another campus's rack
    response = viewer_client.get(f"/api/racks/?campus={rack.campus_id}")
    assert response.status_code == 200
    assert [r["id"] for r in response.json()["results"]] == [rack.pk]
    response = viewer_client.get("/api/racks/?campus=abc")
    assert response.status_code == 400
    assert list(response.json()) == ["campus"]
