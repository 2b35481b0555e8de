"""Capacity placement's power fit: added load pushed up every failover scenario (see the package doc)."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from campus.analysis.headroom import Failure
from campus.analysis.headroom.scenarios import failure_scenarios
from campus.analysis.heat import it_beyond_at
from campus.analysis.placement.request import TOL, TOP_K, _memo
from campus.analysis.power import PowerGraph, baseline_state, power_graph
from campus.analysis.power_solve import resolve
from campus.analysis.snapshot import CampusSnapshot

# ---------------------------------------------------------------- the scenario sweep (kept with the graph)


class _Sweep:
    """Every failover scenario's device and utility loads, kept sparse (only what the scenario changes)."""

    def __init__(self, g: PowerGraph) -> None:
        self.g = g
        base = self.base = baseline_state(g)
        self.scenarios = failure_scenarios(g)
        self.sid: dict[tuple[str, object], int] = {}
        self.util_devices: dict[int, list[int]] = {}
        for d, dev in g.devices.items():
            if dev.utility_feed_id is not None:
                self.util_devices.setdefault(dev.utility_feed_id, []).append(d)
        self.base_util = {
            u: sum(base.utility_share_kw.get(d, 0.0) for d in ds) for u, ds in self.util_devices.items()
        }
        self.live: list[dict[int, bool]] = []
        self.in_kw: list[dict[int, float]] = []
        self.util_kw: list[dict[int, float]] = []
        top: dict[tuple[str, int], list[tuple[float, int]]] = {}

        def push(key: tuple[str, int], load: float, sid: int) -> None:
            heap = top.setdefault(key, [])
            if len(heap) < TOP_K:
                heapq.heappush(heap, (load, sid))
            elif load > heap[0][0]:
                heapq.heapreplace(heap, (load, sid))

        for sid, (failure, dead, dead_feeds, failed_utils) in enumerate(self.scenarios):
            self.sid[(failure.kind, failure.id)] = sid
            hit = {d for u in failed_utils for d in g.by_utility.get(u, ())}
            st = resolve(g, base, set(dead), set(dead_feeds), failed_utils, hit, None)
            live = {d: v for d, v in st.live.items() if v != base.live.get(d)}
            self.live.append(live)
            loads = {d: kw for d, kw in st.in_kw.items() if st.live.get(d, base.live.get(d, False))}
            self.in_kw.append(loads)
            for d, kw in loads.items():
                push(("d", d), kw, sid)
            touched = {g.devices[d].utility_feed_id for d in st.in_kw} - {None}
            utils = {}
            for u in touched:
                if u in failed_utils:
                    continue
                utils[u] = sum(
                    st.utility_share_kw.get(d, base.utility_share_kw.get(d, 0.0))
                    for d in self.util_devices.get(u, ())
                )
                push(("u", u), utils[u], sid)
            self.util_kw.append(utils)
        self.top = {k: sorted(v, reverse=True) for k, v in top.items()}

    def healthy_load(self, key: tuple[str, int]) -> float:
        kind, ident = key
        return self.base.in_kw.get(ident, 0.0) if kind == "d" else self.base_util.get(ident, 0.0)

    def worst_except(self, key: tuple[str, int], skip: set[int]) -> float:
        """The worst load over the healthy chain and every scenario not in ``skip``."""
        worst = self.healthy_load(key)
        entries = self.top.get(key, [])
        for load, sid in entries:
            if sid not in skip:
                return max(worst, load)
        if len(entries) >= TOP_K:  # every kept entry skipped: the smallest kept bounds the rest
            worst = max(worst, entries[-1][0])
        return worst

    def load(self, key: tuple[str, int], sid: int) -> float | None:
        """The load in scenario ``sid`` (None: the element is dead or its utility failed there)."""
        kind, ident = key
        if kind == "d":
            if not self.live[sid].get(ident, self.base.live.get(ident, False)):
                return None
            return self.in_kw[sid].get(ident, self.base.in_kw.get(ident, 0.0))
        if ident in self.scenarios[sid][3]:
            return None
        return self.util_kw[sid].get(ident, self.base_util.get(ident, 0.0))


def _sweep(g: PowerGraph) -> _Sweep:
    """The scenario sweep of ``g``, worked out once and kept with the graph (and so with its snapshot)."""
    return _memo(g, "placement_sweep", lambda: _Sweep(g))


# ---------------------------------------------------------------- pushing added load up one scenario


@dataclass
class _Load:
    """An added load: ``kw`` split evenly over its live supply sides, then over the live feeds of a side.
    ``members`` are (side, device id, feed id or None for a feed that does not exist yet)."""

    kw: float
    members: list[tuple[str, int, int | None]]


def _push_up(sw: _Sweep, sid: int | None, loads: list[_Load]) -> tuple[dict[int, float], dict[int, float]]:
    """Added input kW per device and per utility feed in scenario ``sid`` (None: healthy)."""
    g, base = sw.g, sw.base
    if sid is None:
        live_over: dict[int, bool] = {}
        dead_feeds: set[int] = set()
        failed_utils: frozenset[int] = frozenset()
        dead_side = None
    else:
        failure, _dead, dead_feeds, failed_utils = sw.scenarios[sid]
        live_over = sw.live[sid]
        dead_side = failure.id if failure.kind == "side" else None

    def live(d: int) -> bool:
        v = live_over.get(d)
        return base.live.get(d, False) if v is None else v

    def feed_live(fid: int) -> bool:
        return fid not in dead_feeds and live(g.feeds[fid].upstream_id)

    out: dict[int, float] = {}
    for load in loads:
        members = [
            (side, dev)
            for side, dev, fid in load.members
            if live(dev) and (feed_live(fid) if fid is not None else side != dead_side)
        ]
        if not members:
            continue
        sides: dict[str, list[int]] = {}
        for side, dev in members:
            sides.setdefault(side, []).append(dev)
        for devs in sides.values():
            share = load.kw / len(sides) / len(devs)
            for dev in devs:
                out[dev] = out.get(dev, 0.0) + share
    in_add: dict[int, float] = {}
    util_add: dict[int, float] = {}
    heap = [(-g.pos[d], d) for d in out]
    heapq.heapify(heap)
    queued = set(out)
    while heap:
        _, d = heapq.heappop(heap)
        dev = g.devices[d]
        inp = out[d] / dev.efficiency if dev.efficiency > 0 else out[d]
        in_add[d] = inp
        members = []
        util = dev.utility_feed_id
        if util is not None and util not in failed_utils:
            members.append(("utility", -1))
        ups = g.up_feeds[d]
        for fid in ups:
            if feed_live(fid) and g.feeds[fid].upstream_id not in g.generators:
                members.append((g.feeds[fid].side, fid))
        if not members:
            members = [(g.feeds[fid].side, fid) for fid in ups if feed_live(fid)]
        if not members:
            continue
        sides: dict[str, list[int]] = {}
        for side, fid in members:
            sides.setdefault(side, []).append(fid)
        for fids in sides.values():
            share = inp / len(sides) / len(fids)
            for fid in fids:
                if fid == -1:
                    util_add[util] = util_add.get(util, 0.0) + share
                    continue
                up = g.feeds[fid].upstream_id
                out[up] = out.get(up, 0.0) + share
                if up not in queued:
                    queued.add(up)
                    heapq.heappush(heap, (-g.pos[up], up))
    return in_add, util_add


@dataclass
class PowerCheck:
    # the rack IT (kW at the racks) that can still be added on top of the new racks before the first element
    # they reach meets its planning limit, worst over every failover scenario: each element's planning
    # margin after placing over its kW per added kW of rack IT in that scenario (the conversion of
    # ``headroom.failover_headroom``); negative: that much rack IT too many
    headroom_kw: float
    element: tuple[str, int, str]  # (level, id, name) of that element
    failure: Failure
    elements: int
    # the binding element's own margin after placing, kW at its input (the grid: kW at the grid)
    element_headroom_kw: float = 0.0


def _it_headroom(margin: float, added: float, it_kw: float) -> float:
    """Rack IT (kW) an element with ``margin`` kW of planning headroom left still takes when ``it_kw`` of rack
    IT brought it ``added`` kW: ``margin / (added / it_kw)``. An element the new load does not reach limits
    nothing (inf) unless it is already over its limit (-inf: no rack IT fits)."""
    if added > TOL * max(it_kw, 1.0) and it_kw > 0:
        return margin * it_kw / added
    return math.inf if margin >= -TOL else -math.inf


def power_check(snap: CampusSnapshot, loads: list[_Load], it_kw: float) -> PowerCheck | None:
    """The rack IT headroom left after adding ``loads`` (which carry ``it_kw`` of rack IT), worst over every
    failover scenario (None: they reach no rated element). The element that binds is the one with the least
    rack IT left, not the least kW: a fans-only PDU with 2 kW left that gains 0.04 kW per added kW of IT
    still takes 50 kW of IT."""
    g = power_graph(snap)
    sw = _sweep(g)
    supplies = {dev for load in loads for _, dev, _ in load.members}
    above = g.ancestors(supplies)
    special: set[int] = set()
    for d in above:
        sid = sw.sid.get(("power", d))
        if sid is not None:
            special.add(sid)
    for (kind, _ident), sid in sw.sid.items():
        if kind in ("utility", "side"):
            special.add(sid)
    healthy_in, healthy_util = _push_up(sw, None, loads)
    per_sid = {sid: _push_up(sw, sid, loads) for sid in sorted(special)}
    best: PowerCheck | None = None
    limits: dict[tuple[str, int], tuple[float, str, str]] = {}
    for d in healthy_in.keys() | {d for a, _ in per_sid.values() for d in a}:
        dev = g.devices[d]
        if dev.rated_kw > 0:
            limits[("d", d)] = (dev.rated_kw * dev.max_utilization, dev.kind, dev.name)
    utilities = {u.id: u for u in snap.utility_feeds}
    for u in healthy_util.keys() | {u for _, b in per_sid.values() for u in b}:
        feed = utilities.get(u)
        if feed is not None and feed.capacity_kw > 0:
            limits[("u", u)] = (feed.capacity_kw, "utility", feed.name)
    healthy = Failure("none", None, "no failure")
    for key, (limit, level, name) in limits.items():
        kind, ident = key
        added_h = (healthy_in if kind == "d" else healthy_util).get(ident, 0.0)
        # the scenarios that leave the new loads' splits as in the healthy chain: their worst existing load
        # plus the healthy added load
        worst = sw.worst_except(key, special) + added_h
        failure = healthy
        if added_h > 0:
            # name the scenario the untouched worst comes from
            for load, sid in sw.top.get(key, []):
                if sid not in special:
                    if load + added_h >= worst - TOL:
                        failure = sw.scenarios[sid][0]
                    break
        element_margin = limit - worst
        it_left = _it_headroom(element_margin, added_h, it_kw)
        for sid, (a_in, a_util) in per_sid.items():
            existing = sw.load(key, sid)
            if existing is None:
                continue
            added = (a_in if kind == "d" else a_util).get(ident, 0.0)
            margin = limit - existing - added
            it_here = _it_headroom(margin, added, it_kw)
            if it_here < it_left - TOL or (it_here <= it_left + TOL and margin < element_margin):
                it_left, element_margin, failure = it_here, margin, sw.scenarios[sid][0]
        if best is None or it_left < best.headroom_kw - TOL:
            best = PowerCheck(it_left, (level, ident, name), failure, len(limits), element_margin)
    if best is not None:
        best.elements = len(limits)
    return best


def side_bound(snap: CampusSnapshot, loads: list[_Load], it_kw: float) -> float:
    """The smallest rack IT headroom after adding ``loads`` in the two whole-side scenarios alone: never
    below ``power_check``'s (which takes every scenario), so a bound for the search (inf: no side scenario)."""
    g = power_graph(snap)
    sw = _sweep(g)
    best = math.inf
    utilities = {u.id: u for u in snap.utility_feeds}
    for side in ("A", "B"):
        sid = sw.sid.get(("side", side))
        if sid is None:
            continue
        a_in, a_util = _push_up(sw, sid, loads)
        for d, kw in a_in.items():
            dev = g.devices[d]
            existing = sw.load(("d", d), sid)
            if dev.rated_kw > 0 and existing is not None:
                best = min(best, _it_headroom(dev.rated_kw * dev.max_utilization - existing - kw, kw, it_kw))
        for u, kw in a_util.items():
            feed = utilities.get(u)
            existing = sw.load(("u", u), sid)
            if feed is not None and feed.capacity_kw > 0 and existing is not None:
                best = min(best, _it_headroom(feed.capacity_kw - existing - kw, kw, it_kw))
    return best


def hall_network(snap: CampusSnapshot) -> dict[int, tuple[float, float]]:
    """Per hall: the network the power chain carries beside its racks (the switches' and transceivers'
    draw, ``heat.it_beyond_at``, shared out to the halls as ``PowerGraph._it_beside_racks`` does), kW, and
    its fed racks' IT, kW. The network of a hall is shared over its racks by their IT: new racks take their
    share of it onto the devices that feed them (``hall._evaluate_hall``)."""
    g = power_graph(snap)
    network = g.beside_by_hall_kw(dict(it_beyond_at(snap).network_kw_by_place))
    racks_kw: dict[int, float] = {}
    for r in snap.racks:
        if g.rack_feeds.get(r.id):
            racks_kw[r.hall_id] = racks_kw.get(r.hall_id, 0.0) + g.load_kw.get(r.id, 0.0)
    out = {h: (network.get(h, 0.0), kw) for h, kw in racks_kw.items()}
    # A hall with no fed rack yet (a proposal's new hall) carries nothing now; its first racks will carry
    # its own network and, in a building with no fed rack either, the building's (``_it_beside_racks``).
    by_place = it_beyond_at(snap).network_kw_by_place
    fed_buildings = {h.building_id for h in snap.halls if h.id in racks_kw}
    for h in snap.halls:
        if h.id not in out:
            kw = by_place.get(("hall", h.id), 0.0)
            if h.building_id not in fed_buildings:
                kw += by_place.get(("building", h.building_id), 0.0)
            out[h.id] = (kw, 0.0)
    return out
