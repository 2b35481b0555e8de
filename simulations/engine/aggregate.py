"""What a run makes of its replicas: summary statistics, percentile bands of the series, a display copy thinned
to a few thousand points, and the threshold rules a result breaks. Plain numbers in, plain numbers out.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

import numpy as np

from simulations.engine.results import ReplicaResult

# Statistics of a summary metric a threshold rule may test (``aggregate`` produces each of them).
THRESHOLD_STATS = ("mean", "p5", "p50", "p95", "ci95_low", "ci95_high")


class ThresholdOp(StrEnum):
    """How a threshold rule compares a result with its value."""

    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    EQ = "=="
    NE = "!="


OPS: dict[ThresholdOp, Callable[[float, float], bool]] = {
    ThresholdOp.LT: operator.lt,
    ThresholdOp.LE: operator.le,
    ThresholdOp.GT: operator.gt,
    ThresholdOp.GE: operator.ge,
    ThresholdOp.EQ: operator.eq,
    ThresholdOp.NE: operator.ne,
}

# Above this many replica x point values per metric the percentile bands are taken on every k-th point
# (the mean stays at full resolution): 1,000 replicas of a 50k-point series would otherwise need GBs.
BAND_VALUES_MAX = 8_000_000


Bounds = tuple[float | None, float | None]


def _stats(values: list[float], bounds: Bounds | None = None) -> dict[str, float]:
    a = np.asarray(values, dtype=float)
    n = a.size
    mean = float(a.mean())
    half = 1.96 * float(a.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    p5, p50, p95 = (float(x) for x in np.percentile(a, [5, 50, 95]))
    low, high = mean - half, mean + half
    if bounds is not None:
        # The normal approximation knows nothing of the metric's range: clipped to it.
        lo, hi = bounds
        if lo is not None:
            low, high = max(low, lo), max(high, lo)
        if hi is not None:
            low, high = min(low, hi), min(high, hi)
    return {
        "mean": mean,
        "p5": p5,
        "p50": p50,
        "p95": p95,
        "ci95_low": low,
        "ci95_high": high,
        "n": float(n),
    }


# By-cause figures are counts of interruptions.
_COUNT: Bounds = (0.0, None)


def aggregate(results: Iterable[ReplicaResult], bounds: Mapping[str, Bounds] | None = None) -> dict[str, Any]:
    """Per metric {mean, p5, p50, p95, ci95_low, ci95_high, n} over the replicas that report it; by-cause
    counts under "by_cause" (a replica without a cause counts 0 for it); "replicas" and "events" totals.

    The 95 % interval is the normal approximation of the mean, mean +/- 1.96 s / sqrt(n), clipped to the
    metric's physical range where ``bounds`` (metric name -> (lowest, highest), None for no bound: the
    kind's ``catalogue.metric_bounds``) gives one, and to >= 0 for the by-cause counts: with few replicas
    the approximation reaches past a bound (an ETTR above 1, a negative count), a value the metric cannot
    take. The mean and the percentiles lie within the replicas' values, so within the range already.
    """
    bounds = bounds or {}
    results = list(results)
    out: dict[str, Any] = {}
    if not results:
        return {"replicas": 0, "events": 0, "by_cause": {}}
    names: dict[str, None] = {}
    for r in results:
        names.update(dict.fromkeys(r.metrics))
    for name in names:
        vals = [r.metrics[name] for r in results if name in r.metrics and math.isfinite(r.metrics[name])]
        if vals:
            out[name] = _stats(vals, bounds.get(name))
    causes: dict[str, None] = {}
    for r in results:
        causes.update(dict.fromkeys(r.by_cause))
    out["by_cause"] = {c: _stats([r.by_cause.get(c, 0.0) for r in results], _COUNT) for c in causes}
    out["replicas"] = len(results)
    out["events"] = sum(r.events for r in results)
    return out


def downsample(
    series: Mapping[str, np.ndarray], max_points: int, extremes_of: str | None = None
) -> dict[str, np.ndarray]:
    """Thin every series to at most ``max_points`` samples along "t_hours": the first and the last point, and
    in each of ``max_points // 2`` even buckets the lowest and the highest point of the column
    ``extremes_of`` (by default the first column that is not "t_hours"), so spikes a chart must show survive.
    Series of at most ``max_points`` come back unchanged."""
    if max_points < 2:
        raise ValueError("max_points must be at least 2")
    t = np.asarray(series["t_hours"])
    n = t.size
    if n <= max_points:
        return {k: np.asarray(v) for k, v in series.items()}
    if extremes_of is None:
        extremes_of = next((k for k in series if k != "t_hours"), "t_hours")
    values = np.asarray(series[extremes_of], dtype=np.float64)
    edges = np.linspace(0, n, max(1, max_points // 2) + 1).astype(int)
    picks = [0, n - 1]
    for lo, hi in zip(edges[:-1], edges[1:], strict=False):
        if hi <= lo:
            continue
        seg = values[lo:hi]
        finite = np.isfinite(seg).any()
        picks.extend(
            (
                lo + int(np.nanargmin(seg)) if finite else lo,
                lo + int(np.nanargmax(seg)) if finite else hi - 1,
            )
        )
    keep = np.unique(np.asarray(picks))[:max_points]
    return {k: np.asarray(v)[keep] for k, v in series.items()}


def bands(replicas: Sequence[Mapping[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
    """Mean and 5th/95th percentile of each series across replicas, on a shared time axis.

    Each replica maps series names to arrays with a "t_hours" axis; a lazy mapping (an npz file) is read one
    metric at a time, so memory stays near one metric's band matrix whatever the number of metrics. Replicas
    usually share one sampling grid; when they do not, every series is resampled on the longest one. Gaps
    (NaN) are left out of the mean and the percentiles.
    """
    files = [(f, np.asarray(f["t_hours"], dtype=np.float64)) for f in replicas if "t_hours" in f]
    files = [(f, t) for f, t in files if len(t)]
    if not files:
        return {}
    grid = max((t for _, t in files), key=len)
    names = sorted({n for f, _ in files for n in f if n != "t_hours"})
    stride = max(1, math.ceil(len(files) * len(grid) / BAND_VALUES_MAX))
    band_grid = grid[::stride]
    out = {}
    for name in names:
        total = np.zeros(len(grid))
        count = np.zeros(len(grid))
        band = []
        for f, t in files:
            if name not in f:
                continue
            v = np.asarray(f[name], dtype=np.float64)
            if len(v) != len(t):
                continue
            if not (len(t) == len(grid) and np.array_equal(t, grid)):
                v = np.interp(grid, t, v)
            finite = np.isfinite(v)
            total += np.where(finite, v, 0.0)
            count += finite
            band.append(v[::stride].astype(np.float32))
        if not band:
            continue
        m = np.vstack(band)
        # np.nanpercentile loops in Python over the columns (seconds for a 50k-point series): use it only
        # when there is a gap to skip.
        percentile = np.nanpercentile if np.isnan(m).any() else np.percentile
        with np.errstate(all="ignore"):
            p5, p95 = percentile(m, [5, 95], axis=0)
            mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
        if stride > 1:
            p5, p95 = np.interp(grid, band_grid, p5), np.interp(grid, band_grid, p95)
        out[name] = {"values": mean, "p5": p5, "p95": p95, "t_hours": grid}
    return out


def evaluate_thresholds(
    rules: list[dict],
    summary: dict,
    campus_values: Mapping[str, float] | Callable[[], Mapping[str, float]] | None = None,
) -> list[dict[str, Any]]:
    """The rules a run's results break, each with the value found. A rule whose metric is missing is
    reported too: a typo must not pass silently. ``campus.<name>`` rules test the campus figures, given as a
    mapping or as a callable read only when such a rule exists."""
    reasons = []
    campus: Mapping[str, float] | None = None
    for rule in rules:
        metric, op, limit = rule["metric"], rule["op"], float(rule["value"])
        stat = rule.get("stat", "mean")
        actual: float | None = None
        if metric.startswith("campus."):
            if campus is None:
                campus = campus_values() if callable(campus_values) else dict(campus_values or {})
            actual = campus.get(metric.removeprefix("campus."))
        else:
            entry = (summary.get("metrics") or {}).get(metric)
            if isinstance(entry, dict):
                actual = entry.get(stat)
            elif isinstance(entry, int | float):
                actual = entry
        where = metric if metric.startswith("campus.") else f"{metric} ({stat})"
        if actual is None:
            reasons.append(
                {**rule, "stat": stat, "actual": None, "message": f"{where} is not in the results"}
            )
        elif OPS[op](float(actual), limit):
            reasons.append(
                {
                    **rule,
                    "stat": stat,
                    "actual": float(actual),
                    "message": f"{where} = {actual:.6g} {op} {limit:g}",
                }
            )
    return reasons
