"""The solver of the power roll-up: liveness, the load splits, overload trips and the cascade, solved once
for the healthy chain and then incrementally per failure (the rules: ``campus.analysis.power``)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from campus.analysis.power_graph import PowerGraph

# Relative tolerance before an element counts as overloaded (floating point noise of the split).
OVERLOAD_TOLERANCE = 1e-9
# Pseudo side of a device's direct utility connection when its sources are grouped by side.
UTILITY_SIDE = "utility"


# ---------------------------------------------------------------- the solver


@dataclass
class _State:
    """Solved values; in an incremental solve only the affected elements are present."""

    live: dict[int, bool] = field(default_factory=dict)  # device id -> alive
    feed_live: dict[int, bool] = field(default_factory=dict)
    feed_load_kw: dict[int, float] = field(default_factory=dict)
    out_kw: dict[int, float] = field(default_factory=dict)
    in_kw: dict[int, float] = field(default_factory=dict)
    utility_share_kw: dict[int, float] = field(default_factory=dict)  # device id -> kW drawn from its utility
    racks: set[int] = field(default_factory=set)  # racks re-solved
    overloads: list[tuple[float, str, int, str]] | None = None  # of a full solve, computed on demand


def _split(groups: dict[str, list[int]], load_kw: float, out: dict[int, float]) -> None:
    """Evenly over the live sides, then evenly over the live feeds of a side."""
    per_side = load_kw / len(groups)
    for ids in groups.values():
        share = per_side / len(ids)
        for i in ids:
            out[i] = share


def _alive(
    g: PowerGraph,
    d: int,
    dead_devices: frozenset[int] | set[int],
    dead_feeds: frozenset[int] | set[int],
    failed_utilities: frozenset[int],
    is_live: Callable[[int], bool],
) -> bool:
    """A device lives unless dead itself or cut off from every source (its utility and its feeds)."""
    if d in dead_devices:
        return False
    ups = g.up_feeds[d]
    util = g.devices[d].utility_feed_id
    if not ups and util is None:
        return True  # a standalone source (generator, or a chain whose grid side is not modelled)
    if util is not None and util not in failed_utilities:
        return True
    feeds = g.feeds
    return any(fid not in dead_feeds and is_live(feeds[fid].upstream_id) for fid in ups)


def liveness_changes(
    g: PowerGraph,
    base: _State,
    seeds: Iterable[int],
    dead_devices: set[int],
    dead_feeds: set[int],
    failed_utilities: frozenset[int],
) -> set[int]:
    """Devices whose liveness differs from the baseline, walking down from the seeds in topological
    order and stopping wherever a device keeps its baseline state."""
    flipped: dict[int, bool] = {}

    def is_live(d: int) -> bool:
        v = flipped.get(d)
        return base.live[d] if v is None else v

    heap = [(g.pos[d], d) for d in set(seeds)]
    heapq.heapify(heap)
    seen: set[int] = set()
    while heap:
        _, d = heapq.heappop(heap)
        if d in seen:
            continue
        seen.add(d)
        alive = _alive(g, d, dead_devices, dead_feeds, failed_utilities, is_live)
        if alive == base.live[d]:
            continue
        flipped[d] = alive
        for fid in g.down_feeds[d]:
            child = g.feeds[fid].downstream_device_id
            if child is not None and child not in seen:
                heapq.heappush(heap, (g.pos[child], child))
    return set(flipped)


def _solve(
    g: PowerGraph,
    base: _State | None,
    dead_devices: frozenset[int] | set[int],
    dead_feeds: frozenset[int] | set[int],
    failed_utilities: frozenset[int],
    rack_load_kw: Mapping[int, float] | None,
    affected: set[int] | None = None,
    affected_racks: set[int] | None = None,
) -> _State:
    """Solve liveness and loads; with ``base`` only ``affected`` devices and racks are re-solved."""
    st = _State()
    feeds, devices = g.feeds, g.devices
    if base is None:
        order = g.order
        racks: Iterable[int] = g.load_feeds.keys()
    else:
        assert affected is not None and affected_racks is not None
        order = sorted(affected, key=g.pos.__getitem__)
        racks = affected_racks
    live, feed_live, feed_load = st.live, st.feed_live, st.feed_load_kw
    base_live = base.live if base is not None else {}
    base_feed_load = base.feed_load_kw if base is not None else {}

    def is_live(d: int) -> bool:
        v = live.get(d)
        return base_live[d] if v is None else v

    # liveness, top down
    for d in order:
        alive = _alive(g, d, dead_devices, dead_feeds, failed_utilities, is_live)
        live[d] = alive
        for fid in g.down_feeds[d]:
            feed_live[fid] = alive and fid not in dead_feeds

    def feed_is_live(fid: int) -> bool:
        v = feed_live.get(fid)
        if v is None:
            v = fid not in dead_feeds and is_live(feeds[fid].upstream_id)
            feed_live[fid] = v
        return v

    # rack feeds (the hot loop of a what-if: inlined lookups)
    default_load = g.load_kw
    rack_info = g.load_feed_info
    st.racks = set(racks)
    for rid in st.racks:
        groups: dict[str, list[int]] = {}
        for fid, side, up in rack_info.get(rid, ()):
            feed_load[fid] = 0.0
            ok = feed_live.get(fid)
            if ok is None:
                if fid in dead_feeds:
                    ok = False
                else:
                    lv = live.get(up)
                    ok = base_live[up] if lv is None else lv
                feed_live[fid] = ok
            if ok:
                members = groups.get(side)
                if members is None:
                    groups[side] = [fid]
                else:
                    members.append(fid)
        if groups:
            if rack_load_kw is not None:
                load = rack_load_kw.get(rid, default_load.get(rid, 0.0))
            else:
                load = default_load.get(rid, 0.0)
            _split(groups, load, feed_load)

    def load_of(fid: int) -> float:
        v = feed_load.get(fid)
        return base_feed_load.get(fid, 0.0) if v is None else v

    # device loads, bottom up
    for d in reversed(order):
        dev = devices[d]
        ups = g.up_feeds[d]
        for fid in ups:
            feed_load[fid] = 0.0
        if not is_live(d):
            st.out_kw[d] = 0.0
            st.in_kw[d] = 0.0
            if dev.utility_feed_id is not None:
                st.utility_share_kw[d] = 0.0
            continue
        out = 0.0
        for fid in g.down_feeds[d]:
            out += load_of(fid)
        inp = out / dev.efficiency if dev.efficiency > 0 else out
        st.out_kw[d] = out
        st.in_kw[d] = inp
        groups = {}
        util = dev.utility_feed_id
        if util is not None and util not in failed_utilities:
            groups[UTILITY_SIDE] = [-1]
        for fid in ups:
            if feed_is_live(fid) and feeds[fid].upstream_id not in g.generators:
                groups.setdefault(feeds[fid].side, []).append(fid)
        if not groups:
            for fid in ups:
                if feed_is_live(fid):
                    groups.setdefault(feeds[fid].side, []).append(fid)
        if groups:
            _split(groups, inp, feed_load)
        util_share = feed_load.pop(-1, 0.0)
        if util is not None:
            st.utility_share_kw[d] = util_share
    return st


def baseline_state(g: PowerGraph) -> _State:
    """The healthy solve (no failure, no trip yet), once per graph."""
    st = g.memo.get("baseline")
    if st is None:
        st = g.memo["baseline"] = _solve(g, None, g.status_dead, frozenset(), frozenset(), None)
    return st  # type: ignore[return-value]


def _overloads(
    g: PowerGraph,
    st: _State,
    base: _State | None,
    skip_devices: set[int],
    skip_feeds: set[int],
    skip_utilities: frozenset[int] | set[int] = frozenset(),
) -> list[tuple[float, str, int, str]]:
    """Overloaded live elements as (depth, kind, id, reason); deeper = further downstream. A utility feed
    (depth -1, above every device) trips above its ``capacity_kw``, the connection's protection."""
    found: list[tuple[float, str, int, str]] = []
    tol = 1.0 + OVERLOAD_TOLERANCE
    for u, capacity in g.utility_capacity_kw.items():
        if u in skip_utilities:
            continue
        shares = st.utility_share_kw
        fallback = base.utility_share_kw if base is not None else {}
        load = sum(shares.get(d, fallback.get(d, 0.0)) for d in g.by_utility.get(u, ()))
        if load > capacity * tol:
            found.append((-1.0, "utility", u, f"overload {load:.1f} kW > capacity {capacity:.1f} kW"))

    def check_device(d: int, load: float) -> None:
        rated = g.devices[d].rated_kw
        if rated > 0 and load > rated * tol and d not in skip_devices:
            found.append((g.depth[d], "device", d, f"overload {load:.1f} kW > rated {rated:.1f} kW"))

    def check_feed(fid: int, load: float) -> None:
        rating = g.feeds[fid].rating_kw
        if rating > 0 and load > rating * tol and fid not in skip_feeds:
            depth = g.depth[g.feeds[fid].upstream_id] + 0.5
            found.append((depth, "feed", fid, f"overload {load:.1f} kW > rating {rating:.1f} kW"))

    for d, load in st.in_kw.items():
        check_device(d, load)
    for fid, load in st.feed_load_kw.items():
        check_feed(fid, load)
    if base is not None:
        # only the baseline's own overloads can matter outside the re-solved region
        for _, kind, ident, _ in _baseline_overloads(g, base):
            if kind == "device" and ident not in st.in_kw:
                check_device(ident, base.in_kw[ident])
            elif kind == "feed" and ident not in st.feed_load_kw:
                check_feed(ident, base.feed_load_kw[ident])
    return found


def _baseline_overloads(g: PowerGraph, base: _State) -> list[tuple[float, str, int, str]]:
    if base.overloads is None:
        base.overloads = _overloads(g, base, None, set(), set())
    return base.overloads


@dataclass
class _Outcome:
    state: _State
    base: _State
    dead_devices: set[int]
    dead_feeds: set[int]
    tripped: list[tuple[str, int, str]]
    failed_utilities: frozenset[int] = frozenset()  # failed or tripped


def failure_seeds(
    g: PowerGraph, dead_devices: set[int], dead_feeds: set[int], utility_hit: set[int]
) -> set[int]:
    """The devices a failure starts from: those out beyond the healthy chain's own, those a failed utility
    feeds, and both ends of each failed feed."""
    seeds = (dead_devices - g.status_dead) | utility_hit
    for fid in dead_feeds:
        f = g.feeds[fid]
        seeds.add(f.upstream_id)
        if f.downstream_device_id is not None:
            seeds.add(f.downstream_device_id)
    return seeds


def resolve(
    g: PowerGraph,
    base: _State,
    dead_devices: set[int],
    dead_feeds: set[int],
    failed_feeds: frozenset[int],
    utility_hit: set[int],
    rack_load_kw: Mapping[int, float] | None,
) -> _State:
    """One incremental solve on top of ``base`` with the given elements out, before any trip."""
    seeds = failure_seeds(g, dead_devices, dead_feeds, utility_hit)
    if not seeds and not dead_feeds:
        return _State()
    changed = liveness_changes(g, base, seeds, dead_devices, dead_feeds, failed_feeds)
    # Loads change only below devices whose liveness flips: their racks move to the other side
    # and their children re-split their input. Everything else keeps its baseline values.
    core = set(seeds) | changed
    racks: set[int] = set()
    for d in changed:
        for fid in g.down_feeds[d]:
            f = g.feeds[fid]
            if f.downstream_device_id is not None:
                core.add(f.downstream_device_id)
            elif f.rack_id is not None:
                racks.add(f.rack_id)
    for fid in dead_feeds:
        f = g.feeds[fid]
        if f.rack_id is not None and f.downstream_device_id is None:
            racks.add(f.rack_id)
    feeders = core
    for rid in racks:
        for fid in g.load_feeds.get(rid, ()):
            feeders.add(g.feeds[fid].upstream_id)
    affected = g.ancestors(feeders)
    return _solve(g, base, dead_devices, dead_feeds, failed_feeds, rack_load_kw, affected, racks)


def _run(
    g: PowerGraph,
    failed: Iterable[int],
    failed_feeds: frozenset[int],
    failed_power_feeds: Iterable[int],
    rack_load_kw: Mapping[int, float] | None,
    grid_limits: bool = True,
) -> _Outcome:
    """Apply failures on top of the baseline and trip overloads until a fixed point; without
    ``grid_limits`` no utility feed trips on its capacity (the load as designed, ``design_load_rollup``)."""
    failed = set(failed)
    unknown = failed.difference(g.devices)  # a set less a dict: the cost of the set, not the dict
    if unknown:
        raise ValueError(f"failed: unknown power device ids {sorted(unknown)}")
    if rack_load_kw is None:
        base = baseline_state(g)
    else:
        base = _solve(g, None, g.status_dead, frozenset(), frozenset(), rack_load_kw)
    dead_devices = set(g.status_dead) | failed
    dead_feeds = set(failed_power_feeds)
    tripped: list[tuple[str, int, str]] = []
    utilities = set(failed_feeds)
    utility_hit = {d for u in utilities for d in g.by_utility.get(u, ())}
    while True:
        st = resolve(g, base, dead_devices, dead_feeds, frozenset(utilities), utility_hit, rack_load_kw)
        skip = utilities if grid_limits else utilities | g.utility_capacity_kw.keys()
        over = _overloads(g, st, base, dead_devices, dead_feeds, skip)
        if not over:
            return _Outcome(st, base, dead_devices, dead_feeds, tripped, frozenset(utilities))
        deepest = max(o[0] for o in over)
        for depth, kind, ident, reason in sorted(over, key=lambda o: (o[1], o[2])):
            if depth != deepest:
                continue
            tripped.append((kind, ident, reason))
            if kind == "utility":
                utilities.add(ident)
                utility_hit.update(g.by_utility.get(ident, ()))
            else:
                (dead_devices if kind == "device" else dead_feeds).add(ident)
