"""``/api/campuses/{id}/calibration/facility/`` (conversion efficiencies and plant coefficients fitted to
the measurements) and ``/api/campuses/{id}/calibration/apply/`` (the fitted values as a design branch):
docs/live.md."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from campus import calibration_branch, measured
from campus import state as states
from campus.api.measured_views import CalibrationQuerySerializer, window_days_field
from campus.api.redundancy_warnings import run_with_guard, with_warnings
from campus.api.serializers_.branches import TextOnlyField, new_campus_name
from campus.models import Campus
from twin.api.exceptions import field_error
from twin.api.serializers.base import StrictFieldsMixin


class FacilityCalibrationView(APIView):
    @extend_schema(
        operation_id="campuses_calibration_facility_retrieve",
        summary="Calibration of conversion losses and cooling plants from the measurements",
        description=(
            "Per power device with its input (`power_kw`) and output (`power_out_kw`) measured: the "
            "efficiency fitted to input = output / efficiency, its standard error and the RMS residual "
            "before (the inventory's efficiency) and after. Per cooling plant with its heat load "
            "(`heat_kw`) and power measured, and the campus's `dry_bulb_c`: power = fixed + heat × "
            "(eir_ref + eir_per_k × (T − 20 °C)) with standard errors, and the rated COP that brings the "
            "twin's plant model closest (with its standard error and residuals). Objects whose series "
            "allow no fit are listed in `skipped` with the reason."
        ),
        parameters=[CalibrationQuerySerializer],
        responses={200: OpenApiTypes.OBJECT},
        tags=["measurements"],
    )
    def get(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        query = CalibrationQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(
            measured.facility_calibration(states.campus_state(campus), query.validated_data["days"])
        )


class ApplyRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    name = TextOnlyField(
        max_length=128, help_text="Name of the branch (unique among campuses), as JSON text."
    )
    days = window_days_field()

    def validate_name(self, value: str) -> str:
        return new_campus_name(value)


class CalibrationApplyView(APIView):
    @extend_schema(
        operation_id="campuses_calibration_apply_create",
        summary="Apply the fitted values as a design branch",
        description=(
            "Branches the campus as `name` (like `POST /api/campuses/{id}/branch/`) and writes into the "
            "branch every fitted value: the campus's `gpu_power_fraction` and `server_overhead_scale` from "
            "`GET /calibration/`, each power device's `efficiency` and each cooling plant's `cop`, "
            "`fixed_kw`, `eir_ref` and `eir_per_k` from `GET /calibration/facility/`, each clipped to its "
            "field's bounds. `applied` lists each change (object, field, from, to, fitted, clipped); "
            "`not_applied` what the measurements could not determine, with the reason. The branch's "
            "`/measured/` reads its parent's measurements. Nothing to apply: 400 on `measurements`; a taken "
            "name: 400 on `name`."
        ),
        request=ApplyRequestSerializer,
        responses={
            201: OpenApiTypes.OBJECT,
            400: OpenApiResponse(description="The field at fault and why."),
        },
        tags=["measurements"],
    )
    def post(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        body = ApplyRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        v = body.validated_data
        try:
            result, warnings = run_with_guard(
                request,
                [campus.pk],
                lambda guard: calibration_branch.apply_calibration(campus, v["name"], v["days"], guard),
            )
        except ValueError as exc:
            raise field_error(exc) from None
        return with_warnings(Response(result, status=status.HTTP_201_CREATED), warnings)


urlpatterns = [
    path(
        "campuses/<int:pk>/calibration/facility/",
        FacilityCalibrationView.as_view(),
        name="campus-calibration-facility",
    ),
    path(
        "campuses/<int:pk>/calibration/apply/",
        CalibrationApplyView.as_view(),
        name="campus-calibration-apply",
    ),
]
