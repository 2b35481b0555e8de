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
from campus.analysis.job_reliability import WHOLE_CAMPUS
from campus.analysis.snapshot import CampusSnapshot
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
    mfus, sources = [], set()
    for model in models:
        m, source = job_mfu(model, mfu)
        mfus.append(m)
        sources.add(source)
    ettrs = [by_name[(job["name"], job["pod_id"])]["expected_ettr"] if ettr_on else 1.0 for job in jobs]
    design = _counts_by_job(snap, jobs, ())
    running = _counts_by_job(snap, jobs, down_racks) if down_racks else design
    design_peaks = [peak_pflops(c, snap.gpus) for c in design]
    weights = {p: sum(pk.get(p, 0.0) for pk in design_peaks) for p in PRECISIONS}
    mean_mfu = {
        p: sum(pk.get(p, 0.0) * m[p] for pk, m in zip(design_peaks, mfus, strict=True)) / weights[p]
        if weights[p] > 0
        else (mfus[0][p] if mfus else DEFAULT_MFU[p])
        for p in PRECISIONS
    }
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
        "mfu_source": sources.pop() if len(sources) == 1 else ("mixed" if sources else CATALOG),
        "effective_pflops": effective,
        "effective_pflops_synchronous": sync,
        "design_effective_pflops": design_effective,
        "design_effective_pflops_synchronous": design_sync,
    }
