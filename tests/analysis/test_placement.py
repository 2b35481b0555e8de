"""Capacity placement, pure core (campus.analysis.placement).

Hand-built campuses whose answer is worked out by hand (toy node: 8 × 100 W GPUs + 200 W = 1 kW, no other
IT, no network, so a rack of n nodes draws n kW on each side alone), and properties over small random 2N
campuses checked by an independent path (tests/analysis/placement_check.py: the racks written into the
snapshot, every failover scenario rolled up by the power solver, the heat balanced by the cooling model).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from campus.analysis.placement import (
    AISLE_CLEARANCE_M,
    PlacementRequest,
    free_positions,
    place,
)
from campus.analysis.snapshot import RackSnap
from tests.analysis.builders import (
    TOY_NODE,
    CoolingUnitSnap,
    HallSnap,
    LinkSnap,
    PodSnap,
    SwitchSnap,
    UtilityFeedSnap,
    campus,
    device,
    feed,
    rack,
)
from tests.analysis.placement_check import cooling_shortfalls, overloads, with_option


def crah(uid: int, hall: int, capacity: float, group: str) -> CoolingUnitSnap:
    return CoolingUnitSnap(uid, f"CRAH-{uid}", "crah", capacity, 24.0, 40.0, 0.0, None, None, hall, group)


def two_halls(pdu_kw=(40.0, 50.0), crah_kw=(25.0, 40.0), **kw):
    """Two halls of two 10 kW air racks each. Hall h: PDU-A/B (rated pdu_kw[h]) under UPS A/B (1 MW), two
    CRAHs of crah_kw[h] as one N+1 group."""
    halls = (HallSnap(1, 1, "H1", 20.0, 20.0), HallSnap(2, 1, "H2", 20.0, 20.0))
    devices = [device(1, "ups", 1000.0, utility_feed_id=1), device(2, "ups", 1000.0, utility_feed_id=2)]
    feeds = []
    racks = []
    units = []
    for h in (1, 2):
        a, b = 10 * h + 1, 10 * h + 2
        devices += [
            device(a, "pdu", pdu_kw[h - 1], name=f"H{h}-PDU-A"),
            device(b, "pdu", pdu_kw[h - 1], name=f"H{h}-PDU-B"),
        ]
        feeds += [feed(1, dev=a, side="A"), feed(2, dev=b, side="B")]
        units += [crah(10 * h + 1, h, crah_kw[h - 1], f"G{h}"), crah(10 * h + 2, h, crah_kw[h - 1], f"G{h}")]
        for k in range(2):
            rid = 10 * h + k
            racks.append(
                rack(
                    rid,
                    10,
                    hall_id=h,
                    x_m=2.0 + 0.6 * k,
                    y_m=2.0,
                    cooling_type="air",
                    cooling_unit_id=10 * h + 1 + k,
                )
            )
            feeds += [feed(a, rack=rid, side="A"), feed(b, rack=rid, side="B")]
    base = dict(
        halls=halls,
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0), UtilityFeedSnap(2, "U2", 5000.0)),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
        cooling_units=tuple(units),
    )
    base.update(kw)
    return campus(**base)


def test_hall_with_power_but_no_cooling_places_in_the_other_hall():
    # H1: PDUs 40 kW (limit 32): 20 kW on one side after a side is lost, +10 = 30: power fits.
    #     CRAHs 2 x 25 kW, N+1 = 25 kW against 20 + 10 = 30: cooling does not.
    # H2: PDUs 50 kW (limit 40): 30 kW, 10 left; CRAHs N+1 = 40 against 30: 10 left.
    snap = two_halls()
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert res["feasible"] is True
    assert [o["hall"] for o in res["options"]] == ["H2"]
    option = res["options"][0]
    after = option["headroom_after"]
    assert after["power_kw"] == pytest.approx(10.0)
    assert after["power_level"] == "pdu"
    assert after["cooling_kw"] == pytest.approx(10.0)
    (spot,) = option["racks"]
    # the row line at y = 2 is full (racks at x 2.0 and 2.6); a new row behind it at the aisle clearance:
    # 2 + 1.2 m depth + 1.2 m aisle = 4.4 m, from the rows' first x
    assert (spot["x_m"], spot["y_m"]) == (2.0, pytest.approx(2.0 + 1.2 + AISLE_CLEARANCE_M))
    assert (spot["feed_a"], spot["feed_b"]) == ("H2-PDU-A", "H2-PDU-B")
    assert spot["cooling_unit"] in {"CRAH-21", "CRAH-22"}


def test_nothing_fits_and_cooling_binds():
    # 3 racks of 10 kW: H1 cooling 20 + 30 = 50 against 25 (15 short... in the best hall:)
    # H2 cooling 20 + 30 = 50 against 40: 10 kW short, checked before power (20 + 30 = 50 against 40)
    snap = two_halls()
    res = place(snap, PlacementRequest("toy8", 3, nodes_per_rack=10))
    assert res["feasible"] is False and res["options"] == []
    assert res["binding_constraint"] == "cooling"
    assert res["binding"]["hall"] == "H2"
    assert res["binding"]["element"] == "G2"
    assert "10.0 kW short" in res["binding"]["detail"]


def test_power_binds_when_cooling_is_ample():
    # H2 alone, CRAHs big: 2 racks of 11 kW = 22 kW; one PDU after the other side is lost: 20 + 22 = 42
    # against its 40 kW limit
    snap = two_halls(crah_kw=(500.0, 500.0))
    res = place(snap, PlacementRequest("toy8", 2, nodes_per_rack=11, hall_id=2))
    assert res["feasible"] is False
    assert res["binding_constraint"] == "power"
    assert res["binding"]["level"] == "pdu"
    assert "2.0 kW beyond" in res["binding"]["detail"]
    # one node less per rack fits exactly: 20 + 20 = 40
    res = place(snap, PlacementRequest("toy8", 2, nodes_per_rack=10, hall_id=2))
    assert res["feasible"] and res["options"][0]["headroom_after"]["power_kw"] == pytest.approx(0.0, abs=1e-9)


def test_a_ups_above_both_halls_binds_on_its_own_side():
    # UPS A and B rated 100 kW (limit 80): 40 kW of racks on the surviving UPS after a side is lost; 4
    # racks of 12 kW more would make 88
    snap = two_halls(pdu_kw=(500.0, 500.0), crah_kw=(500.0, 500.0))
    devices = tuple(
        d if d.kind != "ups" else device(d.id, "ups", 100.0, utility_feed_id=d.utility_feed_id)
        for d in snap.power_devices
    )
    snap = campus(**{**_fields(snap), "power_devices": devices})
    res = place(snap, PlacementRequest("toy8", 4, nodes_per_rack=12))
    assert res["binding_constraint"] == "power" and res["binding"]["level"] == "ups"
    assert "8.0 kW beyond" in res["binding"]["detail"]
    # three fit: 40 + 36 = 76, 4 kW left on the UPS
    res = place(snap, PlacementRequest("toy8", 3, nodes_per_rack=12))
    assert res["feasible"] and res["options"][0]["headroom_after"]["power_kw"] == pytest.approx(4.0)


def _fields(snap):
    return {f: getattr(snap, f) for f in snap.__dataclass_fields__}


def test_floor_space_binds_in_a_full_hall():
    # A hall 5 m long: rows at y = 1.2 hold 1.2..2.4; a new row needs 2.4 + 1.2 aisle = 3.6 .. 4.8 > 5 - 1.2
    snap = two_halls(
        halls=(HallSnap(1, 1, "H1", 3.8, 5.0), HallSnap(2, 1, "H2", 3.8, 5.0)), crah_kw=(500.0, 500.0)
    )
    snap = campus(**{**_fields(snap), "racks": tuple(_moved(r, y=1.2) for r in snap.racks)})
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=1))
    assert res["feasible"] is False and res["binding_constraint"] == "floor_space"


def _moved(r: RackSnap, y: float) -> RackSnap:
    return RackSnap(**{**_fields(r), "y_m": y})


def test_free_positions_fill_gaps_then_new_rows():
    # a row of three slots with the middle one empty, a 10 x 10 m hall
    racks = [(2.0, 2.0, 0.6, 1.2), (3.2, 2.0, 0.6, 1.2)]
    out = free_positions(10.0, 10.0, racks, (0.6, 1.2), 4)
    assert out[0] == (2.6, 2.0, False)
    # then a new row line at 2 + 1.2 + 1.2 = 4.4, from the row's first x = 2.0 onwards
    assert [(x, y) for x, y, new in out[1:]] == [(2.0, 4.4), (2.6, 4.4), (3.2, 4.4)]
    assert all(new for *_, new in out[1:])


def test_fabric_ports_bind_when_the_leaf_is_full():
    # a middle-of-rack leaf of radix 64 in H2 with 60 ports used: 8 NICs of a toy node need 8
    snap = two_halls(crah_kw=(500.0, 500.0))
    pod = PodSnap(1, "POD-1", "infiniband-ndr", "middle-of-rack", 1.0, "qm9700", 1)
    leaf = SwitchSnap(1, "LEAF-H2", 1, "leaf", "qm9700", 1, 2, None)
    used = LinkSnap(1, 1, "backend", "aec", 60, 3.0, 400.0, 20, None, 1)
    snap = campus(**{**_fields(snap), "pods": (pod,), "switches": (leaf,), "links": (used,)})
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=1, hall_id=2))
    assert res["binding_constraint"] == "fabric_ports"
    assert res["binding"]["element"] == "LEAF-H2" and "4 port(s) short" in res["binding"]["detail"]
    # half a node's worth fewer ports used: fits, cabled to that leaf
    snap = campus(
        **{**_fields(snap), "links": (LinkSnap(1, 1, "backend", "aec", 56, 3.0, 400.0, 20, None, 1),)}
    )
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=1, hall_id=2))
    assert res["feasible"]
    (link,) = res["options"][0]["racks"][0]["links"]
    assert link["switch"] == "LEAF-H2" and link["count"] == 8
    assert res["options"][0]["headroom_after"]["fabric_ports"] == 0


def test_a_leaf_under_a_spine_takes_node_cables_on_half_its_ports_only():
    # a leaf of radix 64 under a spine of its pod, non-blocking: 32 ports down at most. 20 node cables and
    # their 20 uplinks cabled (only ports in use): 32 - 20 = 12 free for nodes, not 64 - 40 = 24. A toy
    # node has 8 NICs: one rack of 1 node fits (4 left), 2 nodes (16) are 4 short.
    snap = two_halls(crah_kw=(500.0, 500.0))
    pod = PodSnap(1, "POD-1", "infiniband-ndr", "middle-of-rack", 1.0, "qm9700", 1)
    leaf = SwitchSnap(1, "LEAF-H2", 1, "leaf", "qm9700", 1, 2, None)
    spine = SwitchSnap(2, "SPINE", 1, "spine", "qm9700", 1, 2, None)
    nodes = LinkSnap(1, 1, "backend", "aec", 20, 3.0, 400.0, 20, None, 1)
    up = LinkSnap(2, 1, "backend", "sr", 20, 20.0, 400.0, None, 1, 2)
    snap = campus(**{**_fields(snap), "pods": (pod,), "switches": (leaf, spine), "links": (nodes, up)})
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=1, hall_id=2))
    assert res["feasible"] and res["options"][0]["headroom_after"]["fabric_ports"] == 4
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=2, hall_id=2))
    assert res["binding_constraint"] == "fabric_ports"
    assert "4 port(s) short" in res["binding"]["detail"]


def test_input_errors_name_the_field():
    snap = two_halls()
    for req, field in [
        (PlacementRequest("nope", 1), "node_model"),
        (PlacementRequest("toy8", 0), "racks"),
        (PlacementRequest("toy8", 1, nodes_per_rack=10, hall_id=99), "hall"),
        (PlacementRequest("toy8", 1, nodes_per_rack=10), None),
        (PlacementRequest("toy8", 1, nodes_per_rack=13), "nodes_per_rack"),  # 13 x 4U > 48U
    ]:
        if field is None:
            place(snap, req)
            continue
        with pytest.raises(ValueError, match=f"^{field}:"):
            place(snap, req)


# ---------------------------------------------------------------- properties


@st.composite
def random_campus(draw):
    """1-2 halls of 1-2 rows; each row its own PDU pair under UPS A / B; random ratings and efficiencies;
    ample cooling and floor, so power is what may bind."""
    n_halls = draw(st.integers(1, 2))
    eff = draw(st.sampled_from([1.0, 0.97]))
    ups_kw = draw(st.floats(40.0, 300.0))
    util_kw = draw(st.floats(40.0, 400.0))
    devices = [
        device(1, "ups", ups_kw, utility_feed_id=1, efficiency=eff),
        device(2, "ups", ups_kw, utility_feed_id=2, efficiency=eff),
    ]
    feeds, racks, units, halls = [], [], [], []
    did, rid = 10, 100
    for h in range(1, n_halls + 1):
        halls.append(HallSnap(h, 1, f"H{h}", 30.0, 30.0))
        units.append(crah(100 + h, h, 10_000.0, f"G{h}"))
        units.append(crah(200 + h, h, 10_000.0, f"G{h}"))
        for row in range(draw(st.integers(1, 2))):
            pdu_kw = draw(st.floats(20.0, 100.0))
            a, b = did + 1, did + 2
            did += 2
            devices += [device(a, "pdu", pdu_kw, efficiency=eff), device(b, "pdu", pdu_kw, efficiency=eff)]
            feeds += [feed(1, dev=a, side="A"), feed(2, dev=b, side="B")]
            for k in range(draw(st.integers(1, 3))):
                rid += 1
                racks.append(
                    rack(
                        rid,
                        draw(st.integers(1, 12)),
                        hall_id=h,
                        x_m=2.0 + 0.6 * k,
                        y_m=2.0 + 3.0 * row,
                        cooling_type="air",
                        cooling_unit_id=100 + h,
                    )
                )
                feeds += [feed(a, rack=rid, side="A"), feed(b, rack=rid, side="B")]
    snap = campus(
        halls=tuple(halls),
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", util_kw), UtilityFeedSnap(2, "U2", util_kw)),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
        cooling_units=tuple(units),
    )
    request = PlacementRequest("toy8", draw(st.integers(1, 3)), nodes_per_rack=draw(st.integers(1, 12)))
    return snap, request


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(random_campus())
def test_every_option_holds_after_any_single_failure_and_infeasible_is_confirmed(case):
    snap, request = case
    before = overloads(snap)
    assume(not before)  # a design that holds its redundancy to start with
    res = place(snap, request)
    for option in res["options"]:
        trial = with_option(snap, option, request.node_model)
        assert overloads(trial) <= before, option
        assert cooling_shortfalls(trial) <= cooling_shortfalls(snap)
    if not res["feasible"] and res["binding_constraint"] == "power":
        # brute force: every A device x every B device feeding racks of every hall, none carries the racks
        for hall in snap.halls:
            ids = {r.id for r in snap.racks if r.hall_id == hall.id}
            a_side = {f.upstream_id for f in snap.power_feeds if f.rack_id in ids and f.side == "A"}
            b_side = {f.upstream_id for f in snap.power_feeds if f.rack_id in ids and f.side == "B"}
            names = {d.id: d.name for d in snap.power_devices}
            for a, b in itertools.product(sorted(a_side), sorted(b_side)):
                option = {
                    "hall": hall.name,
                    "hall_id": hall.id,
                    "racks": [
                        {
                            "x_m": 0.0,
                            "y_m": 0.0,
                            "cooling_type": "air",
                            "design_kw": 0.0,
                            "cooling_unit": f"CRAH-{100 + hall.id}",
                            "pod": None,
                            "nodes": request.nodes_per_rack,
                            "feed_a": names[a],
                            "feed_b": names[b],
                            "feed_rating_kw": 1e9,
                        }
                    ]
                    * request.racks,
                }
                assert overloads(with_option(snap, option, request.node_model)) - before, (hall.name, a, b)


# ---------------------------------------------------------------- declared redundancy N


def test_declared_n_cooling_places_within_unit_capacity_without_a_spare():
    # H1's CRAHs are 2 x 25 kW with 10 kW each (one 10 kW air rack per unit): N+1 (25 kW with one out)
    # already holds the 20 kW with 5 to spare, so a 10 kW rack is 5 kW short, but a campus declared N
    # (docs/model.md, "Redundancy topologies": the fewest units that carry the heat) only needs each unit
    # within its capacity: 10 + 10 = 20 of 25, 5 kW left. Power in H1: 20 + 10 = 30 of the PDU's 32 kW
    # limit, 2 kW left; H2 (10 kW of power left, N+1 cooling holds) ranks first.
    res = place(two_halls(), PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert [o["hall"] for o in res["options"]] == ["H2"]
    res = place(two_halls(cooling_redundancy="N"), PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert [o["hall"] for o in res["options"]] == ["H2", "H1"]
    h1 = res["options"][1]["headroom_after"]
    assert h1["cooling_kw"] == pytest.approx(5.0)
    assert h1["power_kw"] == pytest.approx(2.0)


def _single_fed(snap):
    """The two halls with every rack on its A feed only (an N chain)."""
    feeds = tuple(f for f in snap.power_feeds if not (f.rack_id is not None and f.side == "B"))
    return campus(**{**_fields(snap), "power_feeds": feeds})


def test_declared_n_power_places_racks_on_one_feed():
    # Every rack on PDU-A alone: 20 kW on H2's PDU-A (limit 40); a 10 kW rack makes 30, 10 kW left, and
    # its only feed is H2-PDU-A. Declared N+1 or 2N, a single-fed rack is not placed.
    base = _single_fed(two_halls(crah_kw=(500.0, 500.0)))
    snap = campus(**{**_fields(base), "power_redundancy": "N"})
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=10, hall_id=2))
    assert res["feasible"] is True
    (spot,) = res["options"][0]["racks"]
    assert (spot["feed_a"], spot["feed_b"]) == ("H2-PDU-A", None)
    assert res["options"][0]["headroom_after"]["power_kw"] == pytest.approx(10.0)
    # two racks of 11 kW would make 42, 2 kW beyond the PDU's limit
    res = place(snap, PlacementRequest("toy8", 2, nodes_per_rack=11, hall_id=2))
    assert res["feasible"] is False and "2.0 kW beyond" in res["binding"]["detail"]
    for declared in ("N+1", "2N"):
        snap = campus(**{**_fields(base), "power_redundancy": declared})
        res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=10, hall_id=2))
        assert res["feasible"] is False and res["binding_constraint"] == "power"


def test_floor_positions_left_counts_the_whole_hall():
    # H2 is 20 x 20 m with its row at y = 2 holding x 2.0 and 2.6 (full). New row lines run across the
    # hall less its 1.2 m walkways, in step with the row: x 2.0, 2.6, ... up to 20 - 1.2 - 0.6 = 18.2
    # (28 positions) and 1.4 on the near side (1): 29 a line. Lines at 2 + 1.2 + 1.2 = 4.4, then every
    # 1.2 + 1.2 = 2.4 m up to 20 - 1.2 walkway - 1.2 depth = 17.6: 4.4, 6.8, 9.2, 11.6, 14.0, 16.4, six
    # lines, 174 positions; one rack placed leaves 173. (New lines spanned only the row's own 1.2 m: 11.)
    res = place(two_halls(crah_kw=(500.0, 500.0)), PlacementRequest("toy8", 1, nodes_per_rack=1, hall_id=2))
    assert res["options"][0]["headroom_after"]["floor_positions"] == 173


# ---------------------------------------------------------------- declared cooling redundancy of a group


def _cdu_hall(cooling_redundancy: str):
    """One hall: four 25 kW CDUs as group "G", four 10 kW rear-door racks (all their heat to their CDU), one
    per CDU: the group carries 40 kW. PDU-A/B of 1 MW under UPS A/B: power never binds."""
    devices = (
        device(1, "ups", 10_000.0, utility_feed_id=1),
        device(2, "ups", 10_000.0, utility_feed_id=2),
        device(11, "pdu", 1000.0, name="PDU-A"),
        device(12, "pdu", 1000.0, name="PDU-B"),
    )
    feeds = [feed(1, dev=11, side="A"), feed(2, dev=12, side="B")]
    units = tuple(
        CoolingUnitSnap(u, f"CDU-{u}", "cdu", 25.0, 25.0, 45.0, 0.0, None, None, 1, "G") for u in (1, 2, 3, 4)
    )
    racks = []
    for k in range(4):
        racks.append(
            rack(
                k + 1,
                10,
                hall_id=1,
                x_m=2.0 + 0.6 * k,
                y_m=2.0,
                cooling_type="rear-door",
                cooling_unit_id=k + 1,
            )
        )
        feeds += [feed(11, rack=k + 1, side="A"), feed(12, rack=k + 1, side="B")]
    return campus(
        halls=(HallSnap(1, 1, "H1", 20.0, 20.0),),
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 50_000.0), UtilityFeedSnap(2, "U2", 50_000.0)),
        power_devices=devices,
        power_feeds=tuple(feeds),
        cooling_units=units,
        cooling_redundancy=cooling_redundancy,
    )


def test_a_2n_group_keeps_its_heat_with_half_its_units_out():
    # Group G: 4 x 25 kW CDUs carrying 40 kW; a 12 kW rear-door rack (12 toy nodes of 1 kW) goes to a CDU
    # with most spare (each at 10 of 25), so G would carry 52 kW.
    # 2N: the larger half of the units out, 4 x 25 - 2 x 25 = 50 kW usable < 52: 2.0 kW short, nothing fits.
    # (The old check took the largest unit out whatever was declared: 75 kW, and placed it.)
    res = place(_cdu_hall("2N"), PlacementRequest("toy8", 1, nodes_per_rack=12))
    assert res["feasible"] is False
    assert res["binding_constraint"] == "cooling"
    assert (res["binding"]["level"], res["binding"]["element"]) == ("cooling group", "G")
    assert "2.0 kW short" in res["binding"]["detail"] and "2N" in res["binding"]["detail"]
    # N+1: the largest out, 75 kW usable: 75 - 52 = 23 left in G; the CDU taking the rack: 25 - 10 - 12 = 3
    # kW, the smaller, so the unit binds cooling
    res = place(_cdu_hall("N+1"), PlacementRequest("toy8", 1, nodes_per_rack=12))
    after = res["options"][0]["headroom_after"]
    assert after["cooling_kw"] == pytest.approx(3.0)
    assert after["cooling_element"].startswith("CDU-")
    # 2N with an 8 kW rack: G at 48 of 50, 2.0 kW left (the unit keeps 25 - 10 - 8 = 7): the group binds.
    # (The old check answered 7 kW: min(75 - 48, 7).)
    res = place(_cdu_hall("2N"), PlacementRequest("toy8", 1, nodes_per_rack=8))
    after = res["options"][0]["headroom_after"]
    assert after["cooling_kw"] == pytest.approx(2.0)
    assert after["cooling_element"] == "G"
    assert res["binding_constraint"] == "cooling" and res["binding"]["detail"].startswith(
        "2.0 kW of rack IT left before G runs out of cooling with 2N intact"
    )


# ---------------------------------------------------------------- power headroom in rack IT


def _fans_pdu_hall():
    """One hall: PDU-A / PDU-B (55 kW, efficiency 0.8: a figure for the arithmetic) under UPS-A / UPS-B feed
    two 10 kW air racks on their A and B sides; the CRAHs' fans (two 100 kW CRAHs, group G) are on
    MECH-PDU (4 kW, efficiency 1), fed from both UPSs (sides A and B), so it stays live in every scenario
    but its own loss."""
    devices = (
        device(1, "ups", 1000.0, utility_feed_id=1, name="UPS-A"),
        device(2, "ups", 1000.0, utility_feed_id=2, name="UPS-B"),
        device(11, "pdu", 55.0, efficiency=0.8, name="PDU-A"),
        device(12, "pdu", 55.0, efficiency=0.8, name="PDU-B"),
        device(21, "pdu", 4.0, name="MECH-PDU"),
    )
    feeds = [
        feed(1, dev=11, side="A"),
        feed(2, dev=12, side="B"),
        feed(1, dev=21, side="A"),
        feed(2, dev=21, side="B"),
    ]
    units = tuple(
        CoolingUnitSnap(u, f"CRAH-{u}", "crah", 100.0, 24.0, 40.0, 0.0, None, 21, 1, "G") for u in (1, 2)
    )
    racks = []
    for k in range(2):
        racks.append(
            rack(k + 1, 10, hall_id=1, x_m=2.0 + 0.6 * k, y_m=2.0, cooling_type="air", cooling_unit_id=k + 1)
        )
        feeds += [feed(11, rack=k + 1, side="A"), feed(12, rack=k + 1, side="B")]
    return campus(
        halls=(HallSnap(1, 1, "H1", 20.0, 20.0),),
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 50_000.0), UtilityFeedSnap(2, "U2", 50_000.0)),
        power_devices=devices,
        power_feeds=tuple(feeds),
        cooling_units=units,
    )


def test_power_headroom_is_rack_it_and_a_fans_only_pdu_does_not_bind():
    from campus.analysis.headroom import failover_headroom

    # One more 10 kW air rack (10 toy nodes) on PDU-A / PDU-B. By hand:
    # * PDU-A with side B lost carries every rack: (10 + 10 + 10) kW out / 0.8 = 37.5 kW in, against its
    #   planning limit 55 x 0.8 = 44: 6.5 kW left at its input, and each kW of rack IT costs it 1 / 0.8 =
    #   1.25 kW, so 6.5 / 1.25 = 5.2 kW of rack IT can still be added (healthy it carries half: 18.75 kW
    #   in, (44 - 18.75) / 0.625 = 40.4 kW of IT, not the worst). PDU-B is the same with side A lost.
    # * MECH-PDU carries the CRAHs' fans, 0.04 kW per kW of heat (catalog crah_fan_kw_per_kw_heat): (20 +
    #   10) x 0.04 = 1.2 kW against 4 x 0.8 = 3.2: 2.0 kW left, but each kW of IT adds only 0.04 kW, so
    #   it takes 2.0 / 0.04 = 50 kW of IT more.
    # The old answer compared kW at each device's input and named MECH-PDU with 2.0 kW.
    snap = _fans_pdu_hall()
    res = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert res["feasible"] is True
    after = res["options"][0]["headroom_after"]
    assert after["power_kw"] == pytest.approx(5.2)
    assert after["power_level"] == "pdu"
    assert after["power_element"] in {"PDU-A", "PDU-B"}
    assert after["power_element_headroom_kw"] == pytest.approx(6.5)  # kW at the PDU's input
    other_side = "B" if after["power_element"] == "PDU-A" else "A"
    # losing the other side, its UPS or its PDU are the same to PDU-A: the first in scenario order is named
    assert after["power_failure"]["name"] in {f"side {other_side}", f"UPS-{other_side}", f"PDU-{other_side}"}
    assert res["binding_constraint"] == "power" and res["binding"]["element"] == after["power_element"]
    assert res["binding"]["detail"].startswith("5.2 kW of rack IT left before")
    # the hall's failover headroom (the same conversion) before the rack: (44 - 25) / 1.25 = 15.2 kW of IT
    assert failover_headroom(snap).halls[1].headroom_kw == pytest.approx(15.2)
    # two more racks of 10 kW: PDU-A 40 out, 50 in, 6 kW beyond its limit = 4.8 kW of rack IT too many
    res = place(snap, PlacementRequest("toy8", 2, nodes_per_rack=10))
    assert res["feasible"] is False and res["binding_constraint"] == "power"
    assert res["binding"]["element"] in {"PDU-A", "PDU-B"}
    assert (
        "6.0 kW beyond" in res["binding"]["detail"]
        and "4.8 kW of rack IT too many" in res["binding"]["detail"]
    )


def _cold_plate_hall():
    """One hall: two 10 kW direct-to-chip racks of toy nodes whose cold plates take 80 % of the heat (8 kW to
    their CDU, 2 kW to the hall's CRAHs), one on each of CDU-1 and CDU-2 (36 kW, group L), CRAH-1 and CRAH-2
    (100 kW, group A); PDU-A / PDU-B 55 kW (limit 44), efficiency 1, under UPS-A / UPS-B."""
    cold = replace(TOY_NODE, slug="toy8l", liquid_heat_fraction=0.8)
    devices = (
        device(1, "ups", 1000.0, utility_feed_id=1, name="UPS-A"),
        device(2, "ups", 1000.0, utility_feed_id=2, name="UPS-B"),
        device(11, "pdu", 55.0, name="PDU-A"),
        device(12, "pdu", 55.0, name="PDU-B"),
    )
    feeds = [feed(1, dev=11, side="A"), feed(2, dev=12, side="B")]
    units = tuple(
        CoolingUnitSnap(u, f"CDU-{u}", "cdu", 36.0, 25.0, 45.0, 0.0, None, None, 1, "L") for u in (1, 2)
    ) + tuple(
        CoolingUnitSnap(u, f"CRAH-{u}", "crah", 100.0, 24.0, 40.0, 0.0, None, None, 1, "A") for u in (3, 4)
    )
    racks = []
    for k in range(2):
        racks.append(
            rack(k + 1, 10, node="toy8l", hall_id=1, x_m=2.0 + 0.6 * k, y_m=2.0, cooling_unit_id=k + 1)
        )
        feeds += [feed(11, rack=k + 1, side="A"), feed(12, rack=k + 1, side="B")]
    return campus(
        node_models={"toy8": TOY_NODE, "toy8l": cold},
        halls=(HallSnap(1, 1, "H1", 20.0, 20.0),),
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 50_000.0), UtilityFeedSnap(2, "U2", 50_000.0)),
        power_devices=devices,
        power_feeds=tuple(feeds),
        cooling_units=units,
    )


def test_cooling_headroom_is_rack_it_so_power_and_cooling_compare_alike():
    # One more 10 kW direct-to-chip rack (8 kW of liquid to CDU-1, 2 kW of air over the CRAHs). By hand:
    # * power: PDU-A with side B lost carries 10 + 10 + 10 = 30 kW of its 44: 14 kW of rack IT left;
    # * group L (N+1, undeclared): 72 - 36 = 36 kW usable against 8 + 8 + 8 = 24 kW of liquid heat: 12 kW of
    #   heat left, and each kW of rack IT brings 0.8 kW of it there: 12 / 0.8 = 15 kW of rack IT;
    #   CDU-1: 36 - 16 = 20 kW of heat, 25 kW of IT; group A: 100 usable - 6 = 94 kW of heat / 0.2 = 470.
    # So power binds with 14 kW. The old answer compared 12 kW of heat with 14 kW of IT and named group L.
    res = place(_cold_plate_hall(), PlacementRequest("toy8l", 1, nodes_per_rack=10))
    assert res["feasible"] is True
    after = res["options"][0]["headroom_after"]
    assert after["power_kw"] == pytest.approx(14.0)
    assert after["cooling_kw"] == pytest.approx(15.0)
    assert after["cooling_element"] == "L"
    assert after["cooling_element_headroom_kw"] == pytest.approx(12.0)  # kW of heat
    assert res["binding_constraint"] == "power" and res["binding"]["element"] in {"PDU-A", "PDU-B"}


def _ungrouped_crah_hall():
    """One hall: three 20 kW CRAHs in no group (the hall's air units back each other up as one pool, as the
    failure analysis pools them), three 12 kW air racks, one on each; PDU-A / PDU-B of 1 MW: power never
    binds."""
    devices = (
        device(1, "ups", 10_000.0, utility_feed_id=1),
        device(2, "ups", 10_000.0, utility_feed_id=2),
        device(11, "pdu", 1000.0, name="PDU-A"),
        device(12, "pdu", 1000.0, name="PDU-B"),
    )
    feeds = [feed(1, dev=11, side="A"), feed(2, dev=12, side="B")]
    units = tuple(crah(u, 1, 20.0, "") for u in (1, 2, 3))
    racks = []
    for k in range(3):
        racks.append(
            rack(k + 1, 12, hall_id=1, x_m=2.0 + 0.6 * k, y_m=2.0, cooling_type="air", cooling_unit_id=k + 1)
        )
        feeds += [feed(11, rack=k + 1, side="A"), feed(12, rack=k + 1, side="B")]
    return campus(
        halls=(HallSnap(1, 1, "H1", 20.0, 20.0),),
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 50_000.0), UtilityFeedSnap(2, "U2", 50_000.0)),
        power_devices=devices,
        power_feeds=tuple(feeds),
        cooling_units=units,
    )


POOL = "B1 H1 air units"


def test_a_halls_ungrouped_crahs_keep_their_spare_as_one_pool():
    # The hall's air units: 3 x 20 kW carrying 36 kW; N+1 (undeclared) leaves 60 - 20 = 40 kW usable.
    # A 2 kW air rack goes to CRAH-1 (each has 8 kW spare; the lowest id): CRAH-1 keeps 20 - 12 - 2 = 6 kW,
    # the pool 40 - 38 = 2 kW, which binds (the old answer checked each unit alone: 6 kW on CRAH-1).
    res = place(_ungrouped_crah_hall(), PlacementRequest("toy8", 1, nodes_per_rack=2))
    after = res["options"][0]["headroom_after"]
    assert after["cooling_kw"] == pytest.approx(2.0)
    # named as the summary and the redundancy check name the pool: "<building> <hall> air units"
    assert (after["cooling_level"], after["cooling_element"]) == ("hall air units", POOL)
    # power never binds here (1 MW PDUs): the answer's binding element is the pool, with its own level
    assert res["feasible"] is True and res["binding_constraint"] == "cooling"
    assert (res["binding"]["level"], res["binding"]["element"]) == ("hall air units", POOL)
    # a 5 kW rack fits CRAH-1 (3 kW left) but not the pool: 41 kW against 40, 1.0 kW short
    res = place(_ungrouped_crah_hall(), PlacementRequest("toy8", 1, nodes_per_rack=5))
    assert res["feasible"] is False and res["binding_constraint"] == "cooling"
    assert (res["binding"]["level"], res["binding"]["element"]) == ("hall air units", POOL)
    assert "1.0 kW short (N+1 (largest unit out))" in res["binding"]["detail"]


def test_a_failed_pdu_feeds_no_new_rack():
    # H2's racks are fed A from H2-PDU-A (21) and B from H2-PDU-B (22), the hall's one pair. With PDU-B
    # failed the pair has one live path: no rack is placed on it (it was, with the redundancy called intact)
    snap = two_halls(crah_kw=(100.0, 100.0))
    assert {o["hall"] for o in place(snap, PlacementRequest("toy8", 1, nodes_per_rack=10))["options"]} == {
        "H1",
        "H2",
    }
    failed = replace(
        snap,
        power_devices=tuple(replace(d, status="failed") if d.id == 22 else d for d in snap.power_devices),
    )
    res = place(failed, PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert [o["hall"] for o in res["options"]] == ["H1"]
    assert all(s["feed_b"] != "H2-PDU-B" for o in res["options"] for s in o["racks"])


def test_an_element_already_short_at_design_is_located():
    # both halls' CRAH pairs of 5 kW (N+1: 5 usable) carry 20 kW: already 15 kW short each, nothing fits.
    # The binding and each shortfall name the hall and building (they read hall "" and building null)
    res = place(two_halls(crah_kw=(5.0, 5.0)), PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert res["feasible"] is False
    binding = res["binding"]
    assert (binding["hall"], binding["building"]) in (("H1", "B1"), ("H2", "B1"))
    assert binding["hall_id"] in (1, 2) and binding["building_id"] == 1
    assert {(s["hall"], s["building"]) for s in res["short_at_design"]} == {("H1", "B1"), ("H2", "B1")}


def test_a_hall_of_one_rack_is_not_as_narrow_as_that_rack():
    # a 20 x 20 m hall with one 0.6 m rack at x = 3: ten more fit on the next row line, which runs from the
    # rack's x to 20 - 1.2 - 0.6 = 18.2 (3.0 ... 18.0: 26 positions) and back to 1.2 (2.4, 1.8, 1.2: 3
    # more); only one per new line was offered, and the hall read full
    out = free_positions(20.0, 20.0, [(3.0, 2.0, 0.6, 1.2)], (0.6, 1.2), 10)
    assert len(out) == 10
    assert {y for _, y, _ in out} == {2.0 + 1.2 + AISLE_CLEARANCE_M}
    assert [x for x, _, _ in out][:3] == [3.0, 3.6, 4.2]
    # a whole line: 26 + 3 = 29
    line = free_positions(20.0, 20.0, [(3.0, 2.0, 0.6, 1.2)], (0.6, 1.2), 1000)
    assert sum(1 for _, y, _ in line if y == out[0][1]) == 29


def test_a_power_device_short_at_design_is_located_in_its_hall():
    # H1's PDUs of 20 kW (limit 16) carry its 20 kW with a side lost: 4 kW short at design. Placed in H1
    # (hall_id), the entry names H1 and B1 (it named no hall: the snapshot did not carry a device's hall)
    snap = two_halls(pdu_kw=(20.0, 100.0), crah_kw=(100.0, 100.0))
    snap = replace(
        snap,
        power_devices=tuple(replace(d, hall_id=1) if d.id in (11, 12) else d for d in snap.power_devices),
    )
    short = place(snap, PlacementRequest("toy8", 1, nodes_per_rack=1))["short_at_design"]
    pdus = [s for s in short if s["level"] == "pdu"]
    assert pdus and all((s["hall"], s["hall_id"], s["building"]) == ("H1", 1, "B1") for s in pdus)
    assert pdus[0]["shortfall_kw"] == pytest.approx(4.0)
