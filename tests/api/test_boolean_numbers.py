"""A JSON boolean is not a number on any write (JSON, RFC 8259 section 3: ``true`` and ``false`` are literal
names, not numbers). Python reads ``True`` as 1, so REST framework's float fields stored ``{"capacity_kw":
true}`` as 1.0 (a 200); the spec importer's JSON Schema, placement and the generator refuse it. Every
writable number field of every model endpoint answers 400 naming the field, alone, in a bulk write, and
beside another field's error."""

import pytest
from rest_framework import serializers

from campus.api.urls import REGISTRY as CAMPUS_REGISTRY
from campus.models import CoolingUnit, PowerDevice, PowerFeed
from simulations.api.urls import REGISTRY as SIMULATION_REGISTRY

REGISTRY = [(prefix, viewset) for prefix, viewset, _ in (*CAMPUS_REGISTRY, *SIMULATION_REGISTRY)]
NUMBERS = (serializers.FloatField, serializers.IntegerField, serializers.DecimalField)


def _number_fields(viewset) -> list[str]:
    serializer = viewset.serializer_class(data={})  # a writing serializer: every field, none from a cache
    return [
        name
        for name, field in serializer.fields.items()
        if isinstance(field, NUMBERS) and not field.read_only
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "viewset"), REGISTRY)
def test_every_number_field_refuses_a_boolean(one_of_each, admin_client_api, prefix, viewset):
    model = viewset.queryset.model
    obj = model.objects.order_by("pk").first()
    fields = _number_fields(viewset)
    if obj is None or not fields:
        pytest.skip(f"{prefix}: no object or no number field")
    before = {name: getattr(obj, viewset.serializer_class().fields[name].source, None) for name in fields}
    for name in fields:
        for value in (True, False):
            response = admin_client_api.patch(f"/api/{prefix}/{obj.pk}/", {name: value}, format="json")
            assert response.status_code == 400, (prefix, name, value, response.content)
            assert response.json() == {name: [f"{name} must be a number, not a boolean."]}, (prefix, name)
    obj.refresh_from_db()
    after = {name: getattr(obj, viewset.serializer_class().fields[name].source, None) for name in fields}
    assert after == before


def test_the_reviewed_fields_are_among_those_checked():
    checked = {prefix: set(_number_fields(viewset)) for prefix, viewset in REGISTRY}
    assert "capacity_kw" in checked["cooling-units"]
    assert "rating_kw" in checked["power-feeds"]
    assert "rated_kw" in checked["power-devices"]
    assert "capacity_mw" in checked["utility-feeds"]
    assert "grid_capacity_mw" in checked["campuses"]
    assert sum(len(names) for names in checked.values()) >= 40


@pytest.mark.django_db
def test_a_boolean_is_named_beside_another_fields_error(one_of_each, planner_client):
    unit = CoolingUnit.objects.first()
    response = planner_client.patch(
        f"/api/cooling-units/{unit.pk}/", {"capacity_kw": True, "name": ""}, format="json"
    )
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["capacity_kw"] == ["capacity_kw must be a number, not a boolean."]
    assert "name" in body


@pytest.mark.django_db
def test_create_refuses_a_boolean(one_of_each, planner_client):
    device = PowerDevice.objects.first()
    body = {"campus": device.campus_id, "name": "PDU-bool", "kind": "pdu", "rated_kw": True}
    response = planner_client.post("/api/power-devices/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"rated_kw": ["rated_kw must be a number, not a boolean."]}
    assert not PowerDevice.objects.filter(name="PDU-bool").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["put", "patch"])
def test_bulk_writes_refuse_a_boolean_by_index(one_of_each, planner_client, method):
    feeds = list(PowerFeed.objects.order_by("pk"))
    if method == "put":
        items = [planner_client.get(f"/api/power-feeds/{feed.pk}/").json() for feed in feeds]
        for item in items:
            for key, value in list(item.items()):
                if isinstance(value, dict) and "id" in value:
                    item[key] = value["id"]
    else:
        items = [{"id": feed.pk} for feed in feeds]
    items[1]["rating_kw"] = True
    response = getattr(planner_client, method)("/api/power-feeds/", items, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"1": {"rating_kw": ["rating_kw must be a number, not a boolean."]}}
    assert [feed.rating_kw for feed in PowerFeed.objects.order_by("pk")] == [feed.rating_kw for feed in feeds]
