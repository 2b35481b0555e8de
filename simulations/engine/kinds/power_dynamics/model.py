"""The power_dynamics model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.power_dynamics``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from campus.analysis.generation import PRIME_MOVERS
from simulations.engine.kinds.power_dynamics.params import PowerDynamicsParams
from simulations.engine.kinds.power_dynamics.plan import DynamicsPlan, prepare
from simulations.engine.kinds.power_dynamics.stream import PassResult, Variant, simulate
from simulations.engine.results import Progress, ReplicaResult

__all__ = ["prepare", "run", "stochastic"]


def stochastic(params: PowerDynamicsParams) -> bool:
    """Never: the same parameters give the same swings for every seed."""
    return False


# Searches: candidates per refining pass (the two ends are the bracket, already known) and the width of
# the final bracket, as a share of the searched range.
SEARCH_REFINE = 9
SEARCH_RESOLUTION = 1 / 500


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


def generation_fuel(gen, mwh: float, hours: float) -> dict[str, float]:
    """Fuel, its cost and CO2 of the on-site generation by grid_limit's model (campus.analysis.generation):
    fuel is linear in output above the minimum load, so at the run's mean load it is exact while the units
    run throughout (an upper bound on the fuel of units that stop)."""
    if gen.rating_mw <= 0 or mwh <= 0 or hours <= 0:
        return {
            "generation_fuel_mmbtu": 0.0,
            "generation_fuel_cost_usd": 0.0,
            "generation_emissions_tco2": 0.0,
        }
    mover = PRIME_MOVERS[gen.prime_mover]
    mean_kw = mwh * 1000.0 / hours
    rating_kw = gen.rating_mw * 1000.0
    fuel = mover.fuel_mmbtu(mean_kw, rating_kw, hours)
    return {
        "generation_fuel_mmbtu": fuel,
        "generation_fuel_cost_usd": mover.fuel_share(mean_kw, rating_kw)
        * gen.rating_mw
        * hours
        * gen.fuel_usd_per_mwh,
        "generation_emissions_tco2": mover.co2_t(fuel),
    }


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
        **(
            {"iteration_swing_mw": float(r.iteration_swing_mw[0])}
            # a replayed load has no training iterations to call steady
            if plan.replay is None
            and r.iteration_swing_mw is not None
            and np.isfinite(r.iteration_swing_mw[0])
            else {}
        ),
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
        **generation_fuel(p.generation, float(en["generation"][0]), plan.steps * plan.dt_s / 3600.0),
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
        "load_source": p.load_source.describe(),
        "jobs": plan.job_checkpoints,
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
        details["sizing"] = {}
        if plan.replay is None:  # a power floor acts on the jobs' GPUs: no floor under a replayed total
            floor, floors, floor_first = _search(plan, 0.0, 1.0, lambda g: _variants(plan, floors=g), n_first)
            metrics["min_floor_to_comply"] = math.nan if floor is None else floor
            details["sizing"]["floor"] = _sweep(plan, floors, floor_first, "floor_fraction")
            details["min_floor_to_comply"] = floor
        if progress is not None:
            progress(0.7)
        bess, sizes, bess_first = _search(plan, 0.0, bound_mw, lambda g: _variants(plan, bess_mw=g), n_first)
        metrics["min_bess_mw_to_comply"] = math.nan if bess is None else bess
        details["sizing"]["bess"] = _sweep(plan, sizes, bess_first, "bess_mw")
        details["min_bess_mw_to_comply"] = bess
        details["search_bound_bess_mw"] = bound_mw
    if progress is not None:
        progress(1.0)
    return ReplicaResult(metrics=metrics, series=r.series, events=plan.steps, details=details)
