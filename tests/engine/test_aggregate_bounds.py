"""The 95 % interval of a summary metric stays within the metric's physical range (``Metric.bounds``): the
normal approximation, mean +/- 1.96 s / sqrt(n), reaches past it with few replicas. Figures by hand."""

from __future__ import annotations

import math

import pytest

from simulations.engine import catalogue
from simulations.engine.aggregate import aggregate
from simulations.engine.results import ReplicaResult


def replicas(**columns: list[float]) -> list[ReplicaResult]:
    n = len(next(iter(columns.values())))
    return [ReplicaResult(metrics={k: v[i] for k, v in columns.items()}) for i in range(n)]


def test_an_ettr_interval_stops_at_1_and_a_count_at_0():
    # ettr 1.0 and 0.99: mean 0.995, s = 0.01 / sqrt(2) = 0.0070711, half-width 1.96 x 0.0070711 / sqrt(2)
    # = 0.0098, so 0.9852 .. 1.0048: the top is past 1 and becomes 1.
    # interruptions 0, 0, 1: mean 1/3, s = sqrt(1/3) = 0.57735, half-width 1.96 x 0.57735 / sqrt(3) = 0.65333,
    # so -0.32 .. 0.98667: the bottom is below 0 and becomes 0.
    # lost GPU-hours 0, 0, 70: mean 23.33, s = 40.415, half-width 45.733: -22.4 .. 69.07 -> 0 .. 69.07.
    bounds = catalogue.metric_bounds("failure_cascade")
    ettr = aggregate(replicas(ettr=[1.0, 0.99]), bounds)["ettr"]
    assert ettr["ci95_low"] == pytest.approx(0.995 - 0.0098, abs=1e-6)
    assert ettr["ci95_high"] == 1.0
    out = aggregate(replicas(interruptions=[0.0, 0.0, 1.0], lost_gpu_hours=[0.0, 0.0, 70.0]), bounds)
    assert out["interruptions"]["ci95_low"] == 0.0
    assert out["interruptions"]["ci95_high"] == pytest.approx(1 / 3 + 1.96 * math.sqrt(1 / 3) / math.sqrt(3))
    assert out["lost_gpu_hours"]["ci95_low"] == 0.0
    assert out["lost_gpu_hours"]["ci95_high"] == pytest.approx(
        70 / 3 + 1.96 * 40.41452 / math.sqrt(3), rel=1e-6
    )
    # without bounds the approximation is given as it is (a metric with no physical range)
    free = aggregate(replicas(ettr=[1.0, 0.99]))["ettr"]
    assert free["ci95_high"] == pytest.approx(1.0048, abs=1e-6)


def test_by_cause_counts_never_have_a_negative_interval():
    rs = [ReplicaResult(metrics={}, by_cause={"gpu": c}) for c in (0.0, 0.0, 2.0)]
    assert aggregate(rs)["by_cause"]["gpu"]["ci95_low"] == 0.0


def test_the_bounded_metrics_are_said_where_they_are_defined():
    fc = catalogue.metric_bounds("failure_cascade")
    assert (
        fc["ettr"] == (0.0, 1.0)
        and fc["interruptions"] == (0.0, None)
        and fc["lost_gpu_hours"] == (0.0, None)
    )
    lc = catalogue.metric_bounds("liquid_cooling")
    assert lc["job_throughput_fraction"] == (0.0, 1.0) and lc["lost_gpu_hours"] == (0.0, None)
    assert "max_gpu_temp_c" not in lc  # a temperature has no bound that matters here
    gl = catalogue.metric_bounds("grid_limit")
    assert gl["throughput_lost_fraction"] == (0.0, 1.0) and "grid_energy_mwh" not in gl
    # and the API's catalogue says them
    assert catalogue.describe("failure_cascade")["metrics"]["ettr"]["bounds"] == (0.0, 1.0)
