"""Deleting a building or hall deletes what it holds, and is refused (409) while that would rewire elements
outside it without a word: a cooling unit of another building served by one of its plants lost its plant
(204, ``plant: null``), a device of another building fed from one of its devices lost that feed."""

from __future__ import annotations

import pytest

from campus.models import Building, CoolingUnit, DataHall, PowerFeed
from tests.factories import (
    BuildingFactory,
    CoolingPlantFactory,
    CoolingUnitFactory,
    DataHallFactory,
    PowerDeviceFactory,
)

pytestmark = pytest.mark.django_db


def test_a_building_whose_plant_serves_a_unit_elsewhere_is_a_409_and_stays(planner_client):
    b1 = BuildingFactory(name="B1")
    b2 = BuildingFactory(campus=b1.campus, name="B2")
    h1 = DataHallFactory(building=b1, name="H1")
    plant = CoolingPlantFactory(campus=b1.campus, building=b2, name="DRY-1")
    unit = CoolingUnitFactory(campus=b1.campus, hall=h1, plant=plant, name="CRAH-11")
    response = planner_client.delete(f"/api/buildings/{b2.pk}/")
    assert response.status_code == 409, response.content
    assert response.json()["detail"].startswith(
        'Cannot delete "B2": still referenced by 1 object(s) (1 cooling unit(s))'
    )
    assert Building.objects.filter(pk=b2.pk).exists()
    assert CoolingUnit.objects.get(pk=unit.pk).plant_id == plant.pk
    # the unit served by a plant of its own building goes with it: no 409
    CoolingUnit.objects.filter(pk=unit.pk).update(plant=None)
    assert planner_client.delete(f"/api/buildings/{b2.pk}/").status_code == 204


def test_a_building_feeding_a_device_of_another_is_a_409(planner_client):
    b1 = BuildingFactory(name="B1")
    b2 = BuildingFactory(campus=b1.campus, name="B2")
    sub = PowerDeviceFactory(campus=b1.campus, building=b1, kind="substation", name="SUB")
    tx = PowerDeviceFactory(campus=b1.campus, building=b2, kind="transformer", name="TX")
    PowerFeed.objects.create(campus=b1.campus, upstream=sub, downstream_device=tx, side="A", rating_kw=1000.0)
    response = planner_client.delete(f"/api/buildings/{b1.pk}/")
    assert response.status_code == 409, response.content
    assert "1 power feed(s)" in response.json()["detail"]


def test_a_hall_with_only_its_own_contents_is_deleted(planner_client):
    hall = DataHallFactory(name="H-GONE")
    CoolingUnitFactory(campus=hall.building.campus, hall=hall, name="CRAH-GONE")
    assert planner_client.delete(f"/api/halls/{hall.pk}/").status_code == 204
    assert not DataHall.objects.filter(pk=hall.pk).exists()
