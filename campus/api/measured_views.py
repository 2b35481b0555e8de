"""``/api/campuses/{id}/measurements/`` (measured rows in, CSV or JSON) and ``/api/campuses/{id}/measured/``
(each measured object's peak beside its modelled figure): docs/live.md."""

from __future__ import annotations

import json

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import BaseParser
from rest_framework.response import Response
from rest_framework.views import APIView

from campus import measured, prometheus_sync
from campus import state as states
from campus.analysis import measurements as m
from campus.models import Campus, PrometheusSource
from twin.api.exceptions import PayloadTooLarge, field_error
from twin.api.serializers.base import StrictQueryMixin

DEFAULT_MAX_BYTES = 64 * 1024 * 1024


class MeasurementsParser(BaseParser):
    """The raw body (CSV or JSON), at most ``TWIN_MEASUREMENT_MAX_BYTES``."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = int(getattr(settings, "TWIN_MEASUREMENT_MAX_BYTES", DEFAULT_MAX_BYTES))
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise PayloadTooLarge(f"The measurements are larger than {limit} bytes.")
        return {"body": body, "media_type": media_type or ""}


def parse_body(body: bytes, media_type: str) -> tuple[list[m.Sample], int]:
    """The samples of a body and the line number of its first row (CSV: 2, after the header; JSON: 0); a
    time more than ``FUTURE_TOLERANCE`` past the server's clock is refused."""
    not_after = timezone.now() + m.FUTURE_TOLERANCE
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise m.RowError(0, "body", "not UTF-8 text") from None
    if media_type.startswith("application/json") or text.lstrip().startswith(("[", "{")):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise m.RowError(0, "body", f"not JSON: {exc}") from None
        if isinstance(data, dict):
            unknown = set(data) - {"rows"}
            if unknown:
                raise m.RowError(0, sorted(unknown)[0], 'unknown field; give {"rows": [...]}')
            data = data.get("rows")
        return m.parse_json(data, not_after), 0
    return m.parse_csv(text, not_after), 2


def row_error(exc: m.RowError) -> Response:
    return Response(
        {"line": exc.line, "field": exc.field, exc.field: [exc.message], "detail": str(exc)},
        status=status.HTTP_400_BAD_REQUEST,
    )


class MeasurementsView(APIView):
    parser_classes = [MeasurementsParser]

    @extend_schema(
        operation_id="campuses_measurements_create",
        summary="Upload measurements (CSV or JSON rows)",
        description=(
            "Rows of `object_kind` (campus, building, hall, rack, or a power device's kind: pdu, ups, ...), "
            "`object_name`, `metric` (`power_kw` or `power_w`), `time` (ISO 8601 with its zone, or Unix "
            'seconds) and `value`. CSV with a header line, or JSON: a list of rows or `{"rows": [...]}`. '
            "The rows become 5-minute means and maxima per object and metric and daily peaks "
            "(docs/live.md); a bucket given again replaces the one held, so uploading the same rows twice "
            "counts them once. A bad row is a 400 naming its line (CSV: line 1 is the header; JSON: the "
            "index) and field, and nothing is written."
        ),
        request={"text/csv": OpenApiTypes.STR, "application/json": OpenApiTypes.OBJECT},
        responses={
            201: OpenApiResponse(
                description="What was stored.",
                examples=[
                    OpenApiExample(
                        "Stored",
                        value={"rows": 288, "buckets": 24, "dropped_older_than_retention": 0, "pruned": 0},
                    )
                ],
            ),
            400: OpenApiResponse(description="The line and field at fault and why."),
        },
        tags=["measurements"],
    )
    def post(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        data = request.data
        try:
            # An empty body reaches no parser: REST framework gives an empty mapping.
            samples, first = parse_body(data.get("body", b""), data.get("media_type", ""))
            if not samples:
                raise m.RowError(first, "rows", "no rows")
            measured.check_names(states.designed_state(campus).snap, samples, first)
        except m.RowError as exc:
            return row_error(exc)
        return Response(measured.ingest(campus.pk, samples), status=status.HTTP_201_CREATED)


def window_days_field() -> serializers.IntegerField:
    """The window of the measured figures a query or a request reads."""
    return serializers.IntegerField(
        required=False,
        default=measured.DEFAULT_WINDOW_DAYS,
        min_value=1,
        max_value=400,
        help_text="The window: this many days ending with the latest 5-minute bucket held.",
    )


def band_field() -> serializers.FloatField:
    """The alarm band of measured against modelled, as a fraction of the model."""
    return serializers.FloatField(
        required=False,
        default=measured.DEFAULT_BAND,
        min_value=0.0,
        max_value=10.0,
        help_text="Alarm when the measured peak is more than this fraction above or below the model.",
    )


def band_k_field() -> serializers.FloatField:
    """The alarm band of a measured temperature against the modelled one, K."""
    return serializers.FloatField(
        required=False,
        default=measured.DEFAULT_BAND_K,
        min_value=0.0,
        max_value=100.0,
        help_text="A temperature's alarm: more than this many K from the model.",
    )


class MeasuredQuerySerializer(StrictQueryMixin, serializers.Serializer):
    days = window_days_field()
    band = band_field()
    band_k = band_k_field()
    metric = serializers.ChoiceField(
        required=False,
        choices=sorted(set(m.STORED_METRIC.values())),
        help_text="Only the series of this (stored) metric.",
    )


class MeasuredView(APIView):
    @extend_schema(
        operation_id="campuses_measured_retrieve",
        summary="Measured against modelled: each measured object's peak beside the model's figure",
        description=(
            "Per measured object (rack, power device, hall, building, campus): `measured_peak_kw` (the "
            "highest 5-minute mean in the window), `measured_max_kw` (the highest sample), "
            "`measured_mean_kw`, `modelled_kw` (a rack's IT load, a hall's or building's rack IT summed, a "
            "power device's input in the healthy roll-up, the campus's draw from its utility feeds), "
            "`deviation` = (peak - modelled) / modelled, `trend_kw_per_day` (least-squares slope of the "
            "daily peaks) and `alarm` (`over`/`under` when the deviation leaves ±`band`). Beyond power "
            "(docs/live.md): a power device's output, cooling units' and plants' heat, supply and return "
            "temperature and flow, a plant's power, the campus's PUE and outdoor temperature; each row names "
            "its `metric` and `unit`, and gives `measured_peak`, `modelled`, `deviation` (a fraction, or K "
            "for a temperature against `band_k`) and `rms_residual`. Where the model is evaluated at the "
            "measured conditions (`basis` `paired`: a device's input at its measured output, a plant's "
            "power at its measured heat and the outdoor temperature) the deviation and residual are bucket "
            "by bucket. A branch without measurements is set against its parent's (`measurements_of`)."
        ),
        parameters=[MeasuredQuerySerializer],
        responses={200: OpenApiTypes.OBJECT},
        tags=["measurements"],
    )
    def get(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        query = MeasuredQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        v = query.validated_data
        state = states.campus_state(campus)
        return Response(
            measured.measured_against_modelled(state, v["days"], v["band"], v["band_k"], v.get("metric"))
        )


class CalibrationQuerySerializer(StrictQueryMixin, serializers.Serializer):
    days = window_days_field()


class CalibrationView(APIView):
    @extend_schema(
        operation_id="campuses_calibration_retrieve",
        summary="Calibration: GPU power fraction of TDP and overhead scale fitted to the measured racks",
        description=(
            "Each measured rack's mean power over the window against its modelled terms: GPUs at TDP × "
            "`gpu_power_fraction` + the servers' overhead × `overhead_scale` + the rack's typed extras, "
            "fitted by least squares (scipy.optimize.curve_fit) with standard errors and the RMS residual "
            "before (the campus's own `gpu_power_fraction` and `server_overhead_scale`) and after. Racks of "
            "one make of server fit the fraction alone. Fewer than two measured racks with GPUs: 400."
        ),
        parameters=[CalibrationQuerySerializer],
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiResponse(description="Too few measured racks.")},
        tags=["measurements"],
    )
    def get(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        query = CalibrationQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            return Response(measured.calibration(states.campus_state(campus), query.validated_data["days"]))
        except ValueError as exc:
            raise field_error(exc) from None


def source_answer(source: PrometheusSource | None, campus: Campus) -> dict:
    url = getattr(settings, "TWIN_PROMETHEUS_URL", "")
    kinds = {k for k, _ in m.objects(states.designed_state(campus).snap)}
    return {
        "templates": prometheus_sync.mapping_templates(campus.name, kinds),
        "url": prometheus_sync.public_url(url),  # never the credentials
        "configured": bool(url),
        "mapping": source.mapping if source else [],
        "synced_until": source.synced_until if source else None,
        "last_attempt": source.last_attempt if source else None,
        "last_error": source.last_error if source else "",
    }


class PrometheusSourceView(APIView):
    """The campus's Prometheus mapping (docs/live.md, "Prometheus")."""

    @extend_schema(
        operation_id="campuses_prometheus_retrieve",
        summary="The campus's Prometheus mapping, how far its sync has read, and mapping templates",
        responses={200: OpenApiTypes.OBJECT},
        tags=["measurements"],
    )
    def get(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        return Response(source_answer(PrometheusSource.objects.filter(campus=campus).first(), campus))

    @extend_schema(
        operation_id="campuses_prometheus_update",
        summary="Set the campus's Prometheus mapping",
        description=(
            "A JSON object with `mapping`: a list of entries of `query` (PromQL), `object_kind`, "
            "`name_label` (the label naming the object, e.g. `rack` for `sum by (rack) "
            "(dcgm_power_usage_watts)`) or `object_name` (one fixed object), and `metric` (`power_w` or "
            "`power_kw`). A bad entry is a 400 naming it. "
            "A new mapping keeps what the sync has read."
        ),
        request=OpenApiTypes.OBJECT,
        responses={
            200: OpenApiTypes.OBJECT,
            400: OpenApiResponse(description="The entry and field at fault."),
        },
        tags=["measurements"],
    )
    def put(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        data = request.data if isinstance(request.data, dict) else {}
        unknown = set(data) - {"mapping"}
        if unknown:
            field = sorted(unknown)[0]
            return Response({field: ["unknown field"]}, status=status.HTTP_400_BAD_REQUEST)
        try:
            mapping = prometheus_sync.check_mapping(data.get("mapping"))
        except prometheus_sync.MappingError as exc:
            return Response(
                {"entry": exc.index, "field": exc.field, "mapping": [str(exc)], "detail": str(exc)},
                status=status.HTTP_400_BAD_REQUEST,
            )
        source, _ = PrometheusSource.objects.update_or_create(campus=campus, defaults={"mapping": mapping})
        return Response(source_answer(source, campus))

    @extend_schema(
        operation_id="campuses_prometheus_destroy",
        summary="Remove the campus's Prometheus mapping (the rollups stay)",
        responses={204: None},
        tags=["measurements"],
    )
    def delete(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        PrometheusSource.objects.filter(campus=campus).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class PrometheusSyncView(APIView):
    @extend_schema(
        operation_id="campuses_prometheus_sync_create",
        summary="Sync the campus's Prometheus source now (beat does it every 5 minutes)",
        request=None,
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiResponse(description="No mapping.")},
        tags=["measurements"],
    )
    def post(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        source = get_object_or_404(PrometheusSource, campus=campus)
        return Response(prometheus_sync.sync(source))


urlpatterns = [
    path("campuses/<int:pk>/measurements/", MeasurementsView.as_view(), name="campus-measurements"),
    path("campuses/<int:pk>/measured/", MeasuredView.as_view(), name="campus-measured"),
    path("campuses/<int:pk>/calibration/", CalibrationView.as_view(), name="campus-calibration"),
    path("campuses/<int:pk>/prometheus/", PrometheusSourceView.as_view(), name="campus-prometheus"),
    path("campuses/<int:pk>/prometheus/sync/", PrometheusSyncView.as_view(), name="campus-prometheus-sync"),
]
