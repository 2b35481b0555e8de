"""Training power dynamics at the grid connection: swings, ramps, oscillations and what mitigates them.

Every synchronous job's GPUs compute, then communicate, in lock-step: each iteration the job's GPU power falls
from TDP to ``comm_power_fraction`` x TDP and back. Checkpoints (GPUs idle while the state is written),
crashes (the job's GPUs drop to idle), starts and restarts (a linear ramp from idle) and voltage dips (a share
of the campus load trips off the grid and comes back) shape the load further. A GPU in no running job idles at
``idle_gpu_fraction`` x TDP. Each job's GPUs are grouped per GPU model (its catalog TDP); the servers' fixed
power (CPUs, NICs, fans: the node model's overhead), the racks' extra IT, the network and the other IT
(``loads``: the summary's IT load, held at its full-load figure: switches and storage do not swing with the
GPUs) are constant; the facility overhead (PUE, that of the hour of peak facility power) follows the IT
load in proportion, at once: facility = (GPUs + fixed + network + other IT) x PUE. That is the upper bound
of the swing the facility passes on (cooling plant inertia damps its share over seconds to minutes).

Mitigations, in the order the power flows:
- ``smoothing`` (per GPU, as NVIDIA's GB300 power smoothing defines it): a floor of ``floor_fraction`` x TDP
  held while the job runs (checkpoints included), then a ramp-down limit (the GPU burns power rather than
  fall faster) and a ramp-up limit (the GPU is held back). The energy above the natural draw is the burn.
- ``rack_storage_j_per_gpu``: energy in the power supplies and racks; the rack draws the trailing mean of
  its GPUs' power over the window the storage can buffer for a full compute/communication step
  (window = 2 E / (TDP (1 - comm_power_fraction)): a step of dP fills a trailing mean's buffer with dP w / 2).
- a ``grid_dip`` event takes ``trip_fraction`` of the load off the grid (carried by the UPS batteries) for
  ``return_seconds``, then brings it back over ``return_ramp_seconds``.
- ``generation``: on-site generation carrying the load above ``grid_import_mw`` up to its rating, at a
  limited ramp rate.
- ``bess``: a battery at the grid connection that holds the grid draw to the load's trailing mean over
  ``window_seconds``; it answers after ``response_ms``, within its power, its energy (charging and
  discharging each at the square root of the round-trip efficiency), and pulls its charge back towards half
  full (the gap over 15 minutes, re-set every minute, at most a tenth of its power).

Metrics at the grid connection: ``swing_mw`` (largest peak-to-trough within any window one iteration long),
``max_ramp_mw_per_s`` (largest |P(t) - P(t - 1 s)|), ``max_ramp_mw_per_min`` (largest change of the trailing
one-minute mean over a minute), ``band_amplitude_mw`` (largest sinusoid amplitude in ``band_hz`` of the Welch
spectrum: flat-top windowed segments, half overlapping, power averaged), ``compliant``/``violation_count``
against ``requirements`` (each violation named in ``details["violations"]``), ``smoothing_energy_mwh``,
``bess_throughput_mwh``, and the searched ``min_bess_mw_to_comply`` and ``min_floor_to_comply`` (absent when
no size up to the bound complies). Energy figures (``energy_*_mwh``) close the balance: grid = natural load
+ smoothing burn - smoothing throttle - rack storage held - tripped load - generation + battery losses +
battery charge gained.

Takes a ``CampusSnapshot`` and ``PowerDynamicsParams``. Returns the metrics above, series over ``t_hours``
(``grid_mw`` with its ``grid_min_mw``/``grid_max_mw`` envelope, ``load_mw`` (no mitigation) and envelope,
``bess_mw``, ``bess_soc_mwh``, ``generation_mw``, and ``building.<id>.mw``/``.min_mw``/``.max_mw``), and
``details``: the violations, the amplitude spectrum, the sizing sweeps and a full-resolution waveform window.

Vectorised numpy streamed in chunks, not SimPy: the load is a deterministic function of time sampled every
``resolution_ms`` (864,000 steps a day at 100 ms), the events are known in advance, and an event clock would
cost a Python step per sample. The full resolution is never held: chunks of about ten minutes flow through
the mitigations and the metrics, whose state (limiter outputs, trailing windows, battery charge, spectrum
sums, extremes) is carried across chunk boundaries. Searches and sweeps run many variants side by side in
one pass (a leading axis). The seed is accepted and unused (every replica is the same).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from campus.analysis.facility import campus_pue
from campus.analysis.heat import it_beyond_at
from campus.analysis.onsite import prime_generators, storage_pool
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.units import kw_to_mw
from simulations.engine import words
from simulations.engine.contract import ScenarioKind
from simulations.engine.loads import DEAD_RACK_STATUSES, baseline_it
from simulations.engine.params import BessParams, GenerationParams, ParamsError, PowerDynamicsParams
from simulations.engine.results import Progress, ReplicaResult

# The scenario model contract (simulations.engine.contract.ScenarioModel), read by the registry.
KIND = ScenarioKind.POWER_DYNAMICS
LABEL = "Training power dynamics"
Params = PowerDynamicsParams
METRICS = words.POWER_DYNAMICS_METRICS
explain = words.explain_power_dynamics


def stochastic(params: PowerDynamicsParams) -> bool:
    """Never: the same parameters give the same swings for every seed."""
    return False


CHUNK_SECONDS = 600.0  # streamed chunk, s
MAX_STEPS = 20_000_000  # steps in one run
# Flat-top window (the coefficients of scipy.signal.windows.flattop / ISO 18431-1): amplitudes are read
# within 0.1 dB wherever the frequency falls between bins.
FLATTOP = (0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368)
# Searches: candidates per refining pass (the two ends are the bracket, already known) and the width of
# the final bracket, as a share of the searched range.
SEARCH_REFINE = 9
SEARCH_RESOLUTION = 1 / 500
# The battery pulls its charge back towards half full, re-set every RECHARGE_EVERY_S, at the gap over
# RECHARGE_H hours and at most a tenth of its power.
RECHARGE_EVERY_S = 60.0
RECHARGE_H = 0.25  # candidates per search pass
_EPS = 1e-9


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


def _error(field_name: str, message: str) -> ParamsError:
    return ParamsError([{"field": field_name, "message": message}])


def _job_timelines(p: PowerDynamicsParams) -> list[JobTimeline]:
    out = []
    for j, job in enumerate(p.jobs):
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
                dur = ev.duration_seconds if ev.duration_seconds is not None else job.checkpoint_seconds
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
                job.checkpoint_seconds,
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
            )
    return params.model_copy(update={"bess": bess, "generation": generation}), sources


def prepare(snap: CampusSnapshot, params: PowerDynamicsParams) -> DynamicsPlan:
    p, assets = campus_assets(snap, params)
    dt = p.resolution_ms / 1000.0
    steps = max(1, math.ceil(p.duration_seconds / dt - 1e-9))
    if steps > MAX_STEPS:
        raise _error("duration_seconds", f"{steps} steps at this resolution; at most {MAX_STEPS}")
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
            const_w[b] += n * (spec.overhead_w + spec.nics * spec.nic_extra_w)
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
    beyond_kw = it.network_kw + it.other_it_kw
    if beyond_kw > 0:
        beyond = it_beyond_at(snap)
        hall_building = {h.id: h.building_id for h in snap.halls}
        rack_kw: dict[int, float] = {}
        for r in snap.racks:
            if r.status not in DEAD_RACK_STATUSES:
                rack_kw[r.building_id] = rack_kw.get(r.building_id, 0.0) + snap.rack_it_kw(r)
        places = list(beyond.network_kw_by_place.items())
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
    return DynamicsPlan(
        params=p,
        dt_s=dt,
        steps=steps,
        units=units,
        jobs=_job_timelines(p),
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
    )


# ---------------------------------------------------------------- the load


def job_signal(job: JobTimeline, t_s: np.ndarray, idle: float) -> tuple[np.ndarray, np.ndarray]:
    """(GPU power as a fraction of TDP, running flag) of one job at the times ``t_s``."""
    f = np.full(t_s.shape, idle)
    up = np.zeros(t_s.shape, dtype=bool)
    t0, t1 = float(t_s[0]), float(t_s[-1])
    period = job.iteration_s
    compute_s = (1.0 - job.comm_fraction) * period
    for start, end, ramp in job.runs:
        if end <= t0 or start > t1:
            continue
        mask = (t_s >= start - _EPS) & (t_s < end - _EPS)
        tau = t_s[mask] - start
        phase = np.mod(tau + job.phase_offset_s, period)
        val = np.where(phase < compute_s - _EPS, 1.0, job.comm_power_fraction)
        if job.checkpoint_every_s is not None and job.checkpoint_s > 0:
            every = job.checkpoint_every_s
            in_ck = np.mod(tau, every) >= every - job.checkpoint_s - _EPS
            in_ck &= tau >= every - job.checkpoint_s - _EPS
            val = np.where(in_ck, idle, val)
        if ramp > 0:
            val = idle + (val - idle) * np.clip(tau / ramp, 0.0, 1.0)
        f[mask] = val
        up |= mask
    for start, end in job.checkpoints:
        if end <= t0 or start > t1:
            continue
        mask = (t_s >= start - _EPS) & (t_s < end - _EPS) & up
        f[mask] = idle
    return f, up


def dip_factor(dips: list[tuple[float, float, float, float]], t_s: np.ndarray) -> np.ndarray:
    """Share of the load on the grid: 1 less what the voltage dips tripped off and not yet brought back."""
    out = np.ones(t_s.shape)
    for at, trip, back_s, ramp_s in dips:
        since = t_s - at
        off = np.where(since < -_EPS, 0.0, trip)
        if ramp_s > 0:
            back = np.clip((since - back_s) / ramp_s, 0.0, 1.0)
        else:
            back = (since >= back_s - _EPS).astype(float)
        out *= 1.0 - off * (1.0 - back)
    return out


def rate_limit(
    x: np.ndarray, last: np.ndarray | None, up: float | None, down: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Limit the change per step of ``x`` (last axis) to ``up`` rising and ``down`` falling, starting from
    ``last`` (None: from x's first value). The fall limit is met by staying higher (y >= x), then the rise
    limit by staying lower; the result meets both (a cumulative max, then a cumulative min, both exact).
    Returns (y, y's last value, the fall-limited signal's last value) for the next chunk."""
    if last is None:
        last = np.stack([x[..., 0], x[..., 0]], axis=0)
    k = np.arange(1, x.shape[-1] + 1, dtype=float)
    y = x
    last_down, last_up = last[0], last[1]
    if down is not None:
        z = np.concatenate([last_down[..., None], y + down * k], axis=-1)
        y = np.maximum.accumulate(z, axis=-1)[..., 1:] - down * k
    new_down = y[..., -1].copy()
    if up is not None:
        z = np.concatenate([last_up[..., None], y - up * k], axis=-1)
        y = np.minimum.accumulate(z, axis=-1)[..., 1:] + up * k
    return y, y[..., -1].copy(), new_down


def trailing_mean(x: np.ndarray, history: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the last ``w`` samples at each sample of ``x`` (last axis), continuing ``history`` (the w - 1
    samples before x). Returns (the means, the history for the next chunk)."""
    if w <= 1:
        return x, history
    ext = np.concatenate([history, x], axis=-1)
    cs = np.cumsum(ext, axis=-1)
    cs = np.concatenate([np.zeros(cs.shape[:-1] + (1,)), cs], axis=-1)
    mean = (cs[..., w:] - cs[..., :-w]) / w
    return mean, ext[..., -(w - 1) :].copy()


def sliding_extremes(a: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Max and min of every window of ``w`` consecutive samples along the last axis (van Herk / Gil-Werman:
    prefix and suffix extremes within blocks of w, O(n))."""
    n = a.shape[-1]
    if n < w:
        return a.max(axis=-1, keepdims=True), a.min(axis=-1, keepdims=True)
    nb = math.ceil(n / w)
    pad = nb * w - n
    out = []
    for op, fill in ((np.maximum, -np.inf), (np.minimum, np.inf)):
        padded = np.concatenate([a, np.full(a.shape[:-1] + (pad,), fill)], axis=-1)
        blocks = padded.reshape(a.shape[:-1] + (nb, w))
        g = op.accumulate(blocks, axis=-1).reshape(padded.shape)
        h = op.accumulate(blocks[..., ::-1], axis=-1)[..., ::-1].reshape(padded.shape)
        out.append(op(h[..., : n - w + 1], g[..., w - 1 : n]))
    return out[0], out[1]


@lru_cache(maxsize=8)
def flattop(n: int) -> np.ndarray:
    x = 2.0 * np.pi * np.arange(n) / n  # periodic (DFT-even) window
    w = sum(((-1) ** i) * a * np.cos(i * x) for i, a in enumerate(FLATTOP))
    w.flags.writeable = False
    return w


@lru_cache(maxsize=8)
def _flattop_spectrum(n: int) -> np.ndarray:
    out = np.fft.rfft(flattop(n))
    out.flags.writeable = False
    return out


# ---------------------------------------------------------------- one streamed pass


@dataclass
class Variant:
    """Mitigation settings that differ between the variants of one pass."""

    floor_fraction: np.ndarray  # (V,)
    bess_mw: np.ndarray  # (V,)
    bess_mwh: np.ndarray  # (V,)


@dataclass
class PassResult:
    swing_mw: np.ndarray
    max_ramp_mw_per_s: np.ndarray
    max_ramp_mw_per_min: np.ndarray
    band_amplitude_mw: np.ndarray
    freq_hz: np.ndarray
    amplitude_mw: np.ndarray  # (V, F)
    energy: dict[str, np.ndarray]  # MWh per variant
    extremes: dict[str, np.ndarray]
    series: dict[str, np.ndarray] = field(default_factory=dict)
    waveform: dict[str, np.ndarray] = field(default_factory=dict)


def _battery(pw: np.ndarray, soc: np.ndarray, kwh: np.ndarray, eta: float, dt_h: float) -> np.ndarray:
    """Charge after the battery powers ``pw`` (kW, > 0 discharging; (V, n), trimmed in place where the charge
    runs out or fills up) starting from ``soc`` (kWh); charging and discharging each at efficiency ``eta``."""
    d_soc = np.where(pw > 0, -pw / eta, -pw * eta) * dt_h
    path = soc[:, None] + np.cumsum(d_soc, axis=-1)
    out = path[:, -1].copy()
    bad = np.any((path < -_EPS) | (path > kwh[:, None] + _EPS), axis=-1)
    for v in np.flatnonzero(bad):  # step by step where a bound is met
        s = soc[v]
        row = pw[v]
        for i in range(row.shape[0]):
            q = row[i]
            if q > 0:
                q = min(q, s * eta / dt_h)
                s -= q / eta * dt_h
            else:
                q = max(q, -(kwh[v] - s) / eta / dt_h)
                s -= q * eta * dt_h
            row[i] = q
        out[v] = s
    return out


def _welch_frames(buf: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Flat-top power sums of the half-overlapping frames of n samples in ``buf`` and the samples used."""
    hop = n // 2
    frames = 1 + (buf.shape[-1] - n) // hop
    view = sliding_window_view(buf, n, axis=-1)[..., : frames * hop : hop, :]
    # the segment's mean removed after the transform: rfft((x - m) w) = rfft(x w) - m rfft(w)
    spec = np.fft.rfft(view * flattop(n), axis=-1) - view.mean(axis=-1, keepdims=True) * _flattop_spectrum(n)
    return (spec.real**2 + spec.imag**2).sum(axis=-2), frames * hop


def simulate(
    plan: DynamicsPlan, variant: Variant, collect: bool = False, progress: Progress | None = None
) -> PassResult:
    """Stream the whole duration once for every variant side by side (a leading axis of V)."""
    p = plan.params
    dt = plan.dt_s
    dt_h = dt / 3600.0
    v_n = variant.floor_fraction.shape[0]
    idle = p.idle_gpu_fraction
    sm = p.smoothing
    gen = p.generation
    bess = p.bess
    factor = plan.facility_factor
    const_kw = float(plan.const_kw_by_building.sum())
    unit_kw_per_w = np.array([u.gpus / 1000.0 for u in plan.units])  # (U,)
    tdp = np.array([u.tdp_w for u in plan.units])
    # every variant with the same floor (a battery search): the GPUs' side is computed once
    same_floor = bool(np.all(variant.floor_fraction == variant.floor_fraction[0]))
    floors = variant.floor_fraction[:1] if same_floor else variant.floor_fraction
    floor_w = floors[:, None] * tdp[None, :]  # (V or 1, U)
    up_step = sm.ramp_up_w_per_s * dt if sm.ramp_up_w_per_s is not None else None
    down_step = sm.ramp_down_w_per_s * dt if sm.ramp_down_w_per_s is not None else None
    limit_last: np.ndarray | None = None
    storage_hist: list[np.ndarray | None] = [None] * len(plan.units)
    gen_on = gen.rating_mw > 0
    gen_step_kw = gen.ramp_mw_per_s * 1000.0 * dt
    gen_last: np.ndarray | None = None
    bess_on = bool(np.any(variant.bess_mw > 0))
    bess_kw = variant.bess_mw * 1000.0
    bess_kwh = variant.bess_mwh * 1000.0
    eta = math.sqrt(bess.round_trip_efficiency)
    soc = bess_kwh / 2.0
    soc0 = soc.copy()
    bess_w = max(1, round(bess.window_seconds / dt))
    bess_hist: np.ndarray | None = None
    recharge_steps = max(1, round(RECHARGE_EVERY_S / dt))
    rec = np.zeros(v_n)
    delay = round(bess.response_ms / p.resolution_ms)
    delay_hist = np.zeros((v_n, delay))
    # metric state
    hist_n = max(plan.lag_s_steps, 2 * plan.lag_min_steps, plan.swing_steps)
    grid_hist = np.zeros((v_n, 0))
    mean_hist: np.ndarray | None = None
    swing = np.zeros(v_n)
    ramp_s = np.zeros(v_n)
    ramp_min = np.zeros(v_n)
    nseg = plan.nperseg
    welch_buf = np.zeros((v_n, 0))
    welch_sum = np.zeros((v_n, nseg // 2 + 1))
    welch_frames = 0
    e = {
        k: np.zeros(v_n)
        for k in (
            "natural",
            "burn",
            "throttle",
            "rack_held",
            "tripped",
            "generation",
            "bess_discharge",
            "bess_charge",
            "grid",
        )
    }
    ext = {k: np.full(v_n, np.nan) for k in ("grid_peak_mw", "grid_min_mw")}
    ext["grid_peak_mw"][:] = -np.inf
    ext["grid_min_mw"][:] = np.inf
    series: dict[str, list[np.ndarray]] = {}
    wave: dict[str, list[np.ndarray]] = {}
    w_start, w_end = plan.waveform

    def keep(name: str, values: np.ndarray) -> None:
        series.setdefault(name, []).append(values)

    # The first chunk holds at least the longest trailing window, so the windows start with the first
    # window's span repeated before t = 0 (the campus in steady state) whatever the chunk length.
    longest = max([u.storage_steps for u in plan.units] + [bess_w if bess_on else 1])
    bucket = plan.bucket_steps
    first = bucket * math.ceil(max(plan.chunk_steps, longest) / bucket)
    chunk_starts = [0, *range(first, plan.steps, plan.chunk_steps)]
    for ci, n0 in enumerate(chunk_starts):
        n1 = chunk_starts[ci + 1] if ci + 1 < len(chunk_starts) else plan.steps
        n = n1 - n0
        t = (n0 + np.arange(n)) * dt
        # the jobs' GPU power, W per GPU of each unit
        sig = [job_signal(job, t, idle) for job in plan.jobs]
        x = np.stack([sig[u.job][0] * u.tdp_w for u in plan.units])  # (U, n)
        up = np.stack([sig[u.job][1] for u in plan.units])
        natural_kw = (unit_kw_per_w @ x + const_kw) * factor  # (n,)
        # smoothing: the floor while the job runs, then the ramp limits
        y = np.where(up[None], np.maximum(x[None], floor_w[:, :, None]), x[None])  # (V, U, n)
        if up_step is not None or down_step is not None:
            y, last_up, last_down = rate_limit(y, limit_last, up_step, down_step)
            limit_last = np.stack([last_down, last_up], axis=0)
        diff = y - x[None]
        burn_w = np.clip(diff, 0.0, None).sum(axis=-1) @ unit_kw_per_w  # (V,) kW-steps
        throttle_w = np.clip(-diff, 0.0, None).sum(axis=-1) @ unit_kw_per_w
        # rack storage: the trailing mean over the window it can buffer
        z = np.empty_like(y)
        for ui, u in enumerate(plan.units):
            if u.storage_steps <= 1:
                z[:, ui] = y[:, ui]
                continue
            hist = storage_hist[ui]
            if hist is None:
                # before t = 0 the first window repeats: a periodic load whose period divides it is steady
                hist = y[:, ui, 1 : u.storage_steps].copy()
            z[:, ui], storage_hist[ui] = trailing_mean(y[:, ui], hist, u.storage_steps)
        held_w = (y - z).sum(axis=-1) @ unit_kw_per_w
        load_kw = (np.einsum("vun,u->vn", z, unit_kw_per_w) + const_kw) * factor  # (V, n)
        # voltage dips
        phi = dip_factor(plan.dips, t) if plan.dips else None
        if phi is not None:
            on_grid = load_kw * phi
            e["tripped"] += (load_kw - on_grid).sum(axis=-1) * dt_h
        else:
            on_grid = load_kw
        # on-site generation following the load
        if gen_on:
            target = np.clip(on_grid - gen.grid_import_mw * 1000.0, 0.0, gen.rating_mw * 1000.0)
            last = None if gen_last is None else np.stack([gen_last[0], gen_last[1]])
            g_kw, g_up, g_down = rate_limit(target, last, gen_step_kw, gen_step_kw)
            g_kw = np.clip(g_kw, 0.0, gen.rating_mw * 1000.0)
            gen_last = np.stack([g_down, g_up])
            e["generation"] += g_kw.sum(axis=-1) * dt_h
            g1 = on_grid - g_kw
        else:
            g_kw = None
            g1 = on_grid
        # the battery: hold the grid to the trailing mean
        if bess_on:
            g1 = np.broadcast_to(g1, (v_n, n))
            if bess_hist is None:
                bess_hist = g1[:, 1:bess_w].copy()
            mean, bess_hist = trailing_mean(g1, bess_hist, bess_w)
            want = g1 - mean
            if delay:
                want = np.concatenate([delay_hist, want], axis=-1)
                delay_hist = want[:, -delay:].copy()
                want = want[:, :n]
            pw = np.empty_like(want)
            soc_at_start = soc.copy()
            # the pull towards half charge is set at each whole RECHARGE_EVERY_S of the run (whatever the chunks)
            cuts = [i - n0 for i in range(n0, n1) if i % recharge_steps == 0]
            bounds = sorted({0, n, *cuts})
            for a, b in zip(bounds[:-1], bounds[1:], strict=False):
                if a in cuts:
                    rec = np.clip((bess_kwh / 2.0 - soc) / RECHARGE_H, -0.1 * bess_kw, 0.1 * bess_kw)
                pw[:, a:b] = np.clip(want[:, a:b] - rec[:, None], -bess_kw[:, None], bess_kw[:, None])
                soc = _battery(pw[:, a:b], soc, bess_kwh, eta, dt_h)
            e["bess_discharge"] += np.clip(pw, 0.0, None).sum(axis=-1) * dt_h
            e["bess_charge"] += np.clip(-pw, 0.0, None).sum(axis=-1) * dt_h
            grid = g1 - pw
        else:
            pw = None
            grid = np.broadcast_to(g1, (v_n, n))
        e["natural"] += natural_kw.sum() * dt_h
        e["burn"] += burn_w * factor * dt_h
        e["throttle"] += throttle_w * factor * dt_h
        e["rack_held"] += held_w * factor * dt_h
        e["grid"] += grid.sum(axis=-1) * dt_h
        grid_mw = grid / 1000.0
        ext["grid_peak_mw"] = np.maximum(ext["grid_peak_mw"], grid_mw.max(axis=-1))
        ext["grid_min_mw"] = np.minimum(ext["grid_min_mw"], grid_mw.min(axis=-1))
        # ramps and swing over the chunk and the samples before it
        full = np.concatenate([grid_hist, grid_mw], axis=-1)
        h = grid_hist.shape[-1]
        lag = plan.lag_s_steps
        if full.shape[-1] > lag:
            d1 = np.abs(full[:, lag:] - full[:, :-lag])[:, max(0, h - lag) :]
            ramp_s = np.maximum(ramp_s, d1.max(axis=-1))
        w = plan.swing_steps
        seg = full[:, max(0, h - w + 1) :]
        hi_w, lo_w = sliding_extremes(seg, min(w, seg.shape[-1]))
        swing = np.maximum(swing, (hi_w - lo_w).max(axis=-1))
        m = plan.lag_min_steps
        if mean_hist is None:
            mean_hist = np.zeros((v_n, 0))
        if full.shape[-1] >= m:
            cs = np.concatenate([np.zeros((v_n, 1)), np.cumsum(full, axis=-1)], axis=-1)
            means = (cs[:, m:] - cs[:, :-m]) / m  # means[i]: window ending at full[i + m - 1]
            first_new = max(0, h - m + 1)  # windows ending in this chunk
            means_new = means[:, first_new:]
            mfull = np.concatenate([mean_hist, means_new], axis=-1)
            if mfull.shape[-1] > m:
                dm = np.abs(mfull[:, m:] - mfull[:, :-m])[:, max(0, mean_hist.shape[-1] - m) :]
                if dm.size:
                    ramp_min = np.maximum(ramp_min, dm.max(axis=-1))
            mean_hist = mfull[:, -m:].copy()
        grid_hist = full[:, -hist_n:].copy()
        # spectrum
        welch_buf = np.concatenate([welch_buf, grid_mw], axis=-1)
        if welch_buf.shape[-1] >= nseg:
            power, used = _welch_frames(welch_buf, nseg)
            welch_sum += power
            welch_frames += 1 + (welch_buf.shape[-1] - nseg) // (nseg // 2)
            welch_buf = welch_buf[:, used:].copy()
        if collect:
            starts = np.arange(0, n, plan.bucket_steps)
            keep("t_hours", t[starts] / 3600.0)
            for name, arr in (("grid", grid_mw[0]), ("load", natural_kw / 1000.0)):
                keep(f"{name}_mw", np.add.reduceat(arr, starts) / np.diff(np.append(starts, n)))
                keep(f"{name}_min_mw", np.minimum.reduceat(arr, starts))
                keep(f"{name}_max_mw", np.maximum.reduceat(arr, starts))
            counts = np.diff(np.append(starts, n))
            keep(
                "bess_mw", np.add.reduceat(pw[0], starts) / counts / 1000.0 if pw is not None else 0 * counts
            )
            ends = np.append(starts[1:], n) - 1
            if pw is not None:  # the charge at the end of each bucket
                d_soc = np.where(pw[0] > 0, -pw[0] / eta, -pw[0] * eta) * dt_h
                keep("bess_soc_mwh", (soc_at_start[0] + np.cumsum(d_soc))[ends] / 1000.0)
            else:
                keep("bess_soc_mwh", np.zeros(starts.shape))
            keep(
                "generation_mw",
                np.add.reduceat(g_kw[0], starts) / counts / 1000.0 if g_kw is not None else 0.0 * counts,
            )
            bkw = (plan.weights_kw @ z[0] + plan.const_kw_by_building[:, None]) * factor
            if phi is not None:
                bkw = bkw * phi[None]
            for bi, b in enumerate(plan.buildings):
                row = bkw[bi] / 1000.0
                keep(f"building.{b}.mw", np.add.reduceat(row, starts) / counts)
                keep(f"building.{b}.min_mw", np.minimum.reduceat(row, starts))
                keep(f"building.{b}.max_mw", np.maximum.reduceat(row, starts))
            lo_i, hi_i = max(w_start, n0), min(w_end, n1)
            if lo_i < hi_i:
                wave.setdefault("t_s", []).append(t[lo_i - n0 : hi_i - n0])
                wave.setdefault("grid_mw", []).append(grid_mw[0, lo_i - n0 : hi_i - n0])
                wave.setdefault("load_mw", []).append(natural_kw[lo_i - n0 : hi_i - n0] / 1000.0)
        if progress is not None:
            progress(n1 / plan.steps)
    # spectrum: the averaged frames (or the one short frame there is)
    if welch_frames == 0:
        nlen = welch_buf.shape[-1]
        if nlen >= 4:
            power, _ = _welch_frames(welch_buf, nlen)
            welch_sum, welch_frames, nseg = power, 1, nlen
        else:
            welch_sum, welch_frames, nseg = np.zeros((v_n, 1)), 1, 1
    win_sum = float(flattop(nseg).sum()) if nseg > 1 else 1.0
    amplitude = 2.0 * np.sqrt(welch_sum / welch_frames) / win_sum
    freq = np.fft.rfftfreq(nseg, dt) if nseg > 1 else np.zeros(1)
    lo, hi = p.requirements.band_hz
    in_band = (freq >= lo - _EPS) & (freq <= hi + _EPS)
    band = amplitude[:, in_band].max(axis=-1) if in_band.any() else np.zeros(v_n)
    energy = {k: v / 1000.0 for k, v in e.items()}
    energy["bess_soc_gain"] = (soc - soc0) / 1000.0
    energy["bess_loss"] = energy["bess_charge"] - energy["bess_discharge"] - energy["bess_soc_gain"]
    return PassResult(
        swing_mw=swing,
        max_ramp_mw_per_s=ramp_s,
        max_ramp_mw_per_min=ramp_min,
        band_amplitude_mw=band,
        freq_hz=freq,
        amplitude_mw=amplitude,
        energy=energy,
        extremes=ext,
        series={k: np.concatenate(v) for k, v in series.items()},
        waveform={k: np.concatenate(v) for k, v in wave.items()},
    )


# ---------------------------------------------------------------- requirements and searches


REQUIREMENTS = (
    ("max_swing_mw", "swing_mw"),
    ("max_ramp_mw_per_s", "max_ramp_mw_per_s"),
    ("max_ramp_mw_per_min", "max_ramp_mw_per_min"),
    ("max_band_mw", "band_amplitude_mw"),
)


def violations(plan: DynamicsPlan, r: PassResult, v: int = 0) -> list[dict[str, Any]]:
    req = plan.params.requirements
    out = []
    for limit_name, metric in REQUIREMENTS:
        limit = getattr(req, limit_name)
        value = float(getattr(r, metric)[v])
        if limit is not None and value > limit * (1 + 1e-9):
            entry = {"requirement": limit_name, "metric": metric, "limit": limit, "value": value}
            if limit_name == "max_band_mw":
                entry["band_hz"] = list(req.band_hz)
            out.append(entry)
    return out


def compliant(plan: DynamicsPlan, r: PassResult) -> np.ndarray:
    req = plan.params.requirements
    ok = np.ones(r.swing_mw.shape, dtype=bool)
    for limit_name, metric in REQUIREMENTS:
        limit = getattr(req, limit_name)
        if limit is not None:
            ok &= getattr(r, metric) <= limit * (1 + 1e-9)
    return ok


def _variants(plan: DynamicsPlan, floors=None, bess_mw=None) -> Variant:
    p = plan.params
    size = len(floors) if floors is not None else len(bess_mw) if bess_mw is not None else 1
    f = np.asarray(floors, float) if floors is not None else np.full(size, p.smoothing.floor_fraction)
    mw = np.asarray(bess_mw, float) if bess_mw is not None else np.full(size, p.bess.power_mw)
    hours = p.bess.energy_mwh / p.bess.power_mw if p.bess.power_mw > 0 else 0.25
    mwh = mw * hours if bess_mw is not None else np.full(size, p.bess.energy_mwh)
    return Variant(f, mw, mwh)


def _search(plan: DynamicsPlan, lo: float, hi: float, make, first_n: int):
    """The smallest value in [lo, hi] whose variant complies (compliance taken as monotone in it): a grid of
    ``first_n`` candidates in one pass (also the sizing sweep), then passes of SEARCH_REFINE - 2 candidates
    inside the bracket of the last failing and the first passing one, until the bracket is narrower than
    SEARCH_RESOLUTION of the range. Returns (the value or None, the first grid, its pass)."""
    grid = np.linspace(lo, hi, first_n)
    first = simulate(plan, make(grid))
    ok = compliant(plan, first)
    if not ok.any():
        return None, grid, first
    i = int(np.argmax(ok))
    if i == 0:
        return float(grid[0]), grid, first
    fail, good = float(grid[i - 1]), float(grid[i])
    while good - fail > (hi - lo) * SEARCH_RESOLUTION:
        cand = np.linspace(fail, good, SEARCH_REFINE)[1:-1]
        ok = compliant(plan, simulate(plan, make(cand)))
        if ok.any():
            j = int(np.argmax(ok))
            good = float(cand[j])
            fail = float(cand[j - 1]) if j > 0 else fail
        else:
            fail = float(cand[-1])
    return good, grid, first


def _sweep(plan: DynamicsPlan, values: np.ndarray, r: PassResult, name: str) -> dict[str, list]:
    ok = compliant(plan, r)
    return {
        name: [float(x) for x in values],
        "swing_mw": [float(x) for x in r.swing_mw],
        "max_ramp_mw_per_s": [float(x) for x in r.max_ramp_mw_per_s],
        "max_ramp_mw_per_min": [float(x) for x in r.max_ramp_mw_per_min],
        "band_amplitude_mw": [float(x) for x in r.band_amplitude_mw],
        "compliant": [bool(x) for x in ok],
    }


def _thin_spectrum(freq: np.ndarray, amp: np.ndarray, points: int = 2000) -> dict[str, list[float]]:
    """The spectrum for a chart: at most ``points`` bins, the largest amplitude of each group kept."""
    if freq.size <= points:
        return {"f_hz": [float(x) for x in freq], "amplitude_mw": [float(x) for x in amp]}
    edges = np.linspace(0, freq.size, points + 1).astype(int)
    picks = [lo + int(np.argmax(amp[lo:hi])) for lo, hi in zip(edges[:-1], edges[1:], strict=True) if hi > lo]
    return {"f_hz": [float(freq[i]) for i in picks], "amplitude_mw": [float(amp[i]) for i in picks]}


# ---------------------------------------------------------------- one replica


def run(plan: DynamicsPlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """Deterministic: the seed is accepted for a uniform interface and not used."""
    p = plan.params
    main_progress = None
    if progress is not None:
        share = 1.0 if not p.search else 0.4

        def main_progress(fraction: float) -> None:
            progress(share * fraction)

    r = simulate(plan, _variants(plan), collect=True, progress=main_progress)
    found = violations(plan, r)
    en = r.energy
    metrics = {
        "swing_mw": float(r.swing_mw[0]),
        "max_ramp_mw_per_s": float(r.max_ramp_mw_per_s[0]),
        "max_ramp_mw_per_min": float(r.max_ramp_mw_per_min[0]),
        "band_amplitude_mw": float(r.band_amplitude_mw[0]),
        "compliant": 0.0 if found else 1.0,
        "violation_count": float(len(found)),
        "smoothing_energy_mwh": float(en["burn"][0]),
        "smoothing_throttled_mwh": float(en["throttle"][0]),
        "bess_throughput_mwh": float(en["bess_discharge"][0] + en["bess_charge"][0]),
        "bess_loss_mwh": float(en["bess_loss"][0]),
        "bess_soc_gain_mwh": float(en["bess_soc_gain"][0]),
        "generation_mwh": float(en["generation"][0]),
        "tripped_mwh": float(en["tripped"][0]),
        "rack_storage_held_mwh": float(en["rack_held"][0]),
        "energy_natural_mwh": float(en["natural"][0]),
        "energy_grid_mwh": float(en["grid"][0]),
        "peak_grid_mw": float(r.extremes["grid_peak_mw"][0]),
        "min_grid_mw": float(r.extremes["grid_min_mw"][0]),
        "mean_grid_mw": float(en["grid"][0] / (plan.steps * plan.dt_s / 3600.0)),
    }
    details: dict[str, Any] = {
        "violations": found,
        "requirements": p.requirements.model_dump(mode="json"),
        "spectrum": {**_thin_spectrum(r.freq_hz, r.amplitude_mw[0]), "band_hz": list(p.requirements.band_hz)},
        "waveform": {k: [float(x) for x in v] for k, v in r.waveform.items()},
        "resolution_ms": p.resolution_ms,
        "steps": plan.steps,
        "assets": {
            "bess": {"source": plan.assets.get("bess", "params"), **p.bess.model_dump(mode="json")},
            "generation": {
                "source": plan.assets.get("generation", "params"),
                **p.generation.model_dump(mode="json"),
            },
        },
    }
    if p.search:
        bound_mw = 2.0 * plan.natural_peak_mw
        n_first = p.sizing_points
        floor, floors, floor_first = _search(plan, 0.0, 1.0, lambda g: _variants(plan, floors=g), n_first)
        if progress is not None:
            progress(0.7)
        bess, sizes, bess_first = _search(plan, 0.0, bound_mw, lambda g: _variants(plan, bess_mw=g), n_first)
        metrics["min_floor_to_comply"] = math.nan if floor is None else floor
        metrics["min_bess_mw_to_comply"] = math.nan if bess is None else bess
        details["sizing"] = {
            "floor": _sweep(plan, floors, floor_first, "floor_fraction"),
            "bess": _sweep(plan, sizes, bess_first, "bess_mw"),
        }
        details["min_floor_to_comply"] = floor
        details["min_bess_mw_to_comply"] = bess
        details["search_bound_bess_mw"] = bound_mw
    if progress is not None:
        progress(1.0)
    return ReplicaResult(metrics=metrics, series=r.series, events=plan.steps, details=details)
