"""``/api/campuses/{id}/weather/``: the weather year a campus uses; upload an EPW file, or go back to the
climate's reference year. The file is checked and read by ``campus.epw``; the psychrometrics are the core's
(``campus.analysis.weather``)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.parsers import BaseParser
from rest_framework.response import Response
from rest_framework.views import APIView

from campus.analysis.design_weather import (
    DESIGN_CONDITIONS,
    DesignConditions,
    as_conditions,
    design_from_year,
)
from campus.analysis.weather import WeatherYear, reference_year, wet_bulb_c
from campus.choices import Climate
from campus.epw import EPWError, parse_epw
from campus.models import Campus, CampusWeather
from campus.snapshot_adapter import uploaded_weather
from twin.api.exceptions import PayloadTooLarge

# An EPW year is ~1.5-2 MB of text; four times that is refused before it is read.
DEFAULT_EPW_MAX_BYTES = 8 * 1024 * 1024


def epw_max_bytes() -> int:
    return int(getattr(settings, "TWIN_EPW_MAX_BYTES", DEFAULT_EPW_MAX_BYTES))


class EPWParser(BaseParser):
    """The raw body, whatever its content type, at most ``epw_max_bytes()`` (chunked bodies included)."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = epw_max_bytes()
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise PayloadTooLarge(f"The EPW file is larger than {limit} bytes.")
        return body


def _round(values, digits: int = 3) -> list[float]:
    return [round(float(v), digits) for v in values]


def design_of(campus: Campus, year: WeatherYear, row: CampusWeather | None) -> DesignConditions:
    """The design conditions the campus is sized on (``design_weather.design_conditions_of``'s rule)."""
    if row is None:
        return DESIGN_CONDITIONS[campus.climate]
    return as_conditions(year.design) or design_from_year(year)


def weather_answer(campus: Campus, year: WeatherYear, row: CampusWeather | None) -> dict:
    means = year.monthly_means()
    return {
        "campus": campus.pk,
        "climate": campus.climate,
        "climates": [{"id": value, "label": label} for value, label in Climate.choices],
        "uploaded": row is not None,
        "source": year.source,
        "leap_day_dropped": bool(row.leap_day_dropped) if row is not None else False,
        "hours": int(year.dry_bulb_c.size),
        "pressure_pa": round(year.pressure_pa, 1),
        "utc_offset_h": year.utc_offset_h,
        "monthly_means": {
            "dry_bulb_c": _round(means["dry_bulb_c"]),
            "wet_bulb_c": _round(means["wet_bulb_c"]),
            "relative_humidity": _round(means["relative_humidity"], 4),
        },
        "annual": {
            "mean_dry_bulb_c": round(float(year.dry_bulb_c.mean()), 3),
            "min_dry_bulb_c": round(float(year.dry_bulb_c.min()), 3),
            "max_dry_bulb_c": round(float(year.dry_bulb_c.max()), 3),
            "mean_wet_bulb_c": round(float(year.wet_bulb_c.mean()), 3),
            "max_wet_bulb_c": round(float(year.wet_bulb_c.max()), 3),
            "mean_relative_humidity": round(float(year.relative_humidity.mean()), 4),
        },
        "design_conditions": design_of(campus, year, row).as_dict(),
    }


_MONTHLY = inline_serializer(
    "WeatherMonthlyMeans",
    {
        "dry_bulb_c": serializers.ListField(child=serializers.FloatField()),
        "wet_bulb_c": serializers.ListField(child=serializers.FloatField()),
        "relative_humidity": serializers.ListField(child=serializers.FloatField()),
    },
)
WEATHER_ANSWER = inline_serializer(
    "CampusWeatherYear",
    {
        "campus": serializers.IntegerField(),
        "climate": serializers.CharField(),
        "climates": serializers.ListField(
            child=inline_serializer(
                "ClimateChoice", {"id": serializers.CharField(), "label": serializers.CharField()}
            )
        ),
        "uploaded": serializers.BooleanField(),
        "source": serializers.CharField(),
        "leap_day_dropped": serializers.BooleanField(),
        "hours": serializers.IntegerField(),
        "pressure_pa": serializers.FloatField(),
        "utc_offset_h": serializers.FloatField(
            help_text="The hours' local standard time, hours east of UTC (docs/model.md, Local time)."
        ),
        "monthly_means": _MONTHLY,
        "annual": inline_serializer(
            "WeatherAnnual",
            {
                "mean_dry_bulb_c": serializers.FloatField(),
                "min_dry_bulb_c": serializers.FloatField(),
                "max_dry_bulb_c": serializers.FloatField(),
                "mean_wet_bulb_c": serializers.FloatField(),
                "max_wet_bulb_c": serializers.FloatField(),
                "mean_relative_humidity": serializers.FloatField(),
            },
        ),
        "design_conditions": serializers.DictField(
            help_text="The design conditions the campus is sized on (docs/model.md, Design weather): "
            "0.4 %/1 % dry bulb with mean coincident wet bulb, 0.4 % wet bulb, 20-year extreme, °C, and "
            "their source."
        ),
    },
)
_EPW_ERROR = inline_serializer(
    "EPWError",
    {
        "line": serializers.IntegerField(),
        "message": serializers.CharField(),
        "detail": serializers.CharField(),
    },
)


class CampusWeatherView(APIView):
    """The hourly weather year of a campus (docs/model.md, "Weather")."""

    parser_classes = [EPWParser]

    @extend_schema(
        operation_id="campuses_weather_retrieve",
        summary="The weather year the campus uses",
        description=(
            "The campus's uploaded EPW year if any, else its climate's reference year: where the hours come "
            "from, the climate, and the monthly means of dry bulb (°C), wet bulb (°C) and relative humidity "
            "(fraction 0-1), January first."
        ),
        responses={200: WEATHER_ANSWER},
        tags=["weather"],
    )
    def get(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        row = CampusWeather.objects.filter(campus=campus).first()
        year = uploaded_weather(campus) if row is not None else reference_year(campus.climate)
        return Response(weather_answer(campus, year, row))

    @extend_schema(
        operation_id="campuses_weather_upload",
        summary="Upload an EnergyPlus EPW weather file",
        description=(
            "The body is an EnergyPlus EPW file as it is downloaded (8 header lines and 8,760 hourly lines; "
            "a leap-year file's 8,784 are accepted and 29 February is dropped). The campus uses its hours "
            "instead of its climate's reference year until the upload is deleted. A malformed file gives 400 "
            "naming the line at fault; a body over the limit (8 MB by default) gives 413."
        ),
        request={"text/plain": OpenApiTypes.STR, "application/octet-stream": OpenApiTypes.BINARY},
        responses={
            201: WEATHER_ANSWER,
            400: _EPW_ERROR,
            413: OpenApiResponse(description="The body is larger than the limit."),
        },
        examples=[
            OpenApiExample(
                "A malformed line",
                value={
                    "line": 4391,
                    "message": "dry bulb temperature (°C) 'abc' is not a number",
                    "detail": "line 4391: dry bulb temperature (°C): 'abc' is not a number",
                },
                response_only=True,
                status_codes=["400"],
            )
        ],
        tags=["weather"],
    )
    def post(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        length = request.META.get("CONTENT_LENGTH") or "0"
        if length.isdigit() and int(length) > epw_max_bytes():
            raise PayloadTooLarge(f"The EPW file is larger than {epw_max_bytes()} bytes.")
        body = request.data
        if not isinstance(body, bytes):
            body = b""
        try:
            epw = parse_epw(body)
        except EPWError as exc:
            return Response(
                {"line": exc.line, "message": exc.message, "detail": str(exc)},
                status=status.HTTP_400_BAD_REQUEST,
            )
        wet = wet_bulb_c(epw.dry_bulb_c, epw.dew_point_c, epw.pressure_pa)
        with transaction.atomic():
            row, _ = CampusWeather.objects.update_or_create(
                campus=campus,
                defaults={
                    "source": epw.source,
                    "latitude": epw.latitude,
                    "longitude": epw.longitude,
                    "elevation_m": epw.elevation_m,
                    "utc_offset_h": epw.utc_offset_h,
                    "pressure_pa": float(epw.pressure_pa.mean()),
                    "leap_day_dropped": epw.leap_day_dropped,
                    "hours": CampusWeather.pack(epw.dry_bulb_c, wet, epw.relative_humidity),
                },
            )
        return Response(weather_answer(campus, uploaded_weather(campus), row), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="campuses_weather_destroy",
        summary="Go back to the climate's reference year",
        description="Deletes the campus's uploaded EPW year, if any; the campus uses its climate's reference year.",
        request=None,
        responses={204: None},
        tags=["weather"],
    )
    def delete(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        CampusWeather.objects.filter(campus=campus).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("campuses/<int:pk>/weather/", CampusWeatherView.as_view(), name="campus-weather"),
]
