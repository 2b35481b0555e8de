"""The flexibility policy of grid_limit: the campus's resources dispatched in the planner's order, each with
its cost, against the grid level in force (docs/grid.md, "Demand response").

Each step the shortfall (demand over the level) is covered by the resources in order, each as far as it
can: battery storage to its power and energy, prime units to their rating and ramp, power capping to the
GPUs' minimum caps, pausing pods in their pause order. A resource slower than the event's notice (a prime
unit's start delay, a job's checkpoint before it pauses) is not there until that long after the call. The
UPS batteries are never dispatched: they keep their ride-through reserve for a generator start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from simulations.engine.loads import CampusLoad, speed_at_cap

SUPPLIES = ("battery_storage", "prime_generation")
SHEDS = ("power_capping", "job_pause")


@dataclass
class StepPlan:
    """What one step's dispatch did: the draw, the cap and the running pods, the prime units' output, and
    per resource the kW it gave or shed and the GPU-hour share of work it cost."""

    draw_kw: float
    cap: float
    running: list[bool]
    bess_kw: float = 0.0
    primes_kw: list[float] = field(default_factory=list)
    kw: dict[str, float] = field(default_factory=dict)  # per resource: given or shed
    lost_fraction: dict[str, float] = field(default_factory=dict)  # per shed resource: of nominal


@dataclass(frozen=True)
class Shedding:
    """What the two shed resources can do, from the kind's ``_Shedder`` (kept there: the other policies use
    it too)."""

    draw: Callable[[float, list[bool]], float]
    fit_cap_then_pause: Callable[[float], tuple[float, float, list[bool]]]
    pod_order: list[int | None]
    mins: list[float]
    memo: dict = field(default_factory=dict)  # (kind, target, running) -> answer: steps repeat their targets


def _cap_only(sh: Shedding, target_kw: float, running: list[bool]) -> float:
    """The highest uniform cap at which the draw fits under ``target_kw`` (the lowest cap if none does)."""
    key = ("cap", round(target_kw, 6), tuple(running))
    if key not in sh.memo:
        sh.memo[key] = _bisect_cap(sh, target_kw, running)
    return sh.memo[key]


def _bisect_cap(sh: Shedding, target_kw: float, running: list[bool]) -> float:
    lo = min(sh.mins, default=1.0)
    if sh.draw(1.0, running) <= target_kw:
        return 1.0
    if sh.draw(lo, running) > target_kw:
        return lo
    hi = 1.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if sh.draw(mid, running) <= target_kw:
            lo = mid
        else:
            hi = mid
    return lo


def _pause_only(
    sh: Shedding, load: CampusLoad, target_kw: float, cap: float, running: list[bool]
) -> list[bool]:
    """Pause pods in order (at the cap in force) until the draw fits under ``target_kw``."""
    run = list(running)
    for pod in sh.pod_order:
        if sh.draw(cap, run) <= target_kw:
            break
        run = [r and g.pod_id != pod for r, g in zip(run, load.groups, strict=True)]
    return run


def _tput(load: CampusLoad, cap: float, running: list[bool]) -> float:
    speeds = [speed_at_cap(g.gpu, max(cap, g.gpu.min_cap_fraction)) for g in load.groups]
    return load.throughput_tflops(speeds, "pod", running)


def dispatch(
    order: list[str],
    available: dict[str, bool],
    level_kw: float,
    full_kw: float,
    bess: tuple[float, float],  # (power kW, energy kWh available now)
    primes: list[tuple[float, float]],  # per unit: (rating kW, most it can give this step by its ramp)
    sh: Shedding,
    load: CampusLoad,
    dt_h: float,
) -> StepPlan:
    """One step of the flexibility policy: the resources of ``order`` that are ``available``, first to
    last, until the draw net of what they supply fits under ``level_kw``."""
    n = len(load.groups)
    running = [True] * n
    cap = 1.0
    draw = full_kw
    supply = 0.0
    out = StepPlan(draw_kw=draw, cap=cap, running=running, primes_kw=[0.0] * len(primes))
    for i, res in enumerate(order):
        need = draw - supply - level_kw
        if need <= 1e-9 or not available.get(res, False):
            continue
        if res == "battery_storage":
            power, energy = bess
            give = max(0.0, min(need, power, energy / dt_h))
            out.bess_kw = give
            supply += give
            out.kw[res] = give
        elif res == "prime_generation":
            total = 0.0
            for j, (_, most) in enumerate(primes):
                give = max(0.0, min(need - total, most))
                out.primes_kw[j] = give
                total += give
            supply += total
            out.kw[res] = total
        elif res == "power_capping":
            pause_later = "job_pause" in order[i + 1 :] and available.get("job_pause", False)
            before_kw, before_running = draw, running
            if pause_later and all(running):
                draw, cap, running = sh.fit_cap_then_pause(level_kw + supply)
            else:
                cap = _cap_only(sh, level_kw + supply, running)
                draw = sh.draw(cap, running)
            # what pausing did inside the combined fit is the pause's; the cap's is the rest
            paused_kw = before_kw - sh.draw(1.0, running) if running != before_running else 0.0
            out.kw[res] = max(0.0, before_kw - draw - paused_kw)
            if paused_kw > 0:
                out.kw["job_pause"] = paused_kw
        elif res == "job_pause":
            before_kw = draw
            running = _pause_only(sh, load, level_kw + supply, cap, running)
            draw = sh.draw(cap, running)
            out.kw[res] = out.kw.get(res, 0.0) + max(0.0, before_kw - draw)
    out.draw_kw, out.cap, out.running = draw, cap, running
    nominal = load.nominal_tflops
    if nominal > 0:
        all_on = [True] * n
        uncapped = _tput(load, 1.0, running)
        out.lost_fraction["job_pause"] = max(0.0, (_tput(load, 1.0, all_on) - uncapped) / nominal)
        out.lost_fraction["power_capping"] = max(0.0, (uncapped - _tput(load, cap, running)) / nominal)
    return out
