"""The calculators behind ``POST /api/calculators/<name>/``: keyword arguments in, a JSON-ready dict out.

Every invalid input raises ``ValueError`` whose message starts with the field name ("mtbf_hours: must
be > 0"), which the API turns into a 400 naming the field.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

from campus.analysis.catalog import catalog_specs
from campus.analysis.compute import (
    PARTITIONS,
    PRECISIONS,
    SECONDS_PER_DAY,
    gpus_by_model,
    pace_model,
    peak_pflops,
    synchronous_pflops,
)
from campus.analysis.job_reliability import jobs_reliability
from campus.analysis.reliability import (
    checkpoint_regime,
    daly_interval_hours,
    effective_restart_hours,
    ettr_checkpoint,
    ettr_in_memory,
    first_failure_minutes,
    job_mttf_hours,
    lost_fraction_checkpoint,
    lost_gpu_hours_per_failure,
    reconstruction_seconds,
    young_interval_hours,
)
from campus.analysis.snapshot import CampusSnapshot, GpuSpec


def _number(name: str, value: Any, *, positive: bool = False, allow_zero: bool = True) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name}: must be a number")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a number") from None
    if not math.isfinite(x):
        raise ValueError(f"{name}: must be finite")
    if positive and x <= 0:
        raise ValueError(f"{name}: must be > 0")
    if not allow_zero and x == 0:
        raise ValueError(f"{name}: must not be 0")
    if x < 0:
        raise ValueError(f"{name}: must be >= 0")
    return x


def _integer(name: str, value: Any) -> int:
    x = _number(name, value, positive=True)
    if x != int(x):
        raise ValueError(f"{name}: must be a whole number")
    return int(x)


def _only(kwargs: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(kwargs) - allowed)
    if extra:
        raise ValueError(f"{extra[0]}: unknown parameter (expected one of {', '.join(sorted(allowed))})")


def training_time(
    flops: Any = None,
    gpus: Any = None,
    gpu_model: GpuSpec | str | None = None,
    precision: str = "bf16",
    mfu: Any = 0.4,
    ettr: Any = None,
    snapshot: CampusSnapshot | None = None,
    gpus_by_model_: Mapping[str, int] | None = None,
    specs: Mapping[str, GpuSpec] | None = None,
    partition: str = "synchronous",
) -> dict:
    """Days to train ``flops`` FLOPs on ``gpus`` x ``gpu_model`` (or on every GPU of ``snapshot``).

    ``gpu_model`` is a ``GpuSpec`` or a slug looked up in ``specs`` (default: the catalog). A job over
    several models is timed both ways (``campus.analysis.compute``): ``days_synchronous`` with every GPU
    at the pace of ``pace_gpu_model`` (None when that model lacks the precision), ``days_by_speed`` with
    the work split by speed; ``days`` is the one ``partition`` names.

    ``ettr`` left out: with ``snapshot``, the campus's headline ETTR (the summary's ``compute.ettr``: one
    synchronous job per island, each at its failure rate with the catalog's checkpoint and restart at the
    Daly interval, weighted by GPUs; ``job_reliability.jobs_reliability``), 1.0 when the campus has no
    failure rates; without, 1.0 (no time lost to failures).
    ``ettr_source`` says which: "given", "campus" or "default"."""
    if flops is None:
        raise ValueError("flops: required")
    total = _number("flops", flops, positive=True)
    mfu_v = _number("mfu", mfu, positive=True)
    ettr_source = "given" if ettr is not None else "default"
    if ettr is None:
        ettr = 1.0
        if snapshot is not None and snapshot.failure_rates and any(gpus_by_model(snapshot).values()):
            ettr, ettr_source = jobs_reliability(snapshot)["ettr"], "campus"
    ettr_v = _number("ettr", ettr, positive=True)
    if mfu_v > 1:
        raise ValueError("mfu: must be <= 1")
    if ettr_v > 1:
        raise ValueError("ettr: must be <= 1")
    if precision not in PRECISIONS:
        raise ValueError(f"precision: must be one of {', '.join(PRECISIONS)}")
    if partition not in PARTITIONS:
        raise ValueError(f"partition: must be one of {', '.join(PARTITIONS)}")
    if snapshot is not None:
        counts, table = gpus_by_model(snapshot), snapshot.gpus
    elif gpus_by_model_ is not None:
        if specs is None:
            raise ValueError("specs: required with gpus_by_model")
        counts, table = dict(gpus_by_model_), specs
        if not any(counts.values()):
            raise ValueError("gpus_by_model: no GPUs given")
    else:
        if gpu_model is None:
            raise ValueError("gpu_model: required")
        if gpus is None:
            raise ValueError("gpus: required")
        if isinstance(gpu_model, str):
            known = specs if specs is not None else catalog_specs()["gpus"]
            if gpu_model not in known:
                raise ValueError(f"gpu_model: unknown GPU model {gpu_model!r}")
            gpu_model = known[gpu_model]
        counts, table = {gpu_model.slug: _integer("gpus", gpus)}, {gpu_model.slug: gpu_model}
    peak = peak_pflops(counts, table)[precision]
    if peak <= 0:
        raise ValueError(f"precision: no GPU in the set supports {precision}")
    pace_slug, pace_tflops = pace_model(counts, table, precision)
    sync_peak = synchronous_pflops(counts, table, precision)

    def days_at(peak_pf: float) -> float | None:
        return total / (peak_pf * 1e15 * mfu_v * ettr_v) / SECONDS_PER_DAY if peak_pf > 0 else None

    days_sync, days_speed = days_at(sync_peak), days_at(peak)
    if partition == "synchronous" and days_sync is None:
        raise ValueError(
            f"precision: {pace_slug} has no {precision}, so a synchronous job cannot use it "
            "(choose another precision or partition by_speed)"
        )
    chosen_peak = sync_peak if partition == "synchronous" else peak
    days = days_sync if partition == "synchronous" else days_speed
    return {
        "days": days,
        "hours": days * 24.0,
        "partition": partition,
        "days_synchronous": days_sync,
        "days_by_speed": days_speed,
        "pace_gpu_model": pace_slug,
        "pace_tflops": pace_tflops,
        "gpus": sum(counts.values()),
        "gpus_by_model": counts,
        "precision": precision,
        "peak_pflops": peak,
        "effective_pflops": chosen_peak * mfu_v * ettr_v,
        "mfu": mfu_v,
        "ettr": ettr_v,
        "ettr_source": ettr_source,
    }


def job_mttf(**kwargs: Any) -> dict:
    """Job MTTF, hours, from ``nodes`` (or ``gpus`` / ``gpus_per_node``) and ``failures_per_1000_node_days``,
    or from ``rates`` = [{per, mtbf_hours[, interrupts_job]}] applied to gpus and nodes."""
    _only(kwargs, {"nodes", "gpus", "gpus_per_node", "failures_per_1000_node_days", "rates"})
    kwargs = {k: v for k, v in kwargs.items() if v is not None}  # a null field counts as absent
    gpn = _integer("gpus_per_node", kwargs.get("gpus_per_node", 8))
    nodes = kwargs.get("nodes")
    gpus = kwargs.get("gpus")
    if nodes is None and gpus is None:
        raise ValueError("nodes: give nodes or gpus")
    n_nodes = _integer("nodes", nodes) if nodes is not None else math.ceil(_integer("gpus", gpus) / gpn)
    n_gpus = _integer("gpus", gpus) if gpus is not None else n_nodes * gpn
    rates = kwargs.get("rates")
    if rates is not None:
        if not isinstance(rates, list | tuple) or not rates:
            raise ValueError("rates: must be a non-empty list")
        counts = {"gpu": n_gpus, "node": n_nodes}
        lam = 0.0
        for i, row in enumerate(rates):
            if not isinstance(row, Mapping):
                raise ValueError(f"rates: item {i} must be an object")
            per = row.get("per", "node")
            if per not in counts:
                raise ValueError(f"rates: item {i} per must be 'gpu' or 'node'")
            if not row.get("interrupts_job", True):
                continue
            lam += counts[per] / _number("mtbf_hours", row.get("mtbf_hours"), positive=True)
        if lam <= 0:
            raise ValueError("rates: no job-interrupting rate given")
        hours = 1.0 / lam
    else:
        rate = kwargs.get("failures_per_1000_node_days")
        if rate is None:
            raise ValueError("failures_per_1000_node_days: required (or rates)")
        hours = job_mttf_hours(n_nodes, _number("failures_per_1000_node_days", rate, positive=True))
    return {"hours": hours, "minutes": hours * 60.0, "nodes": n_nodes, "gpus": n_gpus}


def first_failure(components: Any = None) -> dict:
    """Minutes to the first failure among ``components`` = [{count, mtbf_hours}, ...]."""
    if not isinstance(components, list | tuple) or not components:
        raise ValueError("components: must be a non-empty list of {count, mtbf_hours}")
    pairs = []
    for i, row in enumerate(components):
        if not isinstance(row, Mapping):
            raise ValueError(f"components: item {i} must be an object")
        pairs.append(
            (_number("count", row.get("count")), _number("mtbf_hours", row.get("mtbf_hours"), positive=True))
        )
    minutes = first_failure_minutes(pairs)
    return {"minutes": minutes, "hours": minutes / 60.0, "failures_per_day": 1440.0 / minutes}


def checkpoint_interval(
    mtbf_hours: Any = None,
    checkpoint_minutes: Any = None,
    restart_minutes: Any = 0.0,
    failures_during_recovery: Any = True,
) -> dict:
    """Young and Daly optimum intervals (minutes) and the expected ETTR at each (exact exponential model;
    ``failures_during_recovery`` False: the failure clock stops while the job restarts,
    ``reliability.ettr_checkpoint``).

    ``regime`` names Daly's case: "daly" (δ < 2M) or "interval-equals-mttf" (δ ≥ 2M, where Daly's
    optimum is τ = M); Young's √(2δM) is first order and far off once δ is not small against M."""
    if mtbf_hours is None:
        raise ValueError("mtbf_hours: required")
    if checkpoint_minutes is None:
        raise ValueError("checkpoint_minutes: required")
    m = _number("mtbf_hours", mtbf_hours, positive=True)
    d = _number("checkpoint_minutes", checkpoint_minutes, positive=True) / 60.0
    r = _number("restart_minutes", 0.0 if restart_minutes is None else restart_minutes) / 60.0
    if not isinstance(failures_during_recovery, bool):
        raise ValueError("failures_during_recovery: must be true or false")
    during = failures_during_recovery
    young = young_interval_hours(d, m)
    daly = daly_interval_hours(d, m)
    return {
        "young_minutes": young * 60.0,
        "daly_minutes": daly * 60.0,
        "expected_ettr": ettr_checkpoint(daly, d, r, m, failures_during_recovery=during),
        "expected_ettr_young": ettr_checkpoint(young, d, r, m, failures_during_recovery=during),
        "expected_ettr_first_order": ettr_checkpoint(daly, d, r, m, exact=False),
        "regime": checkpoint_regime(d, m),
        "lost_fraction": lost_fraction_checkpoint(daly, d, r, m, failures_during_recovery=during),
    }


def recovery_options(
    mtbf_hours: Any = None,
    checkpoint_minutes: Any = None,
    restart_minutes: Any = 10.0,
    step_seconds: Any = None,
    memory_gb: Any = 80.0,
    link_gbps: Any = 400.0,
    gpus: Any = None,
    spares: Any = 0,
    repair_hours: Any = 48.0,
    node_failures_per_hour: Any = 0.0,
) -> dict:
    """Checkpoint/restart at the Daly interval against in-memory reconstruction, for a job of ``gpus``
    with job MTBF ``mtbf_hours``; hot ``spares`` hide ``repair_hours`` while they last."""
    if mtbf_hours is None:
        raise ValueError("mtbf_hours: required")
    if checkpoint_minutes is None:
        raise ValueError("checkpoint_minutes: required")
    if step_seconds is None:
        raise ValueError("step_seconds: required")
    if gpus is None:
        raise ValueError("gpus: required")
    m = _number("mtbf_hours", mtbf_hours, positive=True)
    d = _number("checkpoint_minutes", checkpoint_minutes, positive=True) / 60.0
    n_gpus = _integer("gpus", gpus)
    n_spares = int(_number("spares", spares))
    restart_h = effective_restart_hours(
        _number("restart_minutes", restart_minutes) / 60.0,
        _number("repair_hours", repair_hours),
        n_spares,
        _number("node_failures_per_hour", node_failures_per_hour),
    )
    tau = daly_interval_hours(d, m)
    copy_s = reconstruction_seconds(
        _number("memory_gb", memory_gb), _number("link_gbps", link_gbps, positive=True)
    )
    step_s = _number("step_seconds", step_seconds, positive=True)
    in_memory_loss_h = (step_s + copy_s) / 3600.0
    # each model's lost GPU-hours per day is gpus x 24 x its lost fraction, so never more than gpus x 24
    in_memory_ettr = ettr_in_memory(m, step_s, copy_s, restart_h)
    return {
        "effective_restart_minutes": restart_h * 60.0,
        "checkpoint_restart": {
            "interval_minutes": tau * 60.0,
            "expected_ettr": ettr_checkpoint(tau, d, restart_h, m),
            "lost_gpu_hours_per_failure": lost_gpu_hours_per_failure(n_gpus, tau, d, restart_h, mtbf_hours=m),
            "lost_gpu_hours_per_day": n_gpus * 24.0 * lost_fraction_checkpoint(tau, d, restart_h, m),
            "regime": checkpoint_regime(d, m),
        },
        "in_memory": {
            "reconstruction_seconds": copy_s,
            "expected_ettr": in_memory_ettr,
            "lost_gpu_hours_per_failure": lost_gpu_hours_per_failure(
                n_gpus, tau, d, restart_h, in_memory_loss_hours=in_memory_loss_h
            ),
            "lost_gpu_hours_per_day": n_gpus * 24.0 * (1.0 - in_memory_ettr),
        },
    }


CALCULATORS: dict[str, Callable[..., dict]] = {
    "training-time": training_time,
    "job-mttf": job_mttf,
    "first-failure": first_failure,
    "checkpoint-interval": checkpoint_interval,
    "recovery-options": recovery_options,
}


def run_calculator(name: str, params: Mapping[str, Any]) -> dict:
    """Look up and run a calculator; unknown names and unknown parameters raise ValueError."""
    fn = CALCULATORS.get(name)
    if fn is None:
        raise ValueError(f"name: unknown calculator {name!r}; known: {', '.join(CALCULATORS)}")
    if name == "training-time":
        allowed = {
            "flops",
            "gpus",
            "gpu_model",
            "precision",
            "mfu",
            "ettr",
            "snapshot",
            "gpus_by_model",
            "specs",
            "partition",
        }
        _only(params, allowed)
        kw = dict(params)
        if "gpus_by_model" in kw:
            kw["gpus_by_model_"] = kw.pop("gpus_by_model")
        return fn(**kw)
    if name == "job-mttf":
        return fn(**params)
    _only(params, set(inspect.signature(fn).parameters))
    return fn(**params)
