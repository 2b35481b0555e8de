"""Run replicas of any scenario kind and aggregate them.

``prepare`` does the per-snapshot work once (job placement, failure classes, the facility impact cache) so
that a worker running a chunk of replicas pays it once. Replica seeds come from a numpy SeedSequence, so a
run's replicas are independent streams and the same (run seed, index) always gives the same result.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel

from campus.analysis.snapshot import CampusSnapshot
from simulations.engine import failure_cascade, grid_limit, liquid_cooling, power_capping
from simulations.engine.params import KINDS, validate_params
from simulations.engine.results import Progress, ReplicaResult

__all__ = [
    "KINDS",
    "Prepared",
    "ReplicaResult",
    "aggregate",
    "downsample",
    "prepare",
    "replica_seed",
    "run_replica",
]

_MODULES = {
    "power_capping": power_capping,
    "grid_limit": grid_limit,
    "liquid_cooling": liquid_cooling,
    "failure_cascade": failure_cascade,
}


def replica_seed(run_seed: int, index: int) -> int:
    """The seed of replica ``index`` of a run: an independent numpy SeedSequence child, as a 63-bit int."""
    ss = np.random.SeedSequence(entropy=int(run_seed), spawn_key=(int(index),))
    hi, lo = (int(x) for x in ss.generate_state(2, dtype=np.uint32))
    # masked to 63 bits: fits a signed 64-bit database column
    return ((hi << 31) + lo) & ((1 << 63) - 1)


@dataclass
class Prepared:
    """A kind's per-snapshot precomputation, reusable for every replica of a chunk."""

    kind: str
    plan: Any

    def run(self, seed: int, progress: Progress | None = None) -> ReplicaResult:
        return _MODULES[self.kind].run(self.plan, int(seed), progress)


def _validated(kind: str, params: Mapping[str, Any] | BaseModel | None) -> BaseModel:
    if isinstance(params, BaseModel):
        return params
    return validate_params(kind, dict(params) if params is not None else {})


def prepare(snap: CampusSnapshot, kind: str, params: Mapping[str, Any] | BaseModel | None = None) -> Prepared:
    """Validate ``params`` (raises ParamsError) and precompute what the replicas share."""
    p = _validated(kind, params)
    return Prepared(kind, _MODULES[kind].prepare(snap, p))


# One cached preparation per process: a worker runs many replicas of one scenario in a row.
_LAST: dict[str, Any] = {}


def run_replica(
    kind: str,
    snap: CampusSnapshot,
    params: Mapping[str, Any] | BaseModel | None,
    seed: int,
    progress: Progress | None = None,
) -> ReplicaResult:
    """One replica of ``kind`` on ``snap``; the same seed always gives the same result."""
    p = _validated(kind, params)
    key = (kind, id(snap), p.model_dump_json())
    if _LAST.get("key") != key or _LAST.get("snap") is not snap:
        _LAST.clear()
        _LAST.update(key=key, snap=snap, prepared=prepare(snap, kind, p))
    return _LAST["prepared"].run(seed, progress)


# ---------------------------------------------------------------- aggregation


def _stats(values: list[float]) -> dict[str, float]:
    a = np.asarray(values, dtype=float)
    n = a.size
    mean = float(a.mean())
    half = 1.96 * float(a.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    p5, p50, p95 = (float(x) for x in np.percentile(a, [5, 50, 95]))
    return {
        "mean": mean,
        "p5": p5,
        "p50": p50,
        "p95": p95,
        "ci95_low": mean - half,
        "ci95_high": mean + half,
        "n": float(n),
    }


def aggregate(results: Iterable[ReplicaResult]) -> dict[str, Any]:
    """Per metric {mean, p5, p50, p95, ci95_low, ci95_high, n} over the replicas that report it; by-cause
    counts under "by_cause" (a replica without a cause counts 0 for it); "replicas" and "events" totals.

    The 95 % interval is the normal approximation of the mean, mean +/- 1.96 s / sqrt(n).
    """
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
            out[name] = _stats(vals)
    causes: dict[str, None] = {}
    for r in results:
        causes.update(dict.fromkeys(r.by_cause))
    out["by_cause"] = {c: _stats([r.by_cause.get(c, 0.0) for r in results]) for c in causes}
    out["replicas"] = len(results)
    out["events"] = sum(r.events for r in results)
    return out


def downsample(series: Mapping[str, np.ndarray], max_points: int) -> dict[str, np.ndarray]:
    """Thin every series to at most ``max_points`` evenly spaced samples along "t_hours", keeping the
    first and the last point. Series shorter than that come back unchanged."""
    t = np.asarray(series["t_hours"])
    n = t.size
    if max_points < 2:
        raise ValueError("max_points must be at least 2")
    if n <= max_points:
        return {k: np.asarray(v) for k, v in series.items()}
    idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))
    return {k: np.asarray(v)[idx] for k, v in series.items()}
