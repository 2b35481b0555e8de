"""How a run's replicas are cut into chunks (pure: no database)."""

from __future__ import annotations

import math

import pytest

from simulations.engine.kinds.failure_cascade import model as failure_cascade
from simulations.runs import config
from simulations.runs.launch import chunk_size_for


@pytest.mark.parametrize("replicas", [1, 4, 10, 70, 100, 250, 999, 1000])
def test_chunks_cover_the_run_and_a_cheap_kind_shares_each_chunks_cost_among_more_replicas(replicas):
    plain = chunk_size_for(replicas, "liquid_cooling")  # no MIN_CHUNK_REPLICAS: the general rule
    assert plain == max(1, min(config.MAX_CHUNK_REPLICAS, math.ceil(replicas / config.TARGET_CHUNKS)))
    cheap = chunk_size_for(replicas, "failure_cascade")
    assert plain <= cheap <= max(config.MAX_CHUNK_REPLICAS, failure_cascade.MIN_CHUNK_REPLICAS)
    # never fewer chunks than MIN_CHUNKS (or one per replica), so a run still spreads over the workers
    assert math.ceil(replicas / cheap) >= min(replicas, config.MIN_CHUNKS)


def test_a_thousand_replica_years_of_failures_go_out_in_ten_chunks():
    assert math.ceil(1000 / chunk_size_for(1000, "failure_cascade")) == 10
    assert math.ceil(1000 / chunk_size_for(1000, "liquid_cooling")) == 40
