"""Reliability of the jobs a campus runs: the headline's ETTR for a declared set of jobs.

One synchronous job over every GPU of a large campus fails every few minutes (job MTTF falls as 1/GPUs,
Kokolis et al., arXiv 2410.21680), so its ETTR says little about what the campus gives the jobs it is
built for: a 1.2 GW campus came out at ETTR 0.019 that way. The headline takes instead a declared set
of jobs, by default one job per island (a pod of the back-end fabric: the GPUs one fat tree joins at
full bandwidth, where a large job is placed), and reports each job's failure rate, Daly-optimal
checkpoint interval and ETTR (``reliability.ettr_checkpoint``), and the GPU-weighted ETTR of the set,
by which the summary's effective compute is multiplied. The campus-wide job is kept beside it, labelled
as such.

Recovery (checkpoint write and restart time) comes through one adapter, :func:`recovery_for_job`: the
values typed for the request when there are any; else the job's checkpoint model from the inventory
(``training.campus_jobs``: its preset workload's state against the campus's storage system, the front-end
fabric and the nodes' front-end ports); for the checkpoint, the job's state over its write bandwidth when
both are known; else the catalog's defaults (checkpoint write 5 min, restart 10 min: Kokolis et al. 2024).
"""

from __future__ import annotations

from campus.analysis.reliability import (
    HOURS_PER_DAY,
    PER_MODEL,
    checkpoint_regime,
    daly_interval_hours,
    ettr_checkpoint,
    failures_per_hour,
    model_rate_sets,
    select_rates,
)
from campus.analysis.snapshot import CampusSnapshot
from campus.catalog_data import default_value

ISLANDS = "islands"
CAMPUS = "campus"
JOB_SETS = (ISLANDS, CAMPUS)
WHOLE_CAMPUS = "the whole campus"  # the name of the one job of the ``campus`` set
# below this ETTR the headline says in words why (a job this large spends most of its time recovering)
LOW_ETTR = 0.5


def recovery_for_job(
    gpus: int,
    checkpoint_minutes: float | None = None,
    restart_minutes: float | None = None,
    state_bytes: float | None = None,
    write_bytes_per_s: float | None = None,
    costs: dict | None = None,
) -> dict:
    """Checkpoint write and restart time of a job of ``gpus`` GPUs, minutes, and where each comes from:
    the typed value when given; else the job's checkpoint model from the hardware when given (``costs``:
    ``campus.analysis.training.recovery.checkpoint_costs``, its blocking write and its restart = launch +
    restore); else, for the checkpoint, the job's state over the bandwidth it is written at when both are
    known; else the catalog's default."""
    out: dict = {"gpus": gpus}
    catalog = "catalog default (Kokolis et al. 2024)"
    hardware = "checkpoint model (state over storage and front-end bandwidth)"
    if checkpoint_minutes is not None:
        out.update(checkpoint_minutes=float(checkpoint_minutes), checkpoint_minutes_source="typed")
    elif costs is not None:
        out.update(checkpoint_minutes=costs["checkpoint_write_s"] / 60.0, checkpoint_minutes_source=hardware)
    elif state_bytes is not None and write_bytes_per_s:
        out.update(
            checkpoint_minutes=state_bytes / write_bytes_per_s / 60.0,
            checkpoint_minutes_source="state / write bandwidth",
        )
    else:
        out.update(
            checkpoint_minutes=float(default_value("checkpoint_write_minutes")),
            checkpoint_minutes_source=catalog,
        )
    if restart_minutes is not None:
        out.update(restart_minutes=float(restart_minutes), restart_minutes_source="typed")
    elif costs is not None:
        out.update(restart_minutes=costs["restart_s"] / 60.0, restart_minutes_source=hardware)
    else:
        out.update(restart_minutes=float(default_value("restart_minutes")), restart_minutes_source=catalog)
    return out


def declared_jobs(snap: CampusSnapshot, jobs: str = ISLANDS) -> list[dict]:
    """The jobs of ``jobs``: one per island (racks of one pod; racks in no pod make one more job), or
    the campus as one job. Each: name, pod id (None), and GPUs and nodes per GPU model."""
    if jobs not in JOB_SETS:
        raise ValueError(f"jobs: must be one of {', '.join(JOB_SETS)}")
    names = {p.id: p.name for p in snap.pods}
    groups: dict[int | None, dict[str, dict[str, int]]] = {}
    for r in snap.racks:
        key = r.pod_id if jobs == ISLANDS else None
        models = groups.setdefault(key, {})
        for slug, count in r.nodes:
            if count <= 0:
                continue
            spec = snap.node_models[slug]
            row = models.setdefault(spec.gpu, {"gpu": 0, "node": 0})
            row["gpu"] += count * spec.gpus_per_node
            row["node"] += count
    out = []
    for key in sorted(groups, key=lambda k: (k is None, k or 0)):
        models = groups[key]
        if not models:
            continue
        if jobs == CAMPUS:
            name = WHOLE_CAMPUS
        elif key is None:
            name = "racks in no island"
        else:
            name = names.get(key, f"island {key}")
        out.append({"name": name, "pod_id": key, "by_model": models})
    return out


def job_reliability(
    snap: CampusSnapshot,
    by_model: dict[str, dict[str, int]],
    dataset: str = PER_MODEL,
    checkpoint_minutes: float | None = None,
    restart_minutes: float | None = None,
    state_bytes: float | None = None,
    write_bytes_per_s: float | None = None,
    costs: dict | None = None,
) -> dict:
    """One synchronous job on the GPUs and nodes ``by_model`` ({gpu slug: {"gpu", "node"}}): its failure
    rate (each model's own job set, or ``dataset`` for all), recovery, Daly interval and exact ETTR."""
    sets = model_rate_sets(snap, dataset)
    gpus = sum(m["gpu"] for m in by_model.values())
    lam = 0.0
    for slug, counts in by_model.items():
        ds = sets.get(slug, {}).get("dataset")
        if ds:
            lam += failures_per_hour(
                select_rates(snap.failure_rates, ds, include_infrastructure=False), counts
            )
    rec = recovery_for_job(gpus, checkpoint_minutes, restart_minutes, state_bytes, write_bytes_per_s, costs)
    out = {
        **rec,
        "nodes": sum(m["node"] for m in by_model.values()),
        "gpus_by_model": {slug: m["gpu"] for slug, m in sorted(by_model.items())},
        "job_failures_per_day": lam * HOURS_PER_DAY,
        "job_mttf_hours": None,
        "optimal_checkpoint_minutes": None,
        "checkpoint_regime": None,
        "expected_ettr": 1.0,
    }
    if lam <= 0:
        return out
    mttf = 1.0 / lam
    d, r = rec["checkpoint_minutes"] / 60.0, rec["restart_minutes"] / 60.0
    tau = daly_interval_hours(d, mttf)
    out.update(
        job_mttf_hours=mttf,
        optimal_checkpoint_minutes=tau * 60.0,
        checkpoint_regime=checkpoint_regime(d, mttf),
        expected_ettr=ettr_checkpoint(tau, d, r, mttf),
    )
    return out


def jobs_reliability(
    snap: CampusSnapshot,
    dataset: str = PER_MODEL,
    checkpoint_minutes: float | None = None,
    restart_minutes: float | None = None,
    jobs: str = ISLANDS,
    models: list[dict] | None = None,
) -> dict:
    """The headline's reliability (JSON-ready): every job of the declared set, the GPU-weighted ETTR of
    the set (``ettr``, 1.0 without GPUs or failure rates), what the set is (``basis``) and, when the
    ETTR is low, a sentence saying why (``note``). ``models``: each declared job's training model
    (``training.campus_jobs.declared_job_models``, in ``declared_jobs`` order): its checkpoint costs are
    the job's recovery where nothing is typed, and its workload is reported with the job (``training``)."""
    rows = []
    declared = declared_jobs(snap, jobs)
    for i, job in enumerate(declared):
        model = models[i] if models is not None else None
        costs = model["checkpoint"] if model is not None else None
        row = job_reliability(
            snap, job["by_model"], dataset, checkpoint_minutes, restart_minutes, costs=costs
        )
        if model is not None:
            row["training"] = training_row(model)
        rows.append({"name": job["name"], "pod_id": job["pod_id"], **row})
    gpus = sum(r["gpus"] for r in rows)
    ettr = sum(r["gpus"] * r["expected_ettr"] for r in rows) / gpus if gpus and snap.failure_rates else 1.0
    basis = (
        f"one synchronous job per island ({len(rows)} jobs)"
        if jobs == ISLANDS
        else "one synchronous job over every GPU of the campus"
    )
    note = None
    if gpus and ettr < LOW_ETTR:
        worst = min(rows, key=lambda r: r["expected_ettr"])
        mttf = worst["job_mttf_hours"]
        note = (
            f"ETTR {ettr:.2f}: a synchronous job of {worst['gpus']:,} GPUs ({worst['name']}) is interrupted "
            f"every {mttf * 60:.0f} min on average, against a {worst['checkpoint_minutes']:g}-min checkpoint "
            f"and a {worst['restart_minutes']:g}-min restart; smaller jobs, faster checkpoints or in-memory "
            "recovery raise it."
        )
    return {"jobs": rows, "basis": basis, "job_set": jobs, "ettr": ettr, "note": note}


def training_row(model: dict) -> dict:
    """What the headline shows of a job's training model: its workload (None: no preset fits), its MFU at
    each precision, and its checkpoint's write and restore bounds."""
    ck = model["checkpoint"]
    return {
        "workload": model["workload"],
        "mfu": model["mfu"],
        "island_mfu": model["island_mfu"],
        "checkpoint": None
        if ck is None
        else {
            k: ck.get(k)
            for k in (
                "storage",
                "checkpoint_bytes",
                "checkpoint_write_s",
                "write_alone_s",
                "storage_jobs",
                "write_bound",
                "write_gb_s",
                "restore_s",
                "restore_bound",
                "restore_gb_s",
                "restart_s",
                "frontend_fabric_gb_s",
            )
        },
    }
