"""With the plant model's PUE (no typed one), the grid connection sees the peak hour's facility power, not
the annual energy-weighted mean: grid_limit judges its limit against it and power_capping reports it as its
peak, while energy stays at the annual PUE."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campus.analysis.facility import campus_facility_year
from simulations.engine.runner import run_replica
from tests.engine.builders import campus

# The builder's campus: 32 HGX H100 servers x (8 x 700 W + 4,600 W) = 326.4 kW of servers; no switches,
# so the other IT is 10 % of IT: IT = 326.4 / 0.9 = 362.667 kW.
IT_KW = 32 * (8 * 700 + 4600) / 1000 / 0.9


@pytest.fixture(scope="module")
def plant_model():
    snap = replace(campus(), design_pue=None)
    year = campus_facility_year(snap)  # the summary's facility year
    peak = year.peak_hour
    assert year.it_mw[peak] * 1000 == pytest.approx(IT_KW)
    annual_kw = IT_KW * year.energy_weighted_pue
    peak_kw = year.peak_facility_mw * 1000
    assert peak_kw > annual_kw * 1.01  # the hottest hour costs more than the year's mean
    return snap, annual_kw, peak_kw


def test_grid_limit_judges_the_peak_hour(plant_model):
    snap, annual_kw, peak_kw = plant_model
    limit = (annual_kw + peak_kw) / 2  # above the annual mean, below the peak hour
    params = {"capacity_kw": limit, "events": [], "duration_hours": 1, "step_minutes": 10}
    r = run_replica("grid_limit", snap, params, seed=0)
    assert r.series["demand_kw"] == pytest.approx([peak_kw] * 6)
    assert r.metrics["max_shortfall_kw"] == pytest.approx(peak_kw - limit)
    assert r.metrics["min_cap_fraction"] < 1.0  # the campus caps to fit


def test_power_capping_reports_the_peak_hour_and_the_annual_energy(plant_model):
    snap, annual_kw, peak_kw = plant_model
    r = run_replica("power_capping", snap, {"caps": [], "duration_hours": 10}, seed=0)
    assert r.metrics["peak_facility_mw"] * 1000 == pytest.approx(peak_kw)
    assert r.metrics["mean_facility_mw"] * 1000 == pytest.approx(annual_kw)
    assert r.metrics["energy_facility_mwh"] * 1000 == pytest.approx(annual_kw * 10)
