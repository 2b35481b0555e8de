"""Failure rates, job MTTF, checkpoint intervals and the effective training time ratio (ETTR).

Failures are a Poisson process: n independent units of MTBF m fail at n/m per hour, rates add, and
the expected time to the first failure is 1 / total rate. A synchronous job stops on any failure of a
component class that ``interrupts_job``.

Failure-rate data sets belong to a definition of "failure". A job set ("llama3-2024",
"meta-rsc1-2024", ...) counts job interruptions; "infrastructure-estimates" adds facility classes that
no job set covers; the component-level "optics-component" set overlaps the job sets' network
category and is never added to one.

Each GPU model carries the job set of its generation and vendor (``GpuSpec.failure_rate_set``): H100
the Llama 3 log, A100 the RSC-1 log, the rest flagged estimates. With ``dataset=PER_MODEL`` (the
default) a campus's GPUs and nodes of each model are charged that model's own rates; a model without a
set of its own falls back to the default set and says so (``fallback``). Naming a data set applies it
to every GPU, as a what-if.

Checkpoint/restart (Daly, "A higher order estimate of the optimum checkpoint interval for restart
dumps", FGCS 22, 2006), with checkpoint cost δ, restart time R, job MTBF M and interval τ:
  Young:  τ = √(2δM)
  Daly:   τ = √(2δM)·[1 + ⅓√(δ/(2M)) + (1/9)(δ/(2M))] − δ   for δ < 2M, else τ = M
  ETTR (exact, exponential failures): τ / (M·e^{R/M}·(e^{(τ+δ)/M} − 1))
  ETTR (first order): 1 − δ/τ − (τ/2 + R)/M   (waste = checkpointing + half an interval redone + restart)
  Lost fraction (work redone + restarts): 1 − ETTR·(τ+δ)/τ, in [0, 1]; per failure M times that.
Daly's segment of τ of work and δ of writing takes T = M·e^{R/M}·(e^{(τ+δ)/M} − 1) of wall time on average;
τ of it is useful, δ goes to the checkpoint that commits it, and the rest is lost to failures. When
failures come about as fast as a checkpoint plus a restart (M ≲ δ + R) T grows as e^{(τ+δ+R)/M}, the ETTR
goes to 0 and nearly every GPU-hour is lost: the first-order loss per failure ((τ+δ)/2 + R) no longer
holds there (it would count more GPU-hours lost than exist). For δ ≥ 2M Daly's optimum is τ = M.
In-memory reconstruction loses about one step plus the copy from peers per failure instead of τ/2.
Hot spares hide the repair time while they last; the chance they run out is the Poisson tail of the
number of nodes in repair (mean = node failure rate x repair time).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from campus.analysis.snapshot import CampusSnapshot, FailureRate

DEFAULT_JOB_DATASET = "llama3-2024"
PER_MODEL = "per-model"  # each GPU model with the job set of its own generation
INFRASTRUCTURE_DATASET = "infrastructure-estimates"
COMPONENT_DATASETS = frozenset({"optics-component"})
HOURS_PER_DAY = 24.0


def _positive(name: str, value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name}: must be > 0")


def _non_negative(name: str, value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name}: must be >= 0")


def _fraction(name: str, value: float) -> None:
    if not (isinstance(value, int | float) and 0.0 <= value < 1.0):
        raise ValueError(f"{name}: must be >= 0 and < 1")


# ---------------------------------------------------------------- rates


def select_rates(
    rates: Iterable[FailureRate], dataset: str = DEFAULT_JOB_DATASET, include_infrastructure: bool = True
) -> list[FailureRate]:
    """The rows of one data set, plus the facility classes for a job set (never the component set)."""
    rows = list(rates)
    known = {r.dataset for r in rows}
    if dataset not in known:
        raise ValueError(f"dataset: unknown failure-rate set {dataset!r}; known: {', '.join(sorted(known))}")
    chosen = [r for r in rows if r.dataset == dataset]
    if include_infrastructure and dataset not in COMPONENT_DATASETS and dataset != INFRASTRUCTURE_DATASET:
        chosen += [r for r in rows if r.dataset == INFRASTRUCTURE_DATASET]
    return chosen


def failures_per_hour(
    rates: Iterable[FailureRate], counts: Mapping[str, float], job_only: bool = True
) -> float:
    """Sum of count/MTBF over the classes; ``counts`` maps a unit ("gpu", "node", "link", ...) to how many.

    Classes whose unit is not in ``counts`` are left out; with ``job_only`` only job-interrupting ones count.
    """
    total = 0.0
    for r in rates:
        if job_only and not r.interrupts_job:
            continue
        n = counts.get(r.per)
        if not n:
            continue
        _positive("mtbf_hours", r.mtbf_hours)
        total += n / r.mtbf_hours
    return total


def job_mttf_hours(
    nodes: int | None = None,
    failures_per_1000_node_days: float | None = None,
    *,
    rates: Iterable[FailureRate] | None = None,
    counts: Mapping[str, float] | None = None,
) -> float:
    """Mean time to a job-interrupting failure, hours.

    Either ``nodes`` x ``failures_per_1000_node_days`` (Kokolis et al., arXiv 2410.21680: MTTF falls as
    1/(nodes x rate)), or per-class ``rates`` applied to ``counts`` of units.
    """
    if rates is not None:
        if counts is None:
            raise ValueError("counts: required with rates")
        lam = failures_per_hour(rates, counts)
        if lam <= 0:
            raise ValueError("rates: no job-interrupting class applies to the counts given")
        return 1.0 / lam
    if nodes is None:
        raise ValueError("nodes: required (or rates with counts)")
    if failures_per_1000_node_days is None:
        raise ValueError("failures_per_1000_node_days: required with nodes")
    _positive("nodes", nodes)
    _positive("failures_per_1000_node_days", failures_per_1000_node_days)
    return 1000.0 * HOURS_PER_DAY / (nodes * failures_per_1000_node_days)


def first_failure_minutes(components: Sequence[tuple[float, float]]) -> float:
    """Expected minutes to the first failure among ``components`` = [(count, mtbf_hours), ...]."""
    if not components:
        raise ValueError("components: must not be empty")
    lam = 0.0
    inf = math.inf
    for count, mtbf in components:
        # floats in range (every link bundle of a large campus) skip the checks' calls
        if not (type(count) is float and type(mtbf) is float and 0.0 <= count < inf and 0.0 < mtbf < inf):
            _non_negative("count", count)
            _positive("mtbf_hours", mtbf)
        lam += count / mtbf
    if lam <= 0:
        raise ValueError("count: at least one component must have count > 0")
    return 60.0 / lam


# ---------------------------------------------------------------- checkpointing


def young_interval_hours(checkpoint_hours: float, mtbf_hours: float) -> float:
    """Young (1974): τ = √(2δM)."""
    _positive("checkpoint_hours", checkpoint_hours)
    _positive("mtbf_hours", mtbf_hours)
    return math.sqrt(2.0 * checkpoint_hours * mtbf_hours)


def daly_interval_hours(checkpoint_hours: float, mtbf_hours: float) -> float:
    """Daly (FGCS 2006) higher-order optimum: √(2δM)[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ for δ < 2M, else M."""
    _positive("checkpoint_hours", checkpoint_hours)
    _positive("mtbf_hours", mtbf_hours)
    d, m = checkpoint_hours, mtbf_hours
    if d >= 2.0 * m:
        return m
    x = d / (2.0 * m)
    return math.sqrt(2.0 * d * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - d


def ettr_checkpoint(
    interval_hours: float,
    checkpoint_hours: float,
    restart_hours: float,
    mtbf_hours: float,
    exact: bool = True,
    failures_during_recovery: bool = True,
) -> float:
    """Expected fraction of wall time spent on useful work under checkpoint/restart.

    exact: Daly's exponential model τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)), failures striking during the
    restart too (each starts it again); with ``failures_during_recovery`` False the failure clock stops
    while the job restarts, so each of the e^{(τ+δ)/M} − 1 failures per committed segment adds R:
    τ / ((e^{(τ+δ)/M} − 1)(M + R)). Else the first-order 1 − δ/τ − (τ/2 + R)/M, floored at 0.
    """
    _positive("interval_hours", interval_hours)
    _non_negative("checkpoint_hours", checkpoint_hours)
    _non_negative("restart_hours", restart_hours)
    _positive("mtbf_hours", mtbf_hours)
    t, d, r, m = interval_hours, checkpoint_hours, restart_hours, mtbf_hours
    if exact:
        # expm1 keeps precision when (τ+δ) << M; when failures are frequent (R/M or (τ+δ)/M in the
        # hundreds) the denominator overflows a float, so the ratio is taken in logarithms and the
        # ETTR underflows to 0 instead. It is ≤ 1 since e^x − 1 ≥ x.
        a = (t + d) / m
        restart_factor = r / m if failures_during_recovery else 0.0  # log of the restart's factor
        if not failures_during_recovery and a < 300.0:
            return min(1.0, t / (math.expm1(a) * (m + r)))
        if a < 300.0 and r / m < 300.0:
            return min(1.0, t / (m * math.exp(r / m) * math.expm1(a)))
        log_expm1 = math.log(math.expm1(a)) if a < 30.0 else a + math.log1p(-math.exp(-a))
        if not failures_during_recovery:
            restart_factor = math.log1p(r / m)
        log_ratio = math.log(t / m) - restart_factor - log_expm1
        return min(1.0, math.exp(log_ratio)) if log_ratio > -745.0 else 0.0
    return max(0.0, 1.0 - d / t - (t / 2.0 + r) / m)


def ettr_in_memory(
    mtbf_hours: float,
    step_seconds: float,
    reconstruction_seconds: float,
    restart_hours: float,
    lost_steps: float = 1.0,
    overhead_fraction: float = 0.0,
) -> float:
    """ETTR when a failed member is rebuilt from peers' memory: each failure costs ``lost_steps`` steps,
    the copy and the restart; ``overhead_fraction`` is the steady cost of keeping the in-memory copies.
    ETTR = (1 − overhead) · M / (M + loss)."""
    _positive("mtbf_hours", mtbf_hours)
    _positive("step_seconds", step_seconds)
    _non_negative("reconstruction_seconds", reconstruction_seconds)
    _non_negative("restart_hours", restart_hours)
    _non_negative("lost_steps", lost_steps)
    _fraction("overhead_fraction", overhead_fraction)
    loss_h = (lost_steps * step_seconds + reconstruction_seconds) / 3600.0 + restart_hours
    return (1.0 - overhead_fraction) * mtbf_hours / (mtbf_hours + loss_h)


def reconstruction_seconds(memory_gb: float, link_gbps: float) -> float:
    """Time to copy a GPU's state from a peer: GB x 8 / Gb/s (80 GB over 400 Gb/s = 1.6 s)."""
    _non_negative("memory_gb", memory_gb)
    _positive("link_gbps", link_gbps)
    return memory_gb * 8.0 / link_gbps


def spare_shortfall_probability(failures_per_hour_: float, repair_hours: float, spares: int) -> float:
    """P(more units in repair than spares): Poisson tail with mean = failure rate x repair time."""
    _non_negative("failures_per_hour", failures_per_hour_)
    _non_negative("repair_hours", repair_hours)
    if not isinstance(spares, int) or spares < 0:
        raise ValueError("spares: must be an integer >= 0")
    mean = failures_per_hour_ * repair_hours
    if mean == 0:
        return 0.0
    term = math.exp(-mean)
    cdf = term
    for k in range(1, spares + 1):
        term *= mean / k
        cdf += term
        if k > mean and term < 1e-18 * cdf:
            break  # past the mode the terms only shrink: the rest cannot change 1 - cdf in a double
    return max(0.0, 1.0 - cdf)


def effective_restart_hours(
    restart_hours: float, repair_hours: float, spares: int, node_failures_per_hour: float
) -> float:
    """Restart time per failure when a failed node must be replaced: with a spare it is swapped in and
    only ``restart_hours`` is lost; when spares have run out the job also waits ``repair_hours``."""
    _non_negative("restart_hours", restart_hours)
    short = spare_shortfall_probability(node_failures_per_hour, repair_hours, spares)
    return restart_hours + short * repair_hours


def lost_fraction_checkpoint(
    interval_hours: float,
    checkpoint_hours: float,
    restart_hours: float,
    mtbf_hours: float,
    failures_during_recovery: bool = True,
) -> float:
    """Fraction of wall time lost to failures (work redone and restarts) under checkpoint/restart, in
    Daly's exponential model: 1 − ETTR·(τ+δ)/τ. It excludes the checkpoints that commit work (as the
    failure-cascade scenario's ``lost_gpu_hours`` does) and lies in [0, 1]; it tends to 1 when failures
    come faster than a checkpoint plus a restart and to ((τ+δ)/2 + R)/M when they are rare."""
    t, d = interval_hours, checkpoint_hours
    ettr = ettr_checkpoint(t, d, restart_hours, mtbf_hours, failures_during_recovery=failures_during_recovery)
    return min(1.0, max(0.0, 1.0 - ettr * (t + d) / t))


def lost_gpu_hours_per_failure(
    gpus: int,
    interval_hours: float,
    checkpoint_hours: float,
    restart_hours: float,
    in_memory_loss_hours: float | None = None,
    mtbf_hours: float | None = None,
) -> float:
    """Expected GPU-hours lost per failure.

    Checkpoint/restart with ``mtbf_hours``: Daly's exponential model, gpus x M x the lost fraction
    (``lost_fraction_checkpoint``), so failures x loss never exceeds the GPU-hours there are. Without
    ``mtbf_hours``: the first-order figure, every GPU redoes half a checkpoint period ((τ + δ)/2) and
    waits out the restart, valid only when failures are rare (τ + δ + R << M). With in-memory
    reconstruction the redo is ``in_memory_loss_hours`` (about one step plus the copy) instead."""
    _positive("gpus", gpus)
    _non_negative("restart_hours", restart_hours)
    if in_memory_loss_hours is not None:
        _non_negative("in_memory_loss_hours", in_memory_loss_hours)
        return gpus * (in_memory_loss_hours + restart_hours)
    _positive("interval_hours", interval_hours)
    _non_negative("checkpoint_hours", checkpoint_hours)
    if mtbf_hours is not None:
        return (
            gpus
            * mtbf_hours
            * lost_fraction_checkpoint(interval_hours, checkpoint_hours, restart_hours, mtbf_hours)
        )
    return gpus * ((interval_hours + checkpoint_hours) / 2.0 + restart_hours)


def checkpoint_regime(checkpoint_hours: float, mtbf_hours: float) -> str:
    """Which of Daly's (2006) cases the interval comes from: ``"daly"`` (δ < 2M, the higher-order
    formula) or ``"interval-equals-mttf"`` (δ ≥ 2M, τ = M). Young's √(2δM) is first order in δ/M and
    holds only for δ << M."""
    _positive("checkpoint_hours", checkpoint_hours)
    _positive("mtbf_hours", mtbf_hours)
    return "interval-equals-mttf" if checkpoint_hours >= 2.0 * mtbf_hours else "daly"


# ---------------------------------------------------------------- a campus-wide job


def campus_counts(snap: CampusSnapshot, network: str = "backend") -> dict[str, float]:
    """Units of each kind a campus-wide job depends on: gpus, nodes, links, switches."""
    gpus = nodes = 0
    for r in snap.racks:
        for slug, count in r.nodes:
            nodes += count
            gpus += count * snap.node_models[slug].gpus_per_node
    links = sum(x.count for x in snap.links if x.network == network and x.medium != "nvlink")
    switches = sum(s.count for s in snap.switches if s.network == network)
    return {"gpu": gpus, "node": nodes, "link": links, "switch": switches}


def link_components(snap: CampusSnapshot, network: str = "backend") -> list[tuple[float, float]]:
    """(count, mtbf_hours) per link bundle of a network, MTBF from the bundle's medium."""
    mtbf = {slug: spec.mtbf_hours for slug, spec in snap.media.items() if spec.mtbf_hours > 0}
    return [
        (float(x.count), mtbf[x.medium])
        for x in snap.links
        if x.network == network and x.count > 0 and x.medium in mtbf
    ]


def device_counts(snap: CampusSnapshot) -> dict[str, int]:
    """Facility units by component class name: power devices by kind, cooling units by kind, plants by
    kind, utility feeds (the names the infrastructure rate set uses)."""
    out: dict[str, int] = {"utility_feed": len(snap.utility_feeds)}
    for d in snap.power_devices:
        out[d.kind] = out.get(d.kind, 0) + 1
    for u in snap.cooling_units:
        out[u.kind] = out.get(u.kind, 0) + 1
    for p in snap.cooling_plants:
        out[p.kind] = out.get(p.kind, 0) + 1
    return out


def counts_by_model(snap: CampusSnapshot) -> dict[str, dict[str, int]]:
    """GPUs and nodes of each GPU model: {gpu slug: {"gpu": n, "node": m}}."""
    out: dict[str, dict[str, int]] = {}
    for r in snap.racks:
        for slug, count in r.nodes:
            spec = snap.node_models[slug]
            row = out.setdefault(spec.gpu, {"gpu": 0, "node": 0})
            row["gpu"] += count * spec.gpus_per_node
            row["node"] += count
    return out


def job_datasets(known: Iterable[str]) -> list[str]:
    """The data sets a job's failure rate can be taken from: ``per-model`` and each job set among
    ``known`` (not the facility-class or component sets, which do not describe a job's interruptions)."""
    return [PER_MODEL] + sorted(
        d for d in set(known) if d not in COMPONENT_DATASETS and d != INFRASTRUCTURE_DATASET
    )


def check_job_dataset(dataset: str, known: Iterable[str]) -> None:
    """A ValueError naming ``dataset`` unless it is ``per-model`` or a job set among ``known``."""
    known = set(known)
    if dataset == PER_MODEL or (
        dataset in known and dataset not in COMPONENT_DATASETS and dataset != INFRASTRUCTURE_DATASET
    ):
        return
    what = (
        "is not a job failure data set"
        if dataset in COMPONENT_DATASETS or dataset == INFRASTRUCTURE_DATASET
        else "unknown failure-rate set"
    )
    raise ValueError(f"dataset: {what} {dataset!r}; valid: {', '.join(job_datasets(known))}")


def model_rate_sets(snap: CampusSnapshot, dataset: str = PER_MODEL) -> dict[str, dict]:
    """The job data set charged to each GPU model of the campus: {slug: {"dataset", "fallback"}}.

    ``fallback`` is True when the model has no set of its own in the snapshot's rates and borrows the
    default; ``dataset`` is None when not even the default is there."""
    known = {r.dataset for r in snap.failure_rates}
    models = counts_by_model(snap)
    if dataset != PER_MODEL:
        check_job_dataset(dataset, known)
        return {slug: {"dataset": dataset, "fallback": False} for slug in models}
    out = {}
    for slug in models:
        spec = snap.gpus.get(slug)
        own = spec.failure_rate_set if spec is not None else ""
        if own and own in known:
            out[slug] = {"dataset": own, "fallback": False}
        else:
            out[slug] = {
                "dataset": DEFAULT_JOB_DATASET if DEFAULT_JOB_DATASET in known else None,
                "fallback": True,
            }
    return out


def job_failures_by_model(snap: CampusSnapshot, dataset: str = PER_MODEL) -> dict[str, dict]:
    """Job-interrupting failures per hour of each GPU model's GPUs and nodes under its own data set."""
    counts = counts_by_model(snap)
    out = {}
    for slug, chosen in model_rate_sets(snap, dataset).items():
        ds = chosen["dataset"]
        rows = select_rates(snap.failure_rates, ds, include_infrastructure=False) if ds else []
        out[slug] = {
            **chosen,
            "gpus": counts[slug]["gpu"],
            "nodes": counts[slug]["node"],
            "failures_per_hour": failures_per_hour(rows, counts[slug]),
        }
    return out


def expected_job_interruptions(snap: CampusSnapshot, hours: float, dataset: str = PER_MODEL) -> float:
    """Expected interruptions of one synchronous job on every GPU of the campus over ``hours``."""
    _non_negative("hours", hours)
    return hours * sum(m["failures_per_hour"] for m in job_failures_by_model(snap, dataset).values())


def failure_table(snap: CampusSnapshot, dataset: str = PER_MODEL) -> list[dict]:
    """Expected failures per day of each component class on this campus (JSON-ready rows).

    Job-set classes count per GPU or per node of the models charged that set (``gpu_models``);
    facility classes per device of the matching kind. A named ``dataset`` applies to the whole campus.
    """
    units = campus_counts(snap)
    devices = device_counts(snap)
    rows = []

    def add(r: FailureRate, count: float, gpu_models: list[str]) -> None:
        rows.append(
            {
                "component": r.component,
                "per": r.per,
                "count": count,
                "mtbf_hours": r.mtbf_hours,
                "failures_per_day": count / r.mtbf_hours * HOURS_PER_DAY if r.mtbf_hours > 0 else 0.0,
                "interrupts_job": r.interrupts_job,
                "repair_hours": r.repair_hours,
                "dataset": r.dataset,
                "gpu_models": gpu_models,
                "source": r.source,
            }
        )

    if dataset != PER_MODEL:
        for r in select_rates(snap.failure_rates, dataset):
            count = devices.get(r.component, 0) if r.per == "device" else units.get(r.per, 0)
            add(r, count, sorted(counts_by_model(snap)) if r.per != "device" else [])
        return rows
    by_set: dict[str, dict[str, int]] = {}
    members: dict[str, list[str]] = {}
    per_model = counts_by_model(snap)
    for slug, chosen in sorted(model_rate_sets(snap).items()):
        if chosen["dataset"] is None:
            continue
        agg = by_set.setdefault(chosen["dataset"], {"gpu": 0, "node": 0})
        agg["gpu"] += per_model[slug]["gpu"]
        agg["node"] += per_model[slug]["node"]
        members.setdefault(chosen["dataset"], []).append(slug)
    for ds, agg in by_set.items():
        for r in select_rates(snap.failure_rates, ds, include_infrastructure=False):
            add(r, agg.get(r.per, 0), members[ds])
    for r in snap.failure_rates:
        if r.dataset == INFRASTRUCTURE_DATASET:
            add(r, devices.get(r.component, 0) if r.per == "device" else units.get(r.per, 0), [])
    return rows


def campus_job_reliability(
    snap: CampusSnapshot,
    dataset: str = PER_MODEL,
    checkpoint_minutes: float = 5.0,
    restart_minutes: float = 10.0,
) -> dict:
    """Reliability of one synchronous job on every GPU of the campus (JSON-ready).

    Job MTTF from each GPU model's own job data set applied to its GPUs and nodes (or one named set
    for all); first link failure from the back-end links' media MTBFs (a separate, component-level
    view); the Daly-optimal checkpoint interval and the exact ETTR at that interval.
    """
    _positive("checkpoint_minutes", checkpoint_minutes)
    _non_negative("restart_minutes", restart_minutes)
    if snap.failure_rates:
        check_job_dataset(dataset, {r.dataset for r in snap.failure_rates})
    elif dataset in COMPONENT_DATASETS or dataset == INFRASTRUCTURE_DATASET:
        check_job_dataset(dataset, ())
    counts = campus_counts(snap)
    out: dict = {
        "dataset": dataset,
        "datasets_by_model": {},
        "gpus": counts["gpu"],
        "nodes": counts["node"],
        "job_mttf_hours": None,
        "first_link_failure_minutes": None,
        "optimal_checkpoint_minutes": None,
        "young_checkpoint_minutes": None,
        "expected_ettr": None,
        "job_failures_per_day": None,
        "lost_gpu_hours_per_failure": None,
        "lost_gpu_hours_per_day": None,
        "lost_fraction": None,
        "checkpoint_regime": None,
        "checkpoint_minutes": checkpoint_minutes,
        "restart_minutes": restart_minutes,
    }
    links = link_components(snap)
    if links and any(c > 0 for c, _ in links):
        out["first_link_failure_minutes"] = first_failure_minutes(links)
    if counts["gpu"] <= 0 or not snap.failure_rates:
        return out
    by_model = job_failures_by_model(snap, dataset)
    out["datasets_by_model"] = {
        slug: {
            "dataset": m["dataset"],
            "fallback": m["fallback"],
            "gpus": m["gpus"],
            "nodes": m["nodes"],
            "failures_per_day": m["failures_per_hour"] * HOURS_PER_DAY,
        }
        for slug, m in sorted(by_model.items())
    }
    lam = sum(m["failures_per_hour"] for m in by_model.values())
    if lam <= 0:
        return out
    mttf = 1.0 / lam
    d = checkpoint_minutes / 60.0
    tau = daly_interval_hours(d, mttf)
    out["job_mttf_hours"] = mttf
    out["optimal_checkpoint_minutes"] = tau * 60.0
    out["young_checkpoint_minutes"] = young_interval_hours(d, mttf) * 60.0
    out["checkpoint_regime"] = checkpoint_regime(d, mttf)
    r = restart_minutes / 60.0
    out["expected_ettr"] = ettr_checkpoint(tau, d, r, mttf)
    out["job_failures_per_day"] = HOURS_PER_DAY / mttf
    lost_fraction = lost_fraction_checkpoint(tau, d, r, mttf)
    out["lost_fraction"] = lost_fraction
    out["lost_gpu_hours_per_failure"] = counts["gpu"] * mttf * lost_fraction
    out["lost_gpu_hours_per_day"] = counts["gpu"] * HOURS_PER_DAY * lost_fraction
    return out
