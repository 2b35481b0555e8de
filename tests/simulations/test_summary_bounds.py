"""A run's summary clips each metric's 95 % interval to the metric's physical range (docs/runs.md)."""

import pytest

from simulations import runs
from simulations.models import ReplicaResult
from simulations.runs.results import finalize

pytestmark = pytest.mark.django_db


def test_a_finished_runs_intervals_stay_within_the_metrics_range(scenario):
    # Two replicas stored by hand: ettr 1.0 and 0.99 (interval 0.9852 .. 1.0048 by the normal approximation,
    # the top past 1), interruptions 0 and 1 (mean 0.5, s = 0.7071, half-width 1.96 x 0.7071 / sqrt(2) = 0.98:
    # -0.48 .. 1.48, the bottom below 0).
    run = runs.launch_run(scenario, replicas=2, seed=1)
    for index, (ettr, n) in enumerate(((1.0, 0.0), (0.99, 1.0))):
        ReplicaResult.objects.create(
            run=run, index=index, seed=index, metrics={"ettr": ettr, "interruptions": n}, by_cause={}
        )
    finalize(run)
    run.refresh_from_db()
    metrics = run.summary["metrics"]
    assert metrics["ettr"]["ci95_high"] == 1.0
    assert metrics["ettr"]["ci95_low"] == pytest.approx(0.9852, abs=1e-4)
    assert metrics["interruptions"]["ci95_low"] == 0.0
    assert metrics["interruptions"]["ci95_high"] == pytest.approx(0.5 + 0.98, abs=1e-3)
