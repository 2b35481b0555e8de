"""The campus's analytics beyond the summary, the impact and the floor map (those are in
``campus_views``): the power chain of a rack, the redundancy check, stranded capacity, the facility year
and the timeline; and the helpers every analytics action answers with."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from campus import measured
from campus import state as states
from campus.api import analytics
from campus.api.serializers_ import analytics as a
from twin.api.exceptions import field_error


def cached_json(state, key: tuple, data) -> HttpResponse:
    """A cached analytics body: rendered once per campus revision, with its ETag (If-None-Match → 304)."""
    return json_body(*states.rendered(state, key, data))


def json_body(body: bytes, etag: str) -> HttpResponse:
    response = HttpResponse(body, content_type="application/json")
    response["ETag"] = etag
    return response


# query serializer class -> what it makes of no parameters at all (the common request, validated once)
_NO_PARAMETERS: dict[type, dict] = {}


def validated_query(serializer_class, request) -> dict:
    if not request.query_params and serializer_class in _NO_PARAMETERS:
        return dict(_NO_PARAMETERS[serializer_class])
    serializer = serializer_class(data=request.query_params)
    serializer.is_valid(raise_exception=True)
    if not request.query_params:
        _NO_PARAMETERS[serializer_class] = dict(serializer.validated_data)
    return serializer.validated_data


class AnalyticsActionsMixin:
    """Actions of ``CampusViewSet``; ``self._state(params)`` is the campus in service on the request's day."""

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
        params = validated_query(a.PowerChainQuerySerializer, request)
        state = measured.on_basis(self._state(params), params)
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
        params = validated_query(a.RedundancyQuerySerializer, request)
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
        params = validated_query(a.StrandedQuerySerializer, request)
        state = measured.on_basis(self._state(params), params)
        return Response(analytics.stranded(state, params["racks"]))

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
        params = validated_query(a.FacilityYearQuerySerializer, request)
        state = self._state(params)
        key = ("facility_year", params["gpu_power_fraction"], params.get("climate"))
        try:
            return cached_json(
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
        params = validated_query(a.TimelineQuerySerializer, request)
        campus = self.get_object()
        current = states.campus_state(campus, params.get("as_of"))
        return cached_json(current, ("timeline",), lambda: analytics.timeline(campus, current.as_of))
