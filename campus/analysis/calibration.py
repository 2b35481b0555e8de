"""Calibration: the model's rack power fitted to measured rack power (docs/live.md, "Calibration").

A rack's modelled IT power is linear in two of the model's parameters:

    P_r = f · G_r + k · B_r + E_r

with ``G_r`` its GPUs' power at TDP (kW), ``B_r`` its servers' power beyond the GPUs (the node models'
overhead and NIC extras, kW), ``E_r`` its typed in-rack extras (``extra_it_kw``, held as typed), ``f`` the GPU
power in training as a fraction of TDP and ``k`` the scale of the servers' overhead (1: the catalog's
figures) -- the campus's ``gpu_power_fraction`` and ``server_overhead_scale``, which the snapshot's
``node_power_w`` applies. ``scipy.optimize.curve_fit`` fits (f, k) to the measured racks by least squares,
its covariance giving their standard errors. When every measured rack has the same make the two columns are
proportional and only ``f`` is fitted (``k`` stays the campus's, ``fitted`` says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.optimize import curve_fit

from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.units import w_to_kw


@dataclass(frozen=True)
class Calibration:
    racks: int
    fitted: tuple[str, ...]
    gpu_power_fraction: float
    gpu_power_fraction_se: float
    overhead_scale: float
    overhead_scale_se: float | None
    rms_residual_before_kw: float
    rms_residual_after_kw: float

    def as_dict(self) -> dict:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def rack_terms_kw(snap: CampusSnapshot) -> dict[int, tuple[float, float, float]]:
    """Per rack: (GPUs at TDP, servers' overhead at the catalog's figures, in-rack extras) in kW."""
    out = {}
    for r in snap.racks:
        gpu_w = overhead_w = 0.0
        for slug, count in r.nodes:
            spec = snap.node_models[slug]
            gpu_w += count * spec.gpus_per_node * snap.gpus[spec.gpu].tdp_w
            overhead_w += count * (spec.overhead_w + spec.nics * spec.nic_extra_w)
        out[r.id] = (w_to_kw(gpu_w), w_to_kw(overhead_w), r.extra_it_kw)
    return out


def calibrate(snap: CampusSnapshot, measured_kw: Mapping[int, float]) -> Calibration:
    """Fit f and k to ``measured_kw`` (rack id → measured mean power, kW); at least two racks with GPUs. The
    residual before is the campus's model as it stands (its own f and k)."""
    terms = rack_terms_kw(snap)
    ids = [rid for rid in measured_kw if rid in terms and terms[rid][0] > 0]
    if len(ids) < 2:
        raise ValueError("racks: calibration needs measured racks with GPUs, at least two")
    g = np.array([terms[r][0] for r in ids])
    b = np.array([terms[r][1] for r in ids])
    e = np.array([terms[r][2] for r in ids])
    y = np.array([measured_kw[r] for r in ids]) - e
    f0, k0 = snap.gpu_power_fraction, snap.server_overhead_scale
    before = float(np.sqrt(np.mean((y - f0 * g - k0 * b) ** 2)))
    ratio = b / g
    if len(ids) >= 3 and np.ptp(ratio) > 1e-6 * max(1.0, float(np.max(np.abs(ratio)))):
        (f, k), cov = curve_fit(lambda x, f, k: f * x[0] + k * x[1], np.vstack([g, b]), y, p0=(f0, k0))
        f_se, k_se = (float(v) for v in np.sqrt(np.diag(cov)))
        fitted = ("gpu_power_fraction", "overhead_scale")
    else:
        (f,), cov = curve_fit(lambda x, f: f * x[0] + k0 * x[1], np.vstack([g, b]), y, p0=(f0,))
        k, f_se, k_se = k0, float(np.sqrt(cov[0, 0])), None
        fitted = ("gpu_power_fraction",)
    after = float(np.sqrt(np.mean((y - f * g - k * b) ** 2)))
    return Calibration(len(ids), fitted, float(f), f_se, float(k), k_se, before, after)
