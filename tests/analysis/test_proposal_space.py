"""Expansion proposals that build new space: a new hall or a new building (campus.analysis.placement.expansion).

Truth from outside the proposal code: the proposal's lines built into the snapshot, the existing placement
must fit the same request; with the racks added by hand, every failover scenario rolled up by the power
solver and the heat balanced by the cooling model stay within limits, and the generated design's reference
checks hold (tests/analysis/placement_check.py, tests/interchange/design_checks.py); the time to power is
the utility feed's catalog lead time (210 weeks, Wood Mackenzie 2024) when a building comes with its feed;
a brute force over new space and the modules, units and leaves that could be added to it on a small campus
finds no cheaper set that fits.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest

from campus.analysis.capex import unit_price
from campus.analysis.placement import DEFAULT_RACK_SIZE_M, PlacementRequest, free_positions, place
from campus.analysis.placement.expansion import hall_fits, space_lines
from campus.analysis.placement.growth import apply_additions
from campus.analysis.placement.proposal import _price, propose
from campus.interchange.demo import demo_spec
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot
from tests.analysis.builders import BuildingSnap, HallSnap
from tests.analysis.placement_check import cooling_shortfalls, overloads, with_option
from tests.analysis.test_proposals import _add, small_campus
from tests.interchange.design_checks import design_problems


def _full_halls(snap):
    """``snap`` with every hall cut down to its racks (no free floor position left)."""
    halls = []
    for h in snap.halls:
        ys = [r.y_m for r in snap.racks if r.hall_id == h.id]
        halls.append(replace(h, length_m=max(ys) + 1.2 + 2.4 if ys else h.length_m))
    return replace(snap, halls=tuple(halls))


def _generated(margin: float = 20.0, roomy_feeds: bool = False):
    snap = _full_halls(
        spec_snapshot(generate_spec("G", 1024, gpu_model="h100-sxm", planning_margin_pct=margin))
    )
    if roomy_feeds:  # the building's feeds and substations with room for a second hall
        snap = replace(
            snap,
            utility_feeds=tuple(replace(u, capacity_kw=u.capacity_kw * 10) for u in snap.utility_feeds),
            power_devices=tuple(
                replace(d, rated_kw=d.rated_kw * 10) if d.kind == "substation" else d
                for d in snap.power_devices
            ),
            grid_capacity_kw=snap.grid_capacity_kw * 10,
        )
    return snap


def _independent_check(snap, proposal, request: PlacementRequest) -> None:
    grown = apply_additions(snap, proposal["additions"])
    again = place(grown, request)
    assert again["feasible"], again["binding"]
    option = proposal["option"]
    bid = next(b.id for b in grown.buildings if b.name == option["building"])
    hid = next(h.id for h in grown.halls if h.name == option["hall"] and h.building_id == bid)
    trial = with_option(grown, {**option, "hall_id": hid}, request.node_model)
    assert design_problems(trial) == []
    assert cooling_shortfalls(trial) <= cooling_shortfalls(snap)
    assert overloads(trial) <= overloads(snap)


def test_a_full_hall_in_a_building_whose_feed_has_no_headroom_gets_a_new_building():
    snap = _generated()
    request = PlacementRequest("hgx-h100-8", 40)
    assert place(snap, request)["binding_constraint"] == "floor_space"
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    kinds = [a["kind"] for a in proposal["additions"]]
    assert kinds[:2] == ["building", "hall"]
    for kind in (
        "utility_feed",
        "substation",
        "transformer",
        "switchgear",
        "ups",
        "pdu",
        "cdu",
        "crah",
        "leaf",
    ):
        assert kind in kinds, kind
    new = {a["kind"]: a for a in proposal["additions"] if a.get("new")}
    assert new["building"]["reason"] == "space" and new["utility_feed"]["reason"] == "power"
    assert proposal["building"] == "B2" and proposal["building_id"] is None
    # the new building's shell at the catalog's price per m2 of its footprint
    b1 = snap.buildings[0]
    shell = unit_price("building", "shell").unit_price_usd
    assert new["building"]["capex_usd"] == pytest.approx(b1.width_m * b1.length_m * shell, abs=0.01)
    # a utility feed's lead time dominates: 210 weeks
    assert proposal["time_to_power_days"] == 210 * 7
    _independent_check(snap, proposal, request)


def test_a_full_hall_in_a_building_with_room_and_feed_headroom_gets_a_new_hall():
    snap = _generated(roomy_feeds=True)
    request = PlacementRequest("hgx-h100-8", 40)
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    kinds = [a["kind"] for a in proposal["additions"]]
    assert "building" not in kinds and kinds[0] == "hall"
    hall = proposal["additions"][0]
    assert proposal["building"] == "B1" and proposal["hall"] == "H2" and proposal["hall_id"] is None
    h1 = snap.halls[0]
    assert hall["capex_usd"] == pytest.approx(
        h1.width_m * h1.length_m * unit_price("building", "hall").unit_price_usd
    )
    # the cheaper of the two: the new building costs more
    building = [_price(snap, a, {}) for a in space_lines(snap, h1, True)]
    assert proposal["capex_usd"] < sum(building)
    _independent_check(snap, proposal, request)


def test_new_leaves_on_a_pod_without_free_spine_ports_bring_spines():
    # a new hall's leaves cabled up as the old hall's land on spines with too few free ports
    snap = _generated(margin=0.0, roomy_feeds=True)
    request = PlacementRequest("hgx-h100-8", 8)
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    spines = [a for a in proposal["additions"] if a["kind"] == "spine" and not a.get("new")]
    assert spines and all(a["reason"] == "spine_ports" for a in spines)
    _independent_check(snap, proposal, request)


# ---------------------------------------------------------------- brute force on a small campus


def _tiny(building_m: float):
    """The small campus of two halls of two racks (tests/analysis/test_proposals.py), each hall only as big
    as its racks, in a building of ``building_m`` square."""
    snap = small_campus((60.0, 60.0), (40.0, 40.0), (10, 10))
    halls = tuple(HallSnap(h.id, 1, h.name, 4.4, 4.4) for h in snap.halls)
    devices = tuple(
        replace(d, building_id=1, hall_id=int(d.name[1]) if d.kind == "pdu" else None)
        for d in snap.power_devices
    )
    return replace(
        snap,
        halls=halls,
        power_devices=devices,
        buildings=(BuildingSnap(1, "B1", 0.0, 0.0, building_m, building_m),),
    )


def _cheapest_new_space(snap, request, most: int = 1) -> float:
    """The least capex of new space (a hall, a building) like either hall, with up to ``most`` PDU modules on
    each new PDU, CRAHs like the new hall's first, leaves in its leaf group, that makes ``request`` fit."""
    best = math.inf
    for template, new_building in itertools.product(snap.halls, (False, True)):
        if not new_building and not hall_fits(snap, 1, template.width_m, template.length_m):
            continue  # the building's floor holds no more hall
        lines = space_lines(snap, template, new_building)
        base = sum(_price(snap, a, {}) for a in lines)
        grown = apply_additions(snap, lines)
        hall = grown.halls[-1]
        pdus = [a["names"][0] for a in lines if a["kind"] == "pdu"]
        crah = next(a["names"][0] for a in lines if a["kind"] == "crah")
        leaf = next(a["names"][0] for a in lines if a["kind"] == "leaf")
        cap = next(u.capacity_kw for u in grown.cooling_units if u.name == crah)
        for counts in itertools.product(range(most + 1), repeat=len(pdus) + 2):
            adds = [
                _add("pdu", "module", n, p, "power", 100.0) for p, n in zip(pdus, counts, strict=False) if n
            ]
            if counts[-2]:
                names = [f"{crah}-B{k}" for k in range(counts[-2])]
                adds.append(_add("crah", "crah", counts[-2], crah, "cooling", cap, names))
            if counts[-1]:
                adds.append(_add("leaf", "qm9700", counts[-1], leaf, "network"))
            cost = base + sum(_price(grown, a, {}) for a in adds)
            if cost >= best:
                continue
            req = PlacementRequest(request.node_model, request.racks, request.nodes_per_rack, hall.id)
            if place(apply_additions(grown, adds), req)["feasible"]:
                best = cost
    return best


@pytest.mark.parametrize("building_m", [7.0, 100.0])
@pytest.mark.parametrize("racks,nodes", [(1, 5), (2, 8)])
def test_no_cheaper_new_space_fits_on_a_small_campus(building_m, racks, nodes):
    snap = _tiny(building_m)
    request = PlacementRequest("toy8", racks, nodes_per_rack=nodes)
    assert place(snap, request)["binding_constraint"] == "floor_space"
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    brute = _cheapest_new_space(snap, request)
    capex = sum(a["capex_usd"] for a in proposal["additions"] if a["kind"] not in ("row", "grid"))
    assert capex <= brute + 0.01
    kinds = {a["kind"] for a in proposal["additions"]}
    assert ("building" in kinds) == (building_m == 7.0)  # a 7 m building holds no third hall
    grown = apply_additions(snap, proposal["additions"])
    assert place(grown, request)["feasible"]


def test_a_new_hall_is_as_many_times_longer_as_the_request_needs():
    # the template hall holds one row of 32 racks; 100 racks need a hall a whole number of times its length
    snap = _generated(roomy_feeds=True)
    request = PlacementRequest("hgx-h100-8", 100)
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    hall = next(a for a in proposal["additions"] if a["kind"] == "hall")
    h1 = snap.halls[0]
    times = hall["clone"]["length_m"] / h1.length_m
    assert times == round(times) and times > 1
    # an empty hall one length shorter holds fewer than 100 racks
    assert len(free_positions(h1.width_m, h1.length_m * (times - 1), [], DEFAULT_RACK_SIZE_M, 100)) < 100
    _independent_check(snap, proposal, request)


def test_every_new_element_has_a_name_of_its_own():
    # 500 racks on a generated 1,000-GPU campus: a new building several hall lengths long, whose new units
    # are then grown by more units in the same round (two shortfalls on one pool)
    snap = spec_snapshot(generate_spec("Placement", 1000))
    proposal = propose(snap, PlacementRequest("hgx-h100-8", 500))
    assert proposal["feasible"], proposal["detail"]
    names = [n for a in proposal["additions"] if a["kind"] not in ("hall", "building") for n in a["names"]]
    assert len(names) == len(set(names))
    standing = {
        x.name for x in (*snap.power_devices, *snap.cooling_units, *snap.cooling_plants, *snap.switches)
    }
    assert not standing & set(names)


# ---------------------------------------------------------------- what a new building brings with it


def _new_building(snap):
    request = PlacementRequest("hgx-h100-8", 40)
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    assert proposal["additions"][0]["kind"] == "building"
    return proposal, request


def test_a_new_building_gets_the_template_buildings_energy_storage_on_its_own_devices():
    # 2 MW of storage per building, half on each substation bus (the generator's layout), 4 h each
    snap = _full_halls(
        spec_snapshot(generate_spec("G", 1024, gpu_model="h100-sxm", bess_mw_per_building=2, bess_hours=4))
    )
    proposal, request = _new_building(snap)
    lines = [a for a in proposal["additions"] if a["kind"] == "energy_storage"]
    assert len(lines) == len(snap.energy_storage) == 2
    new_devices = {
        n
        for a in proposal["additions"]
        if (a.get("clone") or {}).get("table") == "device"
        for n in a["names"]
    }
    assert {a["clone"]["device"] for a in lines} <= new_devices
    # priced per kWh of energy as the bill of materials prices storage: 1 MW x 4 h = 4,000 kWh each
    bess = unit_price("energy-storage", "bess").unit_price_usd
    assert all(a["capex_usd"] == pytest.approx(4000 * bess, abs=0.01) for a in lines)
    grown = apply_additions(snap, proposal["additions"])
    b2 = next(b.id for b in grown.buildings if b.name == "B2")
    assert sum(e.power_kw for e in grown.energy_storage if e.building_id == b2) == pytest.approx(2000.0)
    _independent_check(snap, proposal, request)


def _campus_level_substations(snap, times: float = 1.0):
    subs = {d.id for d in snap.power_devices if d.kind == "substation"}
    return subs, replace(
        snap,
        power_devices=tuple(
            replace(d, building_id=None, rated_kw=d.rated_kw * times) if d.id in subs else d
            for d in snap.power_devices
        ),
        utility_feeds=tuple(replace(u, capacity_kw=u.capacity_kw * times) for u in snap.utility_feeds),
    )


def test_a_new_building_under_a_campus_substation_gets_its_own_substation_and_utility_feed():
    # the generated substations taken out of the building (campus-level): the new building gets its own,
    # each on a utility feed of its own
    subs, snap = _campus_level_substations(_generated())
    proposal, request = _new_building(snap)
    adds = proposal["additions"]
    feeds = [a for a in adds if a["kind"] == "utility_feed" and a.get("new")]
    new_subs = [a for a in adds if a["kind"] == "substation" and a.get("new")]
    assert len(feeds) == len(snap.utility_feeds) and len(new_subs) == len(subs)
    assert {s["clone"]["utility_feed"] for s in new_subs} == {n for a in feeds for n in a["names"]}
    grown = apply_additions(snap, adds)
    b2 = next(b.id for b in grown.buildings if b.name == "B2")
    mine = [d for d in grown.power_devices if d.building_id == b2 and d.kind == "substation"]
    old_feeds = {u.id for u in snap.utility_feeds}
    assert len(mine) == len(subs) and all(d.utility_feed_id not in (None, *old_feeds) for d in mine)
    _independent_check(snap, proposal, request)


def test_a_campus_substation_is_cloned_at_the_buildings_share_of_it():
    # rated for three such buildings: the new building's own is rated for what the template building's
    # devices draw from it (the ratings of its feeds into them), its utility feed likewise
    subs, snap = _campus_level_substations(_generated(), times=3.0)
    lines = space_lines(snap, snap.halls[0], True)
    new_subs = [a for a in lines if a["kind"] == "substation"]
    assert len(new_subs) == len(subs)
    for sub in new_subs:
        src = next(d for d in snap.power_devices if d.name == sub["target"])
        drawn = sum(f.rating_kw for f in snap.power_feeds if f.upstream_id == src.id)
        assert sub["capacity_kw"] == pytest.approx(min(src.rated_kw, drawn))
        assert sub["capacity_kw"] < src.rated_kw
        feed = next(
            a for a in lines if a["kind"] == "utility_feed" and sub["clone"]["utility_feed"] in a["names"]
        )
        assert feed["capacity_kw"] == pytest.approx(sub["capacity_kw"])


def test_a_new_halls_cooling_units_stand_where_the_templates_stand():
    # the units moved inside the hall cut down to its racks; one left outside (as an inventory written before
    # positions were checked may hold) is built with no position
    snap = _generated()
    units = [replace(u, y_m=0.0) for u in snap.cooling_units]
    units[-1] = replace(units[-1], y_m=1000.0)
    snap = replace(snap, cooling_units=tuple(units))
    proposal, _request = _new_building(snap)
    grown = apply_additions(snap, proposal["additions"])
    template = {u.name: u for u in snap.cooling_units}
    units = [a for a in proposal["additions"] if (a.get("clone") or {}).get("table") == "unit"]
    assert units
    made = {u.name: u for u in grown.cooling_units}
    for a in units:
        src, new = template[a["target"]], made[a["names"][0]]
        if src.y_m == 1000.0:
            assert (new.x_m, new.y_m) == (None, None)
        else:
            assert (new.x_m, new.y_m) == (src.x_m, src.y_m) and src.x_m is not None


def test_a_new_hall_is_longer_when_its_cooling_units_take_the_floor_the_racks_need():
    # a generated 4,608-GB300 hall is 25.2 x 20 m: empty, it holds 266 racks; with its 14 units standing
    # where they stand (1.2 m square each), 222. 240 racks: a new hall one template length long would hold
    # them were it empty, not with the units it is built with, so it is two lengths long
    snap = spec_snapshot(generate_spec("G", 4608, gpu_model="gb300"))
    h1 = snap.halls[0]
    units = [(u.x_m, u.y_m, 1.2, 1.2) for u in snap.cooling_units if u.hall_id == h1.id]
    assert len(free_positions(h1.width_m, h1.length_m, [], DEFAULT_RACK_SIZE_M, 10_000)) == 266
    assert (
        len(free_positions(h1.width_m, h1.length_m, [], DEFAULT_RACK_SIZE_M, 10_000, obstacles=units)) == 222
    )
    request = PlacementRequest("gb300-nvl72-tray", 240, 18)
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    hall = next(a for a in proposal["additions"] if a["kind"] == "hall")
    assert hall["clone"]["length_m"] == pytest.approx(2 * h1.length_m)
    _independent_check(snap, proposal, request)


@pytest.mark.django_db
def test_the_racks_cable_transceivers_are_cooled_by_the_new_halls_air_units():
    # 400 GB300 NVL72 racks on the demo campus: a new building whose CRAHs take the air share of the racks'
    # heat and the heat of their cables' transceivers (12 W an end: 400 x 72 node cables and their uplinks,
    # about 0.7 MW). Checked with the cables written into the snapshot as a branch writes them: the new
    # hall's cooling pools hold with the declared redundancy, as the power chain does
    snap = spec_snapshot(demo_spec())
    request = PlacementRequest("gb300-nvl72-tray", 400, 18)
    proposal = propose(snap, request)
    assert proposal["feasible"], proposal["detail"]
    assert proposal["additions"][0]["kind"] == "building"
    _independent_check(snap, proposal, request)
