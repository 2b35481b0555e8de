"""Measured weather made hourly for a replay (campus.analysis.replay): hourly means of 5-minute means, short
gaps interpolated, long ones and the window's ends taken from the typical year, humidity from a measured wet
bulb, a measured relative humidity, or the typical hour's moisture. Truth: hand arithmetic and Stull's
empirical wet bulb (an independent formula)."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from campus.analysis import replay as r
from campus.analysis.weather import reference_year, stull_wet_bulb_c

T0 = datetime(2026, 7, 1, tzinfo=UTC)
YEAR = reference_year("ashburn-us")
H = timedelta(hours=1)


def _hourly(values, minutes=(0, 30)):
    """Samples at the given minutes of each hour; a None hour has none."""
    return [
        (T0 + i * H + timedelta(minutes=m), v, 1)
        for i, v in enumerate(values)
        if v is not None
        for m in minutes
    ]


def test_an_hour_is_the_sample_weighted_mean_of_its_buckets():
    points = [(T0, 20.0, 3), (T0 + timedelta(minutes=5), 30.0, 1), (T0 + H, 10.0, 2)]
    np.testing.assert_allclose(r.hourly_means(points, T0, T0 + 3 * H), [22.5, 10.0, np.nan])


def test_a_short_gap_is_interpolated_and_a_long_one_left_to_the_typical_year():
    values = np.array([10.0, np.nan, np.nan, 16.0, np.nan, np.nan, np.nan, 20.0, np.nan])
    out, how = r.fill_gaps(values, max_gap_h=2)
    np.testing.assert_allclose(out[:4], [10.0, 12.0, 14.0, 16.0])
    assert list(how) == ["measured", "interpolated", "interpolated", "measured"] + ["typical"] * 3 + [
        "measured",
        "typical",
    ]
    assert np.isnan(out[4:7]).all() and np.isnan(out[8])


def test_the_hour_of_the_year_follows_the_weather_convention():
    assert r.hour_of_year(datetime(2026, 1, 1, 0, tzinfo=UTC)) == 0
    assert r.hour_of_year(datetime(2026, 7, 1, 13, tzinfo=UTC)) == (31 + 28 + 31 + 30 + 31 + 30) * 24 + 13
    # a leap year's 1 March is the typical year's 1 March; 29 February is read as 28 February
    assert r.hour_of_year(datetime(2028, 3, 1, 5, tzinfo=UTC)) == (31 + 28) * 24 + 5
    assert r.hour_of_year(datetime(2028, 2, 29, 5, tzinfo=UTC)) == (31 + 27) * 24 + 5
    assert r.hour_of_year(datetime(2028, 12, 31, 23, tzinfo=UTC)) == 8759


def test_replayed_hours_take_the_measured_dry_and_wet_bulb_and_the_typical_rest():
    db = [30.0, 31.0, None, 33.0] + [None] * 8 + [25.0]
    wb = [22.0, 22.5, 23.0, 23.5] + [None] * 9
    rw = r.replay_weather(YEAR, T0, T0 + 13 * H, _hourly(db), _hourly(wb), max_gap_h=6)
    np.testing.assert_allclose(rw.dry_bulb_c[:4], [30.0, 31.0, 32.0, 33.0])
    # the year's hours are Eastern Standard Time: 1 July 00:00 UTC is 30 June 19:00 EST
    start = r.hour_of_year(T0, YEAR.utc_offset_h)
    assert start == (31 + 28 + 31 + 30 + 31 + 30) * 24 - 5
    # hours 4..11: a gap of 8 hours, the typical year's
    np.testing.assert_allclose(rw.dry_bulb_c[4:12], YEAR.dry_bulb_c[start + 4 : start + 12])
    assert rw.counts()["dry_bulb"] == {"measured": 4, "interpolated": 1, "typical": 8}
    np.testing.assert_allclose(rw.wet_bulb_c[:4], [22.0, 22.5, 23.0, 23.5])
    assert rw.counts()["humidity"] == {"wet_bulb": 4, "typical": 9}
    assert (rw.wet_bulb_c <= rw.dry_bulb_c).all()
    # laid over the year: the window's hours replaced, every other hour the year's own
    db_year, _ = rw.over(YEAR)
    np.testing.assert_allclose(db_year[start : start + 13], rw.dry_bulb_c)
    np.testing.assert_allclose(
        np.delete(db_year, np.arange(start, start + 13)),
        np.delete(YEAR.dry_bulb_c, np.arange(start, start + 13)),
    )


@pytest.mark.parametrize(("t_c", "rh_pct"), [(30.0, 40.0), (20.0, 70.0), (35.0, 20.0), (5.0, 90.0)])
def test_a_measured_humidity_gives_stulls_wet_bulb(t_c, rh_pct):
    rw = r.replay_weather(YEAR, T0, T0 + H, _hourly([t_c]), relative_humidity_pct=_hourly([rh_pct]))
    assert rw.counts()["humidity"] == {"relative_humidity": 1}
    # Stull (2011): sea level, error -1 to +0.65 K over RH 5-99 % and -20 to 50 °C
    assert rw.wet_bulb_c[0] - float(stull_wet_bulb_c(t_c, rh_pct)) == pytest.approx(0.0, abs=1.0)
