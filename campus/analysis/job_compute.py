"""The summary's effective compute from its declared jobs: peak x MFU x ETTR, job by job (docs/model.md §5,
docs/training.md "The summary's jobs").

Each declared job (``job_reliability.declared_jobs``) has its MFU at each precision from the step-time model
of its preset workload (``training.campus_jobs``: the model FLOP/s over the peak of every GPU of its island,
idle ones counted), and its ETTR from the headline (``job_reliability.jobs_reliability``). A typed ``mfu``
overrides the model for every job and precision; a job no preset fits takes the catalog's ``DEFAULT_MFU``.

    effective[p]             = sum over jobs of peak_j[p] x MFU_j[p] x ETTR_j
    effective_synchronous[p] = peak of one synchronous job over every GPU (the slowest model's pace)
                               x the jobs' peak-weighted MFU[p] x the headline ETTR
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from campus.analysis.compute import peak_pflops, synchronous_pflops
from campus.analysis.job_reliability import WHOLE_CAMPUS, declared_jobs, recovery_for_job
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.training.campus_jobs import declared_job_models, job_on_racks
from campus.catalog_data import default_value

PRECISIONS = ("fp8", "bf16", "fp16")
# MFU when no step-time figure is there: the catalog's (SemiAnalysis, 100k H100 clusters, 2024-06: ~40% BF16,
# ~35% FP8)
DEFAULT_MFU = {
    "bf16": default_value("mfu_bf16"),
    "fp16": default_value("mfu_bf16"),
    "fp8": default_value("mfu_fp8"),
}
TYPED = "typed"
MODEL = "step-time model"
CATALOG = "catalog default"


def job_mfu(model: dict | None, mfu: float | None) -> tuple[dict[str, float], str]:
    """A job's MFU at each precision and where it comes from."""
    if mfu is not None:
        return dict.fromkeys(PRECISIONS, mfu), TYPED
    if model is not None and model.get("workload") is not None:
        return {p: model["island_mfu"].get(p, 0.0) for p in PRECISIONS}, MODEL
    return dict(DEFAULT_MFU), CATALOG


def _counts_by_job(snap: CampusSnapshot, jobs: Sequence[dict], skip: Collection[int]) -> list[dict[str, int]]:
    """GPUs by model of each job on the racks not in ``skip`` (racks grouped as ``declared_jobs`` does)."""
    whole = len(jobs) == 1 and jobs[0]["name"] == WHOLE_CAMPUS
    index = {job["pod_id"]: i for i, job in enumerate(jobs)}
    out: list[dict[str, int]] = [{} for _ in jobs]
    for r in snap.racks:
        if r.id in skip:
            continue
        i = 0 if whole else index.get(r.pod_id)
        if i is None:
            continue
        for slug, n in snap.rack_gpus(r).items():
            out[i][slug] = out[i].get(slug, 0) + n
    return out


def _jobs_mfu(
    snap: CampusSnapshot, counts: Sequence[dict[str, int]], models: Sequence[dict], mfu: float | None
) -> tuple[list[dict[str, float]], dict[str, float], str]:
    """Each job's MFU at each precision (``job_mfu``), their mean weighted by each job's peak at that
    precision, and where they come from ("typed", "step-time model", "catalog default" or "mixed")."""
    mfus, sources = [], set()
    for model in models:
        m, source = job_mfu(model, mfu)
        mfus.append(m)
        sources.add(source)
    peaks = [peak_pflops(c, snap.gpus) for c in counts]
    weights = {p: sum(pk.get(p, 0.0) for pk in peaks) for p in PRECISIONS}
    mean = {
        p: sum(pk.get(p, 0.0) * m[p] for pk, m in zip(peaks, mfus, strict=True)) / weights[p]
        if weights[p] > 0
        else (mfus[0][p] if mfus else (mfu if mfu is not None else DEFAULT_MFU[p]))
        for p in PRECISIONS
    }
    source = (
        sources.pop()
        if len(sources) == 1
        else ("mixed" if sources else (TYPED if mfu is not None else CATALOG))
    )
    return mfus, mean, source


def campus_mfu(snap: CampusSnapshot, precision: str, mfu: float | None = None) -> dict:
    """The MFU of the campus's jobs at ``precision`` as the summary gives it (``compute.mfu``: one job per
    island, the step-time model of its preset workload, weighted by the jobs' peak), or ``mfu`` when typed:
    ``{"precision", "mfu", "mfu_source"}``. What the scenario kinds that load the whole campus train at."""
    if mfu is not None:
        return {"precision": precision, "mfu": float(mfu), "mfu_source": TYPED}
    if precision not in PRECISIONS:  # the step-time model knows the tensor-core formats only
        return {"precision": precision, "mfu": DEFAULT_MFU["bf16"], "mfu_source": CATALOG}
    jobs = declared_jobs(snap)
    models = declared_job_models(snap, jobs)
    _, mean, source = _jobs_mfu(snap, _counts_by_job(snap, jobs, ()), models, None)
    return {"precision": precision, "mfu": mean[precision], "mfu_source": source}


def job_figures(
    snap: CampusSnapshot,
    racks: Sequence | None,
    precision: str,
    *,
    gpus: int | None = None,
    mfu: float | None = None,
    checkpoint_minutes: float | None = None,
    restart_minutes: float | None = None,
) -> dict:
    """One synchronous job's MFU at ``precision``, checkpoint write and restart, minutes, each with its
    source: the typed value when given, else the hardware's (``campus_jobs.job_on_racks``: the step-time
    model of the preset workload over ``racks`` (None: every rack), on ``gpus`` of their GPUs; its checkpoint
    against the campus's storage), else the catalog's (``job_mfu``, ``recovery_for_job``). The MFU is over
    every GPU of the job's pools, as ``island_mfu`` (the GPUs the preset's split leaves idle counted)."""
    model = job_on_racks(snap, snap.racks if racks is None else racks, gpus)
    if mfu is None and precision not in PRECISIONS:  # the step-time model knows the tensor-core formats only
        m, source = {precision: DEFAULT_MFU["bf16"]}, CATALOG
    else:
        m, source = job_mfu(model, mfu)
        m.setdefault(precision, m["bf16"])
    rec = recovery_for_job(model["gpus"], checkpoint_minutes, restart_minutes, costs=model["checkpoint"])
    wl = model["workload"]
    return {
        "precision": precision,
        "mfu": m[precision],
        "mfu_source": source,
        **rec,
        "workload": None if wl is None else {k: wl[k] for k in ("model", "parallel", "global_batch", "gpus")},
    }


def effective_compute(
    snap: CampusSnapshot,
    jobs: Sequence[dict],
    models: Sequence[dict],
    headline: dict,
    mfu: float | None,
    down_racks: Collection[int] = (),
) -> dict:
    """The summary's ``compute`` figures that depend on MFU and ETTR: ``mfu`` (the jobs' peak-weighted MFU
    at each precision), ``mfu_source`` ("typed", "step-time model", "catalog default" or "mixed"),
    ``effective_pflops`` (racks down at design left out), ``design_effective_pflops`` and their
    ``_synchronous`` counterparts."""
    ettr_on = bool(snap.failure_rates)
    rows = headline["jobs"]
    by_name = {(r["name"], r["pod_id"]): r for r in rows}
    ettrs = [by_name[(job["name"], job["pod_id"])]["expected_ettr"] if ettr_on else 1.0 for job in jobs]
    design = _counts_by_job(snap, jobs, ())
    running = _counts_by_job(snap, jobs, down_racks) if down_racks else design
    mfus, mean_mfu, source = _jobs_mfu(snap, design, models, mfu)
    ettr = headline["ettr"]

    def figures(counts: list[dict[str, int]]) -> tuple[dict[str, float], dict[str, float]]:
        effective = dict.fromkeys(PRECISIONS, 0.0)
        for c, m, e in zip(counts, mfus, ettrs, strict=True):
            peak = peak_pflops(c, snap.gpus)
            for p in PRECISIONS:
                effective[p] += peak.get(p, 0.0) * m[p] * e
        every: dict[str, int] = {}
        for c in counts:
            for slug, n in c.items():
                every[slug] = every.get(slug, 0) + n
        sync = {
            p: synchronous_pflops(every, snap.gpus, p) * mean_mfu[p] * ettr if sum(every.values()) else 0.0
            for p in PRECISIONS
        }
        return effective, sync

    design_effective, design_sync = figures(design)
    effective, sync = figures(running) if down_racks else (design_effective, design_sync)
    return {
        "mfu": mean_mfu,
        "mfu_source": source,
        "effective_pflops": effective,
        "effective_pflops_synchronous": sync,
        "design_effective_pflops": design_effective,
        "design_effective_pflops_synchronous": design_sync,
    }
