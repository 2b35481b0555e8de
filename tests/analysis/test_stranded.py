"""Stranded capacity per hall: upstream devices, cooling and floor space bind; the design margin stays apart.

Chain (builders.two_n): UPS 1 / UPS 2 (1000 kW) -> PDU 11 (A) / PDU 12 (B) -> two 10 kW racks, each fed
A and B at 50 kW; the devices' planning limit is 0.8 of their rating.
"""

from __future__ import annotations

import pytest

from campus.analysis.feeds import rack_side_ratings_kw, redundant_rating_kw
from campus.analysis.stranded import stranded_capacity
from campus.analysis.summary import campus_summary
from tests.analysis.builders import CoolingUnitSnap, HallSnap, replace, two_n


def site(pdu_rated_kw: float = 1000.0, design_kw: float = 40.0, **kw):
    snap = two_n((10, 10), pdu_rated_kw=pdu_rated_kw, feed_rating_kw=50.0, grid_capacity_kw=1e9, **kw)
    return replace(snap, racks=tuple(replace(r, design_kw=design_kw) for r in snap.racks))


def test_design_margin_is_reported_apart_not_stranded():
    # Per rack: 50 kW per side, 0.8 x 50 = 40 plannable = design_kw; 10 kW margin each. Nothing binds.
    hall = stranded_capacity(site()).halls[1]
    assert hall.provisioned_kw == pytest.approx(100.0)
    assert hall.design_margin_kw == pytest.approx(20.0)
    assert hall.usable_kw == pytest.approx(80.0)
    assert hall.stranded_kw == pytest.approx(0.0)
    assert hall.binding == ""


def test_an_upstream_pdu_strands_the_feeds_and_is_named():
    # PDU 75 kW -> planning limit 60 kW. Side A lost: PDU 12 carries both racks' 20 kW, so the hall can
    # add 40 kW: upstream allows 20 + 40 = 60 kW of the 80 kW the racks are provisioned for -> 20 stranded.
    hall = stranded_capacity(site(pdu_rated_kw=75.0)).halls[1]
    assert hall.usable_kw == pytest.approx(60.0)
    assert hall.stranded_kw == pytest.approx(20.0)
    assert hall.stranded_by_constraint_kw == {"upstream": pytest.approx(20.0)}
    assert hall.binding == "upstream"
    assert hall.binding_device["kind"] == "pdu"
    assert hall.binding_device["id"] in (11, 12)
    assert hall.binding_device["failure"]["kind"] in ("power", "side")


def test_cooling_with_one_unit_lost_strands_the_rest():
    # Two 30 kW CDUs in one group serve the racks: with one lost, 30 kW of heat -> 80 - 30 = 50 stranded.
    units = tuple(
        CoolingUnitSnap(u, f"CDU-{u}", "cdu", 30.0, 30.0, 40.0, 0.0, None, None, 1, "g") for u in (1, 2)
    )
    snap = site(cooling_units=units)
    snap = replace(snap, racks=tuple(replace(r, cooling_unit_id=r.id) for r in snap.racks))
    hall = stranded_capacity(snap).halls[1]
    assert hall.usable_kw == pytest.approx(30.0)
    assert hall.stranded_by_constraint_kw == {"cooling": pytest.approx(50.0)}
    assert hall.binding == "cooling"


def test_declared_n_cooling_strands_only_beyond_the_units_capacity():
    # The same two 30 kW CDUs in a campus declared cooling N (docs/model.md, "Redundancy topologies": the
    # fewest units that carry the heat, no spare): 60 kW carry 60 of the racks' 80 -> 20 stranded, not 50.
    units = tuple(
        CoolingUnitSnap(u, f"CDU-{u}", "cdu", 30.0, 30.0, 40.0, 0.0, None, None, 1, "g") for u in (1, 2)
    )
    snap = site(cooling_units=units, cooling_redundancy="N")
    snap = replace(snap, racks=tuple(replace(r, cooling_unit_id=r.id) for r in snap.racks))
    hall = stranded_capacity(snap).halls[1]
    assert hall.usable_kw == pytest.approx(60.0)
    assert hall.stranded_by_constraint_kw == {"cooling": pytest.approx(20.0)}


def test_a_full_floor_strands_upstream_capacity_by_space():
    # Hall 3 m x 2 m: 6 m2 x 0.6 / 1.8 m2 per position = 2 positions, both taken.
    # PDU 1000 kW -> limit 800; side lost: 20 kW carried, so upstream allows 800 kW of IT; the racks take
    # 80 -> 720 kW of upstream capacity has nowhere to go.
    snap = replace(site(), halls=(HallSnap(1, 1, "H1", 3.0, 2.0),))
    hall = stranded_capacity(snap).halls[1]
    assert hall.stranded_by_constraint_kw == {"space": pytest.approx(720.0)}
    assert hall.binding == "space"


def test_summary_reports_margin_apart():
    power = campus_summary(site(pdu_rated_kw=75.0), include_redundancy=False)["power"]
    assert power["stranded_mw"] == pytest.approx(0.020)
    assert power["stranded_by_constraint_mw"] == {"upstream": pytest.approx(0.020)}
    assert power["design_margin_mw"] == pytest.approx(0.020)


def test_one_rule_for_a_racks_feed_ratings():
    # two A feeds share the A side (50 + 30 = 80), B has 60: with one side lost the rack gets 60
    sides = rack_side_ratings_kw([("A", 50.0), ("A", 30.0), ("B", 60.0)])
    assert sides == {"A": 80.0, "B": 60.0}
    assert redundant_rating_kw(sides) == 60.0
    # N feeds only: their total; single-corded A: its rating; no feeds: nothing
    assert redundant_rating_kw(rack_side_ratings_kw([("N", 40.0), ("N", 40.0)])) == 80.0
    assert redundant_rating_kw(rack_side_ratings_kw([("A", 40.0)])) == 40.0
    assert redundant_rating_kw({}) == 0.0
    # an A/B rack with a stray N feed is still limited by its weaker A/B side (the old stranded rule took
    # the weakest of all three)
    assert redundant_rating_kw(rack_side_ratings_kw([("A", 50.0), ("B", 60.0), ("N", 10.0)])) == 50.0


def test_the_network_and_other_it_a_rack_carries_is_not_stranded():
    # With other IT (a quarter of the campus IT), each rack's feeds carry more than its own 10 kW: the power
    # chain's own roll-up says how much. A rack at its design IT (30 kW) brings the same share, so the feed
    # capacity "design" leaves is the plannable 40 kW less what the feeds carry at 30 kW of the rack's IT,
    # not 40 - 30.
    from campus.analysis.power import baseline_rollup, power_graph

    snap = replace(site(design_kw=30.0), other_it_fraction=0.25)
    chain = baseline_rollup(snap)
    g = power_graph(snap)
    for r in snap.racks:
        carried_kw = sum(chain.feed_load_kw[f] for f in g.rack_feeds[r.id])  # the chain's figure
        assert carried_kw > 10.0 + 1e-6  # the share is real
        row = stranded_capacity(snap).racks[r.id]
        assert row.usable_kw == pytest.approx(30.0 * carried_kw / 10.0)
        assert row.stranded_by_constraint_kw.get("design", 0.0) == pytest.approx(
            40.0 - 30.0 * carried_kw / 10.0
        )
