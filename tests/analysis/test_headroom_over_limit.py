"""Headroom when an element is already over its limit (worked by hand).

The campus: ``test_placement.two_halls()`` with ``other_it_fraction`` 0.1. Each hall has two 10 kW toy racks
(servers only), so the campus has 40 kW of servers and 40 × 0.1 / 0.9 = 4.444 kW of other IT, spread over
the halls by their servers (½ each, 2.222 kW) and within a hall over its racks (1.111 kW each). H2's PDUs
are re-rated to 20 kW (limit 16): with a side lost one PDU carries the hall's 22.222 kW, 6.222 kW over.

One kW of IT added to a hall brings 1/9 kW of other IT, half of it in each hall: H2's PDU takes 1.0556 kW
per kW added to H2 and 0.0556 kW per kW added to H1 (its share of the campus' other IT), 0.5556 per kW
added to the campus (½ in each hall).

* H2 must shed 6.222 / 1.0556 = 5.895 kW (check: 14.105 kW of racks + (40 − 5.895) / 9 / 2 = 16.0);
* the campus (and its one building) 6.222 / 0.5556 = 11.2 kW, half in each hall (14.4 + 3.2 / 2 = 16.0);
* H1 reaches H2's PDU only through the other IT: it would have to shed 6.222 / 0.0556 = 112 kW, more than
  its 20 kW, so it cannot bring the PDU back and can add nothing without adding to it: 0, bound by it. The
  old figure was −112 kW, and stranded capacity read the whole hall as stranded by it.
"""

from __future__ import annotations

import pytest

from campus.analysis.headroom import failover_headroom
from campus.analysis.stranded import stranded_capacity
from tests.analysis.builders import replace
from tests.analysis.test_placement import two_halls

OVER = 16.0 - (20.0 + 40.0 / 9.0 / 2.0)  # H2's PDU with a side lost: -6.222 kW
PER_KW_H2 = 1.0 + 1.0 / 9.0 / 2.0
PER_KW_H1 = 1.0 / 9.0 / 2.0


def _over() -> object:
    return two_halls(pdu_kw=(40.0, 20.0), other_it_fraction=0.1)


def test_the_scope_that_overloads_an_element_sheds_and_a_scope_that_cannot_bring_it_back_gets_zero():
    h = failover_headroom(_over())
    assert h.devices[21].headroom_kw == pytest.approx(OVER)
    h2 = h.halls[2]
    assert h2.headroom_kw == pytest.approx(OVER / PER_KW_H2)  # -5.895
    assert h2.headroom_kw == pytest.approx(-5.8947, abs=1e-4)
    assert (h2.binding_kind, h2.binding_id) == ("pdu", 21)
    for row in (h.buildings[1], h.campus):
        assert row.headroom_kw == pytest.approx(OVER / (0.5 * PER_KW_H2 + 0.5 * PER_KW_H1))  # -11.2
        assert row.headroom_kw == pytest.approx(-11.2)
    h1 = h.halls[1]
    assert OVER / PER_KW_H1 < -h1.it_kw  # -112 kW: more than H1 carries
    assert h1.headroom_kw == 0.0
    assert (h1.binding_kind, h1.binding_id) == ("pdu", 21)


def test_a_rack_feed_over_its_limit_binds_its_own_hall_and_leaves_the_other_at_zero():
    # R20 (H2) fed by two 10 kW feeds (limit 8): with a side lost one carries its 10 + 1.111 kW: 3.111 over.
    # Per kW added to H2 it takes half (its share of the hall) + 1/9 x 1/2 x 1/2 of other IT = 0.5278;
    # per kW added to H1 only the other IT: 0.0278, so H1 would shed 112 kW: 0.
    snap = two_halls(other_it_fraction=0.1)
    feeds = tuple(replace(f, rating_kw=10.0) if f.rack_id == 20 else f for f in snap.power_feeds)
    h = failover_headroom(replace(snap, power_feeds=feeds))
    over = 8.0 - (10.0 + 40.0 / 9.0 / 4.0)
    assert h.halls[2].headroom_kw == pytest.approx(over / (0.5 + 1.0 / 36.0))
    assert h.halls[2].binding_kind == "feed"
    assert h.halls[1].headroom_kw == 0.0
    assert h.halls[1].binding_kind == "feed"
    # the campus places ½ in each hall: R20 takes 0.25 + 1/36 per kW, and can shed 11.2 kW
    assert h.campus.headroom_kw == pytest.approx(over / (0.25 + 1.0 / 36.0))


def test_an_exhausted_grid_gives_a_scope_too_small_to_relieve_it_zero():
    # the racks' feeds carry 44.444 kW; a 48 kW connection at PUE 1.2 allows 40: 4.444 kW of feeds over,
    # 4.444 / (1 + 1/9) = 4 kW of rack IT. Every hall carries 20 kW: each can shed it, so -4 everywhere
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
# Each toy rack holds 10 kW of servers and its feeds carry 11.111 kW (its share of the other IT); its
# design_kw 20 lets them carry 20 x 1.111 = 22.222 kW. Each hall's feeds carry 22.222 kW today, its racks
# could carry 44.444.
FED_HALL = 20.0 * 10.0 / 9.0
RACKS_HALL = 2 * 20.0 * 10.0 / 9.0


def test_an_element_over_its_limit_strands_what_is_above_todays_load_and_no_more():
    s = stranded_capacity(_over())
    for hall in (1, 2):
        row = s.halls[hall]
        assert row.usable_kw == pytest.approx(FED_HALL)  # H1 was 0 (-112 kW x 1.111 below today)
        assert row.stranded_by_constraint_kw["upstream"] == pytest.approx(RACKS_HALL - FED_HALL)
        assert row.binding_device["id"] == 21
    for row in (s.buildings[1], s.campus):
        assert row.usable_kw == pytest.approx(2 * FED_HALL)
        assert row.stranded_by_constraint_kw["upstream"] == pytest.approx(2 * (RACKS_HALL - FED_HALL))


def test_a_shared_device_over_its_limit_is_not_counted_once_per_hall_at_their_parent():
    # UPS-1 (side A of both halls) re-rated 50 kW (limit 40): with side B lost it carries the campus' 44.444
    # kW, 4.444 over. Each hall alone would shed 4.444 / 1.111 = 4 kW, so would the building: one overload.
    # Summing the halls' shed loads counted it twice (the building read 35.556 kW usable, not 40 or 44.444)
    snap = two_halls(other_it_fraction=0.1)
    snap = replace(
        snap, power_devices=tuple(replace(d, rated_kw=50.0) if d.id == 1 else d for d in snap.power_devices)
    )
    h = failover_headroom(snap)
    for row in (*h.halls.values(), h.buildings[1], h.campus):
        assert row.headroom_kw == pytest.approx(-4.0)
        assert (row.binding_kind, row.binding_id) == ("ups", 1)
    s = stranded_capacity(snap)
    for row in s.halls.values():
        assert row.usable_kw == pytest.approx(FED_HALL)
    for row in (s.buildings[1], s.campus):
        assert row.usable_kw == pytest.approx(2 * FED_HALL)
        assert row.stranded_by_constraint_kw["upstream"] == pytest.approx(
            sum(m.stranded_by_constraint_kw["upstream"] for m in s.halls.values())
        )
