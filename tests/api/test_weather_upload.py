"""EPW upload: a file written to the EPW data dictionary is read back hour for hour, a leap year loses
29 February, a malformed file gets 400 naming its line, nothing a client sends gives a 500."""

from __future__ import annotations

import numpy as np
import pytest

from campus.analysis import weather as w
from campus.epw import EPWError, parse_epw
from campus.models import CampusWeather
from campus.snapshot_adapter import build_snapshot
from tests import factories as f
from tests.epw_text import epw_bytes, epw_lines, leap_insert

MEMPHIS = w.reference_year("memphis-us")


def memphis_lines(**kw) -> list[str]:
    return epw_lines(
        MEMPHIS.dry_bulb_c, MEMPHIS.dew_point_c, MEMPHIS.relative_humidity * 100.0, MEMPHIS.pressure_pa, **kw
    )


def url(campus) -> str:
    return f"/api/campuses/{campus.pk}/weather/"


def post(client, campus, body: bytes, content_type: str = "text/plain"):
    return client.generic("POST", url(campus), body, content_type=content_type)


def test_parse_reads_the_hours_back():
    year = parse_epw(epw_bytes(memphis_lines()))
    assert year.dry_bulb_c.shape == (8760,) and not year.leap_day_dropped
    np.testing.assert_allclose(year.dry_bulb_c, np.round(MEMPHIS.dry_bulb_c, 1))
    np.testing.assert_allclose(year.dew_point_c, np.round(MEMPHIS.dew_point_c, 1))
    assert year.latitude == pytest.approx(35.06) and year.elevation_m == pytest.approx(77.0)
    assert "Test Site" in year.source


def test_a_leap_year_loses_29_february():
    t = leap_insert(MEMPHIS.dry_bulb_c)
    t[59 * 24 : 60 * 24] = 40.0  # 29 February stands out; it must not survive
    lines = epw_lines(
        t,
        leap_insert(MEMPHIS.dew_point_c),
        leap_insert(MEMPHIS.relative_humidity * 100),
        leap=True,
        year=2020,
    )
    year = parse_epw(epw_bytes(lines))
    assert year.leap_day_dropped and year.dry_bulb_c.shape == (8760,)
    assert year.dry_bulb_c.max() < 40.0
    np.testing.assert_allclose(year.dry_bulb_c[59 * 24 :], np.round(MEMPHIS.dry_bulb_c[59 * 24 :], 1))


def _broken(line_number: int, field: int, value: str) -> bytes:
    lines = memphis_lines()
    parts = lines[line_number - 1].split(",")
    parts[field] = value
    lines[line_number - 1] = ",".join(parts)
    return epw_bytes(lines)


def test_29_february_needs_a_leap_year():
    t = leap_insert(MEMPHIS.dry_bulb_c)
    lines = epw_lines(t, t - 5.0, np.full(t.size, 70.0), leap=True, year=2019)
    with pytest.raises(EPWError) as caught:
        parse_epw(epw_bytes(lines))
    assert caught.value.line == 8 + 59 * 24 + 1 and "leap" in caught.value.message


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        (b"", 1, "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", 3, "binary"),
        (b"hello,world\n", 1, "LOCATION"),
        (epw_bytes(memphis_lines()[:4000]), 4001, "ends after"),
        (epw_bytes(memphis_lines() + memphis_lines()[8:30]), 8769, "8,760"),
        (_broken(4391, 6, "abc"), 4391, "dry bulb"),
        (_broken(100, 6, "99.9"), 100, "missing"),
        (_broken(101, 8, "150"), 101, "relative humidity"),
        (_broken(102, 9, "20000"), 102, "pressure"),
        (_broken(103, 3, "7"), 103, "expected"),
        (_broken(1, 6, "north"), 1, "latitude"),
        (
            epw_bytes([line + ",extra" if i == 500 else line for i, line in enumerate(memphis_lines())]),
            501,
            "fields",
        ),
    ],
)
def test_malformed_files_name_their_line(body, line, words):
    with pytest.raises(EPWError) as caught:
        parse_epw(body)
    assert caught.value.line == line and words in str(caught.value)


@pytest.mark.django_db
def test_upload_get_and_delete(planner_client, viewer_client):
    campus = f.CampusFactory(climate="dublin-ie")
    before = viewer_client.get(url(campus)).json()
    assert before["uploaded"] is False and before["climate"] == "dublin-ie"
    assert before["monthly_means"]["dry_bulb_c"] == pytest.approx(
        list(w.monthly_means(w.reference_year("dublin-ie").dry_bulb_c)), abs=1e-3
    )
    assert post(viewer_client, campus, epw_bytes(memphis_lines())).status_code == 403

    created = post(planner_client, campus, epw_bytes(memphis_lines()), "application/octet-stream")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["uploaded"] is True and body["climate"] == "dublin-ie" and body["hours"] == 8760
    assert "Test Site" in body["source"]
    assert body["monthly_means"]["dry_bulb_c"] == pytest.approx(
        list(w.monthly_means(MEMPHIS.dry_bulb_c)), abs=0.05
    )
    # the wet bulb is recomputed from the file's dew point at its pressure
    assert body["monthly_means"]["wet_bulb_c"] == pytest.approx(
        list(w.monthly_means(MEMPHIS.wet_bulb_c)), abs=0.1
    )
    assert viewer_client.get(url(campus)).json() == body

    snap = build_snapshot(campus.pk)
    assert snap.weather is not None and w.weather_of(snap) is snap.weather
    assert np.all(snap.weather.wet_bulb_c <= snap.weather.dry_bulb_c)

    again = post(planner_client, campus, epw_bytes(memphis_lines()))
    assert again.status_code == 201 and CampusWeather.objects.filter(campus=campus).count() == 1

    assert planner_client.delete(url(campus)).status_code == 204
    after = viewer_client.get(url(campus)).json()
    assert after["uploaded"] is False and after["source"] == before["source"]
    assert build_snapshot(campus.pk).weather is None


@pytest.mark.django_db
def test_bad_bodies_are_4xx_never_500(planner_client, settings):
    campus = f.CampusFactory()
    bad = post(planner_client, campus, _broken(4391, 6, "abc"))
    assert bad.status_code == 400 and bad.json()["line"] == 4391
    for body, ctype in (
        (b"", "text/plain"),
        (b"\x00\xff\xfe" * 100, "application/octet-stream"),
        (b"{}", "application/json"),
    ):
        answer = post(planner_client, campus, body, ctype)
        assert answer.status_code == 400 and "line" in answer.json()
    settings.TWIN_EPW_MAX_BYTES = 1000
    assert post(planner_client, campus, b"x" * 5000).status_code == 413
    assert planner_client.get("/api/campuses/999999/weather/").status_code == 404
    assert not CampusWeather.objects.exists()
