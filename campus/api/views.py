"""Inventory and catalog endpoints: queryset + serializer + filterset, NetBox dcim/api/views.py style."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from campus import models
from campus import state as states
from campus.analysis import phases
from campus.api import analytics, filtersets
from campus.api import serializers_ as s
from campus.api.branch_views import BranchActionsMixin
from campus.api.placement_views import PlacementActionsMixin
from campus.api.rack_power import attach_power_rows
from campus.api.redundancy_warnings import RedundancyWarningsMixin
from campus.api.serializers_ import analytics as a
from campus.integrity import WriteCheck
from twin.api import history
from twin.api.exceptions import field_error
from twin.api.mixins import AtomicWriteMixin, BriefModeMixin, BulkMixin, QueryParametersMixin
from twin.api.pagination import ChangePagination
from twin.api.serializers import ChangeSerializer
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


# ---------------------------------------------------------------- users and the change log


@inventory_schema(s.UserSerializer, "users")
class UserViewSet(QueryParametersMixin, BriefModeMixin, BulkMixin, AtomicWriteMixin, viewsets.ModelViewSet):
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
class ChangeViewSet(QueryParametersMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = ChangeSerializer
    pagination_class = ChangePagination
    filter_backends: list = []
    query_parameters = ("model", "object_id")

    def get_queryset(self):  # only for the schema generator; list() reads the history tables itself
        return models.Campus.history.none()

    def list(self, request, *args, **kwargs):
        tracked = history.tracked_models("campus")
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
        return paginator.get_paginated_response(ChangeSerializer(history.entries(page), many=True).data)


def _json(state, key: tuple, data) -> HttpResponse:
    """A cached analytics body: rendered once per campus revision, with its ETag (If-None-Match → 304)."""
    return _body(*states.rendered(state, key, data))


def _body(body: bytes, etag: str) -> HttpResponse:
    response = HttpResponse(body, content_type="application/json")
    response["ETag"] = etag
    return response


# query serializer class -> what it makes of no parameters at all (the common request, validated once)
_NO_PARAMETERS: dict[type, dict] = {}


def _query(serializer_class, request) -> dict:
    if not request.query_params and serializer_class in _NO_PARAMETERS:
        return dict(_NO_PARAMETERS[serializer_class])
    serializer = serializer_class(data=request.query_params)
    serializer.is_valid(raise_exception=True)
    if not request.query_params:
        _NO_PARAMETERS[serializer_class] = dict(serializer.validated_data)
    return serializer.validated_data


SUMMARY_EXAMPLE = {
    "campus": {"id": 1, "name": "Example 100k"},
    "inventory": {
        "buildings": 4,
        "halls": 16,
        "racks": 3125,
        "nodes": 12500,
        "gpus": 100000,
        "gpus_by_model": {"h100-sxm": 100000},
    },
    "power": {
        "it_mw": 150.2,
        "pue": 1.18,
        "pue_source": "plant-model",
        "facility_mw": 177.2,
        "peak_facility_mw": 196.0,
        "grid_capacity_mw": 250.0,
        "annual_cost_usd": 123000000.0,
        "stranded_mw": 3.1,
        "design_margin_mw": 30.0,
        "headroom_after_failover_mw": 0.6,
        "headroom_binding": {
            "kind": "pdu",
            "id": 316,
            "name": "B1-H4-R08-PDU-A",
            "failure": {"kind": "power", "id": 278, "name": "B1-H4-SWGR-B"},
        },
        "redundancy_findings_count": 0,
    },
    "cooling": {
        "heat_load_mw": 150.2,
        "capacity_mw": 171.0,
        "capacity_by_path_mw": {"liquid": 128.0, "air": 43.0},
        "capacity_redundancy": "N+1",
        "achieved_redundancy": "N+1",
        "checked_at_gpu_power_fraction": 1.0,
        "spare_mw": 20.8,
        "unit_capacity_mw": 190.0,
        "plant_capacity_mw": 200.0,
        "plant_usable_capacity_mw": 180.0,
        "wue_l_per_kwh": 0.7,
        "hours_short": 0,
    },
    "network": {"tiers": 3, "switches": 5200},
    "compute": {
        "peak_pflops": {"bf16": 98900.0},
        "effective_pflops": {"bf16": 25081.0},
        "ettr": 0.634,
        "ettr_source": "reliability.expected_ettr",
    },
    "reliability": {"dataset": "per-model"},
    "buildings": [{"id": 1, "name": "B1", "racks": 780, "gpus": 25000, "it_mw": 37.5}],
}


@inventory_schema(s.CampusSerializer, "campuses")
class CampusViewSet(BranchActionsMixin, PlacementActionsMixin, CampusInventoryViewSet):
    queryset = models.Campus.objects.all()
    serializer_class = s.CampusSerializer
    filterset_class = filtersets.CampusFilterSet
    search_fields = ("name", "location")

    def _pk(self) -> int | None:
        try:
            pk = int(self.kwargs[self.lookup_url_kwarg or self.lookup_field])
        except (TypeError, ValueError):
            return None
        return pk if 1 <= pk < 2**63 else None

    def _state(self, params: dict | None = None):
        """The campus in service on the request's ``as_of`` day (default today).

        A campus whose state this process holds at its current revision needs no other row read (the
        revision's query proves the campus exists); otherwise it is looked up (404 if absent)."""
        as_of = (params or {}).get("as_of")
        pk = self._pk()
        state = states.cached_state(pk, as_of) if pk is not None else None
        return state if state is not None else states.campus_state(self.get_object(), as_of)

    def _default_body(self, request, endpoint: str) -> HttpResponse | None:
        """The request without query parameters (today, default assumptions): answered from the shared
        analytics cache when this process does not hold the body (``campus.state.default_body``)."""
        if request.query_params or (pk := self._pk()) is None:
            return None
        found = states.default_body(pk, endpoint, self._state)
        return _body(*found) if found is not None else None

    @extend_schema(
        summary="Campus summary: inventory, power, cooling, network, compute, reliability",
        description="Computed from the current inventory; cached until the campus' rows change. Query "
        "parameters override the assumptions (PUE, MFU, average GPU draw, failure data set, ...).",
        parameters=[a.SummaryQuerySerializer],
        responses={200: a.SummarySerializer},
        examples=[OpenApiExample("Summary (abridged)", value=SUMMARY_EXAMPLE, response_only=True)],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def summary(self, request, pk=None):
        params = {k: v for k, v in _query(a.SummaryQuerySerializer, request).items() if v is not None}
        if (shared := self._default_body(request, "summary")) is not None:
            return shared
        state = self._state({"as_of": params.pop("as_of", None)})
        try:
            return _json(
                state,
                ("summary", tuple(sorted(params.items()))),
                lambda: states.campus_summary(state, **params),
            )
        except ValueError as exc:
            raise field_error(exc) from None

    @extend_schema(
        summary="What is impacted if these elements fail",
        description="Fails one power device (`kind=power`), cooling unit (`cooling`), cooling plant (`plant`) "
        "or utility feed (`utility`) named by `device`, and/or several at once with "
        "`failed=kind:id,kind:id` (repeatable), and runs the cascade: racks losing side A, side B, all power "
        "or cooling, GPUs lost, devices tripped. With several units of a group lost, the survivors' capacity "
        "is counted once against the whole group's heat; a group or plant loop short of it loses every rack "
        "on it. An element (power device, cooling unit, plant or utility feed) not in service on the `as_of` "
        "day is a 400 naming it "
        "and the day.",
        parameters=[a.ImpactQuerySerializer],
        responses={200: a.ImpactSerializer},
        examples=[
            OpenApiExample(
                "UPS loss",
                response_only=True,
                value={
                    "kind": "power",
                    "device_id": 12,
                    "device_name": "UPS-2",
                    "failed": [{"kind": "power", "id": 12, "name": "UPS-2"}],
                    "effect": None,
                    "gpus_lost": 0,
                    "racks": {"lost_a": [101, 102], "lost_b": [], "lost_both": [], "lost_cooling": []},
                    "gpus": {
                        "lost_a": 64,
                        "lost_b": 0,
                        "lost_power": 0,
                        "lost_cooling": 0,
                        "usable_before": 100000,
                        "usable_after": 100000,
                    },
                    "tripped": [],
                    "dead_devices": [12],
                    "cooling_units_stopped": [],
                    "plants_stopped": [],
                    "job": {"interrupted": False, "fraction_of_gpus_lost": 0.0},
                },
            ),
            OpenApiExample(
                "Unknown device",
                status_codes=["400"],
                response_only=True,
                value={"device": ["no power device 999"]},
            ),
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def impact(self, request, pk=None):
        params = _query(a.ImpactQuerySerializer, request)
        state = self._state(params)
        field = "device" if "device" in params and not params.get("failed") else "failed"
        if state.as_of is not None:
            # An element of the campus outside its service dates, every one named with the day: a unit,
            # plant or utility feed is not in that day's snapshot (not "no such element"), and a power
            # device stays in the day's chain offline, so failing it would answer "0 GPUs lost" for a
            # device that does not exist yet
            designed = states.designed_state(self.get_object()).snap
            reasons = [
                why
                for kind, ident in params["elements"]
                if (why := phases.not_in_service(designed, state.as_of, kind, ident)) is not None
            ]
            if reasons:
                raise ValidationError({field: reasons})
        try:
            return Response(analytics.impact(state, params["elements"]))
        except ValueError as exc:
            raise field_error(exc, rename={"device_id": field, "kind": field}) from None

    @extend_schema(
        summary="Floor map: halls and racks with their positions and metrics",
        description="With `hall`: the hall's size and one object per rack (position, size, load, A/B feed "
        "loading, density, cooling type, GPUs, status). Without: every building with its halls, and the "
        "racks of the whole campus as compact arrays in `rack_columns` order.",
        parameters=[a.FloorMapQuerySerializer],
        responses={200: a.FloorMapSerializer},
        examples=[
            OpenApiExample(
                "One hall",
                response_only=True,
                value={
                    "hall": {
                        "id": 3,
                        "name": "H1",
                        "building_id": 1,
                        "x_m": 0,
                        "y_m": 0,
                        "width_m": 40,
                        "length_m": 60,
                    },
                    "racks": [
                        {
                            "id": 101,
                            "name": "R-001",
                            "x_m": 2.0,
                            "y_m": 3.0,
                            "width_m": 0.6,
                            "depth_m": 1.2,
                            "load_kw": 41.1,
                            "design_kw": 60,
                            "feed_a_pct": 25.7,
                            "feed_b_pct": 25.7,
                            "cooling_type": "direct-to-chip",
                            "gpus": 32,
                        }
                    ],
                    "cooling_units": [],
                },
            )
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None, url_path="floor-map")
    def floor_map(self, request, pk=None):
        params = _query(a.FloorMapQuerySerializer, request)
        if (shared := self._default_body(request, "floor-map")) is not None:
            return shared
        state = self._state(params)
        try:
            hall = params.get("hall")
            return _json(state, ("floor_map", hall), lambda: states.floor_map(state, hall))
        except ValueError as exc:
            raise field_error(exc) from None

    @extend_schema(
        summary="Power chain of one rack: its A and B paths up to the utility",
        description="Per side: the rack's feeds and every device upstream (nearest first) with load, rating, "
        "utilisation and planning headroom from the healthy roll-up, headroom after the worst single failure, "
        "and the utility feeds at the top; the rack's hall and building with their headroom after failover.",
        parameters=[a.PowerChainQuerySerializer],
        responses={200: a.PowerChainSerializer},
        examples=[
            OpenApiExample(
                "2N rack",
                response_only=True,
                value={
                    "rack": {
                        "id": 101,
                        "name": "R-001",
                        "load_kw": 41.1,
                        "design_kw": 60,
                        "sides_lost": [],
                        "powered": True,
                    },
                    "hall": {"id": 3, "headroom_mw": 0.1, "headroom_binding": None},
                    "building": {"id": 1, "headroom_mw": 0.4, "headroom_binding": None},
                    "sides": [
                        {
                            "side": "A",
                            "feeds": [
                                {
                                    "id": 5,
                                    "side": "A",
                                    "upstream_id": 7,
                                    "rating_kw": 80,
                                    "load_kw": 20.6,
                                    "load_pct": 25.7,
                                    "live": True,
                                }
                            ],
                            "devices": [
                                {
                                    "id": 7,
                                    "name": "PDU-A1",
                                    "kind": "pdu",
                                    "depth": 1,
                                    "rated_kw": 300,
                                    "load_kw": 206.0,
                                    "utilization": 0.69,
                                    "headroom_kw": 34.0,
                                    "headroom_after_failover_kw": 2.5,
                                    "worst_failure": {"kind": "power", "id": 8, "name": "PDU-B1"},
                                }
                            ],
                            "utility_feeds": [
                                {"id": 1, "name": "Grid 1", "capacity_kw": 100000, "load_kw": 9000}
                            ],
                        },
                    ],
                },
            )
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None, url_path="power-chain")
    def power_chain(self, request, pk=None):
        params = _query(a.PowerChainQuerySerializer, request)
        state = self._state(params)
        try:
            return Response(analytics.power_chain(state, params["rack"]))
        except ValueError as exc:
            raise field_error(exc) from None

    @extend_schema(
        summary="Redundancy check: single failures that cost GPUs or cascade, across power and cooling",
        description="Fails each element alone: every utility feed, every live power device (generators "
        "excepted: they carry load only when the utility is gone), every cooling unit and every cooling "
        "plant. Cooling follows power (a unit or plant stops when all its supplies are dead) and spare "
        "capacity is counted once, exactly as impact mode does. Lists each element whose loss trips another "
        "(`effect: cascade`), leaves racks without power (`power`) or powered racks without cooling "
        "(`cooling`), the most GPUs lost first. `device_kind` is the `kind` impact mode takes. `unfed_racks` "
        "lists the racks with a load and no power feed: dark before any failure (their GPUs are never usable), "
        "so no finding names them. `declared` "
        "checks the campus's declared power_redundancy and cooling_redundancy against them (an N design's "
        "single points are warnings, a redundant design's errors) and, for cooling, lists the pools of units "
        "(named groups, halls' ungrouped CRAHs) short of the declared redundancy in `pools_failing` (errors; "
        "the summary's `cooling.groups_failing_redundancy`).",
        parameters=[a.RedundancyQuerySerializer],
        responses={200: a.RedundancySerializer},
        examples=[
            OpenApiExample(
                "One cascade",
                response_only=True,
                value={
                    "count": 1,
                    "findings": [
                        {
                            "device_kind": "power",
                            "device_id": 7,
                            "device_name": "B1 H1 MPDU",
                            "effect": "cooling",
                            "gpus_lost": 4096,
                            "gpus_lost_power": 0,
                            "gpus_lost_cooling": 4096,
                            "kind": "single-point",
                            "tripped": [],
                            "racks_lost": [101, 102],
                            "racks_lost_cooling": [101, 102],
                        }
                    ],
                    "declared": [
                        {
                            "field": "campus.power_redundancy",
                            "domain": "power",
                            "declared": "2N",
                            "achieved": "N",
                            "severity": "error",
                            "single_points": ["B1 H1 MPDU"],
                            "pools_failing": [],
                            "checked_at_gpu_power_fraction": 1.0,
                            "message": 'declared 2N, achieved N: 1 single points of failure ("B1 H1 MPDU")',
                        },
                        {
                            "field": "campus.cooling_redundancy",
                            "domain": "cooling",
                            "declared": "",
                            "achieved": "N+1",
                            "severity": "ok",
                            "single_points": [],
                            "pools_failing": [],
                            "checked_at_gpu_power_fraction": 1.0,
                            "message": "not declared; achieved N+1",
                        },
                    ],
                },
            )
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def redundancy(self, request, pk=None):
        params = _query(a.RedundancyQuerySerializer, request)
        state = self._state(params)
        findings = analytics.redundancy(state, params["include_single_points"])
        declared = analytics.redundancy_declared(state)
        unfed = analytics.unfed_racks(state)
        levels = analytics.redundancy_levels(state)
        return Response(
            {
                "count": len(findings),
                "findings": findings,
                "declared": declared,
                "unfed_racks": unfed,
                "levels": levels,
            }
        )

    @extend_schema(
        summary="Stranded power capacity",
        description="Power provisioned to racks that another constraint keeps from being used, with the design "
        "redundancy intact: the weaker feed side (`feed`), design_kw (`design`), an upstream device after the "
        "worst single failure (`upstream`, named in `binding_device`), cooling (`cooling`: each heat path, "
        "liquid to the racks' CDUs and air to the hall's CRAHs, against the units that serve it with the "
        "declared cooling redundancy intact), no free floor for more racks (`space`), the grid (`grid`). The planning margin "
        "(`design_margin_kw`) is reported apart. Per campus, building and hall (and rack with `racks=true`).",
        parameters=[a.StrandedQuerySerializer],
        responses={200: a.StrandedSerializer},
        examples=[
            OpenApiExample(
                "Cooling-bound",
                response_only=True,
                value={
                    "campus": {
                        "scope": "campus",
                        "id": None,
                        "provisioned_kw": 1000.0,
                        "design_margin_kw": 200.0,
                        "usable_kw": 600.0,
                        "stranded_kw": 200.0,
                        "binding": "cooling",
                        "binding_device": None,
                        "stranded_by_constraint_kw": {"cooling": 200.0},
                        "limits_kw": {"racks": 800.0, "upstream": 950.0, "cooling": 600.0},
                    },
                    "buildings": [],
                    "halls": [],
                },
            )
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def stranded(self, request, pk=None):
        params = _query(a.StrandedQuerySerializer, request)
        return Response(analytics.stranded(self._state(params), params["racks"]))

    @extend_schema(
        summary="The facility hour by hour: PUE, facility power, water and cooling margin over a year",
        description="The campus's cooling plants, cooling units and power chain in its weather (its uploaded "
        "hourly year, else its climate's reference year; `climate` picks another reference year), one value "
        'per hour of the year: facility power = IT + conversion losses + cooling (docs/model.md, "Facility '
        'physics"). `annual` holds the energy-weighted PUE, the peak hour (it sizes the grid connection), '
        "WUE and the hours the plants cannot reject the heat. Cached until the campus' rows change.",
        parameters=[a.FacilityYearQuerySerializer],
        responses={200: a.FacilityYearSerializer},
        examples=[
            OpenApiExample(
                "Facility year (first two hours)",
                response_only=True,
                value={
                    "climate": "ashburn-us",
                    "weather_source": "reference year from monthly normals ...",
                    "pue_source": "plant-model",
                    "dry_bulb_c": [-1.2, -1.8],
                    "wet_bulb_c": [-2.5, -3.0],
                    "it_mw": [11.62, 11.62],
                    "facility_mw": [13.21, 13.2],
                    "pue": [1.1368, 1.1362],
                    "water_l": [2010.4, 1998.7],
                    "cooling_margin_mw": [21.5, 21.7],
                    "annual": {
                        "pue": 1.139,
                        "peak_facility_mw": 14.6,
                        "wue_l_per_kwh": 0.71,
                        "hours_short": 570,
                    },
                },
            )
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None, url_path="facility-year")
    def facility_year(self, request, pk=None):
        params = _query(a.FacilityYearQuerySerializer, request)
        state = self._state(params)
        key = ("facility_year", params["gpu_power_fraction"], params.get("climate"))
        try:
            return _json(
                state,
                key,
                lambda: analytics.facility_year(state, params["gpu_power_fraction"], params.get("climate")),
            )
        except ValueError as exc:
            raise field_error(exc) from None

    @extend_schema(
        summary="Timeline: the campus's figures at each day something enters or leaves service",
        description="One point per distinct in_service_date and retire_date of the campus's objects, plus "
        "`as_of` (default today), sorted by date: GPUs, IT MW, facility MW and the power headroom after the "
        "worst single failure (`headroom_mw`, the summary's `headroom_after_failover_mw`), each as the "
        "summary reports it with `?as_of=` that day (docs/planning.md).",
        parameters=[a.TimelineQuerySerializer],
        responses={200: a.TimelineSerializer},
        examples=[
            OpenApiExample(
                "Two phases",
                response_only=True,
                value={
                    "points": [
                        {
                            "date": "2026-01-01",
                            "gpus": 0,
                            "it_mw": 0.0,
                            "facility_mw": 0.0,
                            "headroom_mw": 0.0,
                        },
                        {
                            "date": "2026-07-01",
                            "gpus": 8192,
                            "it_mw": 12.4,
                            "facility_mw": 14.6,
                            "headroom_mw": 3.1,
                        },
                        {
                            "date": "2027-07-01",
                            "gpus": 16384,
                            "it_mw": 24.8,
                            "facility_mw": 29.1,
                            "headroom_mw": 6.2,
                        },
                    ]
                },
            )
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def timeline(self, request, pk=None):
        params = _query(a.TimelineQuerySerializer, request)
        campus = self.get_object()
        current = states.campus_state(campus, params.get("as_of"))
        return _json(current, ("timeline",), lambda: analytics.timeline(campus, current.as_of))
