"""The grid_limit model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.grid_limit``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from campus.analysis.generation import DEFAULT_PRIME_MOVER, PRIME_MOVERS, PrimeMover, grid_intensity
from campus.analysis.grid_rules import region
from campus.analysis.onsite import (
    PrimeGenerator,
    fuel_usd_per_mwh,
    prime_generators,
    standby_generators,
    storage_pool,
)
from campus.analysis.snapshot import CampusSnapshot
from campus.catalog_data import default_value
from simulations.engine.fields import MAX_GRID_STEPS, ParamsError
from simulations.engine.kinds.grid_limit.dispatch import Shedding, dispatch
from simulations.engine.kinds.grid_limit.ledger import FlexLedger, emissions
from simulations.engine.kinds.grid_limit.params import GridLimitParams
from simulations.engine.loads import CampusLoad, campus_load, speed_at_cap
from simulations.engine.replay import held_kw, unresolved_error
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
    full_kw: float = 0.0  # the campus's full demand, the events' baseline
    ups_floor_kwh: float = 0.0  # the UPS reserve, never dispatched
    event_level_kw: np.ndarray | None = None  # per step: the level an event allows (inf: no event)
    since_call_h: np.ndarray | None = None  # per step: hours since the event's call (inf: no event)
    event_index: np.ndarray | None = None  # per step: the event in force (-1: none)
    event_price: np.ndarray | None = None  # per step, USD/MWh shed
    event_penalty: np.ndarray | None = None  # per step, USD/MWh over the level
    flex_order: tuple[str, ...] = ()
    flex_cost: dict[str, float | None] | None = None  # per resource, USD/MWh (None: its own rule)
    bess_cycle_usd_per_mwh: float = 0.0
    total_gpus: int = 0
    mover: PrimeMover = PRIME_MOVERS[DEFAULT_PRIME_MOVER]
    standby_mover: PrimeMover = PRIME_MOVERS["diesel_standby"]
    grid_co2_by_hour: tuple[float, ...] = (0.0,) * 24  # t CO2 per MWh drawn, hour of the day
    grid_co2_source: str = ""
    # a replayed load: the demand per step (None: the campus's full demand, ``full_kw``, every step)
    demand_kw: np.ndarray | None = None


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
    src = p.load_source
    if src.replayed and not src.resolved:
        raise ParamsError([unresolved_error()])
    hours = src.span_s / 3600.0 if src.replayed else p.duration_hours
    n = max(1, math.ceil(hours / dt_h - 1e-9))
    if src.replayed:
        if n > MAX_GRID_STEPS:
            raise ParamsError(
                [
                    {
                        "field": "step_minutes",
                        "message": f"the replayed series is {n:,} steps; at most {MAX_GRID_STEPS:,}",
                    }
                ]
            )
        _within_replay(p, hours)
    t = np.arange(n) * dt_h
    limit = np.full(n, float(base))
    for step in p.capacity_schedule:
        limit[t >= step.start_hours - 1e-12] = step.capacity_kw
    full_kw = load.peak_facility_kw([p.utilization] * len(load.groups))
    # the demand of each step: the full demand, or the replayed draw at the step's start
    demand = held_kw(src, t * 3600.0) if src.replayed else np.full(n, full_kw)
    level = np.full(n, math.inf)
    since_call = np.full(n, math.inf)
    index = np.full(n, -1, dtype=np.int64)
    price = np.zeros(n)
    penalty = np.zeros(n)
    capacity = limit.copy()
    for i, ev in enumerate(p.events):
        active = (t >= ev.start_hours - 1e-12) & (t < ev.start_hours + ev.duration_hours - 1e-12)
        if ev.cut_fraction is not None:
            # a cut of the interconnect: cuts of overlapping events multiply
            limit[active] *= 1.0 - ev.cut_fraction
            ask = limit[active]
        else:
            ask = np.array(
                [
                    ev.level_kw(float(d), float(c))
                    for d, c in zip(demand[active], capacity[active], strict=True)
                ]
            )
            limit[active] = np.minimum(limit[active], ask)
        level[active] = np.minimum(level[active], ask)
        since_call[active] = np.minimum(
            since_call[active], t[active] - ev.start_hours + ev.notice_minutes / 60.0
        )
        index[active] = i
        price[active] = np.maximum(price[active], ev.price_usd_per_mwh)
        penalty[active] = np.maximum(penalty[active], ev.penalty_usd_per_mwh)
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
    reserve_s = p.ups_reserve_s
    if reserve_s is None:
        reserve_s = delay_s + ramp_s + default_value("ups_reserve_margin_s")
    # the UPS carries the campus's load (no more than its rating) for the reserve time
    peak_kw = float(demand.max())
    floor_kwh = min(battery_kwh, min(battery_kw, peak_kw) * reserve_s / 3600.0)
    mover = PRIME_MOVERS[p.prime_mover]
    intensity, intensity_source = grid_intensity(region(snap), p.grid_co2_t_per_mwh)
    # a prime unit without its own start delay starts as its mover does
    prime = tuple(
        u if u.start_delay_s > 0 else replace(u, start_delay_s=mover.start_s) for u in prime_generators(snap)
    )
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
        prime=prime,
        bess_kw=bess.power_kw,
        bess_kwh=bess.energy_kwh,
        bess_efficiency=bess.round_trip_efficiency,
        full_kw=full_kw,
        ups_floor_kwh=floor_kwh,
        demand_kw=demand if src.replayed else None,
        event_level_kw=level,
        since_call_h=since_call,
        event_index=index,
        event_price=price,
        event_penalty=penalty,
        flex_order=tuple(f.resource for f in p.flexibility),
        flex_cost={f.resource: f.cost_usd_per_mwh for f in p.flexibility},
        bess_cycle_usd_per_mwh=default_value("bess_cycle_usd_per_mwh"),
        total_gpus=sum(g.gpus for g in load.groups),
        mover=mover,
        grid_co2_by_hour=tuple(intensity),
        grid_co2_source=intensity_source,
    )


def _within_replay(p: GridLimitParams, hours: float) -> None:
    """A replayed load sets the run's length: the events and capacity steps must start within it."""
    errors = [
        {
            "field": f"{name}[{i}].start_hours",
            "message": f"starts after the replayed series ends ({hours:g} h)",
        }
        for name, items in (("events", p.events), ("capacity_schedule", p.capacity_schedule))
        for i, item in enumerate(items)
        if item.start_hours >= hours
    ]
    if errors:
        raise ParamsError(errors)


class _Shedder:
    """Fits the campus draw under a target by capping and/or pausing; caches the last answer."""

    def __init__(self, plan: GridPlan) -> None:
        self.load = plan.load
        self.u = plan.params.utilization
        self.idle = plan.params.idle_gpu_fraction
        self.order = plan.pod_order
        self.groups = plan.load.groups
        self.mins = [g.gpu.min_cap_fraction for g in self.groups]
        # a replayed step's measured draw over the modelled full draw: capping and pausing take the same
        # share off the measured draw as off the modelled one
        self.scale = 1.0

    def draw(self, cap: float, running: list[bool]) -> float:
        fr = [max(cap, m) * self.u if r else self.idle for m, r in zip(self.mins, running, strict=True)]
        return self.load.peak_facility_kw(fr) * self.scale

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
    charges_bess = uses_batteries or policy == "flexibility"
    floor = plan.ups_floor_kwh
    sheds = Shedding(
        draw=shed.draw,
        fit_cap_then_pause=lambda target: fit(target, True),
        pod_order=plan.pod_order,
        mins=shed.mins,
    )
    flex = FlexLedger(plan.flex_order, n)
    dt_s = dt * 3600.0
    prime_out = [0.0] * len(plan.prime)  # each prime generator's output in the previous step, kW
    prime_series = np.zeros((n, len(plan.prime)))
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
    prime_mmbtu = standby_mwh = prime_run_h = 0.0
    prime_unit_h = [0.0] * len(plan.prime)
    cache: dict[tuple[float, bool], tuple[float, float, list[bool]]] = {}

    def fit(target: float, allow_cap: bool) -> tuple[float, float, list[bool]]:
        key = (round(target, 6), allow_cap, shed.scale)
        hit = cache.get(key)
        if hit is None:
            hit = shed.fit(target, allow_cap)
            cache[key] = hit
        return hit

    model_full_kw = full_kw
    for k in range(n):
        t = plan.t_hours[k]
        limit = float(plan.limit_kw[k])
        if plan.demand_kw is not None:
            full_kw = float(plan.demand_kw[k])
            scale = full_kw / model_full_kw if model_full_kw > 0 else 0.0
            if scale != shed.scale:
                shed.scale = scale
                sheds.memo.clear()  # its answers were for the previous step's draw
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
            if bess_energy < plan.bess_kwh and charges_bess and plan.bess_efficiency > 0:
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
            if uses_batteries and energy > floor:
                # never below the UPS reserve: it is kept for a generator start
                batt = max(0.0, min(short - supply, (energy - floor) / dt, plan.battery_kw))
                energy -= batt * dt
                supply += batt
            if policy == "flexibility":
                since = float(plan.since_call_h[k])
                step = dispatch(
                    list(plan.flex_order),
                    {
                        "battery_storage": bess_energy > 0,
                        "prime_generation": bool(plan.prime),
                        "power_capping": True,
                        "job_pause": since * 60.0 >= default_value("dr_pause_notice_minutes") - 1e-9,
                    },
                    limit,
                    full_kw,
                    (plan.bess_kw, bess_energy),
                    [
                        (
                            u.prime_kw,
                            min(u.prime_kw, prime_out[i] + u.ramp_kw_per_s * dt_s)
                            if since * 3600.0 >= u.start_delay_s - 1e-9
                            else 0.0,
                        )
                        for i, u in enumerate(plan.prime)
                    ],
                    sheds,
                    load,
                    dt,
                )
                draw, cap, running = step.draw_kw, step.cap, step.running
                bess, primes = step.bess_kw, step.primes_kw
                bess_energy -= bess * dt
                flex.record(k, step)
            elif policy == "pause":
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
        prime_series[k] = primes
        prime_kw = sum(primes)
        prime_kwh += prime_kw * dt
        bess_out_kwh += bess * dt
        # prime units at part load burn more per MWh (their mover's heat rate against load)
        shares = [plan.mover.fuel_share(kw, u.prime_kw) for kw, u in zip(primes, plan.prime, strict=True)]
        fuel_usd += gen * dt / 1000.0 * plan.generator_fuel_usd_per_mwh + sum(
            sh * u.prime_kw * dt / 1000.0 * u.fuel_usd_per_mwh
            for sh, u in zip(shares, plan.prime, strict=True)
        )
        prime_mmbtu += sum(
            plan.mover.fuel_mmbtu(kw, u.prime_kw, dt) for kw, u in zip(primes, plan.prime, strict=True)
        )
        standby_mwh += gen * dt / 1000.0
        prime_run_h += sum(dt for kw in primes if kw > 0)
        prime_unit_h = [h + (dt if kw > 0 else 0.0) for h, kw in zip(prime_unit_h, primes, strict=True)]
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
    metrics.update(flex.metrics(plan, out["grid_kw"], primes_kw_by_step=prime_series))
    metrics["ups_reserve_kwh"] = plan.ups_floor_kwh
    metrics.update(emissions(plan, out["grid_kw"], prime_mmbtu, standby_mwh))
    metrics["prime_fuel_mmbtu"] = prime_mmbtu
    metrics["prime_unit_hours_max"] = max(prime_unit_h, default=0.0)
    series = {
        "t_hours": plan.t_hours.copy(),
        "limit_kw": plan.limit_kw.copy(),
        **out,
        **(flex.series() if policy == "flexibility" else {}),
    }
    return ReplicaResult(metrics=metrics, series=series, events=n, details={"job": plan.load.job})
