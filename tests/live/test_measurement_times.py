"""Upload rows whose time or header the parser cannot take are 400s naming the line and field, never a server
error, and nothing is written; a time in the future is refused (it would end /measured/'s window there)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from campus.analysis import measurements as m
from campus.models import MeasurementRollup
from tests import factories as f

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]

HEADER = "object_kind,object_name,metric,time,value\n"


@pytest.fixture
def campus():
    campus = f.CampusFactory(name="Times", other_it_fraction=0.0)
    f.RackFactory(
        hall=f.DataHallFactory(building=f.BuildingFactory(campus=campus)), name="R1", extra_it_kw=40.0
    )
    return campus


def upload(client, campus, body, content_type="text/csv"):
    url = reverse("campus-measurements", kwargs={"pk": campus.pk})
    if content_type == "application/json":
        return client.post(url, body, format="json")
    return client.post(url, body, content_type=content_type)


@pytest.mark.parametrize(
    "time",
    [
        "inf",  # float('inf') Unix seconds
        "1e20",  # beyond the platform's time_t
        "-1e20",
        "0001-01-01T00:00:00+01:00",  # UTC of it is before year 1
    ],
)
def test_a_time_out_of_range_is_a_400_on_time(campus, planner_client, time):
    r = upload(planner_client, campus, HEADER + f"rack,R1,power_kw,{time},30\n")
    assert r.status_code == 400, r.content
    assert r.json()["field"] == "time" and r.json()["line"] == 2
    assert not MeasurementRollup.objects.filter(campus=campus).exists()


def test_a_json_integer_time_beyond_a_float_is_a_400(campus, planner_client):
    for time in (10**30, 10**400):
        row = {"object_kind": "rack", "object_name": "R1", "metric": "power_kw", "time": time, "value": 30}
        r = upload(planner_client, campus, [row], "application/json")
        assert r.status_code == 400, r.content
        assert r.json()["field"] == "time" and r.json()["line"] == 0


def test_a_future_time_is_refused_and_a_clock_a_little_ahead_is_not(campus, planner_client):
    now = datetime.now(UTC)
    ahead = now + m.FUTURE_TOLERANCE - timedelta(minutes=10)
    future = now + m.FUTURE_TOLERANCE + timedelta(minutes=10)
    far = "9999-12-31T23:59:59Z"  # its day's end overflowed the daily rollup: a server error
    for when in (future.isoformat(), far):
        body = HEADER + f"rack,R1,power_kw,{now.isoformat()},30\nrack,R1,power_kw,{when},30\n"
        r = upload(planner_client, campus, body)
        assert r.status_code == 400, r.content
        assert r.json()["field"] == "time" and r.json()["line"] == 3
        assert "future" in r.json()["time"][0]
    assert not MeasurementRollup.objects.filter(campus=campus).exists()
    r = upload(planner_client, campus, HEADER + f"rack,R1,power_kw,{ahead.isoformat()},30\n")
    assert r.status_code == 201, r.content


def test_an_empty_body_is_a_400_naming_the_header(campus, planner_client):
    r = upload(planner_client, campus, "")
    assert r.status_code == 400, r.content
    assert r.json()["field"] == "header" and r.json()["line"] == 1


def test_a_column_named_twice_is_a_400_not_the_last_one_silently(campus, planner_client):
    t = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    body = "object_kind,object_name,metric,time,value,value\n" + f"rack,R1,power_kw,{t},30,40\n"
    r = upload(planner_client, campus, body)
    assert r.status_code == 400, r.content
    assert r.json()["field"] == "value" and r.json()["line"] == 1
    assert not MeasurementRollup.objects.filter(campus=campus).exists()
