"""training_step: the step time of a published model on the campus's pods, its scaling curve and sweep."""

from dataclasses import replace

import pytest

from campus.analysis.training.cluster import pools_from_snapshot
from simulations.engine.fields import ParamsError
from simulations.engine.kinds import training_step
from simulations.engine.params import validate_params
from simulations.engine.runner import run_replica
from tests.engine.builders import campus

SMALL_JOB = {"model": "llama3-8b", "tp": 8, "pp": 1, "global_batch": 64}


def test_the_campus_pods_are_islands_of_its_gpus():
    snap = campus()  # 8 racks x 4 servers x 8 H100, 2 pods
    (pool,) = pools_from_snapshot(snap)
    assert pool.gpus == 256
    assert pool.island_gpus == 128
    assert pool.domain_gpus == 8
    assert pool.nic_gbps_per_gpu == 400.0


def test_a_job_on_the_whole_campus_reports_its_step_and_curve():
    r = run_replica("training_step", campus(), SMALL_JOB, seed=0)
    assert r.metrics["gpus"] == 256
    assert 0 < r.metrics["mfu"] < 0.6
    assert r.metrics["step_s"] > 0
    shares = r.metrics["compute_fraction"] + r.metrics["bubble_fraction"] + r.metrics["exposed_comm_fraction"]
    assert shares == pytest.approx(1.0)
    curve = r.details["scaling"]
    assert [p["gpus"] for p in curve] == [8, 16, 32, 64, 128, 256]
    assert curve[0]["linearity"] == 1.0
    # DP crosses from the island to the campus tier past 128 GPUs
    assert curve[-1]["tiers"]["dp"] == "campus"
    assert curve[-2]["tiers"]["dp"] == "island"
    # the step's shares against the 8-GPU point: the data-parallel reduction grew, over the campus tier
    assert curve[-1]["grew_most"] == "dp" and curve[-1]["grew_most_tier"] == "campus"


def test_the_job_on_one_pod_stays_in_its_island():
    r = run_replica("training_step", campus(), {**SMALL_JOB, "pod_ids": [10]}, seed=0)
    assert r.metrics["gpus"] == 128
    assert r.details["step"]["collectives"]["dp"]["tier"] == "island"


def test_oversubscription_above_the_pods_never_speeds_the_step():
    snap = campus()
    over = replace(snap, pods=tuple(replace(p, oversubscription=8.0) for p in snap.pods))
    base = run_replica("training_step", snap, SMALL_JOB, seed=0).metrics["step_s"]
    assert run_replica("training_step", over, SMALL_JOB, seed=0).metrics["step_s"] >= base


def test_a_sweep_over_tp_and_pp():
    params = {**SMALL_JOB, "tp_values": [2, 4, 8], "pp_values": [1, 2]}
    r = run_replica("training_step", campus(), params, seed=0)
    assert len(r.details["sweep"]) == 6
    assert {(p["tp"], p["pp"]) for p in r.details["sweep"]} == {(t, p) for t in (2, 4, 8) for p in (1, 2)}


def test_tp_that_does_not_divide_the_heads_is_a_params_error_on_tp():
    p = validate_params("training_step", {**SMALL_JOB, "tp": 3})
    with pytest.raises(ParamsError) as exc:
        training_step.prepare(campus(), p)
    assert exc.value.errors[0]["field"] == "tp"


def test_a_model_too_big_for_the_split_is_a_params_error():
    p = validate_params("training_step", {"model": "megatron-1t", "tp": 8, "pp": 1, "global_batch": 64})
    with pytest.raises(ParamsError) as exc:
        training_step.prepare(campus(), p)
    assert "GB per GPU" in exc.value.errors[0]["message"]


def test_a_sweep_over_200_points_is_refused():
    with pytest.raises(ParamsError):
        validate_params("training_step", {"tp_values": list(range(1, 16)), "pp_values": list(range(1, 16))})


def test_its_words_name_the_step_and_the_mfu():
    from simulations.engine import catalogue
    from simulations.engine.aggregate import aggregate

    params = validate_params("training_step", SMALL_JOB)
    results = [run_replica("training_step", campus(), SMALL_JOB, seed=0)]
    agg = aggregate(results)
    summary = {"metrics": {k: v for k, v in agg.items() if k not in ("by_cause", "replicas", "events")}}
    summary["by_cause"] = agg["by_cause"]
    words = catalogue.explain("training_step", summary, params)
    assert "MFU" in words[0] and "256 GPUs" in words[0]
