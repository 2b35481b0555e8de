"""``/api/campuses/{id}/site-climate/``: a site's monthly normals and design conditions, without an EPW file.

The normals become an hourly year by the same model as the shipped reference years
(``campus.analysis.weather.year_from_normals``); the design conditions, when given, are what the plant, the
grid connection and the design peak are sized on (``campus.analysis.design_weather``). The year is kept as
the campus's own weather (``CampusWeather``, as an EPW upload is); ``DELETE /weather/`` goes back to the
climate's reference year.
"""

from __future__ import annotations

from dataclasses import asdict
from zoneinfo import ZoneInfoNotFoundError

from django.db import transaction
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from campus.analysis.climate_normals import StationNormals
from campus.analysis.design_weather import DesignConditions
from campus.analysis.weather import pressure_at_elevation_pa, standard_offset_h, year_from_normals
from campus.api.weather_views import WEATHER_ANSWER, weather_answer
from campus.models import Campus, CampusWeather

_TEMP_F = {"min_value": -130.0, "max_value": 140.0}  # wide enough for °F; checked per unit below


def _months(help_text: str, **bounds) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.FloatField(**bounds), min_length=12, max_length=12, help_text=help_text
    )


class DesignConditionsSerializer(serializers.Serializer):
    source = serializers.CharField(
        max_length=512, help_text="Where the figures come from (publication, station)."
    )
    cooling_db_04_c = serializers.FloatField(
        min_value=-60, max_value=60, help_text="0.4 % annual dry bulb, °C."
    )
    cooling_mcwb_04_c = serializers.FloatField(
        min_value=-60, max_value=60, help_text="Its mean coincident wet bulb."
    )
    cooling_db_1_c = serializers.FloatField(min_value=-60, max_value=60, help_text="1 % annual dry bulb, °C.")
    cooling_mcwb_1_c = serializers.FloatField(min_value=-60, max_value=60)
    evaporation_wb_04_c = serializers.FloatField(
        min_value=-60, max_value=60, help_text="0.4 % annual wet bulb."
    )
    evaporation_mcdb_04_c = serializers.FloatField(min_value=-60, max_value=60)
    extreme_db_20y_c = serializers.FloatField(
        min_value=-60, max_value=60, help_text="20-year return period of the annual maximum dry bulb, °C."
    )
    estimate = serializers.BooleanField(default=False)


class SiteClimateSerializer(serializers.Serializer):
    label = serializers.CharField(max_length=128)
    station = serializers.CharField(max_length=256, help_text="The observing station and its identifier.")
    source = serializers.CharField(max_length=512, help_text="The publication of the monthly normals.")
    period = serializers.CharField(max_length=32, default="")
    latitude_deg = serializers.FloatField(min_value=-90, max_value=90)
    elevation_m = serializers.FloatField(min_value=-500, max_value=6000)
    unit = serializers.ChoiceField(choices=[("C", "°C"), ("F", "°F")], default="C")
    tmax = _months("Mean daily maximum dry bulb, January to December.", **_TEMP_F)
    tmin = _months("Mean daily minimum dry bulb, January to December.", **_TEMP_F)
    dew_point = _months("Mean dew point, January to December (or relative_humidity_pct).", **_TEMP_F)
    relative_humidity_pct = _months(
        "Mean relative humidity %, January to December.", min_value=1, max_value=100
    )
    design = DesignConditionsSerializer(required=False, allow_null=True, default=None)
    time_zone = serializers.CharField(
        max_length=64,
        default="",
        allow_blank=True,
        help_text="The station's time zone, a tz database name (`America/Phoenix`): the year's hours are its "
        "local standard time. Blank: UTC.",
    )

    def validate_time_zone(self, value: str) -> str:
        if value:
            try:
                standard_offset_h(value)
            except (ZoneInfoNotFoundError, ValueError, OSError):
                raise serializers.ValidationError(
                    f"no time zone named {value!r} in the tz database"
                ) from None
        return value

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dew_point"].required = False
        self.fields["relative_humidity_pct"].required = False

    def validate(self, attrs: dict) -> dict:
        if ("dew_point" in attrs) == ("relative_humidity_pct" in attrs):
            raise serializers.ValidationError(
                {"dew_point": "give dew_point or relative_humidity_pct, one of them"}
            )
        to_c = (lambda t: (t - 32.0) * 5.0 / 9.0) if attrs["unit"] == "F" else (lambda t: t)
        for name in ("tmax", "tmin", "dew_point"):
            if name in attrs and not all(-60.0 <= to_c(t) <= 60.0 for t in attrs[name]):
                raise serializers.ValidationError({name: "every month between -60 and 60 °C"})
        if any(lo > hi for lo, hi in zip(attrs["tmin"], attrs["tmax"], strict=True)):
            raise serializers.ValidationError({"tmin": "a month's minimum above its maximum"})
        if "dew_point" in attrs and any(
            d > hi for d, hi in zip(attrs["dew_point"], attrs["tmax"], strict=True)
        ):
            raise serializers.ValidationError({"dew_point": "a month's dew point above its maximum dry bulb"})
        design = attrs.get("design")
        if design is not None:
            try:
                attrs["design_conditions"] = DesignConditions(
                    **design, pressure_pa=pressure_at_elevation_pa(attrs["elevation_m"])
                )
            except ValueError as exc:
                field, _, message = str(exc).partition(": ")
                raise serializers.ValidationError({"design": {field: [message or str(exc)]}}) from None
        return attrs


class SiteClimateView(APIView):
    """A campus's own monthly normals and design conditions (docs/model.md, "Design weather")."""

    @extend_schema(
        operation_id="campuses_site_climate_create",
        summary="Supply a site's monthly normals and design conditions",
        description=(
            "Twelve monthly mean daily maxima and minima, a dew point or relative humidity per month, the "
            "station's elevation, and optionally its ASHRAE-style design conditions (0.4 %/1 % dry bulb with "
            "mean coincident wet bulb, 0.4 % wet bulb with mean coincident dry bulb, 20-year extreme dry "
            "bulb). The campus then uses the hourly year built from the normals, and sizes its design peak "
            "on the design conditions (without them: on the year's own 0.4 %/1 % hours). A field out of "
            "range gives 400 naming it."
        ),
        request=SiteClimateSerializer,
        responses={
            201: WEATHER_ANSWER,
            400: OpenApiResponse(description="The field at fault and why."),
        },
        tags=["weather"],
    )
    def post(self, request, pk: int):
        campus = get_object_or_404(Campus, pk=pk)
        data = SiteClimateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        station = StationNormals(
            climate=campus.climate,
            label=v["label"],
            station=v["station"],
            source=v["source"],
            period=v["period"] or "supplied",
            latitude_deg=v["latitude_deg"],
            elevation_m=v["elevation_m"],
            unit=v["unit"],
            tmax=tuple(v["tmax"]),
            tmin=tuple(v["tmin"]),
            dew_point=tuple(v["dew_point"]) if "dew_point" in v else None,
            relative_humidity_pct=tuple(v["relative_humidity_pct"]) if "relative_humidity_pct" in v else None,
            time_zone=v["time_zone"],
        )
        design = v.get("design_conditions")
        year = year_from_normals(station, design)
        with transaction.atomic():
            row, _ = CampusWeather.objects.update_or_create(
                campus=campus,
                defaults={
                    "source": year.source[:512],
                    "latitude": v["latitude_deg"],
                    "longitude": None,
                    "elevation_m": v["elevation_m"],
                    "pressure_pa": year.pressure_pa,
                    "utc_offset_h": year.utc_offset_h,
                    "leap_day_dropped": False,
                    "design_conditions": asdict(design) if design is not None else None,
                    "hours": CampusWeather.pack(year.dry_bulb_c, year.wet_bulb_c, year.relative_humidity),
                },
            )
        return Response(weather_answer(campus, year, row), status=status.HTTP_201_CREATED)


urlpatterns = [
    path("campuses/<int:pk>/site-climate/", SiteClimateView.as_view(), name="campus-site-climate"),
]
