"""Loads where they are: inventoried equipment adds its own draw, a rack's feeds carry that rack, and the
network and the allowance for what is not inventoried ride the chain beside the racks; Σ feeds = Σ loads at
every level and the heat is the IT power. Pure: generated specs as in-memory snapshots, no database.

Truth from outside the figures under test: catalog figures multiplied by hand (a QM9700 draws 747 W with
copper, datasheet; a GB200 NVL72 compute tray 4 x 1,200 W + 2,530 W), and the IT counted from the inventory
(``energy.it_breakdown``) against what the power chain carries and what the heat map places.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from campus.analysis.energy import it_breakdown
from campus.analysis.heat import heat_map
from campus.analysis.power import baseline_rollup, power_graph, rollup
from campus.analysis.snapshot import SwitchSnap
from campus.analysis.summary import campus_summary
from campus.interchange.generate import GeneratorError, generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

QM9700_COPPER_KW = 0.747  # NVIDIA QM9700 datasheet: 747 W with copper (DAC) cables


def _with_leaves(snap, count: int):
    """``snap`` with one more group of ``count`` QM9700 leaf switches in its first hall, no cable yet."""
    hall = snap.halls[0]
    group = SwitchSnap(10**6, "NEW-LEAVES", None, "leaf", "quantum-2-qm9700", count, hall.id, None)
    return replace(snap, switches=(*snap.switches, group))


def test_48_more_leaf_switches_raise_it_and_facility_power_by_their_catalog_draw():
    # 48 x 747 W = 35.856 kW of IT; at the typed PUE of 1.2, 43.0272 kW of facility power. The old roll-up
    # counted the switches inside the 10 % "other IT" and left both figures where they were.
    snap = spec_snapshot(generate_spec("G", gpus=1024, pue=1.2))
    more = _with_leaves(snap, 48)
    before = campus_summary(snap, include_redundancy=False)["power"]
    after = campus_summary(more, include_redundancy=False)["power"]
    assert after["network_mw"] - before["network_mw"] == pytest.approx(0.035856, abs=1e-9)
    assert after["it_mw"] - before["it_mw"] == pytest.approx(0.035856, abs=1e-9)
    assert after["facility_mw"] - before["facility_mw"] == pytest.approx(0.035856 * 1.2, abs=1e-9)
    assert after["other_it_mw"] == pytest.approx(before["other_it_mw"], abs=1e-12)
    # the power chain carries them too: beside the racks of their hall, not on any rack's feeds
    chain_before, chain_after = baseline_rollup(snap), baseline_rollup(more)
    hall = ("hall", snap.halls[0].id)
    extra = chain_after.it_beside_racks_kw[hall] - chain_before.it_beside_racks_kw[hall]
    assert extra == pytest.approx(48 * QM9700_COPPER_KW, abs=1e-9)
    for fids in power_graph(snap).rack_feeds.values():
        for fid in fids:
            assert chain_after.feed_load_kw[fid] == pytest.approx(chain_before.feed_load_kw[fid], abs=1e-12)


def _nvl72_rack(snap):
    g = power_graph(snap)
    rack = next(r for r in snap.racks if r.nodes and r.nodes[0][0] == "gb200-nvl72-tray")
    return g, rack


def test_an_nvl72_racks_a_and_b_feeds_each_carry_half_its_own_draw_and_b_all_of_it_when_a_fails():
    # Catalog: a GB200 NVL72 compute tray = 4 x 1,200 W + 2,530 W = 7,330 W; 18 trays = 131.94 kW, so each
    # of the A and B feeds carries 65.97 kW (the old chain put 73.84 kW on each, the rack's share of the
    # network and other IT on top). With the A side's PDU lost, the B feed carries all 131.94 kW.
    snap = spec_snapshot(generate_spec("G", gpus=576, gpu_model="gb200"))
    g, rack = _nvl72_rack(snap)
    assert rack.nodes == (("gb200-nvl72-tray", 18),)
    chain = baseline_rollup(snap)
    assert chain.rack_side_load_kw(snap, rack.id) == pytest.approx({"A": 65.97, "B": 65.97}, abs=1e-9)
    # the generated 2N is 2(N+1): two whips a side, from two row PDUs; one of them lost, the side's other whip
    # carries the side; both lost, side B carries all of it
    a_pdus = [g.feeds[f].upstream_id for f in g.rack_feeds[rack.id] if g.feeds[f].side == "A"]
    assert len(a_pdus) == 2
    one = rollup(snap, failed=frozenset(a_pdus[:1]))
    assert one.rack_side_load_kw(snap, rack.id) == pytest.approx({"A": 65.97, "B": 65.97}, abs=1e-9)
    lost = rollup(snap, failed=frozenset(a_pdus))
    assert not lost.tripped
    assert lost.rack_side_load_kw(snap, rack.id) == pytest.approx({"A": 0.0, "B": 131.94}, abs=1e-9)
    # the generator rates each whip for half of a side's feed (any two of the four carry the rack):
    # 131.94 / 0.8 = 164.9 -> 165 kW (5 kW steps), / 2 = 82.5 kW
    assert {g.feeds[f].rating_kw for f in g.rack_feeds[rack.id]} == {82.5}


# ---------------------------------------------------------------- conservation over the generator's space

DESIGN = st.fixed_dictionaries(
    {
        "gpus": st.sampled_from([256, 1024, 3000]),
        "gpu_model": st.sampled_from(["h100-sxm", "gb200", "mi300x"]),
        "cooling": st.sampled_from(["liquid", "air"]),
        "topology": st.sampled_from(["rail-optimized", "middle-of-rack"]),
        "power_redundancy": st.sampled_from(["N", "N+1", "2N"]),
        "cooling_redundancy": st.sampled_from(["N", "N+1", "2N"]),
        "fabric": st.sampled_from(["infiniband-ndr", "spectrum-x", "tomahawk5"]),
        "hall_max_it_mw": st.sampled_from([2.0, 20.0]),
        "pod_max_gpus": st.sampled_from([512, 8192]),
    }
)


def _snapshot(params):
    try:
        spec = generate_spec("G", **params)
    except GeneratorError:
        assume(False)  # a design the generator refuses (an NVL72 rack on air) has nothing to add up
    return spec_snapshot(spec)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DESIGN)
def test_feeds_add_up_to_the_loads_at_every_level_and_the_heat_is_the_it(params):
    snap = _snapshot(params)
    g = power_graph(snap)
    chain = baseline_rollup(snap)
    assert not chain.tripped and not chain.racks_without_power
    # rack: its feeds carry exactly its own IT, evenly over its sides
    for r in snap.racks:
        sides = chain.rack_side_load_kw(snap, r.id)
        assert sum(sides.values()) == pytest.approx(snap.rack_it_kw(r), rel=1e-9)
        for kw in sides.values():
            assert kw == pytest.approx(snap.rack_it_kw(r) / len(sides), rel=1e-9)
    # every device (PDU, UPS, switchgear, transformer, substation): its output is what its feeds carry,
    # racks', child devices', the mechanical loads' and the IT beside the racks
    for d in g.devices:
        carried = sum(
            chain.feed_load_kw.get(fid, chain.beside_feed_load_kw.get(fid, 0.0)) for fid in g.down_feeds[d]
        )
        assert chain.device_output_kw[d] == pytest.approx(carried, rel=1e-9, abs=1e-9)
    # building: what its devices draw from the grid and the generators is its racks, the IT beside them,
    # its mechanical loads and its devices' losses
    hall_building = {h.id: h.building_id for h in snap.halls}
    for b in snap.buildings:
        devs = [d for d in g.devices.values() if d.building_id == b.id]
        drawn = sum(chain.utility_load_kw.get(u, 0.0) for u in {d.utility_feed_id for d in devs} - {None})
        drawn += sum(chain.device_load_kw[d.id] for d in devs if d.id in g.generators)
        losses = sum(chain.device_load_kw[d.id] - chain.device_output_kw[d.id] for d in devs)
        racks = sum(snap.rack_it_kw(r) for r in snap.racks if r.building_id == b.id)
        beside = sum(kw for (_, h), kw in chain.it_beside_racks_kw.items() if hall_building[h] == b.id)
        plants = {p.id for p in snap.cooling_plants if p.building_id == b.id}
        units = {u.id for u in snap.cooling_units if hall_building.get(u.hall_id) == b.id}
        mech = sum(
            kw
            for (kind, ident), kw in chain.mechanical_load_kw.items()
            if (kind == "plant" and ident in plants) or (kind == "unit" and ident in units)
        )
        assert drawn == pytest.approx(racks + beside + mech + losses, rel=1e-9)
    # with a device feeding a rack lost, every rack it fed carries its own IT on its other side and the
    # devices still carry what their feeds carry
    r0 = snap.racks[0]
    lost_dev = g.feeds[sorted(g.rack_feeds[r0.id])[0]].upstream_id
    lost = rollup(snap, failed=frozenset({lost_dev}))
    for r in snap.racks:
        sides = lost.rack_side_load_kw(snap, r.id)
        if r.id not in lost.racks_without_power:
            assert sum(sides.values()) == pytest.approx(snap.rack_it_kw(r), rel=1e-9)
    for d in g.devices:
        carried = sum(
            lost.feed_load_kw.get(fid, lost.beside_feed_load_kw.get(fid, 0.0)) for fid in g.down_feeds[d]
        )
        assert lost.device_output_kw[d] == pytest.approx(carried, rel=1e-9, abs=1e-9)
    # the same loads given from outside (the scenarios' path) put the same IT beside the racks
    given_loads = rollup(snap, rack_load_kw={r.id: snap.rack_it_kw(r) for r in snap.racks})
    assert given_loads.it_beside_racks_kw == pytest.approx(chain.it_beside_racks_kw, rel=1e-9)
    assert given_loads.total_input_kw == pytest.approx(chain.total_input_kw, rel=1e-9)
    # campus: the IT the chain carries is the IT counted from the inventory, and all of it is heat
    it = it_breakdown(snap)
    carried_it = sum(snap.rack_it_kw(r) for r in snap.racks) + sum(chain.it_beside_racks_kw.values())
    assert carried_it == pytest.approx(it.it_kw, rel=1e-9)
    hm = heat_map(snap)
    assert hm.it_kw == pytest.approx(it.it_kw, rel=1e-9)
    assert hm.assigned_kw + hm.unassigned_total_kw == pytest.approx(it.it_kw, rel=1e-9)
