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
    # Group of three 15 kW CRAHs on 30 kW of heat: one lost leaves 30 kW (enough); two lost leave 15 kW,
    # and the racks of both stopped CRAHs lose cooling. The survivors' 15 kW is counted once.
    snap = _hall()
    assert fail(snap, [("cooling", 1)]).gpus_lost == 0
    two = impact(snap, failed=[("cooling", 1), ("cooling", 2)])
    assert two.racks_lost_cooling == [1, 2]
    assert two.gpus_lost_cooling == 2 * GPUS_PER_RACK
    assert two.effect == "cooling" and two.as_dict()["gpus_lost"] == 160
    assert [e["id"] for e in two.as_dict()["failed"]] == [1, 2]


def test_compound_power_and_cooling_failure():
    # PDU 11 lost costs side A only; with CRAH 3 lost as well the group still covers its 30 kW (two CRAHs
    # left); with CRAHs 2 and 3 lost, racks 2 and 3 lose cooling (powered on side B).
    snap = _hall()
    assert impact(snap, failed=[("power", 11), ("cooling", 3)]).gpus_lost == 0
    im = impact(snap, failed=[("power", 11), ("cooling", 2), ("cooling", 3)])
    assert im.racks_lost_a == [1, 2, 3] and im.racks_lost_cooling == [2, 3]
    assert im.gpus_lost == 2 * GPUS_PER_RACK


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
