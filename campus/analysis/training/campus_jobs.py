"""The declared jobs of a campus as training jobs: a preset workload on each, its step-time MFU, and its
checkpoint and restart cost from the inventory (docs/training.md, "The summary's jobs").

The summary's headline runs one synchronous job per island (``job_reliability.declared_jobs``). Each job here
runs the first workload of ``DEFAULT_WORKLOADS`` that its GPUs can run (the parallelism fits the GPUs and
the memory holds the model), with data parallelism the largest the island holds; the GPUs the split leaves
over stay idle. Its step time (``steptime.step_time``) gives the MFU at each precision the GPUs have, and
its checkpoint (``recovery.checkpoint_costs``) is written to the campus's fastest storage system in operation,
through the front-end fabric the job's racks are cabled with and the nodes' front-end ports, its bandwidth
shared with the other jobs writing to it at the same moments (``share_storage``). A job none of
the workloads fits, or a campus without a storage system, keeps the catalog's figures for what is missing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from campus.analysis.job_reliability import WHOLE_CAMPUS
from campus.analysis.phases import OUT_OF_OPERATION
from campus.analysis.snapshot import CampusSnapshot, StorageSnap
from campus.analysis.training.cluster import Pool, pools_from_snapshot
from campus.analysis.training.presets import LLAMA3, MODELS
from campus.analysis.training.recovery import StorageSystem, checkpoint_costs, shared_write_s
from campus.analysis.training.steptime import step_time
from campus.analysis.training.workload import PRECISIONS, Parallelism, Workload

FRONTEND = "frontend"
# Sequences per step the default workloads aim at: Llama 3 405B's 16M tokens per step in 8,192-token
# sequences (Llama 3 paper §3.4.1 and table 4). A job's batch is the nearest multiple of its data parallelism.
TARGET_BATCH = 2048


@dataclass(frozen=True)
class JobWorkload:
    """A preset job: a published model and the parallelism it is split with (DP: what the GPUs leave)."""

    model: str
    parallel: Parallelism
    source: str


# Tried in order; the first the job's GPUs run is the job's. Llama 3 405B with its published split (TP8,
# PP16, FSDP; interleaving 7 as the step-time preset assumes); smaller islands the smaller Llama 3 models:
# 70B TP8 x PP4 with a distributed optimizer, 8B with FSDP alone (both splits are assumptions, Megatron-LM's
# usual recipe for the size; Meta gives neither).
DEFAULT_WORKLOADS: tuple[JobWorkload, ...] = (
    JobWorkload("llama3-405b", Parallelism(tp=8, pp=16, zero_stage=3, virtual_stages=7), LLAMA3),
    JobWorkload("llama3-70b", Parallelism(tp=8, pp=4, zero_stage=1), "assumed split (TP8 x PP4, ZeRO-1)"),
    JobWorkload("llama3-8b", Parallelism(tp=1, pp=1, zero_stage=3), "assumed split (FSDP)"),
)


def storage_in_operation(snap: CampusSnapshot) -> StorageSnap | None:
    """The campus's fastest storage system in operation (highest write bandwidth; ties by name), or None."""
    live = [s for s in snap.storage_systems if s.status not in OUT_OF_OPERATION]
    return min(live, key=lambda s: (-s.write_gb_s, s.name)) if live else None


def as_storage(row: StorageSnap) -> StorageSystem:
    return StorageSystem(
        row.name,
        row.kind,
        capacity_pb=row.capacity_pb,
        read_gb_s=row.read_gb_s,
        write_gb_s=row.write_gb_s,
        power_kw=row.power_kw,
        racks=row.racks,
        source="inventory",
    )


def frontend_fabric_gb_s(snap: CampusSnapshot, rack_ids: set[int]) -> float | None:
    """What the racks ``rack_ids`` are cabled to the front-end network with: their front-end link bundles'
    count x speed, GB/s (None when the inventory has no front-end link from them). The tiers above the
    access links are taken as non-blocking (an assumption: the inventory gives no storage attachment)."""
    gbps = sum(
        ln.count * ln.speed_gbps
        for ln in snap.links
        if ln.network == FRONTEND and ln.a_rack_id is not None and ln.a_rack_id in rack_ids
    )
    return gbps / 8.0 if gbps > 0 else None


def fit_pools(pools: Sequence[Pool], gpus: int) -> list[Pool]:
    """The pools cut to ``gpus`` GPUs, taken from the largest pool first (the rest stay idle)."""
    left, kept = gpus, []
    for pl in sorted(pools, key=lambda x: -x.gpus):
        if left <= 0:
            break
        kept.append(replace(pl, gpus=min(pl.gpus, left)))
        left -= kept[-1].gpus
    return kept


def _workload(job: JobWorkload, gpus: int) -> Workload | None:
    unit = job.parallel.tp * job.parallel.pp * job.parallel.cp
    dp = gpus // unit
    if dp < 1:
        return None
    m = max(1, round(TARGET_BATCH / dp))
    return Workload(MODELS[job.model], replace(job.parallel, dp=dp), dp * m * job.parallel.microbatch)


def _precisions(pools: Sequence[Pool]) -> list[str]:
    return [p for p in PRECISIONS if all(pl.gpu.peak_tflops.get(p, 0.0) > 0 for pl in pools)]


def job_model(
    snap: CampusSnapshot,
    pools: Sequence[Pool],
    rack_ids: set[int],
    workloads: Sequence[JobWorkload] = DEFAULT_WORKLOADS,
) -> dict:
    """One declared job on ``pools`` (its racks ``rack_ids``): the workload it runs, its step-time figures at
    each precision its GPUs have (``mfu``: over the job's GPUs; ``island_mfu``: the model FLOP/s over the
    peak of every GPU of the pools, idle ones counted), and its checkpoint costs against the campus's storage
    (None without a storage system in operation). ``workload`` None: no preset fits (the caller keeps its
    defaults)."""
    total = sum(pl.gpus for pl in pools)
    out: dict = {"gpus": total, "workload": None, "mfu": {}, "island_mfu": {}, "checkpoint": None}
    if any(pl.gpu.scaleup_gbps <= 0 or pl.nic_gbps_per_gpu <= 0 for pl in pools):
        return out  # a GPU with no scale-up or back-end bandwidth in the catalog: nothing to model
    for job in workloads:
        w = _workload(job, total)
        if w is None:
            continue
        used = fit_pools(pools, w.parallel.gpus)
        figures = {}
        try:
            for prec in _precisions(used):
                figures[prec] = step_time(replace(w, precision=prec), used)
        except ValueError:
            continue
        if not figures:
            continue
        for prec, st in figures.items():
            island_peak = sum(pl.gpus * pl.gpu.peak_tflops.get(prec, 0.0) for pl in pools)
            out["mfu"][prec] = st.mfu
            out["island_mfu"][prec] = st.tflops_per_gpu * st.gpus / island_peak if island_peak else 0.0
        bf = figures.get("bf16") or next(iter(figures.values()))
        out["workload"] = {
            "model": job.model,
            "parallel": dict(w.parallel.__dict__),
            "global_batch": w.global_batch,
            "gpus": w.parallel.gpus,
            "source": job.source,
            "step_s": bf.step_s,
            "tokens_per_s": bf.tokens_per_s,
            "limiter": bf.limiter,
        }
        row = storage_in_operation(snap)
        if row is not None:
            fe = [replace(pl, frontend_gbps_per_node=row.frontend_gbps_per_node) for pl in used]
            fabric = frontend_fabric_gb_s(snap, rack_ids)
            if fabric is not None and total > w.parallel.gpus:  # the job's share of its racks' cabling
                fabric *= w.parallel.gpus / total
            ck = checkpoint_costs(w, fe, as_storage(row), frontend_fabric_gb_s=fabric)
            out["checkpoint"] = {**ck, "storage": row.name, "frontend_fabric_gb_s": fabric}
        return out
    return out


def declared_job_models(snap: CampusSnapshot, jobs: Sequence[dict]) -> list[dict]:
    """``job_model`` of each of ``jobs`` (``job_reliability.declared_jobs``: by ``pod_id``, or the whole
    campus when ``pod_id`` is None and it is the only job). The racks are grouped once."""
    whole = len(jobs) == 1 and jobs[0]["pod_id"] is None and jobs[0]["name"] == WHOLE_CAMPUS
    racks_by_pod: dict[int | None, list] = {}
    for r in snap.racks:
        racks_by_pod.setdefault(None if whole else r.pod_id, []).append(r)
    out = [job_on_racks(snap, racks_by_pod.get(job["pod_id"], [])) for job in jobs]
    share_storage(snap, out)
    return out


def job_on_racks(snap: CampusSnapshot, racks: Sequence, gpus: int | None = None) -> dict:
    """``job_model`` of one synchronous job over ``racks`` (RackSnap), on ``gpus`` of their GPUs when given
    (taken from the largest GPU model first, as ``fit_pools``; the rest stay idle and out of the job)."""
    try:
        pools = pools_from_snapshot(replace(snap, racks=tuple(racks)))
    except ValueError:
        return {"gpus": 0, "workload": None, "mfu": {}, "island_mfu": {}, "checkpoint": None}
    if gpus is not None:
        pools = fit_pools(pools, gpus)
    return job_model(snap, pools, {r.id for r in racks})


def share_storage(snap: CampusSnapshot, models: Sequence[dict]) -> None:
    """The jobs checkpointing to one storage system write together: each job's ``checkpoint_write_s``
    (and its async write) becomes its write with the storage's bandwidth shared (``shared_write_s``), its
    write alone kept as ``write_alone_s``, and ``storage_jobs`` says how many jobs share the system.

    **Assumption**: the jobs checkpoint at the same moments (simultaneous), the case storage is sized
    for: jobs saving on the same cadence (every N steps or minutes) and launched together stay aligned,
    and nothing in the inventory staggers them. Restores are not shared: the jobs fail independently,
    so a restore meets another job's only by chance."""
    by_storage: dict[str, list[dict]] = {}
    for m in models:
        if m["checkpoint"] is not None:
            by_storage.setdefault(m["checkpoint"]["storage"], []).append(m["checkpoint"])
    bandwidth = {s.name: s.write_gb_s for s in snap.storage_systems}
    for name, cks in by_storage.items():
        times = shared_write_s(
            [ck["checkpoint_bytes"] for ck in cks], [ck["write_cap_gb_s"] for ck in cks], bandwidth[name]
        )
        for ck, t in zip(cks, times, strict=True):
            alone = ck["checkpoint_write_s"]
            ck["write_alone_s"] = alone
            ck["storage_jobs"] = len(cks)
            # never below the write alone (the shares are exact; this only absorbs rounding)
            ck["checkpoint_write_s"] = ck["async_write_s"] = max(t, alone)
            if ck["checkpoint_write_s"] > 0:
                ck["write_gb_s"] = ck["checkpoint_bytes"] / ck["checkpoint_write_s"] / 1e9


def weighted_mfu(models: Sequence[dict], peaks: Sequence[dict[str, float]]) -> dict[str, float | None]:
    """Each precision's MFU over the jobs, weighted by each job's peak at it (``island_mfu``); None where
    no job has a figure."""
    out: dict[str, float | None] = {}
    for prec in PRECISIONS:
        num = den = 0.0
        for m, peak in zip(models, peaks, strict=True):
            if prec in m["island_mfu"]:
                num += peak.get(prec, 0.0) * m["island_mfu"][prec]
                den += peak.get(prec, 0.0)
        out[prec] = num / den if den > 0 and math.isfinite(num) else None
    return out
