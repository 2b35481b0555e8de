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


def _with_storage(snap, write=50.0, read=80.0, port_gbps=400.0):
    from campus.analysis.snapshot import StorageSnap

    row = StorageSnap(1, "fs", "parallel-fs", 5.0, read, write, 30.0, 2, port_gbps, None)
    return replace(snap, storage_systems=(row,))


def test_the_checkpoint_store_is_the_campus_storage_system():
    # Llama 3 8B: 8.03e9 x 14 B = 112.42 GB written by the 256 GPUs (ZeRO-1 shards the state) at the storage's
    # 50 GB/s (32 nodes x 50 GB/s of ports are faster): 2.2484 s; read back at 80 GB/s: 1.40525 s
    r = run_replica("training_step", _with_storage(campus()), SMALL_JOB, seed=0)
    ck = r.details["checkpoint"]
    assert ck["storage"] == "fs"
    assert r.metrics["checkpoint_write_s"] == pytest.approx(8.03e9 * 14 / 50e9)
    assert r.metrics["restart_s"] == pytest.approx(300 + 8.03e9 * 14 / 80e9)


def test_the_nodes_front_end_ports_of_the_storage_system_bound_the_checkpoint():
    # 10 Gb/s per node: 32 nodes x 1.25 GB/s = 40 GB/s, below the store's 1 TB/s
    snap = _with_storage(campus(), write=1000.0, read=1000.0, port_gbps=10.0)
    r = run_replica("training_step", snap, SMALL_JOB, seed=0)
    assert r.metrics["checkpoint_write_s"] == pytest.approx(8.03e9 * 14 / 40e9)
    assert r.details["checkpoint"]["write_bound"] == "node NIC"


def test_typed_storage_bandwidth_overrides_the_inventory():
    params = {**SMALL_JOB, "storage_write_gb_s": 10.0}
    r = run_replica("training_step", _with_storage(campus()), params, seed=0)
    assert r.metrics["checkpoint_write_s"] == pytest.approx(8.03e9 * 14 / 10e9)
    assert r.metrics["restart_s"] == pytest.approx(300 + 8.03e9 * 14 / 80e9)  # the read stays the inventory's


def test_without_a_storage_system_the_store_is_tectonic():
    r = run_replica("training_step", campus(), SMALL_JOB, seed=0)
    assert r.details["checkpoint"]["storage"] == "Tectonic (Llama 3)"
    # Tectonic's 2 TB/s is faster than the 32 nodes' 400 Gb/s ports (1.6 TB/s): those bound it
    assert r.metrics["checkpoint_write_s"] == pytest.approx(8.03e9 * 14 / (32 * 50e9))
    assert r.details["checkpoint"]["write_bound"] == "node NIC"


def test_the_scaling_curve_leaves_out_the_counts_whose_states_do_not_fit():
    """Llama 3 70B at TP8 with ZeRO-1 on 256 H100 (80 GB): weights and gradients 4 B x 70.6e9 / 8 = 35.3 GB,
    activations 34 x 8192 x 8192 / 8 B x 80 layers = 22.8 GB, the optimizer 12 B x 70.6e9 / 8 / DP: it fits
    from DP = 105.9 / (80 - 58.1) = 4.8 up, so of the doublings 8 ... 256 GPUs the curve holds 64, 128 and
    256 (DP 8, 16, 32). The run once failed on the 8-GPU point instead."""
    job = {"model": "llama3-70b", "tp": 8, "pp": 1, "global_batch": 256, "zero_stage": 1}
    r = run_replica("training_step", campus(), job, seed=0)
    assert r.metrics["gpus"] == 256
    assert [p["gpus"] for p in r.details["scaling"]] == [64, 128, 256]
    assert r.details["scaling"][0]["linearity"] == 1.0
