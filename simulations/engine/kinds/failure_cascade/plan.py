"""The seed-independent half of the failure_cascade kind: the failure classes drawn from the rate sets,
the job placed on the campus, what a failed facility unit takes down (cached per unit), and the sampling
of Poisson arrivals.

``simulations.engine.kinds.failure_cascade.model`` runs the replicas on this plan; the model is
described in the package (``simulations.engine.kinds.failure_cascade``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from campus.analysis.impact import racks_lost
from campus.analysis.job_compute import job_figures
from campus.analysis.power import power_graph, rollup
from campus.analysis.reliability import DEFAULT_JOB_DATASET, PER_MODEL, spare_shortfall_probability
from campus.analysis.snapshot import CampusSnapshot, FailureRate
from campus.catalog_data import default_value
from simulations.engine.fields import ParamsError
from simulations.engine.job import (
    JobTimeline,
    in_memory_copy_hours,
    job_tflops,
    young_daly_interval_hours,
)
from simulations.engine.kinds.failure_cascade.params import FailureCascadeParams
from simulations.engine.kinds.failure_cascade.servers import PoolSetup, setup_from_plan

# Target of a failure class.
JOB, POWER_DEVICE, UTILITY_FEED, COOLING_UNIT, COOLING_PLANT = range(5)
# Facility components and the snapshot elements they name (exact kinds, so two rows never cover one device).
FACILITY_COMPONENTS: dict[str, tuple[int, frozenset[str] | None]] = {
    "substation": (POWER_DEVICE, frozenset({"substation"})),
    "transformer": (POWER_DEVICE, frozenset({"transformer"})),
    "switchgear": (POWER_DEVICE, frozenset({"switchgear"})),
    "generator": (POWER_DEVICE, frozenset({"generator"})),
    "ups": (POWER_DEVICE, frozenset({"ups"})),
    "pdu": (POWER_DEVICE, frozenset({"pdu"})),
    "busway": (POWER_DEVICE, frozenset({"busway"})),
    "rpp": (POWER_DEVICE, frozenset({"rpp"})),
    "sst": (POWER_DEVICE, frozenset({"sst"})),
    "rectifier": (POWER_DEVICE, frozenset({"rectifier"})),
    "dc_busway": (POWER_DEVICE, frozenset({"dc-busway"})),
    "utility_feed": (UTILITY_FEED, None),
    "cdu": (COOLING_UNIT, frozenset({"cdu"})),
    "crah": (COOLING_UNIT, frozenset({"crah"})),
    "rear_door": (COOLING_UNIT, frozenset({"rear-door"})),
    "immersion": (COOLING_UNIT, frozenset({"immersion"})),
    "chiller": (COOLING_PLANT, frozenset({"chiller"})),
    "dry_cooler": (COOLING_PLANT, frozenset({"dry-cooler"})),
    "cooling_tower": (COOLING_PLANT, frozenset({"cooling-tower"})),
}
_IMPACT_KIND = {
    POWER_DEVICE: "power",
    UTILITY_FEED: "utility",
    COOLING_UNIT: "cooling",
    COOLING_PLANT: "plant",
}
JOB_UNITS = ("gpu", "job-gpu", "node", "link", "switch")
DEAD_RACK_STATUSES = frozenset({"failed", "offline", "decommissioned"})
# OPT-175B kept 12 spare nodes for 124 in use: ~10 % (catalog TRAINING_DEFAULTS["hot_spare_fraction"]).
DEFAULT_HOT_SPARE_FRACTION = 0.10
# Without links or switches in the snapshot: one NIC-leaf link per NIC, one leaf per 32 NIC ports
# (a 64-port switch with half its ports facing down).
LEAF_DOWNLINKS = 32


@dataclass(frozen=True)
class FailureClass:
    component: str
    target: int  # JOB, POWER_DEVICE, ...
    units: tuple[int, ...]  # element ids for facility classes; () for job classes
    count: int
    mtbf_hours: float
    repair_hours: float
    consumes_node: bool  # under "hot_spares" the failed node leaves the pool for repair_hours

    @property
    def rate_per_hour(self) -> float:
        return self.count / self.mtbf_hours if self.mtbf_hours > 0 else 0.0


@dataclass(frozen=True)
class ClassArrays:
    """The failure classes as arrays, built once per plan and shared by its replicas."""

    rates: np.ndarray  # failures per hour of each class
    counts: np.ndarray  # units of each class (at least 1), for the draw of the failing unit
    is_job: np.ndarray  # the class interrupts the job directly (target JOB)
    repair_hours: np.ndarray
    consumes: np.ndarray  # a failure takes its node out of the pool for its repair ("hot_spares")


@dataclass
class CascadePlan:
    """Everything about one snapshot and parameter set that does not depend on the seed."""

    snap: CampusSnapshot
    params: FailureCascadeParams
    classes: list[FailureClass]
    job_racks: dict[int, int]  # rack id -> job nodes in it
    eligible_by_rack: dict[int, int]  # rack id -> eligible nodes in it
    job_nodes: int
    job_gpus: int
    job_gpus_by_model: dict[str, int]
    eligible_nodes: int
    spare_nodes: int
    job_tflops: float
    interval_h: float
    write_h: float
    restart_h: float
    copy_h: float
    job_rate_per_hour: float
    unmodelled: list[str]
    # the MFU, checkpoint write and restart the job runs with, each with its source (typed, the hardware's
    # or the catalog's: ``campus.analysis.job_compute.job_figures``)
    job: dict = field(default_factory=dict)
    _impact: dict[tuple[int, int], tuple[tuple[int, ...], bool]] = field(default_factory=dict)
    _arrays: ClassArrays | None = field(default=None, repr=False)
    _pool: PoolSetup | None = field(default=None, repr=False)

    @property
    def pool_setup(self) -> PoolSetup:
        """The server-pool walk's setup (parameters with a ``server_pool``)."""
        if self._pool is None:
            self._pool = setup_from_plan(self)
        return self._pool

    def timeline(self) -> JobTimeline:
        """A new job timeline (one a replica) with the plan's checkpoint interval, write, restart and recovery."""
        p = self.params
        return JobTimeline(
            self.interval_h,
            self.write_h,
            self.restart_h,
            len(self.classes),
            step_h=p.step_seconds / 3600.0,
            in_memory=p.recovery == "in_memory",
        )

    @property
    def spare_shortfall(self) -> tuple[float, float]:
        """(P(more nodes in repair than spares), the mean repair time) of the node-consuming classes
        ("hot_spares" recovery): the Poisson tail of the number in repair, mean = their rate x repair time
        (``reliability.spare_shortfall_probability``). (0, 0) when failures take no node out."""
        cs = [c for c, k in zip(self.classes, self.arrays.consumes.tolist(), strict=True) if k]
        rate = sum(c.rate_per_hour for c in cs)
        if rate <= 0:
            return 0.0, 0.0
        repair_h = sum(c.rate_per_hour * c.repair_hours for c in cs) / rate
        slack = max(self.eligible_nodes - self.job_nodes, 0)
        return spare_shortfall_probability(rate, repair_h, slack), repair_h

    @property
    def spare_wait_h(self) -> float:
        """Expected wait for a node per interruption once the spares run out ("hot_spares" recovery): the
        mean repair time of the node-consuming classes times the chance that more nodes are in repair
        than there are spares (``spare_shortfall``). 0 when failures take no node out."""
        short, repair_h = self.spare_shortfall
        return short * repair_h

    @property
    def total_rate_per_hour(self) -> float:
        return sum(c.rate_per_hour for c in self.classes)

    @property
    def arrays(self) -> ClassArrays:
        if self._arrays is None:
            hot_spares = self.params.recovery == "hot_spares"
            cs = self.classes
            self._arrays = ClassArrays(
                rates=np.array([c.rate_per_hour for c in cs], dtype=float),
                counts=np.array([max(c.count, 1) for c in cs], dtype=np.int64),
                is_job=np.array([c.target == JOB for c in cs], dtype=bool),
                repair_hours=np.array([c.repair_hours for c in cs], dtype=float),
                consumes=np.array([hot_spares and c.consumes_node for c in cs], dtype=bool),
            )
        return self._arrays

    # ---------------------------------------------------------- facility impact (cached per unit)

    def impact(self, cls_index: int, unit_index: int) -> tuple[tuple[int, ...], bool]:
        """(racks the failure darkens among the eligible ones, whether any holds job nodes)."""
        key = (cls_index, unit_index)
        hit = self._impact.get(key)
        if hit is not None:
            return hit
        cls = self.classes[cls_index]
        unit = cls.units[unit_index]
        racks = self._racks_lost(cls.target, unit)
        racks_t = tuple(sorted(r for r in racks if r in self.eligible_by_rack))
        out = (racks_t, any(r in self.job_racks for r in racks_t))
        self._impact[key] = out
        return out

    def warm_impacts(self) -> int:
        """Fill the impact table for every facility unit now (otherwise it fills as failures hit units);
        returns the number of units. Worth it before many replicas on one process."""
        n = 0
        for ci, cls in enumerate(self.classes):
            if cls.target != JOB:
                for ui in range(len(cls.units)):
                    self.impact(ci, ui)
                    n += 1
        return n

    def _racks_lost(self, target: int, unit: int) -> set[int]:
        """Racks left without power or cooling by the loss of one unit: the same answer as the
        dashboard's "what if it fails" (``campus.analysis.impact.racks_lost``). It depends on the snapshot
        only, so it is kept with the snapshot's power graph and shared by every plan made from that snapshot
        (the points of a sweep): each unit's roll-up runs once per snapshot and process, not once per
        parameter set."""
        memo = power_graph(self.snap).memo.setdefault("failure_cascade.racks_lost", {})
        key = (target, unit)
        racks = memo.get(key)
        if racks is None:
            racks = memo[key] = frozenset(racks_lost(self.snap, unit, _IMPACT_KIND[target]))
        return racks


def _job_sets(snap: CampusSnapshot, p: FailureCascadeParams, models: list[str]) -> dict[str, list[str]]:
    """Job data set -> the job's GPU models it is charged to."""
    if p.rate_set != PER_MODEL:
        return {p.rate_set: sorted(models)}
    known = {r.dataset for r in snap.failure_rates}
    out: dict[str, list[str]] = {}
    for m in sorted(models):
        own = snap.gpus[m].failure_rate_set if m in snap.gpus else ""
        out.setdefault(own if own and own in known else DEFAULT_JOB_DATASET, []).append(m)
    return out


def _select_rates(
    snap: CampusSnapshot, p: FailureCascadeParams, sets: dict[str, list[str]]
) -> list[tuple[FailureRate, tuple[str, ...] | None]]:
    """(rate, GPU models it is charged to; None for a facility row) for every class the run samples."""
    rows: list[tuple[FailureRate, tuple[str, ...] | None]] = []
    have_sets = sorted({r.dataset for r in snap.failure_rates})
    for ds, models in sets.items():
        job_rows = [r for r in snap.failure_rates if r.dataset == ds]
        if not job_rows:
            raise ParamsError(
                [
                    {
                        "field": "rate_set",
                        "message": f"no failure rates of data set {ds!r}"
                        + (f" (the set of {', '.join(models)})" if p.rate_set == PER_MODEL else "")
                        + f"; have: {', '.join(have_sets)}",
                    }
                ]
            )
        rows += [(r, tuple(models)) for r in job_rows]
    if p.include_infrastructure and p.infrastructure_set not in sets:
        have = {r.component for r, _ in rows}
        rows += [
            (r, None)
            for r in snap.failure_rates
            if r.dataset == p.infrastructure_set and r.component not in have
        ]
    known = {r.component for r, _ in rows}
    errors = []
    for name, table in (
        ("rate_overrides", p.rate_overrides),
        ("repair_hours_overrides", p.repair_hours_overrides),
    ):
        for comp in table:
            if comp not in known:
                errors.append(
                    {
                        "field": f"{name}.{comp}",
                        "message": f"unknown component; known: {', '.join(sorted(known))}",
                    }
                )
    if errors:
        raise ParamsError(errors)
    return rows


def _place_job(
    snap: CampusSnapshot, p: FailureCascadeParams
) -> tuple[dict[int, int], dict[int, int], dict[str, int], dict[str, int], int]:
    """Eligible nodes per rack, the job's nodes per rack (racks filled in pod then id order), its GPUs and
    nodes by GPU model and the spare nodes it leaves."""
    base_dark = rollup(snap).racks_without_power if snap.power_feeds else set()
    models = set(p.gpu_models) if p.gpu_models else None
    if models is not None:
        unknown = sorted(models - set(snap.gpus))
        if unknown:
            raise ParamsError([{"field": "gpu_models", "message": f"unknown GPU models {unknown}"}])
    eligible: dict[int, list[tuple[str, int]]] = {}
    racks = sorted(snap.racks, key=lambda r: (r.pod_id if r.pod_id is not None else -1, r.id))
    for r in racks:
        if r.status in DEAD_RACK_STATUSES or r.id in base_dark:
            continue
        members = [
            (slug, n)
            for slug, n in r.nodes
            if n > 0 and (models is None or snap.node_models[slug].gpu in models)
        ]
        if members:
            eligible[r.id] = members
    total_nodes = sum(n for ms in eligible.values() for _, n in ms)
    total_gpus = sum(snap.node_models[s].gpus_per_node * n for ms in eligible.values() for s, n in ms)
    if total_nodes == 0:
        raise ParamsError(
            [{"field": "gpu_models", "message": "the campus has no active GPU nodes of these models"}]
        )
    sp = p.server_pool
    if sp is not None:
        # the walk's standbys, spare pool and working-pool headroom all come from the campus's nodes
        spares: int | None = sp.warm_standbys + sp.spare_pool_nodes + (p.hot_spares or 0)
    elif p.hot_spares is not None:
        spares = p.hot_spares
    elif p.job_gpus is None and p.recovery == "hot_spares":
        spares = max(1, round(total_nodes * DEFAULT_HOT_SPARE_FRACTION / (1 + DEFAULT_HOT_SPARE_FRACTION)))
    elif p.job_gpus is None:
        spares = 0
    else:
        spares = None  # a job of given size with no spare count: every other eligible node may replace
    if p.job_gpus is None:
        if spares >= total_nodes:
            field = "hot_spares" if sp is None else "server_pool"
            raise ParamsError(
                [{"field": field, "message": f"the campus has only {total_nodes} eligible nodes"}]
            )
        want_nodes, want_gpus = total_nodes - spares, None
    else:
        if p.job_gpus > total_gpus:
            raise ParamsError(
                [{"field": "job_gpus", "message": f"the campus has only {total_gpus} eligible GPUs"}]
            )
        want_nodes, want_gpus = None, p.job_gpus
    job_racks: dict[int, int] = {}
    spare_racks: dict[int, int] = {}
    by_model: dict[str, int] = {}
    nodes_by_model: dict[str, int] = {}
    nodes = gpus = spare_nodes = 0
    for rid, members in eligible.items():
        for slug, n in members:
            per = snap.node_models[slug].gpus_per_node
            take = 0
            while take < n and not (
                (want_nodes is not None and nodes >= want_nodes)
                or (want_gpus is not None and gpus >= want_gpus)
            ):
                take += 1
                nodes += 1
                gpus += per
            if take:
                job_racks[rid] = job_racks.get(rid, 0) + take
                gslug = snap.node_models[slug].gpu
                by_model[gslug] = by_model.get(gslug, 0) + take * per
                nodes_by_model[gslug] = nodes_by_model.get(gslug, 0) + take
            # the spares: the next eligible nodes after the job's, as many as asked (all without a count)
            extra = n - take if spares is None else min(n - take, spares - spare_nodes)
            if extra > 0:
                spare_racks[rid] = spare_racks.get(rid, 0) + extra
                spare_nodes += extra
    if spares is not None and spare_nodes < spares:
        field = "hot_spares" if sp is None else "server_pool"
        raise ParamsError(
            [
                {
                    "field": field,
                    "message": f"{spares} spare nodes asked, only {spare_nodes} eligible nodes are left "
                    "outside the job",
                }
            ]
        )
    # the job's pool: its nodes and its spares, never the rest of the campus
    eligible_by_rack = {
        rid: job_racks.get(rid, 0) + spare_racks.get(rid, 0)
        for rid in eligible
        if job_racks.get(rid, 0) + spare_racks.get(rid, 0) > 0
    }
    return eligible_by_rack, job_racks, by_model, nodes_by_model, spare_nodes


def prepare(snap: CampusSnapshot, params: FailureCascadeParams) -> CascadePlan:
    p = params
    eligible_by_rack, job_racks, by_model, nodes_by_model, spare_nodes = _place_job(snap, p)
    job_nodes = sum(job_racks.values())
    job_gpus = sum(by_model.values())
    campus_gpus = sum(sum(snap.rack_gpus(r).values()) for r in snap.racks)
    share = job_gpus / campus_gpus if campus_gpus else 0.0
    job_node_specs = {
        slug
        for r in snap.racks
        if r.id in job_racks
        for slug, n in r.nodes
        if n > 0 and snap.node_models[slug].gpu in by_model
    }
    backend_links = sum(link.count for link in snap.links if link.network == "backend")
    backend_switches = sum(s.count for s in snap.switches if s.network == "backend")
    nic_ports = (
        sum(snap.node_models[s].nics for s in job_node_specs) / max(len(job_node_specs), 1) * job_nodes
    )
    counts_by_per = {
        "gpu": job_gpus,
        "job-gpu": job_gpus,
        "node": job_nodes,
        "link": round(backend_links * share) if backend_links else round(nic_ports),
        "switch": round(backend_switches * share)
        if backend_switches
        else math.ceil(nic_ports / LEAF_DOWNLINKS),
    }
    classes: list[FailureClass] = []
    unmodelled: list[str] = []
    sets = _job_sets(snap, p, list(by_model))

    def counts_for(models: tuple[str, ...]) -> dict[str, float]:
        if set(models) >= set(by_model):
            return counts_by_per
        gpus = sum(by_model[m] for m in models)
        # links and switches in proportion to the models' share of the job's GPUs
        frac = gpus / job_gpus if job_gpus else 0.0
        return {
            "gpu": gpus,
            "job-gpu": gpus,
            "node": sum(nodes_by_model[m] for m in models),
            "link": round(counts_by_per["link"] * frac),
            "switch": round(counts_by_per["switch"] * frac),
        }

    for r, models in _select_rates(snap, p, sets):
        mtbf = p.rate_overrides.get(r.component, r.mtbf_hours)
        repair = p.repair_hours_overrides.get(r.component, r.repair_hours)
        if r.component in FACILITY_COMPONENTS and r.per not in ("gpu", "job-gpu", "node", "link", "switch"):
            target, kinds = FACILITY_COMPONENTS[r.component]
            if target == POWER_DEVICE:
                units = tuple(
                    d.id
                    for d in snap.power_devices
                    if d.kind in kinds and d.status not in ("failed", "offline")
                )
            elif target == UTILITY_FEED:
                units = tuple(u.id for u in snap.utility_feeds)
            elif target == COOLING_UNIT:
                units = tuple(u.id for u in snap.cooling_units if u.kind in kinds)
            else:
                units = tuple(c.id for c in snap.cooling_plants if c.kind in kinds)
            if units:
                classes.append(FailureClass(r.component, target, units, len(units), mtbf, repair, False))
            continue
        if r.per in JOB_UNITS and r.interrupts_job:
            count = (counts_for(models) if models is not None else counts_by_per)[r.per]
            if count > 0:
                consumes = r.per in ("gpu", "job-gpu", "node") and repair > 0
                classes.append(FailureClass(r.component, JOB, (), count, mtbf, repair, consumes))
            continue
        unmodelled.append(r.component)
    job_rate = sum(c.rate_per_hour for c in classes if c.target == JOB)
    job = job_figures(
        snap,
        [r for r in snap.racks if r.id in job_racks],
        p.precision,
        gpus=job_gpus,
        mfu=p.mfu,
        checkpoint_minutes=p.checkpoint_write_minutes,
        restart_minutes=p.restart_minutes,
    )
    write_h = job["checkpoint_minutes"] / 60.0
    step_h = p.step_seconds / 3600.0
    if p.checkpoint_interval_minutes == "optimal" and p.recovery == "in_memory":
        # Failures do not roll back to the checkpoint, so there is no trade-off to optimise: checkpoints
        # are only for durability, at the catalog's interval (BLOOM: every 3 h).
        interval_h = default_value("checkpoint_interval_minutes") / 60.0
    elif p.checkpoint_interval_minutes == "optimal":
        interval_h = max(
            young_daly_interval_hours(write_h, 1.0 / job_rate if job_rate > 0 else math.inf), step_h
        )
    else:
        interval_h = p.checkpoint_interval_minutes / 60.0
    copy_h = 0.0
    if p.recovery == "in_memory":
        if p.fabric_gbps is not None:
            gbps = p.fabric_gbps
        else:
            gbps = min(
                (
                    snap.node_models[s].nic_speed_gbps
                    * snap.node_models[s].nics
                    / snap.node_models[s].gpus_per_node
                )
                for s in job_node_specs
            )
        copy_h = in_memory_copy_hours(p.state_gb_per_gpu, gbps)
    return CascadePlan(
        snap=snap,
        params=p,
        classes=classes,
        job_racks=job_racks,
        eligible_by_rack=eligible_by_rack,
        job_nodes=job_nodes,
        job_gpus=job_gpus,
        job_gpus_by_model=by_model,
        eligible_nodes=sum(eligible_by_rack.values()),
        spare_nodes=spare_nodes,
        job_tflops=job_tflops(snap.gpus, by_model, p.precision, job["mfu"]),
        interval_h=interval_h,
        write_h=write_h,
        restart_h=job["restart_minutes"] / 60.0,
        copy_h=copy_h,
        job_rate_per_hour=job_rate,
        unmodelled=unmodelled,
        job=job,
    )


def sample_failures(
    rng: np.random.Generator, rates_per_hour: np.ndarray, duration_h: float
) -> tuple[np.ndarray, np.ndarray]:
    """Failure times (h, sorted) and class indices of a superposition of Poisson processes.

    Inter-arrival times are exponential at the total rate; each arrival belongs to class i with
    probability rate_i / total.
    """
    total = float(rates_per_hour.sum())
    if total <= 0 or duration_h <= 0:
        return np.empty(0), np.empty(0, dtype=np.int64)
    expect = total * duration_h
    chunks = []
    t0 = 0.0
    while True:
        n = int(expect + 6.0 * math.sqrt(expect) + 16)
        times = t0 + np.cumsum(rng.exponential(1.0 / total, n))
        chunks.append(times)
        if times[-1] >= duration_h:
            break
        t0 = float(times[-1])
    times = np.concatenate(chunks)
    times = times[times < duration_h]
    cum = np.cumsum(rates_per_hour) / total
    classes = np.searchsorted(cum, rng.random(times.size), side="right")
    np.minimum(classes, rates_per_hour.size - 1, out=classes)
    return times, classes
