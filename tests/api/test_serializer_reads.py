"""Reading serializers take REST framework's per-field overhead out (twin.api.serializers.base): their
representation of every registered model is exactly what REST framework's own ``to_representation`` gives,
full and brief, and their fields (copied from a prototype) are not shared between two serializers."""

import json

import pytest
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from campus.api.urls import REGISTRY
from twin.api.serializers import TwinModelSerializer


def _drf_reading(serializer_class):
    class Reference(serializer_class):
        def to_representation(self, instance):
            return serializers.ModelSerializer.to_representation(self, instance)

    return Reference


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "viewset"), [(prefix, viewset) for prefix, viewset, _ in REGISTRY])
@pytest.mark.parametrize("brief", [False, True])
def test_reading_gives_rest_frameworks_representation(one_of_each, prefix, viewset, brief):
    serializer_class = viewset.serializer_class
    if not issubclass(serializer_class, TwinModelSerializer):
        pytest.skip("not a TwinModelSerializer")
    objects = list(viewset.queryset.all()[:20])
    assert objects, prefix
    request = Request(APIRequestFactory().get(f"/api/{prefix}/"))
    kwargs = {"many": True, "context": {"request": request}}
    if brief:
        kwargs["brief"] = True
    ours = serializer_class(objects, **kwargs).data
    reference = _drf_reading(serializer_class)(objects, **kwargs).data
    assert json.dumps(ours, default=str) == json.dumps(reference, default=str)


@pytest.mark.django_db
def test_two_reading_serializers_do_not_share_fields(one_of_each):
    from campus.api.serializers_ import RackSerializer
    from campus.models import Rack

    rack = Rack.objects.first()
    first, second = RackSerializer(rack), RackSerializer(rack)
    assert first.data == second.data
    for name, field in first.fields.items():
        assert field is not second.fields[name]
        assert field.parent is first and second.fields[name].parent is second


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "viewset"), [(prefix, viewset) for prefix, viewset, _ in REGISTRY])
def test_one_object_read_twice_gives_rest_frameworks_representation_for_each_request(
    one_of_each, prefix, viewset, settings
):
    """A reading serializer reuses the plan of the first one of its class: the second read, made for another
    host, still gives REST framework's representation, its URLs those of its own request."""
    serializer_class = viewset.serializer_class
    if not issubclass(serializer_class, TwinModelSerializer):
        pytest.skip("not a TwinModelSerializer")
    settings.ALLOWED_HOSTS = ["first.example", "second.example"]
    obj = viewset.queryset.first()
    for host in ("first.example", "second.example"):
        request = Request(APIRequestFactory().get(f"/api/{prefix}/", HTTP_HOST=host))
        ours = serializer_class(obj, context={"request": request}).data
        reference = _drf_reading(serializer_class)(obj, context={"request": request}).data
        assert json.dumps(ours, default=str) == json.dumps(reference, default=str)
        if "url" in ours:
            assert ours["url"].startswith(f"http://{host}/")


@pytest.mark.django_db
def test_shared_fields_are_only_the_ones_that_read_nothing_but_the_value(one_of_each):
    from campus.api.serializers_ import RackSerializer
    from campus.models import Rack

    rack = Rack.objects.first()
    assert RackSerializer(rack).data["name"] == rack.name  # the first read keeps the plan
    plan = RackSerializer(rack)._read_plan()
    shared = {
        name
        for name, _, _, field in plan
        if field.parent is not None and field.parent.__class__ is serializers.Serializer
    }
    assert "name" in shared and "design_kw" in shared
    assert "url" not in shared and "hall" not in shared
