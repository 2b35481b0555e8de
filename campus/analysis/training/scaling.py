"""Scaling efficiency (linearity) against GPU count, and sweeps over parallelism.

A curve grows data parallelism with the model split (TP, PP, CP, EP) kept. ``batch="fixed"`` keeps the
global batch (strong scaling: fewer microbatches per pipeline, a larger bubble and less compute to hide the
data-parallel reduction behind); ``batch="per_replica"`` keeps the batch per data-parallel replica (weak
scaling). Linearity at N GPUs = (tokens/s per GPU at N) / (tokens/s per GPU at the smallest N); the point
says which cost's share of the step grew the most since the first point and which tier it crosses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from campus.analysis.training.cluster import Pool
from campus.analysis.training.steptime import StepTime, step_time
from campus.analysis.training.workload import Workload

BATCH_MODES = ("fixed", "per_replica")


def _scaled_pool(pool: Pool, gpus: int) -> Pool:
    return replace(pool, gpus=gpus)


def _point(st: StepTime) -> dict:
    return {
        "gpus": st.gpus,
        "step_s": st.step_s,
        "mfu": st.mfu,
        "tokens_per_s": st.tokens_per_s,
        "breakdown_s": st.breakdown(),
        "tiers": {k: c.tier for k, c in st.collectives.items()},
        "limiter": st.limiter,
    }


def scaling_curve(
    w: Workload, pool: Pool, gpu_counts: Iterable[int], *, batch: str = "fixed", strict: bool = True, **kw
) -> list[dict]:
    """One point per GPU count (a multiple of tp x pp x cp that the batch can be split over; with
    ``strict=False`` a count that is not is left out instead of refused)."""
    if batch not in BATCH_MODES:
        raise ValueError(f"batch: must be one of {', '.join(BATCH_MODES)}")
    p = w.parallel
    unit = p.tp * p.pp * p.cp
    per_replica = w.global_batch // p.dp
    out: list[dict] = []
    base = None
    for n in sorted(set(gpu_counts)):
        dp = n // unit
        gb = w.global_batch if batch == "fixed" else per_replica * dp
        problem = ""
        if n % unit:
            problem = f"gpu_counts: {n} is not a multiple of tp x pp x cp = {unit}"
        elif gb % (dp * p.microbatch) or gb < dp * p.microbatch:
            problem = f"gpu_counts: a global batch of {gb} cannot be split over {dp} replicas"
        if problem:
            if strict:
                raise ValueError(problem)
            continue
        wn = replace(w, global_batch=gb, parallel=replace(p, dp=dp))
        try:
            st = step_time(wn, [_scaled_pool(pool, n)], **kw)
        except ValueError:
            # a count the model cannot run at (EP over fewer data-parallel ranks, states over fewer shards)
            if strict:
                raise
            continue
        pt = _point(st)
        per_gpu = st.tokens_per_s / n
        shares = {k: v / st.step_s for k, v in st.breakdown().items() if k != "compute"}
        if base is None:
            base = (per_gpu, shares)
        pt["linearity"] = per_gpu / base[0]
        grown = {k: v - base[1].get(k, 0.0) for k, v in shares.items()}
        worst = max(grown, key=grown.get) if grown and max(grown.values()) > 0 else ""
        pt["grew_most"] = worst
        pt["grew_most_tier"] = st.collectives[worst].tier if worst in st.collectives else ""
        out.append(pt)
    return out


def sweep(w: Workload, pool: Pool, points: Sequence[dict], **kw) -> list[dict]:
    """Step time of each parallelism in ``points`` (each a dict of Parallelism fields, and ``gpus``; without
    ``dp``, DP is what the GPUs leave after TP x PP x CP, as for the job itself); a point the GPUs or their
    memory cannot run carries its ``error`` instead."""
    out = []
    for changes in points:
        changes = dict(changes)
        gpus = int(changes.pop("gpus", pool.gpus))
        try:
            wn = w.with_parallel(**changes)
            if "dp" not in changes:
                wn = wn.with_dp_filling(gpus)
            st = step_time(wn, [_scaled_pool(pool, gpus)], **kw)
            out.append({**changes, "dp": wn.parallel.dp, **_point(st)})
        except (ValueError, TypeError) as exc:
            out.append({**changes, "gpus": gpus, "error": str(exc)})
    return out
