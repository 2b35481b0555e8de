"""``/api/campuses/{id}/measured/object/``: one object's measured 5-minute series beside its modelled
figure, for a device page's side-by-side figures and trend chart (docs/live.md)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from campus import measured
from campus import state as states
from campus.analysis import measurements as m
from campus.api.measured_views import band_field, band_k_field
from campus.models import Campus
from twin.api.exceptions import field_error
from twin.api.serializers.base import StrictQueryMixin


class ObjectMeasuredQuerySerializer(StrictQueryMixin, serializers.Serializer):
    object_kind = serializers.ChoiceField(
        choices=[(k, k) for k in m.OBJECT_KINDS],
        help_text="campus, building, hall, rack, or a power device's kind (pdu, ups, ...).",
    )
    object_name = serializers.CharField(max_length=128, help_text="The object's name in the campus.")
    days = serializers.IntegerField(
        required=False,
        default=7,
        min_value=1,
        max_value=35,
        help_text="The window: this many days ending with the latest 5-minute bucket held for the campus "
        "(default 7; the 5-minute rollups are kept 35 days).",
    )
    metric = serializers.ChoiceField(
        choices=[(k, k) for k in dict.fromkeys(m.STORED_METRIC.values())],
        required=False,
        default="power_kw",
        help_text="The series: power_kw (default), or another metric the object's kind has (a cooling unit's "
        "heat_kw, supply_temp_c, return_temp_c, flow_lpm...).",
    )
    band = band_field()
    band_k = band_k_field()


class ObjectMeasuredView(APIView):
    @extend_schema(
        operation_id="campuses_measured_object_retrieve",
        summary="One object's measured 5-minute series beside its modelled figure",
        description=(
            "`times` (Unix seconds of each 5-minute bucket's start), `mean` and `max` of the object's "
            "buckets of `metric` in the window (in `unit`), its `modelled` figure (as `/measured/` sets it "
            "against; for a figure per bucket, the mean over the buckets paired, with `modelled_series` "
            "aligned with `times`) and `comparison`, the object's `/measured/` row (null when nothing is "
            "measured for it in the window). A power series also carries `mean_kw`, `max_kw` and "
            "`modelled_kw`. An object the campus does not hold is a 400 naming `object_name`; a metric its "
            "kind has not, a 400 naming `metric`."
        ),
        parameters=[ObjectMeasuredQuerySerializer],
        responses={200: OpenApiTypes.OBJECT},
        examples=[
            OpenApiExample(
                "A PDU",
                response_only=True,
                value={
                    "object_kind": "pdu",
                    "object_name": "PDU-1",
                    "object_id": 7,
                    "metric": "power_kw",
                    "unit": "kW",
                    "modelled": 40.0,
                    "modelled_series": None,
                    "modelled_kw": 40.0,
                    "window_start": "2026-11-22T03:05:00Z",
                    "window_end": "2026-11-29T03:05:00Z",
                    "band": 0.1,
                    "band_k": 2.0,
                    "comparison": {"measured_peak_kw": 44.0, "deviation": 0.1, "alarm": None},
                    "times": [1795921200, 1795921500],
                    "mean": [43.1, 44.0],
                    "max": [43.9, 44.6],
                    "mean_kw": [43.1, 44.0],
                    "max_kw": [43.9, 44.6],
                },
            )
        ],
        tags=["measurements"],
    )
    def get(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        query = ObjectMeasuredQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        v = query.validated_data
        try:
            body = measured.object_measured(
                states.campus_state(campus),
                v["object_kind"],
                v["object_name"],
                v["days"],
                v["band"],
                v["metric"],
                v["band_k"],
            )
        except ValueError as exc:
            raise field_error(exc) from None
        return Response(body)


urlpatterns = [
    path("campuses/<int:pk>/measured/object/", ObjectMeasuredView.as_view(), name="campus-measured-object"),
]
