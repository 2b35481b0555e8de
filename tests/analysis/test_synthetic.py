"""The synthetic 2N campus is sound by construction: enough GPUs, both sides, no single points."""

from __future__ import annotations

import pytest

from campus.analysis.fabric import fabric_from_inventory
from campus.analysis.impact import impact
from campus.analysis.power import power_graph, rollup
from campus.analysis.redundancy import redundancy_check
from campus.analysis.synthetic import synthetic_campus


@pytest.fixture(scope="module")
def snap():
    return synthetic_campus(20_000)


def test_holds_at_least_the_requested_gpus_in_whole_racks(snap):
    gpus = sum(sum(snap.rack_gpus(r).values()) for r in snap.racks)
    assert 20_000 <= gpus < 20_000 + 32
    assert len(snap.buildings) == 2


def test_every_rack_has_an_a_and_a_b_feed_and_runs_untripped(snap):
    g = power_graph(snap)
    for r in snap.racks:
        assert sorted(g.feeds[f].side for f in g.rack_feeds[r.id]) == ["A", "B"]
    result = rollup(snap)
    assert result.tripped == [] and not result.racks_without_power


def test_no_single_power_device_loss_trips_or_darkens_anything(snap):
    assert redundancy_check(snap) == []


def test_a_ups_loss_moves_its_hall_to_side_b_without_losing_gpus(snap):
    ups = next(d for d in snap.power_devices if d.kind == "ups")
    im = impact(snap, ups.id)
    assert im.gpus_lost_a > 0 and im.usable_gpus_after == im.usable_gpus_before


def test_fabric_spans_islands_with_a_campus_layer(snap):
    f = fabric_from_inventory(snap)
    assert f.tiers == 4  # 16,384-GPU islands need 3 tiers of radix 64, plus the super-spine
    assert f.pods[-1].pod_id is None and f.pods[-1].switches > 0
    assert sum(p.gpus for p in f.pods) == 20_000 + (-20_000) % 32
