"""Runner: seeds, aggregation, down-sampling, the per-process preparation cache."""

from __future__ import annotations

import numpy as np
import pytest

from simulations.engine.aggregate import aggregate, downsample
from simulations.engine.results import ReplicaResult
from simulations.engine.runner import PLANS, PlanCache, prepare, replica_seed, run_replica
from tests.engine.builders import campus


def test_replica_seeds_are_reproducible_and_distinct():
    seeds = [replica_seed(42, i) for i in range(200)]
    assert seeds == [replica_seed(42, i) for i in range(200)]
    assert len(set(seeds)) == 200
    assert replica_seed(43, 0) != replica_seed(42, 0)
    assert all(0 <= s < 2**63 for s in seeds)


def test_aggregate_reports_mean_percentiles_and_ci_per_metric_and_cause():
    results = [ReplicaResult(metrics={"x": float(v)}, by_cause={"gpu": float(v % 3)}) for v in range(1, 101)]
    results[0].by_cause.clear()  # a replica without the cause counts 0
    agg = aggregate(results)
    x = agg["x"]
    assert x["mean"] == pytest.approx(50.5)
    assert x["p50"] == pytest.approx(50.5)
    assert x["p5"] == pytest.approx(np.percentile(np.arange(1, 101), 5))
    half = 1.96 * np.std(np.arange(1, 101), ddof=1) / 10
    assert (x["ci95_low"], x["ci95_high"]) == pytest.approx((50.5 - half, 50.5 + half))
    assert x["n"] == 100
    assert agg["by_cause"]["gpu"]["n"] == 100
    assert agg["by_cause"]["gpu"]["mean"] == pytest.approx(sum(v % 3 for v in range(2, 101)) / 100)
    assert agg["replicas"] == 100


def test_aggregate_counts_only_replicas_that_report_a_metric():
    agg = aggregate([ReplicaResult(metrics={"a": 1.0, "t": 3.0}), ReplicaResult(metrics={"a": 3.0})])
    assert agg["t"]["n"] == 1 and agg["a"]["n"] == 2


def test_downsample_keeps_the_ends_and_at_most_max_points():
    t = np.linspace(0, 10, 1001)
    out = downsample({"t_hours": t, "y": t**2}, 50)
    assert out["t_hours"].size <= 50
    assert out["t_hours"][0] == 0 and out["t_hours"][-1] == 10
    assert np.allclose(out["y"], out["t_hours"] ** 2)
    short = downsample({"t_hours": t[:10], "y": t[:10]}, 50)
    assert short["t_hours"].size == 10


def test_downsample_keeps_a_one_point_spike_that_even_spacing_would_drop():
    # 10,001 points thinned to 100: evenly spaced samples fall every ~101 points, so a spike at point 5,050
    # (not a multiple of the spacing) would vanish from the chart.
    t = np.arange(10_001, dtype=float)
    y = np.zeros_like(t)
    y[5_050] = 7.0
    out = downsample({"t_hours": t, "y": y}, 100)
    assert out["t_hours"].size <= 100
    assert out["y"].max() == 7.0 and 5_050.0 in out["t_hours"]


@pytest.mark.parametrize("kind", ["power_capping", "grid_limit", "liquid_cooling", "failure_cascade"])
def test_every_kind_runs_from_empty_params_and_reports_a_time_axis(kind):
    snap = campus()
    r = run_replica(kind, snap, {}, seed=1)
    assert r.metrics and all(np.isfinite(v) for v in r.metrics.values())
    t = r.series["t_hours"]
    assert t.ndim == 1 and t.size >= 2 and np.all(np.diff(t) >= 0)
    assert all(v.shape == t.shape for v in r.series.values())


def test_run_replica_matches_a_prepared_run_for_the_same_seed():
    snap = campus()
    params = {"duration_days": 20}
    a = run_replica("failure_cascade", snap, params, seed=9)
    b = prepare(snap, "failure_cascade", params).run(9)
    assert a.metrics == b.metrics


def test_the_plan_cache_builds_once_and_drops_the_least_recently_used():
    snap = campus()
    cache = PlanCache(size=2)
    built = []

    def build(days):
        built.append(days)
        return prepare(snap, "failure_cascade", {"duration_days": days})

    first = cache.get("a", lambda: build(3))
    assert cache.get("a", lambda: build(3)) is first and built == [3]
    cache.get("b", lambda: build(4))
    cache.get("a", lambda: build(3))  # "a" is now the most recently used
    cache.get("c", lambda: build(5))
    assert "a" in cache and "c" in cache and "b" not in cache
    assert built == [3, 4, 5]


def test_run_replica_shares_the_process_plan_cache():
    snap = campus()
    run_replica("failure_cascade", snap, {"duration_days": 3}, seed=1)
    assert any(isinstance(k, tuple) and k[:3] == ("replica", "failure_cascade", id(snap)) for k in PLANS)
