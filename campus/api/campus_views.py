"""The campus endpoint: the campus rows, and its summary, impact and floor map (the other analytics are
in ``analytics_views``, branches in ``branch_views``, placement in ``placement_views``)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from campus import measured, models
from campus import state as states
from campus.analysis import phases
from campus.api import analytics, filtersets
from campus.api import serializers_ as s
from campus.api.analytics_views import AnalyticsActionsMixin, cached_json, json_body, validated_query
from campus.api.branch_views import BranchActionsMixin
from campus.api.inventory_views import CampusInventoryViewSet
from campus.api.placement_views import PlacementActionsMixin
from campus.api.serializers_ import analytics as a
from twin.api.exceptions import field_error
from twin.api.viewsets import inventory_schema

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
            "name": "B1-H4-R08-PDU-A1",
            "failure": {"kind": "power", "id": 278, "name": "B1-H4-SWGR-B01"},
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
class CampusViewSet(BranchActionsMixin, PlacementActionsMixin, AnalyticsActionsMixin, CampusInventoryViewSet):
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
        return json_body(*found) if found is not None else None

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
        params = {
            k: v for k, v in validated_query(a.SummaryQuerySerializer, request).items() if v is not None
        }
        if (shared := self._default_body(request, "summary")) is not None:
            return shared
        basis = {"basis": params.pop("basis"), "margin": params.pop("margin")}
        state = measured.on_basis(self._state({"as_of": params.pop("as_of", None)}), basis)
        try:
            return cached_json(
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
        params = validated_query(a.ImpactQuerySerializer, request)
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
        params = validated_query(a.FloorMapQuerySerializer, request)
        if (shared := self._default_body(request, "floor-map")) is not None:
            return shared
        state = measured.on_basis(self._state(params), params)
        try:
            hall = params.get("hall")
            return cached_json(state, ("floor_map", hall), lambda: states.floor_map(state, hall))
        except ValueError as exc:
            raise field_error(exc) from None
