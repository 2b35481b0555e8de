"""The seed-independent half of power_dynamics: the jobs' timelines, the GPUs grouped by job, model and
building, the campus's own storage and generation, and the sizes of the streamed pass."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from campus.analysis.facility import campus_pue
from campus.analysis.heat import it_beyond_at
from campus.analysis.job_compute import job_figures
from campus.analysis.onsite import prime_generators, storage_pool
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.units import kw_to_mw
from simulations.engine.fields import ParamsError
from simulations.engine.kinds.power_dynamics.params import (
    BessParams,
    GenerationParams,
    PowerDynamicsParams,
    SmoothingParams,
)
from simulations.engine.loads import DEAD_RACK_STATUSES, baseline_it
from simulations.engine.replay import LoadSource, unresolved_error

CHUNK_SECONDS = 600.0  # streamed chunk, s
MAX_STEPS = 20_000_000  # steps in one run


# ---------------------------------------------------------------- the plan


@dataclass
class Unit:
    """The GPUs of one model in one job."""

    job: int
    tdp_w: float
    gpus: int
    storage_steps: int  # trailing-mean window of the rack storage, steps (<= 1: none)
    by_building: dict[int, int]  # building id -> GPUs


@dataclass
class JobTimeline:
    iteration_s: float
    comm_fraction: float
    comm_power_fraction: float
    phase_offset_s: float
    checkpoint_every_s: float | None
    checkpoint_s: float
    runs: list[tuple[float, float, float]]  # (start, end, ramp) s
    checkpoints: list[tuple[float, float]]  # extra checkpoints (start, end) s


@dataclass
class DynamicsPlan:
    params: PowerDynamicsParams
    dt_s: float
    steps: int
    units: list[Unit]
    jobs: list[JobTimeline]
    buildings: list[int]
    weights_kw: np.ndarray  # (buildings, units): kW per W of one GPU of the unit
    const_kw_by_building: np.ndarray  # fixed server power, extra IT and idle GPUs outside the jobs, IT kW
    facility_factor: float  # facility kW per IT kW: the PUE
    dips: list[tuple[float, float, float, float]]  # (at, trip fraction, return s, ramp s)
    swing_steps: int
    lag_s_steps: int
    lag_min_steps: int
    nperseg: int
    bucket_steps: int
    chunk_steps: int
    waveform: tuple[int, int]  # steps [start, end)
    natural_peak_mw: float
    # where the battery and the generation come from: "params" (given) or "campus" (the inventory)
    assets: dict[str, str] = field(default_factory=dict)
    # a replayed load (the draw at the grid connection before the battery and generation), or None: the jobs'
    replay: LoadSource | None = None
    # each job's checkpoint write and its source (typed, the hardware's or the catalog's): ``_job_checkpoints``
    job_checkpoints: list[dict] = field(default_factory=list)


def _error(field_name: str, message: str) -> ParamsError:
    return ParamsError([{"field": field_name, "message": message}])


def _job_checkpoints(
    snap: CampusSnapshot, p: PowerDynamicsParams, owner: dict[int | None, int]
) -> list[dict]:
    """Each job's checkpoint write, seconds, and where it comes from: typed, or the checkpoint model of a job
    over its pods' running racks (``job_compute.job_figures``; the catalog's without a storage system)."""
    out = []
    for j, job in enumerate(p.jobs):
        if job.checkpoint_seconds is not None:
            out.append({"checkpoint_seconds": job.checkpoint_seconds, "checkpoint_seconds_source": "typed"})
            continue
        racks = [
            r
            for r in snap.racks
            if r.status not in DEAD_RACK_STATUSES and (job.pods is None or owner.get(r.pod_id) == j)
        ]
        fig = job_figures(snap, racks, "bf16")
        out.append(
            {
                "checkpoint_seconds": fig["checkpoint_minutes"] * 60.0,
                "checkpoint_seconds_source": fig["checkpoint_minutes_source"],
            }
        )
    return out


def _job_timelines(p: PowerDynamicsParams, checkpoints: list[dict]) -> list[JobTimeline]:
    out = []
    for j, job in enumerate(p.jobs):
        checkpoint_s = checkpoints[j]["checkpoint_seconds"]
        changes: list[tuple[float, str, float]] = []  # (t, "up"/"down", ramp)
        if job.start_seconds is not None:
            changes.append((job.start_seconds, "up", 0.0))
        extra = []
        for ev in p.events:
            if ev.kind == "grid_dip" or ev.job != j:
                continue
            if ev.kind == "job_crash":
                changes.append((ev.at_seconds, "down", 0.0))
                if ev.restart_after_seconds is not None:
                    changes.append((ev.at_seconds + ev.restart_after_seconds, "up", ev.ramp_seconds))
            elif ev.kind == "job_start":
                changes.append((ev.at_seconds, "up", ev.ramp_seconds))
            else:
                dur = ev.duration_seconds if ev.duration_seconds is not None else checkpoint_s
                extra.append((ev.at_seconds, ev.at_seconds + dur))
        changes.sort(key=lambda c: (c[0], c[1] == "up"))
        runs: list[tuple[float, float, float]] = []
        current: tuple[float, float] | None = None
        for t, what, ramp in changes:
            if current is not None:
                runs.append((current[0], t, current[1]))
                current = None
            if what == "up":
                current = (t, ramp)
        if current is not None:
            runs.append((current[0], math.inf, current[1]))
        runs = [r for r in runs if r[1] > r[0]]
        out.append(
            JobTimeline(
                job.iteration_seconds,
                job.comm_fraction,
                job.comm_power_fraction,
                job.phase_offset_seconds,
                job.checkpoint_every_seconds,
                checkpoint_s,
                runs,
                extra,
            )
        )
    return out


def campus_assets(
    snap: CampusSnapshot, params: PowerDynamicsParams
) -> tuple[PowerDynamicsParams, dict[str, str]]:
    """The parameters with ``bess`` and ``generation`` filled in from the campus's own assets where the
    scenario leaves them null: the battery is the campus's energy storage as one pool
    (``campus.analysis.onsite.storage_pool``) with the default trailing window; generation is its
    prime-rated generators (Σ prime rating, Σ ramp), carrying the load above the campus's grid capacity (its
    interconnect). A campus without them gets none. Returns the parameters and where each came from."""
    bess, generation = params.bess, params.generation
    sources = {"bess": "params", "generation": "params"}
    if bess is None:
        pool = storage_pool(snap)
        sources["bess"] = "campus"
        bess = BessParams()
        if pool.systems:
            bess = BessParams(
                power_mw=kw_to_mw(pool.power_kw),
                energy_mwh=kw_to_mw(pool.energy_kwh),
                response_ms=pool.response_ms,
                round_trip_efficiency=pool.round_trip_efficiency,
            )
    if generation is None:
        prime = prime_generators(snap)
        sources["generation"] = "campus"
        generation = GenerationParams()
        if prime:
            generation = GenerationParams(
                rating_mw=kw_to_mw(sum(g.prime_kw for g in prime)),
                ramp_mw_per_s=kw_to_mw(sum(g.ramp_kw_per_s for g in prime)),
                grid_import_mw=kw_to_mw(max(0.0, snap.grid_capacity_kw)),
                fuel_usd_per_mwh=sum(g.fuel_usd_per_mwh * g.prime_kw for g in prime)
                / sum(g.prime_kw for g in prime)
                if sum(g.prime_kw for g in prime) > 0
                else GenerationParams().fuel_usd_per_mwh,
            )
    return params.model_copy(update={"bess": bess, "generation": generation}), sources


def prepare(snap: CampusSnapshot, params: PowerDynamicsParams) -> DynamicsPlan:
    p, assets = campus_assets(snap, params)
    dt = p.resolution_ms / 1000.0
    replay = _replay(p)
    duration_s = replay.span_s if replay is not None else p.duration_seconds
    steps = max(1, math.ceil(duration_s / dt - 1e-9))
    if steps > MAX_STEPS:
        field_name = "resolution_ms" if replay is not None else "duration_seconds"
        raise _error(field_name, f"{steps} steps at this resolution; at most {MAX_STEPS}")
    nyquist = 0.5 / dt
    lo, hi = p.requirements.band_hz
    if lo >= nyquist:
        raise _error("requirements.band_hz", f"the band starts above the Nyquist frequency {nyquist:g} Hz")
    pods = {pod.id for pod in snap.pods} | {r.pod_id for r in snap.racks if r.pod_id is not None}
    owner: dict[int | None, int] = {}  # pod -> job (None key: a whole-campus job)
    for j, job in enumerate(p.jobs):
        if job.iteration_seconds < 2 * dt:
            raise _error(f"jobs[{j}].iteration_seconds", f"shorter than two steps ({2 * dt:g} s)")
        if job.pods is None:
            if len(p.jobs) > 1:
                raise _error(f"jobs[{j}].pods", "a whole-campus job (pods null) must be the only job")
            continue
        if not job.pods:
            raise _error(f"jobs[{j}].pods", "give pod ids, or null for the whole campus")
        for k, pod in enumerate(job.pods):
            if pod not in pods:
                raise _error(f"jobs[{j}].pods[{k}]", f"no pod {pod} in the campus")
            if pod in owner and owner[pod] != j:
                raise _error(f"jobs[{j}].pods[{k}]", f"pod {pod} is already in jobs[{owner[pod]}]")
            owner[pod] = j
    for i, ev in enumerate(p.events):
        if ev.kind != "grid_dip" and ev.job >= len(p.jobs):
            raise _error(f"events[{i}].job", f"no job {ev.job}; there are {len(p.jobs)}")
    whole = p.jobs[0].pods is None

    # GPUs per (job, GPU model, building); the rest of the IT as constants per building
    unit_gpus: dict[tuple[int, str], dict[int, int]] = {}
    const_w: dict[int, float] = {}
    idle = p.idle_gpu_fraction
    for r in snap.racks:
        if r.status in DEAD_RACK_STATUSES:
            continue
        b = r.building_id
        const_w[b] = const_w.get(b, 0.0) + r.extra_it_kw * 1000.0
        job = 0 if whole else owner.get(r.pod_id) if r.pod_id is not None else None
        for slug, n in r.nodes:
            if n <= 0:
                continue
            spec = snap.node_models[slug]
            gpu = snap.gpus[spec.gpu]
            const_w[b] += n * snap.node_overhead_w(slug)  # the campus's calibrated overhead scale
            count = n * spec.gpus_per_node
            if job is None:
                const_w[b] += count * gpu.tdp_w * idle
            else:
                per_b = unit_gpus.setdefault((job, gpu.slug), {})
                per_b[b] = per_b.get(b, 0) + count
    if not unit_gpus:
        raise _error("jobs", "the jobs hold no GPUs (no active racks with servers in their pods)")
    for j in range(len(p.jobs)):
        if not any(key[0] == j for key in unit_gpus):
            raise _error(f"jobs[{j}].pods", "no active GPUs in these pods")
    units = []
    for (j, slug), per_b in sorted(unit_gpus.items()):
        tdp = snap.gpus[slug].tdp_w
        step_w = tdp * (1.0 - p.jobs[j].comm_power_fraction)
        window_s = 2.0 * p.rack_storage_j_per_gpu / step_w if step_w > 0 else 0.0
        units.append(Unit(j, tdp, sum(per_b.values()), max(1, round(window_s / dt)), dict(per_b)))
    buildings = sorted(set(const_w) | {b for u in units for b in u.by_building})
    weights = np.zeros((len(buildings), len(units)))
    for ui, u in enumerate(units):
        for b, n in u.by_building.items():
            weights[buildings.index(b), ui] = n / 1000.0
    # the campus's one PUE (a typed one, or the plant model's in the hour of peak facility power: the
    # grid connection's ratio), unless the scenario gives its own
    pue = campus_pue(snap, p.pue).peak_pue
    factor = pue
    # the network and other IT of the summary's IT load, constant, in the buildings where they are
    # (``heat.it_beyond_at``: a hall's in its building, a building's there, the campus's over the buildings
    # by their running racks' IT); on the first building when no running rack places any
    it = baseline_it(snap)
    beyond_kw = it.network_kw + it.other_it_kw + it.storage_kw
    if beyond_kw > 0:
        beyond = it_beyond_at(snap)
        hall_building = {h.id: h.building_id for h in snap.halls}
        rack_kw: dict[int, float] = {}
        for r in snap.racks:
            if r.status not in DEAD_RACK_STATUSES:
                rack_kw[r.building_id] = rack_kw.get(r.building_id, 0.0) + snap.rack_it_kw(r)
        places = list(beyond.network_kw_by_place.items())
        places += list(beyond.storage_kw_by_place.items())
        places += [(("hall", h), kw) for h, kw in beyond.other_kw_by_hall.items()]
        by_b: dict[int, float] = {}
        for (kind, pid), kw in places:
            bid = hall_building.get(pid) if kind == "hall" else pid if kind == "building" else None
            targets = {bid: 1.0} if bid in rack_kw else rack_kw
            total = sum(targets.values())
            for b, w in targets.items():
                by_b[b] = by_b.get(b, 0.0) + kw * w / total if total > 0 else by_b.get(b, 0.0)
        total = sum(by_b.values())
        if total <= 0:
            by_b, total = {buildings[0]: 1.0}, 1.0
        for b, kw in by_b.items():
            const_w[b] = const_w.get(b, 0.0) + beyond_kw * kw / total * 1000.0
    dips = [
        (ev.at_seconds, ev.trip_fraction, ev.return_seconds, ev.return_ramp_seconds)
        for ev in p.events
        if ev.kind == "grid_dip"
    ]
    longest = max(job.iteration_seconds for job in p.jobs)
    seg_s = max(8.0 / lo, 8.0 * longest, 10.0)
    nperseg = 1 << max(4, math.ceil(math.log2(seg_s / dt)))
    bucket = max(1, math.ceil(steps / p.series_points))
    chunk = bucket * max(1, round(CHUNK_SECONDS / dt / bucket))
    if p.waveform_start_seconds is not None:
        w0 = p.waveform_start_seconds
    else:
        w0 = max(0.0, min((ev.at_seconds for ev in p.events), default=10.0) - 10.0)
    w_len = min(steps, max(1, round(p.waveform_seconds / dt)))
    w_start = min(int(w0 / dt), steps - w_len)  # the window lies within the run
    w_end = w_start + w_len
    peak_gpu_kw = sum(u.gpus * u.tdp_w for u in units) / 1000.0
    natural_peak_mw = (peak_gpu_kw + sum(const_w.values()) / 1000.0) * factor / 1000.0
    if replay is not None:
        natural_peak_mw = max(replay.values_kw or [0.0]) / 1000.0
    checkpoints = _job_checkpoints(snap, p, owner)
    return DynamicsPlan(
        params=p,
        dt_s=dt,
        steps=steps,
        units=units,
        jobs=_job_timelines(p, checkpoints),
        buildings=buildings,
        weights_kw=weights,
        const_kw_by_building=np.array([const_w.get(b, 0.0) / 1000.0 for b in buildings]),
        facility_factor=factor,
        dips=dips,
        swing_steps=max(2, round(longest / dt) + 1),
        lag_s_steps=max(1, round(1.0 / dt)),
        lag_min_steps=max(1, round(60.0 / dt)),
        nperseg=nperseg,
        bucket_steps=bucket,
        chunk_steps=chunk,
        waveform=(w_start, w_end),
        natural_peak_mw=natural_peak_mw,
        assets=assets,
        replay=replay,
        job_checkpoints=checkpoints,
    )


def _replay(p: PowerDynamicsParams) -> LoadSource | None:
    """The replayed load, or None for the jobs' synthetic one. The GPUs' smoothing and the rack storage act on
    each GPU's power, which a measured total does not give: with a replay they are refused, not ignored."""
    src = p.load_source
    if not src.replayed:
        return None
    if not src.resolved:
        raise ParamsError([unresolved_error()])
    if p.smoothing != SmoothingParams():
        raise _error("smoothing", "acts on the jobs' own GPU power: leave it off with a replayed load")
    if p.rack_storage_j_per_gpu > 0:
        raise _error("rack_storage_j_per_gpu", "acts on the jobs' own GPU power: 0 with a replayed load")
    return src
