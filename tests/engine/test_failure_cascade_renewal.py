"""failure_cascade's renewal walk: Weibull failure times and a run to the end of the work in the
failure-class model with facility failures, against brute-force sampling, Daly's closed form (Daly 2006)
and hand calculations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from campus.analysis.reliability import daly_interval_hours, ettr_checkpoint
from simulations.engine.runner import aggregate, prepare, replica_seed
from tests.engine.builders import campus, cascade_mean, cascade_prep, catalog_rates, single_rate

GPUS = 256  # 8 racks x 4 nodes x 8 GPUs: 32 nodes in the default test campus
NODES = 32


def test_weibull_times_in_the_class_walk_match_brute_force_sampling_of_the_first_of_n_nodes():
    k, node_mtbf = 2.0, 400.0
    snap = campus(failure_rates=(single_rate("gpu", node_mtbf * 8),))  # 8 GPUs a node
    prepared = cascade_prep(
        snap,
        duration_days=3650,
        work_days=500,
        checkpoint_write_minutes=0.0,
        restart_minutes=1.0,
        step_seconds=1.0,
        failure_distribution="weibull",
        weibull_shape=k,
        failures_during_recovery=False,
    )
    got = cascade_mean(prepared, "interruptions", 3)
    rng = np.random.default_rng(0)
    scale = node_mtbf / math.gamma(1 + 1 / k)
    first = (scale * rng.weibull(k, size=(20_000, NODES))).min(axis=1).mean()
    # failures only while training, the nodes' ages starting afresh at each restart: the work meets one
    # failure per mean first-of-32 time (wear-out makes it ~3.3x the exponential one's 12.5 h)
    assert first > 3 * node_mtbf / NODES
    assert got == pytest.approx(500 * 24 / first, rel=0.04)


@pytest.mark.parametrize("during", [True, False])
def test_time_to_train_with_failures_is_the_work_over_daly_s_ettr(during):
    # job MTBF 2 h, restart 30 min, write 3 min at Daly's interval: 200 days of work
    mtbf_job = 2.0
    snap = campus(failure_rates=(single_rate("gpu", GPUS * mtbf_job),))
    d, r = 3.0 / 60.0, 0.5
    prepared = cascade_prep(
        snap,
        duration_days=3650,
        work_days=200,
        restart_minutes=30.0,
        checkpoint_write_minutes=3.0,
        failures_during_recovery=during,
    )
    tau = daly_interval_hours(d, mtbf_job)
    want = ettr_checkpoint(tau, d, r, mtbf_job, failures_during_recovery=during)
    agg = aggregate([prepared.run(replica_seed(5, i)) for i in range(4)])
    assert agg["ettr"]["mean"] == pytest.approx(want, rel=0.015)
    assert agg["time_to_train_days"]["mean"] == pytest.approx(200 / want, rel=0.015)
    assert agg["work_done_fraction"]["mean"] == 1.0
    assert (agg["failures_during_recovery"]["mean"] > 0) is during


def test_weibull_of_shape_one_is_the_exponential_walk():
    snap = campus(failure_rates=(single_rate("gpu", GPUS * 3.0),))
    base = {"duration_days": 60, "restart_minutes": 20.0, "checkpoint_write_minutes": 2.0}
    expo = cascade_mean(cascade_prep(snap, **base), "ettr", 8)
    weib = cascade_mean(
        cascade_prep(snap, **base, failure_distribution="weibull", weibull_shape=1.0), "ettr", 8, seed=3
    )
    assert weib == pytest.approx(expo, abs=0.01)


def test_a_run_to_the_end_of_the_work_without_failures_takes_the_work_and_its_checkpoints():
    snap = campus(failure_rates=(single_rate("gpu", 1e12),))
    prepared = cascade_prep(snap, duration_days=400, work_days=100, checkpoint_interval_minutes=60.0)
    m = prepared.run(1).metrics
    # 2,400 h of work in 60-min intervals: 2,399 checkpoint writes of 5 min between them
    assert m["time_to_train_days"] == pytest.approx((2400 + 2399 * 5 / 60) / 24, rel=1e-9)
    assert m["run_days"] == m["time_to_train_days"]
    assert m["work_done_fraction"] == 1.0


def test_work_left_undone_at_the_end_of_the_run_says_how_much_was_done():
    snap = campus(failure_rates=(single_rate("gpu", 1e12),))
    m = cascade_prep(snap, duration_days=10, work_days=100, checkpoint_write_minutes=0.0).run(1).metrics
    assert "time_to_train_days" not in m
    assert m["work_done_fraction"] == pytest.approx(0.1)
    assert m["run_days"] == 10


def _facility_prep(**params):
    rates = (single_rate("gpu", 1e12), *catalog_rates("infrastructure-estimates"))
    return cascade_prep(
        campus(failure_rates=rates),
        include_infrastructure=True,
        rate_overrides={"ups": 10.0, "pdu": 10.0},
        repair_hours_overrides={"ups": 48.0, "pdu": 48.0},
        **params,
    )


@pytest.mark.parametrize(
    "extra", [{"work_days": 30}, {"failure_distribution": "weibull", "weibull_shape": 1.5}]
)
def test_ups_and_pdu_of_10_h_mtbf_with_48_h_repairs_darken_racks_of_a_2n_campus(extra):
    from campus.analysis.synthetic import synthetic_campus

    prepared = prepare(
        synthetic_campus(4096),
        "failure_cascade",
        {
            "duration_days": 60,
            "rate_overrides": {"ups": 10.0, "pdu": 10.0},
            "repair_hours_overrides": {"ups": 48.0, "pdu": 48.0},
            **extra,
        },
    )
    plan = prepared.plan
    for c, cls in enumerate(plan.classes):
        if cls.component in ("ups", "pdu"):
            # each alone: the other side of the 2N chain carries its racks
            assert all(plan.impact(c, u)[0] == () for u in range(len(cls.units)))
    r = prepared.run(2)
    # both sides down at once (a 48 h repair against a 10 h MTBF: most of the time) darken racks
    assert r.metrics["facility_outages"] > 0
    assert r.by_cause.get("pdu", 0) + r.by_cause.get("ups", 0) > 0


def test_facility_failures_interrupt_only_a_training_job_unless_they_strike_during_recovery():
    # long restarts: many facility outages find the job restarting or waiting for its racks
    during = _facility_prep(duration_days=120, work_days=100, restart_minutes=240.0)
    quiet = _facility_prep(
        duration_days=120, work_days=100, restart_minutes=240.0, failures_during_recovery=False
    )
    a = aggregate([during.run(replica_seed(1, i)) for i in range(3)])
    b = aggregate([quiet.run(replica_seed(1, i)) for i in range(3)])
    assert a["failures_during_recovery"]["mean"] > 0
    assert b["failures_during_recovery"]["mean"] == 0
    # the same facility draws (the seed's first stream) in both: as many outages...
    assert a["facility_outages"]["mean"] == b["facility_outages"]["mean"]
    # ...and every interruption of the quiet mode struck a training job: never more than the outages
    assert b["interruptions"]["mean"] <= b["facility_outages"]["mean"]


def test_the_renewal_walk_books_every_wall_hour_once():
    prepared = _facility_prep(
        duration_days=60, failure_distribution="weibull", weibull_shape=0.7, recovery="hot_spares"
    )
    m = prepared.run(9).metrics
    total = m["run_days"] * 24
    assert m["ettr"] * total + m["lost_work_hours"] + m["downtime_hours"] + m[
        "checkpoint_overhead_hours"
    ] == pytest.approx(total)
