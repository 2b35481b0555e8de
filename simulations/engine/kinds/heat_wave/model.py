"""The heat_wave model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.heat_wave``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from campus.analysis.facility import with_typed_pue
from campus.analysis.facility.year import facility_year
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.weather import DAYS_PER_YEAR, weather_of, with_heat_wave
from simulations.engine.fields import ParamsError
from simulations.engine.job import cap_throughput_fraction
from simulations.engine.kinds.heat_wave.params import HeatWaveParams
from simulations.engine.results import Progress, ReplicaResult

DEFAULT_REPLICAS = 1  # deterministic: one replica says it all

FRACTION_STEPS = 33  # power fractions on the grid from TDP down to the minimum cap


@dataclass(frozen=True)
class HeatWavePlan:
    params: HeatWaveParams
    start_day: int  # the wave's first day: the parameter's, or the campus's hottest stretch
    dry_bulb_c: np.ndarray  # the wave's hours
    wet_bulb_c: np.ndarray
    fractions: np.ndarray  # (F,) GPU power fractions, descending, the last = the minimum cap
    margin_mw: np.ndarray  # (F, H) cooling margin at each fraction
    facility_mw: np.ndarray  # (F, H)
    it_mw: np.ndarray  # (F, H)
    water_l: np.ndarray  # (F, H)
    off_facility_mw: np.ndarray  # (H,) with the GPUs shut down
    off_it_mw: np.ndarray
    off_water_l: np.ndarray
    pace_at: np.ndarray  # (F,) the job's pace at each fraction
    # the same days without the wave (None when the wave adds nothing): what the wave itself changed
    baseline: HeatWavePlan | None = None


def stochastic(params: HeatWaveParams) -> bool:
    """Never: nothing here is random, every replica is the same."""
    return False


def hottest_start_day(dry_bulb_c: np.ndarray, days: int) -> int:
    """The first day (1 = 1 January) of the ``days`` whole days, ending by day 365, with the highest mean dry
    bulb: where a heat wave hurts most on this campus, in its own summer whatever its hemisphere."""
    last = min(DAYS_PER_YEAR * 24, dry_bulb_c.size)
    daily = np.asarray(dry_bulb_c[:last], dtype=float).reshape(-1, 24).sum(axis=1)
    sums = np.convolve(daily, np.ones(days), mode="valid")  # sums[i]: days i+1 .. i+days
    return int(np.argmax(sums)) + 1


def prepare(snap: CampusSnapshot, params: HeatWaveParams) -> HeatWavePlan:
    p = params
    weather = weather_of(snap)
    start = p.start_day if p.start_day is not None else hottest_start_day(weather.dry_bulb_c, p.days)
    plan = _plan(snap, p, weather, start, p.temperature_rise_k)
    if p.temperature_rise_k > 0:
        plan = replace(plan, baseline=_plan(snap, p, weather, start, 0.0))
    return plan


def _plan(snap: CampusSnapshot, p: HeatWaveParams, weather, start: int, rise_k: float) -> HeatWavePlan:
    """The plan of the wave's days warmed by ``rise_k``."""
    try:
        year = with_heat_wave(weather, start, p.days, rise_k)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        raise ParamsError([{"field": field, "message": message}]) from None
    window = slice((start - 1) * 24, (start - 1 + p.days) * 24)
    db, wb = year.dry_bulb_c[window], year.wet_bulb_c[window]
    gpus = {slug: snap.gpus[slug] for r in snap.racks for slug in snap.rack_gpus(r)}
    floor = max((g.min_cap_fraction for g in gpus.values()), default=0.5)
    fractions = np.linspace(1.0, floor, FRACTION_STEPS)
    # a typed PUE sets the facility power (IT x PUE); the cooling margin and the water stay the model's
    years = [
        with_typed_pue(facility_year(snap, db, wb, gpu_power_fraction=float(f)), snap) for f in fractions
    ]
    off = with_typed_pue(facility_year(snap, db, wb, gpu_power_fraction=0.0), snap)
    pace = np.array(
        [min((cap_throughput_fraction(g, float(f)) for g in gpus.values()), default=1.0) for f in fractions]
    )
    return HeatWavePlan(
        params=p,
        start_day=start,
        dry_bulb_c=db,
        wet_bulb_c=wb,
        fractions=fractions,
        margin_mw=np.vstack([y.cooling_margin_mw for y in years]),
        facility_mw=np.vstack([y.facility_mw for y in years]),
        it_mw=np.vstack([y.it_mw for y in years]),
        water_l=np.vstack([y.water_l for y in years]),
        off_facility_mw=off.facility_mw,
        off_it_mw=off.it_mw,
        off_water_l=off.water_l,
        pace_at=pace,
    )


def throttle(plan: HeatWavePlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per hour: the GPU power fraction (0 = shut down), the grid position (a float index into
    ``plan.fractions``) and whether the GPUs are on."""
    margin = plan.margin_mw  # (F, H), rising as the fraction falls
    ok = margin >= 0.0
    on = ok.any(axis=0)
    first_ok = np.where(on, ok.argmax(axis=0), len(plan.fractions) - 1)
    hours = np.arange(margin.shape[1])
    # between the grid point above (short) and the first that holds, where the margin crosses zero
    above = np.maximum(first_ok - 1, 0)
    m_hi, m_lo = margin[above, hours], margin[first_ok, hours]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where((first_ok > 0) & (m_lo > m_hi), m_lo / (m_lo - m_hi), 0.0)
    position = first_ok - np.clip(share, 0.0, 1.0)
    fraction = np.interp(position, np.arange(len(plan.fractions)), plan.fractions)
    return np.where(on, fraction, 0.0), position, on


def _at(grid: np.ndarray, position: np.ndarray) -> np.ndarray:
    """Values of an (F, H) grid at a float grid position per hour (linear between grid points)."""
    lo = np.floor(position).astype(int)
    hi = np.minimum(lo + 1, grid.shape[0] - 1)
    w = position - lo
    hours = np.arange(grid.shape[1])
    return grid[lo, hours] * (1.0 - w) + grid[hi, hours] * w


def run(plan: HeatWavePlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """Deterministic: the seed is accepted for a uniform interface and not used."""
    metrics, series = _figures(plan)
    # what the wave itself changed: against the same days of the campus's weather without it
    base = _figures(plan.baseline)[0] if plan.baseline is not None else metrics
    metrics["peak_facility_rise_mw"] = metrics["peak_facility_mw"] - base["peak_facility_mw"]
    metrics["max_pue_rise"] = metrics["max_pue"] - base["max_pue"]
    if progress:
        progress(1.0)
    # the wave's first day, chosen from the campus's weather when the parameters left it empty
    details = {"start_day": plan.start_day}
    return ReplicaResult(metrics=metrics, series=series, events=len(series["t_hours"]), details=details)


def _figures(plan: HeatWavePlan) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """The wave's metrics and series on one plan."""
    fraction, position, on = throttle(plan)
    facility = np.where(on, _at(plan.facility_mw, position), plan.off_facility_mw)
    it = np.where(on, _at(plan.it_mw, position), plan.off_it_mw)
    water = np.where(on, _at(plan.water_l, position), plan.off_water_l)
    pace = np.where(on, np.interp(position, np.arange(len(plan.fractions)), plan.pace_at), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        pue = np.where(it > 0, facility / np.where(it > 0, it, 1.0), np.nan)
    shortfall = plan.margin_mw[0] < 0.0
    hours = facility.size
    metrics = {
        "cooling_shortfall_hours": float(shortfall.sum()),
        "shutdown_hours": float((~on).sum()),
        "throughput_lost_fraction": float(1.0 - pace.mean()) if hours else 0.0,
        "peak_facility_mw": float(facility.max()) if hours else 0.0,
        "max_pue": float(np.nanmax(pue)) if hours and np.isfinite(pue).any() else 0.0,
        "water_m3": float(water.sum()) / 1000.0,
    }
    series = {
        "t_hours": np.arange(hours, dtype=float),
        "dry_bulb_c": plan.dry_bulb_c,
        "wet_bulb_c": plan.wet_bulb_c,
        "facility_mw": facility,
        "pue": pue,
        "water_l": water,
        "cooling_margin_mw": plan.margin_mw[0],
        "gpu_power_fraction": fraction,
        "throughput_fraction": pace,
    }
    return metrics, series
