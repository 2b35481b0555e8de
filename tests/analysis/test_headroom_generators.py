"""The failover headroom fails generators too, where they carry load (docs/model.md, "Failover-aware
headroom"), as the redundancy check and impact mode do: a device of kind ``generator`` in the middle of the
chain is lost alone like any other device, a standby generator beside a live normal supply changes nothing.

Hand calculations on a distributed-redundant ring of three PDUs under one UPS, and a brute force: every
power device (generators included) and every utility feed failed alone through the roll-up impact mode
runs, at the load each scope's headroom adds, on generated campuses and on rings.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from campus.analysis.headroom import failover_headroom
from campus.analysis.impact import impact
from campus.analysis.power import power_graph, rollup
from campus.analysis.redundancy import redundancy_check
from campus.interchange.generate import generate_spec
from tests.analysis.builders import UtilityFeedSnap, campus, device, feed, rack, with_servers_scaled
from tests.analysis.spec_snapshot import spec_snapshot

# ---------------------------------------------------------------- a ring of three PDUs, worked by hand


def ring(
    loads: tuple[float, float, float] = (40.0, 10.0, 20.0),
    pdu_kw: tuple[float, float, float] = (200.0, 60.0, 100.0),
    generator: int | None = 11,
):
    """U1 -> SUB-1 (1,000 kW) -> UPS-2 (500 kW) -> PDU 11, 12, 13; rack R1 fed A from 11 and B from 12, R2 A
    from 12 and B from 13, R3 A from 13 and B from 11 (each PDU feeds an A side and a B side, so no whole
    side is one system: the blocks' own losses are the scenarios). Efficiency 1, limit 0.8 x rated.
    ``generator``: the PDU given the kind ``generator`` (its place and feeds unchanged)."""
    pdus = tuple(
        device(d, "generator" if d == generator else "pdu", kw, name=f"PDU-{d}")
        for d, kw in zip((11, 12, 13), pdu_kw, strict=True)
    )
    feeds = [feed(1, dev=2, fid=1), *(feed(2, dev=d, fid=d) for d in (11, 12, 13))]
    for r, (a, b) in enumerate(((11, 12), (12, 13), (13, 11)), start=1):
        feeds += [feed(a, rack=r, side="A", fid=100 + r), feed(b, rack=r, side="B", fid=200 + r)]
    return campus(
        racks=tuple(rack(r, 0, extra_it_kw=kw) for r, kw in enumerate(loads, start=1)),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0),),
        power_devices=(
            device(1, "substation", 1000.0, utility_feed_id=1),
            device(2, "ups", 500.0),
            *pdus,
        ),
        power_feeds=tuple(feeds),
    )


def test_a_pdu_of_kind_generator_in_the_chain_is_failed_and_binds_by_hand():
    # R1 40 kW, R2 10 kW, R3 20 kW (70 kW), half on each side. Added IT x goes to the racks like today's
    # load: 4/7, 1/7 and 2/7 of x. PDU-12 (rated 60, limit 48) carries R1's B half and R2's A half.
    #   healthy:        20 + 5 = 25 kW, s = (0.5 x 4 + 0.5 x 1) / 7 = 2.5/7 -> (48 - 25) x 7 / 2.5 = 64.4 kW
    #   PDU-13 lost:    R2 whole on 12: 20 + 10 = 30 kW, s = (2 + 1) / 7 = 3/7 -> 18 x 7 / 3 = 42 kW
    #   PDU-11 lost:    R1 whole on 12: 40 + 5 = 45 kW, s = (4 + 0.5) / 7 = 4.5/7 -> 3 x 7 / 4.5 = 4.666667 kW
    # The others after their worst loss: PDU-11 (limit 160) with PDU-12 lost: 40 + 10 = 50 kW, s = 5/7 ->
    # 110 x 7 / 5 = 154 kW; PDU-13 (limit 80) with 11 lost: 5 + 20 = 25, s = 2.5/7 -> 154 kW, with 12
    # lost: 10 + 10 = 20, s = 2/7 -> 210 kW; UPS-2 70 kW on 400 -> 330 kW; SUB-1 70 on 800 -> 730 kW.
    # So losing PDU-11 binds: 14/3 = 4.666667 kW, PDU-12 at 45 kW of its 48 (headroom 3 kW). Kind
    # ``generator``, PDU-11 was never failed: the figure was 42 kW (PDU-12 with PDU-13 lost).
    snap = ring()
    h = failover_headroom(snap)
    assert h.devices[12].worst_load_kw == pytest.approx(45.0)
    assert h.devices[12].headroom_kw == pytest.approx(3.0)
    assert h.devices[12].worst_failure.as_dict() == {"kind": "power", "id": 11, "name": "PDU-11"}
    assert h.devices[13].worst_load_kw == pytest.approx(25.0)
    assert h.devices[13].worst_failure.id == 11
    assert h.devices[11].worst_load_kw == pytest.approx(50.0)  # the generator's own row: PDU-12 lost
    for scope in (h.campus, h.buildings[1], h.halls[1]):
        assert scope.headroom_kw == pytest.approx(14.0 / 3.0)
        assert (scope.binding_kind, scope.binding_id) == ("pdu", 12)
        assert scope.binding_failure.as_dict() == {"kind": "power", "id": 11, "name": "PDU-11"}
    # the same figure as the ring with PDU-11 of kind pdu: the kind does not make a device standby
    plain = failover_headroom(ring(generator=None))
    assert plain.campus.headroom_kw == pytest.approx(14.0 / 3.0)
    assert plain.campus.binding_failure.id == 11


def test_a_generator_the_only_source_of_a_bus_is_named_as_the_binding_failure():
    # GEN-5 alone feeds PDU-11 (side A of R1 and R2, 10 kW each); U1 -> SUB-1 -> PDU-12 feeds side B. PDUs
    # rated 50 kW, limit 40. Healthy each PDU carries 10 kW at s = 0.5 per added kW -> (40 - 10) / 0.5 = 60.
    # Losing GEN-5 (or PDU-11, or side A) puts both racks on PDU-12: 20 kW at s = 1 -> 40 - 20 = 20 kW;
    # losing SUB-1 (or PDU-12, U1, side B) the same on PDU-11: 20 kW. A tie at 20 kW: the first scenario
    # in order keeps it, and the devices come in topological order, GEN-5 first (5, 11, 1, 12), so the
    # binding is PDU-12 after the loss of GEN-5. Before, GEN-5 was never failed: PDU-12 after PDU-11.
    snap = campus(
        racks=(rack(1, 0, extra_it_kw=10.0), rack(2, 0, extra_it_kw=10.0)),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0),),
        power_devices=(
            device(1, "substation", 1000.0, utility_feed_id=1),
            device(5, "generator", 3000.0, name="GEN-5"),
            device(11, "pdu", 50.0),
            device(12, "pdu", 50.0),
        ),
        power_feeds=(
            feed(5, dev=11, side="A", fid=1),
            feed(1, dev=12, side="B", fid=2),
            *(feed(11, rack=r, side="A", fid=100 + r) for r in (1, 2)),
            *(feed(12, rack=r, side="B", fid=200 + r) for r in (1, 2)),
        ),
    )
    assert power_graph(snap).order == [5, 11, 1, 12]
    h = failover_headroom(snap)
    assert h.campus.headroom_kw == pytest.approx(20.0)
    assert h.campus.binding_failure.as_dict() == {"kind": "power", "id": 5, "name": "GEN-5"}
    assert (h.campus.binding_kind, h.campus.binding_id) == ("pdu", 12)
    assert h.devices[12].worst_failure.id == 5
    # the generator carries side A, so impact mode finds its loss costs nothing (side B takes the racks)
    assert not [f for f in redundancy_check(snap) if f.device_id == 5]


# ---------------------------------------------------------------- brute force through the roll-up


def _brute_force_excess(snap) -> list[tuple]:
    """Each scope's headroom added to its racks like today's load (in proportion to their IT), then every
    power device (generators included) and every utility feed failed alone, and nothing failed, through the
    roll-up impact mode runs (``power.rollup`` with the element failed): every element still live must stay
    within its planning limit (devices ``rated_kw × max_utilization``, utility feeds ``capacity_kw``) and
    nothing may trip beyond the design's own trips. Returns the breaches (scope, failure, element, load /
    limit)."""
    g = power_graph(snap)
    h = failover_headroom(snap)
    load = {r.id: g.default_rack_load_kw[r.id] for r in snap.racks if g.rack_feeds.get(r.id)}
    scopes = [("campus", None, h.campus, set(load))]
    scopes += [("hall", i, row, {r.id for r in snap.racks if r.hall_id == i}) for i, row in h.halls.items()]
    scopes += [
        ("building", i, row, {r.id for r in snap.racks if r.building_id == i})
        for i, row in h.buildings.items()
    ]
    design_trips = {(k, i) for k, i, _ in rollup(snap).tripped}
    failures = [{}]
    failures += [{"failed": frozenset({d.id})} for d in snap.power_devices]
    failures += [{"failed_feeds": frozenset({u.id})} for u in snap.utility_feeds]
    limits = {d.id: d.rated_kw * d.max_utilization for d in snap.power_devices if d.rated_kw > 0}
    capacity = {u.id: u.capacity_kw for u in snap.utility_feeds if u.capacity_kw > 0}
    out = []
    for scope, ident, row, racks in scopes:
        racks &= set(load)
        if row.headroom_kw is None or not racks:
            continue
        assert row.placement == "load"
        total = sum(load[r] for r in racks)
        # the headroom installed as servers in the scope's racks, the whole model re-run
        grown = with_servers_scaled(snap, {r: 1.0 + row.headroom_kw / total for r in racks})
        for failed in failures:
            res = rollup(grown, **failed)
            where = (scope, ident, tuple(failed.values()))
            out += [(*where, "trip", k, i) for k, i, _ in res.tripped if (k, i) not in design_trips]
            for d, lim in limits.items():
                if d not in res.dead_devices and res.device_load_kw[d] > lim * (1 + 1e-7):
                    out.append((*where, "device", d, res.device_load_kw[d] / lim))
            for u, cap in capacity.items():
                if res.utility_load_kw.get(u, 0.0) > cap * (1 + 1e-7):
                    out.append((*where, "utility", u, res.utility_load_kw[u] / cap))
    return out


SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}
PARAMS = [
    {"cooling": "air", "power_redundancy": "N"},
    {"cooling": "air", "power_redundancy": "N+1"},
    {"cooling": "air", "power_redundancy": "2N", "cooling_redundancy": "N"},
    {"cooling": "liquid", "power_redundancy": "N+1"},
    {"cooling": "liquid", "power_redundancy": "2N"},
]


def _rekinded(snap, kind: str):
    """The first device of ``kind`` re-kinded ``generator``, its feeds unchanged."""
    first = min(d.id for d in snap.power_devices if d.kind == kind)
    devices = tuple(replace(d, kind="generator") if d.id == first else d for d in snap.power_devices)
    return replace(snap, power_devices=devices), first


def _generated():
    for p in PARAMS:
        snap = spec_snapshot(generate_spec("P", 256, **p, **SMALL))
        name = "-".join(p.values())
        yield pytest.param(snap, id=name)
        for kind in ("pdu", "ups"):
            yield pytest.param(_rekinded(snap, kind)[0], id=f"{name}-{kind}-as-generator")


@pytest.mark.parametrize("snap", list(_generated()))
def test_generated_campus_headroom_never_exceeds_a_brute_force_of_single_failures(snap):
    assert _brute_force_excess(snap) == []


@pytest.mark.parametrize("generator", [None, 11, 12, 13])
@pytest.mark.parametrize(
    ("loads", "pdu_kw"),
    [((40.0, 10.0, 20.0), (200.0, 60.0, 100.0)), ((5.0, 30.0, 15.0), (70.0, 90.0, 45.0))],
)
def test_ring_headroom_never_exceeds_a_brute_force_of_single_failures(loads, pdu_kw, generator):
    snap = ring(loads, pdu_kw, generator)
    assert _brute_force_excess(snap) == []
    if generator is not None:
        # impact mode fails the generator: its racks keep their other side, so it costs no GPU
        assert impact(snap, generator, "power").gpus_lost_power == 0
