"""Failover-aware headroom: hand calculations, an N+1 group, empty halls and properties against brute force."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.cards import building_cards
from campus.analysis.headroom import failover_headroom
from campus.analysis.power import rollup
from campus.analysis.summary import campus_summary
from tests.analysis.builders import (
    CoolingPlantSnap,
    CoolingUnitSnap,
    HallSnap,
    UtilityFeedSnap,
    campus,
    device,
    feed,
    rack,
    replace,
)


def two_substations(load_kw: float = 300.0, rated_kw: float = 1000.0, eff: float = 0.98):
    """utility 1 -> SUB-A, utility 2 -> SUB-B; one rack fed A from SUB-A and B from SUB-B."""
    return campus(
        racks=(rack(1, 0, extra_it_kw=load_kw),),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0), UtilityFeedSnap(2, "U2", 5000.0)),
        power_devices=(
            device(1, "substation", rated_kw, efficiency=eff, utility_feed_id=1),
            device(2, "substation", rated_kw, efficiency=eff, utility_feed_id=2),
        ),
        power_feeds=(feed(1, rack=1, side="A", fid=1), feed(2, rack=1, side="B", fid=2)),
    )


def test_2n_substations_by_hand():
    # X = 1000 kW, e = 0.98, planning limit 0.8, L = 300 kW of IT.
    # One side lost: the other substation carries the whole rack: 300 / 0.98 = 306.122449 kW at its input.
    # Device headroom = 1000 x 0.8 - 306.122449 = 493.877551 kW (input side).
    # IT that can be added: (800 - (300 + x) / 0.98) = 0  ->  x = 800 x 0.98 - 300 = 484.0 kW.
    snap = two_substations()
    h = failover_headroom(snap)
    for d in (1, 2):
        assert h.devices[d].worst_load_kw == pytest.approx(306.122449, abs=1e-6)
        assert h.devices[d].headroom_kw == pytest.approx(493.877551, abs=1e-6)
        assert h.devices[d].load_kw == pytest.approx(153.061224, abs=1e-6)  # healthy: half each
    assert h.campus.headroom_kw == pytest.approx(484.0, abs=1e-6)
    assert h.halls[1].headroom_kw == pytest.approx(484.0, abs=1e-6)
    assert h.buildings[1].headroom_kw == pytest.approx(484.0, abs=1e-6)
    assert h.campus.binding_kind == "substation"
    # the binding failure takes out the other side
    other = 2 if h.campus.binding_id == 1 else 1
    assert h.campus.binding_failure.kind in ("power", "side")
    if h.campus.binding_failure.kind == "power":
        assert h.campus.binding_failure.id == other
    # utility feeds: 5000 - 306.122449 with the other side lost
    assert h.utilities[1].headroom_kw == pytest.approx(4693.877551, abs=1e-6)


def test_building_card_headroom_is_failover_aware():
    # The old card added both substations' healthy headroom: 2 x (800 - 153.06) = 1293.9 kW.
    cards = building_cards(two_substations())
    assert cards[0]["headroom_mw"] == pytest.approx(0.484, abs=1e-9)
    assert cards[0]["headroom_both_sides_mw"] == pytest.approx(1.293878, abs=1e-6)
    assert cards[0]["headroom_binding"]["kind"] == "substation"


def test_summary_reports_campus_headroom_after_failover():
    power = campus_summary(two_substations(), include_redundancy=False)["power"]
    assert power["headroom_after_failover_mw"] == pytest.approx(0.484, abs=1e-9)
    assert power["headroom_binding"]["kind"] == "substation"


def n_plus_1(load_kw: float = 171.0):
    """Four UPS modules (100 kW, eff 0.95, utility-fed) share one PDU (side N) that feeds one rack."""
    ups = tuple(device(i, "ups", 100.0, efficiency=0.95, utility_feed_id=1) for i in (1, 2, 3, 4))
    return campus(
        racks=(rack(1, 0, extra_it_kw=load_kw),),
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0),),
        power_devices=(*ups, device(10, "pdu", 1000.0)),
        power_feeds=(*(feed(i, dev=10, side="N", fid=i) for i in (1, 2, 3, 4)), feed(10, rack=1, fid=10)),
    )


def test_n_plus_1_ups_modules_by_hand():
    # 171 kW over 4 modules: 171 / 4 / 0.95 = 45 kW each. One lost: 171 / 3 / 0.95 = 60 kW each.
    # Planning limit 100 x 0.8 = 80 kW -> headroom 20 kW per module.
    # Added IT: (171 + x) / 3 / 0.95 = 80  ->  x = 228 - 171 = 57 kW (the PDU, 800 kW, is not binding).
    h = failover_headroom(n_plus_1())
    for d in (1, 2, 3, 4):
        assert h.devices[d].load_kw == pytest.approx(45.0)
        assert h.devices[d].worst_load_kw == pytest.approx(60.0)
        assert h.devices[d].headroom_kw == pytest.approx(20.0)
        assert h.devices[d].worst_failure.kind == "power"
        assert h.devices[d].worst_failure.id in {1, 2, 3, 4} - {d}
    assert h.campus.headroom_kw == pytest.approx(57.0)
    assert h.campus.binding_kind == "ups"


def test_empty_hall_is_placed_by_design_and_a_hall_without_racks_has_none():
    snap = two_substations()
    snap = replace(
        snap,
        halls=(*snap.halls, HallSnap(2, 1, "H2", 20.0, 20.0), HallSnap(3, 1, "H3", 20.0, 20.0)),
        racks=(*snap.racks, rack(2, 0, hall_id=2, design_kw=40.0), rack(3, 0, hall_id=2, design_kw=40.0)),
        power_feeds=(
            *snap.power_feeds,
            *(feed(s, rack=r, side="AB"[s - 1], fid=10 * r + s) for r in (2, 3) for s in (1, 2)),
        ),
    )
    h = failover_headroom(snap)
    # Hall 2 carries nothing yet: its added load goes to its racks by design_kw, and it competes with
    # hall 1's 300 kW for the same substations: 784 - 300 = 484 kW.
    assert h.halls[2].placement == "design"
    assert h.halls[2].headroom_kw == pytest.approx(484.0)
    assert h.halls[3].headroom_kw is None
    assert h.halls[3].binding_id is None


def _assert_headroom_is_tight(snap, h) -> None:
    """Brute force: add the campus headroom like today's load and roll it up under every scenario."""
    load = {r.id: snap.rack_it_kw(r) for r in snap.racks}
    total = sum(load.values())
    extra = h.campus.headroom_kw
    bumped = {rid: kw + extra * kw / total for rid, kw in load.items()}
    limits = {d.id: d.rated_kw * d.max_utilization for d in snap.power_devices}
    scenarios = [{}] + [{"failed": frozenset({d.id})} for d in snap.power_devices if d.kind != "generator"]
    scenarios += [{"failed_feeds": frozenset({u.id})} for u in snap.utility_feeds]
    scenarios += [
        {"failed_power_feeds": frozenset(f.id for f in snap.power_feeds if f.side == s)} for s in "AB"
    ]
    worst = 0.0
    for kw in scenarios:
        res = rollup(snap, rack_load_kw=bumped, **kw)
        for d, lim in limits.items():
            if d in res.dead_devices:
                continue
            worst = max(worst, res.device_load_kw[d] / lim)
    assert worst == pytest.approx(1.0, rel=1e-9)


chain_params = st.fixed_dictionaries(
    {
        "loads": st.lists(st.floats(1.0, 200.0), min_size=1, max_size=4),
        "pdu_kw": st.lists(st.floats(300.0, 1500.0), min_size=2, max_size=2),
        "sub_kw": st.floats(500.0, 3000.0),
        "eff": st.floats(0.9, 1.0),
        "ups": st.integers(2, 4),
        "generators": st.booleans(),
    }
)


def random_chain(p, bump: tuple[int, float] | None = None):
    """Substations A/B -> per side ``ups`` modules on one bus (N+1) -> PDU A/B -> racks fed A and B."""
    devices = [
        device(1, "substation", p["sub_kw"], efficiency=p["eff"], utility_feed_id=1),
        device(2, "substation", p["sub_kw"], efficiency=p["eff"], utility_feed_id=2),
        device(11, "pdu", p["pdu_kw"][0], efficiency=p["eff"]),
        device(12, "pdu", p["pdu_kw"][1], efficiency=p["eff"]),
    ]
    feeds = []
    for s, sub, pdu in ((0, 1, 11), (1, 2, 12)):
        for u in range(p["ups"]):
            uid = 100 + 10 * s + u
            devices.append(device(uid, "ups", 1200.0 / (p["ups"] - 1), efficiency=0.96))
            feeds.append(feed(sub, dev=uid, side="AB"[s], fid=uid))
            feeds.append(feed(uid, dev=pdu, side="AB"[s], fid=1000 + uid))
            if p["generators"]:  # a standby set behind each module: carries it when the substation is lost
                devices.append(device(uid + 50, "generator", 2000.0 / (p["ups"] - 1), efficiency=1.0))
                feeds.append(feed(uid + 50, dev=uid, side="AB"[s], fid=2000 + uid))
    racks = []
    for i, kw in enumerate(p["loads"]):
        kw = kw + (bump[1] if bump and bump[0] == i else 0.0)
        racks.append(rack(i + 1, 0, extra_it_kw=kw))
        feeds.append(feed(11, rack=i + 1, side="A", fid=5000 + i))
        feeds.append(feed(12, rack=i + 1, side="B", fid=6000 + i))
    return campus(
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 1e6), UtilityFeedSnap(2, "U2", 1e6)),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
    )


@settings(max_examples=40, deadline=None)
@given(chain_params, st.integers(0, 3), st.floats(0.1, 100.0))
def test_adding_load_never_raises_headroom(p, which, extra_kw):
    which = which % len(p["loads"])
    before = failover_headroom(random_chain(p))
    after = failover_headroom(random_chain(p, (which, extra_kw)))
    for d, row in before.devices.items():
        assert after.devices[d].headroom_kw <= row.headroom_kw + 1e-9
    # growing every rack in proportion keeps the placement, so the campus figure drops by exactly that
    scaled = dict(p, loads=[kw * 1.5 for kw in p["loads"]])
    grown = failover_headroom(random_chain(scaled))
    assert grown.campus.headroom_kw == pytest.approx(
        before.campus.headroom_kw - 0.5 * sum(p["loads"]), abs=1e-6
    )


@settings(max_examples=25, deadline=None)
@given(chain_params)
def test_campus_headroom_brings_the_binding_device_exactly_to_its_limit(p):
    snap = random_chain(p)
    _assert_headroom_is_tight(snap, failover_headroom(snap))


# ---------------------------------------------------------------- the cooling power added IT brings


def _cooled_2n(mpdu_kw: float = 40.0):
    """``two_substations`` (300 kW rack, 2N, e = 0.98) whose rack's rear door is served by a CDU fed from
    both substations, on a chiller of COP 15 fed from mechanical PDU 21 (under SUB-A) and 22 (under SUB-B)."""
    snap = two_substations()
    return replace(
        snap,
        racks=(replace(snap.racks[0], cooling_type="rear-door", cooling_unit_id=1),),
        power_devices=snap.power_devices + (device(21, "pdu", mpdu_kw), device(22, "pdu", mpdu_kw)),
        power_feeds=snap.power_feeds + (feed(1, dev=21, side="A", fid=21), feed(2, dev=22, side="B", fid=22)),
        cooling_units=(CoolingUnitSnap(1, "CDU-1", "cdu", 1000.0, 30.0, 40.0, 0.0, 1, 1, 1, "", 2),),
        cooling_plants=(CoolingPlantSnap(1, "CH-1", "chiller", 1000.0, 15.0, 1, 21, power_device_b_id=22),),
    )


def test_headroom_counts_the_pumps_and_chiller_that_added_it_brings_by_hand():
    # Rear door: all 300 kW of rack heat to the CDU; pumps 2% (catalog cdu_pump_kw_per_kw_heat) = 6 kW; the
    # chiller takes 300 + 6 = 306 kW at COP 15 = 20.4 kW, half on each mechanical PDU, all of it on one
    # when the other is lost. Per added IT kW x: pumps 0.02 x, chiller (1.02 x) / 15 = 0.068 x.
    # MPDU: limit 0.8 x 40 = 32 kW; 32 - 20.4 = 11.6 kW -> x = 11.6 / 0.068 = 170.588235 kW (binds).
    # Substation with the other side lost: (300 + 6 + 20.4 + 1.088 x) / 0.98 <= 800
    # -> x = (784 - 326.4) / 1.088 = 420.588235 kW. IT kW alone (no cooling) would give 784 - 326.4 = 457.6.
    snap = _cooled_2n()
    h = failover_headroom(snap)
    assert h.devices[21].worst_load_kw == pytest.approx(20.4)
    assert h.campus.headroom_kw == pytest.approx(170.588235, abs=1e-6)
    assert h.campus.binding_kind == "pdu" and h.campus.binding_id in (21, 22)
    assert h.buildings[1].headroom_kw == pytest.approx(170.588235, abs=1e-6)
    # with mechanical PDUs big enough, the substation binds at the figure that counts pumps and chiller
    roomy = failover_headroom(_cooled_2n(mpdu_kw=1000.0))
    assert roomy.campus.headroom_kw == pytest.approx(420.588235, abs=1e-6)
    assert roomy.campus.binding_kind == "substation"
    # brute force: the roll-up at the bumped load (its pumps and chiller follow) reaches the limit exactly
    _assert_headroom_is_tight(snap, h)
    _assert_headroom_is_tight(_cooled_2n(mpdu_kw=1000.0), roomy)


def test_mechanical_loads_follow_the_racks_given_load():
    # The rack capped to 150 kW: pumps 2% = 3 kW, chiller (150 + 3) / 15 = 10.2 kW (design: 6 and 20.4).
    r = rollup(_cooled_2n(), rack_load_kw={1: 150.0})
    assert r.mechanical_load_kw[("unit", 1)] == pytest.approx(3.0)
    assert r.mechanical_load_kw[("plant", 1)] == pytest.approx(10.2)
    assert r.device_load_kw[21] == pytest.approx(5.1)
    design = rollup(_cooled_2n())
    assert design.mechanical_load_kw[("plant", 1)] == pytest.approx(20.4)


@settings(max_examples=40, deadline=None)
@given(
    chain_params,
    st.floats(1.5, 20.0),
    st.sampled_from(["rear-door", "air"]),
    st.booleans(),
    st.floats(0.5, 1.0),
)
def test_headroom_with_cooling_is_tight_against_the_rolled_up_campus(p, cop, cooling, dual, share):
    # The random chain's racks on one cooling unit (a CDU behind rear doors, or a CRAH for air racks) fed
    # from PDU 11 (and 12 when dual-fed), on a plant fed from both PDUs. Brute force: the roll-up at the
    # bumped load, whose pumps, fans and plant follow the heat, brings the binding device exactly to its
    # limit; without the cooling power in the probe it would overshoot.
    snap = random_chain(p)
    kind = "crah" if cooling == "air" else "cdu"
    heat_kw = sum(p["loads"])
    unit = CoolingUnitSnap(1, "U-1", kind, 10 * heat_kw, 20.0, 30.0, 0.0, 1, 11, 1, "", 12 if dual else None)
    plant = CoolingPlantSnap(1, "P-1", "chiller", 10 * heat_kw, cop, 1, 11, power_device_b_id=12)
    snap = replace(
        snap,
        racks=tuple(replace(r, cooling_type=cooling, cooling_unit_id=1) for r in snap.racks),
        cooling_units=(unit,),
        cooling_plants=(plant,),
        # a tighter PDU pair, so the cooling power is a visible part of what binds
        power_devices=tuple(
            replace(d, rated_kw=d.rated_kw * share) if d.id in (11, 12) else d for d in snap.power_devices
        ),
    )
    h = failover_headroom(snap)
    if h.campus.headroom_kw is not None and h.campus.headroom_kw > 0:
        _assert_headroom_is_tight(snap, h)
