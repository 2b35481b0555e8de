"""The smallest battery that rides a grid curtailment, a generator start, or keeps a training job's power
swing inside a limit (docs/grid.md, "Battery sizing").

Every need is power and energy at the point of connection (what the grid sees); the nameplate energy
follows from the round-trip efficiency and the depth of discharge: the battery holds ``mwh_at_connection
/ (depth_of_discharge x sqrt(round_trip_efficiency))``, the losses split evenly between charge and
discharge (an assumption: inverter and cell losses are near symmetric).

- Curtailment: the campus sheds ``shed_mw`` for ``duration_h``: the battery gives ``shed_mw`` for that
  long (25 % of 91 MW for 3 h: 22.75 MW, 68.25 MWh).
- Generator start: the battery carries the whole load until the generators are up: the start delay at
  full load, then the ramp, over which the generators take the load linearly (half of it on average).
- Training swing: synchronous training swings between a high (compute) and a low (communication) level
  each iteration, a square wave of ``swing_mw`` peak to trough at ``period_s``. A battery that discharges
  in the high half and charges in the low half cuts the swing by twice its power: it needs
  ``(swing - limit) / 2`` MW and holds that power for half a period.

Pure Python, no Django: the API's calculator and the tests call it alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The sizes of the curve, as fractions of the smallest battery that rides the need.
CURVE_SCALES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5)


@dataclass(frozen=True)
class Need:
    """What the battery must give at the point of connection, and the profile it gives it over."""

    mw: float
    mwh_at_connection: float
    profile_mw: tuple[float, ...]  # per step: the power the battery must give (negative: it may charge)
    step_h: float


def curtailment(shed_mw: float, duration_h: float, step_h: float = 1 / 60) -> Need:
    if shed_mw < 0 or duration_h <= 0:
        raise ValueError("duration_hours: must be positive (and the load to shed not negative)")
    steps = max(1, math.ceil(duration_h / step_h - 1e-9))
    step = duration_h / steps
    return Need(shed_mw, shed_mw * duration_h, (shed_mw,) * steps, step)


def generator_start(load_mw: float, start_delay_s: float, ramp_s: float, steps: int = 600) -> Need:
    """The load until the generators deliver, then the part they have not yet taken over the ramp."""
    total_s = start_delay_s + ramp_s
    if total_s <= 0:
        return Need(0.0, 0.0, (0.0,), 1 / 3600)
    dt = total_s / steps
    profile = []
    for k in range(steps):
        mid = (k + 0.5) * dt
        taken = 0.0 if mid < start_delay_s else (mid - start_delay_s) / ramp_s
        profile.append(load_mw * (1.0 - min(1.0, taken)))
    mwh = load_mw * (start_delay_s + ramp_s / 2.0) / 3600.0
    return Need(load_mw, mwh, tuple(profile), dt / 3600.0)


def training_swing(swing_mw: float, limit_mw: float, period_s: float, cycles: int = 4) -> Need:
    """A square wave of ``swing_mw`` peak to trough; the battery gives in the high half and takes in the
    low half (``-power``), so the draw swings by ``swing - 2 x power``."""
    if period_s <= 0:
        raise ValueError("period_s: must be positive")
    power = max(0.0, (swing_mw - limit_mw) / 2.0)
    half = period_s / 2.0
    profile = tuple(power if k % 2 == 0 else -power for k in range(2 * cycles))
    return Need(power, power * half / 3600.0, profile, half / 3600.0)


def nameplate_mwh(mwh_at_connection: float, round_trip_efficiency: float, depth_of_discharge: float) -> float:
    if not 0 < round_trip_efficiency <= 1:
        raise ValueError("round_trip_efficiency: must be in (0, 1]")
    if not 0 < depth_of_discharge <= 1:
        raise ValueError("depth_of_discharge: must be in (0, 1]")
    return mwh_at_connection / (depth_of_discharge * math.sqrt(round_trip_efficiency))


def uncovered_mwh(need: Need, mw: float, usable_mwh: float, round_trip_efficiency: float = 1.0) -> float:
    """Energy of the profile a battery of ``mw`` and ``usable_mwh`` (at the connection, starting full)
    does not give, step by step; in a step where the profile is negative it recharges (storing
    ``round_trip_efficiency`` of what it draws)."""
    energy = usable_mwh
    missing = 0.0
    for p in need.profile_mw:
        if p >= 0:
            give = min(p, mw, energy / need.step_h if need.step_h > 0 else 0.0)
            energy -= give * need.step_h
            missing += (p - give) * need.step_h
        else:
            take = min(-p, mw, (usable_mwh - energy) / (round_trip_efficiency * need.step_h))
            energy += take * round_trip_efficiency * need.step_h
    return max(0.0, missing)


def smallest_by_search(need: Need, rte: float = 1.0, resolution: float = 1e-3) -> tuple[float, float]:
    """The smallest (mw, usable mwh) that leaves nothing uncovered, by bisection on each axis in turn:
    power first (with unbounded energy), then energy at that power. The check of the closed forms."""
    peak = max((p for p in need.profile_mw), default=0.0)

    def bisect(ok: Callable[[float], bool], hi: float) -> float:
        lo = 0.0
        if ok(lo):
            return 0.0
        while hi - lo > resolution * max(hi, 1e-9):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return hi

    tol = 1e-9 * max(need.mwh_at_connection, 1.0)
    big = sum(abs(p) for p in need.profile_mw) * need.step_h + 1.0
    mw = bisect(lambda m: uncovered_mwh(need, m, big, rte) <= tol, max(peak, 1e-9) * 2)
    mwh = bisect(lambda e: uncovered_mwh(need, mw, e, rte) <= tol, big)
    return mw, mwh


def curve(
    need: Need,
    lost_fraction: Callable[[float, float], float | None],
    scales: Sequence[float] = CURVE_SCALES,
) -> list[dict[str, float | None]]:
    """The battery at each scale of the smallest one (power and energy together): the energy it leaves
    uncovered and the throughput that costs (``lost_fraction(mw, usable_mwh)``)."""
    out = []
    for s in scales:
        mw, mwh = need.mw * s, need.mwh_at_connection * s
        out.append(
            {
                "scale": s,
                "mw": mw,
                "mwh_at_connection": mwh,
                "uncovered_mwh": uncovered_mwh(need, mw, mwh),
                "throughput_lost_fraction": lost_fraction(mw, mwh),
            }
        )
    return out
