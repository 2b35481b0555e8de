"""Deleting an element that supplies others answers 409 naming what depends on it (count and kind), as
deleting a node model still used by servers does; deleting a container (campus, building, hall, row, rack,
pod) deletes what it holds, as before (docs/api.md, "Deleting").

Before, ``DELETE /api/power-devices/<PDU>/`` removed the PDU's feeds to its racks (the racks went single-fed
without a word), and deleting a cooling unit, plant or utility feed unlinked the racks, units or devices it
supplied. The counts are read off the small spec (tests/interchange/conftest.py): PDU-A feeds racks R01-01
and R01-02 (2 feeds); UPS-A feeds PDU-A (1 feed) and powers CDU-1 (1 unit); CDU-1 cools both racks; plant
DRY-1 serves CDU-1; utility feed UTIL-A supplies SUB-A."""

import copy

import pytest

from campus.interchange.importer import import_campus
from campus.models import CoolingPlant, CoolingUnit, DataHall, PowerDevice, PowerFeed, Rack, UtilityFeed
from tests.interchange.conftest import SMALL_SPEC

TAIL = "that depend on it; delete them or point them elsewhere first."


@pytest.fixture
def campus(db):
    return import_campus(copy.deepcopy(SMALL_SPEC))


@pytest.mark.parametrize(
    ("prefix", "model", "name", "named"),
    [
        ("power-devices", PowerDevice, "PDU-A", "2 object(s) (2 power feed(s))"),
        ("power-devices", PowerDevice, "UPS-A", "2 object(s) (1 cooling unit(s), 1 power feed(s))"),
        ("cooling-units", CoolingUnit, "CDU-1", "2 object(s) (2 rack(s))"),
        ("cooling-plants", CoolingPlant, "DRY-1", "1 object(s) (1 cooling unit(s))"),
        ("utility-feeds", UtilityFeed, "UTIL-A", "1 object(s) (1 power device(s))"),
    ],
)
def test_deleting_a_supplier_is_409_naming_its_dependents(planner_client, campus, prefix, model, name, named):
    obj = model.objects.get(campus=campus, name=name)
    feeds = PowerFeed.objects.count()
    racks = list(Rack.objects.order_by("pk").values_list("cooling_unit", flat=True))
    response = planner_client.delete(f"/api/{prefix}/{obj.pk}/")
    assert response.status_code == 409, response.content
    assert response.json() == {"detail": f'Cannot delete "{name}": still referenced by {named} {TAIL}'}
    assert model.objects.filter(pk=obj.pk).exists()
    assert PowerFeed.objects.count() == feeds
    assert list(Rack.objects.order_by("pk").values_list("cooling_unit", flat=True)) == racks
    assert CoolingUnit.objects.get(name="CDU-1").plant is not None
    assert PowerDevice.objects.get(name="SUB-A").utility_feed is not None


def test_bulk_delete_of_a_supplier_is_409_and_deletes_nothing(planner_client, campus):
    pdus = list(PowerDevice.objects.filter(name__in=["PDU-A", "PDU-B"]).order_by("name"))
    response = planner_client.delete("/api/power-devices/", [{"id": d.pk} for d in pdus], format="json")
    assert response.status_code == 409, response.content
    assert response.json()["detail"].startswith('Cannot delete "PDU-A": still referenced by 2 object(s)')
    assert PowerDevice.objects.filter(name__in=["PDU-A", "PDU-B"]).count() == 2
    assert PowerFeed.objects.filter(rack__isnull=False).count() == 4


def test_a_supplier_freed_of_its_dependents_deletes_with_the_feed_into_it(planner_client, campus):
    pdu = PowerDevice.objects.get(name="PDU-A")
    out = [{"id": feed.pk} for feed in pdu.downstream_feeds.all()]
    assert len(out) == 2
    assert planner_client.delete("/api/power-feeds/", out, format="json").status_code == 204
    assert planner_client.delete(f"/api/power-devices/{pdu.pk}/").status_code == 204
    # the UPS-A → PDU-A feed only served the PDU: it goes with it
    assert not PowerFeed.objects.filter(upstream__name="UPS-A").exists()
    assert PowerFeed.objects.count() == 4 + 4 - 2 - 1  # 4 device feeds + 4 rack feeds, less 2 out and 1 in


def test_deleting_a_container_still_deletes_what_it_holds(planner_client, campus):
    hall = DataHall.objects.get(name="H1")
    response = planner_client.delete(f"/api/halls/{hall.pk}/")
    assert response.status_code == 204, response.content
    assert not Rack.objects.exists()
    assert not CoolingUnit.objects.exists()


@pytest.fixture
def staff(db):
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", "pw-root"))
    return client


def test_the_admin_refuses_the_same_deletion(staff, campus):
    pdu = PowerDevice.objects.get(name="PDU-A")
    response = staff.post(f"/admin/campus/powerdevice/{pdu.pk}/delete/", {"post": "yes"}, follow=True)
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert shown == [
        f'Not deleted: Cannot delete "PDU-A": still referenced by 2 object(s) (2 power feed(s)) {TAIL}'
    ]
    assert PowerDevice.objects.filter(pk=pdu.pk).exists()
    assert PowerFeed.objects.filter(upstream=pdu).count() == 2
    unit = CoolingUnit.objects.get(name="CDU-1")
    body = {"action": "delete_selected", "_selected_action": [unit.pk], "post": "yes"}
    response = staff.post("/admin/campus/coolingunit/", body, follow=True)
    assert response.status_code == 200
    assert CoolingUnit.objects.filter(pk=unit.pk).exists()
    assert Rack.objects.filter(cooling_unit=unit).count() == 2
