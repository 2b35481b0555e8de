"""Measured series made regular for a replay (docs/live.md, "Replay"): a power series of 5-minute means with
its missing buckets filled, and measured outdoor weather laid over a weather year hour by hour.

Pure: plain (time, value) pairs in, arrays out. The database reads are ``campus.measurements_store``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from campus.analysis import weather as w
from campus.analysis.weather import WeatherYear, hour_of_year


@dataclass(frozen=True)
class RegularSeries:
    start: datetime  # the first value's instant
    step_s: float
    values: np.ndarray
    filled: int  # values filled in (no measurement held for them)


def regular(points: Sequence[tuple[datetime, float]], step_s: float) -> RegularSeries:
    """The values every ``step_s`` from the first point to the last: a step with a point keeps it; a step
    without one (a gap: the source was down, or an upload skipped it) is interpolated linearly between the
    points either side. The series starts at its first point and ends at its last: nothing is made up
    outside the measured span. ``points`` lie on the step grid (the rollups' bucket starts)."""
    if not points:
        raise ValueError("no points")
    pts = sorted(points)
    t0 = pts[0][0]
    idx = np.array([round((t - t0).total_seconds() / step_s) for t, _ in pts])
    vals = np.array([v for _, v in pts], dtype=float)
    n = int(idx[-1]) + 1
    grid = np.arange(n)
    out = np.interp(grid, idx, vals)
    return RegularSeries(t0, step_s, out, n - len(set(idx.tolist())))


# ---------------------------------------------------------------- weather


HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class HourlyWeather:
    """Measured outdoor weather over a span, one value per hour (NaN where not measured)."""

    start: datetime  # the first hour (UTC, on the hour)
    dry_bulb_c: np.ndarray
    wet_bulb_c: np.ndarray  # NaN: not measured (derived from humidity or the typical year's moisture)
    relative_humidity: np.ndarray  # fraction 0-1; NaN: not measured


def hourly_means(points: Sequence[tuple[datetime, float, int]], start: datetime, end: datetime) -> np.ndarray:
    """Sample-weighted hourly means of 5-minute means (time, mean, samples) over the hours of [start, end);
    NaN for an hour with none."""
    hours = int((end - start) / HOUR)
    total = np.zeros(hours)
    weight = np.zeros(hours)
    for t, mean, samples in points:
        i = int((t - start) / HOUR)
        if 0 <= i < hours:
            total[i] += mean * samples
            weight[i] += samples
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight > 0, total / np.where(weight > 0, weight, 1.0), np.nan)


def fill_gaps(hourly: np.ndarray, max_gap_h: int) -> tuple[np.ndarray, np.ndarray]:
    """(values, how each hour was had): a run of at most ``max_gap_h`` missing hours between two measured
    ones is interpolated linearly ("interpolated"); a longer gap, or one at either end, stays NaN ("typical":
    the caller takes the typical year's hour). Measured hours are "measured"."""
    out = hourly.astype(float).copy()
    how = np.where(np.isnan(out), "typical", "measured").astype(object)
    known = np.flatnonzero(~np.isnan(out))
    for a, b in zip(known[:-1], known[1:], strict=False):
        gap = b - a - 1
        if 0 < gap <= max_gap_h:
            inside = np.arange(a + 1, b)
            out[inside] = np.interp(inside, [a, b], [out[a], out[b]])
            how[inside] = "interpolated"
    return out, how


# A gap of up to 6 hours between two measured hours is interpolated (a diurnal swing is smooth over a few
# hours: the ASHRAE daily-range profile changes by at most 0.17 of the range an hour); a longer one, or one at
# either end of the window, takes the typical year's hours. A choice, not a sourced figure.
MAX_GAP_H = 6


@dataclass(frozen=True)
class ReplayedWeather:
    """The hours of a measured window, each with its dry and wet bulb and how it was had."""

    start: datetime
    dry_bulb_c: np.ndarray
    wet_bulb_c: np.ndarray
    dry_bulb_how: np.ndarray  # "measured" | "interpolated" | "typical" per hour
    humidity_how: np.ndarray  # "wet_bulb" | "relative_humidity" (measured or interpolated) | "typical"
    year_hours: np.ndarray  # each hour's index in the typical year

    def counts(self) -> dict[str, dict[str, int]]:
        def count(how: np.ndarray) -> dict[str, int]:
            values, n = np.unique(how.astype(str), return_counts=True)
            return {str(v): int(c) for v, c in zip(values, n, strict=True)}

        return {"dry_bulb": count(self.dry_bulb_how), "humidity": count(self.humidity_how)}

    def over(self, year: WeatherYear) -> tuple[np.ndarray, np.ndarray]:
        """The typical ``year``'s dry and wet bulb with the window's hours laid over it (a window longer than
        a year: its last pass over each hour wins)."""
        db = np.array(year.dry_bulb_c, dtype=float)
        wb = np.array(year.wet_bulb_c, dtype=float)
        db[self.year_hours] = self.dry_bulb_c
        wb[self.year_hours] = self.wet_bulb_c
        return db, wb


def replay_weather(
    year: WeatherYear,
    start: datetime,
    end: datetime,
    dry_bulb: Sequence[tuple[datetime, float, int]],
    wet_bulb: Sequence[tuple[datetime, float, int]] = (),
    relative_humidity_pct: Sequence[tuple[datetime, float, int]] = (),
    max_gap_h: int = MAX_GAP_H,
) -> ReplayedWeather:
    """The hours of [start, end) (whole hours, UTC) from measured 5-minute means (time, mean, samples):

    - dry bulb: the hour's sample-weighted mean; a gap of at most ``max_gap_h`` hours between measured hours
      interpolated linearly; any other hour the typical ``year``'s (``weather.WeatherYear``, same hour of
      the year);
    - humidity: a measured (or so interpolated) wet bulb; else a measured relative humidity, whose wet bulb
      follows from the psychrometric equations at the year's pressure (``weather.wet_bulb_c`` from the dew
      point); else the typical hour's dew point (its moisture) at the replayed dry bulb. A wet bulb is never
      above its dry bulb."""
    hours = int((end - start) / HOUR)
    if hours < 1:
        raise ValueError("end: at least one whole hour after start")
    year_hours = np.array([hour_of_year(start + i * HOUR, year.utc_offset_h) for i in range(hours)])
    db, db_how = fill_gaps(hourly_means(dry_bulb, start, end), max_gap_h)
    typical = db_how == "typical"
    db[typical] = year.dry_bulb_c[year_hours[typical]]
    wb, wb_how = fill_gaps(hourly_means(wet_bulb, start, end), max_gap_h)
    rh, rh_how = fill_gaps(hourly_means(relative_humidity_pct, start, end), max_gap_h)
    humidity_how = np.where(
        wb_how != "typical", "wet_bulb", np.where(rh_how != "typical", "relative_humidity", "typical")
    )
    out = np.empty(hours)
    use_wb = humidity_how == "wet_bulb"
    out[use_wb] = wb[use_wb]
    use_rh = humidity_how == "relative_humidity"
    if use_rh.any():
        dew = w.dew_point_c(db[use_rh], rh[use_rh] / 100.0)
        out[use_rh] = w.wet_bulb_c(db[use_rh], dew, year.pressure_pa)
    rest = humidity_how == "typical"
    if rest.any():
        dew = year.dew_point_c[year_hours[rest]]
        out[rest] = w.wet_bulb_c(db[rest], dew, year.pressure_pa)
    return ReplayedWeather(start, db, np.minimum(out, db), db_how, humidity_how.astype(object), year_hours)
