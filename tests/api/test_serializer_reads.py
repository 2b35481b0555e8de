"""Reading serializers take REST framework's per-field overhead out (twin.api.serializers.base): their
representation of every registered model is exactly what REST framework's own ``to_representation`` gives,
full and brief, and their fields (copied from a prototype) are not shared between two serializers."""

import json

import pytest
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from campus.api.urls import REGISTRY
from tests import factories as f
from twin.api.serializers import TwinModelSerializer


def _drf_reading(serializer_class):
    class Reference(serializer_class):
        def to_representation(self, instance):
            return serializers.ModelSerializer.to_representation(self, instance)

    return Reference


@pytest.fixture
def one_of_each(db):
    node = f.NodeFactory()
    campus = node.rack.campus
    f.PowerFeedFactory(rack=node.rack, campus=campus)
    f.LinkFactory(campus=campus)
    f.CoolingUnitFactory(campus=campus)
    f.CoolingPlantFactory(campus=campus)
    f.UtilityFeedFactory(campus=campus)
    f.EnergyStorageFactory(campus=campus)
    f.SwitchFactory(campus=campus)
    f.PodFactory(campus=campus)
    f.FailureRateFactory()
    f.RowFactory()
    f.UserFactory()
    return campus


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
