"""The closed form beside failure_cascade's server-pool walk: Daly's renewal formula (Daly 2006, "A higher
order estimate of the optimum checkpoint interval for restart dumps", FGCS 22(3)) with the cost of spares
running short, against Daly's closed form as ``campus.analysis.reliability`` writes it, the simulated
ETTR, and the reference case of AIReSim (arXiv 2603.07041, Table 1)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.reliability import daly_interval_hours, ettr_checkpoint
from campus.fidelity.cluster import AIRESIM_TABLE1
from simulations.engine.kinds.failure_cascade import explain
from simulations.engine.kinds.failure_cascade.expected import DRY_FLAG, pool_expected
from simulations.engine.kinds.failure_cascade.servers import PoolSetup
from simulations.engine.params import validate_params
from simulations.engine.runner import aggregate, prepare, replica_seed
from simulations.engine.words import Summary
from tests.engine.builders import campus, pool_setup, server_pool, single_rate


def _summary(agg: dict) -> Summary:
    return Summary(
        {"metrics": {k: v for k, v in agg.items() if isinstance(v, dict) and "mean" in v}, "replicas": 1}
    )


@pytest.mark.parametrize("during", [True, False])
def test_with_spares_ample_the_closed_form_is_daly_s_and_the_walk_agrees(during):
    # 1,024 nodes of 2,048 h: a job MTBF of 2 h; 3-min writes at Daly's interval, 30-min restarts; 64
    # standbys against ~10 nodes in repair (2 h automatic, 80 % then 24 h manual)
    mtbf, d, r = 2.0, 3.0 / 60.0, 0.5
    prepared = server_pool(
        1024 + 64,
        duration_days=120,
        checkpoint_write_minutes=3.0,
        restart_minutes=30.0,
        failures_during_recovery=during,
        server_pool={"warm_standbys": 64, "node_mtbf_hours": 1024 * mtbf, "manual_repair_hours": 24.0},
    )
    tau = daly_interval_hours(d, mtbf)
    assert prepared.plan.pool_setup.interval_h == pytest.approx(tau, rel=1e-12)
    agg = aggregate([prepared.run(replica_seed(8, i)) for i in range(6)])
    assert agg["spares_run_dry_probability"]["mean"] < 1e-12
    daly = ettr_checkpoint(tau, d, r, mtbf, failures_during_recovery=during)
    assert agg["ettr_expected"]["mean"] == pytest.approx(daly, rel=1e-9)
    sim = agg["ettr"]
    # within the Monte Carlo error of six 120-day replicas (plus 0.3 points for the run's ends)
    assert abs(sim["mean"] - daly) <= (sim["ci95_high"] - sim["mean"]) + 0.003
    assert agg["waiting_for_capacity_hours"]["mean"] == 0
    lines = explain(_summary(agg), validate_params("failure_cascade", {"server_pool": {}}))
    assert any(line.startswith("Closed form with spares") for line in lines)


def test_the_closed_form_flags_spares_that_run_dry_and_the_walk_stalls():
    # 64 nodes of 200 h (a failure every ~3 h), repairs of ~26 h on average: ~8 nodes in repair against
    # 2 standbys and a spare pool of 2
    prepared = server_pool(
        64 + 4,
        duration_days=60,
        restart_minutes=10.0,
        server_pool={
            "warm_standbys": 2,
            "spare_pool_nodes": 2,
            "node_mtbf_hours": 200.0,
            "manual_repair_hours": 30.0,
        },
    )
    agg = aggregate([prepared.run(replica_seed(4, i)) for i in range(3)])
    assert agg["spares_run_dry_probability"]["mean"] > 0.5
    assert agg["waiting_for_capacity_hours"]["mean"] > 24
    lines = explain(_summary(agg), validate_params("failure_cascade", {"server_pool": {}}))
    assert any(line.startswith("The spares run dry") for line in lines)


def test_airesim_s_working_pool_of_64_spares_runs_short_and_its_spare_pool_never_dry():
    plan = server_pool(4360, **AIRESIM_TABLE1).plan
    s = plan.pool_setup
    assert s.warm_standbys + s.headroom == 64 and s.spare_pool == 200
    e = pool_expected(s)
    # some 614 bad nodes in the job at first (15 % of 4,096), failing 6x: (4,096 + 5 x 614) / 2,400 h = 2.99
    # failures per training hour, 1 / (1 + 2.99 / 3) of the wall hours training (20-min recoveries): 1.50
    # per wall hour; x 40.4 h repairs (2 h + 0.8 x 48 h): some 60 nodes in repair, often more than the
    # working pool's 64 spares, never more than the 264 spares
    assert e["nodes_in_repair_expected"] == pytest.approx(60.5, rel=0.01)
    assert e["working_pool_short_probability"] > DRY_FLAG
    assert e["spares_run_dry_probability"] < 1e-6
    # AIReSim's published ETR (docs/SIMULATION_REPORT.md, 30 replications): 0.6228
    assert e["ettr_expected"] == pytest.approx(0.6228, abs=0.003)


def _setup(**over) -> PoolSetup:
    return pool_setup(
        **{"job_nodes": 256, "base_rate_per_hour": 1 / 2000, "work_h": None, "duration_h": 24 * 30.0, **over}
    )


@settings(max_examples=60, deadline=None)
@given(
    mtbf=st.floats(100.0, 1e5),
    factor=st.floats(1.01, 5.0),
    warm=st.integers(0, 40),
    pool=st.integers(0, 40),
    extra=st.integers(1, 40),
    during=st.booleans(),
)
def test_the_closed_form_never_falls_with_more_spares_nor_rises_with_more_failures(
    mtbf, factor, warm, pool, extra, during
):
    def ettr(**over) -> float:
        args = {
            "base_rate_per_hour": 1 / mtbf,
            "warm_standbys": warm,
            "spare_pool": pool,
            "during_recovery": during,
            **over,
        }
        e = pool_expected(_setup(**args))
        assert 0.0 <= e["spares_run_dry_probability"] <= e["working_pool_short_probability"] <= 1.0
        return e["ettr_expected"]

    base = ettr()
    assert 0.0 <= base <= 1.0
    assert ettr(spare_pool=pool + extra) >= base - 1e-9
    assert ettr(warm_standbys=warm + extra) >= base - 1e-9
    assert ettr(base_rate_per_hour=factor / mtbf) <= base + 1e-9


def test_the_class_walk_s_closed_form_flags_hot_spares_that_run_dry_too():
    # a 64-GPU job (8 nodes) on a 256-GPU campus whose GPUs have a 512 h MTBF: 0.125 failures an hour,
    # each node out for a 100 h repair: 12.5 nodes in repair on average, against 0 or 24 spares
    snap = campus(failure_rates=(single_rate("gpu", 256 * 2.0, repair_hours=100.0),))

    def run(spares: int):
        params = {
            "rate_set": "test-set",
            "include_infrastructure": False,
            "recovery": "hot_spares",
            "hot_spares": spares,
            "job_gpus": 64,
            "duration_days": 60,
        }
        return prepare(snap, "failure_cascade", params).run(3)

    dry, ample = run(0), run(24)
    # Poisson(12.5): P(N > 0) = 1 - e^-12.5; P(N > 24) ~ 0.003 (any Poisson table)
    assert dry.metrics["spares_run_dry_probability"] == pytest.approx(1 - math.exp(-12.5), rel=1e-9)
    assert ample.metrics["spares_run_dry_probability"] < DRY_FLAG
    p = validate_params("failure_cascade", {"recovery": "hot_spares"})
    words = explain(_summary(aggregate([dry])), p)
    assert any(line.startswith("The spares run dry") for line in words)
    assert not any(line.startswith("The spares run dry") for line in explain(_summary(aggregate([ample])), p))
