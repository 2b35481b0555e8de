"""``/api/campuses/{id}/facility-replay/``: the plant model driven by the campus's measured outdoor weather
over a window, in place of its typical year (docs/live.md, "Replay")."""

from __future__ import annotations

from datetime import timedelta

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from campus import measured
from campus import state as states
from campus.analysis.replay import MAX_GAP_H
from campus.models import Campus
from twin.api.exceptions import field_error
from twin.api.serializers.base import AwareDateTimeField, StrictQueryMixin

MAX_WINDOW = timedelta(days=366)


class FacilityReplayQuerySerializer(StrictQueryMixin, serializers.Serializer):
    start = AwareDateTimeField(help_text="First hour replayed (ISO 8601 with its zone; floored to the hour).")
    end = AwareDateTimeField(help_text="End of the window (not included; at most 366 days after start).")
    gpu_power_fraction = serializers.FloatField(
        required=False,
        default=1.0,
        min_value=0.0,
        max_value=1.0,
        help_text="GPU power as a fraction of the campus's modelled draw (TDP unless the campus is calibrated).",
    )
    max_gap_hours = serializers.IntegerField(
        required=False,
        default=MAX_GAP_H,
        min_value=0,
        max_value=72,
        help_text="A gap of at most this many hours between measured hours is interpolated; a longer one "
        "takes the typical year's hours.",
    )

    def validate(self, attrs):
        start = attrs["start"].replace(minute=0, second=0, microsecond=0)
        end = attrs["end"]
        if end < start + timedelta(hours=1):
            raise serializers.ValidationError({"end": ["at least one hour after start"]})
        if end - start > MAX_WINDOW:
            raise serializers.ValidationError({"end": ["at most 366 days after start"]})
        return {**attrs, "start": start}


class FacilityReplayView(APIView):
    @extend_schema(
        operation_id="campuses_facility_replay_retrieve",
        summary="The facility in the measured outdoor weather of a window, hour by hour",
        description=(
            "The campus's measured `dry_bulb_c` (and `wet_bulb_c` or `relative_humidity_pct`, when held) "
            "drive the plant model over [start, end) in place of the typical year: hourly means of the "
            "5-minute means; a gap of at most `max_gap_hours` between measured hours interpolated, a longer "
            "one (or one at either end) taking the typical year's hours; `how` counts each (docs/live.md, "
            '"Replay"). `span` holds the window\'s energy-weighted PUE, energy and peak; `typical_span` the same '
            "figures for the same hours of the typical year; `year` the campus's "
            "weather year with the window laid over it; `typical_year` the year untouched. No dry bulb "
            "measured in the window: 400 on `start`."
        ),
        parameters=[FacilityReplayQuerySerializer],
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiResponse(description="The field at fault.")},
        tags=["measurements"],
    )
    def get(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        query = FacilityReplayQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        v = query.validated_data
        try:
            body = measured.replayed_facility(
                states.campus_state(campus), v["start"], v["end"], v["gpu_power_fraction"], v["max_gap_hours"]
            )
        except ValueError as exc:
            raise field_error(exc) from None
        return Response(body)


urlpatterns = [
    path("campuses/<int:pk>/facility-replay/", FacilityReplayView.as_view(), name="campus-facility-replay"),
]
