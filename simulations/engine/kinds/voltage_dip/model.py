"""The voltage_dip model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.voltage_dip``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from campus.analysis.grid_rules import rides_through
from campus.analysis.power_graph import DEAD_STATUSES
from campus.analysis.snapshot import CampusSnapshot
from simulations.engine.fields import ParamsError
from simulations.engine.kinds.voltage_dip.params import DEFAULT_CHILLER_RESTART_MINUTES, VoltageDipParams
from simulations.engine.loads import campus_load
from simulations.engine.results import Progress, ReplicaResult


@dataclass
class DipPlan:
    params: VoltageDipParams
    it_kw: float
    overhead_kw: float
    chiller_restart_minutes: float  # the slowest live chiller plant's (0: none)


def stochastic(params: VoltageDipParams) -> bool:
    """Never: a dip and the curves decide; every replica is the same."""
    return False


def prepare(snap: CampusSnapshot, params: VoltageDipParams) -> DipPlan:
    p = params
    if p.chiller_share + p.drive_share > 1 + 1e-9:
        raise ParamsError(
            [{"field": "drive_share", "message": "chiller_share + drive_share must be at most 1"}]
        )
    load = campus_load(snap, "bf16", 0.4, p.utilization, p.pue)
    fr = [p.utilization] * len(load.groups)
    it = load.it_kw(fr)
    facility = load.peak_facility_kw(fr)
    chillers = [c for c in snap.cooling_plants if c.kind == "chiller" and c.status not in DEAD_STATUSES]
    restart = p.chiller_restart_minutes
    if restart is None:
        restart = max((c.restart_minutes for c in chillers), default=DEFAULT_CHILLER_RESTART_MINUTES)
    # a campus without a live chiller has no chiller load to drop (restart 0 says so)
    return DipPlan(p, it, max(0.0, facility - it), restart if chillers else 0.0)


def _ramp_back(t_s: np.ndarray, kw: float, off_at_s: float, back_at_s: float, ramp_s: float) -> np.ndarray:
    """The load missing from the grid: all of ``kw`` from the dip until ``back_at_s``, then less over the
    ramp."""
    missing = np.zeros_like(t_s)
    if kw <= 0:
        return missing
    during = (t_s >= off_at_s) & (t_s < back_at_s)
    missing[during] = kw
    if ramp_s > 0:
        ramping = (t_s >= back_at_s) & (t_s < back_at_s + ramp_s)
        missing[ramping] = kw * (1.0 - (t_s[ramping] - back_at_s) / ramp_s)
    return missing


def run(plan: DipPlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    p = plan.params
    v, d = p.residual_pu, p.duration_s
    it_off = v < p.ups_input_min_pu
    drives_off = not rides_through(p.drive_curve, v, d)
    chillers_off = not rides_through(p.chiller_curve, v, d) and plan.chiller_restart_minutes > 0
    it_kw = plan.it_kw if it_off else 0.0
    drive_kw = plan.overhead_kw * p.drive_share if drives_off else 0.0
    chiller_kw = plan.overhead_kw * p.chiller_share if chillers_off else 0.0
    load_kw = plan.it_kw + plan.overhead_kw
    # one-second steps from 5 s before the dip to the horizon
    t_s = np.arange(-5.0, p.horizon_minutes * 60.0 + 1.0, 1.0)
    it_back = p.ups_return_minutes * 60.0
    chiller_back = plan.chiller_restart_minutes * 60.0
    missing = (
        _ramp_back(t_s, it_kw, 0.0, it_back, p.ups_return_ramp_s)
        + _ramp_back(t_s, drive_kw, 0.0, p.drive_restart_s, 0.0)
        + _ramp_back(t_s, chiller_kw, 0.0, chiller_back, 0.0)
    )
    grid = load_kw - missing
    backs = [
        it_back + p.ups_return_ramp_s if it_kw else 0.0,
        p.drive_restart_s if drive_kw else 0.0,
        chiller_back if chiller_kw else 0.0,
    ]
    lost_kw = it_kw + drive_kw + chiller_kw
    # the grid energy not drawn: the integral of the missing load (exact for the steps and ramps)
    not_drawn_kwh = (
        it_kw * (it_back + p.ups_return_ramp_s / 2.0)
        + drive_kw * p.drive_restart_s
        + chiller_kw * chiller_back
    ) / 3600.0
    metrics = {
        "load_mw": load_kw / 1000.0,
        "mw_lost_within_1s": lost_kw / 1000.0,
        "share_lost": lost_kw / load_kw if load_kw > 0 else 0.0,
        "it_transferred_mw": it_kw / 1000.0,
        "drives_dropped_mw": drive_kw / 1000.0,
        "chillers_dropped_mw": chiller_kw / 1000.0,
        "cooling_restart_minutes": plan.chiller_restart_minutes if chiller_kw else 0.0,
        "back_to_grid_minutes": max(backs) / 60.0,
        "grid_energy_not_drawn_mwh": not_drawn_kwh / 1000.0,
        "ups_battery_mwh": it_kw * (it_back + p.ups_return_ramp_s / 2.0) / 3600.0 / 1000.0,
    }
    series = {"t_hours": t_s / 3600.0, "grid_mw": grid / 1000.0, "lost_mw": missing / 1000.0}
    if progress is not None:
        progress(1.0)
    return ReplicaResult(metrics=metrics, series=series, events=1)
