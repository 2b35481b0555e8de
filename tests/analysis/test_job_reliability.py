"""The headline's jobs (campus.analysis.job_reliability): one job per island against one over the campus,
each job's ETTR by Daly's exact form, the recovery adapter, and the sentence a low ETTR carries."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.job_reliability import declared_jobs, job_reliability, jobs_reliability, recovery_for_job
from campus.analysis.reliability import campus_job_reliability
from campus.analysis.synthetic import synthetic_campus
from campus.fidelity.campuses import servers, with_catalog_rates


def test_a_campus_of_many_islands_is_judged_per_island_and_the_campus_job_kept_apart():
    snap = with_catalog_rates(synthetic_campus(65_536))
    head = jobs_reliability(snap)
    whole = campus_job_reliability(snap)
    assert len(head["jobs"]) == 4 and {j["gpus"] for j in head["jobs"]} == {16_384}
    # the Llama 3 job: 16,384 H100 interrupted every 3.1 h (419 in 54 days), 5-min checkpoints at Daly's
    # interval, 10-min restarts: Daly's exact ETTR, written out here
    m = 54 * 24 / 419
    d, r = 5 / 60, 10 / 60
    x = d / (2 * m)
    tau = math.sqrt(2 * d * m) * (1 + math.sqrt(x) / 3 + x / 9) - d
    want = tau / (m * math.exp(r / m) * (math.exp((tau + d) / m) - 1))
    assert head["ettr"] == pytest.approx(want, rel=0.02)
    assert whole["expected_ettr"] < head["ettr"] - 0.2
    campus_set = jobs_reliability(snap, jobs="campus")
    assert campus_set["ettr"] == pytest.approx(whole["expected_ettr"])
    assert campus_set["note"] is not None and "65,536 GPUs" in campus_set["note"]


def test_recovery_comes_from_the_catalog_unless_typed():
    assert recovery_for_job(8) == {
        "gpus": 8,
        "checkpoint_minutes": 5.0,
        "checkpoint_minutes_source": "catalog default (Kokolis et al. 2024)",
        "restart_minutes": 10.0,
        "restart_minutes_source": "catalog default (Kokolis et al. 2024)",
    }
    typed = recovery_for_job(8, 1.0, None)
    assert (typed["checkpoint_minutes"], typed["checkpoint_minutes_source"]) == (1.0, "typed")
    # the checkpoint model's write and restart, in minutes; a typed value still wins
    costs = {"checkpoint_write_s": 3.0, "restart_s": 306.0}
    hw = recovery_for_job(8, costs=costs)
    assert (hw["checkpoint_minutes"], hw["restart_minutes"]) == (0.05, 5.1)
    assert hw["checkpoint_minutes_source"].startswith("checkpoint model")
    assert recovery_for_job(8, None, 10.0, costs=costs)["restart_minutes"] == 10.0


def test_an_unknown_job_set_is_refused_by_name():
    with pytest.raises(ValueError, match="^jobs:"):
        declared_jobs(servers({"hgx-h100-8": 4}), "racks")


@settings(max_examples=40, deadline=None)
@given(
    small=st.integers(1, 2_000),
    extra=st.integers(1, 2_000),
    ckpt=st.floats(0.1, 30),
    restart=st.floats(0, 30),
)
def test_a_bigger_job_never_has_a_higher_ettr(small, extra, ckpt, restart):
    snap = servers({"hgx-h100-8": 1})  # the catalog's failure rates; the job's counts are given
    a = job_reliability(
        snap,
        {"h100-sxm": {"gpu": 8 * small, "node": small}},
        checkpoint_minutes=ckpt,
        restart_minutes=restart,
    )
    b = job_reliability(
        snap,
        {"h100-sxm": {"gpu": 8 * (small + extra), "node": small + extra}},
        checkpoint_minutes=ckpt,
        restart_minutes=restart,
    )
    assert b["expected_ettr"] <= a["expected_ettr"] + 1e-12
