"""GET /api/campuses/{id}/facility-replay/: a week of measured outdoor dry and wet bulb drives the plant model
in place of the typical year. Truth: the plant model evaluated hour by hour, one hour at a time, on the same
temperatures (hourly means of the uploaded samples; a 3-hour gap interpolated by hand), in a loop of its own;
and the year with the week laid over it against the typical year with the week's hours swapped by hand."""

import math
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from campus import prometheus_sync
from campus.analysis.facility import facility_year
from campus.analysis.weather import weather_of
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.snapshot_adapter import build_snapshot

pytestmark = pytest.mark.usefixtures("fresh_analytics")

T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=9)
HOURS = 168
GAP = (50, 51, 52)  # no rows in these hours


def _dry(h):  # a hot week: a diurnal swing between 24 and 38 °C
    return 31.0 + 7.0 * math.sin(2 * math.pi * (h - 9) / 24)


def _wet(h):
    return _dry(h) - 8.0 - 2.0 * math.cos(2 * math.pi * h / 24)


@pytest.fixture
def campus(db):
    return import_campus(generate_spec("Weather", gpus=512, cooling="liquid"))


def _upload(client, campus):
    lines = ["object_kind,object_name,metric,time,value"]
    for h in range(HOURS):
        if h in GAP:
            continue
        for minute, dv in ((0, -0.5), (30, 0.5)):  # two buckets an hour whose mean is the hour's value
            t = (T0 + timedelta(hours=h, minutes=minute)).isoformat()
            lines.append(f"campus,{campus.name},dry_bulb_c,{t},{_dry(h) + dv}")
            lines.append(f"campus,{campus.name},wet_bulb_c,{t},{_wet(h) + dv}")
    answer = client.post(
        f"/api/campuses/{campus.pk}/measurements/", "\n".join(lines) + "\n", content_type="text/csv"
    )
    assert answer.status_code == 201, answer.content


def _hand_hours():
    db, wb = [_dry(h) for h in range(HOURS)], [_wet(h) for h in range(HOURS)]
    a, b = GAP[0] - 1, GAP[-1] + 1
    for h in GAP:  # linear between the measured hours either side
        k = (h - a) / (b - a)
        db[h] = db[a] + k * (db[b] - db[a])
        wb[h] = wb[a] + k * (wb[b] - wb[a])
    return db, wb


def _url(campus, **query):
    return reverse("campus-facility-replay", kwargs={"pk": campus.pk}), query


def test_a_replayed_week_equals_the_plant_model_hour_by_hour(campus, planner_client, viewer_client):
    _upload(planner_client, campus)
    end = T0 + timedelta(hours=HOURS)
    path, query = _url(campus, start=T0.isoformat(), end=end.isoformat())
    answer = viewer_client.get(path, query)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["hours"] == HOURS
    assert body["how"]["dry_bulb"] == {"measured": HOURS - 3, "interpolated": 3}
    assert body["how"]["humidity"] == {"wet_bulb": HOURS}
    snap = build_snapshot(campus.pk)
    db, wb = _hand_hours()
    facility_mwh = it_mwh = 0.0
    for h in range(HOURS):  # one hour at a time
        one = facility_year(snap, [db[h]], [wb[h]])
        facility_mwh += float(one.facility_mw[0])
        it_mwh += float(one.it_mw[0])
    span = body["span"]
    assert span["annual_energy_mwh"] == pytest.approx(facility_mwh, rel=1e-9)
    assert span["annual_it_energy_mwh"] == pytest.approx(it_mwh, rel=1e-9)
    assert span["pue"] == pytest.approx(facility_mwh / it_mwh, rel=1e-9)
    assert body["hourly"]["dry_bulb_c"] == [pytest.approx(v, abs=0.006) for v in db]

    # the year with the week laid over it: the typical year less its week plus the replayed week
    typical = viewer_client.get(reverse("campus-facility-year", args=[campus.pk])).json()
    # the typical year's hours are the site's local standard time (Ashburn: UTC-5); 9 days ago is no 29 February
    local = T0 + timedelta(hours=weather_of(snap).utc_offset_h)
    first = (local.timetuple().tm_yday - 1) * 24 + local.hour
    week = [(first + h) % 8760 for h in range(HOURS)]
    hand_year_mwh = sum(typical["facility_mw"]) - sum(typical["facility_mw"][i] for i in week) + facility_mwh
    # /facility-year/ gives each hour's MW to 4 decimals: summed over a flat year (free cooling throughout)
    # the rounding does not cancel, so the hand sums hold to half a unit of the last place an hour
    rounding_mwh = 8760 * 0.5e-4
    assert body["year"]["annual_energy_mwh"] == pytest.approx(hand_year_mwh, abs=rounding_mwh)
    assert body["typical_year"]["annual_energy_mwh"] == pytest.approx(
        sum(typical["facility_mw"]), abs=rounding_mwh
    )
    # a hot week raises the PUE above the typical year's same hours
    typical_week_pue = sum(typical["facility_mw"][i] for i in week) / sum(typical["it_mw"][i] for i in week)
    assert span["pue"] > typical_week_pue
    # a branch holding no measurements replays its site's weather, the trunk's
    branch = planner_client.post(
        reverse("campus-branch", kwargs={"pk": campus.pk}),
        {"name": "Weather b"},
        content_type="application/json",
    )
    assert branch.status_code == 201, branch.content
    path, query = _url(type(campus)(pk=branch.json()["id"]), start=T0.isoformat(), end=end.isoformat())
    on_branch = viewer_client.get(path, query)
    assert on_branch.status_code == 200, on_branch.content
    assert on_branch.json()["hourly"]["dry_bulb_c"] == body["hourly"]["dry_bulb_c"]
    # the same hours of the typical year, beside the window: the facility year's own hours summed
    same = body["typical_span"]
    assert same["hours"] == HOURS
    assert same["annual_energy_mwh"] == pytest.approx(
        sum(typical["facility_mw"][i] for i in week), abs=HOURS * 0.5e-4
    )
    assert same["pue"] == pytest.approx(typical_week_pue, rel=2e-4)  # the hourly API rounds its figures


def test_a_window_without_measured_weather_is_a_400_naming_the_start(campus, viewer_client):
    path, query = _url(campus, start=T0.isoformat(), end=(T0 + timedelta(days=1)).isoformat())
    answer = viewer_client.get(path, query)
    assert answer.status_code == 400
    assert "no measured outdoor dry bulb" in answer.json()["start"][0]


def test_bad_windows_and_unknown_parameters_are_400s_naming_them(campus, viewer_client):
    path, query = _url(campus, start=T0.isoformat(), end=T0.isoformat())
    assert list(viewer_client.get(path, query).json()) == ["end"]
    path, query = _url(campus, start=T0.isoformat(), end=(T0 + timedelta(days=400)).isoformat())
    assert list(viewer_client.get(path, query).json()) == ["end"]
    path, query = _url(campus, start=T0.isoformat(), end=(T0 + timedelta(days=1)).isoformat(), gap=3)
    assert list(viewer_client.get(path, query).json()) == ["gap"]
    path, query = _url(campus, end=(T0 + timedelta(days=1)).isoformat())
    assert list(viewer_client.get(path, query).json()) == ["start"]


def test_a_window_without_its_time_zone_is_a_400_not_read_as_utc(campus, viewer_client):
    naive = T0.replace(tzinfo=None)
    path, query = _url(campus, start=naive.isoformat(), end=(T0 + timedelta(days=1)).isoformat())
    answer = viewer_client.get(path, query)
    assert answer.status_code == 400 and list(answer.json()) == ["start"]
    assert "time zone" in answer.json()["start"][0]
    path, query = _url(campus, start=T0.isoformat(), end=(naive + timedelta(days=1)).isoformat())
    assert list(viewer_client.get(path, query).json()) == ["end"]


def test_weather_rows_belong_to_the_campus_and_stay_in_their_range(campus, planner_client):
    body = "object_kind,object_name,metric,time,value\n"
    t = T0.isoformat()
    answer = planner_client.post(
        f"/api/campuses/{campus.pk}/measurements/",
        body + f"building,B1,dry_bulb_c,{t},20\n",
        content_type="text/csv",
    )
    # a metric a building does not have: the 400 names the metric, as for every metric on the wrong kind
    assert answer.status_code == 400 and answer.json()["field"] == "metric"
    answer = planner_client.post(
        f"/api/campuses/{campus.pk}/measurements/",
        body + f"campus,{campus.name},relative_humidity_pct,{t},140\n",
        content_type="text/csv",
    )
    assert answer.status_code == 400 and answer.json()["field"] == "value"
    answer = planner_client.post(
        f"/api/campuses/{campus.pk}/measurements/",
        body + f"campus,{campus.name},dry_bulb_c,{t},-12.5\n",
        content_type="text/csv",
    )
    assert answer.status_code == 201, answer.content


def test_a_prometheus_weather_series_belongs_to_the_campus():
    entry = {"query": 'outdoor_temperature_celsius{campus="x"}', "object_name": "x", "metric": "dry_bulb_c"}
    with pytest.raises(prometheus_sync.MappingError) as exc:
        prometheus_sync.check_mapping([{**entry, "object_kind": "rack"}])
    assert exc.value.field == "metric"
    assert prometheus_sync.check_mapping([{**entry, "object_kind": "campus"}])[0]["metric"] == "dry_bulb_c"
    # a sample out of its metric's range is dropped, a cold one kept
    samples = prometheus_sync.samples_of(
        {**entry, "object_kind": "campus"}, [{"metric": {}, "values": [[0, "-12.5"], [60, "80"]]}], set()
    )
    assert [s.value for s in samples] == [-12.5]
