"""The liquid_cooling model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.liquid_cooling``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simulations.engine.job import cap_throughput_fraction
from simulations.engine.kinds.liquid_cooling.params import LiquidCoolingParams
from simulations.engine.kinds.liquid_cooling.plan import (
    LIQUID_TYPES,
    WATER_J_PER_K_PER_L,
    CoolingPlan,
    EventEffect,
    Group,
    prepare,
)
from simulations.engine.rc import crossing, rc_temperature
from simulations.engine.results import Progress, ReplicaResult

# the kind's public names, those of its plan (simulations.engine.kinds.liquid_cooling.plan) included
__all__ = [
    "CoolingPlan",
    "EventEffect",
    "Group",
    "LIQUID_TYPES",
    "WATER_J_PER_K_PER_L",
    "prepare",
    "stochastic",
    "run",
]


def stochastic(params: LiquidCoolingParams) -> bool:
    """With events, yes: the temperatures are the same for every seed, but where the job stands in its
    checkpoint cycle when a shutdown interrupts it is random, and with it the work lost. Without events
    nothing can shut down, so every replica is the same (the baseline a run is compared with): one replica."""
    return bool(params.events)


NORMAL, THROTTLED, MIN_POWER, SHUTDOWN, RESTARTING = range(5)
_EPS_S = 1e-9
# Margin on the heat the cooling can hold at slowdown against the minimum power, so that the throttled
# and minimum-power modes cannot hand over to each other without time passing.
_EPS_P = 1e-9
# A phase never needs more mode changes than this; more means a modelling bug, not a long phase.
_MAX_STEPS_PER_PHASE = 1000
# Bounds on the series one replica carries: per affected group, and per affected rack (for the floor-map replay).
MAX_GROUP_SERIES = 16
MAX_RACK_SERIES = 512


# ---------------------------------------------------------------- one group through time


@dataclass
class Segment:
    t0: float
    t1: float
    mode: int
    temp0: float
    p: float  # heat fraction (NORMAL/MIN_POWER), or unused
    g: float
    a: float  # coolant temperature at t0
    b: float  # coolant ramp, K/s


def _simulate_group(plan: CoolingPlan, grp: Group) -> list[Segment]:
    """The group's piecewise history as exact segments."""
    p = plan.params
    if grp.liquid:
        c, g0 = p.liquid_heat_capacity_j_per_k_per_kw, p.liquid_conductance_w_per_k_per_kw
    else:
        c, g0 = p.air_heat_capacity_j_per_k_per_kw, p.air_conductance_w_per_k_per_kw
    supply = plan.supply_c[grp.label]
    t_end = p.duration_minutes * 60.0
    slow, shut = grp.gpu.slowdown_temp_c, grp.gpu.shutdown_temp_c
    p_min = grp.gpu.min_cap_fraction
    restart_s = p.node_restart_minutes * 60.0
    # phase boundaries: event starts and ends
    cuts = {0.0, t_end}
    # Heat only flows from the GPUs into the loop, so a heating loop stops short of the shutdown
    # temperature (every GPU is off by then): the ramp ends there.
    cool_cap = shut
    for i in grp.events:
        e = plan.effects[i]
        cuts.update(x for x in (e.start_s, e.end_s) if 0 < x < t_end)
        cuts.update(x for x, _ in e.g_steps if 0 < x < t_end)
        cuts.update(x for x, _ in e.ramp_steps if 0 < x < t_end)
        if any(k > 0 for k in (e.ramp_k_per_s, *(k for _, k in e.ramp_steps))):
            t_cap = e.ramp_reaches_s(cool_cap - supply - e.supply_rise_k)
            if e.start_s < t_cap < min(e.end_s, t_end):
                cuts.add(t_cap)
    bounds = sorted(cuts)

    def env_at(t: float) -> tuple[float, float, float, bool]:
        """(g, coolant at t, ramp, cooling impaired) at time t (within one phase)."""
        g, a, b, impaired = g0, supply, 0.0, False
        for i in grp.events:
            e = plan.effects[i]
            if e.start_s <= t < e.end_s:
                impaired = True
                g *= e.g_at(t)
                a += e.supply_rise_k + e.ramp_rise_k(t)
                b += e.ramp_at(t)
        if b > 0 and a >= cool_cap - 1e-9:
            a, b = cool_cap, 0.0
        return g, a, b, impaired

    segs: list[Segment] = []
    temp = supply + 1000.0 / g0  # steady state at full load
    mode = NORMAL
    restart_at = math.inf
    for k in range(len(bounds) - 1):
        t, t_phase_end = bounds[k], bounds[k + 1]
        steps = 0
        while t < t_phase_end - _EPS_S:
            steps += 1
            if steps > _MAX_STEPS_PER_PHASE:
                raise RuntimeError(f"thermal model of {grp.label} stuck at t = {t:.3f} s")
            g, a, b, impaired = env_at(t)
            horizon = t_phase_end - t
            if mode == SHUTDOWN:
                if not impaired and restart_at == math.inf:
                    restart_at = t + restart_s
                t_next = min(t_phase_end, restart_at)
                segs.append(Segment(t, t_next, SHUTDOWN, temp, 0.0, g, a, b))
                temp = float(rc_temperature(t_next - t, temp, 0.0, g, c, a, b))
                t = t_next
                if t >= restart_at - _EPS_S:
                    mode, restart_at = NORMAL, math.inf
                continue
            if mode == THROTTLED:
                need = g * (slow - a) / 1000.0  # heat that holds T at slowdown, at the phase start
                if need >= 1.0:
                    mode = NORMAL
                    continue
                if need <= p_min + _EPS_P:
                    mode = MIN_POWER
                    continue
                # p falls with a rising coolant: reach p_min after (need - p_min) / (g b / 1000)
                dt = (need - p_min) / (g * b / 1000.0) if b > 0 else math.inf
                t_next = min(t_phase_end, t + dt)
                segs.append(Segment(t, t_next, THROTTLED, slow, need, g, a, b))
                t = t_next
                if dt <= horizon:
                    mode = MIN_POWER
                continue
            heat = 1.0 if mode == NORMAL else p_min
            target = slow if mode == NORMAL else shut
            if mode == MIN_POWER and g * (slow - a) / 1000.0 > p_min + _EPS_P:
                # cooling can hold slowdown again above the minimum power: throttle once back down to it
                if temp <= slow + 1e-9:
                    mode = THROTTLED
                    continue
                if b == 0.0:
                    t_inf = a + 1000.0 * p_min / g
                    t_down = (c / g) * math.log((temp - t_inf) / (slow - t_inf))
                    t_next = min(t_phase_end, t + t_down)
                    segs.append(Segment(t, t_next, MIN_POWER, temp, p_min, g, a, b))
                    temp = float(rc_temperature(t_next - t, temp, p_min, g, c, a, b))
                    t = t_next
                    if t_down <= horizon:
                        mode, temp = THROTTLED, slow
                    continue
            t_cross = crossing(temp, heat, g, c, a, b, target, horizon)
            t_next = min(t_phase_end, t + t_cross)
            segs.append(Segment(t, t_next, mode, temp, heat, g, a, b))
            temp = float(rc_temperature(t_next - t, temp, heat, g, c, a, b))
            t = t_next
            if t_cross <= horizon:
                if mode == NORMAL:
                    mode, temp = THROTTLED, slow
                else:
                    mode, temp = SHUTDOWN, shut
            elif mode == MIN_POWER and temp < slow - 1e-6:
                mode = NORMAL
    return segs


def _evaluate(
    segs: list[Segment], grp: Group, c: float, t_s: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(temperature, speed fraction, coolant) of a group at sample times."""
    temp = np.empty_like(t_s)
    speed = np.empty_like(t_s)
    cool = np.empty_like(t_s)
    starts = np.array([s.t0 for s in segs])
    idx = np.clip(np.searchsorted(starts, t_s, side="right") - 1, 0, len(segs) - 1)
    for j, s in enumerate(segs):
        m = idx == j
        if not m.any():
            continue
        dt = t_s[m] - s.t0
        cool[m] = s.a + s.b * dt
        if s.mode == THROTTLED:
            temp[m] = s.temp0
            heat = np.clip(s.g * (s.temp0 - cool[m]) / 1000.0, 0.0, 1.0)
            speed[m] = [cap_throughput_fraction(grp.gpu, float(h)) for h in heat]
        else:
            temp[m] = rc_temperature(dt, s.temp0, s.p, s.g, c, s.a, s.b)
            if s.mode == NORMAL:
                speed[m] = 1.0
            elif s.mode == MIN_POWER:
                speed[m] = cap_throughput_fraction(grp.gpu, grp.gpu.min_cap_fraction)
            else:
                speed[m] = 0.0
    return temp, speed, cool


# ---------------------------------------------------------------- one replica


def run(plan: CoolingPlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    p = plan.params
    rng = np.random.default_rng(seed)
    t_end = p.duration_minutes * 60.0
    histories = [(_simulate_group(plan, g), g) for g in plan.groups]
    # exact event instants from the segments; series on an even grid
    first_throttle = first_shutdown = math.inf
    down_windows: list[tuple[float, float]] = []
    throttled_gpu_s = shutdown_gpu_s = 0.0
    events = 0
    for segs, grp in histories:
        events += len(segs)
        for s in segs:
            if s.mode in (THROTTLED, MIN_POWER):
                first_throttle = min(first_throttle, s.t0)
                throttled_gpu_s += (s.t1 - s.t0) * grp.gpus
            if s.mode == SHUTDOWN:
                first_shutdown = min(first_shutdown, s.t0)
                shutdown_gpu_s += (s.t1 - s.t0) * grp.gpus
                down_windows.append((s.t0, s.t1))
    t_s = np.linspace(0.0, t_end, p.series_points)
    c_of = {True: p.liquid_heat_capacity_j_per_k_per_kw, False: p.air_heat_capacity_j_per_k_per_kw}
    pace = np.ones_like(t_s)
    max_temp = np.full_like(t_s, -np.inf)
    max_cool = np.full_like(t_s, -np.inf)
    throttled_gpus = np.zeros_like(t_s)
    shutdown_gpus = np.zeros_like(t_s)
    series: dict[str, np.ndarray] = {}
    rack_temp: dict[int, np.ndarray] = {}
    for segs, grp in histories:
        temp, speed, cool = _evaluate(segs, grp, c_of[grp.liquid], t_s)
        pace = np.minimum(pace, speed)
        max_temp = np.maximum(max_temp, temp)
        max_cool = np.maximum(max_cool, cool)
        throttled_gpus += np.where((speed < 1.0) & (speed > 0.0), grp.gpus, 0)
        shutdown_gpus += np.where(speed == 0.0, grp.gpus, 0)
        if grp.events:
            if len(series) < MAX_GROUP_SERIES:
                series[f"gpu_temp_c.{grp.label}"] = temp
            for rid in grp.rack_ids:
                prev = rack_temp.get(rid)
                rack_temp[rid] = temp if prev is None else np.maximum(prev, temp)
    # job: interrupted at each shutdown, back restart_minutes after the group is up again
    job_down = np.zeros_like(t_s, dtype=bool)
    interruptions = 0
    down_s = 0.0
    down: list[tuple[float, float]] = []  # the job's own down intervals (outage plus restart), in the window
    rolled_back: list[tuple[float, float]] = []  # work done in the window and thrown away at an interruption
    before_s = 0.0  # work done before the window (at full pace) and thrown away: redone in the window
    seg_s = (plan.job_interval_h * 3600.0) + plan.job["checkpoint_minutes"] * 60.0
    phase = rng.uniform(0.0, seg_s)  # where in its checkpoint cycle the job was at t = 0
    merged = _merge(down_windows)
    restart_s = plan.job["restart_minutes"] * 60.0
    back = -math.inf
    for t0, t1 in merged:
        interruptions += 1
        if t0 < back:
            # a shutdown while the job is still restarting: no work to lose, the restart starts over
            new_back = min(t_end, max(back, t1 + restart_s))
            down_s += new_back - back
            down.append((back, new_back))
        else:
            since_s = (phase + t0) % seg_s  # wall time since the last completed checkpoint
            rolled_back.append((max(0.0, t0 - since_s), t0))
            before_s += max(0.0, since_s - t0)
            new_back = min(t_end, t1 + restart_s)
            down_s += new_back - t0
            down.append((t0, new_back))
        job_down |= (t_s >= t0) & (t_s < new_back)
        back = new_back
        phase = -back  # the job restarts from its checkpoint at ``back``: cycle phase 0 there
    pace = np.where(job_down, 0.0, pace)
    # The GPU-hour balance of the window (docs/scenarios.md): GPUs x window = kept work + downtime + work
    # thrown away + pace lost to throttling while the job ran; each part on the fine pace below.
    work = _work_integral(histories, plan, t_end)
    ran_s = work(0.0, t_end) - sum(work(a, b) for a, b in down)
    lost_in_window_s = sum(work(a, b) for a, b in rolled_back)
    kept_s = ran_s - lost_in_window_s
    up_s = t_end - down_s
    slowdown_s = up_s - ran_s
    job_gpus = plan.campus_gpus
    metrics: dict[str, float] = {
        "max_gpu_temp_c": float(max_temp.max()),
        "max_coolant_temp_c": float(max_cool.max()),
        "throttled_gpu_hours": throttled_gpu_s / 3600.0,
        "shutdown_gpu_hours": shutdown_gpu_s / 3600.0,
        "job_interruptions": float(interruptions),
        "job_slowdown_fraction": 1.0 - ran_s / up_s if up_s > 0 else 0.0,
        "job_throughput_fraction": kept_s / t_end if t_end > 0 else 1.0,
        "lost_work_hours": lost_in_window_s / 3600.0,
        "downtime_hours": down_s / 3600.0,
        "slowdown_hours": slowdown_s / 3600.0,
        "lost_gpu_hours": job_gpus * (t_end - kept_s) / 3600.0,
        "redone_gpu_hours_before_window": job_gpus * before_s / 3600.0,
    }
    if plan.effects:
        # 1.0: every group hit kept its full conductance (a lost CDU's redundancy group carried its heat)
        metrics["min_cooling_fraction"] = min(
            min([e.g_factor, *(g for _, g in e.g_steps)]) for e in plan.effects
        )
    starts = [plan.effects[i].start_s for i in range(len(plan.effects))]
    t_first_event = min(starts) if starts else 0.0
    if math.isfinite(first_throttle):
        metrics["time_to_throttle_s"] = first_throttle - t_first_event
    if math.isfinite(first_shutdown):
        metrics["time_to_shutdown_s"] = first_shutdown - t_first_event
    if progress is not None:
        progress(1.0)
    out = {
        "t_hours": t_s / 3600.0,
        "max_gpu_temp_c": max_temp,
        "coolant_temp_c": max_cool,
        "job_pace": pace,
        "throttled_gpus": throttled_gpus,
        "shutdown_gpus": shutdown_gpus,
        **series,
    }
    if p.rack_series:
        for rid in sorted(rack_temp)[:MAX_RACK_SERIES]:
            out[f"rack.{rid}.gpu_temp_c"] = rack_temp[rid]
    # what the run failed, by name (a CDU loss without a target: the units its group cannot cover)
    details = {"failed": plan.failed, "default_set": plan.default_set, "job": plan.job}
    return ReplicaResult(metrics=metrics, series=out, events=events, details=details)


def _merge(windows: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(windows):
        if out and a <= out[-1][1] + _EPS_S:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


# Points of the fine grid the job's work is integrated on (the pace itself is exact per point).
WORK_POINTS = 4001


def _work_integral(histories, plan: CoolingPlan, t_end: float):
    """``work(a, b)``: seconds of full-pace work the job does from ``a`` to ``b`` while it runs, the
    integral of its pace (the slowest group's speed) by the trapezoid rule on a fine grid."""
    t = np.linspace(0.0, t_end, WORK_POINTS)
    pace = np.ones_like(t)
    c_of = {
        True: plan.params.liquid_heat_capacity_j_per_k_per_kw,
        False: plan.params.air_heat_capacity_j_per_k_per_kw,
    }
    for segs, grp in histories:
        if grp.events:
            pace = np.minimum(pace, _evaluate(segs, grp, c_of[grp.liquid], t)[1])
    cum = np.concatenate(([0.0], np.cumsum((pace[1:] + pace[:-1]) / 2.0 * np.diff(t))))

    def work(a: float, b: float) -> float:
        return float(np.interp(b, t, cum) - np.interp(a, t, cum)) if b > a else 0.0

    return work
