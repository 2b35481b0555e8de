"""Weather years: the shipped reference years reproduce their sources' normals, the psychrometrics match
published table values, and heat waves warm the air without adding moisture."""

from __future__ import annotations

import numpy as np
import psychrolib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis import weather as w
from campus.analysis.climate_normals import STATIONS
from campus.analysis.snapshot import CampusSnapshot


def f_to_c(f: float) -> float:
    return (f - 32.0) * 5.0 / 9.0


def daily(hourly: np.ndarray) -> np.ndarray:
    return np.asarray(hourly).reshape(w.DAYS_PER_YEAR, 24)


def month_mean_of_days(day_values: np.ndarray) -> np.ndarray:
    return w.monthly_means(np.repeat(day_values, 24))


def test_six_climates_ship():
    assert set(w.CLIMATES) >= {
        "memphis-us",
        "phoenix-us",
        "ashburn-us",
        "dublin-ie",
        "singapore-sg",
        "ulanqab-cn",
    }
    assert w.DEFAULT_CLIMATE in w.CLIMATES
    for station in STATIONS:
        assert station.source and station.station and len(station.tmax) == len(station.tmin) == 12
        assert (station.dew_point is None) != (station.relative_humidity_pct is None)


@pytest.mark.parametrize("station", STATIONS, ids=lambda s: s.climate)
def test_monthly_means_of_daily_extremes_reproduce_the_normals(station):
    year = w.reference_year(station.climate)
    conv = f_to_c if station.unit == "F" else (lambda x: x)
    day = daily(year.dry_bulb_c)
    np.testing.assert_allclose(
        month_mean_of_days(day.max(axis=1)), [conv(x) for x in station.tmax], atol=1e-6
    )
    np.testing.assert_allclose(
        month_mean_of_days(day.min(axis=1)), [conv(x) for x in station.tmin], atol=1e-6
    )
    if station.dew_point is not None:
        np.testing.assert_allclose(
            w.monthly_means(year.dew_point_c), [conv(x) for x in station.dew_point], atol=0.01
        )
    else:
        np.testing.assert_allclose(
            w.monthly_means(year.relative_humidity) * 100.0, station.relative_humidity_pct, atol=0.01
        )


def test_published_figures_hand_checked():
    # NOAA NCEI 1991-2020: Phoenix Sky Harbor July mean daily maximum 106.5 °F; Met Éireann 1991-2020:
    # Dublin Airport January mean daily minimum 2.6 °C; MSS: Changi December mean relative humidity 85.4 %
    phoenix = daily(w.reference_year("phoenix-us").dry_bulb_c)
    assert phoenix[181:212].max(axis=1).mean() == pytest.approx(41.39, abs=0.01)
    dublin = daily(w.reference_year("dublin-ie").dry_bulb_c)
    assert dublin[0:31].min(axis=1).mean() == pytest.approx(2.6, abs=0.01)
    singapore = w.reference_year("singapore-sg")
    assert singapore.relative_humidity[-31 * 24 :].mean() == pytest.approx(0.854, abs=0.001)


@pytest.mark.parametrize("climate", w.CLIMATES)
def test_every_hour_is_physical(climate):
    year = w.reference_year(climate)
    assert year.dry_bulb_c.shape == year.wet_bulb_c.shape == year.relative_humidity.shape == (8760,)
    assert np.all(year.wet_bulb_c <= year.dry_bulb_c + 1e-9)
    assert np.all(year.wet_bulb_c >= year.dew_point_c - 1e-6)  # dew point ≤ wet bulb ≤ dry bulb
    assert np.all((year.relative_humidity > 0.0) & (year.relative_humidity <= 1.0 + 1e-12))
    # the diurnal shape: coldest at 05:00, warmest at 15:00 every day
    day = daily(year.dry_bulb_c)
    assert np.all(day.argmin(axis=1) == 4) or np.allclose(day.max(axis=1), day.min(axis=1))
    assert np.all(np.argmax(day, axis=1)[np.ptp(day, axis=1) > 0] == 14)
    # smooth across the seasons: no jump of a daily maximum at a month's edge
    assert np.max(np.abs(np.diff(day.max(axis=1)))) < 1.0


def test_climates_rank_as_their_normals_say():
    hottest = {c: w.reference_year(c).dry_bulb_c.max() for c in w.CLIMATES}
    assert hottest["phoenix-us"] > hottest["dublin-ie"]
    assert max(hottest, key=hottest.get) == "phoenix-us"
    muggiest = {c: w.reference_year(c).wet_bulb_c.mean() for c in w.CLIMATES}
    assert max(muggiest, key=muggiest.get) == "singapore-sg"
    coldest = {c: w.reference_year(c).dry_bulb_c.min() for c in w.CLIMATES}
    assert min(coldest, key=coldest.get) == "ulanqab-cn"


def test_deterministic():
    built = w.reference_year.__wrapped__("memphis-us")
    again = w.reference_year.__wrapped__("memphis-us")
    assert built == again and hash(built) == hash(again)
    assert built is not again


def test_unknown_climate():
    with pytest.raises(ValueError, match="unknown climate"):
        w.reference_year("atlantis")


# ------------------------------------------------------------------ psychrometrics against tables


def test_saturation_pressure_matches_ashrae_table():
    # ASHRAE Handbook-Fundamentals 2017 ch. 1 table 3: 20 °C 2.3393 kPa, 30 °C 4.2470 kPa; -10 °C over ice 0.25990 kPa
    assert w.saturation_vapour_pressure_pa(20.0) == pytest.approx(2339.3, abs=1.0)
    assert w.saturation_vapour_pressure_pa(30.0) == pytest.approx(4247.0, abs=1.0)
    assert w.saturation_vapour_pressure_pa(-10.0, over_ice=True) == pytest.approx(259.90, abs=0.2)


def test_standard_atmosphere_matches_ashrae_table():
    # ASHRAE Handbook-Fundamentals 2017 ch. 1 table 1: 1000 m 89.875 kPa, 1500 m 84.556 kPa
    assert w.pressure_at_elevation_pa(1000.0) == pytest.approx(89_875, abs=15)
    assert w.pressure_at_elevation_pa(1500.0) == pytest.approx(84_556, abs=15)


@pytest.mark.parametrize(
    ("dry_bulb_c", "rh", "wet_bulb_c"),
    [
        (20.0, 0.50, 13.8),  # sea-level psychrometric chart (ASHRAE chart no. 1)
        (30.0, 0.50, 22.0),
        (25.0, 0.50, 18.0),
    ],
)
def test_wet_bulb_matches_psychrometric_chart(dry_bulb_c, rh, wet_bulb_c):
    got = w.wet_bulb_c(dry_bulb_c, w.dew_point_c(dry_bulb_c, rh))
    assert float(got) == pytest.approx(wet_bulb_c, abs=0.15)


def test_stull_against_its_paper_and_the_table():
    # Stull (2011) worked example: 20 °C and 50 % give 13.7 °C; the psychrometric value is 13.8 °C
    assert float(w.stull_wet_bulb_c(20.0, 50.0)) == pytest.approx(13.7, abs=0.05)
    assert float(w.stull_wet_bulb_c(20.0, 50.0)) == pytest.approx(13.8, abs=0.2)


def test_stull_agrees_with_psychrometrics_as_its_paper_reports():
    # Stull (2011) reports a mean absolute error of 0.28 K against psychrometric values over its range;
    # over 0-40 °C and 10-99 % (where a plant's air lives) the two agree as closely
    t, rh = (a.ravel() for a in np.meshgrid(np.linspace(0.0, 40.0, 81), np.linspace(10.0, 99.0, 90)))
    diff = w.stull_wet_bulb_c(t, rh) - w.wet_bulb_c(t, w.dew_point_c(t, rh / 100.0))
    assert np.abs(diff).mean() < 0.3
    assert np.all(np.abs(diff) < 1.0)


@settings(max_examples=100, deadline=None)
@given(st.floats(-40.0, 55.0), st.floats(0.02, 1.0))
def test_dew_point_and_humidity_invert_each_other(t, rh):
    td = w.dew_point_c(t, rh)
    assert float(w.relative_humidity(t, td)) == pytest.approx(rh, rel=1e-6)
    assert float(td) <= t + 1e-9


def test_saturated_air_wet_bulb_equals_dry_bulb():
    t = np.array([-15.0, 0.5, 10.0, 30.0])
    np.testing.assert_allclose(w.wet_bulb_c(t, t), t, atol=0.02)


# ------------------------------------------------------------------ psychrometrics against PsychroLib

# PsychroLib (Meyer and Thevenard 2019, J. Open Source Softw. 4(33), 1137) implements the same ASHRAE
# Handbook-Fundamentals 2017 ch. 1 equations one value at a time, independently of this code. Where the
# conventions meet (PsychroLib takes a dew point below 0.01 °C over ice, this code over water, as weather
# stations report it) the two agree to PsychroLib's bisection tolerance, 0.001 K.
psychrolib.SetUnitSystem(psychrolib.SI)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.5, 50.0), st.floats(0.0, 1.0), st.floats(0.0, 2500.0))
def test_wet_bulb_agrees_with_psychrolib(t, moisture, elevation_m):
    td = 0.02 + moisture * (t - 0.02)  # a dew point above the triple point, at most the dry bulb
    p = w.pressure_at_elevation_pa(elevation_m)
    assert p == pytest.approx(psychrolib.GetStandardAtmPressure(elevation_m), rel=1e-9)
    expected = psychrolib.GetTWetBulbFromTDewPoint(t, td, p)
    assert float(w.wet_bulb_c(t, td, p)) == pytest.approx(expected, abs=1e-3)


@settings(max_examples=200, deadline=None)
@given(st.floats(-60.0, 60.0))
def test_saturation_pressure_agrees_with_psychrolib(t):
    # PsychroLib: over ice below the triple point, over water above it
    over_ice = t < psychrolib.TRIPLE_POINT_WATER_SI
    got = float(w.saturation_vapour_pressure_pa(t, over_ice=over_ice))
    assert got == pytest.approx(psychrolib.GetSatVapPres(t), rel=1e-9)


# ------------------------------------------------------------------ heat waves and the snapshot


def test_heat_wave_warms_the_window_only_and_keeps_the_moisture():
    base = w.reference_year("ashburn-us")
    hot = w.with_heat_wave(base, start_day=196, days=5, temperature_rise_k=6.0)
    window = slice(195 * 24, 200 * 24)
    delta = hot.dry_bulb_c - base.dry_bulb_c
    np.testing.assert_allclose(delta[window], 6.0)
    assert np.count_nonzero(delta) == 5 * 24
    np.testing.assert_allclose(hot.dew_point_c, base.dew_point_c, atol=1e-6)
    rise = hot.wet_bulb_c[window] - base.wet_bulb_c[window]
    assert np.all(rise > 0.0) and np.all(rise < 6.0)
    assert np.all(hot.relative_humidity[window] < base.relative_humidity[window])
    assert np.all(hot.wet_bulb_c <= hot.dry_bulb_c)
    np.testing.assert_array_equal(hot.wet_bulb_c[: 195 * 24], base.wet_bulb_c[: 195 * 24])
    assert "heat wave" in hot.source and hot.climate == base.climate


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"start_day": 0, "days": 1, "temperature_rise_k": 1.0}, "start_day"),
        ({"start_day": 365, "days": 2, "temperature_rise_k": 1.0}, "days"),
        ({"start_day": 10, "days": 0, "temperature_rise_k": 1.0}, "days"),
        ({"start_day": 10, "days": 1, "temperature_rise_k": -1.0}, "temperature_rise_k"),
    ],
)
def test_heat_wave_rejects_bad_parameters(kwargs, field):
    with pytest.raises(ValueError, match=field):
        w.with_heat_wave(w.reference_year("dublin-ie"), **kwargs)


def _snap(**kw) -> CampusSnapshot:
    return CampusSnapshot(
        id=1, name="c", grid_capacity_kw=1.0, price_usd_per_kwh=0.1, design_pue=1.2, ambient_temp_c=25.0,
        other_it_fraction=0.1, **kw,
    )  # fmt: skip


def test_weather_of_prefers_the_uploaded_year():
    assert _snap().climate == w.DEFAULT_CLIMATE
    assert w.weather_of(_snap()) is w.reference_year(w.DEFAULT_CLIMATE)
    assert w.weather_of(_snap(climate="singapore-sg")) is w.reference_year("singapore-sg")
    own = w.year_from_dew_point("dublin-ie", "epw: test", np.full(8760, 20.0), np.full(8760, 10.0))
    assert w.weather_of(_snap(climate="dublin-ie", weather=own)) is own


def test_weather_year_checks_its_arrays():
    with pytest.raises(ValueError, match="dry_bulb_c"):
        w.WeatherYear("x", "y", np.zeros(10), np.zeros(8760), np.zeros(8760))
    year = w.reference_year("memphis-us")
    with pytest.raises(ValueError):
        year.dry_bulb_c[0] = 99.0
