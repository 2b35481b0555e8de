"""An element's ``status`` takes it out of operation for every figure (worked by hand).

Power devices ``failed`` or ``offline`` were already out (the power graph reads their status). Utility feeds,
cooling units and cooling plants were not: a planner marking a grid feed or a CRAH out of service got the
same answer as before. ``phases.operating`` applies their status to the snapshot every analysis reads.

The campus: ``test_placement.two_halls()``: two halls of two 10 kW air racks, each rack fed A from its hall's
PDU-A under UPS-1 (utility U1) and B from PDU-B under UPS-2 (U2); each hall two CRAHs as one N+1 group
(H1: 25 kW each, H2: 40 kW each).
"""

from __future__ import annotations

import pytest

from campus.analysis.cooling import cooling_pools
from campus.analysis.headroom import failover_headroom
from campus.analysis.phases import operating
from campus.analysis.power import rollup
from campus.analysis.redundancy import redundancy_check
from campus.analysis.stranded import stranded_capacity
from tests.analysis.builders import replace
from tests.analysis.test_placement import two_halls


def _with_status(snap, collection: str, ident: int, status: str):
    items = tuple(replace(x, status=status) if x.id == ident else x for x in getattr(snap, collection))
    return operating(replace(snap, **{collection: items}))


def test_a_failed_utility_feed_supplies_nothing_and_the_other_side_becomes_single_points():
    healthy = operating(two_halls())
    assert rollup(healthy).utility_load_kw == {1: pytest.approx(20.0), 2: pytest.approx(20.0)}
    assert not redundancy_check(healthy)
    for status in ("failed", "offline"):
        snap = _with_status(two_halls(), "utility_feeds", 1, status)
        r = rollup(snap)
        # the 40 kW of racks all on U2: UPS-1 has no other source and is offline
        assert r.utility_load_kw.get(1, 0.0) == 0.0
        assert r.utility_load_kw[2] == pytest.approx(40.0)
        assert 1 in r.dead_devices
        # it has no headroom to report (it read its whole capacity: a feed out carrying nothing)
        assert set(failover_headroom(snap).utilities) == {2}
        lost_alone = {(f.device_kind, f.device_id) for f in redundancy_check(snap) if f.effect != "none"}
        # side B is now every rack's only path: U2, UPS-2 and each hall's PDU-B are single points
        assert {("utility", 2), ("power", 2), ("power", 12), ("power", 22)} <= lost_alone
    # planned changes nothing: the service dates say when
    assert rollup(_with_status(two_halls(), "utility_feeds", 1, "planned")).utility_load_kw[
        1
    ] == pytest.approx(20.0)


def test_a_failed_cooling_unit_carries_no_capacity():
    # H1's group: 2 x 25 kW at N+1 keeps 25 kW for 20 kW of racks. CRAH-12 failed: 25 + 0 at N+1 keeps 0
    snap = two_halls()
    pools = {p.unit_ids: p for p in cooling_pools(operating(snap))}
    assert pools[(11, 12)].usable_kw == pytest.approx(25.0)
    failed = _with_status(snap, "cooling_units", 12, "failed")
    pools = {p.unit_ids: p for p in cooling_pools(failed)}
    assert pools[(11, 12)].usable_kw == pytest.approx(0.0)
    assert next(u for u in failed.cooling_units if u.id == 12).capacity_kw == 0.0
    assert next(u for u in failed.cooling_units if u.id == 11).capacity_kw == 25.0


def test_nothing_out_is_the_same_snapshot():
    snap = two_halls()
    assert operating(snap) is snap


def test_a_hall_dark_with_nothing_failed_takes_no_added_load():
    # H2's PDUs offline: its racks have no live path. H1's PDUs (limit 32) carry its 20 kW with a side lost:
    # 12 kW. The campus places added load on H1 alone: 12 kW (it spread half onto H2's dark racks: 24)
    snap = two_halls(crah_kw=(100.0, 100.0))
    assert failover_headroom(snap).campus.headroom_kw == pytest.approx(24.0)
    devices = tuple(replace(d, status="offline") if d.id in (21, 22) else d for d in snap.power_devices)
    h = failover_headroom(replace(snap, power_devices=devices))
    assert h.halls[2].headroom_kw is None
    assert h.halls[1].headroom_kw == pytest.approx(12.0)
    assert h.campus.headroom_kw == pytest.approx(12.0)


def test_a_dark_hall_strands_all_its_racks_and_the_campus_reads_the_live_hall():
    # the same: H2 dark. Its racks (design_kw 20 each, 40 in all) can carry nothing: upstream strands 40,
    # naming an offline PDU. H1 may carry 20 today + 12 = 32 of its racks' 40. The campus: 32 usable (it
    # read 60, H2's racks counted usable)
    snap = two_halls(crah_kw=(100.0, 100.0))
    devices = tuple(replace(d, status="offline") if d.id in (21, 22) else d for d in snap.power_devices)
    s = stranded_capacity(replace(snap, power_devices=devices))
    h2 = s.halls[2]
    assert h2.usable_kw == 0.0
    assert h2.stranded_by_constraint_kw["upstream"] == pytest.approx(40.0)
    assert h2.binding_device["id"] == 21
    assert s.halls[1].usable_kw == pytest.approx(32.0)
    for row in (s.buildings[1], s.campus):
        assert row.usable_kw == pytest.approx(32.0)
        assert row.stranded_by_constraint_kw["upstream"] == pytest.approx(48.0)


def test_a_utility_feed_pushed_past_its_capacity_by_a_failure_trips():
    # U1 of 30 kW carries side A's 20 kW; with UPS-2 lost UPS-1 takes all 40: U1 trips, every rack goes dark.
    # The 2N check called UPS-2 safe (U1 70 % over is no trip of a device); it is a cascade now
    from campus.analysis.impact import impact

    snap = two_halls(crah_kw=(100.0, 100.0))
    snap = replace(
        snap,
        utility_feeds=tuple(replace(u, capacity_kw=30.0) if u.id == 1 else u for u in snap.utility_feeds),
    )
    assert rollup(snap).tripped == []  # healthy: 20 of 30 kW
    r = rollup(snap, failed=frozenset({2}))
    assert [(k, i) for k, i, _ in r.tripped] == [("utility", 1)]
    assert r.racks_without_power == {10, 11, 20, 21}
    cascades = {(f.device_kind, f.device_id) for f in redundancy_check(snap) if f.effect == "cascade"}
    assert ("power", 2) in cascades and ("utility", 2) in cascades
    hit = impact(snap, 2, "power").as_dict()
    assert hit["tripped"][0] | {"reason": ""} == {"kind": "utility", "id": 1, "name": "U1", "reason": ""}
    assert hit["gpus_lost"] == hit["gpus"]["usable_before"]


def test_a_rack_marked_failed_draws_nothing_and_is_down_at_design():
    # R10 failed: dark like a rack behind an offline PDU (it read as running). H1 then runs 10 kW, not 20;
    # its heat stays the design's; the inventory's devices do not count the stand-ins its feeds hang from
    from campus.analysis.redundancy import down_at_design
    from campus.analysis.summary import campus_summary

    snap = two_halls(crah_kw=(100.0, 100.0))
    failed = operating(
        replace(snap, racks=tuple(replace(r, status="failed") if r.id == 10 else r for r in snap.racks))
    )
    assert 10 in rollup(failed).racks_without_power
    assert down_at_design(failed)["power"]["racks"] == [10]
    power = campus_summary(failed)["power"]
    assert power["it_mw"] == pytest.approx(0.030) and power["design_it_mw"] == pytest.approx(0.040)
    assert campus_summary(failed)["inventory"]["power_devices"] == len(snap.power_devices)
