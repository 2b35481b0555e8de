"""Calibration of the facility's parameters from measured series (docs/live.md, "Calibration of losses and
plants"): a power device's conversion efficiency from its paired input and output meters, a cooling plant's
electrical power against its heat load and the outdoor temperature.

Pure: arrays of 5-minute means in (paired by bucket by the caller), fits and their standard errors out. Every
fit is ``scipy.optimize.curve_fit`` (least squares); a standard error is the square root of the covariance's
diagonal, scaled by the residual variance (curve_fit's default, ``absolute_sigma=False``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import curve_fit

from campus.analysis.facility.year import FIT_REFERENCE_C as REFERENCE_C
from campus.analysis.facility.year import fitted_plant_power_kw

MIN_BUCKETS = 3  # a fit of up to three parameters needs more points than parameters


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x * x))) if x.size else 0.0


def _rounded(d: dict) -> dict:
    """Floats to 6 decimals; a non-finite one (an undetermined standard error) to None."""
    return {k: (round(v, 6) if np.isfinite(v) else None) if isinstance(v, float) else v for k, v in d.items()}


@dataclass(frozen=True)
class ConversionFit:
    """input = output / efficiency, the roll-up's loss rule (``power.rollup``), fitted to one device."""

    kind: str
    name: str
    buckets: int
    mean_output_kw: float
    modelled_efficiency: float
    efficiency: float
    efficiency_se: float
    rms_residual_before_kw: float  # input against output / the inventory's efficiency
    rms_residual_after_kw: float

    def as_dict(self) -> dict:
        return _rounded(self.__dict__)


def fit_conversion(
    kind: str, name: str, output_kw: np.ndarray, input_kw: np.ndarray, modelled_efficiency: float
) -> ConversionFit:
    """The efficiency of a device from its 5-minute mean output and input (same buckets), kW."""
    out = np.asarray(output_kw, dtype=float)
    inp = np.asarray(input_kw, dtype=float)
    if out.shape != inp.shape or out.size < MIN_BUCKETS:
        raise ValueError(f"{kind} {name}: needs at least {MIN_BUCKETS} buckets with input and output")
    if not (out > 0).any():
        raise ValueError(f"{kind} {name}: the output is never above zero")
    (eta,), cov = curve_fit(lambda x, e: x / e, out, inp, p0=(modelled_efficiency,), bounds=(0.05, 1.5))
    return ConversionFit(
        kind,
        name,
        int(out.size),
        float(out.mean()),
        float(modelled_efficiency),
        float(eta),
        float(np.sqrt(cov[0, 0])),
        _rms(inp - out / modelled_efficiency),
        _rms(inp - out / eta),
    )


@dataclass(frozen=True)
class PlantFit:
    """A plant's power P = fixed + Q · (eir_ref + eir_per_k · (T − 20 °C)), fitted; and the rated COP that
    makes the twin's own plant model (``facility.year.plant_power_kw``) closest to the measurements."""

    kind: str
    name: str
    buckets: int
    fixed_kw: float  # fans and pumps that run whatever the heat
    fixed_kw_se: float
    eir_ref: float  # kW of electricity per kW of heat at 20 °C outdoors
    eir_ref_se: float
    eir_per_k: float  # its change per K of outdoor temperature
    eir_per_k_se: float
    cop_ref: float | None  # heat per kW of (heat-dependent) electricity at 20 °C: 1 / eir_ref
    modelled_cop: float
    cop: float  # the rated COP fitted through the twin's plant model
    cop_se: float
    rms_residual_before_kw: float  # the twin's model as the inventory stands (its COP or its fit)
    rms_residual_after_kw: float  # the twin's model at the fitted COP
    rms_residual_regression_kw: float  # the three-parameter regression

    def as_dict(self) -> dict:
        return _rounded(self.__dict__)


def _plant_regression(x: np.ndarray, fixed: float, eir: float, slope: float) -> np.ndarray:
    return fitted_plant_power_kw(fixed, eir, slope, x[0], x[1])


def fit_plant(
    kind: str,
    name: str,
    heat_kw: np.ndarray,
    outdoor_c: np.ndarray,
    power_kw: np.ndarray,
    modelled_cop: float,
    model: Callable[[float], np.ndarray],
    current_kw: np.ndarray | None = None,
) -> PlantFit:
    """A plant's coefficients from its 5-minute mean heat load (kW), the outdoor dry bulb (°C) and its
    electrical power (kW), same buckets. ``model(cop)``: the twin's plant equations in those buckets at a
    rated COP; ``current_kw``: the twin's plant power as the inventory stands (default ``model`` at the
    inventory's COP; a plant already holding fitted coefficients draws those). The regression needs the
    heat load and the temperature to vary independently (else its columns are collinear: a
    ``ValueError``)."""
    q = np.asarray(heat_kw, dtype=float)
    t = np.asarray(outdoor_c, dtype=float)
    p = np.asarray(power_kw, dtype=float)
    if not (q.shape == t.shape == p.shape) or q.size < MIN_BUCKETS + 1:
        raise ValueError(
            f"{kind} {name}: needs at least {MIN_BUCKETS + 1} buckets of heat, temperature, power"
        )
    design = np.column_stack([np.ones_like(q), q, q * (t - REFERENCE_C)])
    scaled = design / np.maximum(np.abs(design).max(axis=0), 1e-12)
    if np.linalg.matrix_rank(scaled, tol=1e-6) < 3:
        raise ValueError(f"{kind} {name}: the heat load and the outdoor temperature must both vary")
    x = np.vstack([q, t])
    start, *_ = np.linalg.lstsq(design, p, rcond=None)
    params, cov = curve_fit(_plant_regression, x, p, p0=tuple(start))
    se = np.sqrt(np.diag(cov))
    (cop,), cop_cov = curve_fit(lambda _x, c: model(c), x, p, p0=(modelled_cop,), bounds=(0.5, 100.0))
    fixed, eir, slope = (float(v) for v in params)
    return PlantFit(
        kind,
        name,
        int(q.size),
        fixed,
        float(se[0]),
        eir,
        float(se[1]),
        slope,
        float(se[2]),
        1.0 / eir if eir > 0 else None,
        float(modelled_cop),
        float(cop),
        float(np.sqrt(cop_cov[0, 0])),
        _rms(p - (model(modelled_cop) if current_kw is None else np.asarray(current_kw, dtype=float))),
        _rms(p - model(float(cop))),
        _rms(p - _plant_regression(x, fixed, eir, slope)),
    )
