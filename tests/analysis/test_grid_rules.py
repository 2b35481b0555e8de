"""Large-load rules: which a campus falls under (region, peak against the threshold, on-site sources), and
the ride-through curves read at their published points."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campus.analysis.generation import PRIME_MOVERS
from campus.analysis.grid_rules import RULE_SETS, campus_rules, rides_through
from campus.analysis.snapshot import EnergyStorageSnap
from campus.analysis.summary import campus_summary
from tests.engine.builders import campus


def _applies(snap, peak_mw):
    return {r["id"]: r["applies"] for r in campus_rules(snap, peak_mw * 1000.0)}


def test_a_91_mw_campus_in_texas_falls_under_the_ercot_75_mw_rule():
    snap = replace(campus(), climate="abilene-us")
    rules = _applies(snap, 91.0)
    assert rules["ercot-large-load-interconnection"] is True
    assert rules["nerc-large-load-ride-through"] is True
    assert rules["utility-ramp-and-oscillation"] is True
    assert _applies(snap, 74.9)["ercot-large-load-interconnection"] is False


def test_the_ercot_rule_does_not_reach_a_campus_in_virginia():
    rules = _applies(replace(campus(), climate="ashburn-us"), 91.0)
    assert rules["ercot-large-load-interconnection"] is False
    assert rules["nerc-large-load-ride-through"] is True


def test_the_onsite_ride_through_rule_needs_an_onsite_source():
    snap = campus()
    assert _applies(snap, 10.0)["ride-through-onsite-sources"] is False
    bess = (EnergyStorageSnap(1, "BESS", 5_000.0, 10_000.0, 0.85, 20.0, 1, None),)
    assert _applies(replace(snap, energy_storage=bess), 10.0)["ride-through-onsite-sources"] is True


def test_every_rule_names_its_source_and_what_it_requires():
    for r in campus_rules(campus(), 91_000.0):
        assert r["source"] and r["requires"] and set(r) >= {"rule", "source", "applies", "requires"}


@pytest.mark.parametrize(
    ("curve", "volts", "seconds", "rides"),
    [
        ("itic", 0.0, 0.02, True),  # ITIC: 0 V for 20 ms
        ("itic", 0.0, 0.03, False),
        ("itic", 0.7, 0.5, True),
        ("itic", 0.75, 1.0, False),  # 70-80 %: only 0.5 s
        ("itic", 0.8, 10.0, True),
        ("semi-f47", 0.5, 0.2, True),
        ("semi-f47", 0.5, 0.3, False),
        ("semi-f47", 0.8, 1.0, True),
        ("prc-024", 0.45, 0.15, True),
        ("prc-024", 0.6, 0.5, False),
    ],
)
def test_ride_through_curves_at_their_published_points(curve, volts, seconds, rides):
    assert rides_through(curve, volts, seconds) is rides


def test_no_rule_set_uses_the_75_mw_threshold_as_a_swing_limit():
    assert all(s.max_swing_mw != 75.0 for s in RULE_SETS.values())


def test_the_summary_reports_a_years_co2_at_the_sites_grid_intensity():
    # Ashburn sits on PJM (0.35 t/MWh, docs/grid.md); no shortfall, so every MWh is the grid's
    s = campus_summary(campus(racks=320))
    grid = s["grid"]
    assert grid["region"] == "pjm"
    assert grid["grid_emissions_tco2"] == pytest.approx(s["power"]["annual_energy_twh"] * 1e6 * 0.35)
    assert grid["onsite_emissions_tco2"] == 0 and grid["fuel_cost_usd"] == 0
    assert grid["emissions_tco2"] == pytest.approx(grid["grid_emissions_tco2"])


def test_heat_rate_against_load_by_hand():
    gt, recip = PRIME_MOVERS["gas_turbine"], PRIME_MOVERS["recip_engine"]
    assert gt.heat_rate(0.5) / gt.heat_rate(1.0) == pytest.approx(1.25)
    assert recip.heat_rate(0.5) / recip.heat_rate(1.0) == pytest.approx(1.08)
    # 1 MWh at full load from a turbine: 9.5 MMBtu x 53.06 kg = 0.504 t CO2
    assert gt.co2_t(gt.fuel_mmbtu(1000.0, 1000.0, 1.0)) == pytest.approx(9.5 * 0.05306)
    # below its minimum load a unit burns the minimum's fuel
    assert gt.fuel_share(100.0, 1000.0) == pytest.approx(gt.fuel_share(250.0, 1000.0))
