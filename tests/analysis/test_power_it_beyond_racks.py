"""The network and the allowance ride the power chain beside the racks: hand calculations on one hall, two
racks, one switch."""

from __future__ import annotations

import pytest

from campus.analysis.energy import it_breakdown
from campus.analysis.heat import heat_map
from campus.analysis.power import rollup
from tests.analysis.builders import SwitchSnap, UtilityFeedSnap, campus, device, feed, rack, replace

UPS_EFF = 0.95


def one_hall(other_it_fraction: float):
    """Utility 1 -> UPS 1 (efficiency 0.95) -> PDU-A 2 and PDU-B 3 (lossless) -> racks 1 (10 toy nodes,
    10 kW) and 2 (30 nodes, 30 kW), each fed A and B; one QM9700 in rack 1, no links."""
    return campus(
        other_it_fraction=other_it_fraction,
        racks=(rack(1, 10), rack(2, 30)),
        switches=(SwitchSnap(1, "LEAF", None, "leaf", "qm9700", 1, None, 1),),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0),),
        power_devices=(
            device(1, "ups", 1000.0, efficiency=UPS_EFF, utility_feed_id=1),
            device(2, "pdu", 1000.0),
            device(3, "pdu", 1000.0),
        ),
        power_feeds=(
            feed(1, dev=2, side="A"),
            feed(1, dev=3, side="B"),
            feed(2, rack=1, side="A"),
            feed(3, rack=1, side="B"),
            feed(2, rack=2, side="A"),
            feed(3, rack=2, side="B"),
        ),
    )


def test_the_ups_draws_servers_switch_and_other_it_by_hand():
    # Servers: 10 + 30 = 40 kW (toy node: 8 x 100 W GPUs + 200 W = 1 kW). The QM9700 with no links draws
    # its copper figure, 747 W = 0.747 kW.
    # f = 0: IT = servers + switch = 40.747 kW; UPS input = 40.747 / 0.95 = 42.891579 kW.
    # f = 0.1: the allowance for what is not inventoried is 40 x 0.1 / 0.9 = 4.444444 kW and the inventoried
    # switch adds its own 0.747 kW: IT = 45.191444 kW; UPS input = 45.191444 / 0.95 = 47.569941 kW.
    for f, ups_in_kw in ((0.0, 42.891579), (0.1, 47.569941)):
        snap = one_hall(f)
        r = rollup(snap)
        assert r.device_load_kw[1] == pytest.approx(ups_in_kw, abs=1e-6)
        assert r.utility_load_kw[1] == pytest.approx(ups_in_kw, abs=1e-6)
        assert r.device_load_kw[1] * UPS_EFF == pytest.approx(it_breakdown(snap).it_kw, abs=1e-6)
        assert r.device_load_kw[1] * UPS_EFF == pytest.approx(heat_map(snap).it_kw, abs=1e-6)


def test_rack_feeds_carry_the_racks_own_load_and_the_pdus_the_hall_network_and_allowance():
    # f = 0.1: the racks' feeds carry their own IT, split A/B: rack 1 10 kW (5 per side), rack 2 30 kW.
    # Beside them the hall's switch (0.747 kW) and allowance (40 x 0.1 / 0.9 = 4.444444 kW), 5.191444 kW,
    # half on each PDU: PDU-A delivers 5 + 15 + 2.595722 = 22.595722 kW.
    snap = one_hall(0.1)
    r = rollup(snap)
    assert r.rack_side_load_kw(snap, 1) == pytest.approx({"A": 5.0, "B": 5.0}, abs=1e-9)
    assert r.rack_side_load_kw(snap, 2) == pytest.approx({"A": 15.0, "B": 15.0}, abs=1e-9)
    assert r.device_output_kw[2] == pytest.approx(22.595722, abs=1e-6)
    assert r.it_beside_racks_kw == pytest.approx({("hall", 1): 5.191444}, abs=1e-6)
    # PDU-B lost: PDU-A carries both racks whole and all of the hall's network and allowance, 45.191444 kW
    lost = rollup(snap, failed=frozenset({3}))
    assert lost.device_load_kw[2] == pytest.approx(45.191444, abs=1e-6)
    assert lost.rack_side_load_kw(snap, 1) == pytest.approx({"A": 10.0, "B": 0.0}, abs=1e-9)
    # racks shed to half their IT: the servers draw 20 kW, the allowance follows them (20 x 0.1 / 0.9 =
    # 2.222222) and the switch stays at 0.747 kW: UPS input (20 + 0.747 + 2.222222) / 0.95 = 24.178129 kW
    half = rollup(snap, rack_load_kw={1: 5.0, 2: 15.0})
    assert half.device_load_kw[1] == pytest.approx(24.178129, abs=1e-6)


def test_a_switch_placed_nowhere_is_carried_by_the_halls_and_follows_given_rack_loads():
    # The same QM9700 with no hall and no rack is the campus's: its 0.747 kW goes to the one hall with fed
    # racks, beside them, so the UPS draws what it drew with the switch in rack 1, 47.569941 kW; the racks
    # given their own loads from outside (the scenarios' path) put the same IT beside them.
    snap = one_hall(0.1)
    nowhere = replace(snap, switches=(replace(snap.switches[0], rack_id=None),))
    r = rollup(nowhere)
    assert r.device_load_kw[1] == pytest.approx(47.569941, abs=1e-6)
    assert r.it_beside_racks_kw == pytest.approx({("hall", 1): 5.191444}, abs=1e-6)
    given = rollup(nowhere, rack_load_kw={1: 10.0, 2: 30.0})
    assert given.device_load_kw[1] == pytest.approx(47.569941, abs=1e-6)
    assert given.it_beside_racks_kw == pytest.approx({("hall", 1): 5.191444}, abs=1e-6)
