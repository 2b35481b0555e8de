"""Rack feeds bind the failover headroom (worked by hand).

``two_n((10, 10))``: racks R1 and R2 of 10 kW, each fed A from PDU 11 and B from PDU 12 (rated 100 kW,
``max_utilization`` 0.8, so a 80 kW limit), UPSs of 1,000 kW, no other IT. Added hall load is placed like
today's: half on each rack. With side B lost, PDU 11 carries 20 kW: the PDUs allow 80 − 20 = 60 kW more.
A rack feed's planning limit is its rating × the feeding PDU's 0.8; with the other side lost it carries the
whole rack, 10 kW, and half of every added kW.
"""

from __future__ import annotations

import pytest

from campus.analysis.headroom import failover_headroom
from campus.analysis.redundancy import redundancy_check
from campus.analysis.stranded import stranded_capacity
from tests.analysis.builders import replace, two_n


def test_rack_feeds_of_30_kw_bind_before_the_pdus():
    # limit 30 x 0.8 = 24 kW, 10 carried with a side lost: (24 - 10) / 0.5 = 28 kW < the PDUs' 60
    h = failover_headroom(two_n((10, 10), feed_rating_kw=30.0))
    hall = h.halls[1]
    assert hall.headroom_kw == pytest.approx(28.0)
    assert hall.binding_kind == "feed"
    assert hall.binding_id == 101  # R1's A feed: the first of the four equal feeds by id
    assert hall.binding_name == "PDU-11 -> R1 (A)"
    assert hall.binding_failure.kind == "power" and hall.binding_failure.id in (2, 12)  # side B's UPS or PDU
    assert h.campus.headroom_kw == pytest.approx(28.0)
    assert hall.chain_headroom_kw == pytest.approx(60.0)


def test_a_feed_below_its_rack_load_after_failover_gives_negative_headroom_and_cascades():
    # R1's A feed rated 10 kW: limit 8; it carries 5 healthy, 10 with side B lost: (8 - 10) / 0.5 = -4 kW
    snap = two_n((10, 10))
    feeds = tuple(replace(f, rating_kw=10.0) if f.id == 101 else f for f in snap.power_feeds)
    snap = replace(snap, power_feeds=feeds)
    h = failover_headroom(snap)
    assert h.halls[1].headroom_kw == pytest.approx(-4.0)
    assert (h.halls[1].binding_kind, h.halls[1].binding_id) == ("feed", 101)
    # the failures that put 10 kW on a 10 kW-rated feed do not trip it (trip: above the rating); the
    # planning limit is what the headroom holds to. A 9 kW rating trips: the redundancy check's cascades
    tripping = replace(
        snap, power_feeds=tuple(replace(f, rating_kw=9.0) if f.id == 101 else f for f in feeds)
    )
    assert failover_headroom(tripping).halls[1].headroom_kw == pytest.approx((7.2 - 10) / 0.5)
    cascades = {(f.device_kind, f.device_id) for f in redundancy_check(tripping) if f.effect == "cascade"}
    assert cascades == {("utility", 2), ("power", 2), ("power", 12)}
    # stranded capacity keeps the feeds as its rack-level constraint: the hall's upstream cap is the
    # devices' own 60 kW beyond today's 20
    assert stranded_capacity(snap).halls[1].limits_kw["upstream"] == pytest.approx(80.0)
