"""A rack is cooled by a unit of its own hall (or one placed in no hall): a CRAH, CDU or rear door serves the
racks of its own room. Every write path refuses a rack given a unit standing in another hall, and a unit moved
away from the racks it cools: the API (one object and bulk), the admin's form (the models' ``clean``) and the
spec import (``campus.interchange.validation``), with the field named.

Truth from outside the code: two halls made here, the unit placed in one and the rack in the other.
"""

from __future__ import annotations

import copy

import pytest

from campus.interchange.validation import CatalogIndex, check_spec
from campus.models import CoolingUnit, Rack
from tests.factories import CoolingUnitFactory, DataHallFactory, RackFactory
from tests.interchange.conftest import SMALL_SPEC

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_halls():
    rack = RackFactory()
    campus, hall = rack.campus, rack.hall
    other = DataHallFactory(building=hall.building, name="H-OTHER")
    here = CoolingUnitFactory(campus=campus, hall=hall, name="CDU-HERE")
    there = CoolingUnitFactory(campus=campus, hall=other, name="CDU-THERE")
    nowhere = CoolingUnitFactory(campus=campus, hall=None, name="CDU-CAMPUS")
    return rack, here, there, nowhere


def test_a_rack_given_a_unit_of_another_hall_is_a_400_naming_cooling_unit(planner_client, two_halls):
    rack, here, there, nowhere = two_halls
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"cooling_unit": there.pk}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["cooling_unit"]
    assert "H-OTHER" in response.json()["cooling_unit"][0]
    rack.refresh_from_db()
    assert rack.cooling_unit_id is None
    for unit in (here, nowhere):
        response = planner_client.patch(f"/api/racks/{rack.pk}/", {"cooling_unit": unit.pk}, format="json")
        assert response.status_code == 200, response.content


def test_a_rack_moved_to_another_hall_with_its_unit_is_a_400(planner_client, two_halls):
    rack, here, there, _ = two_halls
    Rack.objects.filter(pk=rack.pk).update(cooling_unit=here)
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"hall": there.hall_id}, format="json")
    assert response.status_code == 400, response.content
    assert "cooling_unit" in response.json()


def test_a_bulk_request_with_one_such_rack_writes_nothing(planner_client, two_halls):
    rack, here, there, _ = two_halls
    before = Rack.objects.count()
    body = [
        {
            "campus": rack.campus_id,
            "hall": rack.hall_id,
            "name": name,
            "x_m": x,
            "y_m": 0.0,
            "cooling_unit": unit,
        }
        for name, x, unit in (("R-NEW-1", 5.0, here.pk), ("R-NEW-2", 6.0, there.pk))
    ]
    response = planner_client.post("/api/racks/", body, format="json")
    assert response.status_code == 400, response.content
    assert Rack.objects.count() == before


def test_a_unit_moved_away_from_its_racks_is_a_400_naming_hall(planner_client, two_halls):
    rack, here, there, _ = two_halls
    Rack.objects.filter(pk=rack.pk).update(cooling_unit=here)
    response = planner_client.patch(f"/api/cooling-units/{here.pk}/", {"hall": there.hall_id}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["hall"]
    assert "1 rack of other halls is cooled by this unit" in response.json()["hall"][0]
    assert CoolingUnit.objects.get(pk=here.pk).hall_id == rack.hall_id


def test_the_model_clean_used_by_the_admin_refuses_it(two_halls):
    from django.core.exceptions import ValidationError

    rack, _, there, _ = two_halls
    rack.cooling_unit = there
    with pytest.raises(ValidationError) as caught:
        rack.full_clean()
    assert "cooling_unit" in caught.value.message_dict


CATALOG = CatalogIndex(
    node_models={"hgx-h100-8": (1, 8)}, switch_models={"quantum-2-qm9700": 1}, media={"sr": (1, 50.0)}
)


def test_the_spec_import_refuses_a_rack_on_a_unit_of_another_hall():
    spec = copy.deepcopy(SMALL_SPEC)
    assert check_spec(copy.deepcopy(spec), lambda: CATALOG) == []
    building = spec["buildings"][0]
    building["halls"].append({"name": "H2", "x_m": 30.0, "y_m": 5.0, "width_m": 20.0, "length_m": 20.0})
    spec["cooling_units"][0]["hall"] = "H2"
    rack = building["halls"][0]["rows"][0]["racks"][0]
    rack["cooling_unit"] = "CDU-1"
    errors = check_spec(spec, lambda: CATALOG)
    paths = [e["path"] for e in errors]
    assert "buildings[0].halls[0].rows[0].racks[0].cooling_unit" in paths, errors
    spec["cooling_units"][0].pop("hall")  # a unit placed in no hall (nor building) may cool any rack
    spec["cooling_units"][0].pop("building")
    assert check_spec(spec, lambda: CATALOG) == []
