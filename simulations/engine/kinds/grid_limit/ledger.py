"""The books of a grid_limit run in the utility's terms: what each flexibility resource gave or shed and
what it cost, and for each demand-response event what the campus shed, earned and owed, and whether it
held the event's level (docs/grid.md, "Demand response")."""

from __future__ import annotations

from typing import Any

import numpy as np

from simulations.engine.kinds.grid_limit.dispatch import StepPlan
from simulations.engine.kinds.grid_limit.params import RESOURCES

# The model's GridPlan (the model imports this module, so the type is not imported back).
GridPlan = Any

# Grid draw above the event's level counted as missing it, kW per kW of level (numerical slack).
_SLACK = 1e-6


class FlexLedger:
    """Per step, the kW each resource gave or shed and the share of nominal work capping and pausing cost."""

    def __init__(self, order: tuple[str, ...], n: int) -> None:
        self.order = order
        self.kw = {r: np.zeros(n) for r in RESOURCES}
        self.lost = {r: np.zeros(n) for r in ("power_capping", "job_pause")}

    def record(self, k: int, step: StepPlan) -> None:
        for r, v in step.kw.items():
            self.kw[r][k] = v
        for r, v in step.lost_fraction.items():
            self.lost[r][k] = v

    def series(self) -> dict[str, np.ndarray]:
        return {f"{r}_kw": v.copy() for r, v in self.kw.items()}

    def metrics(self, plan: GridPlan, grid_kw: np.ndarray, primes_kw_by_step: np.ndarray) -> dict[str, float]:
        dt = plan.dt_h
        costs = plan.flex_cost or {}
        out: dict[str, float] = {}
        total = 0.0
        for r in RESOURCES:
            mwh = float(self.kw[r].sum() * dt / 1000.0)
            given = costs.get(r)
            if given is not None:
                cost = mwh * given
            elif r == "battery_storage":
                cost = mwh * plan.bess_cycle_usd_per_mwh
            elif r == "prime_generation":
                # each unit's fuel at its part-load share (its mover's heat rate against load)
                cost = (
                    sum(
                        plan.mover.fuel_share(kw, unit.prime_kw)
                        * unit.prime_kw
                        * dt
                        / 1000.0
                        * unit.fuel_usd_per_mwh
                        for i, unit in enumerate(plan.prime)
                        for kw in primes_kw_by_step[:, i]
                    )
                    if r in self.order and np.any(self.kw[r])
                    else 0.0
                )
            else:
                gpu_hours = float(self.lost[r].sum() * dt * plan.total_gpus)
                cost = gpu_hours * plan.params.gpu_hour_value_usd
            out[f"{r}_mwh"] = mwh
            out[f"{r}_cost_usd"] = cost
            total += cost
        out["flex_cost_usd"] = total
        out.update(event_books(plan, grid_kw))
        out["event_net_usd"] = out["event_revenue_usd"] - out["event_penalty_usd"] - total
        return out


def event_books(plan: GridPlan, grid_kw: np.ndarray) -> dict[str, float]:
    """Shed, earned, owed, and whether every event's level held (``can_commit``: 1 when it did)."""
    dt = plan.dt_h
    idx = plan.event_index if plan.event_index is not None else np.full(grid_kw.size, -1)
    on = idx >= 0
    level = (
        np.where(on, plan.event_level_kw, 0.0) if plan.event_level_kw is not None else np.zeros(grid_kw.size)
    )
    baseline = plan.demand_kw if plan.demand_kw is not None else plan.full_kw
    asked = np.where(on, np.clip(baseline - level, 0.0, None), 0.0)
    shed = np.where(on, np.clip(baseline - grid_kw, 0.0, None), 0.0)
    over = np.where(on, np.clip(grid_kw - level, 0.0, None), 0.0)
    over[over <= _SLACK * np.maximum(level, 1.0)] = 0.0
    price = plan.event_price if plan.event_price is not None else np.zeros(grid_kw.size)
    penalty = plan.event_penalty if plan.event_penalty is not None else np.zeros(grid_kw.size)
    events = int(idx.max()) + 1 if idx.size and idx.max() >= 0 else 0
    missed = {int(i) for i in idx[over > 0]}
    return {
        "event_asked_mwh": float(asked.sum() * dt / 1000.0),
        "event_shed_mwh": float(shed.sum() * dt / 1000.0),
        "event_over_mwh": float(over.sum() * dt / 1000.0),
        "event_revenue_usd": float((np.minimum(shed, asked) * price).sum() * dt / 1000.0),
        "event_penalty_usd": float((over * penalty).sum() * dt / 1000.0),
        "events_met": float(len({int(i) for i in idx[on]}) - len(missed)) if events else 0.0,
        "can_commit": 0.0 if missed else 1.0,
    }


def emissions(
    plan: GridPlan, grid_kw: np.ndarray, prime_mmbtu: float, standby_mwh: float
) -> dict[str, float]:
    """CO2 of the run: the grid's energy at the site's hourly intensity (the run's hours read as hours of
    the day), the prime units' fuel, the standby sets' diesel at full load."""
    dt = plan.dt_h
    hours = (plan.t_hours % 24.0).astype(int) % 24
    intensity = np.asarray(plan.grid_co2_by_hour)[hours]
    grid_t = float((grid_kw.clip(min=0.0) * intensity).sum() * dt / 1000.0)
    prime_t = plan.mover.co2_t(prime_mmbtu)
    standby = plan.standby_mover
    standby_t = standby.co2_t(standby_mwh * standby.heat_rate_btu_per_kwh / 1000.0)
    return {
        "grid_emissions_tco2": grid_t,
        "onsite_emissions_tco2": prime_t + standby_t,
        "emissions_tco2": grid_t + prime_t + standby_t,
    }
