"""The summary's jobs take their recovery and MFU from the hardware, and storage power is IT load (taken out
of the ``other_it_fraction`` allowance, which counted it, down to nothing).

A generated 512-GPU campus (64 HGX H100 servers in 16 racks, one island) with one storage system. Its job
runs Llama 3 405B on Llama 3's split (TP8 x PP16, FSDP): DP = 512 / 128 = 4. Truth by hand:

- checkpoint = 405e9 parameters x 14 bytes (bf16 weights, fp32 master weights and two Adam moments; ZeRO §3)
  = 5.67 TB, written by every GPU (FSDP shards the state) from 64 nodes;
- write time = 5.67e12 B / min(storage write, the racks' front-end cabling, 64 nodes x their front-end port);
- restart = 300 s launch + 5.67e12 B / min(storage read, cabling, 64 x port).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.cards import rack_it_mw_by
from campus.analysis.energy import it_breakdown
from campus.analysis.floor_map import campus_floor_map
from campus.analysis.heat import heat_map
from campus.analysis.power import baseline_rollup
from campus.analysis.snapshot import LinkSnap, SwitchSnap
from campus.analysis.summary import campus_summary
from campus.analysis.training.campus_jobs import declared_job_models
from campus.analysis.training.cluster import pools_from_snapshot
from campus.analysis.training.presets import MODELS
from campus.analysis.training.steptime import step_time
from campus.analysis.training.workload import Parallelism, Workload
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

STATE = 405e9 * 14.0  # 5.67 TB
NODES = 64


def _snap(write=100.0, read=200.0, port_gbps=400.0, power_kw=50.0, building="B1"):
    spec = generate_spec("G", gpus=512)
    row = {
        "name": "fs",
        "capacity_pb": 10.0,
        "read_gb_s": read,
        "write_gb_s": write,
        "power_kw": power_kw,
        "frontend_gbps_per_node": port_gbps,
    }
    if building:
        row["building"] = building
    spec["storage_systems"] = [row]
    return spec_snapshot(spec)


def _job(summary):
    (job,) = summary["reliability"]["headline"]["jobs"]
    return job


def test_the_checkpoint_is_bound_by_the_storage_when_it_is_slowest():
    job = _job(campus_summary(_snap(write=100.0, read=200.0), include_redundancy=False))
    # 5.67e12 B at 100 GB/s = 56.7 s; read back at 200 GB/s = 28.35 s, after a 300 s launch
    assert job["checkpoint_minutes"] == pytest.approx(STATE / 100e9 / 60)
    assert job["restart_minutes"] == pytest.approx((300 + STATE / 200e9) / 60)
    assert job["checkpoint_minutes_source"].startswith("checkpoint model")
    ck = job["training"]["checkpoint"]
    assert (ck["storage"], ck["write_bound"], ck["restore_bound"]) == ("fs", "storage", "storage")


def test_the_checkpoint_is_bound_by_the_nodes_front_end_ports_when_they_are_slowest():
    # 64 nodes x 100 Gb/s = 800 GB/s against a 10 TB/s store: 7.0875 s each way
    job = _job(
        campus_summary(_snap(write=10_000.0, read=10_000.0, port_gbps=100.0), include_redundancy=False)
    )
    assert job["checkpoint_minutes"] == pytest.approx(STATE / (NODES * 12.5e9) / 60)
    assert job["restart_minutes"] == pytest.approx((300 + STATE / (NODES * 12.5e9)) / 60)
    assert job["training"]["checkpoint"]["write_bound"] == "node NIC"


def test_the_checkpoint_is_bound_by_the_front_end_fabric_the_racks_are_cabled_with():
    snap = _snap(write=10_000.0, read=10_000.0, port_gbps=400.0)
    # one 100G front-end link per rack: 16 x 100 Gb/s = 200 GB/s, below 64 x 50 GB/s of ports
    sw = SwitchSnap(9001, "FE-1", None, "leaf", snap.switches[0].model, 1, None, None, network="frontend")
    links = tuple(
        LinkSnap(9100 + i, None, "frontend", "dac", 1, 2.0, 100.0, r.id, None, sw.id)
        for i, r in enumerate(snap.racks)
    )
    snap = replace(snap, switches=(*snap.switches, sw), links=(*snap.links, *links))
    assert len(snap.racks) == 16
    job = _job(campus_summary(snap, include_redundancy=False))
    assert job["checkpoint_minutes"] == pytest.approx(STATE / 200e9 / 60)
    assert job["restart_minutes"] == pytest.approx((300 + STATE / 200e9) / 60)
    ck = job["training"]["checkpoint"]
    assert (ck["write_bound"], ck["frontend_fabric_gb_s"]) == ("front-end fabric", pytest.approx(200.0))


def test_typed_recovery_overrides_the_hardware_and_the_campus_wide_job_is_labelled():
    snap = _snap()
    s = campus_summary(snap, checkpoint_minutes=7.0, restart_minutes=12.0, include_redundancy=False)
    job = _job(s)
    assert (job["checkpoint_minutes"], job["checkpoint_minutes_source"]) == (7.0, "typed")
    assert (job["restart_minutes"], job["restart_minutes_source"]) == (12.0, "typed")
    # the campus-wide job (one island here: the same job) from the hardware, saying so
    rel = campus_summary(snap, include_redundancy=False)["reliability"]
    assert rel["checkpoint_minutes"] == pytest.approx(STATE / 100e9 / 60)
    assert rel["checkpoint_minutes_source"].startswith("checkpoint model")


def test_without_a_storage_system_the_catalog_recovery_stays():
    snap = replace(_snap(), storage_systems=())
    job = _job(campus_summary(snap, include_redundancy=False))
    assert (job["checkpoint_minutes"], job["restart_minutes"]) == (5.0, 10.0)
    assert job["training"]["checkpoint"] is None


def test_the_jobs_mfu_is_the_step_time_model_of_its_workload():
    snap = _snap()
    s = campus_summary(snap, include_redundancy=False)
    # the same figure another way: Llama 3 405B, TP8 x PP16 x DP4, FSDP, v = 7, 2,048 sequences (512 x 4)
    w = Workload(MODELS["llama3-405b"], Parallelism(tp=8, pp=16, dp=4, zero_stage=3, virtual_stages=7), 2048)
    out = step_time(w, pools_from_snapshot(snap))
    assert s["compute"]["mfu"]["bf16"] == pytest.approx(out.mfu)
    assert s["compute"]["mfu_source"] == "step-time model"
    assert 0.3 < out.mfu < 0.55
    job = _job(s)
    peak = 512 * 989 / 1000
    assert s["compute"]["design_effective_pflops"]["bf16"] == pytest.approx(
        peak * out.mfu * job["expected_ettr"]
    )
    # a typed MFU overrides it
    typed = campus_summary(snap, mfu=0.3, include_redundancy=False)["compute"]
    assert typed["mfu"]["bf16"] == 0.3 and typed["mfu_source"] == "typed"


def test_an_island_too_small_for_every_preset_keeps_the_catalog_mfu():
    snap = _snap()
    (model,) = declared_job_models(snap, [{"name": "x", "pod_id": 1, "by_model": {}}])
    assert model["workload"]["model"] == "llama3-405b"
    tiny = replace(snap, racks=snap.racks[:1])  # 4 servers, 32 GPUs: 405B (128 GPUs) no; 70B (32) yes
    (small,) = declared_job_models(tiny, [{"name": "x", "pod_id": 1, "by_model": {}}])
    assert small["workload"]["model"] == "llama3-70b"


# 64 HGX H100 servers: 8 x 700 W GPUs + 8 x 575 W overhead (SemiAnalysis, 100k H100 clusters, 2024-06)
SERVERS_KW = 64 * 8 * (700.0 + 575.0) / 1000.0  # 652.8 kW
# the published allowance: IT outside the servers ~10 % of IT, so servers x 0.1 / 0.9 = 72.533 kW
ALLOWANCE_KW = SERVERS_KW * 0.1 / 0.9


@pytest.mark.parametrize(
    ("storage_kw", "allowance_left_kw"),
    [(50.0, ALLOWANCE_KW - 50.0), (100.0, 0.0)],  # inside the allowance; beyond it (the rest adds)
)
def test_campus_it_is_racks_network_storage_and_the_allowance_left_and_every_view_agrees(
    storage_kw, allowance_left_kw
):
    snap = replace(_snap(power_kw=storage_kw), other_it_fraction=0.1)
    without = replace(snap, storage_systems=())
    it, it0 = it_breakdown(snap), it_breakdown(without)
    assert it.gpu_kw + it.server_overhead_kw == pytest.approx(SERVERS_KW)
    assert it0.other_it_kw == pytest.approx(ALLOWANCE_KW)
    # the storage the inventory now carries comes out of the allowance, down to nothing
    assert it.storage_kw == storage_kw
    assert it.other_it_kw == pytest.approx(allowance_left_kw)
    # conservation by hand: IT = racks + network + storage + the allowance left
    assert it.it_kw == pytest.approx(SERVERS_KW + it.network_kw + storage_kw + allowance_left_kw)
    # counted once: inside the allowance IT does not move; beyond it, by what the allowance cannot hold
    assert it.it_kw - it0.it_kw == pytest.approx(max(storage_kw - ALLOWANCE_KW, 0.0))
    s = campus_summary(snap, include_redundancy=False)
    assert s["power"]["storage_mw"] == pytest.approx(storage_kw / 1000.0)
    assert s["power"]["other_it_mw"] == pytest.approx(allowance_left_kw / 1000.0)
    assert s["power"]["it_mw"] == pytest.approx(it.it_kw / 1000.0)
    # the building cards, the floor map and the power chain carry the same watts
    assert sum(c["it_mw"] for c in s["buildings"]) == pytest.approx(s["power"]["it_mw"])
    fm = campus_floor_map(snap, {}, {})
    assert fm["campus"]["it_mw"] == pytest.approx(s["power"]["it_mw"])
    assert sum(b["it_mw"] for b in fm["buildings"]) == pytest.approx(s["power"]["it_mw"])
    assert sum(rack_it_mw_by(snap, "hall_id").values()) == pytest.approx(s["power"]["it_mw"])
    chain = baseline_rollup(snap)
    assert sum(chain.it_beside_racks_kw.values()) == pytest.approx(
        it.network_kw + storage_kw + allowance_left_kw
    )
    # and the heat reaches the cooling: the heat map's IT is the campus IT
    hm = heat_map(snap)
    assert hm.storage_kw == storage_kw and hm.other_it_kw == pytest.approx(allowance_left_kw)
    assert hm.it_kw == pytest.approx(it.it_kw)
    assert s["cooling"]["heat_sources_mw"]["storage"] == pytest.approx(storage_kw / 1000.0)


def test_a_storage_system_out_of_operation_draws_nothing():
    snap = _snap()
    off = replace(snap, storage_systems=(replace(snap.storage_systems[0], status="offline"),))
    assert it_breakdown(off).storage_kw == 0.0


def test_the_campus_job_set_takes_the_same_hardware_model():
    # one island: the campus-wide job is the island's job, the same checkpoint and MFU
    snap = _snap()
    s = campus_summary(snap, jobs="campus", include_redundancy=False)
    job = _job(s)
    assert job["name"] == "the whole campus"
    assert job["checkpoint_minutes"] == pytest.approx(STATE / 100e9 / 60)
    islands = campus_summary(snap, include_redundancy=False)["compute"]
    assert s["compute"]["mfu"] == pytest.approx(islands["mfu"])


@settings(max_examples=60, deadline=None)
@given(
    write=st.floats(1.0, 1e5),
    read=st.floats(1.0, 1e5),
    port_gbps=st.floats(1.0, 1e4),
    fabric=st.one_of(st.none(), st.floats(1.0, 1e5)),
)
def test_checkpoint_time_is_the_state_over_the_slowest_of_the_three(write, read, port_gbps, fabric):
    from campus.analysis.training.recovery import StorageSystem, checkpoint_costs

    snap = _snap()
    (pool,) = pools_from_snapshot(snap)
    pool = replace(pool, frontend_gbps_per_node=port_gbps)
    w = Workload(MODELS["llama3-405b"], Parallelism(tp=8, pp=16, dp=4, zero_stage=3, virtual_stages=7), 2048)
    ck = checkpoint_costs(
        w, pool, StorageSystem("s", read_gb_s=read, write_gb_s=write), frontend_fabric_gb_s=fabric
    )
    ports = NODES * port_gbps / 8.0
    slowest_write = min(write, ports, fabric if fabric is not None else float("inf"))
    slowest_read = min(read, ports, fabric if fabric is not None else float("inf"))
    assert ck["checkpoint_write_s"] == pytest.approx(STATE / (slowest_write * 1e9))
    assert ck["restore_s"] == pytest.approx(STATE / (slowest_read * 1e9))
    assert ck["write_gb_s"] == pytest.approx(slowest_write)
