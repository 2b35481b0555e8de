"""The inventory and catalog endpoints of the campus app: queryset + serializer + filterset, NetBox
dcim/api/views.py style."""

from __future__ import annotations

from campus import models
from campus.api import filtersets
from campus.api import serializers_ as s
from campus.api.rack_power import attach_power_rows
from campus.api.redundancy_warnings import RedundancyWarningsMixin
from campus.integrity import WriteCheck
from twin.api.viewsets import InventoryViewSet, TwinModelViewSet, inventory_schema


class CampusInventoryViewSet(RedundancyWarningsMixin, InventoryViewSet):
    """An inventory endpoint whose writes keep the importer's rules on the final state of each request
    (campus.integrity): references within one campus, an acyclic power graph, no overlapping racks,
    whole rack-scale NVLink domains."""

    def write_check(self):
        return self.guarded_check(WriteCheck())

    def filter_queryset(self, queryset):
        return one_campus_order(super().filter_queryset(queryset), self)


def one_campus_order(queryset, view):
    """A list of one campus (``?campus=ID``) in the model's order ``(campus, name)`` sorted as
    ``(campus_id, name)``: the same order (every row has that campus), but the database reads it from the
    ``(campus, name)`` unique index instead of joining the campus and sorting all its rows by the campus
    name to keep one page (a page of racks in a 100k-GPU campus sorted 3,133 rows)."""
    ordering = queryset.model._meta.ordering
    if queryset.query.order_by or not ordering or ordering[0] != "campus":
        return queryset
    if not view.request.query_params.get("campus"):
        return queryset
    filterset_class = getattr(view, "filterset_class", None)
    campus_filter = filterset_class.base_filters.get("campus") if filterset_class is not None else None
    if campus_filter is None or campus_filter.field_name != "campus" or campus_filter.lookup_expr != "exact":
        return queryset
    return queryset.order_by("campus_id", *ordering[1:])


# ---------------------------------------------------------------- sites


@inventory_schema(s.UtilityFeedSerializer, "utility feeds")
class UtilityFeedViewSet(CampusInventoryViewSet):
    queryset = models.UtilityFeed.objects.select_related("campus")
    serializer_class = s.UtilityFeedSerializer
    filterset_class = filtersets.UtilityFeedFilterSet
    search_fields = ("name", "utility")


@inventory_schema(s.BuildingSerializer, "buildings")
class BuildingViewSet(CampusInventoryViewSet):
    queryset = models.Building.objects.select_related("campus")
    serializer_class = s.BuildingSerializer
    filterset_class = filtersets.BuildingFilterSet


@inventory_schema(s.DataHallSerializer, "data halls")
class DataHallViewSet(CampusInventoryViewSet):
    queryset = models.DataHall.objects.select_related("building")
    serializer_class = s.DataHallSerializer
    filterset_class = filtersets.DataHallFilterSet


@inventory_schema(s.RowSerializer, "rows")
class RowViewSet(CampusInventoryViewSet):
    queryset = models.Row.objects.select_related("hall")
    serializer_class = s.RowSerializer
    filterset_class = filtersets.RowFilterSet


@inventory_schema(s.RackSerializer, "racks")
class RackViewSet(CampusInventoryViewSet):
    queryset = models.Rack.objects.select_related("campus", "hall", "row", "cooling_unit", "pod")
    serializer_class = s.RackSerializer
    filterset_class = filtersets.RackFilterSet
    # What a read shows of each related object: its brief form {id, url, name}.
    BRIEF_RELATED = ("campus", "hall", "row", "cooling_unit", "pod")

    # What a read reads: the rack's columns and the related objects' names.
    READ_ONLY = (
        *(field.name for field in models.Rack._meta.concrete_fields),
        *(f"{name}__name" for name in BRIEF_RELATED),
    )

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.request is not None and self.request.method in ("GET", "HEAD"):
            # Reads show related objects briefly: their other columns are not read (writes validate
            # against whole related objects, so they keep them).
            queryset = queryset.only(*self.READ_ONLY)
        return queryset

    def attach_page(self, page) -> None:
        if not self.brief:
            attach_power_rows(page)


# ---------------------------------------------------------------- power and cooling


@inventory_schema(s.PowerDeviceSerializer, "power devices")
class PowerDeviceViewSet(CampusInventoryViewSet):
    queryset = models.PowerDevice.objects.select_related("campus", "building", "hall", "utility_feed")
    serializer_class = s.PowerDeviceSerializer
    filterset_class = filtersets.PowerDeviceFilterSet


@inventory_schema(s.PowerFeedSerializer, "power feeds")
class PowerFeedViewSet(CampusInventoryViewSet):
    queryset = models.PowerFeed.objects.select_related("campus", "upstream", "downstream_device", "rack")
    serializer_class = s.PowerFeedSerializer
    filterset_class = filtersets.PowerFeedFilterSet
    search_fields = ("upstream__name", "downstream_device__name", "rack__name")


@inventory_schema(s.EnergyStorageSerializer, "energy storage systems")
class EnergyStorageViewSet(CampusInventoryViewSet):
    queryset = models.EnergyStorage.objects.select_related("campus", "building", "power_device")
    serializer_class = s.EnergyStorageSerializer
    filterset_class = filtersets.EnergyStorageFilterSet


@inventory_schema(s.CoolingPlantSerializer, "cooling plants")
class CoolingPlantViewSet(CampusInventoryViewSet):
    queryset = models.CoolingPlant.objects.select_related(
        "campus", "building", "power_device", "power_device_b"
    )
    serializer_class = s.CoolingPlantSerializer
    filterset_class = filtersets.CoolingPlantFilterSet


@inventory_schema(s.CoolingUnitSerializer, "cooling units")
class CoolingUnitViewSet(CampusInventoryViewSet):
    queryset = models.CoolingUnit.objects.select_related(
        "campus", "hall", "plant", "power_device", "power_device_b"
    )
    serializer_class = s.CoolingUnitSerializer
    filterset_class = filtersets.CoolingUnitFilterSet
    search_fields = ("name", "group")


# ---------------------------------------------------------------- compute and network


@inventory_schema(s.NodeSerializer, "nodes")
class NodeViewSet(CampusInventoryViewSet):
    queryset = models.Node.objects.select_related("rack", "node_model")
    serializer_class = s.NodeSerializer
    filterset_class = filtersets.NodeFilterSet
    search_fields = ("name", "serial")


@inventory_schema(s.PodSerializer, "pods")
class PodViewSet(CampusInventoryViewSet):
    queryset = models.Pod.objects.select_related("campus", "building", "switch_model")
    serializer_class = s.PodSerializer
    filterset_class = filtersets.PodFilterSet


@inventory_schema(s.SwitchSerializer, "switches")
class SwitchViewSet(CampusInventoryViewSet):
    queryset = models.Switch.objects.select_related("campus", "pod", "hall", "rack", "model")
    serializer_class = s.SwitchSerializer
    filterset_class = filtersets.SwitchFilterSet


@inventory_schema(s.LinkSerializer, "links")
class LinkViewSet(CampusInventoryViewSet):
    queryset = models.Link.objects.select_related("campus", "pod", "a_rack", "a_switch", "b_switch", "medium")
    serializer_class = s.LinkSerializer
    filterset_class = filtersets.LinkFilterSet
    search_fields = ("a_rack__name", "a_switch__name", "b_switch__name")


# ---------------------------------------------------------------- catalog


class CatalogViewSet(RedundancyWarningsMixin, TwinModelViewSet):
    """A catalog endpoint: a node or GPU model made bigger (rack units, power) is judged against the
    racks that hold its servers (campus.integrity: units and design power of each rack)."""

    search_fields = ("slug", "name", "source")

    def write_check(self):
        return self.guarded_check(WriteCheck())


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
