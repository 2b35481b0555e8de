"""The training_step model: ``prepare`` (the pools and the job), ``stochastic`` and ``run``.

What it takes, returns and why it does not use SimPy: the package's docstring
(``simulations.engine.kinds.training_step``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.training.campus_jobs import as_storage, frontend_fabric_gb_s, storage_in_operation
from campus.analysis.training.cluster import Pool, pools_from_snapshot
from campus.analysis.training.presets import MODELS
from campus.analysis.training.recovery import TECTONIC_LLAMA3, StorageSystem, checkpoint_costs
from campus.analysis.training.scaling import scaling_curve, sweep
from campus.analysis.training.steptime import step_time
from campus.analysis.training.workload import Parallelism, Workload
from simulations.engine.fields import ParamsError
from simulations.engine.kinds.training_step.params import TrainingStepParams
from simulations.engine.results import Progress, ReplicaResult

DEFAULT_REPLICAS = 1  # deterministic


@dataclass(frozen=True)
class TrainingStepPlan:
    params: TrainingStepParams
    workload: Workload
    pools: tuple[Pool, ...]
    storage: StorageSystem
    frontend_fabric_gb_s: float | None = None  # the job's racks' front-end cabling (None: not inventoried)


def stochastic(params: TrainingStepParams) -> bool:
    """Never: the step time is a closed form of the hardware and the job."""
    return False


def _error(field: str, message: str) -> ParamsError:
    return ParamsError([{"field": field, "message": message}])


def _job_dp(gpus: int, unit: int, batch: int, microbatch: int) -> int:
    """The largest data parallelism the GPUs hold that splits the batch."""
    dp = gpus // unit
    while dp > 0 and batch % (dp * microbatch):
        dp -= 1
    return dp


def prepare(snap: CampusSnapshot, params: TrainingStepParams) -> TrainingStepPlan:
    p = params
    try:
        pools = pools_from_snapshot(snap, p.pod_ids)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        raise _error("pod_ids" if field == "pods" else field, message) from None
    total = sum(pl.gpus for pl in pools)
    unit = p.tp * p.pp * p.cp
    dp = _job_dp(total, unit, p.global_batch, p.microbatch)
    if dp < 1:
        raise _error(
            "tp", f"TP x PP x CP = {unit} with a batch of {p.global_batch} does not fit {total} GPUs"
        )
    job_gpus = dp * unit
    if job_gpus < total:  # the job takes GPUs of the pools in order; the rest stay idle
        left, kept = job_gpus, []
        for pl in sorted(pools, key=lambda x: -x.gpus):
            if left <= 0:
                break
            kept.append(replace(pl, gpus=min(pl.gpus, left)))
            left -= kept[-1].gpus
        pools = kept
    par = Parallelism(
        tp=p.tp,
        pp=p.pp,
        dp=dp,
        cp=p.cp,
        ep=p.ep,
        zero_stage=p.zero_stage,
        microbatch=p.microbatch,
        virtual_stages=p.virtual_stages,
        recompute=p.recompute,
    )
    w = Workload(MODELS[p.model], par, p.global_batch, tokens=p.tokens, precision=p.precision)
    try:
        step_time(w, pools, partition=p.partition)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        field = field.removeprefix("parallel.")
        field = field if field in TrainingStepParams.model_fields else "tp"
        raise _error(field, message) from None
    storage, fabric = _storage(snap, p)
    if fabric is not None and job_gpus < total:  # the job's share of its racks' cabling
        fabric *= job_gpus / total
    if storage.source == "inventory":
        row = storage_in_operation(snap)
        pools = [replace(pl, frontend_gbps_per_node=row.frontend_gbps_per_node) for pl in pools]
    return TrainingStepPlan(p, w, tuple(pools), storage, fabric)


def _storage(snap: CampusSnapshot, p: TrainingStepParams) -> tuple[StorageSystem, float | None]:
    """The checkpoint store: the campus's fastest storage system in operation (else Llama 3's Tectonic),
    its read and write bandwidth overridden by the parameters given; and the front-end cabling of the job's
    racks (``campus_jobs.frontend_fabric_gb_s``)."""
    row = storage_in_operation(snap)
    base = as_storage(row) if row is not None else TECTONIC_LLAMA3
    changes = {
        k: v
        for k, v in (("read_gb_s", p.storage_read_gb_s), ("write_gb_s", p.storage_write_gb_s))
        if v is not None
    }
    storage = replace(base, **changes) if changes else base
    wanted = None if p.pod_ids is None else set(p.pod_ids)
    racks = {r.id for r in snap.racks if wanted is None or r.pod_id in wanted}
    return storage, frontend_fabric_gb_s(snap, racks)


def _counts(p: TrainingStepParams, w: Workload) -> list[int]:
    unit = w.parallel.tp * w.parallel.pp * w.parallel.cp
    job = w.parallel.gpus
    if p.gpu_counts:
        return sorted({n for n in p.gpu_counts if n % unit == 0 and n <= job * 64})
    out, n = [], unit
    while n < job:
        out.append(n)
        n *= 2
    return [*out, job]


def run(plan: TrainingStepPlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """Deterministic: the seed is accepted for a uniform interface and not used."""
    p, w, pools = plan.params, plan.workload, list(plan.pools)
    st = step_time(w, pools, partition=p.partition)
    ck = {
        **checkpoint_costs(w, pools, plan.storage, frontend_fabric_gb_s=plan.frontend_fabric_gb_s),
        "storage": plan.storage.name,
    }
    largest = max(pools, key=lambda x: x.gpus)
    curve_pool = replace(largest, gpus=w.parallel.gpus)
    curve = scaling_curve(w, curve_pool, _counts(p, w), batch=p.batch_scaling, strict=False)
    if progress:
        progress(0.5)
    points = [
        {"tp": tp, "pp": pp, "dp": w.parallel.gpus // (tp * pp * p.cp)}
        for tp in (p.tp_values or [p.tp])
        for pp in (p.pp_values or [p.pp])
        if w.parallel.gpus % (tp * pp * p.cp) == 0
    ]
    swept = sweep(w, curve_pool, points) if len(points) > 1 or p.tp_values or p.pp_values else []
    if progress:
        progress(1.0)
    bd = st.breakdown()
    comm = sum(v for k, v in bd.items() if k not in ("compute", "bubble", "io"))
    metrics = {
        "step_s": st.step_s,
        "mfu": st.mfu,
        "tokens_per_s": st.tokens_per_s,
        "days": st.days or 0.0,
        "gpus": float(st.gpus),
        "compute_fraction": bd["compute"] / st.step_s,
        "bubble_fraction": bd["bubble"] / st.step_s,
        "exposed_comm_fraction": comm / st.step_s,
        "linearity": curve[-1]["linearity"] if curve else 1.0,
        "checkpoint_write_s": ck["checkpoint_write_s"],
        "restart_s": ck["restart_s"],
    }
    details = {"step": st.as_dict(), "checkpoint": ck, "scaling": curve, "sweep": swept}
    return ReplicaResult(
        metrics=metrics, by_cause={k: v for k, v in bd.items()}, details=details, events=len(curve)
    )
