"""N, N+1 and 2N told apart (docs/model.md, "Achieved redundancy"), checked against impact mode.

The truth comes from outside the pair search: every element of a domain failed alone and every pair of them
failed together through ``impact`` (impact mode's compound failure, no marks, no pruning). A rack is N when a
single failure loses it, N+1 when no single failure but some pair does, else 2N; a domain achieves its
worst rack. Hand-built chains pin the definitions: one path is N, an A/B pair of single paths (each side
able to carry everything, one UPS each) is N+1 (UPS A out for maintenance, then UPS B fails: the racks go
dark), and A/B with two UPS in parallel on each side is 2N. A hypothesis search over perturbed generated
campuses (ratings cut so that failures cascade, feeds removed) finds the pruned search equal to every pair.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.analysis.impact import impact
from campus.analysis.power import baseline_rollup, power_graph
from campus.analysis.redundancy import DOMAIN_OF_KIND, redundancy_elements
from campus.analysis.redundancy_levels import (
    candidate_pairs,
    domain_level,
    full_marks,
    pair_search,
    redundancy_levels,
    series_representatives,
)
from campus.analysis.snapshot import CoolingUnitSnap
from campus.interchange.generate import generate_spec
from tests.analysis.builders import UtilityFeedSnap, campus, device, feed, rack, two_n
from tests.analysis.spec_snapshot import spec_snapshot

SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}
DESIGNS = [
    {"cooling": "air", "power_redundancy": "N", "cooling_redundancy": "N"},
    {"cooling": "air", "power_redundancy": "2N", "cooling_redundancy": "2N"},
    {"cooling": "liquid", "power_redundancy": "N+1", "cooling_redundancy": "N+1"},
    {"cooling": "liquid", "power_redundancy": "2N", "cooling_redundancy": "2N"},
]


def _lost(snap, elements) -> set[int]:
    im = impact(snap, failed=elements)
    return set(im.racks_lost_both) | set(im.racks_lost_cooling)


def brute_force_levels(snap, domain: str) -> dict[int, str]:
    """Every single of the domain's elements and every pair holding one of them (the other of either
    domain) failed through impact mode; a pair counts for the racks neither of its elements loses alone."""
    g = power_graph(snap)
    # racks with GPUs or IT load count (storage and network racks stop the jobs too)
    gpus = {r for r in g.racks if g.rack_gpu_count.get(r, 0) > 0 or g.load_kw.get(r, 0.0) > 0}
    if domain == "cooling":  # racks without power at design are the power chain's
        gpus -= set(baseline_rollup(snap).racks_without_power)
    every = [(k, i) for k, i, _ in redundancy_elements(snap)]
    ours = {el for el in every if DOMAIN_OF_KIND[el[0]] == domain}
    alone = {el: _lost(snap, [el]) for el in every}
    one = set()
    for el in ours:
        one |= alone[el]
    two = set()
    for a, b in combinations(every, 2):
        if a in ours or b in ours:
            two |= _lost(snap, [a, b]) - alone[a] - alone[b]
    # racks down with nothing failed (no power, or powered and without cooling) are N whatever fails
    if domain == "power":
        down = set(baseline_rollup(snap).racks_without_power)
    else:
        down = set(impact(snap, failed=[every[0]]).racks_uncooled_at_design) if every else set()
    level = {}
    for r in gpus:
        level[r] = "N" if r in one or r in down else ("N+1" if r in two else "2N")
    return level


def _generated():
    for p in DESIGNS:
        yield pytest.param(spec_snapshot(generate_spec("P", 256, **p, **SMALL)), id="-".join(p.values()))


@pytest.mark.parametrize("snap", list(_generated()))
@pytest.mark.parametrize("domain", ["power", "cooling"])
def test_levels_equal_every_single_and_pair_failed_through_impact_mode(snap, domain):
    got = domain_level(snap, domain)
    expected = brute_force_levels(snap, domain)
    assert got.rack_level == expected
    assert got.achieved == min(expected.values(), key=["N", "N+1", "2N"].index)
    # the search failed together only some of the pairs
    assert got.pairs_checked <= got.pairs_total


def test_one_path_is_n():
    # utility 1 -> UPS 1 -> PDU 11 -> both racks (one feed each): the UPS alone loses every GPU
    snap = campus(
        racks=(rack(1, 10), rack(2, 10)),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0),),
        power_devices=(device(1, "ups", 1000.0, utility_feed_id=1), device(11, "pdu", 100.0)),
        power_feeds=(feed(1, dev=11, fid=1), feed(11, rack=1, fid=101), feed(11, rack=2, fid=102)),
        power_redundancy="2N",
    )
    level = domain_level(snap, "power")
    assert level.achieved == "N"
    assert {s["element"]["name"] for s in level.single_failures} >= {"UPS-1", "PDU-11"}
    assert level.as_dict()["gpus_at_risk"] == 160  # 2 racks x 10 toy servers x 8 GPUs
    assert not level.meets_declared


def test_an_a_b_pair_of_single_paths_is_n_plus_1_not_2n():
    # two_n: U1 -> UPS 1 -> PDU 11 (A), U2 -> UPS 2 -> PDU 12 (B), each rack on both. Any one out: the other
    # side carries 20 kW on 100 kW PDUs. UPS 1 out for maintenance, then UPS 2 fails: both racks dark.
    snap = replace(two_n(), power_redundancy="2N")
    level = domain_level(snap, "power")
    assert level.single_failures == []
    assert level.achieved == "N+1"
    a_side = {"U1", "UPS-1", "PDU-11"}
    b_side = {"U2", "UPS-2", "PDU-12"}
    pairs = {frozenset((p["maintenance"]["name"], p["failure"]["name"])) for p in level.pairs}
    # every A element with every B element: 3 x 3 pairs, each losing all 160 GPUs
    assert pairs == {frozenset((a, b)) for a in a_side for b in b_side}
    assert level.pairs_count == 9 and {p["gpus_lost"] for p in level.pairs} == {160}
    (hall,) = level.groups
    assert (hall.name, hall.achieved, hall.gpus, hall.gpus_at_risk) == ("H1", "N+1", 160, 160)


def test_a_b_with_two_ups_in_parallel_on_each_side_is_2n():
    # Each side: its utility -> two 1,000 kW UPS in parallel (both feed the side's PDU) -> PDU; each rack on
    # both PDUs. Any two of the UPSs out leave a path; a PDU is one element per side, so PDU 11 out and
    # PDU 12 failed still darken the racks: the PDUs are doubled too (PDU 11, 13 on A; 12, 14 on B).
    racks = (rack(1, 10), rack(2, 10))
    devices = (
        device(1, "ups", 1000.0, utility_feed_id=1),
        device(3, "ups", 1000.0, utility_feed_id=1),
        device(2, "ups", 1000.0, utility_feed_id=2),
        device(4, "ups", 1000.0, utility_feed_id=2),
        device(11, "pdu", 100.0),
        device(13, "pdu", 100.0),
        device(12, "pdu", 100.0),
        device(14, "pdu", 100.0),
    )
    feeds = [
        feed(1, dev=11, side="A"),
        feed(3, dev=11, side="A"),
        feed(1, dev=13, side="A"),
        feed(3, dev=13, side="A"),
        feed(2, dev=12, side="B"),
        feed(4, dev=12, side="B"),
        feed(2, dev=14, side="B"),
        feed(4, dev=14, side="B"),
    ]
    for r in racks:
        for pdu, side in ((11, "A"), (13, "A"), (12, "B"), (14, "B")):
            feeds.append(feed(pdu, rack=r.id, side=side))
    snap = campus(
        racks=racks,
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0), UtilityFeedSnap(2, "U2", 5000.0)),
        power_devices=devices,
        power_feeds=tuple(feeds),
        power_redundancy="2N",
    )
    level = domain_level(snap, "power")
    # U1 out, then U2 fails: nothing left above the UPSs; that pair alone keeps the chain from 2N
    pairs = {frozenset((p["maintenance"]["name"], p["failure"]["name"])) for p in level.pairs}
    assert pairs == {frozenset(("U1", "U2"))}
    assert level.achieved == "N+1"
    # with a standby generator beside each utility the top holds too: 2N
    gens = (device(21, "generator", 1000.0), device(22, "generator", 1000.0))
    gen_feeds = [feed(21, dev=d, side="A") for d in (1, 3)] + [feed(22, dev=d, side="B") for d in (2, 4)]
    snap2 = replace(snap, power_devices=devices + gens, power_feeds=tuple(feeds + gen_feeds))
    level2 = domain_level(snap2, "power")
    assert brute_force_levels(snap2, "power") == level2.rack_level
    assert level2.achieved == "2N", level2.pairs
    assert level2.pairs_count == 0 and level2.meets_declared


def _perturbed(snap, cuts: list[float], drop: list[int]):
    """Ratings of the power devices scaled by ``cuts`` (in turn), and the rack feeds at ``drop`` removed."""
    devices = tuple(
        replace(d, rated_kw=d.rated_kw * cuts[i % len(cuts)]) for i, d in enumerate(snap.power_devices)
    )
    rack_feeds = [f for f in snap.power_feeds if f.rack_id is not None]
    gone = {rack_feeds[i % len(rack_feeds)].id for i in drop}
    return replace(
        snap, power_devices=devices, power_feeds=tuple(f for f in snap.power_feeds if f.id not in gone)
    )


BASES = [spec_snapshot(generate_spec("P", 128, **p, **SMALL)) for p in DESIGNS[1:]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(range(len(BASES))),
    cuts=st.lists(st.sampled_from([0.3, 0.5, 0.6, 0.8, 1.0, 1.0, 1.0]), min_size=1, max_size=6),
    drop=st.lists(st.integers(0, 50), max_size=3),
)
def test_the_pruned_pair_search_equals_every_pair(base, cuts, drop):
    snap = _perturbed(BASES[base], cuts, drop)
    for domain in ("power", "cooling"):
        pruned = domain_level(snap, domain)
        every = domain_level(snap, domain, prune=False)
        assert pruned.rack_level == every.rack_level
        assert pruned.pairs_count == every.pairs_count


def test_levels_are_kept_with_the_snapshot():
    snap = BASES[0]
    assert redundancy_levels(snap)["power"] is redundancy_levels(snap)["power"]


def _units_on_a_side(b_side_units: int = 1):
    """two_n (racks of 10 kW on PDU 11 (A) and PDU 12 (B)) with one group of 50 kW CRAHs cooling them: two
    on PDU 11, ``b_side_units`` on PDU 12. Any one or two units failed leave 50 kW or more for 20 kW."""

    def unit(uid: int, pdu: int) -> CoolingUnitSnap:
        return CoolingUnitSnap(uid, f"CRAH-{uid}", "crah", 50.0, 18.0, 30.0, 0.0, None, pdu, 1, group="g")

    units = [unit(21, 11), unit(22, 11)] + [unit(23 + n, 12) for n in range(b_side_units)]
    snap = two_n(power_redundancy="2N", cooling_redundancy="2N")
    racks = tuple(replace(r, cooling_type="air", cooling_unit_id=21) for r in snap.racks)
    return replace(snap, racks=racks, cooling_units=tuple(units))


def test_a_unit_failing_while_the_other_sides_feed_is_out_is_a_pair_of_both_domains():
    # PDU 11 out for maintenance stops CRAH-21 and CRAH-22 (their only supply); CRAH-23 then fails: no
    # cooling. No two units alone do that (50 kW left), so within the cooling domain the group reads 2N.
    snap = _units_on_a_side()
    level = domain_level(snap, "cooling")
    assert level.single_failures == []
    assert level.achieved == "N+1"
    pairs = {(p["maintenance"]["name"], p["failure"]["name"]) for p in level.pairs}
    # everything above CRAH-21 and CRAH-22 on the A side, each with CRAH-23
    assert pairs == {("U1", "CRAH-23"), ("UPS-1", "CRAH-23"), ("PDU-11", "CRAH-23")}
    assert level.rack_level == brute_force_levels(snap, "cooling")
    # the power domain counts the same pairs (its level is N+1 already: A and B out darken every rack)
    power = domain_level(snap, "power")
    assert pairs <= {(p["maintenance"]["name"], p["failure"]["name"]) for p in power.pairs}
    assert power.rack_level == brute_force_levels(snap, "power")


def test_a_second_unit_on_the_b_side_makes_the_cooling_2n_across_domains():
    snap = _units_on_a_side(b_side_units=2)
    level = domain_level(snap, "cooling")
    assert level.achieved == "2N", level.pairs
    assert level.rack_level == brute_force_levels(snap, "cooling")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(range(len(BASES))),
    cuts=st.lists(st.sampled_from([0.3, 0.5, 0.8, 1.0, 1.0]), min_size=1, max_size=4),
    drop=st.lists(st.integers(0, 50), max_size=2),
    domain=st.sampled_from(["power", "cooling"]),
)
def test_levels_by_pairs_equal_both_elements_failed_through_impact_mode(base, cuts, drop, domain):
    snap = _perturbed(BASES[base], cuts, drop)
    assert domain_level(snap, domain).rack_level == brute_force_levels(snap, domain)


def test_a_device_in_series_above_another_fails_in_every_pair_as_that_one_does():
    # the generator's 2N design: each block's switchgear feeds one UPS module, its only input. Failed
    # through impact mode, every pair with the switchgear loses what the same pair with its UPS loses (the
    # rule the search dedupes by).
    snap = BASES[0]
    every = [(k, i) for k, i, _ in redundancy_elements(snap)]
    series = [
        (d, every[r])
        for d, r in zip(every, series_representatives_of(snap, every), strict=True)
        if d != every[r]
    ]
    assert series, "the 2N design has switchgear in series above UPS modules"
    for upper, lower in series[:2]:
        for other in every:
            if other in (upper, lower):
                continue
            assert _lost(snap, [upper, other]) == _lost(snap, [lower, other]), (upper, lower, other)
        assert _lost(snap, [upper, lower]) == _lost(snap, [lower])


def series_representatives_of(snap, every):
    return series_representatives(snap, power_graph(snap), every)


@pytest.mark.parametrize("snap", BASES)
def test_a_domains_pairs_are_those_of_the_whole_search_holding_one_of_its_elements(snap):
    search = pair_search(snap)
    every = candidate_pairs(full_marks(snap), search.room)
    for domain in ("power", "cooling"):
        mine = {n for n, (kind, _) in enumerate(search.elements) if DOMAIN_OF_KIND[kind] == domain}
        assert set(search.candidates(domain)) == {(i, j) for i, j in every if i in mine or j in mine}
