"""A grid connection below the peak is a shortfall: flagged in the summary's risks, the energy above it served
by the standby generators at their fuel (never the grid tariff), and the facility power unchanged.

Truth from outside the figures under test: the same campus with an ample connection, and the catalog's diesel
fuel figure (EIA: $3.76/gal x ~0.07 gal/kWh = $263/MWh generated) multiplied by hand.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus import catalog_data as cat
from campus.analysis.energy import grid_supply
from campus.analysis.summary import campus_summary
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

_SNAPS: dict[bool, object] = {}


def _campus(typed_pue: bool):
    """A generated 1,024-GPU campus (typed PUE 1.2, or the plant model's hour by hour), built once."""
    if typed_pue not in _SNAPS:
        _SNAPS[typed_pue] = spec_snapshot(generate_spec("G", gpus=1024, pue=1.2 if typed_pue else None))
    return _SNAPS[typed_pue]


def _with_grid(snap, capacity_kw: float):
    """The campus with its connection (and each utility feed, each carrying the whole campus) at
    ``capacity_kw``."""
    feeds = tuple(replace(u, capacity_kw=capacity_kw) for u in snap.utility_feeds)
    return replace(snap, grid_capacity_kw=capacity_kw, utility_feeds=feeds)


def _summary(snap) -> dict:
    return campus_summary(snap, include_redundancy=False)


def test_a_connection_below_the_peak_is_served_by_generators_at_their_fuel_by_hand():
    # Typed PUE: the facility draws F kW every hour. A connection of 0.9 F leaves 0.1 F to the generators:
    # 0.1 F x 8,760 h at $263/MWh, the rest at the grid tariff ($0.078/kWh). Facility power and PUE as with
    # an ample connection.
    snap = _campus(typed_pue=True)
    ample = _summary(snap)["power"]
    facility_kw = ample["facility_mw"] * 1000.0
    short = _summary(_with_grid(snap, 0.9 * facility_kw))
    power = short["power"]
    assert power["facility_mw"] == pytest.approx(ample["facility_mw"], rel=1e-12)
    assert power["pue"] == pytest.approx(ample["pue"], rel=1e-12)
    diesel = cat.default_value("generator_fuel_usd_per_mwh_diesel")
    assert diesel == 263.0
    generator_mwh = 0.1 * facility_kw * 8760.0 / 1000.0
    grid_usd = 0.9 * facility_kw * 8760.0 * 0.078
    assert power["grid_supply"]["generator_energy_mwh"] == pytest.approx(generator_mwh, rel=1e-9)
    assert power["annual_cost_usd"] == pytest.approx(grid_usd + generator_mwh * 263.0, rel=1e-9)
    assert power["annual_cost_usd"] > ample["annual_cost_usd"]
    risk = next(r for r in short["risks"] if r["kind"] == "grid_shortfall")
    assert risk["shortfall_mw"] == pytest.approx(0.1 * ample["facility_mw"], rel=1e-9)
    assert risk["hours"] == 1  # the typed PUE's one representative hour, scaled to the year
    assert not [r for r in _summary(snap)["risks"] if r["kind"] == "grid_shortfall"]


def test_a_connection_at_half_the_peak_keeps_the_chain_losses_and_the_pue():
    # The old roll-up tripped the utility, served everything from loss-free generators and dropped the
    # substation, transformer and switchgear losses: the PUE fell and the campus got cheaper.
    snap = _campus(typed_pue=False)
    ample = _summary(snap)["power"]
    half = _summary(_with_grid(snap, 0.5 * ample["peak_facility_mw"] * 1000.0))
    assert half["power"]["facility_mw"] == pytest.approx(ample["facility_mw"], rel=1e-12)
    assert half["power"]["pue"] == pytest.approx(ample["pue"], rel=1e-12)
    assert half["power"]["annual_cost_usd"] > ample["annual_cost_usd"]
    assert {r["kind"] for r in half["risks"]} >= {"grid_shortfall", "utility_trips_at_design_load"}


@settings(max_examples=12, deadline=None)
@given(st.floats(0.2, 1.5), st.floats(0.2, 1.5), st.booleans())
def test_a_smaller_grid_never_lowers_facility_power_or_cost(a, b, typed_pue):
    snap = _campus(typed_pue)
    peak_kw = _summary(snap)["power"]["peak_facility_mw"] * 1000.0
    big, small = (
        _summary(_with_grid(snap, max(a, b) * peak_kw))["power"],
        _summary(_with_grid(snap, min(a, b) * peak_kw))["power"],
    )
    assert small["facility_mw"] >= big["facility_mw"] * (1 - 1e-12)
    assert small["peak_facility_mw"] >= big["peak_facility_mw"] * (1 - 1e-12)
    assert small["annual_cost_usd"] >= big["annual_cost_usd"] * (1 - 1e-12)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(0.0, 1e5), min_size=1, max_size=48),
    st.floats(0.0, 2e5),
    st.floats(0.0, 2e5),
    st.floats(0.0, 1.0),
)
def test_grid_supply_never_gets_cheaper_with_a_smaller_connection(hours_kw, c1, c2, price):
    # pure core: the generators' fuel above the tariff, any series of hours
    fuel = 1000.0 * price + 185.0
    lo, hi = sorted((c1, c2))
    if lo == 0.0:
        return  # 0 means "no limit modelled", not a connection of nothing
    small, big = grid_supply(hours_kw, lo, price, fuel), grid_supply(hours_kw, hi, price, fuel)
    assert small.annual_cost_usd >= big.annual_cost_usd - 1e-6 * max(1.0, big.annual_cost_usd)
    total = small.grid_energy_mwh + small.generator_energy_mwh
    assert total == pytest.approx(sum(hours_kw) * 8760.0 / len(hours_kw) / 1000.0, rel=1e-9, abs=1e-9)
