"""Power roll-up, failover cascades, redundancy findings and stranded capacity on hand-built chains."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.power import power_graph, rollup
from campus.analysis.redundancy import redundancy_check
from campus.analysis.stranded import stranded_capacity
from tests.analysis.builders import UtilityFeedSnap, campus, device, feed, rack, replace, two_n


def test_2n_rack_load_splits_half_per_side():
    snap = two_n((10, 30))
    r = rollup(snap)
    assert r.feed_load_kw[101] == pytest.approx(5.0)
    assert r.feed_load_kw[201] == pytest.approx(5.0)
    assert r.device_load_kw[11] == pytest.approx(20.0)
    assert r.utility_load_kw == {1: pytest.approx(20.0), 2: pytest.approx(20.0)}
    assert r.total_input_kw == pytest.approx(40.0)
    assert not r.tripped and not r.racks_without_power and not r.rack_sides_lost


def test_b_side_carries_whole_rack_when_a_pdu_fails():
    r = rollup(two_n((10, 30)), failed=frozenset({11}))
    assert r.feed_load_kw[202] == pytest.approx(30.0)
    assert r.device_load_kw[12] == pytest.approx(40.0)
    assert r.device_load_kw[11] == 0.0
    assert r.rack_sides_lost == {1: {"A"}, 2: {"A"}}
    assert r.racks_without_power == set()
    assert 11 in r.dead_devices and 12 not in r.dead_devices


def test_b_side_trips_when_a_side_load_exceeds_rating():
    # 30 kW rack on 20 kW feeds: 15 kW per side is fine, 30 kW on B alone is not.
    snap = two_n((10, 30), feed_rating_kw=20.0)
    assert rollup(snap).tripped == []
    r = rollup(snap, failed=frozenset({11}))
    assert [(k, i) for k, i, _ in r.tripped] == [("feed", 202)]
    assert r.racks_without_power == {2}
    assert r.feed_load_kw[201] == pytest.approx(10.0)
    assert r.device_load_kw[12] == pytest.approx(10.0)


def test_pdu_overload_cascade_darkens_all_its_racks():
    r = rollup(two_n((10, 30), pdu_rated_kw=35.0), failed=frozenset({11}))
    assert [(k, i) for k, i, _ in r.tripped] == [("device", 12)]
    assert "40.0 kW > rated 35.0 kW" in r.tripped[0][2]
    assert r.racks_without_power == {1, 2}
    assert r.total_input_kw == 0.0


def test_downstream_breaker_trips_before_the_pdu_above_it():
    # Both the B feed of rack 2 (30 > 20) and PDU 12 (40 > 35) are overloaded; the feed opens first,
    # which leaves PDU 12 at 10 kW so it survives.
    r = rollup(two_n((10, 30), pdu_rated_kw=35.0, feed_rating_kw=20.0), failed=frozenset({11}))
    assert [(k, i) for k, i, _ in r.tripped] == [("feed", 202)]
    assert 12 not in r.dead_devices
    assert r.racks_without_power == {2}


def test_device_input_is_output_over_efficiency():
    snap = two_n((19,))
    snap = replace(
        snap, power_devices=tuple(replace(d, efficiency=0.95) if d.id == 1 else d for d in snap.power_devices)
    )
    r = rollup(snap)
    assert r.device_output_kw[1] == pytest.approx(9.5)
    assert r.device_load_kw[1] == pytest.approx(10.0)
    assert r.utility_load_kw[1] == pytest.approx(10.0)


def test_utilization_and_headroom_use_rated_and_planning_limits():
    r = rollup(two_n((10, 30)))
    assert r.device_utilization[11] == pytest.approx(0.2)
    assert r.device_headroom_kw[11] == pytest.approx(100 * 0.8 - 20)


def _n_plus_1(ups_rated_kw: float) -> object:
    """Three UPS (ids 1-3) share one switchboard 10 feeding a single-corded 60 kW rack."""
    devices = [device(i, "ups", ups_rated_kw, utility_feed_id=1) for i in (1, 2, 3)]
    devices.append(device(10, "switchgear", 1000.0))
    feeds = [feed(i, dev=10, side="N", fid=i) for i in (1, 2, 3)] + [feed(10, rack=1, fid=50)]
    return campus(
        racks=(rack(1, 60),),
        utility_feeds=(UtilityFeedSnap(1, "U", 1e6),),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
    )


def test_n_plus_1_ups_share_evenly_and_survive_one_loss():
    snap = _n_plus_1(ups_rated_kw=30.0)
    assert rollup(snap).device_load_kw[1] == pytest.approx(20.0)
    r = rollup(snap, failed=frozenset({3}))
    assert r.device_load_kw[1] == pytest.approx(30.0)
    assert r.tripped == [] and r.racks_without_power == set()


def test_n_plus_1_cascade_trips_survivors_in_order():
    r = rollup(_n_plus_1(ups_rated_kw=25.0), failed=frozenset({3}))
    # 60 kW over two UPS is 30 kW each > 25: both trip together (same depth), then the board dies.
    assert [(k, i) for k, i, _ in r.tripped] == [("device", 1), ("device", 2)]
    assert r.racks_without_power == {1}
    assert 10 in r.dead_devices


def _with_generator() -> object:
    devices = (
        device(1, "switchgear", 1000.0, utility_feed_id=1),
        device(2, "generator", 1000.0),
        device(3, "pdu", 1000.0),
    )
    feeds = (feed(2, dev=1, fid=1), feed(1, dev=3, fid=2), feed(3, rack=1, fid=3))
    return campus(
        racks=(rack(1, 10),),
        utility_feeds=(UtilityFeedSnap(1, "U", 1e6),),
        power_devices=devices,
        power_feeds=feeds,
    )


def test_generator_is_standby_while_the_utility_is_up():
    r = rollup(_with_generator())
    assert r.device_load_kw[2] == 0.0
    assert r.utility_load_kw[1] == pytest.approx(10.0)


def test_generator_carries_the_load_when_the_utility_feed_fails():
    r = rollup(_with_generator(), failed_feeds=frozenset({1}))
    assert r.device_load_kw[2] == pytest.approx(10.0)
    assert r.utility_load_kw[1] == 0.0
    assert r.racks_without_power == set()
    assert r.total_input_kw == pytest.approx(10.0)


def test_failed_utility_without_generator_darkens_single_corded_racks():
    snap = _with_generator()
    r = rollup(snap, failed=frozenset({2}), failed_feeds=frozenset({1}))
    assert r.racks_without_power == {1}
    assert r.rack_sides_lost == {1: {"N"}}


def test_rack_load_override_replaces_the_default_load():
    r = rollup(two_n((10, 30)), rack_load_kw={1: 4.0})
    assert r.feed_load_kw[101] == pytest.approx(2.0)
    assert r.device_load_kw[11] == pytest.approx(17.0)


def test_cycle_in_the_chain_is_rejected_with_device_names():
    snap = campus(power_devices=(device(1), device(2)), power_feeds=(feed(1, dev=2), feed(2, dev=1)))
    with pytest.raises(ValueError, match="cycle.*PDU-1"):
        rollup(snap)


def test_unknown_failed_device_is_rejected():
    with pytest.raises(ValueError, match="^failed:"):
        rollup(two_n(), failed=frozenset({999}))


def test_device_in_failed_status_is_dead_from_the_start():
    snap = two_n((10,))
    snap = replace(
        snap, power_devices=tuple(replace(d, status="failed") if d.id == 1 else d for d in snap.power_devices)
    )
    r = rollup(snap)
    assert {1, 11} <= r.dead_devices
    assert r.feed_load_kw[201] == pytest.approx(10.0)


def test_redundancy_check_finds_the_cascade_and_the_single_point():
    findings = {f.device_id: f for f in redundancy_check(two_n((10, 30), pdu_rated_kw=35.0))}
    assert findings[11].kind == "cascade"
    assert findings[11].racks_lost == [1, 2]
    assert findings[11].gpus_lost == 320
    assert [(k, i) for k, i, _ in findings[11].tripped] == [("device", 12)]
    assert redundancy_check(two_n((10, 30))) == []
    single = redundancy_check(_n_plus_1(ups_rated_kw=30.0))
    # the one utility feed behind all three UPS is a single point too
    assert [(f.device_kind, f.device_id, f.kind, f.effect, f.racks_lost) for f in single] == [
        ("utility", 1, "single-point", "power", [1]),
        ("power", 10, "single-point", "power", [1]),
    ]


def test_stranded_capacity_names_the_binding_constraint():
    # Feed pairs rated 50 (A) / 40 (B): provisioned 50; with one side lost the rack may draw 40, of which
    # the PDU's 0.8 planning limit keeps 8 kW as design margin (apart, not stranded): usable 32 (design 45
    # does not bind) -> 10 stranded by feed.
    snap = two_n((10,))
    feeds = tuple(
        replace(f, rating_kw=50.0 if f.side == "A" else 40.0) if f.rack_id else f for f in snap.power_feeds
    )
    snap = replace(
        snap, power_feeds=feeds, racks=(replace(snap.racks[0], design_kw=45.0),), grid_capacity_kw=1e9
    )
    s = stranded_capacity(snap)
    row = s.racks[1]
    assert (row.provisioned_kw, row.usable_kw, row.binding) == (50.0, 32.0, "feed")
    assert row.stranded_kw == pytest.approx(10.0)
    assert row.design_margin_kw == pytest.approx(8.0)
    # the binding is the constraint stranding the most: design 30 strands 32 - 30 = 2 kW, less than the
    # feed's 10, so the feed still binds; design 20 strands 12 and binds. The grid binds when it is small.
    snap2 = replace(snap, racks=(replace(snap.racks[0], design_kw=30.0),))
    assert stranded_capacity(snap2).racks[1].stranded_by_constraint_kw == {
        "feed": pytest.approx(10.0),
        "design": pytest.approx(2.0),
    }
    assert stranded_capacity(snap2).racks[1].binding == "feed"
    snap2 = replace(snap, racks=(replace(snap.racks[0], design_kw=20.0),))
    assert stranded_capacity(snap2).racks[1].binding == "design"
    snap3 = replace(snap, grid_capacity_kw=24.0)  # 24 / PUE 1.2 = 20 kW of IT: 32 - 20 = 12 more stranded
    row3 = stranded_capacity(snap3).campus
    assert row3.stranded_kw == pytest.approx(22.0) and row3.binding == "grid"


# ---------------------------------------------------------------- properties on random chains


@st.composite
def random_chain(draw):
    """Random layered chain: utilities -> UPS layer -> PDU layer -> racks, with random A/B wiring."""
    n_ups = draw(st.integers(1, 4))
    n_pdu = draw(st.integers(1, 6))
    n_racks = draw(st.integers(1, 8))
    eff = draw(st.sampled_from([1.0, 0.95]))
    devices = [device(i, "ups", 1e9, utility_feed_id=1 + i % 2, efficiency=eff) for i in range(1, n_ups + 1)]
    devices += [device(100 + j, "pdu", 1e9, efficiency=eff) for j in range(n_pdu)]
    feeds = []
    fid = 1
    for j in range(n_pdu):
        ups = draw(st.lists(st.integers(1, n_ups), min_size=1, max_size=n_ups, unique=True))
        for u in ups:
            feeds.append(feed(u, dev=100 + j, side=draw(st.sampled_from("ABN")), fid=fid))
            fid += 1
    racks = []
    for r in range(1, n_racks + 1):
        racks.append(rack(r, draw(st.integers(0, 20))))
        pdus = draw(st.lists(st.integers(0, n_pdu - 1), min_size=1, max_size=3, unique=True))
        for k, p in enumerate(pdus):
            feeds.append(feed(100 + p, rack=r, side="AB"[k % 2], fid=fid))
            fid += 1
    snap = campus(
        racks=tuple(racks),
        utility_feeds=(UtilityFeedSnap(1, "U1", 1e9), UtilityFeedSnap(2, "U2", 1e9)),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
    )
    failed = draw(st.frozensets(st.sampled_from([d.id for d in devices]), max_size=3))
    extra = draw(st.sampled_from([d.id for d in devices]))
    return snap, failed, extra


@settings(max_examples=150, deadline=None)
@given(random_chain())
def test_rollup_conserves_power_between_racks_and_utilities(case):
    snap, failed, _ = case
    r = rollup(snap, failed=failed)
    eff = snap.power_devices[0].efficiency
    powered = sum(snap.rack_it_kw(x) for x in snap.racks if x.id not in r.racks_without_power)
    # two device levels between rack and utility, each dividing by the same efficiency
    assert sum(r.utility_load_kw.values()) == pytest.approx(powered / eff**2, rel=1e-9, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(random_chain())
def test_failing_one_more_device_never_powers_more_racks(case):
    snap, failed, extra = case
    before = rollup(snap, failed=failed).racks_without_power
    after = rollup(snap, failed=failed | {extra}).racks_without_power
    assert before <= after


@settings(max_examples=100, deadline=None)
@given(random_chain(), st.floats(5.0, 60.0))
def test_incremental_failure_matches_a_snapshot_with_the_device_marked_failed(case, rating_kw):
    snap, failed, _ = case
    # finite ratings so cascades happen too
    snap = replace(
        snap,
        power_devices=tuple(
            replace(d, rated_kw=rating_kw) if d.kind == "pdu" else d for d in snap.power_devices
        ),
    )
    incremental = rollup(snap, failed=failed)
    marked = replace(
        snap,
        power_devices=tuple(replace(d, status="failed") if d.id in failed else d for d in snap.power_devices),
    )
    full = rollup(marked)
    assert incremental.racks_without_power == full.racks_without_power
    assert incremental.dead_devices == full.dead_devices
    assert incremental.tripped == full.tripped
    for k, v in full.device_load_kw.items():
        assert incremental.device_load_kw[k] == pytest.approx(v, abs=1e-9)


# ---------------------------------------------------------------- against a brute-force reference


def _reference(snap, failed, failed_utils, failed_power_feeds):
    """A direct, recursive reading of the roll-up rules, recomputed from scratch after every trip."""
    dead, dead_feeds, tripped = set(failed), set(failed_power_feeds), []
    while True:
        over, dark, loads = _reference_pass(snap, dead, dead_feeds, failed_utils)
        if not over:
            return tripped, dark, loads
        deepest = max(o[0] for o in over)
        for _, kind, ident in sorted((o for o in over if o[0] == deepest), key=lambda o: (o[1], o[2])):
            tripped.append((kind, ident))
            (dead if kind == "device" else dead_feeds).add(ident)


def _reference_pass(snap, dead, dead_feeds, failed_utils):
    devices = {d.id: d for d in snap.power_devices}
    ups = {d: [f for f in snap.power_feeds if f.downstream_device_id == d] for d in devices}
    downs = {d: [f for f in snap.power_feeds if f.upstream_id == d] for d in devices}
    rack_feeds = {
        r.id: [f for f in snap.power_feeds if f.rack_id == r.id and f.downstream_device_id is None]
        for r in snap.racks
    }
    live, inp, feed_load = {}, {}, {}

    def depth(d):
        return max((depth(f.upstream_id) + 1 for f in ups[d]), default=0)

    def utility_ok(dev):
        return dev.utility_feed_id is not None and dev.utility_feed_id not in failed_utils

    def is_live(d):
        if d not in live:
            dev = devices[d]
            live[d] = d not in dead and (
                (not ups[d] and dev.utility_feed_id is None)
                or utility_ok(dev)
                or any(f.id not in dead_feeds and is_live(f.upstream_id) for f in ups[d])
            )
        return live[d]

    def feed_ok(f):
        return f.id not in dead_feeds and is_live(f.upstream_id)

    def split(feeds, load, extra_utility=False):
        groups = {"utility": [None]} if extra_utility else {}
        for f in feeds:
            groups.setdefault(f.side, []).append(f)
        return {
            f.id: load / len(groups) / len(members)
            for members in groups.values()
            for f in members
            if f is not None
        }

    for r in snap.racks:
        feed_load.update(split([f for f in rack_feeds[r.id] if feed_ok(f)], snap.rack_it_kw(r)))

    def device_in(d):
        if d not in inp:
            out = sum(feed_load_of(f) for f in downs[d]) if is_live(d) else 0.0
            inp[d] = out / devices[d].efficiency
        return inp[d]

    def feed_load_of(f):
        if f.downstream_device_id is None:
            return feed_load.get(f.id, 0.0)
        child = f.downstream_device_id
        if not is_live(child):
            return 0.0
        util_ok = utility_ok(devices[child])
        live_feeds = [x for x in ups[child] if feed_ok(x)]
        normal = [x for x in live_feeds if devices[x.upstream_id].kind != "generator"]
        chosen = normal if (normal or util_ok) else live_feeds
        return split(chosen, device_in(child), util_ok).get(f.id, 0.0)

    over = []
    for d, dev in devices.items():
        if is_live(d) and device_in(d) > dev.rated_kw * (1 + 1e-9):
            over.append((depth(d), "device", d))
    for f in snap.power_feeds:
        if feed_ok(f) and feed_load_of(f) > f.rating_kw * (1 + 1e-9):
            over.append((depth(f.upstream_id) + 0.5, "feed", f.id))
    dark = {r for r, fs in rack_feeds.items() if fs and not any(feed_ok(f) for f in fs)}
    return over, dark, {d: device_in(d) for d in devices}


@st.composite
def random_chain_with_generators(draw):
    snap, failed, _ = draw(random_chain())
    rating = draw(st.floats(5.0, 80.0))
    feed_rating = draw(st.floats(3.0, 40.0))
    gen = device(900, "generator", draw(st.floats(10.0, 200.0)))
    ups_ids = [d.id for d in snap.power_devices if d.kind == "ups"]
    backed = draw(st.lists(st.sampled_from(ups_ids), unique=True))
    devices = tuple(replace(d, rated_kw=rating) if d.kind == "pdu" else d for d in snap.power_devices) + (
        gen,
    )
    feeds = tuple(replace(f, rating_kw=feed_rating) if f.rack_id is not None else f for f in snap.power_feeds)
    feeds += tuple(feed(900, dev=u, fid=5000 + u) for u in backed)
    snap = replace(snap, power_devices=devices, power_feeds=feeds)
    failed_utils = draw(st.frozensets(st.sampled_from([1, 2]), max_size=2))
    failed_pf = draw(st.frozensets(st.sampled_from([f.id for f in feeds]), max_size=2))
    return snap, failed, failed_utils, failed_pf


@settings(max_examples=200, deadline=None)
@given(random_chain_with_generators())
def test_incremental_rollup_matches_a_brute_force_reference(case):
    snap, failed, failed_utils, failed_pf = case
    got = rollup(snap, failed=failed, failed_feeds=failed_utils, failed_power_feeds=failed_pf)
    tripped, dark, loads = _reference(snap, failed, failed_utils, failed_pf)
    assert [(k, i) for k, i, _ in got.tripped] == tripped
    assert got.racks_without_power == dark
    for d, v in loads.items():
        assert got.device_load_kw[d] == pytest.approx(v, abs=1e-9)


def test_cut_rack_feed_moves_the_rack_to_its_other_side():
    r = rollup(two_n((10, 30)), failed_power_feeds=frozenset({102}))
    assert r.rack_sides_lost == {2: {"A"}}
    assert r.feed_load_kw[202] == pytest.approx(30.0)
    assert r.device_load_kw[11] == pytest.approx(5.0)


def test_failure_and_load_override_combine():
    r = rollup(two_n((10, 30)), failed=frozenset({11}), rack_load_kw={2: 12.0})
    assert r.device_load_kw[12] == pytest.approx(22.0)
    assert r.feed_load_kw[202] == pytest.approx(12.0)


def test_unknown_utility_feed_is_rejected():
    with pytest.raises(ValueError, match="^failed_feeds:"):
        rollup(two_n(), failed_feeds=frozenset({77}))


def test_redundancy_check_ignores_trips_the_design_load_already_causes():
    snap = two_n((10, 30))
    # a separate, single-corded chain that is overloaded as designed
    overloaded = device(50, "pdu", 5.0, utility_feed_id=3)
    snap = replace(
        snap,
        racks=snap.racks + (rack(3, 10),),
        utility_feeds=snap.utility_feeds + (UtilityFeedSnap(3, "U3", 100.0),),
        power_devices=snap.power_devices + (overloaded,),
        power_feeds=snap.power_feeds + (feed(50, rack=3, fid=300),),
    )
    assert [(k, i) for k, i, _ in rollup(snap).tripped] == [("device", 50)]
    assert redundancy_check(snap) == []


@settings(max_examples=100, deadline=None)
@given(random_chain(), st.floats(1.0, 100.0), st.floats(1.0, 1e5))
def test_stranded_never_exceeds_provisioned_and_usable_never_exceeds_any_limit(case, design_kw, grid_kw):
    snap, _, _ = case
    feeds = tuple(replace(f, rating_kw=5.0 + (f.id % 7) * 3.0) if f.rack_id else f for f in snap.power_feeds)
    snap = replace(
        snap,
        power_feeds=feeds,
        racks=tuple(replace(r, design_kw=design_kw) for r in snap.racks),
        grid_capacity_kw=grid_kw,
    )
    result = stranded_capacity(snap)
    g = power_graph(snap)
    for rid, row in result.racks.items():
        assert 0.0 <= row.usable_kw <= row.provisioned_kw
        # the design binds, unless the rack holds more than it (then its load is in use, not stranded)
        own = snap.rack_it_kw(next(r for r in snap.racks if r.id == rid))
        carried = g.load_kw[rid] / own if own > 0 else 1.0
        assert row.usable_kw <= max(design_kw, own) * carried + 1e-9
        # the planning margin is reported apart: provisioned = margin + usable + stranded
        assert row.stranded_kw == pytest.approx(row.provisioned_kw - row.design_margin_kw - row.usable_kw)
    # halls and the campus only add constraints (upstream, cooling, grid) on top of the racks'; space
    # strands upstream capacity beyond the racks' provision
    c = result.campus
    space = c.stranded_by_constraint_kw.get("space", 0.0)
    assert c.stranded_kw - space == pytest.approx(
        c.provisioned_kw - c.design_margin_kw - c.usable_kw, abs=1e-6
    )
    assert c.stranded_kw >= sum(r.stranded_kw for r in result.racks.values()) - 1e-6
