"""Checkpoint and restart cost from the hardware: storage, the front-end network, the back-end fabric.

Checkpoint size: 14 bytes per parameter (bf16 weights and the fp32 master weights and two Adam moments;
Rajbhandari et al., ZeRO, §3). Writers: with a sharded optimizer (ZeRO >= 1, FSDP) every GPU writes its
shard; without one, one data-parallel replica writes (the others hold copies).

    write_s   = bytes / min(storage write bandwidth, front-end fabric, writing nodes x front-end per node)
    restore_s = bytes read / min(storage read bandwidth, front-end fabric, all nodes x front-end per node)
    restart_s = launch_s + restore_s

The front-end fabric is the bandwidth the job's racks are cabled to the front-end network with (given by the
caller, e.g. ``campus_jobs.frontend_fabric_gb_s``; None: not in the inventory, the nodes' ports bound it);
when only some nodes write, they have their share of it.

Without a sharded optimizer every replica reads the whole state back (dp x the bytes). Async checkpointing
(Mohan et al., "CheckFreq", FAST 2021; PyTorch DCP async save) blocks training only for the copy of each GPU's
shard to host memory (``HOST_COPY_GB_S``); the write to storage runs behind the following steps. In-memory
checkpointing to peers (Wang et al., "GEMINI: Fast Failure Recovery in Distributed Training with In-Memory
Checkpoints", SOSP 2023) sends each GPU's shard to a peer's host memory over the back-end NIC, and a
replacement pulls it back the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from campus.analysis.training.cluster import HOST_COPY_GB_S, Pool
from campus.analysis.training.workload import Workload, checkpoint_bytes

GB = 1e9
# Relaunch of the job after a failure before the state is read back (scheduler, container start, NCCL
# initialisation): the low end of the 5-20 min restart overhead Kokolis et al. report (arXiv 2410.21680,
# §5), since restoring the state is counted on its own here. An estimate.
LAUNCH_S = 300.0


@dataclass(frozen=True)
class StorageSystem:
    """A parallel file system or object store as the job sees it."""

    name: str
    kind: str = "parallel-fs"  # "parallel-fs" | "object-store"
    capacity_pb: float = 0.0
    read_gb_s: float = 0.0  # sustained aggregate read, GB/s
    write_gb_s: float = 0.0  # sustained aggregate write, GB/s
    power_kw: float = 0.0
    racks: int = 0
    source: str = ""


# Meta's Tectonic for Llama 3: 240 PB on 7,500 servers, 2 TB/s sustained and 7 TB/s peak (arXiv 2407.21783,
# §3.3.1). Sustained taken for both directions.
TECTONIC_LLAMA3 = StorageSystem(
    "Tectonic (Llama 3)",
    "object-store",
    capacity_pb=240.0,
    read_gb_s=2000.0,
    write_gb_s=2000.0,
    source="Llama Team, 'The Llama 3 Herd of Models', arXiv 2407.21783, §3.3.1",
)


def _nodes(pool: Pool, gpus: float) -> int:
    return max(1, math.ceil(gpus / pool.gpus_per_node))


def checkpoint_costs(
    workload: Workload,
    pools: Pool | Sequence[Pool],
    storage: StorageSystem,
    *,
    launch_s: float = LAUNCH_S,
    frontend_fabric_gb_s: float | None = None,
) -> dict:
    """Checkpoint write, restore and restart time of ``workload`` on ``pools`` against ``storage``.

    Returns seconds and bytes: ``checkpoint_bytes``, ``bytes_per_gpu`` (the largest shard), ``writers``,
    ``checkpoint_write_s`` (blocking, synchronous), ``write_bound`` ("storage", "front-end fabric" or
    "node NIC": the nodes' front-end ports), ``write_gb_s`` (its bandwidth), ``write_cap_gb_s`` (the job's
    own bound beside the storage's: the front-end fabric or the nodes' ports; inf when neither binds),
    ``restore_s``, ``restore_bound``, ``restart_s`` (launch + restore), ``launch_s``, ``async_overhead_s``
    (what an async checkpoint blocks), ``async_write_s`` (its background write), ``in_memory_write_s`` and
    ``in_memory_restore_s`` (peers' host memory over the back-end fabric)."""
    pools = [pools] if isinstance(pools, Pool) else list(pools)
    if not pools:
        raise ValueError("pools: no GPUs")
    if storage.write_gb_s <= 0 or storage.read_gb_s <= 0:
        raise ValueError("storage: read and write bandwidth must be > 0")
    if launch_s < 0:
        raise ValueError("launch_s: must be >= 0")
    if frontend_fabric_gb_s is not None and frontend_fabric_gb_s <= 0:
        raise ValueError("frontend_fabric_gb_s: must be > 0")
    p = workload.parallel
    total = sum(pl.gpus for pl in pools)
    pool = min(pools, key=lambda pl: (pl.frontend_gbps_per_node / pl.gpus_per_node, pl.nic_gbps_per_gpu))
    size = checkpoint_bytes(workload.model)
    sharded = p.zero_stage >= 1
    writers = total if sharded else p.tp * p.pp * p.cp
    per_gpu = size / writers
    fe_node = pool.frontend_gbps_per_node / 8.0 * GB
    fabric = math.inf if frontend_fabric_gb_s is None else frontend_fabric_gb_s * GB
    write_bounds = {
        "storage": storage.write_gb_s * GB,
        "front-end fabric": fabric * min(1.0, _nodes(pool, writers) / _nodes(pool, total)),
        "node NIC": _nodes(pool, writers) * fe_node,
    }
    write_bound = min(write_bounds, key=write_bounds.get)
    write_s = size / write_bounds[write_bound]
    read_bytes = size if sharded else size * p.dp
    read_bounds = {
        "storage": storage.read_gb_s * GB,
        "front-end fabric": fabric,
        "node NIC": _nodes(pool, total) * fe_node,
    }
    restore_bound = min(read_bounds, key=read_bounds.get)
    restore_s = read_bytes / read_bounds[restore_bound]
    nic = pool.nic_gbps_per_gpu / 8.0 * GB
    return {
        "checkpoint_bytes": size,
        "bytes_per_gpu": per_gpu,
        "writers": writers,
        "checkpoint_write_s": write_s,
        "write_bound": write_bound,
        "write_gb_s": write_bounds[write_bound] / GB,
        "write_cap_gb_s": min(v for k, v in write_bounds.items() if k != "storage") / GB,
        "restore_s": restore_s,
        "restore_bound": restore_bound,
        "restore_gb_s": read_bounds[restore_bound] / GB,
        "launch_s": launch_s,
        "restart_s": launch_s + restore_s,
        "async_overhead_s": per_gpu / (HOST_COPY_GB_S * GB),
        "async_write_s": write_s,
        "in_memory_write_s": per_gpu / nic,
        "in_memory_restore_s": per_gpu / nic,
    }


def shared_write_s(
    sizes_bytes: Sequence[float], caps_gb_s: Sequence[float], storage_gb_s: float
) -> list[float]:
    """Write time of each of several jobs' checkpoints started together on one storage system, seconds.

    The storage's ``storage_gb_s`` is shared max-min fairly (processor sharing: every job writing gets an
    equal share, a job capped lower by its own front end, ``caps_gb_s``, takes its cap and leaves the rest
    to the others); as a job finishes its share goes to the ones still writing. Alone, a job writes at
    min(storage, its cap), as ``checkpoint_costs`` has it. Adding a job never shortens another's write."""
    if storage_gb_s <= 0:
        raise ValueError("storage_gb_s: must be > 0")
    if len(sizes_bytes) != len(caps_gb_s):
        raise ValueError("caps_gb_s: one per job")
    left = [float(b) for b in sizes_bytes]
    caps = [float(c) * GB for c in caps_gb_s]
    if any(b < 0 for b in left) or any(c <= 0 for c in caps):
        raise ValueError("sizes_bytes must be >= 0 and caps_gb_s > 0")
    done = [0.0 if b == 0 else math.nan for b in left]
    t = 0.0
    while True:
        active = [i for i, d in enumerate(done) if math.isnan(d)]
        if not active:
            return done
        # max-min fair rates: fill the capped jobs first, the rest share what is left equally
        rates, budget = {}, storage_gb_s * GB
        for n, i in enumerate(sorted(active, key=lambda i: caps[i])):
            share = budget / (len(active) - n)
            rates[i] = min(caps[i], share)
            budget -= rates[i]
        dt = min(left[i] / rates[i] for i in active)
        t += dt
        for i in active:
            left[i] -= rates[i] * dt
            if left[i] <= 1e-9 * max(sizes_bytes[i], 1.0):
                done[i] = t
