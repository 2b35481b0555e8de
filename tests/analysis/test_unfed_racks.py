"""A rack with a load and no power feed is dark in every view (hand-worked on a toy 2N campus).

The campus: ``two_n((10, 10))``, racks R1 and R2 of 10 toy nodes each (10 kW, 80 GPUs each, fed A from PDU 11
and B from PDU 12), plus R3 with 2 toy nodes (2 kW, 16 GPUs) and no feed at all. Nothing carries R3, so it
is dark before any failure: 160 of the 176 GPUs are usable, and a failure can only take R1's and R2's.
"""

from __future__ import annotations

from campus.analysis.cards import rack_metrics
from campus.analysis.failures import fail
from campus.analysis.impact import impact, racks_lost
from campus.analysis.power import outage, rollup
from campus.analysis.redundancy import redundancy_check, unfed_racks
from campus.analysis.summary import campus_summary
from tests.analysis.builders import rack, replace, two_n


def _campus():
    base = two_n((10, 10))
    return replace(base, racks=(*base.racks, rack(3, 2)))


def test_a_loaded_rack_without_feeds_is_dark_in_the_roll_up_and_the_floor_map():
    snap = _campus()
    chain = rollup(snap)
    assert chain.racks_without_power == {3}
    assert chain.unfed_racks == {3}
    powered = {r["id"]: r["powered"] for r in rack_metrics(snap)}
    assert powered == {1: True, 2: True, 3: False}
    # its 2 kW reach no device: the PDUs carry R1's and R2's 20 kW, 10 kW a side
    assert chain.device_load_kw[11] == 10.0
    assert chain.device_load_kw[12] == 10.0


def test_its_gpus_are_never_usable_and_no_failure_loses_them():
    snap = _campus()
    one = impact(snap, failed=[("utility", 1)])
    # 176 GPUs in all, R3's 16 dark: 160 usable before; U1 lost, R1 and R2 stay on side B
    assert (one.usable_gpus_before, one.usable_gpus_after) == (160, 160)
    both = impact(snap, failed=[("utility", 1), ("utility", 2)])
    assert both.usable_gpus_after == 0
    assert both.racks_lost_both == [1, 2]  # R3 was dark before: the failure does not lose it
    assert both.gpus_lost_power == 160
    assert fail(snap, [("power", 11), ("power", 12)]).racks_lost_power == {1, 2}
    assert racks_lost(snap, 1, "utility") == set()
    dark, _ = outage(snap, frozenset({11, 12}))
    assert dark == {1, 2, 3}


def test_it_is_listed_apart_from_the_failure_findings_and_counted_in_the_summary():
    snap = _campus()
    assert unfed_racks(snap) == [{"id": 3, "name": "R3", "hall_id": 1, "gpus": 16, "fed_kw": 2.0}]
    assert redundancy_check(snap) == []  # 2N: no single failure costs a GPU
    power = campus_summary(snap)["power"]
    assert (power["racks_without_power"], power["unfed_racks"]) == (1, 1)


def test_an_empty_rack_without_feeds_is_an_empty_position_not_a_dark_rack():
    base = two_n((10, 10))
    snap = replace(base, racks=(*base.racks, rack(3, 0)))
    assert rollup(snap).racks_without_power == set()
    assert unfed_racks(snap) == []
