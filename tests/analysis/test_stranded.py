"""Stranded capacity per hall: upstream devices, cooling and floor space bind; the design margin stays apart.

Chain (builders.two_n): UPS 1 / UPS 2 (1000 kW) -> PDU 11 (A) / PDU 12 (B) -> two 10 kW racks, each fed
A and B at 50 kW; the devices' planning limit is 0.8 of their rating.
"""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.feeds import rack_side_ratings_kw, redundant_rating_kw
from campus.analysis.power import power_graph
from campus.analysis.stranded import stranded_capacity
from campus.analysis.summary import campus_summary
from tests.analysis.builders import TOY_NODE, CoolingUnitSnap, HallSnap, replace, two_n


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


def test_a_rack_over_its_design_never_reports_its_load_as_stranded():
    # Each rack carries 10 kW; a design_kw of 5 (a row older than the write rule) used to give usable 5 and
    # 35 kW "stranded by design", 5 of them in use. Designed for at least its 10 kW: usable 10, 30 stranded.
    hall = stranded_capacity(site(design_kw=5.0))
    for row in hall.racks.values():
        assert row.usable_kw == pytest.approx(10.0)
        assert row.stranded_by_constraint_kw == {"design": pytest.approx(30.0)}


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


# Cooling. Toy servers of 1 kW whose cold plates take 75 % of their heat (``LIQUID_TOY``): each 10 kW rack is
# given 40 kW usable (design_kw 40 = 0.8 x its 50 kW feed), so the hall's 80 usable kW bring 60 kW of heat
# in liquid (to the racks' CDUs) and 20 kW in air (to the hall's CRAHs, docs/model.md "Where the heat goes").
LIQUID_TOY = replace(TOY_NODE, slug="toy8-liquid", liquid_heat_fraction=0.75)


def unit(uid: int, kind: str, capacity_kw: float, group: str) -> CoolingUnitSnap:
    return CoolingUnitSnap(
        uid, f"{kind.upper()}-{uid}", kind, capacity_kw, 30.0, 40.0, 0.0, None, None, 1, group
    )


def cooled(cdus: list[float], crahs: list[float], on_cdu=lambda rid: 1, **kw):
    """``site`` with liquid-cooled toy racks (rack ``rid`` on CDU ``on_cdu(rid)``), CDUs 1.. in group
    "cdu" and CRAHs 101.. in group "crah", all in hall 1."""
    units = tuple(unit(1 + i, "cdu", c, "cdu") for i, c in enumerate(cdus))
    units += tuple(unit(101 + i, "crah", c, "crah") for i, c in enumerate(crahs))
    snap = site(cooling_units=units, **kw)
    nodes = {**snap.node_models, LIQUID_TOY.slug: LIQUID_TOY}
    racks = tuple(
        replace(r, nodes=((LIQUID_TOY.slug, 10),), cooling_unit_id=on_cdu(r.id)) for r in snap.racks
    )
    return replace(snap, node_models=nodes, racks=racks)


def test_each_heat_path_against_the_units_that_serve_it_nothing_stranded_when_both_fit():
    # The planner's hall in small: CDUs 3 x 30 kW -> 60 with one lost (N+1) carry the 60 kW of liquid;
    # CRAHs 3 x 12 kW -> 24 with one lost carry the 20 kW of air. Both fit: nothing is stranded by
    # cooling (the old rule set 60 kW of CDUs against all 80 kW of heat and stranded 20).
    hall = stranded_capacity(cooled([30.0] * 3, [12.0] * 3, on_cdu=lambda rid: rid)).halls[1]
    assert hall.usable_kw == pytest.approx(80.0)
    assert hall.stranded_by_constraint_kw == {}
    # the hall could carry min(60 / 60, 24 / 20) = 1 x its 80 kW by cooling
    assert hall.limits_kw["cooling"] == pytest.approx(80.0)


def test_the_whole_group_counts_not_only_the_units_racks_name():
    # Both racks name CDU 1 of a group of two 30 kW CDUs: with one lost, 30 kW for 60 kW of liquid; the
    # 2 x 15 kW CRAHs keep 15 kW for the 20 kW of air. The liquid path binds: the hall can carry
    # 80 x min(30 / 60, 15 / 20) = 80 x 0.5 = 40 kW -> 40 kW stranded by cooling (the old rule counted only
    # CDU 1: 30 - 30 = 0 kW, all 80 stranded).
    hall = stranded_capacity(cooled([30.0, 30.0], [15.0, 15.0])).halls[1]
    assert hall.usable_kw == pytest.approx(40.0)
    assert hall.stranded_by_constraint_kw == {"cooling": pytest.approx(40.0)}
    assert hall.binding == "cooling"


def test_declared_n_cooling_strands_only_beyond_the_units_capacity():
    # Declared N (docs/model.md, "Redundancy topologies": the fewest units that carry the heat, no spare):
    # CDUs 2 x 30 = 60 carry the 60 kW of liquid; the one 15 kW CRAH carries 15 of the 20 kW of air ->
    # 80 x min(60 / 60, 15 / 20) = 60 kW usable, 20 stranded (under N+1 the CRAH alone would leave 0).
    hall = stranded_capacity(cooled([30.0, 30.0], [15.0], cooling_redundancy="N")).halls[1]
    assert hall.usable_kw == pytest.approx(60.0)
    assert hall.stranded_by_constraint_kw["cooling"] == pytest.approx(20.0)  # (design: the 1e9 kW feeds)


def test_declared_2n_cooling_keeps_half_of_each_group():
    # Declared 2N: half of each group may be lost. CDUs 4 x 20 -> 40 kW for 60 kW of liquid; CRAHs 4 x 15
    # -> 30 kW for 20 kW of air: 80 x min(40 / 60, 30 / 20) = 53.33 kW usable, 26.67 stranded. (N+1 would
    # keep 60 kW of CDUs: nothing stranded.)
    hall = stranded_capacity(cooled([20.0] * 4, [15.0] * 4, on_cdu=lambda rid: rid, cooling_redundancy="2N"))
    assert hall.halls[1].usable_kw == pytest.approx(80.0 * 40.0 / 60.0)
    assert hall.halls[1].stranded_by_constraint_kw == {"cooling": pytest.approx(80.0 - 80.0 * 40.0 / 60.0)}
    n_plus_1 = stranded_capacity(cooled([20.0] * 4, [15.0] * 4, on_cdu=lambda rid: rid)).halls[1]
    assert "cooling" not in n_plus_1.stranded_by_constraint_kw


def test_heat_other_halls_put_on_a_shared_group_stays_as_today():
    # Rack 1 in hall 1, rack 2 in hall 2, both on a CDU group of 2 x 30 kW (30 with one lost); each hall
    # has its own 2 x 20 kW CRAHs (20 with one lost, for at most 10 kW of air). Today each rack draws
    # 10 kW: 7.5 kW of liquid each on the group. Hall 1 at its 40 usable kW brings 30 kW of liquid while
    # hall 2 keeps its 7.5: hall 1 may carry (30 - 7.5) / 0.75 = 30 kW -> 10 kW stranded; hall 2 alike.
    snap = cooled([30.0, 30.0], [], on_cdu=lambda rid: rid)
    crahs = tuple(
        replace(unit(100 + 10 * h + i, "crah", 20.0, f"crah-{h}"), hall_id=h) for h in (1, 2) for i in (1, 2)
    )
    snap = replace(
        snap,
        halls=(HallSnap(1, 1, "H1", 50.0, 50.0), HallSnap(2, 1, "H2", 50.0, 50.0)),
        racks=tuple(replace(r, hall_id=r.id) for r in snap.racks),
        cooling_units=snap.cooling_units + crahs,
    )
    s = stranded_capacity(snap)
    for hall_id in (1, 2):
        assert s.halls[hall_id].usable_kw == pytest.approx(30.0)
        assert s.halls[hall_id].stranded_by_constraint_kw == {"cooling": pytest.approx(10.0)}


def test_a_tiny_generated_campus_is_not_stranded_by_cooling():
    # 8 GPUs: one rack of about 28 kW of IT on a group of 2 x 2,000 kW CDUs (2,000 with one lost) and
    # 2 x 350 kW CRAHs (350 with one lost): either path takes the whole rack many times over, so cooling
    # strands nothing (the old rule counted the one CDU the rack names, minus itself: 0 kW).
    from campus.interchange.generate import generate_spec
    from campus.interchange.spec_snapshot import spec_snapshot

    snap = spec_snapshot(generate_spec("tiny", gpus=8))
    assert sorted(u.capacity_kw for u in snap.cooling_units) == [350.0, 350.0, 2000.0, 2000.0]
    s = stranded_capacity(snap)
    assert 0 < s.campus.limits_kw["racks"] < 30.0
    assert "cooling" not in s.campus.stranded_by_constraint_kw
    assert s.campus.usable_kw == pytest.approx(s.campus.limits_kw["racks"])


@settings(max_examples=40, deadline=None)
@given(
    redundancy=st.sampled_from(["N", "N+1", "2N"]),
    cdus=st.integers(1, 5),
    cdu_kw=st.integers(5, 60),
    crahs=st.integers(1, 5),
    crah_kw=st.integers(5, 40),
    liquid=st.sampled_from([0.0, 0.25, 0.75, 0.85]),
    racks=st.lists(
        st.tuples(st.integers(1, 10), st.integers(5, 40), st.integers(0, 4)), min_size=1, max_size=3
    ),
)
def test_cooling_strands_what_the_tighter_heat_path_leaves(
    redundancy, cdus, cdu_kw, crahs, crah_kw, liquid, racks
):
    # By hand, for one hall of racks at usable = design_kw (feeds and chain far larger, no network or other
    # IT): the racks bring liquid x D kW to the CDUs and (1 - liquid) x D to the CRAHs; a group of n equal
    # units of c kW keeps n c (N), (n - 1) c (N+1), floor(n / 2) c (2N). The hall may carry D x the smaller
    # of capacity / heat over the paths that carry heat: cooling strands D - that, and nothing whenever
    # every group carries its heat with the declared redundancy intact.
    keep = {"N": lambda n: n, "N+1": lambda n: n - 1, "2N": lambda n: n // 2}[redundancy]
    node = replace(TOY_NODE, slug="toy8-p", liquid_heat_fraction=liquid)
    units = tuple(unit(1 + i, "cdu", cdu_kw, "cdu") for i in range(cdus))
    units += tuple(unit(101 + i, "crah", crah_kw, "crah") for i in range(crahs))
    snap = two_n(
        tuple(n for n, _, _ in racks),
        pdu_rated_kw=1e6,
        ups_rated_kw=1e6,
        feed_rating_kw=50.0,
        grid_capacity_kw=1e9,
        cooling_units=units,
        cooling_redundancy=redundancy,
    )
    snap = replace(
        snap,
        node_models={**snap.node_models, node.slug: node},
        racks=tuple(
            replace(r, nodes=((node.slug, n),), design_kw=float(d), cooling_unit_id=1 + on % cdus)
            for r, (n, d, on) in zip(snap.racks, racks, strict=True)
        ),
    )
    # A rack is designed for at least what it holds (the write rule, docs/planning.md "What a rack holds").
    snap = replace(
        snap, racks=tuple(replace(r, design_kw=max(r.design_kw, snap.rack_it_kw(r))) for r in snap.racks)
    )
    design = sum(r.design_kw for r in snap.racks)
    paths = [(keep(cdus) * cdu_kw, liquid * design), (keep(crahs) * crah_kw, (1 - liquid) * design)]
    scale = min([cap / heat for cap, heat in paths if heat > 0] or [math.inf])
    # never below what the racks draw today (no network or other IT here: their feeds carry their IT):
    # power in use is not stranded, units already short strand all above it
    today = sum(snap.rack_it_kw(r) for r in snap.racks)
    expected = max(design - max(design * scale, today), 0.0)
    hall = stranded_capacity(snap).halls[1]
    assert hall.limits_kw["racks"] == pytest.approx(design)
    assert hall.stranded_by_constraint_kw.get("cooling", 0.0) == pytest.approx(expected, abs=1e-6)
    if all(cap >= heat for cap, heat in paths):
        assert "cooling" not in hall.stranded_by_constraint_kw


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


def test_a_racks_feeds_carry_its_own_it_and_the_allowance_strands_nothing_on_them():
    # With an allowance (a quarter of the campus IT) the racks' feeds still carry only their own 10 kW: the
    # allowance is beside them, on the devices feeding the hall. A rack at its design IT (30 kW) therefore
    # leaves the plannable 40 kW less 30 kW to "design" (the old chain put a share of the allowance on every
    # rack's feeds and stranded less).
    from campus.analysis.power import baseline_rollup, power_graph

    snap = replace(site(design_kw=30.0), other_it_fraction=0.25)
    chain = baseline_rollup(snap)
    g = power_graph(snap)
    assert sum(chain.it_beside_racks_kw.values()) > 0  # the allowance is on the chain
    for r in snap.racks:
        carried_kw = sum(chain.feed_load_kw[f] for f in g.rack_feeds[r.id])  # the chain's figure
        assert carried_kw == pytest.approx(10.0)
        row = stranded_capacity(snap).racks[r.id]
        assert row.usable_kw == pytest.approx(30.0)
        assert row.stranded_by_constraint_kw.get("design", 0.0) == pytest.approx(40.0 - 30.0)


# ---------------------------------------------------------------- agreement between scopes
#
# The binding of every scope (rack, hall, building, campus) is the constraint stranding the most kW in it;
# on a tie the first of feed, design, upstream, cooling, space, grid. ``limits_kw.racks`` is, at every
# scope, the racks' own usable kW (feeds and design_kw alone) summed. So a scope naming the same racks as
# its only member reports the member's binding, kW and limits.


def every_scope(s) -> list:
    return [s.campus, *s.buildings.values(), *s.halls.values()]


def test_one_hall_reads_the_same_at_hall_building_and_campus():
    # site(pdu 75, design 32), one hall in one building. Per rack: 50 kW per side -> provisioned 50; the
    # PDU's 0.8 -> plannable 40 (margin 10); design_kw 32 -> usable 32, design strands 40 - 32 = 8.
    # The hall: racks 2 x 32 = 64; upstream: today 20 kW, side A lost PDU 12 carries the 20 of its limit
    # 0.8 x 75 = 60 -> +40 -> 60 kW: usable 60, upstream strands 64 - 60 = 4. Stranded 2 x 8 + 4 = 20, of
    # which design 16 > upstream 4: design binds, at every scope (the hall used to say "upstream", the cap
    # that binds last, and the building and campus "design", with racks 60 instead of 64).
    s = stranded_capacity(site(pdu_rated_kw=75.0, design_kw=32.0))
    for row in every_scope(s):
        assert row.usable_kw == pytest.approx(60.0), row.scope
        assert row.stranded_kw == pytest.approx(20.0)
        assert row.stranded_by_constraint_kw == {
            "design": pytest.approx(16.0),
            "upstream": pytest.approx(4.0),
        }
        assert row.binding == "design", row.scope
        assert row.binding_device["kind"] == "pdu" and row.binding_device["id"] in (11, 12)
        assert row.limits_kw["racks"] == pytest.approx(64.0), row.scope
        assert row.limits_kw["upstream"] == pytest.approx(60.0)
    assert len({str(row.binding_device) for row in every_scope(s)}) == 1


def test_the_grid_strands_the_same_at_every_scope_of_one_hall():
    # As above with a grid of 60 kW at PUE 1.2: the racks' feeds may carry 60 / 1.2 = 50 kW. The chain
    # leaves 60, so the grid strands 60 - 50 = 10 more: design 16, upstream 4, grid 10 -> 30 kW, usable
    # 50, design binds. The old code capped only the campus by the grid: the hall and the building said
    # usable 60, stranded 20.
    s = stranded_capacity(replace(site(pdu_rated_kw=75.0, design_kw=32.0), grid_capacity_kw=60.0))
    for row in every_scope(s):
        assert row.usable_kw == pytest.approx(50.0), row.scope
        assert row.stranded_by_constraint_kw == {
            "design": pytest.approx(16.0),
            "upstream": pytest.approx(4.0),
            "grid": pytest.approx(10.0),
        }
        assert row.binding == "design"
        assert row.limits_kw == {
            "racks": pytest.approx(64.0),
            "upstream": pytest.approx(60.0),
            "grid": pytest.approx(50.0),
        }
    # 36 kW: 30 of feeds, the grid strands 60 - 30 = 30 > design 16: grid binds at every scope
    s = stranded_capacity(replace(site(pdu_rated_kw=75.0, design_kw=32.0), grid_capacity_kw=36.0))
    for row in every_scope(s):
        assert row.usable_kw == pytest.approx(30.0)
        assert row.stranded_by_constraint_kw["grid"] == pytest.approx(30.0)
        assert row.binding == "grid", row.scope


def test_a_tie_goes_to_the_constraint_nearer_the_racks():
    # design_kw 35: design strands 2 x (40 - 35) = 10; the racks' 70 against upstream's 60 strands 10 too:
    # a tie, and design comes before upstream at every scope (and the rack's own row says design).
    s = stranded_capacity(site(pdu_rated_kw=75.0, design_kw=35.0))
    for row in every_scope(s):
        assert row.stranded_by_constraint_kw == {
            "design": pytest.approx(10.0),
            "upstream": pytest.approx(10.0),
        }
        assert row.binding == "design", row.scope
    # design_kw 36: design 8, upstream 72 - 60 = 12: upstream binds at every scope
    s = stranded_capacity(site(pdu_rated_kw=75.0, design_kw=36.0))
    assert {row.binding for row in every_scope(s)} == {"upstream"}


ORDER = ("feed", "design", "upstream", "cooling", "space", "grid")


def most_stranding(by: dict[str, float]) -> str:
    """The rule written out apart from the code: the largest kW, ties (1 W) to the earlier in ORDER."""
    if not by:
        return ""
    top = max(by.values())
    return next(k for k in ORDER if k in by and by[k] >= top - 1e-3 - 1e-9 * top)


@functools.lru_cache(maxsize=64)
def generated(gpus, cooling, power_redundancy, cooling_redundancy, hall_mw, building_mw):
    from campus.interchange.generate import generate_spec
    from campus.interchange.spec_snapshot import spec_snapshot

    spec = generate_spec(
        "S",
        gpus,
        cooling=cooling,
        power_redundancy=power_redundancy,
        cooling_redundancy=cooling_redundancy,
        hall_max_it_mw=hall_mw,
        building_max_it_mw=building_mw,
        racks_per_row=4,
        pod_max_gpus=256,
    )
    return spec_snapshot(spec)


def same(a, b) -> bool:
    return a == pytest.approx(b, rel=1e-9, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    gpus=st.sampled_from([64, 256, 512]),
    cooling=st.sampled_from(["liquid", "air"]),
    power_redundancy=st.sampled_from(["N", "N+1", "2N"]),
    cooling_redundancy=st.sampled_from(["N", "N+1", "2N"]),
    hall_mw=st.sampled_from([0.2, 0.5]),
    building_mw=st.sampled_from([0.5, 1.0, 2.0]),
    design=st.sampled_from([0.6, 0.9, 1.0, 1.3]),
    pdu=st.sampled_from([0.4, 0.7, 1.0]),
    grid=st.sampled_from([0.5, 0.8, 1.0, 3.0]),
    units=st.sampled_from([0.15, 0.5, 1.0]),
)
def test_scopes_agree_and_add_up_on_generated_campuses(
    gpus, cooling, power_redundancy, cooling_redundancy, hall_mw, building_mw, design, pdu, grid, units
):
    snap = generated(gpus, cooling, power_redundancy, cooling_redundancy, hall_mw, building_mw)
    # stress the constraints: racks' design_kw, the PDUs' ratings, the cooling units and the grid scaled
    snap = replace(
        snap,
        racks=tuple(replace(r, design_kw=r.design_kw * design) for r in snap.racks),
        power_devices=tuple(
            replace(d, rated_kw=d.rated_kw * pdu) if d.kind == "pdu" else d for d in snap.power_devices
        ),
        cooling_units=tuple(replace(u, capacity_kw=u.capacity_kw * units) for u in snap.cooling_units),
        grid_capacity_kw=snap.grid_capacity_kw * grid,
    )
    s = stranded_capacity(snap)
    g = power_graph(snap)
    racks_of_hall = {
        h.id: [r.id for r in snap.racks if r.hall_id == h.id and r.id in s.racks] for h in snap.halls
    }
    halls_of = {b.id: [h.id for h in snap.halls if h.building_id == b.id] for b in snap.buildings}
    racks_of = {("hall", h): rids for h, rids in racks_of_hall.items()}
    for b, hids in halls_of.items():
        racks_of[("building", b)] = [rid for h in hids for rid in racks_of_hall[h]]
    racks_of[("campus", None)] = [rid for rids in racks_of_hall.values() for rid in rids]

    for row in [*s.racks.values(), *every_scope(s)]:
        by = row.stranded_by_constraint_kw
        # never negative; what is provisioned splits into usable, margin and stranded (space strands
        # capacity beyond the racks' provision, so it is the one part that may exceed it)
        assert row.stranded_kw >= 0 and all(v > 0 for v in by.values())
        assert same(row.stranded_kw, sum(by.values()))
        assert same(
            row.provisioned_kw, row.usable_kw + row.design_margin_kw + row.stranded_kw - by.get("space", 0)
        )
        assert row.stranded_kw - by.get("space", 0.0) <= row.provisioned_kw * (1 + 1e-9) + 1e-6
        # one rule for the binding at every scope
        assert row.binding == most_stranding(by), (row.scope, row.id, by)
        assert (row.binding_device is not None) == ("upstream" in by)
        if row.scope != "rack":
            # racks: the racks' own usable kW summed, whatever the scope
            assert same(
                row.limits_kw["racks"], sum(s.racks[rid].usable_kw for rid in racks_of[(row.scope, row.id)])
            )
            assert all(row.usable_kw <= v * (1 + 1e-9) + 1e-6 or v < 0 for v in row.limits_kw.values())
            # the upstream chain never strands power in use: a device over its limit holds the scope at
            # what its racks' feeds carry today, not below (PDUs re-rated to 0.4 put some over)
            if "upstream" in row.limits_kw:
                fed = sum(g.load_kw[rid] for rid in racks_of[(row.scope, row.id)])
                assert row.limits_kw["upstream"] >= fed * (1 - 1e-9) - 1e-6, (row.scope, row.id)

    def agree(parent, child):
        assert same(parent.usable_kw, child.usable_kw) and same(parent.stranded_kw, child.stranded_kw)
        assert parent.binding == child.binding
        assert parent.binding_device == child.binding_device
        assert parent.stranded_by_constraint_kw.keys() == child.stranded_by_constraint_kw.keys()
        assert parent.limits_kw.keys() == child.limits_kw.keys()
        for k, v in parent.stranded_by_constraint_kw.items():
            assert same(v, child.stranded_by_constraint_kw[k]), k
        for k, v in parent.limits_kw.items():
            assert same(v, child.limits_kw[k]), k

    def adds_up(parent, children):
        # the members' kW per constraint summed, except the parent's own: its upstream (shared devices)
        # strands at least the members' sum, its grid (one connection for the campus, each scope read with
        # the rest as today) is its own figure
        by = parent.stranded_by_constraint_kw
        for k in set(by) | {k for c in children for k in c.stranded_by_constraint_kw}:
            total = sum(c.stranded_by_constraint_kw.get(k, 0.0) for c in children)
            if k == "upstream":
                assert by.get(k, 0.0) >= total - 1e-6
            elif k != "grid":
                assert same(by.get(k, 0.0), total), k
        if same(
            by.get("upstream", 0.0), sum(c.stranded_by_constraint_kw.get("upstream", 0.0) for c in children)
        ) and not any("grid" in r.stranded_by_constraint_kw for r in (parent, *children)):
            # the parent adds no constraint of its own: its stranded kW are its members'
            assert same(parent.stranded_kw, sum(c.stranded_kw for c in children))
            assert same(parent.usable_kw, sum(c.usable_kw for c in children))

    for b, hids in halls_of.items():
        children = [s.halls[h] for h in hids]
        adds_up(s.buildings[b], children)
        if len(hids) == 1:
            agree(s.buildings[b], children[0])
    adds_up(s.campus, list(s.buildings.values()))
    if len(s.buildings) == 1:
        agree(s.campus, next(iter(s.buildings.values())))
    for h, rids in racks_of_hall.items():
        members = [s.racks[rid] for rid in rids]
        for k in ("feed", "design"):  # the racks' own constraints pass up unchanged
            assert same(
                s.halls[h].stranded_by_constraint_kw.get(k, 0.0),
                sum(m.stranded_by_constraint_kw.get(k, 0.0) for m in members),
            )


def test_cooling_already_short_strands_what_is_above_todays_load_not_what_is_in_use():
    # test_placement.two_halls: H1's two 10 kW racks (design_kw 20) on two 5 kW CRAHs as one N+1 group: 5 kW
    # usable against the 20 kW they draw today. Usable is today's 20 kW (it read 5: power in use stranded),
    # cooling strands the other 20 of the racks' 40
    from tests.analysis.test_placement import two_halls

    hall = stranded_capacity(two_halls(crah_kw=(5.0, 40.0))).halls[1]
    assert hall.limits_kw["racks"] == pytest.approx(40.0)
    assert hall.usable_kw == pytest.approx(20.0)
    assert hall.stranded_by_constraint_kw["cooling"] == pytest.approx(20.0)  # (design: the 1e9 kW feeds)


def test_a_plant_loop_bounds_the_halls_it_takes_heat_from():
    # test_placement.two_halls with every CRAH (100 kW each) piped to one 60 kW plant, cooling declared N.
    # A loop's heat is its units' heat plus their fans (catalog crah_fan_kw_per_kw_heat 0.04, docs/catalog.md):
    # today 40 kW of racks, 41.6 kW. H1's racks at their usable 40 kW bring 41.6; H2 puts 20.8 on the loop
    # as today: H1 may carry 40 x (60 - 20.8) / 41.6 = 37.69 kW (it read 40: the plants were not a limit)
    from tests.analysis.builders import CoolingPlantSnap
    from tests.analysis.test_placement import two_halls

    snap = two_halls(pdu_kw=(100.0, 100.0), crah_kw=(100.0, 100.0), cooling_redundancy="N")
    plant = CoolingPlantSnap(9, "P1", "chiller", 60.0, 5.0, 1, None)
    snap = replace(
        snap,
        cooling_plants=(plant,),
        cooling_units=tuple(replace(u, plant_id=9) for u in snap.cooling_units),
    )
    hall = stranded_capacity(snap).halls[1]
    assert hall.limits_kw["cooling"] == pytest.approx(40.0 * (60.0 - 20.8) / 41.6)
    assert hall.usable_kw == pytest.approx(40.0 * (60.0 - 20.8) / 41.6)
    # the plant offline: no capacity, the hall held at today's 20 kW (power in use is not stranded)
    from campus.analysis.phases import operating

    off = operating(replace(snap, cooling_plants=(replace(plant, status="offline"),)))
    assert stranded_capacity(off).halls[1].usable_kw == pytest.approx(20.0)


def test_a_parent_is_not_held_by_an_element_of_one_of_its_halls():
    # test_placement.two_halls, PDUs of 50 kW (limit 40), CRAHs far larger; H1 two 10 kW racks, H2 two
    # 5 kW racks, design_kw 20 each: each hall's racks may carry 40. H1's PDU keeps 40 - 20 = 20 kW after a
    # side is lost, H2's 30: each hall fills its racks, nothing stranded. The campus placing its load like
    # today's (2/3 in H1) stops at H1's PDU after 30 kW: 60 of 80, 20 kW read stranded by upstream though
    # both halls at once fit (the UPSs are far larger)
    from tests.analysis.test_placement import two_halls

    snap = two_halls(pdu_kw=(50.0, 50.0), crah_kw=(100.0, 100.0))
    snap = replace(
        snap, racks=tuple(replace(r, nodes=(("toy8", 5),)) if r.hall_id == 2 else r for r in snap.racks)
    )
    s = stranded_capacity(snap)
    for row in (*s.halls.values(), s.buildings[1], s.campus):
        assert "upstream" not in row.stranded_by_constraint_kw, (row.scope, row.id)
    assert s.campus.usable_kw == pytest.approx(80.0)
