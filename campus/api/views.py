"""Inventory and catalog endpoints: queryset + serializer + filterset, NetBox dcim/api/views.py style."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.exceptions import ValidationError

from campus import models
from campus.api import filtersets, history
from campus.api import serializers_ as s
from campus.api.mixins import (
    BRIEF_PARAMETER,
    AtomicWriteMixin,
    BriefModeMixin,
    BulkMixin,
    ConditionalGetMixin,
    HistoryMixin,
)
from campus.api.pagination import ChangePagination
from campus.api.rack_power import rack_prefetches


def inventory_schema(serializer_class, noun: str):
    """The OpenAPI documentation shared by every model endpoint."""
    return extend_schema_view(
        list=extend_schema(summary=f"List {noun}", parameters=[BRIEF_PARAMETER]),
        retrieve=extend_schema(summary=f"Get one {noun.rstrip('s')}", parameters=[BRIEF_PARAMETER]),
        create=extend_schema(
            summary=f"Create {noun}",
            description="Send one object, or a JSON list of objects to create them all in one atomic request "
            "(errors keyed by list index). Related objects are written by id.",
        ),
        update=extend_schema(summary=f"Replace one {noun.rstrip('s')}"),
        partial_update=extend_schema(summary=f"Update fields of one {noun.rstrip('s')}"),
        destroy=extend_schema(summary=f"Delete one {noun.rstrip('s')}"),
    )


class TwinModelViewSet(
    BriefModeMixin, BulkMixin, ConditionalGetMixin, AtomicWriteMixin, viewsets.ModelViewSet
):
    """List (filter, search, order, paginate), get, create (one object or a list), update and delete;
    related objects are written by id and read as brief objects."""

    search_fields = ("name",)
    ordering_fields = "__all__"
    full_prefetch = None


class InventoryViewSet(HistoryMixin, TwinModelViewSet):
    """List (filter, search, order, paginate), get, create (one object or a list), update and delete;
    related objects are written by id and read as brief objects. Every change is kept in the history."""


# ---------------------------------------------------------------- sites


@inventory_schema(s.UtilityFeedSerializer, "utility feeds")
class UtilityFeedViewSet(InventoryViewSet):
    queryset = models.UtilityFeed.objects.select_related("campus")
    serializer_class = s.UtilityFeedSerializer
    filterset_class = filtersets.UtilityFeedFilterSet
    search_fields = ("name", "utility")


@inventory_schema(s.BuildingSerializer, "buildings")
class BuildingViewSet(InventoryViewSet):
    queryset = models.Building.objects.select_related("campus")
    serializer_class = s.BuildingSerializer
    filterset_class = filtersets.BuildingFilterSet


@inventory_schema(s.DataHallSerializer, "data halls")
class DataHallViewSet(InventoryViewSet):
    queryset = models.DataHall.objects.select_related("building")
    serializer_class = s.DataHallSerializer
    filterset_class = filtersets.DataHallFilterSet


@inventory_schema(s.RowSerializer, "rows")
class RowViewSet(InventoryViewSet):
    queryset = models.Row.objects.select_related("hall")
    serializer_class = s.RowSerializer
    filterset_class = filtersets.RowFilterSet


@inventory_schema(s.RackSerializer, "racks")
class RackViewSet(InventoryViewSet):
    queryset = models.Rack.objects.select_related("campus", "hall", "row", "cooling_unit", "pod")
    serializer_class = s.RackSerializer
    filterset_class = filtersets.RackFilterSet

    @staticmethod
    def full_prefetch():
        return rack_prefetches()


# ---------------------------------------------------------------- power and cooling


@inventory_schema(s.PowerDeviceSerializer, "power devices")
class PowerDeviceViewSet(InventoryViewSet):
    queryset = models.PowerDevice.objects.select_related("campus", "building", "hall", "utility_feed")
    serializer_class = s.PowerDeviceSerializer
    filterset_class = filtersets.PowerDeviceFilterSet


@inventory_schema(s.PowerFeedSerializer, "power feeds")
class PowerFeedViewSet(InventoryViewSet):
    queryset = models.PowerFeed.objects.select_related("campus", "upstream", "downstream_device", "rack")
    serializer_class = s.PowerFeedSerializer
    filterset_class = filtersets.PowerFeedFilterSet
    search_fields = ("upstream__name", "downstream_device__name", "rack__name")


@inventory_schema(s.CoolingPlantSerializer, "cooling plants")
class CoolingPlantViewSet(InventoryViewSet):
    queryset = models.CoolingPlant.objects.select_related("campus", "building", "power_device")
    serializer_class = s.CoolingPlantSerializer
    filterset_class = filtersets.CoolingPlantFilterSet


@inventory_schema(s.CoolingUnitSerializer, "cooling units")
class CoolingUnitViewSet(InventoryViewSet):
    queryset = models.CoolingUnit.objects.select_related("campus", "hall", "plant", "power_device")
    serializer_class = s.CoolingUnitSerializer
    filterset_class = filtersets.CoolingUnitFilterSet
    search_fields = ("name", "group")


# ---------------------------------------------------------------- compute and network


@inventory_schema(s.NodeSerializer, "nodes")
class NodeViewSet(InventoryViewSet):
    queryset = models.Node.objects.select_related("rack", "node_model")
    serializer_class = s.NodeSerializer
    filterset_class = filtersets.NodeFilterSet
    search_fields = ("name", "serial")


@inventory_schema(s.PodSerializer, "pods")
class PodViewSet(InventoryViewSet):
    queryset = models.Pod.objects.select_related("campus", "building", "switch_model")
    serializer_class = s.PodSerializer
    filterset_class = filtersets.PodFilterSet


@inventory_schema(s.SwitchSerializer, "switches")
class SwitchViewSet(InventoryViewSet):
    queryset = models.Switch.objects.select_related("campus", "pod", "hall", "rack", "model")
    serializer_class = s.SwitchSerializer
    filterset_class = filtersets.SwitchFilterSet


@inventory_schema(s.LinkSerializer, "links")
class LinkViewSet(InventoryViewSet):
    queryset = models.Link.objects.select_related("campus", "pod", "a_rack", "a_switch", "b_switch", "medium")
    serializer_class = s.LinkSerializer
    filterset_class = filtersets.LinkFilterSet
    search_fields = ("a_rack__name", "a_switch__name", "b_switch__name")


# ---------------------------------------------------------------- catalog


class CatalogViewSet(TwinModelViewSet):
    search_fields = ("slug", "name", "source")


@inventory_schema(s.GPUModelSerializer, "GPU models")
class GPUModelViewSet(CatalogViewSet):
    queryset = models.GPUModel.objects.all()
    serializer_class = s.GPUModelSerializer
    filterset_class = filtersets.GPUModelFilterSet
    search_fields = ("slug", "name", "vendor")


@inventory_schema(s.NodeModelSerializer, "node models")
class NodeModelViewSet(CatalogViewSet):
    queryset = models.NodeModel.objects.select_related("gpu_model")
    serializer_class = s.NodeModelSerializer
    filterset_class = filtersets.NodeModelFilterSet


@inventory_schema(s.SwitchModelSerializer, "switch models")
class SwitchModelViewSet(CatalogViewSet):
    queryset = models.SwitchModel.objects.all()
    serializer_class = s.SwitchModelSerializer
    filterset_class = filtersets.SwitchModelFilterSet
    search_fields = ("slug", "name", "vendor")


@inventory_schema(s.LinkMediumSerializer, "link media")
class LinkMediumViewSet(CatalogViewSet):
    queryset = models.LinkMedium.objects.all()
    serializer_class = s.LinkMediumSerializer
    filterset_class = filtersets.LinkMediumFilterSet


@inventory_schema(s.FailureRateSerializer, "failure rates")
class FailureRateViewSet(CatalogViewSet):
    queryset = models.FailureRate.objects.all()
    serializer_class = s.FailureRateSerializer
    filterset_class = filtersets.FailureRateFilterSet
    search_fields = ("dataset", "component", "source")


# ---------------------------------------------------------------- users and the change log


@inventory_schema(s.UserSerializer, "users")
class UserViewSet(BriefModeMixin, BulkMixin, AtomicWriteMixin, viewsets.ModelViewSet):
    """Admins only: accounts and their role (viewer, planner, admin)."""

    queryset = get_user_model().objects.prefetch_related("groups").order_by("username")
    serializer_class = s.UserSerializer
    filterset_class = filtersets.UserFilterSet
    search_fields = ("username", "email", "first_name", "last_name")
    ordering_fields = ("id", "username", "email", "date_joined", "last_login")
    read_role = "admin"
    write_role = "admin"


@extend_schema_view(
    list=extend_schema(
        summary="Change log across the inventory",
        description="Every create (+), change (~) and delete (-) of inventory objects, newest first, with the "
        "user and each field's before and after. Filter with `model` (e.g. `rack`) and `object_id`.",
        parameters=[
            OpenApiParameter("model", OpenApiTypes.STR, description="Model name, e.g. rack, powerdevice."),
            OpenApiParameter(
                "object_id", OpenApiTypes.INT, description="Only this object's changes (needs model)."
            ),
        ],
    )
)
class ChangeViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = s.ChangeSerializer
    pagination_class = ChangePagination
    filter_backends: list = []

    def get_queryset(self):  # only for the schema generator; list() reads the history tables itself
        return models.Campus.history.none()

    def list(self, request, *args, **kwargs):
        tracked = history.tracked_models()
        name = request.query_params.get("model", "").strip().lower().replace("-", "").replace("_", "")
        object_id = request.query_params.get("object_id")
        if name:
            aliases = {k: v for k, v in tracked.items()}
            aliases.update({m._meta.verbose_name_plural.replace(" ", ""): m for m in tracked.values()})
            aliases.update({m._meta.verbose_name.replace(" ", ""): m for m in tracked.values()})
            if name not in aliases:
                raise ValidationError({"model": [f"Unknown model; one of {', '.join(sorted(tracked))}."]})
            selected = [aliases[name]]
        else:
            selected = list(tracked.values())
        if object_id not in (None, ""):
            try:
                object_id = int(object_id)
            except ValueError:
                raise ValidationError({"object_id": ["A valid integer is required."]}) from None
            if not 1 <= object_id <= 2**63 - 1:
                raise ValidationError({"object_id": ["Out of range."]})
        else:
            object_id = None
        paginator = self.paginator
        limit = paginator.get_limit(request)
        offset = paginator.get_offset(request)
        total, page = history.merged_page(selected, object_id, offset, limit)
        paginator.count, paginator.limit, paginator.offset, paginator.request = total, limit, offset, request
        return paginator.get_paginated_response(s.ChangeSerializer(history.entries(page), many=True).data)


@inventory_schema(s.CampusSerializer, "campuses")
class CampusViewSet(InventoryViewSet):
    queryset = models.Campus.objects.all()
    serializer_class = s.CampusSerializer
    filterset_class = filtersets.CampusFilterSet
    search_fields = ("name", "location")
