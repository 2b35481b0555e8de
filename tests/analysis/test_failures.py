"""Failures across power and cooling: hidden single points, compound failures, mechanical loads on the chain.

The hand-built hall: utility 1 -> UPS 1 (A) -> PDU 11, utility 2 -> UPS 2 (B) -> PDU 12, racks fed A from 11
and B from 12 (``builders.two_n``). Each rack holds ten 8-GPU toy servers of 1 kW: 10 kW, 80 GPUs. Air-cooled
racks sit on CRAHs of one N+1 group, each CRAH serving one rack.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.failures import fail
from campus.analysis.impact import impact
from campus.analysis.power import rollup
from campus.analysis.redundancy import redundancy_check, redundancy_elements
from campus.analysis.synthetic import synthetic_campus
from campus.catalog_data import default_value
from tests.analysis.builders import (
    TOY_NODE,
    CoolingPlantSnap,
    CoolingUnitSnap,
    device,
    feed,
    replace,
    two_n,
)

GPUS_PER_RACK = 80


def _hall(
    racks: int = 3, crah_kw: float = 15.0, supplies=lambda i: (None, None), extra_devices=(), extra_feeds=()
):
    """``racks`` air racks of 10 kW, one CRAH each (group "hall"), CRAH i fed by ``supplies(i)``."""
    snap = two_n(tuple([10] * racks))
    rack_snaps = tuple(replace(r, cooling_type="air", cooling_unit_id=r.id) for r in snap.racks)
    units = tuple(
        CoolingUnitSnap(
            r.id,
            f"CRAH-{r.id}",
            "crah",
            crah_kw,
            18.0,
            30.0,
            0.0,
            None,
            supplies(r.id)[0],
            1,
            group="hall",
            power_device_b_id=supplies(r.id)[1],
        )
        for r in snap.racks
    )
    return replace(
        snap,
        racks=rack_snaps,
        cooling_units=units,
        power_devices=snap.power_devices + tuple(extra_devices),
        power_feeds=snap.power_feeds + tuple(extra_feeds),
    )


def _main_switchboard_hall():
    # A main switchboard fed from both UPS feeds every CRAH: it survives either side, but is one box.
    return _hall(
        supplies=lambda i: (20, None),
        extra_devices=(device(20, "switchgear", 1000.0),),
        extra_feeds=(feed(1, dev=20, side="A"), feed(2, dev=20, side="B")),
    )


def test_a_main_switchboard_feeding_every_crah_is_a_cooling_single_point():
    findings = redundancy_check(_main_switchboard_hall())
    assert [(f.device_kind, f.device_id, f.effect, f.gpus_lost) for f in findings] == [
        ("power", 20, "cooling", 3 * GPUS_PER_RACK)
    ]
    assert findings[0].racks_lost == [1, 2, 3] and findings[0].gpus_lost_power == 0


def test_a_single_mechanical_pdu_is_a_single_point_with_everything_above_it():
    # MPDU 21 hangs off UPS 1 only: losing it, UPS 1 or utility 1 stops every CRAH.
    snap = _hall(
        supplies=lambda i: (21, None),
        extra_devices=(device(21, "pdu", 100.0),),
        extra_feeds=(feed(1, dev=21, side="A"),),
    )
    found = {(f.device_kind, f.device_id): (f.effect, f.gpus_lost) for f in redundancy_check(snap)}
    lost = ("cooling", 3 * GPUS_PER_RACK)
    assert found == {("utility", 1): lost, ("power", 1): lost, ("power", 21): lost}


def test_dual_fed_crahs_leave_no_single_point():
    # CRAHs dual-fed from mechanical PDUs 21 (under UPS 1) and 22 (under UPS 2).
    snap = _hall(
        supplies=lambda i: (21, 22),
        extra_devices=(device(21, "pdu", 100.0), device(22, "pdu", 100.0)),
        extra_feeds=(feed(1, dev=21, side="A"), feed(2, dev=22, side="B")),
    )
    assert redundancy_check(snap) == []


def test_one_crah_lost_is_carried_by_its_group_two_are_not():
    # Group of three 15 kW CRAHs on 30 kW of heat: one lost leaves 30 kW (enough); two lost leave 15 kW for
    # 30 kW. The group shares the room's air, so the shortfall warms every rack on it: all three racks
    # lose cooling (the model does not shed racks). The survivors' 15 kW is counted once.
    snap = _hall()
    assert fail(snap, [("cooling", 1)]).gpus_lost == 0
    two = impact(snap, failed=[("cooling", 1), ("cooling", 2)])
    assert two.racks_lost_cooling == [1, 2, 3]
    assert two.gpus_lost_cooling == 3 * GPUS_PER_RACK
    assert two.effect == "cooling" and two.as_dict()["gpus_lost"] == 240
    assert two.cooling_units_stopped == [1, 2]
    assert [e["id"] for e in two.as_dict()["failed"]] == [1, 2]


def test_compound_power_and_cooling_failure():
    # PDU 11 lost costs side A only; with CRAH 3 lost as well the group still covers its 30 kW (two CRAHs
    # left); with CRAHs 2 and 3 lost, 15 kW for 30 kW: every rack of the group (powered on side B) loses
    # cooling.
    snap = _hall()
    assert impact(snap, failed=[("power", 11), ("cooling", 3)]).gpus_lost == 0
    im = impact(snap, failed=[("power", 11), ("cooling", 2), ("cooling", 3)])
    assert im.racks_lost_a == [1, 2, 3] and im.racks_lost_cooling == [1, 2, 3]
    assert im.gpus_lost == 3 * GPUS_PER_RACK


def test_compound_failure_names_the_bad_element():
    with pytest.raises(ValueError, match="^device_id: no cooling unit 99"):
        impact(_hall(), failed=[("power", 11), ("cooling", 99)])
    with pytest.raises(ValueError, match="^failed:"):
        impact(_hall(), failed=[])


# ---------------------------------------------------------------- mechanical loads on the chain


def test_cooling_loads_ride_on_their_supplies_split_like_a_rack():
    fan = default_value("crah_fan_kw_per_kw_heat")
    snap = _hall(
        supplies=lambda i: (21, 22),
        extra_devices=(device(21, "pdu", 100.0), device(22, "pdu", 100.0)),
        extra_feeds=(feed(1, dev=21, side="A"), feed(2, dev=22, side="B")),
    )
    # a chiller of COP 5 behind the CRAHs, fed from MPDU 21 only: 30 kW of rack heat plus the fans' own
    # 30 x 4% = 1.2 kW -> 31.2 kW / 5 = 6.24 kW of electricity
    plant = CoolingPlantSnap(1, "CH-1", "chiller", 100.0, 5.0, 1, 21)
    snap = replace(
        snap, cooling_plants=(plant,), cooling_units=tuple(replace(u, plant_id=1) for u in snap.cooling_units)
    )
    r = rollup(snap)
    crahs_kw = 30.0 * fan
    assert r.mechanical_load_kw[("plant", 1)] == pytest.approx(6.24)
    assert r.device_load_kw[21] == pytest.approx(6.24 + crahs_kw / 2)
    assert r.device_load_kw[22] == pytest.approx(crahs_kw / 2)
    # UPS 1 carries its racks' A halves (15 kW), the chiller and half of the fans
    assert r.device_load_kw[1] == pytest.approx(15.0 + 6.24 + crahs_kw / 2)
    # one supply lost: the other carries every fan
    r = rollup(snap, failed=frozenset({21}))
    assert r.device_load_kw[22] == pytest.approx(crahs_kw)
    assert r.mechanical_load_kw[("plant", 1)] == 0.0


def test_a_mechanical_overload_trips_and_cools_nothing():
    # Dual-fed CRAHs on two mechanical PDUs each able to carry half the fans: losing one trips the other.
    fan_kw = 30.0 * default_value("crah_fan_kw_per_kw_heat")
    rated = fan_kw * 0.75
    snap = _hall(
        supplies=lambda i: (21, 22),
        extra_devices=(device(21, "pdu", rated), device(22, "pdu", rated)),
        extra_feeds=(feed(1, dev=21, side="A"), feed(2, dev=22, side="B")),
    )
    assert rollup(snap).tripped == []
    found = {(f.device_kind, f.device_id): f for f in redundancy_check(snap)}
    f21 = found[("power", 21)]
    assert f21.effect == "cascade" and [(k, i) for k, i, _ in f21.tripped] == [("device", 22)]
    assert f21.gpus_lost == 3 * GPUS_PER_RACK and f21.gpus_lost_cooling == 3 * GPUS_PER_RACK


# ---------------------------------------------------------------- agreement and monotony


def _generated_liquid(cooling_redundancy: str):
    from campus.interchange.generate import generate_spec
    from tests.analysis.spec_snapshot import spec_snapshot

    small = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}
    spec = generate_spec("P", 512, cooling="liquid", cooling_redundancy=cooling_redundancy, **small)
    return spec_snapshot(spec)


def _snapshots():
    yield _main_switchboard_hall()
    yield _hall(
        supplies=lambda i: (21, 22) if i != 2 else (21, None),
        extra_devices=(device(21, "pdu", 1.0), device(22, "pdu", 1.0)),
        extra_feeds=(feed(1, dev=21, side="A"), feed(2, dev=22, side="B")),
    )
    yield synthetic_campus(
        512, racks_per_hall=8, racks_per_row=4, halls_per_building=2, cdus_per_hall=3, with_fabric=False
    )


@pytest.mark.parametrize("snap", list(_snapshots()))
def test_the_incremental_check_agrees_with_impact_mode_element_by_element(snap):
    design_trips = {(k, i) for k, i, _ in rollup(snap).tripped}
    expected = {}
    for kind, ident, _ in redundancy_elements(snap):
        im = impact(snap, ident, kind)
        trips = [t for t in im.tripped if (t[0], t[1]) not in design_trips]
        lost = im.gpus_lost_power + im.gpus_lost_cooling
        if trips or lost:
            effect = "cascade" if trips else ("power" if im.gpus_lost_power else "cooling")
            expected[(kind, ident)] = (effect, lost)
    got = {(f.device_kind, f.device_id): (f.effect, f.gpus_lost) for f in redundancy_check(snap)}
    assert got == expected


def _tight(mpdu_kw: float, dual: tuple[bool, ...], crah_kw: float):
    return _hall(
        racks=len(dual),
        crah_kw=crah_kw,
        supplies=lambda i: (21, 22 if dual[i - 1] else None),
        extra_devices=(device(21, "pdu", mpdu_kw), device(22, "pdu", mpdu_kw)),
        extra_feeds=(feed(1, dev=21, side="A"), feed(2, dev=22, side="B")),
    )


def _all_elements(snap):
    return (
        [("utility", u.id) for u in snap.utility_feeds]
        + [("power", d.id) for d in snap.power_devices if d.kind != "generator"]
        + [("cooling", u.id) for u in snap.cooling_units]
        + [("plant", p.id) for p in snap.cooling_plants]
    )


def _usable_racks(snap, failed) -> set[int]:
    im = impact(snap, failed=failed) if failed else None
    lost = set(im.racks_lost_both) | set(im.racks_lost_cooling) if im else set()
    return {r.id for r in snap.racks} - lost


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    mpdu_kw=st.sampled_from([0.5, 1.0, 2.0, 100.0]),
    dual=st.lists(st.booleans(), min_size=2, max_size=4).map(tuple),
    crah_kw=st.sampled_from([8.0, 12.0, 25.0]),
)
def test_failing_more_never_leaves_more_gpus_powered_or_cooled(data, mpdu_kw, dual, crah_kw):
    snap = _tight(mpdu_kw, dual, crah_kw)
    elements = _all_elements(snap)
    small = data.draw(st.lists(st.sampled_from(elements), min_size=1, max_size=3, unique=True))
    more = data.draw(st.lists(st.sampled_from(elements), max_size=3, unique=True))
    big = small + [e for e in more if e not in small]
    assert _usable_racks(snap, big) <= _usable_racks(snap, small)
    # the incremental core sees the same losses as impact mode
    for failed in (small, big):
        im, res = impact(snap, failed=failed), fail(snap, failed)
        assert (im.gpus_lost_power, im.gpus_lost_cooling) == (res.gpus_lost_power, res.gpus_lost_cooling)


@pytest.fixture(scope="module")
def small_synthetic():
    return synthetic_campus(
        256, racks_per_hall=4, racks_per_row=2, halls_per_building=2, cdus_per_hall=3, with_fabric=False
    )


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_failing_more_on_a_synthetic_2n_campus(small_synthetic, data):
    snap = small_synthetic
    elements = _all_elements(snap)
    pairs = list(itertools.combinations(elements, 2))
    a, b = data.draw(st.sampled_from(pairs))
    c = data.draw(st.sampled_from(elements))
    assert _usable_racks(snap, [a, b, c]) <= _usable_racks(snap, [a, b]) <= _usable_racks(snap, [a])


@pytest.fixture(scope="module")
def generated_snapshots():
    from campus.interchange.generate import generate_spec
    from tests.analysis.spec_snapshot import spec_snapshot

    small = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}
    return [
        spec_snapshot(generate_spec("P", 256, cooling="air", **small)),
        spec_snapshot(generate_spec("P", 288, gpu_model="gb200", **small)),
        spec_snapshot(generate_spec("P", 512, cooling="liquid", fabric="spectrum-x", **small)),
    ]


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_failing_more_on_generated_campuses(generated_snapshots, data):
    snap = data.draw(st.sampled_from(generated_snapshots))
    elements = _all_elements(snap)
    small = data.draw(st.lists(st.sampled_from(elements), min_size=1, max_size=2, unique=True))
    extra = data.draw(st.lists(st.sampled_from(elements), min_size=1, max_size=3, unique=True))
    big = small + [e for e in extra if e not in small]
    assert _usable_racks(snap, big) <= _usable_racks(snap, small)
    im, res = impact(snap, failed=big), fail(snap, big)
    assert (im.gpus_lost_power, im.gpus_lost_cooling) == (res.gpus_lost_power, res.gpus_lost_cooling)


@settings(max_examples=40, deadline=None)
@given(
    mpdu_kw=st.sampled_from([0.3, 0.6, 1.0, 100.0]),
    dual=st.lists(st.booleans(), min_size=2, max_size=4).map(tuple),
    crah_kw=st.sampled_from([8.0, 12.0, 25.0]),
    pdu_kw=st.sampled_from([15.0, 25.0, 100.0]),
)
def test_agreement_holds_through_cascades(mpdu_kw, dual, crah_kw, pdu_kw):
    # tight rack PDUs and mechanical PDUs make single losses trip the other side
    snap = _tight(mpdu_kw, dual, crah_kw)
    snap = replace(
        snap,
        power_devices=tuple(
            replace(d, rated_kw=pdu_kw) if d.id in (11, 12) else d for d in snap.power_devices
        ),
    )
    test_the_incremental_check_agrees_with_impact_mode_element_by_element(snap)


# ---------------------------------------------------------------- the hall's air units as a rack dependency

# A direct-to-chip toy server whose cold plates take 80% of its 1 kW: each 10 kW rack puts 8 kW on its CDU
# and 2 kW in the room air, spread over the hall's CRAHs; two racks make 4 kW of air heat in the hall.
COLD_PLATE_NODE = replace(TOY_NODE, slug="toy8-dlc", liquid_heat_fraction=0.8)


def _dlc_hall(crahs: tuple[tuple[float, int | None, int | None], ...]):
    """Two 10 kW direct-to-chip racks, each on its own dual-fed 20 kW CDU (one N+1 group: 16 kW on 20 kW
    without the larger unit), and CRAHs (capacity kW, supply A, supply B) in the same hall, serving no rack."""
    snap = two_n((10, 10))
    racks = tuple(replace(r, nodes=(("toy8-dlc", 10),), cooling_unit_id=r.id) for r in snap.racks)
    cdus = tuple(
        CoolingUnitSnap(r.id, f"CDU-{r.id}", "cdu", 20.0, 30.0, 40.0, 0.0, None, 11, 1, "cdu", 12)
        for r in snap.racks
    )
    air = tuple(
        CoolingUnitSnap(10 + i, f"CRAH-{10 + i}", "crah", kw, 18.0, 30.0, 0.0, None, a, 1, "crah", b)
        for i, (kw, a, b) in enumerate(crahs)
    )
    return replace(
        snap,
        node_models={**snap.node_models, "toy8-dlc": COLD_PLATE_NODE},
        racks=racks,
        cooling_units=cdus + air,
    )


def test_a_single_fed_crah_next_to_dual_fed_cdus_is_a_single_point_for_the_racks_it_airs():
    # One 10 kW CRAH on PDU 11 only takes the hall's 4 kW of air heat. Losing PDU 11 (or UPS 1 or utility
    # 1 above it) stops it: nothing is left for the 4 kW, so both racks (160 GPUs) are powered from side B
    # but lose cooling; losing the CRAH itself does the same. The dual-fed CDUs and side B cost nothing.
    snap = _dlc_hall(((10.0, 11, None),))
    findings = redundancy_check(snap)
    assert sorted((f.device_kind, f.device_id, f.effect, f.gpus_lost) for f in findings) == [
        ("cooling", 10, "cooling", 2 * GPUS_PER_RACK),
        ("power", 1, "cooling", 2 * GPUS_PER_RACK),
        ("power", 11, "cooling", 2 * GPUS_PER_RACK),
        ("utility", 1, "cooling", 2 * GPUS_PER_RACK),
    ]
    assert fail(snap, [("power", 11)]).racks_lost_cooling == frozenset({1, 2})


def test_an_undersized_crah_group_is_found_and_a_sized_one_is_not():
    # Two dual-fed 3 kW CRAHs: 6 kW for 4 kW of air heat, but 3 kW without either -> each is a single point.
    tight = _dlc_hall(((3.0, 11, 12), (3.0, 11, 12)))
    assert sorted((f.device_id, f.effect, f.gpus_lost) for f in redundancy_check(tight)) == [
        (10, "cooling", 2 * GPUS_PER_RACK),
        (11, "cooling", 2 * GPUS_PER_RACK),
    ]
    # Two 5 kW CRAHs: 5 kW without either still carries 4 kW; both lost (spare counted once) do not.
    sized = _dlc_hall(((5.0, 11, 12), (5.0, 11, 12)))
    assert redundancy_check(sized) == []
    assert fail(sized, [("cooling", 10), ("cooling", 11)]).gpus_lost_cooling == 2 * GPUS_PER_RACK
    # impact mode names the same racks
    res = impact(tight, 10, "cooling")
    assert res.gpus_lost_cooling == 2 * GPUS_PER_RACK and res.racks_lost_cooling == [1, 2]


# ---------------------------------------------------------------- a group or a loop short of capacity
#
# The rule (docs/model.md §7): a pool of cooling (an N+1 group, a plant loop, a hall's air units) whose
# running capacity is below its heat cools none of it: every rack on it loses cooling, not only those of
# the stopped members; the model does not shed racks. A pool already short with nothing failed is the
# starting point (``without_cooling_at_design``), as a design-load trip is for power.


def _rear_door_pair(cdu1_kw: float, cdu2_kw: float, lone_kw: float | None = None):
    """Four 10 kW rear-door racks (all their heat on their unit), 80 GPUs each: racks 1-2 on CDU-1, racks
    3-4 on CDU-2, one group, both dual-fed (no power loss stops them). With ``lone_kw``: rack 5 on CDU-5 of
    that capacity, in no group."""
    n = 4 if lone_kw is None else 5
    snap = two_n(tuple([10] * n))
    where = {1: 1, 2: 1, 3: 2, 4: 2, 5: 5}
    racks = tuple(replace(r, cooling_type="rear-door", cooling_unit_id=where[r.id]) for r in snap.racks)
    units = [
        CoolingUnitSnap(1, "CDU-1", "rear-door", cdu1_kw, 30.0, 40.0, 0.0, None, 11, 1, "cdu", 12),
        CoolingUnitSnap(2, "CDU-2", "rear-door", cdu2_kw, 30.0, 40.0, 0.0, None, 11, 1, "cdu", 12),
    ]
    if lone_kw is not None:
        units.append(CoolingUnitSnap(5, "CDU-5", "rear-door", lone_kw, 30.0, 40.0, 0.0, None, 11, 1, "", 12))
    return replace(snap, racks=racks, cooling_units=tuple(units))


def test_a_survivor_too_small_for_its_own_racks_loses_the_whole_group():
    # CDU-1 45 kW, CDU-2 10 kW; each carries its two racks' 20 kW. Healthy: 40 kW of heat on 55 kW. CDU-1
    # lost: CDU-2's 10 kW cannot carry even its own 20 kW, let alone the group's 40 kW: all four racks
    # (320 GPUs) lose cooling, not only CDU-1's two. CDU-2 lost: CDU-1's 45 kW carries the 40 kW.
    snap = _rear_door_pair(45.0, 10.0)
    im = impact(snap, 1, "cooling")
    assert im.racks_lost_cooling == [1, 2, 3, 4] and im.gpus_lost == 4 * GPUS_PER_RACK
    assert im.usable_gpus_before == 4 * GPUS_PER_RACK and im.usable_gpus_after == 0
    assert im.cooling_units_stopped == [1] and im.racks_uncooled_at_design == []
    assert impact(snap, 2, "cooling").gpus_lost == 0
    assert [(f.device_kind, f.device_id, f.effect, f.gpus_lost) for f in redundancy_check(snap)] == [
        ("cooling", 1, "cooling", 4 * GPUS_PER_RACK)
    ]


def test_a_group_short_with_nothing_failed_is_the_starting_point():
    # CDU-1 25 kW + CDU-2 10 kW = 35 kW for 40 kW: with nothing failed the group cools none of its four
    # racks. Rack 5 (10 kW) on CDU-5 of 5 kW, in no group, is short on its own. So 5 racks (400 GPUs) are
    # without cooling at design: nothing usable before, and a failure adds nothing (none lost, no finding).
    snap = _rear_door_pair(25.0, 10.0, lone_kw=5.0)
    im = impact(snap, 2, "cooling")
    assert im.racks_uncooled_at_design == [1, 2, 3, 4, 5]
    assert im.as_dict()["gpus"]["without_cooling_at_design"] == 5 * GPUS_PER_RACK
    assert im.usable_gpus_before == 0 and im.gpus_lost == 0 and im.effect is None
    assert redundancy_check(snap) == []
    # sized: 45 + 10 kW for 40 kW, CDU-5 at 10 kW for its 10 kW: everything cooled at design
    sized = impact(_rear_door_pair(45.0, 10.0, lone_kw=10.0), 2, "cooling")
    assert sized.racks_uncooled_at_design == [] and sized.usable_gpus_before == 5 * GPUS_PER_RACK


def _two_loops(liquid_plants: tuple[float, ...], cdu2_on_air_chiller: bool = False):
    """``_dlc_hall`` with one dual-fed 10 kW CRAH (id 10) and plants in building 1: liquid-loop chillers
    1, 2, ... of the given capacities (CDU-1 on plant 1, CDU-2 on the last one) and an air-side chiller 9
    of 1,000 kW behind the CRAH (and behind CDU-2 with ``cdu2_on_air_chiller``: piped to both loops)."""
    snap = _dlc_hall(((10.0, 11, 12),))
    plants = tuple(
        CoolingPlantSnap(i + 1, f"CHL-DLC-{i + 1}", "chiller", kw, 5.0, 1, None)
        for i, kw in enumerate(liquid_plants)
    ) + (CoolingPlantSnap(9, "CHL-9", "chiller", 1000.0, 5.0, 1, None),)
    last = 9 if cdu2_on_air_chiller else len(liquid_plants)
    on = {1: 1, 2: last, 10: 9}
    units = tuple(replace(u, plant_id=on[u.id]) for u in snap.cooling_units)
    return replace(snap, cooling_plants=plants, cooling_units=units)


def test_losing_every_liquid_loop_plant_costs_every_gpu_on_the_loop():
    # The cold plates put 2 x 8 = 16 kW on the CDUs (+2% pumps: 16.32 kW on the liquid loop); 4 kW of air
    # (+4% fans: 4.16 kW) goes to the CRAH and chiller 9. The 1,000 kW air-side chiller is not piped to the
    # liquid loop, so it takes none of its heat, however much spare it has.
    from campus.analysis.heat import plant_loops

    # N: one 30 kW liquid-loop chiller. Lost: 0 kW left for 16.32 kW, both CDUs stop, both racks (160 GPUs)
    # lose cooling. The old building-wide pool said 1,030 - 30 = 1,000 kW >= 20.5 kW: nothing lost.
    n = _two_loops((30.0,))
    assert plant_loops(n) == {1: 1, 9: 9}
    im = impact(n, 1, "plant")
    assert im.plants_stopped == [1] and im.cooling_units_stopped == [1, 2]
    assert im.racks_lost_cooling == [1, 2] and im.gpus_lost == 2 * GPUS_PER_RACK
    # the air side is a loop of its own: chiller 9 lost stops the CRAH, the racks' air share is not carried
    assert impact(n, 9, "plant").gpus_lost == 2 * GPUS_PER_RACK
    assert sorted((f.device_kind, f.device_id, f.gpus_lost) for f in redundancy_check(n)) == [
        ("cooling", 10, 2 * GPUS_PER_RACK),
        ("plant", 1, 2 * GPUS_PER_RACK),
        ("plant", 9, 2 * GPUS_PER_RACK),
    ]
    # N+1: two 20 kW liquid-loop chillers. One lost: 20 kW >= 16.32 kW, nothing lost. Both lost: 160 GPUs.
    n1 = _two_loops((20.0, 20.0))
    assert plant_loops(n1) == {1: 1, 2: 1, 9: 9}
    assert impact(n1, 1, "plant").gpus_lost == 0 and impact(n1, 2, "plant").gpus_lost == 0
    both = impact(n1, failed=[("plant", 1), ("plant", 2)])
    assert both.racks_lost_cooling == [1, 2] and both.gpus_lost == 2 * GPUS_PER_RACK
    # piped explicitly: CDU-2 on chiller 9 joins the two loops; chiller 1 lost leaves 1,000 kW for
    # 16.32 + 4.16 = 20.48 kW
    piped = _two_loops((30.0,), cdu2_on_air_chiller=True)
    assert plant_loops(piped) == {1: 1, 9: 1}
    assert impact(piped, 1, "plant").gpus_lost == 0


def test_a_plant_loop_short_at_part_load_stops_every_unit_on_it():
    # Three 8 kW liquid-loop chillers, CDU-1 on plant 1 and CDU-2 on plant 3 (plant 2 piped to the loop
    # by neither: spare for the loop's 16.32 kW? No unit names it, so it is on no loop and backs nothing).
    snap = _two_loops((8.0, 8.0, 8.0))
    from campus.analysis.heat import plant_loops

    assert plant_loops(snap) == {1: 1, 2: 2, 3: 1, 9: 9}
    # plants 1 and 3 make 16 kW for 16.32 kW: already short at design, both racks without cooling
    assert impact(snap, 2, "plant").racks_uncooled_at_design == [1, 2]
    # 10 kW each: 20 kW for 16.32 kW at design; plant 3 lost leaves 10 kW: every unit of the loop stops,
    # CDU-1 on the surviving plant 1 too
    snap = _two_loops((10.0, 10.0, 10.0))
    im = impact(snap, 3, "plant")
    assert im.racks_uncooled_at_design == [] and im.cooling_units_stopped == [1, 2]
    assert im.gpus_lost == 2 * GPUS_PER_RACK


def _short_pool_snapshots():
    # a survivor too small for its own racks; a group and a lone unit short at design; liquid and air
    # loops of one building (N, N+1, short at part load, joined by a unit piped to both); generated N
    yield _rear_door_pair(45.0, 10.0)
    yield _rear_door_pair(25.0, 10.0, lone_kw=5.0)
    yield _two_loops((30.0,))
    yield _two_loops((20.0, 20.0))
    yield _two_loops((10.0, 10.0, 10.0))
    yield _two_loops((30.0,), cdu2_on_air_chiller=True)
    yield _generated_liquid("N")


@pytest.mark.parametrize("snap", list(_short_pool_snapshots()))
def test_the_redundancy_list_agrees_with_impact_mode_on_short_pools_and_loops(snap):
    test_the_incremental_check_agrees_with_impact_mode_element_by_element(snap)


@pytest.mark.parametrize("level", ["N", "N+1"])
def test_a_generated_buildings_liquid_loop_lost_costs_every_gpu_piped_to_it(level):
    # Counted from the topology alone: the plants the CDUs of building 1 are piped to make its liquid loop;
    # losing all of them costs every GPU of the racks on those CDUs, whatever spare the building's air-side
    # chillers have (the old building-wide pool found 0 here, at N and at N+1).
    snap = _generated_liquid(level)
    b1 = {p.id for p in snap.cooling_plants if p.building_id == 1}
    liquid = sorted({u.plant_id for u in snap.cooling_units if u.kind == "cdu" and u.plant_id in b1})
    air = {u.plant_id for u in snap.cooling_units if u.kind == "crah" and u.plant_id in b1}
    assert liquid and air and not set(liquid) & air
    on_loop = {u.id for u in snap.cooling_units if u.plant_id in liquid}
    gpus = sum(sum(snap.rack_gpus(r).values()) for r in snap.racks if r.cooling_unit_id in on_loop)
    assert gpus > 0
    im = impact(snap, failed=[("plant", p) for p in liquid])
    assert im.gpus_lost == gpus and im.gpus_lost_cooling == gpus
    found = {(f.device_kind, f.device_id): f.gpus_lost for f in redundancy_check(snap)}
    if level == "N":  # one liquid-loop plant: a single point with every GPU of its loop
        assert len(liquid) == 1 and found[("plant", liquid[0])] == gpus
    else:
        assert not any(("plant", p) in found for p in liquid)


def test_ungrouped_crahs_of_a_hall_back_each_other_up_as_one_pool():
    # Three air racks of 10 kW, each on its own CRAH, none in a group: the hall's air mixes, so the three
    # CRAHs are one pool (as cooling.cooling_pools). 15 kW CRAHs: one lost leaves 30 kW for 30 kW, covered;
    # two lost leave 15 kW, every rack of the hall loses cooling. 8 kW CRAHs: 24 kW for 30 kW with nothing
    # failed, short at design: all three racks are the starting point.
    snap = _hall()
    snap = replace(snap, cooling_units=tuple(replace(u, group="") for u in snap.cooling_units))
    assert fail(snap, [("cooling", 1)]).gpus_lost == 0
    assert fail(snap, [("cooling", 1), ("cooling", 2)]).racks_lost_cooling == frozenset({1, 2, 3})
    tight = _hall(crah_kw=8.0)
    tight = replace(tight, cooling_units=tuple(replace(u, group="") for u in tight.cooling_units))
    im = impact(tight, 1, "cooling")
    assert im.racks_uncooled_at_design == [1, 2, 3] and im.gpus_lost == 0


def test_the_plants_usable_capacity_keeps_the_spare_per_loop():
    from campus.analysis.cooling import cooling_balance

    # Undeclared redundancy counts as N+1, per loop: the liquid loop's 20 + 20 kW keep 20 kW without the
    # larger; the air loop's one 1,000 kW chiller keeps nothing. 20 kW (the building-wide pool: 1,040 -
    # 1,000 = 40 kW, the air chiller standing in for a liquid one).
    assert cooling_balance(_two_loops((20.0, 20.0))).plant_usable_capacity_kw == pytest.approx(20.0)
