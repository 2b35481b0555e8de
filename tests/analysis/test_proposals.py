"""Expansion proposals, pure core (campus.analysis.placement.proposal).

Truth from outside the proposal code: the leaf, spine and core counts of a full NVL72 fabric worked out by
hand from the switch radix and the tray's NICs; an independent check of every proposal (its additions
written into the snapshot, then the existing placement must fit the request, and with its racks added every
failover scenario rolled up by the power solver and the heat balanced by the cooling model stay within
limits: tests/analysis/placement_check.py, tests/interchange/design_checks.py); a brute force over the
additions of small halls that finds no cheaper set that fits; properties over generator parameters.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from campus.analysis.bom import campus_bom
from campus.analysis.capex import unit_price
from campus.analysis.placement import PlacementRequest, place
from campus.analysis.placement.growth import apply_additions
from campus.analysis.placement.proposal import _price, propose
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot
from tests.analysis.builders import (
    CoolingUnitSnap,
    HallSnap,
    LinkSnap,
    PodSnap,
    SwitchSnap,
    UtilityFeedSnap,
    campus,
    device,
    feed,
    rack,
)
from tests.analysis.placement_check import cooling_shortfalls, overloads, with_option
from tests.interchange.design_checks import design_problems

NVL72 = "gb200-nvl72-tray"


def _holds(snap, proposal, request: PlacementRequest, two_n: bool = True, design: bool = True) -> None:
    """The independent check: the additions built, the existing placement fits the request, and with the
    option's racks every design check of a generated design holds (``design``), no cooling unit, pool or
    plant is newly short, and (2N) no failover scenario overloads anything new."""
    grown = apply_additions(snap, proposal["additions"])
    again = place(grown, request)
    assert again["feasible"], again["binding"]
    trial = with_option(grown, proposal["option"], request.node_model)
    if design:
        assert design_problems(trial) == []
    assert cooling_shortfalls(trial) <= cooling_shortfalls(snap)
    if two_n:
        assert overloads(trial) <= overloads(snap)
    _capex_is_the_bom_growth(snap, proposal)


def _capex_is_the_bom_growth(snap, proposal) -> None:
    """An independent path to the capex: the bill of materials of the campus with the additions built,
    less the campus's own, is the proposal's capex (rows and the grid connection, which the bill of
    materials does not list, apart: docs/placement.md)."""
    built = [a for a in proposal["additions"] if a["kind"] not in ("row", "grid")]
    grown = apply_additions(snap, built)
    # the racks' uplinks are built with the racks: added here by hand to the leaf group's first link up
    links = list(grown.links)
    ids = {s.name: s.id for s in grown.switches}
    for up in (a for a in built if a.get("with_racks")):
        k = min(
            (
                i
                for i, lk in enumerate(links)
                if (lk.a_switch_id, lk.b_switch_id) == (ids[up["target"]], ids[up["to"]])
            ),
            key=lambda i: links[i].id,
        )
        links[k] = replace(links[k], count=links[k].count + up["count"])
    grown = replace(grown, links=tuple(links))
    delta = campus_bom(grown).capex_usd()["total"] - campus_bom(snap).capex_usd()["total"]
    assert delta == pytest.approx(sum(a["capex_usd"] for a in built), abs=0.01 * max(len(built), 1))
    rows = [a for a in proposal["additions"] if a["kind"] == "row"]
    row_price = unit_price("building", "row").unit_price_usd
    assert sum(a["capex_usd"] for a in rows) == pytest.approx(row_price * sum(a["count"] for a in rows))


@pytest.fixture(scope="module")
def full_fabric():
    """64 GB200 NVL72 racks (4,608 GPUs), no planning margin: a three-tier fabric with every port used."""
    return spec_snapshot(generate_spec("Full", 4608, gpu_model="gb200"))


def test_one_more_nvl72_rack_is_18_ports_short_on_a_full_fabric(full_fabric):
    # By hand: a tray has 4 NICs, one per rail; a rack 18 trays, so 18 ports on each rail's leaf group.
    # 64 racks x 18 = 1,152 node cables per rail; a Quantum-2 leaf of radix 64 under a spine takes node
    # cables on 32 ports: 1,152 / 32 = 36 leaves per rail, every one full. One more rack: 18 short.
    leaves = [s for s in full_fabric.switches if s.tier == "leaf"]
    assert len(leaves) == 4 and {s.count for s in leaves} == {36}
    res = place(full_fabric, PlacementRequest(NVL72, 1))
    assert res["binding_constraint"] == "fabric_ports"
    assert "18 port(s) short" in res["binding"]["detail"]


def test_forty_nvl72_racks_get_leaves_spines_cores_and_optics_by_hand(full_fabric):
    # By hand: 40 racks x 18 = 720 ports per rail: 720 / 32 = 22.5, so 23 leaves per rail, each with 32
    # uplinks (as its group: 1,152 uplinks over 36 leaves) = 736 cables to the spines per rail. The spines
    # are full and keep 32 ports for their own uplinks: 4 x 736 / 32 = 92 spines, with 92 x 32 = 2,944
    # cables to the cores, which use all 64 ports: 2,944 / 64 = 46 cores.
    proposal = propose(full_fabric, PlacementRequest(NVL72, 40))
    assert proposal["feasible"], proposal["detail"]
    adds = proposal["additions"]
    leaves = {a["target"]: a["count"] for a in adds if a["kind"] == "leaf"}
    assert sorted(leaves.values()) == [23] * 4
    assert sum(a["count"] for a in adds if a["kind"] == "spine") == 92
    assert sum(a["count"] for a in adds if a["kind"] == "core") == 46
    up = [a for a in adds if a["kind"] == "optic" and a["target"] in leaves]
    assert sorted(a["count"] for a in up) == [736] * 4 and {a["reason"] for a in up} == {"fabric_ports"}
    assert sum(a["count"] for a in adds if a["kind"] == "optic" and a["target"] == "POD-01-SPINE") == 2944
    # each line priced, the total their sum; the time to power the longest lead time
    assert proposal["capex_usd"] == pytest.approx(sum(a["capex_usd"] for a in adds))
    leaf = next(a for a in adds if a["kind"] == "leaf")
    # the catalog's switch row, one per box (docs/capex.md)
    assert leaf["capex_usd"] == pytest.approx(23 * unit_price("switch", leaf["model"]).unit_price_usd)
    days = [a["lead_time_days"] for a in adds if a["lead_time_days"] is not None]
    assert proposal["time_to_power_days"] == max(days)
    _holds(full_fabric, proposal, PlacementRequest(NVL72, 40))


def test_the_planning_margin_is_used_before_anything_is_added():
    # 20 % margin: 36 x 1.2 -> 44 leaves per rail, 44 x 32 = 1,408 node ports, 1,152 used: 256 free.
    # 14 racks need 14 x 18 = 252 (no leaf added); 15 racks need 270 (leaves added). Power and cooling are
    # rated for 1.2 x the design's 64 racks: 12.8 racks more, spread over the rows' feeds: 12 racks fit
    # with nothing added at all.
    snap = spec_snapshot(generate_spec("Margin", 4608, gpu_model="gb200", planning_margin_pct=20))
    twelve = place(snap, PlacementRequest(NVL72, 12))
    assert twelve["feasible"], twelve["binding"]
    assert len({r["feed_a"] for r in twelve["options"][0]["racks"]}) > 1  # over several rows' feeds
    nothing = propose(snap, PlacementRequest(NVL72, 12))
    # nothing but rows and the racks' own uplinks (cables, on spine ports the margin left free)
    assert {a["kind"] for a in nothing["additions"] if not a.get("with_racks")} <= {"row"}
    _holds(snap, nothing, PlacementRequest(NVL72, 12))
    fits = propose(snap, PlacementRequest(NVL72, 14))
    assert fits["feasible"]
    assert not [a for a in fits["additions"] if a["category"] == "network" and not a.get("with_racks")]
    _holds(snap, fits, PlacementRequest(NVL72, 14))
    beyond = propose(snap, PlacementRequest(NVL72, 15))
    assert beyond["feasible"]
    assert {a["count"] for a in beyond["additions"] if a["kind"] == "leaf"} == {1}  # 14 short: one leaf
    _holds(snap, beyond, PlacementRequest(NVL72, 15))


def test_a_request_that_fits_proposes_nothing_but_its_new_rows_and_uplinks():
    # one rack of 8-GPU servers: 8 node cables a server, one per rail, each needing one uplink (the fabric
    # is non-blocking: each rail group has as many uplinks as node cables)
    snap = spec_snapshot(generate_spec("Roomy", 1024, gpu_model="h100-sxm", planning_margin_pct=30))
    res = place(snap, PlacementRequest("hgx-h100-8", 1))
    assert res["feasible"]
    proposal = propose(snap, PlacementRequest("hgx-h100-8", 1))
    assert proposal["feasible"]
    assert {a["kind"] for a in proposal["additions"] if not a.get("with_racks")} <= {"row"}
    ups = [a for a in proposal["additions"] if a.get("with_racks")]
    servers = proposal["option"]["racks"][0]["nodes"]
    assert sum(a["count"] for a in ups) == 8 * servers and all(a["kind"] == "optic" for a in ups)


# ---------------------------------------------------------------- brute force over small halls


def _crah(uid: int, hall: int, capacity: float, group: str) -> CoolingUnitSnap:
    return CoolingUnitSnap(uid, f"CRAH-{uid}", "crah", capacity, 24.0, 40.0, 0.0, None, None, hall, group)


def small_campus(pdu_kw: tuple[float, float], crah_kw: tuple[float, float], used: tuple[int, int]):
    """Two halls of two 10 kW air racks: hall h has PDU-A/B of pdu_kw[h] under UPS A/B (1 MW), two CRAHs of
    crah_kw[h] as one N+1 group, and a middle-of-rack leaf with used[h] of its 64 ports cabled."""
    halls = (HallSnap(1, 1, "H1", 20.0, 20.0), HallSnap(2, 1, "H2", 20.0, 20.0))
    devices = [device(1, "ups", 1000.0, utility_feed_id=1), device(2, "ups", 1000.0, utility_feed_id=2)]
    feeds, racks, units, pods, switches, links = [], [], [], [], [], []
    for h in (1, 2):
        a, b = 10 * h + 1, 10 * h + 2
        devices += [
            device(a, "pdu", pdu_kw[h - 1], name=f"H{h}-PDU-A"),
            device(b, "pdu", pdu_kw[h - 1], name=f"H{h}-PDU-B"),
        ]
        feeds += [feed(1, dev=a, side="A"), feed(2, dev=b, side="B")]
        units += [
            _crah(10 * h + 1, h, crah_kw[h - 1], f"G{h}"),
            _crah(10 * h + 2, h, crah_kw[h - 1], f"G{h}"),
        ]
        pods.append(PodSnap(h, f"POD-{h}", "infiniband-ndr", "middle-of-rack", 1.0, "qm9700", 1))
        switches.append(SwitchSnap(h, f"LEAF-H{h}", h, "leaf", "qm9700", 1, h, None))
        for k in range(2):
            rid = 10 * h + k
            racks.append(
                rack(
                    rid,
                    10,
                    hall_id=h,
                    x_m=2.0 + 0.6 * k,
                    y_m=2.0,
                    cooling_type="air",
                    cooling_unit_id=10 * h + 1 + k,
                    pod_id=h,
                )
            )
            feeds += [feed(a, rack=rid, side="A"), feed(b, rack=rid, side="B")]
        links.append(LinkSnap(h, h, "backend", "aec", used[h - 1], 3.0, 400.0, 10 * h, None, h))
    return campus(
        halls=halls,
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0), UtilityFeedSnap(2, "U2", 5000.0)),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
        cooling_units=tuple(units),
        pods=tuple(pods),
        switches=tuple(switches),
        links=tuple(links),
    )


def _add(kind, model, count, target, category, capacity_kw=None, names=()):
    return {
        "kind": kind,
        "model": model,
        "count": count,
        "capacity_kw": capacity_kw,
        "target": target,
        "to": None,
        "names": list(names),
        "category": category,
    }


def _cheapest_by_brute_force(snap, request, hall: int, most: int = 2) -> float:
    """The least capex of any set of up to ``most`` leaves, CRAHs (like CRAH-h1), PDU-A and PDU-B modules
    of 100 kW in hall ``hall`` that makes ``request`` fit there (inf: none)."""
    best = math.inf
    for leaves, crahs, pa, pb in itertools.product(range(most + 1), repeat=4):
        adds = []
        if leaves:
            adds.append(_add("leaf", "qm9700", leaves, f"LEAF-H{hall}", "network"))
        if crahs:
            src = f"CRAH-{10 * hall + 1}"
            names = [f"{src}-B{k}" for k in range(crahs)]
            adds.append(
                _add(
                    "crah", "crah", crahs, src, "cooling", snap.cooling_units[2 * hall - 2].capacity_kw, names
                )
            )
        if pa:
            adds.append(_add("pdu", "module", pa, f"H{hall}-PDU-A", "power", 100.0))
        if pb:
            adds.append(_add("pdu", "module", pb, f"H{hall}-PDU-B", "power", 100.0))
        cost = sum(_price(snap, a, {}) for a in adds)
        if cost >= best:
            continue
        req = PlacementRequest(request.node_model, request.racks, request.nodes_per_rack, hall)
        if place(apply_additions(snap, adds), req)["feasible"]:
            best = cost
    return best


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: the brute force is slow
)
@given(
    pdu=st.tuples(st.sampled_from([30.0, 40.0, 60.0]), st.sampled_from([30.0, 40.0, 60.0])),
    crah=st.tuples(st.sampled_from([20.0, 25.0, 40.0]), st.sampled_from([20.0, 25.0, 40.0])),
    used=st.tuples(st.sampled_from([10, 40, 60]), st.sampled_from([10, 40, 60])),
    racks=st.integers(1, 2),
    nodes=st.sampled_from([5, 8, 10]),
)
def test_no_cheaper_set_of_additions_fits_in_small_halls(pdu, crah, used, racks, nodes):
    snap = small_campus(pdu, crah, used)
    request = PlacementRequest("toy8", racks, nodes_per_rack=nodes)
    proposal = propose(snap, request)
    brute = min(_cheapest_by_brute_force(snap, request, hall) for hall in (1, 2))
    if not proposal["feasible"]:
        assert brute == math.inf
        return
    capex = sum(a["capex_usd"] for a in proposal["additions"] if a["kind"] != "row")
    counts = [a["count"] for a in proposal["additions"] if a["kind"] != "row"]
    if max(counts, default=0) <= 2:  # the proposal is among the sets enumerated: none is cheaper
        assert capex == pytest.approx(brute)
    else:
        assert capex <= brute + 1e-6 or brute == math.inf
    _holds(snap, proposal, request, design=False)  # a toy hall: no generated design to check


# ---------------------------------------------------------------- generated campuses


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: each example generates a campus
)
@given(
    gpu_model=st.sampled_from(["h100-sxm", "gb200", "b200", "mi300x"]),
    gpus=st.sampled_from([1024, 2048]),
    margin=st.sampled_from([0.0, 10.0, 25.0]),
    power=st.sampled_from(["2N", "N+1"]),
    racks=st.integers(1, 24),
)
def test_every_proposal_on_a_generated_campus_holds(gpu_model, gpus, margin, power, racks):
    snap = spec_snapshot(
        generate_spec("G", gpus, gpu_model=gpu_model, planning_margin_pct=margin, power_redundancy=power)
    )
    node = snap.racks[0].nodes[0][0]
    request = PlacementRequest(node, racks)
    proposal = propose(snap, request)
    if not proposal["feasible"]:
        assert proposal["detail"]  # says what no addition lifts
        return
    assert proposal["capex_usd"] == pytest.approx(sum(a["capex_usd"] for a in proposal["additions"]))
    assert all(
        a["reason"] in {"fabric_ports", "spine_ports", "cooling", "power", "grid", "space"}
        for a in proposal["additions"]
    )
    # N+1 (distributed redundant blocks): placement's failover scenarios are each block's loss, not a whole
    # side's (headroom.scenarios), while the reference design checks also take a whole side out; only the
    # placement and the cooling are checked there
    _holds(snap, proposal, request, two_n=power == "2N", design=power == "2N")


def test_a_campus_price_override_moves_the_proposal_s_capex(full_fabric):
    # The switches of the 40-rack proposal (23 x 4 leaves, 92 spines, 46 cores: by hand above) at the
    # campus's own price of the switch model: the capex moves by the switch count times the difference.
    request = PlacementRequest(NVL72, 40)
    base = propose(full_fabric, request)
    model = next(a["model"] for a in base["additions"] if a["kind"] == "leaf")
    catalog = unit_price("switch", model).unit_price_usd
    own = replace(full_fabric, price_overrides=((f"switch/{model}", catalog - 6_000.0),))
    cheaper = propose(own, request)
    switches = sum(a["count"] for a in cheaper["additions"] if a["kind"] in ("leaf", "spine", "core"))
    assert switches == 23 * 4 + 92 + 46
    assert {a["model"] for a in cheaper["additions"] if a["kind"] in ("leaf", "spine", "core")} == {model}
    assert base["capex_usd"] - cheaper["capex_usd"] == pytest.approx(6_000.0 * switches, abs=0.05)


def test_the_racks_uplinks_are_listed_and_priced_as_the_bill_of_materials_prices_cables():
    # 20 % margin on a 4,608-GB200 fabric: each rail's leaf group has 1,152 node cables and 1,152 uplinks
    # (non-blocking). 12 NVL72 racks bring 12 x 18 = 216 node cables per rail, so 216 new uplinks per rail,
    # each a 20 m SR optical cable like the group's: two 400G SR modules and 20 m of fibre with its
    # termination (the bill of materials' count, docs/capex.md).
    snap = spec_snapshot(generate_spec("Margin", 4608, gpu_model="gb200", planning_margin_pct=20))
    proposal = propose(snap, PlacementRequest(NVL72, 12))
    ups = [a for a in proposal["additions"] if a.get("with_racks")]
    assert len(ups) == 4 and {a["count"] for a in ups} == {216}
    assert {(a["kind"], a["reason"], a["to"]) for a in ups} == {("optic", "spine_ports", "POD-01-SPINE")}
    one = (
        2 * unit_price("optic", "sr-400g").unit_price_usd
        + 20 * unit_price("cable", "fiber-m").unit_price_usd
        + unit_price("cable", "fiber-termination").unit_price_usd
    )
    assert all(a["capex_usd"] == pytest.approx(216 * one, abs=0.01) for a in ups)
    assert proposal["option"]["uplinks"][0]["count"] == 216


def _overlap(a, b) -> bool:
    (ax, ay, aw, ad), (bx, by, bw, bd) = a, b
    return ax < bx + bw - 1e-6 and bx < ax + aw - 1e-6 and ay < by + bd - 1e-6 and by < ay + ad - 1e-6


def test_new_cooling_units_stand_inside_their_hall_off_every_unit_and_rack():
    # 40 NVL72 racks on a generated 4,608-GB200 campus: its CDUs and CRAHs grow by units like theirs
    snap = spec_snapshot(generate_spec("Cool", 4608, gpu_model="gb200"))
    proposal = propose(snap, PlacementRequest(NVL72, 40))
    assert proposal["feasible"], proposal["detail"]
    units = [a for a in proposal["additions"] if a["category"] == "cooling" and a["names"]]
    assert units
    grown = apply_additions(snap, proposal["additions"])
    new = {n for a in units for n in a["names"]}
    halls = {h.id: h for h in grown.halls}
    for u in (u for u in grown.cooling_units if u.name in new):
        assert u.x_m is not None and u.y_m is not None, u.name
        hall = halls[u.hall_id]
        box = (u.x_m, u.y_m, 1.2, 1.2)  # a unit's footprint (placement.positions.UNIT_FOOTPRINT_M)
        assert 0 <= u.x_m <= hall.width_m - 1.2 + 1e-6 and 0 <= u.y_m <= hall.length_m - 1.2 + 1e-6
        others = [
            (o.x_m, o.y_m, 1.2, 1.2)
            for o in grown.cooling_units
            if o.hall_id == u.hall_id and o.name != u.name and o.x_m is not None
        ]
        racks = [(r.x_m, r.y_m, 0.6, 1.2) for r in grown.racks if r.hall_id == u.hall_id]
        assert not any(_overlap(box, o) for o in others + racks), u.name
