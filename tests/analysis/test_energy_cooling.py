"""IT power breakdown, facility energy and cost, and the cooling heat balance."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.cooling import cooling_balance, mechanical_loads_kw, unit_heat_kw
from campus.analysis.energy import facility_energy, it_breakdown
from tests.analysis.builders import TOY_NODE, CoolingPlantSnap, CoolingUnitSnap, campus, rack


def test_it_breakdown_adds_other_it_as_the_rest_of_the_fraction():
    snap = campus(racks=(rack(1, 10), rack(2, 10)), other_it_fraction=0.1)
    it = it_breakdown(snap)
    assert it.gpu_kw == pytest.approx(16.0)  # 20 nodes x 8 x 100 W
    assert it.server_overhead_kw == pytest.approx(4.0)
    assert it.it_kw == pytest.approx(20.0 / 0.9)
    assert it.other_it_kw == pytest.approx(20.0 / 0.9 - 20.0)


def test_itemised_network_power_adds_to_the_allowance():
    # servers 20 kW; the allowance for what is not inventoried 20 x 0.1 / 0.9 = 2.2222 kW whatever the
    # network; the inventoried network adds its own draw (it used to shrink the allowance: 1 kW of switches
    # left IT at 22.222 kW)
    snap = campus(racks=(rack(1, 10), rack(2, 10)), other_it_fraction=0.1)
    assert it_breakdown(snap, network_kw=1.0).it_kw == pytest.approx(20.0 / 0.9 + 1.0)
    big = it_breakdown(snap, network_kw=5.0)
    assert big.it_kw == pytest.approx(20.0 / 0.9 + 5.0)
    assert big.other_it_kw == pytest.approx(20.0 / 0.9 - 20.0)


def test_gpu_power_fraction_scales_only_gpu_power():
    snap = campus(racks=(rack(1, 10),))
    it = it_breakdown(snap, gpu_power_fraction=0.5)
    assert it.gpu_kw == pytest.approx(4.0)
    assert it.server_overhead_kw == pytest.approx(2.0)


def test_facility_energy_is_it_times_pue_over_a_year():
    e = facility_energy(100.0, 1.2, 0.1)
    assert e.facility_kw == pytest.approx(120.0)
    assert e.annual_energy_mwh == pytest.approx(120.0 * 8760 / 1000)
    assert e.annual_cost_usd == pytest.approx(120.0 * 8760 * 0.1)
    with pytest.raises(ValueError, match="^pue:"):
        facility_energy(1.0, 0.9, 0.1)


# the toy server with cold plates that carry 80% of its heat
COLD_TOY = replace(TOY_NODE, slug="toy8l", liquid_heat_fraction=0.8)


def _cooled():
    # R1: 10 kW direct-to-chip on CDU U1 -> 8 kW to U1, 2 kW to the hall's CRAH U2; R2: 45 kW air on U2.
    return campus(
        node_models={"toy8": TOY_NODE, "toy8l": COLD_TOY},
        racks=(
            rack(1, 10, node="toy8l", cooling_unit_id=1),
            rack(2, 45, cooling_unit_id=2, cooling_type="air"),
        ),
        cooling_units=(
            CoolingUnitSnap(1, "U1", "cdu", 25.0, 25.0, 45.0, 100.0, 1, None, 1, group="g"),
            CoolingUnitSnap(2, "U2", "crah", 50.0, 25.0, 45.0, 60.0, 1, None, 1, group="g"),
        ),
        cooling_plants=(CoolingPlantSnap(1, "CH1", "chiller", 100.0, 5.0, 1, None),),
    )


def test_cooling_heat_per_unit_and_plant_and_electrical_power():
    c = cooling_balance(_cooled())
    u1, u2 = c.units
    assert (u1.heat_kw, u2.heat_kw) == pytest.approx((8.0, 47.0))
    assert u2.utilization == pytest.approx(0.94)
    assert u2.flow_needed_lpm == pytest.approx(70.5)
    assert u2.flow_short and not u1.flow_short
    # the plant takes the units' heat and their pumps' and fans' own: 55 + 8 x 2% + 47 x 4% = 57.04 kW
    assert c.plants[0].heat_kw == pytest.approx(57.04)
    assert c.plants[0].electrical_kw == pytest.approx(57.04 / 5.0)
    assert c.heat_load_kw == pytest.approx(55.0)
    # nameplates apart; the usable capacity keeps N+1 (undeclared): the group g (25 + 50 kW) without its
    # largest unit keeps 25 kW, less than its 55 kW of heat (no spare); the one plant has no spare: 0
    assert (c.unit_capacity_kw, c.plant_capacity_kw) == (75.0, 100.0)
    assert c.capacity_kw == 25.0
    assert c.spare_kw == 0.0
    assert c.plant_usable_capacity_kw == 0.0
    assert c.redundancy == "N+1"


def _air_campus(redundancy: str):
    # Two 10 kW air racks on CRAH 1 of a group of three 20 kW CRAHs; two 100 kW chillers in building 1.
    units = tuple(
        CoolingUnitSnap(u, f"CRAH-{u}", "crah", 20.0, 24.0, 40.0, 0.0, 1 + u % 2, None, 1, group="crah")
        for u in (1, 2, 3)
    )
    plants = tuple(CoolingPlantSnap(p, f"CH{p}", "chiller", 100.0, 5.0, 1, None) for p in (1, 2))
    racks = tuple(rack(r, 10, cooling_unit_id=1, cooling_type="air") for r in (1, 2))
    return campus(racks=racks, cooling_units=units, cooling_plants=plants, cooling_redundancy=redundancy)


@pytest.mark.parametrize(
    ("redundancy", "usable_kw", "plants_kw"),
    [
        ("N", 60.0, 200.0),  # every unit: 3 x 20; both plants
        ("N+1", 40.0, 100.0),  # the largest CRAH lost: 2 x 20; one chiller lost
        ("2N", 20.0, 100.0),  # the larger half lost (2 of 3): 20; one of two chillers
    ],
)
def test_capacity_is_what_the_units_carry_with_the_declared_redundancy(redundancy, usable_kw, plants_kw):
    from campus.analysis.summary import campus_summary

    c = cooling_balance(_air_campus(redundancy))
    # 20 kW of heat, all in air on the CRAH group
    assert c.heat_load_kw == pytest.approx(20.0)
    assert c.capacity_kw == pytest.approx(usable_kw)
    assert c.capacity_by_path_kw == {"liquid": 0.0, "air": pytest.approx(usable_kw)}
    assert c.spare_kw == pytest.approx(usable_kw - 20.0)
    assert c.plant_usable_capacity_kw == pytest.approx(plants_kw)
    summary = campus_summary(_air_campus(redundancy), include_redundancy=False)["cooling"]
    assert summary["capacity_mw"] == pytest.approx(usable_kw / 1000.0)
    assert summary["capacity_redundancy"] == redundancy
    assert summary["spare_mw"] == pytest.approx((usable_kw - 20.0) / 1000.0)
    # the nameplates, spares included, stay under their own names
    assert summary["unit_capacity_mw"] == pytest.approx(0.060)
    assert summary["plant_capacity_mw"] == pytest.approx(0.200)
    assert summary["plant_usable_capacity_mw"] == pytest.approx(plants_kw / 1000.0)


def test_air_cooled_racks_above_the_limit_are_listed():
    assert cooling_balance(_cooled()).racks_over_air_limit == [2]
    assert cooling_balance(_cooled(), air_limit_kw=50.0).racks_over_air_limit == []


def test_n_plus_1_group_fails_when_the_rest_cannot_carry_the_largest_unit_loss():
    (group,) = cooling_balance(_cooled()).groups
    assert group.capacity_without_largest_kw == 25.0
    assert not group.n_plus_1
    lighter = cooling_balance(_cooled(), rack_load_kw={2: 10.0})
    assert lighter.groups[0].n_plus_1


def test_failed_unit_carries_no_capacity_and_shows_overloaded():
    c = cooling_balance(_cooled(), failed_units=frozenset({2}))
    assert c.units[1].capacity_kw == 0.0 and c.units[1].overloaded


def test_mechanical_loads_are_fans_pumps_and_plant_heat_over_cop():
    # CDU U1 moves 8 kW: pumps 2% -> 0.16 kW; CRAH U2 moves 47 kW: fans 4% -> 1.88 kW;
    # the chiller rejects 55 + 0.16 + 1.88 = 57.04 kW at COP 5 -> 11.408 kW (catalog fan/pump fractions,
    # worked by hand).
    loads = mechanical_loads_kw(_cooled())
    assert loads == pytest.approx({("unit", 1): 0.16, ("unit", 2): 1.88, ("plant", 1): 11.408})
    assert unit_heat_kw(_cooled()) == pytest.approx({1: 8.0, 2: 47.0})


def _cdu_group(redundancy: str, heat_kw: float):
    # One group "G" of four 500 kW CDUs; four rear-door racks (all their heat to their CDU) of heat_kw / 4
    # each, one per CDU. Toy nodes draw 1 kW each and other_it_fraction is 0, so the group carries heat_kw.
    units = tuple(
        CoolingUnitSnap(u, f"CDU-{u}", "cdu", 500.0, 25.0, 45.0, 0.0, None, None, 1, group="G")
        for u in (1, 2, 3, 4)
    )
    per_rack = int(heat_kw / 4)
    racks = tuple(rack(r, per_rack, cooling_unit_id=r, cooling_type="rear-door") for r in (1, 2, 3, 4))
    return campus(racks=racks, cooling_units=units, cooling_redundancy=redundancy)


@pytest.mark.parametrize(
    ("redundancy", "heat_kw", "usable_kw", "fails"),
    [
        # 2N: the larger half of the four (2 x 500) out leaves 1,000 kW, below 1,100: fails
        ("2N", 1100.0, 1000.0, True),
        # N+1: the largest (500) out leaves 1,500 kW, above 1,100: holds (the old check, N+1 for everyone,
        # passed the 2N group above)
        ("N+1", 1100.0, 1500.0, False),
        # undeclared counts as N+1
        ("", 1100.0, 1500.0, False),
        # N+1 at 1,600 kW: 1,500 usable, fails; declared N, nothing out: 2,000 kW, holds (the old check
        # failed it as if N+1 were declared)
        ("N+1", 1600.0, 1500.0, True),
        ("N", 1600.0, 2000.0, False),
    ],
)
def test_groups_are_checked_against_their_declared_redundancy(redundancy, heat_kw, usable_kw, fails):
    from campus.analysis.summary import campus_summary

    snap = _cdu_group(redundancy, heat_kw)
    (group,) = cooling_balance(snap).groups
    assert group.heat_kw == pytest.approx(heat_kw)
    assert group.usable_capacity_kw == pytest.approx(usable_kw)
    assert group.redundancy == (redundancy or "N+1")
    assert group.holds is not fails
    cooling = campus_summary(snap, include_redundancy=False)["cooling"]
    assert cooling["groups_failing_redundancy"] == (["G"] if fails else [])
    # the earlier name of the same list, kept for clients
    assert cooling["groups_failing_n_plus_1"] == cooling["groups_failing_redundancy"]


@settings(max_examples=200, deadline=None)
@given(network_kw=st.floats(0.0, 1e5, allow_nan=False), fraction=st.sampled_from([0.0, 0.05, 0.1]))
def test_other_it_is_never_below_zero(network_kw, fraction):
    """IT is at least the servers plus the itemised part (``it_total_kw``), so the rest is never negative; taken
    by difference it came out a hair below zero (-1e-13 kW) and the overview printed "other IT -0.0 MW"."""
    snap = campus(racks=(rack(1, 10), rack(2, 10)), other_it_fraction=fraction)
    it = it_breakdown(snap, network_kw=network_kw)
    assert it.other_it_kw >= 0.0
    parts = it.gpu_kw + it.server_overhead_kw + it.network_kw + it.rack_extra_kw + it.other_it_kw
    assert parts == pytest.approx(it.it_kw, rel=1e-12)
