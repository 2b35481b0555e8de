"""The closed form with bad servers beside failure_cascade's server-pool walk: a two-class renewal (bad
nodes failing m times the base rate until a repair finds them, as AIReSim models them, arXiv 2603.07041)
under Daly's renewal formula (FGCS 22(3), 2006). Checked against the walk (the Monte Carlo mean within its
99 % interval over a grid of bad fractions and multiples), against hand calculations where the two-class
equation has a closed solution, and against its bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from campus.fidelity.campuses import servers
from campus.fidelity.cluster import AIRESIM_TABLE1
from simulations.engine.job import expected_ettr
from simulations.engine.kinds.failure_cascade.expected import bad_in_job, found_probability, pool_expected
from simulations.engine.runner import aggregate, prepare, replica_seed
from tests.engine.test_failure_cascade_expected import _setup


def _pool(nodes: int, **params):
    return prepare(
        servers({"dgx-h100": nodes}), "failure_cascade", {"include_infrastructure": False, **params}
    )


def _interval(runs: list, key: str) -> tuple[float, float]:
    """The 99 % interval of the replicas' mean of ``key`` (Student's t)."""
    x = np.array([r.metrics[key] for r in runs])
    half = stats.t.ppf(0.995, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    return x.mean() - half, x.mean() + half


def _within(runs: list, key: str, expected: float) -> bool:
    low, high = _interval(runs, key)
    return low <= expected <= high


@pytest.mark.parametrize("during", [True, False])
@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.5])
@pytest.mark.parametrize("multiple", [4.0, 16.0])
def test_the_closed_form_with_bad_servers_is_within_the_walk_s_confidence_interval(
    during, fraction, multiple
):
    # 256 nodes of 2,000 h (a job MTBF of 7.8 h with no bad node), 3-min writes at Daly's interval,
    # 20-min restarts, 32 standbys against 2-16 nodes in repair (2 h, then 24 h for half), 60 days: the
    # bad nodes are found within 60-700 h, so the rate falls over the run
    prepared = _pool(
        256 + 32 + 8,
        duration_days=60,
        checkpoint_write_minutes=3.0,
        restart_minutes=20.0,
        failures_during_recovery=during,
        server_pool={
            "warm_standbys": 32,
            "spare_pool_nodes": 8,
            "node_mtbf_hours": 2000.0,
            "manual_repair_hours": 24.0,
            "escalation_probability": 0.5,
            "bad_server_fraction": fraction,
            "bad_server_rate_multiple": multiple,
        },
    )
    runs = [prepared.run(replica_seed(2026, i)) for i in range(40)]
    e = pool_expected(prepared.plan.pool_setup)
    assert _within(runs, "ettr", e["ettr_expected"])
    assert _within(runs, "bad_server_failures", e["bad_server_failures_expected"])
    # the rate at the initial mix, held over the run (the closed form before the bad servers were found),
    # lies below the walk's interval: it was a lower bound
    s = prepared.plan.pool_setup
    lam0 = s.base_rate_per_hour * s.job_nodes * (1 + fraction * (multiple - 1))
    held = expected_ettr(lam0, s.interval_h, s.write_h, s.restart_h, during)
    assert held < _interval(runs, "ettr")[0]


def test_airesim_s_reference_case_closed_form_agrees_with_the_walk_and_the_published_figures():
    prepared = _pool(4360, **AIRESIM_TABLE1)
    runs = [prepared.run(replica_seed(42, i)) for i in range(16)]
    agg = aggregate(runs)
    e = pool_expected(prepared.plan.pool_setup)
    assert _within(runs, "ettr", e["ettr_expected"])
    assert _within(runs, "bad_server_failures", e["bad_server_failures_expected"])
    # the spare pool's nodes join the working pool as the nodes in repair pass 64, 65, ...: as many
    # preemptions as the walk's (17.5 on average), each once, not one per failure
    assert e["preemptions_expected"] == pytest.approx(agg["preemptions"]["mean"], rel=0.3)
    # docs/SIMULATION_REPORT.md of karthikp-ubc/airesim (30 replications): ETR 0.6228
    assert e["ettr_expected"] == pytest.approx(0.6228, abs=0.003)


def test_each_bad_node_fails_one_over_q_times_until_found_by_hand():
    # no pool beside the job (b = B) and instant repairs: dB/dt = -q m l0 B, B = B0 e^(-q m l0 t); each bad
    # node fails 1/q times on average before a repair finds it (a geometric number of tries)
    s = _setup(
        job_nodes=100,
        warm_standbys=0,
        headroom=0,
        spare_pool=0,
        bad_fraction=0.2,
        bad_multiple=10.0,
        auto_h=0.0,
        manual_h=0.0,
        p_escalate=0.5,
        p_auto_miss=0.4,
        p_manual_miss=0.2,
        host_h=0.0,
        during_recovery=True,
        duration_h=2000.0,
    )
    q = 1 - 0.5 * 0.4 - 0.5 * 0.2  # 0.7
    assert found_probability(s) == pytest.approx(q)
    assert bad_in_job(s, 20.0) == pytest.approx(20.0)
    k = q * 10.0 / 2000.0
    e = pool_expected(s)
    assert e["bad_server_failures_expected"] == pytest.approx(20 / q * (1 - math.exp(-k * 2000.0)), rel=1e-6)
    # the ETTR: Daly's at l(t) = l0 (J + (m - 1) B0 e^(-kt)), averaged over the run by brute-force quadrature
    t = np.linspace(0.0, 2000.0, 200_001)
    lam = (100 + 9 * 20 * np.exp(-k * t)) / 2000.0
    daly = np.array([expected_ettr(x, s.interval_h, s.write_h, s.restart_h, True) for x in lam[::100]])
    brute = np.trapezoid(daly, t[::100]) / 2000.0
    assert e["ettr_expected"] == pytest.approx(brute, rel=1e-4)


def test_bad_nodes_outside_the_job_by_hand():
    # J = 100, 20 idle nodes, all 24 bad nodes failing 3x, q = 1 (every fault found): a failed node spends
    # d = 20 / l out of the job and comes back good, so the bad ones outside are none and b = B
    s = _setup(
        job_nodes=100, warm_standbys=10, headroom=10, bad_multiple=3.0, p_auto_miss=0.0, p_manual_miss=0.0
    )
    assert bad_in_job(s, 24.0) == pytest.approx(24.0)
    # q = 0 (never found): B = b (1 + m l0 d), l0 d = 20 / (g + 3 b); b = 20 solves it for B = 20 (1 + 60 / 140)
    s = _setup(
        job_nodes=100, warm_standbys=10, headroom=10, bad_multiple=3.0, p_auto_miss=1.0, p_manual_miss=1.0
    )
    assert bad_in_job(s, 20.0 * (1 + 60.0 / 140.0)) == pytest.approx(20.0, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    fraction=st.floats(0.0, 0.9),
    multiple=st.floats(1.0, 50.0),
    miss=st.floats(0.0, 1.0),
    during=st.booleans(),
)
def test_the_closed_form_lies_between_no_bad_server_and_bad_servers_never_found(
    fraction, multiple, miss, during
):
    over = {"bad_multiple": multiple, "during_recovery": during, "p_auto_miss": miss, "p_manual_miss": miss}
    e = pool_expected(_setup(bad_fraction=fraction, **over))["ettr_expected"]
    clean = pool_expected(_setup(bad_fraction=0.0, **over))["ettr_expected"]
    never = pool_expected(_setup(bad_fraction=fraction, **{**over, "p_auto_miss": 1.0, "p_manual_miss": 1.0}))
    assert never["ettr_expected"] - 1e-9 <= e <= clean + 1e-9
    # more bad servers never help
    more = pool_expected(_setup(bad_fraction=min(fraction + 0.1, 1.0), **over))["ettr_expected"]
    assert more <= e + 1e-9
