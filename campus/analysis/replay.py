"""Measured series made regular for a replay (docs/live.md, "Replay"): a power series of 5-minute means with
its missing buckets filled, and measured outdoor weather laid over a weather year hour by hour.

Pure: plain (time, value) pairs in, arrays out. The database reads are ``campus.measurements_store``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np


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


def hour_of_year(t: datetime) -> int:
    """Hour index 0..8759 of ``t`` (UTC) in a 365-day year (``weather`` convention: hour i is the hour ending
    at clock hour i % 24 + 1 of day i // 24 + 1; 29 February is read as 28 February, 31 December as day 365)."""
    day = min(t.timetuple().tm_yday, 365) - 1
    if t.month > 2 and _leap(t.year):
        day -= 1
    return day * 24 + t.hour


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


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
