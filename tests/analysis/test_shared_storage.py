"""Jobs checkpointing to one storage system share its write bandwidth (simultaneous checkpoints,
docs/training.md, "Storage shared by the jobs"): by hand on a two- and three-island campus and on the
sharing rule itself, and as properties (adding a job never shortens a write; the storage is never idle
while a job writes)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.summary import campus_summary
from campus.analysis.training.recovery import shared_write_s
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

STATE = 405e9 * 14.0  # a Llama 3 405B checkpoint, 5.67 TB (bf16 weights, fp32 master and two moments)
INF = float("inf")


def _snap(gpus: int, write: float = 100.0):
    spec = generate_spec("G", gpus=gpus, island_gpus=512)
    spec["storage_systems"] = [
        {
            "name": "fs",
            "capacity_pb": 10.0,
            "read_gb_s": 200.0,
            "write_gb_s": write,
            "power_kw": 0.0,
            "frontend_gbps_per_node": 400.0,
        }
    ]
    return spec_snapshot(spec)


@pytest.mark.parametrize("islands", [1, 2, 3])
def test_islands_checkpointing_together_share_the_storage_by_hand(islands):
    # each 512-GPU island runs Llama 3 405B (TP8 x PP16 x DP4, FSDP) and writes 5.67 TB; its 64 nodes'
    # front ends (64 x 50 GB/s) are far above a 100 GB/s store, so k islands writing at once get 100/k
    # GB/s each: 56.7 s alone, 113.4 s for two, 170.1 s for three
    s = campus_summary(_snap(512 * islands), include_redundancy=False)
    jobs = s["reliability"]["headline"]["jobs"]
    assert len(jobs) == islands
    for job in jobs:
        ck = job["training"]["checkpoint"]
        assert ck["storage_jobs"] == islands
        assert ck["write_alone_s"] == pytest.approx(STATE / 100e9)
        assert ck["checkpoint_write_s"] == pytest.approx(STATE / 100e9 * islands)
        assert job["checkpoint_minutes"] == pytest.approx(STATE / 100e9 * islands / 60)
        # the restore is not shared (the jobs fail independently): 300 s launch + 5.67 TB at 200 GB/s
        assert job["restart_minutes"] == pytest.approx((300 + STATE / 200e9) / 60)


def test_a_longer_checkpoint_from_sharing_lowers_each_job_s_ettr():
    one = campus_summary(_snap(512), include_redundancy=False)["reliability"]["headline"]["jobs"][0]
    two = campus_summary(_snap(1024), include_redundancy=False)["reliability"]["headline"]["jobs"][0]
    assert one["job_mttf_hours"] == pytest.approx(two["job_mttf_hours"])
    assert two["expected_ettr"] < one["expected_ettr"]


def test_the_sharing_rule_by_hand():
    tb = 1e12
    # alone: the storage or the job's own cap, whichever is lower
    assert shared_write_s([tb], [INF], 100.0) == pytest.approx([10.0])
    assert shared_write_s([tb], [20.0], 100.0) == pytest.approx([50.0])
    # 1 TB and 3 TB on 100 GB/s: 50 GB/s each until the first is done (20 s), then the second has 2 TB
    # left at 100 GB/s (20 s more)
    assert shared_write_s([tb, 3 * tb], [INF, INF], 100.0) == pytest.approx([20.0, 40.0])
    # a job capped at 20 GB/s by its front end leaves 80 to the other: 12.5 s and 50 s for 1 TB each
    assert shared_write_s([tb, tb], [20.0, INF], 100.0) == pytest.approx([50.0, 12.5])
    with pytest.raises(ValueError, match="storage_gb_s"):
        shared_write_s([tb], [INF], 0.0)


sizes = st.lists(st.floats(1e9, 1e13), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    sizes=sizes,
    storage=st.floats(1.0, 1e4),
    extra=st.floats(1e9, 1e13),
    extra_cap=st.floats(1.0, 1e4),
)
def test_adding_a_job_on_the_same_storage_never_shortens_a_checkpoint(data, sizes, storage, extra, extra_cap):
    caps = data.draw(st.lists(st.floats(1.0, 1e4), min_size=len(sizes), max_size=len(sizes)))
    before = shared_write_s(sizes, caps, storage)
    after = shared_write_s([*sizes, extra], [*caps, extra_cap], storage)
    for b, a in zip(before, after[:-1], strict=True):
        assert a >= b * (1 - 1e-9)
    for size, cap, t in zip(sizes, caps, before, strict=True):
        # never faster than alone
        assert t >= size / (min(cap, storage) * 1e9) * (1 - 1e-9)
    # the storage is never idle while a job is left that it could serve faster: the last write ends
    # no sooner than all the bytes over the storage's bandwidth
    assert max(before) >= sum(sizes) / (storage * 1e9) * (1 - 1e-9)
