"""The grid_limit model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.grid_limit``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from campus.analysis.onsite import (
    PrimeGenerator,
    fuel_usd_per_mwh,
    prime_generators,
    standby_generators,
    storage_pool,
)
from campus.analysis.snapshot import CampusSnapshot
from campus.catalog_data import default_value
from simulations.engine.fields import ParamsError
from simulations.engine.kinds.grid_limit.params import GridLimitParams
from simulations.engine.loads import CampusLoad, campus_load, speed_at_cap
from simulations.engine.results import Progress, ReplicaResult

# Default recharge power as a fraction of the batteries' discharge rating (an estimate: UPS chargers are
# sized for a recharge over hours, not minutes).
RECHARGE_FRACTION = 0.10
# Power devices holding the chain's ride-through battery (docs/generator.md, "Power architecture").
RIDE_THROUGH_KINDS = ("ups", "sst", "rectifier")
_TOL = 1e-9


@dataclass
class GridPlan:
    params: GridLimitParams
    load: CampusLoad
    limit_kw: np.ndarray  # per step
    t_hours: np.ndarray  # start of each step
    dt_h: float
    pod_order: list[int | None]  # pods in the order they are paused
    battery_kwh: float
    battery_kw: float
    recharge_kw: float
    generator_kw: float
    generator_delay_h: float
    generator_ramp_h: float
    fail_to_start: float
    price_usd_per_kwh: float
    generator_fuel_usd_per_mwh: float = 0.0  # standby sets (rating-weighted)
    prime: tuple[PrimeGenerator, ...] = ()
    bess_kw: float = 0.0
    bess_kwh: float = 0.0
    bess_efficiency: float = 1.0


# An event without a cut_fraction leaves the campus this share of its full draw (params.GridEvent): the
# Phoenix field test's 25 % cut of the cluster's power (Colangelo et al., arXiv 2507.00909, 2025).
DEFAULT_LOAD_SHARE = 0.75


def stochastic(params: GridLimitParams) -> bool:
    """Only a generator's start can fail at random: under the "generators" policy with a fail-to-start
    probability strictly between 0 and 1. Every other policy gives the same result for every seed."""
    return params.policy == "generators" and 0.0 < params.generator_fail_to_start_probability < 1.0


def prepare(snap: CampusSnapshot, params: GridLimitParams) -> GridPlan:
    p = params
    base = p.capacity_kw if p.capacity_kw is not None else snap.grid_capacity_kw
    # A capacity_kw of 0 given is a real limit (the grid gives nothing, as a cut_fraction of 1 or a
    # capacity_schedule step to 0): only a campus without a grid capacity and no capacity given is refused.
    if p.capacity_kw is None and not base > 0 and not p.capacity_schedule:
        raise ParamsError(
            [
                {
                    "field": "capacity_kw",
                    "message": "the campus has no grid capacity (grid_capacity_mw); give capacity_kw",
                }
            ]
        )
    known_pods = {pod.id for pod in snap.pods} | {r.pod_id for r in snap.racks if r.pod_id is not None}
    unknown = sorted(set(p.pod_priorities) - known_pods)
    if unknown:
        raise ParamsError(
            [
                {
                    "field": "pod_priorities",
                    "message": f"no pod {', '.join(str(u) for u in unknown)} in the campus",
                }
            ]
        )
    load = campus_load(snap, p.job.precision, p.job.mfu, p.utilization, p.pue)
    dt_h = p.step_minutes / 60.0
    n = max(1, math.ceil(p.duration_hours / dt_h - 1e-9))
    t = np.arange(n) * dt_h
    limit = np.full(n, float(base))
    for step in p.capacity_schedule:
        limit[t >= step.start_hours - 1e-12] = step.capacity_kw
    full_kw = load.peak_facility_kw([p.utilization] * len(load.groups))  # every GPU working (_Shedder.full)
    for ev in p.events:
        active = (t >= ev.start_hours - 1e-12) & (t < ev.start_hours + ev.duration_hours - 1e-12)
        if ev.cut_fraction is None:
            limit[active] = np.minimum(limit[active], DEFAULT_LOAD_SHARE * full_kw)
        else:
            limit[active] *= 1.0 - ev.cut_fraction
    pods = sorted({g.pod_id for g in load.groups}, key=lambda x: -1 if x is None else x)
    # unnamed pods have the highest priority number (paused last), the highest id first among them
    unnamed = max(p.pod_priorities.values(), default=0) + 1
    order = sorted(
        pods,
        key=lambda pod: (p.pod_priorities.get(pod, unnamed) if pod is not None else unnamed, -(pod or 0)),
    )
    # the ride-through stage: UPS modules on AC, solid-state transformers with DC-bus storage (800 VDC) and
    # sidecar power racks with battery backup units (±400 VDC)
    ups = [
        d
        for d in snap.power_devices
        if d.kind in RIDE_THROUGH_KINDS and d.status not in ("failed", "offline")
    ]
    gens = standby_generators(snap)
    battery_kw = sum(d.rated_kw for d in ups) if ups else math.inf
    battery_kwh = (
        p.battery_kwh
        if p.battery_kwh is not None
        else sum(d.rated_kw * d.battery_minutes / 60.0 for d in ups)
    )
    if p.battery_recharge_kw is not None:
        recharge = p.battery_recharge_kw
    else:
        recharge = RECHARGE_FRACTION * (battery_kw if math.isfinite(battery_kw) else battery_kwh)
    gen_kw = p.generator_kw if p.generator_kw is not None else sum(d.rated_kw for d in gens)
    delay_s = p.generator_start_delay_s
    if delay_s is None:
        delay_s = max((d.start_delay_s for d in gens), default=default_value("generator_start_delay_s"))
    ramp_s = p.generator_ramp_s
    if ramp_s is None:
        ramp_s = max((d.ramp_s for d in gens), default=default_value("generator_ramp_s"))
    rated = sum(d.rated_kw for d in gens)
    standby_fuel = (
        sum(fuel_usd_per_mwh(d) * d.rated_kw for d in gens) / rated
        if rated > 0
        else default_value("generator_fuel_usd_per_mwh_diesel")
    )
    bess = storage_pool(snap)
    return GridPlan(
        params=p,
        load=load,
        limit_kw=limit,
        t_hours=t,
        dt_h=dt_h,
        pod_order=order,
        battery_kwh=battery_kwh,
        battery_kw=battery_kw,
        recharge_kw=recharge,
        generator_kw=gen_kw,
        generator_delay_h=delay_s / 3600.0,
        generator_ramp_h=ramp_s / 3600.0,
        fail_to_start=p.generator_fail_to_start_probability,
        price_usd_per_kwh=snap.price_usd_per_kwh,
        generator_fuel_usd_per_mwh=standby_fuel,
        prime=tuple(prime_generators(snap)),
        bess_kw=bess.power_kw,
        bess_kwh=bess.energy_kwh,
        bess_efficiency=bess.round_trip_efficiency,
    )


class _Shedder:
    """Fits the campus draw under a target by capping and/or pausing; caches the last answer."""

    def __init__(self, plan: GridPlan) -> None:
        self.load = plan.load
        self.u = plan.params.utilization
        self.idle = plan.params.idle_gpu_fraction
        self.order = plan.pod_order
        self.groups = plan.load.groups
        self.mins = [g.gpu.min_cap_fraction for g in self.groups]

    def draw(self, cap: float, running: list[bool]) -> float:
        fr = [max(cap, m) * self.u if r else self.idle for m, r in zip(self.mins, running, strict=True)]
        return self.load.peak_facility_kw(fr)

    def full(self) -> tuple[float, float, list[bool]]:
        running = [True] * len(self.groups)
        return self.draw(1.0, running), 1.0, running

    def fit(self, target_kw: float, allow_cap: bool) -> tuple[float, float, list[bool]]:
        """(draw, uniform cap, running flags) with the draw at or under ``target_kw`` when possible:
        cap first (if allowed), then pause pods in order, capping the ones left running."""
        running = [True] * len(self.groups)
        lo = min(self.mins, default=1.0) if allow_cap else 1.0
        for step in range(len(self.order) + 1):
            if step:
                pod = self.order[step - 1]
                running = [r and g.pod_id != pod for r, g in zip(running, self.groups, strict=True)]
            if self.draw(1.0, running) <= target_kw * (1 + _TOL):
                return self.draw(1.0, running), 1.0, running
            if allow_cap and self.draw(lo, running) <= target_kw:
                return self._bisect(target_kw, running, lo)
        return self.draw(lo, running), lo, running

    def _bisect(self, target_kw: float, running: list[bool], lo: float) -> tuple[float, float, list[bool]]:
        hi = 1.0
        if self.draw(hi, running) <= target_kw:
            return self.draw(hi, running), hi, running
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            if self.draw(mid, running) <= target_kw:
                lo = mid
            else:
                hi = mid
        return self.draw(lo, running), lo, running


def _episodes(flags: np.ndarray) -> int:
    """Number of runs of True."""
    f = flags.astype(np.int8)
    return int(np.count_nonzero(np.diff(np.concatenate(([0], f))) == 1))


def run(plan: GridPlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    p = plan.params
    rng = np.random.default_rng(seed)
    shed = _Shedder(plan)
    load = plan.load
    dt = plan.dt_h
    n = plan.t_hours.size
    policy = p.policy
    full_kw, _, all_on = shed.full()
    nominal = load.throughput_tflops([1.0] * len(load.groups), "pod")
    energy = plan.battery_kwh * p.battery_initial_fraction
    bess_energy = plan.bess_kwh * p.battery_initial_fraction
    uses_batteries = policy in ("ride_through", "generators")
    dt_s = dt * 3600.0
    prime_out = [0.0] * len(plan.prime)  # each prime generator's output in the previous step, kW
    out = {
        k: np.zeros(n)
        for k in (
            "demand_kw",
            "grid_kw",
            "battery_kwh",
            "bess_kwh",
            "generator_kw",
            "shortfall_kw",
            "cap_fraction",
            "throughput_fraction",
            "paused_pods",
        )
    }
    gen_start: float | None = None
    gen_ok = True
    starts = failed_starts = 0
    bess_out_kwh = bess_in_kwh = fuel_usd = prime_kwh = 0.0
    cache: dict[tuple[float, bool], tuple[float, float, list[bool]]] = {}

    def fit(target: float, allow_cap: bool) -> tuple[float, float, list[bool]]:
        key = (round(target, 6), allow_cap)
        hit = cache.get(key)
        if hit is None:
            hit = shed.fit(target, allow_cap)
            cache[key] = hit
        return hit

    for k in range(n):
        t = plan.t_hours[k]
        limit = float(plan.limit_kw[k])
        short = max(0.0, full_kw - limit)
        gen = batt = charge = bess = 0.0
        primes = [0.0] * len(plan.prime)
        if short <= 0:
            draw, cap, running = full_kw, 1.0, all_on
            gen_start = None
            headroom = limit - full_kw
            if energy < plan.battery_kwh and uses_batteries:
                charge = min(plan.recharge_kw, headroom, (plan.battery_kwh - energy) / dt)
                energy += charge * dt
            if bess_energy < plan.bess_kwh and uses_batteries and plan.bess_efficiency > 0:
                drawn = min(
                    plan.bess_kw,
                    headroom - charge,
                    (plan.bess_kwh - bess_energy) / (plan.bess_efficiency * dt),
                )
                if drawn > 0:
                    bess_energy += drawn * plan.bess_efficiency * dt
                    bess_in_kwh += drawn * dt
                    charge += drawn
        else:
            supply = 0.0
            if policy == "generators":
                # on-site generation follows the shortfall at once, cheapest fuel first, each unit no faster
                # than its ramp (it gives back at once what the campus does not draw)
                for i, unit in enumerate(plan.prime):
                    primes[i] = max(
                        0.0, min(short - supply, unit.prime_kw, prime_out[i] + unit.ramp_kw_per_s * dt_s)
                    )
                    supply += primes[i]
                residual = short - supply
                if residual > 0 and gen_start is None:
                    gen_start = t
                    starts += 1
                    gen_ok = rng.random() >= plan.fail_to_start
                    failed_starts += 0 if gen_ok else 1
                if gen_start is not None:
                    since = t - gen_start
                    if gen_ok and since >= plan.generator_delay_h:
                        ramp = (
                            1.0
                            if plan.generator_ramp_h <= 0
                            else min(1.0, (since - plan.generator_delay_h) / plan.generator_ramp_h)
                        )
                        gen = min(residual, plan.generator_kw * ramp)
                supply += gen
            if uses_batteries and bess_energy > 0:
                bess = min(short - supply, bess_energy / dt, plan.bess_kw)
                bess_energy -= bess * dt
                supply += bess
            if uses_batteries and energy > 0:
                batt = max(0.0, min(short - supply, energy / dt, plan.battery_kw))
                energy -= batt * dt
                supply += batt
            if policy == "pause":
                draw, cap, running = fit(limit, allow_cap=False)
            else:
                draw, cap, running = fit(limit + supply, allow_cap=True)
            # generators and batteries only cover what the campus actually draws: give back the UPS, then
            # the BESS, then the standby sets, then the prime sets (the reverse of the dispatch order)
            excess = supply - max(0.0, draw - limit)
            if excess > 0:
                back = min(excess, batt)
                energy += back * dt
                batt -= back
                excess -= back
                back = min(excess, bess)
                bess_energy += back * dt
                bess -= back
                excess -= back
                back = min(excess, gen)
                gen -= back
                excess -= back
                for i in reversed(range(len(primes))):
                    back = min(excess, primes[i])
                    primes[i] -= back
                    excess -= back
        prime_out = primes
        prime_kw = sum(primes)
        prime_kwh += prime_kw * dt
        bess_out_kwh += bess * dt
        fuel_usd += gen * dt / 1000.0 * plan.generator_fuel_usd_per_mwh + sum(
            kw * dt / 1000.0 * unit.fuel_usd_per_mwh for kw, unit in zip(primes, plan.prime, strict=True)
        )
        grid = draw - batt - bess - gen - prime_kw + charge
        speeds = [speed_at_cap(g.gpu, max(cap, g.gpu.min_cap_fraction)) for g in load.groups]
        tput = load.throughput_tflops(speeds, "pod", running)
        out["demand_kw"][k] = full_kw
        out["grid_kw"][k] = grid
        out["battery_kwh"][k] = energy
        out["bess_kwh"][k] = bess_energy
        out["generator_kw"][k] = gen + prime_kw
        out["shortfall_kw"][k] = short
        out["cap_fraction"][k] = cap
        out["throughput_fraction"][k] = tput / nominal if nominal > 0 else 0.0
        out["paused_pods"][k] = len({g.pod_id for g, r in zip(load.groups, running, strict=True) if not r})
        if progress is not None and k % 1000 == 0:
            progress(k / n)
    if progress is not None:
        progress(1.0)
    over = out["grid_kw"] > plan.limit_kw * (1 + 1e-6)
    short_flags = out["shortfall_kw"] > 0
    hours = n * dt
    lost_tflops_h = float(np.sum(1.0 - out["throughput_fraction"]) * dt * nominal)
    metrics = {
        "shortfall_mwh": float(out["shortfall_kw"].sum() * dt / 1000.0),
        "max_shortfall_kw": float(out["shortfall_kw"].max()),
        "shortfall_events": float(_episodes(short_flags)),
        "overload_events": float(_episodes(over)),
        "overload_mwh": float(np.clip(out["grid_kw"] - plan.limit_kw, 0, None).sum() * dt / 1000.0),
        "throughput_lost_fraction": lost_tflops_h / (nominal * hours) if nominal > 0 else 0.0,
        "lost_eflop": lost_tflops_h * 3600.0 / 1e6,
        "min_cap_fraction": float(out["cap_fraction"].min()),
        "paused_pod_hours": float(out["paused_pods"].sum() * dt),
        "battery_min_kwh": float(out["battery_kwh"].min()),
        "battery_min_fraction": float(out["battery_kwh"].min() / plan.battery_kwh)
        if plan.battery_kwh > 0
        else 0.0,
        "generator_mwh": float(out["generator_kw"].sum() * dt / 1000.0),
        "prime_generator_mwh": prime_kwh / 1000.0,
        "bess_discharge_mwh": bess_out_kwh / 1000.0,
        "bess_charge_mwh": bess_in_kwh / 1000.0,
        "bess_min_fraction": float(out["bess_kwh"].min() / plan.bess_kwh) if plan.bess_kwh > 0 else 0.0,
        "fuel_cost_usd": fuel_usd,
        "generator_starts": float(starts),
        "generator_failed_starts": float(failed_starts),
        "grid_energy_mwh": float(out["grid_kw"].sum() * dt / 1000.0),
        "grid_cost_usd": float(out["grid_kw"].sum() * dt * plan.price_usd_per_kwh),
        "cost_usd": float(out["grid_kw"].sum() * dt * plan.price_usd_per_kwh) + fuel_usd,
    }
    series = {"t_hours": plan.t_hours.copy(), "limit_kw": plan.limit_kw.copy(), **out}
    return ReplicaResult(metrics=metrics, series=series, events=n)
