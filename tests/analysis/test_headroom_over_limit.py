"""Headroom and stranded capacity when an element is already over its limit (worked by hand).

The campus: ``test_placement.two_halls()`` with ``other_it_fraction`` 0.1. Each hall has two 10 kW toy racks
(servers only, no network, no extras), so the campus has 40 kW of servers and 40 × 0.1 / 0.9 = 4.444 kW of
allowance, placed by the halls' servers (2.222 kW each) beside the racks, on the PDUs feeding them (the
racks' own feeds carry their 10 kW). Servers installed in a hall bring 1/9 kW of allowance per kW into that
hall, so a kW added to a hall puts 1.111 kW on its PDUs (1 kW on the racks' feeds).

H2's PDUs are re-rated to 20 kW (limit 16): with a side lost one PDU carries the hall's 22.222 kW, 6.222
over. H1's PDUs (limit 32) carry 22.222 with a side lost: 9.778 kW left.

* H2 must shed 6.222 / 1.111 = 5.6 kW (check: 14.4 kW of servers + 14.4 / 9 = 16.0);
* H1 does not load H2's PDUs: its own 9.778 / 1.111 = 8.8 kW (28.8 + 3.2 = 32.0);
* the campus (and its one building) places ½ in each hall: H2's PDU takes 0.5556 kW per kW: it must shed
  6.222 / 0.5556 = 11.2 kW (14.4 + 1.6 = 16.0).
"""

from __future__ import annotations

import pytest

from campus.analysis.headroom import failover_headroom
from campus.analysis.stranded import stranded_capacity
from tests.analysis.builders import replace
from tests.analysis.test_placement import two_halls

PER_KW = 1.0 + 1.0 / 9.0
FED_HALL = 20.0  # what a hall's rack feeds carry today: its racks' own IT (the allowance is beside them)
RACKS_HALL = 2 * 20.0  # its two racks at their design_kw of 20: 40 kW


def _over():
    return two_halls(pdu_kw=(40.0, 20.0), crah_kw=(100.0, 100.0), other_it_fraction=0.1)


def test_the_hall_that_overloads_an_element_sheds_and_the_other_keeps_its_own_figure():
    h = failover_headroom(_over())
    assert h.devices[21].headroom_kw == pytest.approx(16.0 - 20.0 * PER_KW)  # racks and allowance
    assert h.halls[2].headroom_kw == pytest.approx(-5.6)
    assert (h.halls[2].binding_kind, h.halls[2].binding_id) == ("pdu", 21)
    assert h.halls[1].headroom_kw == pytest.approx(8.8)
    assert h.halls[1].binding_kind == "pdu" and h.halls[1].binding_id in (11, 12)
    for row in (h.buildings[1], h.campus):
        assert row.headroom_kw == pytest.approx(-11.2)
        # over the elements within their limit: H1's PDU takes 0.5556 kW per kW: 9.778 / 0.5556 = 17.6
        assert row.within_headroom_kw == pytest.approx(17.6)
        assert row.within_binding["id"] in (11, 12)


def test_a_scope_that_cannot_bring_an_element_back_by_shedding_all_it_has_gets_zero():
    # H1's racks hold one toy server each (1 kW), no other IT. UPS-1 (side A of both halls) re-rated 20 kW
    # (limit 16): with side B lost it carries 2 + 20 = 22 kW, 6 over, 1 kW per kW added anywhere. H2 and the
    # campus can shed 6 kW of their 20 and 22; H1 has 2: even all of it leaves the UPS 4 kW over, so H1 can
    # add nothing without adding to it: 0, bound by it (it read -6, more than it carries)
    snap = two_halls()
    racks = tuple(replace(r, nodes=(("toy8", 1),)) if r.hall_id == 1 else r for r in snap.racks)
    devices = tuple(replace(d, rated_kw=20.0) if d.id == 1 else d for d in snap.power_devices)
    h = failover_headroom(replace(snap, racks=racks, power_devices=devices))
    assert h.halls[1].it_kw == pytest.approx(2.0)
    assert h.halls[1].headroom_kw == 0.0
    assert (h.halls[1].binding_kind, h.halls[1].binding_id) == ("ups", 1)
    for row in (h.halls[2], h.campus):
        assert row.headroom_kw == pytest.approx(-6.0)
        assert (row.binding_kind, row.binding_id) == ("ups", 1)


def test_a_rack_feed_over_its_limit_binds_its_own_hall_only():
    # R20 (H2) fed by two 10 kW feeds (limit 8): with a side lost one carries the rack's own 10 kW, 2 over
    # (the hall's allowance is on its PDUs, beside the racks). Per kW added to H2 it takes half: 0.5;
    # H1 does not load it.
    snap = two_halls(other_it_fraction=0.1)
    feeds = tuple(replace(f, rating_kw=10.0) if f.rack_id == 20 else f for f in snap.power_feeds)
    h = failover_headroom(replace(snap, power_feeds=feeds))
    assert h.halls[2].headroom_kw == pytest.approx(-4.0)
    assert h.halls[2].binding_kind == "feed"
    assert h.halls[1].headroom_kw == pytest.approx(8.8)  # its own PDUs
    assert h.campus.headroom_kw == pytest.approx(-8.0)  # R20 takes a quarter of the campus's: 0.25


def test_an_exhausted_grid_gives_a_scope_too_small_to_relieve_it_zero():
    # the racks' feeds carry 44.444 kW; a 48 kW connection at PUE 1.2 allows 40: 4.444 kW of feeds over,
    # 4.444 / 1.111 = 4 kW of rack IT. Every hall carries 20 kW: each can shed it, so -4 everywhere
    h = failover_headroom(two_halls(other_it_fraction=0.1, grid_capacity_kw=48.0))
    for row in (*h.halls.values(), h.campus):
        assert row.headroom_kw == pytest.approx(-4.0)
        assert row.binding_kind == "grid"
    # 26 kW allows 21.667 kW of feeds: 22.778 over, 20.5 kW of IT, more than one hall's 20 kW
    h = failover_headroom(two_halls(other_it_fraction=0.1, grid_capacity_kw=26.0))
    for row in h.halls.values():
        assert (row.headroom_kw, row.binding_kind) == (0.0, "grid")
    assert h.campus.headroom_kw == pytest.approx(-20.5)


# ---------------------------------------------------------------- stranded capacity over such an element


def test_an_element_over_its_limit_strands_in_the_hall_loading_it_and_not_in_the_other():
    s = stranded_capacity(_over())
    h2, h1 = s.halls[2], s.halls[1]
    # H2 at today's load (it read 20 - 5.6 = 14.4 kW of rack IT, below what its racks draw today)
    assert h2.usable_kw == pytest.approx(FED_HALL)
    assert h2.stranded_by_constraint_kw["upstream"] == pytest.approx(RACKS_HALL - FED_HALL)
    assert h2.binding_device["id"] == 21
    # H1 by its own PDUs: 20 + 8.8 = 28.8 kW on its racks' feeds (their allowance on the PDUs beside them)
    assert h1.usable_kw == pytest.approx(28.8)
    assert h1.stranded_by_constraint_kw["upstream"] == pytest.approx(RACKS_HALL - 28.8)
    # the building and campus are their halls added up: H2's PDU does not hold H1 back
    for row in (s.buildings[1], s.campus):
        assert row.usable_kw == pytest.approx(FED_HALL + 28.8)
        assert row.stranded_by_constraint_kw["upstream"] == pytest.approx(2 * RACKS_HALL - FED_HALL - 28.8)


def test_a_shared_device_over_its_limit_is_not_counted_once_per_hall_at_their_parent():
    # UPS-1 (side A of both halls) re-rated 50 kW (limit 40): with side B lost it carries the campus's
    # 44.444 kW, 4.444 over. Each hall alone would shed 4.444 / 1.111 = 4 kW, so would the building: one
    # overload. Summing the halls' shed loads counted it twice (the building read 35.556 kW usable)
    snap = two_halls(other_it_fraction=0.1)
    devices = tuple(replace(d, rated_kw=50.0) if d.id == 1 else d for d in snap.power_devices)
    snap = replace(snap, power_devices=devices)
    h = failover_headroom(snap)
    for row in (*h.halls.values(), h.buildings[1], h.campus):
        assert row.headroom_kw == pytest.approx(-4.0)
        assert (row.binding_kind, row.binding_id) == ("ups", 1)
    s = stranded_capacity(snap)
    for row in s.halls.values():
        assert row.usable_kw == pytest.approx(FED_HALL)
    for row in (s.buildings[1], s.campus):
        assert row.usable_kw == pytest.approx(2 * FED_HALL)
        assert row.stranded_by_constraint_kw["upstream"] == pytest.approx(2 * (RACKS_HALL - FED_HALL))


def test_a_one_hall_building_reads_as_its_hall_with_an_element_over_its_limit():
    # one hall of two racks, its PDUs re-rated below today's load
    snap = two_halls(pdu_kw=(20.0, 50.0), crah_kw=(100.0, 100.0), other_it_fraction=0.1)
    keep = {r.id for r in snap.racks if r.hall_id == 1}
    snap = replace(
        snap,
        halls=snap.halls[:1],
        racks=tuple(r for r in snap.racks if r.id in keep),
        power_feeds=tuple(f for f in snap.power_feeds if f.rack_id is None or f.rack_id in keep),
        cooling_units=tuple(u for u in snap.cooling_units if u.hall_id == 1),
    )
    s = stranded_capacity(snap)
    hall, building, site = s.halls[1], s.buildings[1], s.campus
    assert hall.usable_kw == pytest.approx(FED_HALL * 1.0)
    for row in (building, site):
        assert row.as_dict() | {"scope": "hall", "id": 1} == hall.as_dict()


def test_a_scope_that_cannot_bring_an_element_back_in_one_failure_gets_zero_whatever_the_others():
    # H1's racks hold two toy servers each (4 kW), H2 20 kW, no other IT. UPS-2 (side B of both halls)
    # rated 16 kW (limit 12.8) carries 12 healthy; 4 + 10 = 14 with H1's PDU-A lost (1.2 over: H1 could
    # shed it); all 24 with UPS-1 lost (11.2 over: H1 cannot, it has 4). H1 is 0, bound by UPS-2: shedding
    # the 1.2 kW of the first failure leaves UPS-2 over in the second (it read -1.2)
    snap = two_halls()
    racks = tuple(replace(r, nodes=(("toy8", 2),)) if r.hall_id == 1 else r for r in snap.racks)
    devices = tuple(replace(d, rated_kw=16.0) if d.id == 2 else d for d in snap.power_devices)
    h = failover_headroom(replace(snap, racks=racks, power_devices=devices))
    assert h.devices[2].worst_load_kw == pytest.approx(24.0)
    assert h.halls[1].headroom_kw == 0.0
    assert (h.halls[1].binding_kind, h.halls[1].binding_id) == ("ups", 2)
    # named by the failure H1 cannot fix (UPS-1 lost), not "no failure" (it could fix the healthy margin)
    assert h.halls[1].binding_failure.as_dict() == {"kind": "power", "id": 1, "name": "UPS-1"}
    for row in (h.halls[2], h.campus):
        assert row.headroom_kw == pytest.approx(-11.2)
        assert row.binding_failure.as_dict()["id"] == 1


def test_the_zero_names_the_failure_the_scope_cannot_fix_even_when_the_healthy_chain_is_over():
    # as above with UPS-2 rated 14 kW (limit 11.2): healthy it carries 12 (0.8 over: H1 could shed 1.6 of
    # its 4 kW, at half a kW per kW), 24 with UPS-1 lost (12.8 over: it cannot). H1 reads 0 bound by UPS-2
    # after UPS-1's loss; it was named "no failure", the healthy overload it could have fixed
    snap = two_halls()
    racks = tuple(replace(r, nodes=(("toy8", 2),)) if r.hall_id == 1 else r for r in snap.racks)
    devices = tuple(replace(d, rated_kw=14.0) if d.id == 2 else d for d in snap.power_devices)
    h1 = failover_headroom(replace(snap, racks=racks, power_devices=devices)).halls[1]
    assert h1.headroom_kw == 0.0
    assert (h1.binding_kind, h1.binding_id) == ("ups", 2)
    assert h1.binding_failure.as_dict() == {"kind": "power", "id": 1, "name": "UPS-1"}
