"""failure_cascade's two walks agree to the last bit, its failure counts and lost GPU-hours match hand
calculations from the published rates, and the job's books keep their invariants.

``failure_cascade.run`` books each stretch of job failures between two capacity events in one vectorised
step; ``failure_cascade.run_per_event`` steps SimPy on every failure and every repair. Both read the same
draws, so they must give the same replica.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.impact import impact, racks_lost
from simulations.engine.job import JobTimeline
from simulations.engine.kinds.failure_cascade import model as failure_cascade
from simulations.engine.runner import prepare, replica_seed
from tests.engine.builders import campus, catalog_rates, single_rate
from tests.engine.test_failure_cascade import _pdu_only_snapshot

GPUS = 256  # the builders' default campus: 8 racks x 4 HGX H100 servers x 8 GPUs
NODES = 32


def _same(a, b) -> bool:
    return (
        a.metrics == b.metrics
        and a.by_cause == b.by_cause
        and a.events == b.events
        and a.series.keys() == b.series.keys()
        and all(np.array_equal(a.series[k], b.series[k]) for k in a.series)
    )


# Each case exercises another path of the walk: darkened racks that make the job wait (a fragile B side),
# the job on half the campus (free nodes absorb an outage), hot spares that run dry and refill.
_PDU = {"rate_set": "test-set", "duration_days": 40, "rate_overrides": {"gpu": 256 * 3.0}}
CASES = {
    "checkpoint, fragile PDUs": (dict(feed_rating_kw=30.0), {**_PDU, "recovery": "checkpoint_restart"}),
    "in memory, fragile PDUs": (dict(feed_rating_kw=30.0), {**_PDU, "recovery": "in_memory"}),
    "hot spares, fragile PDUs": (dict(feed_rating_kw=30.0), {**_PDU, "recovery": "hot_spares"}),
    "one hot spare": (dict(feed_rating_kw=30.0), {**_PDU, "recovery": "hot_spares", "hot_spares": 1}),
    "half-campus job": (dict(feed_rating_kw=30.0), {**_PDU, "job_gpus": GPUS // 2}),
    "redundant PDUs": ({}, {**_PDU, "recovery": "hot_spares"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_batched_walk_gives_the_replica_of_the_per_event_walk(case):
    snap_kwargs, params = CASES[case]
    plan = prepare(_pdu_only_snapshot(**snap_kwargs), "failure_cascade", params).plan
    for i in range(4):
        seed = replica_seed(17, i)
        assert _same(failure_cascade.run(plan, seed), failure_cascade.run_per_event(plan, seed))


def test_the_batched_walk_agrees_when_the_job_waits_for_node_repairs():
    # 2 h job MTBF, 100 h repairs, one spare: the pool runs dry and node repairs end the waits
    snap = campus(failure_rates=(single_rate("gpu", 256 * 2.0, repair_hours=100.0),))
    params = {"rate_set": "test-set", "include_infrastructure": False, "duration_days": 30}
    plan = prepare(snap, "failure_cascade", {**params, "recovery": "hot_spares", "hot_spares": 1}).plan
    for i in range(4):
        a = failure_cascade.run(plan, replica_seed(5, i))
        assert a.metrics["waiting_for_capacity_hours"] > 100
        assert _same(a, failure_cascade.run_per_event(plan, replica_seed(5, i)))


def test_events_count_every_failure_and_every_repair_within_the_run():
    snap = campus(failure_rates=(single_rate("gpu", 256 * 5.0, repair_hours=10.0),))
    params = {"rate_set": "test-set", "include_infrastructure": False, "duration_days": 50}
    plan = prepare(snap, "failure_cascade", {**params, "recovery": "hot_spares"}).plan
    r = failure_cascade.run(plan, 3)
    d = failure_cascade.draw(plan, 3)
    repairs_in_run = int(np.sum(d.job_t + 10.0 < 50 * 24.0))
    assert r.events == d.job_t.size + repairs_in_run
    # every failure struck the job: those that found it training are its interruptions, the others
    # struck while it restarted or waited
    assert r.metrics["interruptions"] + r.metrics["failures_during_recovery"] == d.job_t.size
    assert r.metrics["failures_during_recovery"] > 0


def test_failure_counts_per_class_match_the_llama3_rates_n_lambda_t():
    """Hand calculation from the Llama 3 paper (Dubey et al. 2024, Table 5): 419 interruptions in 54 days
    on 16,384 H100 GPUs in 2,048 servers. Each cause is a Poisson process, so the mean count in a replica is
    units x events / (units in the paper x 1,296 h) x hours simulated, and the count's variance equals it."""
    days, n = 365.0, 120
    plan = prepare(
        campus(failure_rates=catalog_rates("llama3-2024")),
        "failure_cascade",
        {"rate_set": "llama3-2024", "include_infrastructure": False, "duration_days": days},
    )
    results = [plan.run(replica_seed(2024, i)) for i in range(n)]
    hours = days * 24.0
    paper = {  # cause: (events in Table 5, per GPU or per server)
        "gpu": (148, "gpu"),
        "hbm": (72, "gpu"),
        "software": (54, "node"),
        "network": (35, "node"),
        "host_maintenance": (32, "node"),
        "gpu_sram": (19, "gpu"),
        "gpu_gsp": (17, "gpu"),
    }
    for cause, (events, per) in paper.items():
        units, paper_units = (GPUS, 16_384) if per == "gpu" else (NODES, 2_048)
        expected = units * events / (paper_units * 54 * 24.0) * hours
        counts = np.array([r.by_cause.get(cause, 0.0) for r in results])
        assert abs(counts.mean() - expected) < 4.0 * math.sqrt(expected / n), cause
    total = np.array([r.metrics["interruptions"] for r in results])
    expected_total = (GPUS * 268 / 16_384 + NODES * 151 / 2_048) / 1296.0 * hours  # 268 GPU, 151 server
    assert abs(total.mean() - expected_total) < 4.0 * math.sqrt(expected_total / n)


def test_mean_lost_gpu_hours_match_the_renewal_expectation():
    """Daly (FGCS 2006), eq. 12, with free checkpoints (delta = 0): a segment of tau = 1 h commits only if
    no failure strikes it, and every failure costs R = 0.2 h of restart, so the expected wall time per
    committed hour is exp(lambda R) (exp(lambda tau) - 1) / lambda. Job MTBF 5 h (lambda = 0.2 / h)."""
    lam, tau, restart = 0.2, 1.0, 0.2
    ettr = tau / (math.exp(lam * restart) * (math.exp(lam * tau) - 1.0) / lam)
    assert ettr == pytest.approx(0.8679, abs=1e-4)
    days, n = 100.0, 30
    hours = days * 24.0
    plan = prepare(
        campus(failure_rates=(single_rate("gpu", GPUS / lam),)),
        "failure_cascade",
        {
            "rate_set": "test-set",
            "include_infrastructure": False,
            "duration_days": days,
            "checkpoint_interval_minutes": tau * 60,
            "checkpoint_write_minutes": 0,
            "restart_minutes": restart * 60,
        },
    )
    lost = np.array([plan.run(replica_seed(8, i)).metrics["lost_gpu_hours"] for i in range(n)])
    expected = GPUS * hours * (1.0 - ettr)
    half = 1.96 * lost.std(ddof=1) / math.sqrt(n)
    # the 95 % interval, doubled, plus the end effect of one unfinished segment (tau x GPUs)
    assert abs(lost.mean() - expected) < 2 * half + GPUS * tau


def test_the_reach_of_each_facility_unit_is_the_impact_analysis_answer():
    # racks_lost is impact()'s racks_lost_both | racks_lost_cooling without the rest of the answer
    for snap in (_pdu_only_snapshot(feed_rating_kw=30.0), _pdu_only_snapshot(), campus(cdu_groups=True)):
        elements = (
            [("power", d.id) for d in snap.power_devices]
            + [("utility", u.id) for u in snap.utility_feeds]
            + [("cooling", u.id) for u in snap.cooling_units]
            + [("plant", p.id) for p in snap.cooling_plants]
        )
        reached = 0
        for kind, ident in elements:
            full = impact(snap, ident, kind)
            lean = racks_lost(snap, ident, kind)
            assert lean == set(full.racks_lost_both) | set(full.racks_lost_cooling), (kind, ident)
            reached += bool(lean)
        assert reached > 0


# ---------------------------------------------------------------- the job's books, pure


def _timeline(in_memory: bool) -> JobTimeline:
    return JobTimeline(0.9, 0.1, 0.2, n_causes=3, step_h=0.05, in_memory=in_memory)


_failures = st.lists(st.floats(0.0, 200.0, allow_nan=False), min_size=1, max_size=60).map(sorted)


@settings(max_examples=25, deadline=None)
@given(_failures, st.booleans(), st.integers(0, 2**31))
def test_a_run_of_failures_books_like_one_failure_at_a_time(times, in_memory, seed):
    causes = np.random.default_rng(seed).integers(0, 3, len(times))
    one, run = _timeline(in_memory), _timeline(in_memory)
    for t, c in zip(times, causes, strict=True):
        one.fail(t, int(c), True)
    run.fail_run(np.asarray(times), causes)
    one.finish(250.0)
    run.finish(250.0)
    for name in ("useful_h", "lost_work_h", "overhead_h", "down_h", "interruptions", "by_cause_count"):
        assert getattr(run, name) == getattr(one, name), name
    assert all(np.array_equal(a, b) for a, b in zip(run.trace(), one.trace(), strict=True))


@settings(max_examples=25, deadline=None)
@given(_failures, st.floats(0.0, 200.0, allow_nan=False), st.booleans())
def test_one_more_failure_never_adds_useful_work_and_the_hours_add_up(times, extra, in_memory):
    def books(ts):
        tl = _timeline(in_memory)
        tl.fail_run(np.asarray(sorted(ts)), np.zeros(len(ts), dtype=np.int64))
        tl.finish(250.0)
        return tl

    base, more = books(times), books([*times, extra])
    assert more.useful_h <= base.useful_h + 1e-9
    for tl in (base, more):
        assert tl.lost_work_h >= 0 and tl.down_h >= 0 and tl.overhead_h >= 0
        # conservation: every hour is useful, checkpoint overhead, lost work or down
        assert tl.useful_h + tl.overhead_h + tl.lost_work_h + tl.down_h == pytest.approx(250.0)


@settings(max_examples=10, deadline=None)
@given(st.floats(0.5, 20.0), st.integers(0, 2**31))
def test_replica_books_conserve_gpu_hours_and_losses_are_never_negative(job_mtbf_h, seed):
    snap = _pdu_only_snapshot(feed_rating_kw=30.0)
    params = {"rate_set": "test-set", "duration_days": 20, "rate_overrides": {"gpu": 256 * job_mtbf_h}}
    m = prepare(snap, "failure_cascade", params).run(seed).metrics
    assert m["lost_gpu_hours"] >= 0 and m["waiting_for_capacity_hours"] >= 0
    total_gpu_h = m["job_gpus"] * 20 * 24.0
    overhead_gpu_h = m["checkpoint_overhead_hours"] * m["job_gpus"]
    assert m["useful_gpu_hours"] + overhead_gpu_h + m["lost_gpu_hours"] == pytest.approx(total_gpu_h)
