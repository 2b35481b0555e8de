"""POST /api/campuses/{id}/site-climate/: a site's normals and design conditions without an EPW file, checked
field by field (400 naming it, never a 500), then used by the summary's design peak; the generator's
heat_rejection and facility_water through the API."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus import state
from campus.analysis import weather as w
from campus.analysis.climate_normals import STATION_BY_CLIMATE
from campus.analysis.design_weather import design_conditions_of
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.snapshot_adapter import build_snapshot

pytestmark = pytest.mark.usefixtures("fresh_analytics")

PHOENIX = STATION_BY_CLIMATE["phoenix-us"]
DESIGN = {
    "source": "a consultant's design basis, station 722780",
    "cooling_db_04_c": 45.0,
    "cooling_mcwb_04_c": 21.5,
    "cooling_db_1_c": 43.5,
    "cooling_mcwb_1_c": 21.3,
    "evaporation_wb_04_c": 24.8,
    "evaporation_mcdb_04_c": 36.0,
    "extreme_db_20y_c": 49.5,
}


def body(**over) -> dict:
    out = {
        "label": "Goodyear, Arizona",
        "station": "Phoenix Sky Harbor (USW00023183)",
        "source": "NOAA NCEI 1991-2020 normals",
        "latitude_deg": 33.4,
        "elevation_m": 337.0,
        "unit": "F",
        "tmax": list(PHOENIX.tmax),
        "tmin": list(PHOENIX.tmin),
        "dew_point": list(PHOENIX.dew_point),
        "design": DESIGN,
    }
    out.update(over)
    return out


@pytest.fixture
def campus(db):
    # an Ashburn design (water-cooled chillers, towers) moved to a site given by its numbers alone
    return import_campus(generate_spec("Site climate", gpus=512, heat_rejection="air-cooled"))


def url(campus) -> str:
    return f"/api/campuses/{campus.pk}/site-climate/"


def test_normals_and_design_conditions_become_the_campus_weather(planner_client, viewer_client, campus):
    before = viewer_client.get(reverse("campus-summary", args=[campus.pk])).json()
    created = planner_client.post(url(campus), body(), format="json")
    assert created.status_code == 201, created.content
    got = created.json()
    assert got["uploaded"] is True and got["hours"] == 8760
    # the same normals give the shipped Phoenix year hour for hour
    assert got["annual"]["max_dry_bulb_c"] == pytest.approx(
        float(w.reference_year("phoenix-us").dry_bulb_c.max()), abs=1e-3
    )
    assert got["design_conditions"]["extreme_db_20y_c"] == 49.5
    snap = build_snapshot(campus.pk)
    assert snap.weather is not None and design_conditions_of(snap).cooling_db_04_c == 45.0
    after = viewer_client.get(reverse("campus-summary", args=[campus.pk])).json()
    assert after["cooling"]["design_conditions"]["conditions"]["source"] == DESIGN["source"]
    # hotter than Ashburn at design: a higher design peak than before, and above the typical year's
    assert after["power"]["design_peak_facility_mw"] > before["power"]["design_peak_facility_mw"]
    assert after["power"]["design_peak_facility_mw"] > after["power"]["peak_facility_mw"]
    assert viewer_client.post(url(campus), body(), format="json").status_code == 403


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"tmax": [20.0] * 11}, "tmax"),
        ({"tmin": [120.0] * 12}, "tmin"),
        ({"unit": "C", "tmax": [70.0] * 12}, "tmax"),
        ({"dew_point": None, "relative_humidity_pct": None}, "dew_point"),
        ({"relative_humidity_pct": [50.0] * 12}, "dew_point"),
        ({"elevation_m": "high"}, "elevation_m"),
        ({"design": {**DESIGN, "cooling_mcwb_04_c": 50.0}}, "design"),
        ({"design": {**DESIGN, "extreme_db_20y_c": 40.0}}, "design"),
        ({"design": {**DESIGN, "cooling_db_1_c": None}}, "design"),
        ({"time_zone": "Mars/Olympus_Mons"}, "time_zone"),
        ({"time_zone": "America"}, "time_zone"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(planner_client, campus, over, field):
    data = body(**over)
    data = {k: v for k, v in data.items() if v is not None}
    response = planner_client.post(url(campus), data, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()


def test_relative_humidity_instead_of_dew_point_and_no_design(planner_client, campus):
    data = body(dew_point=None, relative_humidity_pct=[40.0] * 12, design=None)
    data = {k: v for k, v in data.items() if v is not None}
    created = planner_client.post(url(campus), data, format="json")
    assert created.status_code == 201, created.content
    # without design conditions the year's own 0.4 % hour stands in
    assert created.json()["design_conditions"]["source"].startswith("computed from the hourly year")


def test_generator_api_takes_heat_rejection_and_names_a_bad_one(planner_client, db):
    ok = planner_client.post(
        "/api/campuses/generate/",
        {"name": "Closed loop", "gpus": 512, "heat_rejection": "air-cooled", "facility_water": "W40"},
        format="json",
    )
    assert ok.status_code == 201, ok.content
    bad = planner_client.post(
        "/api/campuses/generate/", {"name": "Bad", "gpus": 512, "heat_rejection": "lake"}, format="json"
    )
    assert bad.status_code == 400 and "heat_rejection" in bad.json()
    refused = planner_client.post(
        "/api/campuses/generate/",
        {"name": "Dry desert", "gpus": 512, "climate": "phoenix-us", "heat_rejection": "dry"},
        format="json",
    )
    assert refused.status_code == 400 and "heat_rejection" in refused.json()


def test_weather_shows_the_design_conditions_in_use(viewer_client, campus):
    got = viewer_client.get(f"/api/campuses/{campus.pk}/weather/").json()
    # the default climate's station table (Washington Dulles, WMO 724030)
    assert got["design_conditions"]["cooling_db_04_c"] == 34.8
    assert "724030" in got["design_conditions"]["source"]


_number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-1000, 1000),
    st.text(max_size=3),
    st.none(),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    field=st.sampled_from(
        [
            "tmax",
            "tmin",
            "dew_point",
            "elevation_m",
            "unit",
            "design",
            "latitude_deg",
            "relative_humidity_pct",
        ]
    ),
    value=st.one_of(_number, st.lists(_number, max_size=14), st.dictionaries(st.text(max_size=20), _number)),
)
def test_nothing_a_client_sends_gives_a_500(planner_client, campus, field, value):
    data = body()
    data[field] = value
    # raw JSON as a client may write it, NaN and Infinity included
    response = planner_client.generic("POST", url(campus), json.dumps(data), content_type="application/json")
    assert response.status_code in (201, 400), response.content
    if response.status_code == 400:
        assert response.json()


def test_facility_year_reports_the_design_hours_beside_the_typical_year(viewer_client, campus):
    year = viewer_client.get(reverse("campus-facility-year", args=[campus.pk])).json()
    design = year["design"]
    assert [h["label"] for h in design["hours"]] == [
        "0.4% dry bulb / MCWB",
        "1% dry bulb / MCWB",
        "0.4% wet bulb / MCDB",
        "20-year extreme dry bulb",
    ]
    # Ashburn's 20-year extreme (39.2 °C) is hotter than any hour of its typical year (32.0 °C)
    assert design["hours"][3]["dry_bulb_c"] == 39.2 > max(year["dry_bulb_c"])
    assert design["peak_facility_mw"] > year["annual"]["peak_facility_mw"]
    assert design["hours_short"] == 0
    # a shipped climate's year asks the plant alone: no design hours of this site
    assert (
        "design"
        not in viewer_client.get(
            reverse("campus-facility-year", args=[campus.pk]), {"climate": "dublin-ie"}
        ).json()
    )


def test_a_time_zone_makes_the_years_hours_local_standard_time(planner_client, campus):
    # Arizona keeps Mountain Standard Time (UTC-7) all year: the tz database's America/Phoenix
    created = planner_client.post(url(campus), body(time_zone="America/Phoenix"), format="json")
    assert created.status_code == 201, created.content
    assert created.json()["utc_offset_h"] == -7.0
    assert w.weather_of(state.campus_state(campus).snap).utc_offset_h == -7.0
