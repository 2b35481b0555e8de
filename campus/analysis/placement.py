"""Capacity placement: where ``racks`` new racks of a node model fit, with the design redundancy intact.

Pure: the snapshot plus the geometry it does not carry (rack footprints, the halls' rows) in, a JSON-ready
answer out (docs/planning.md, "Capacity placement"). Per candidate hall:

* **floor space**: free positions on the hall's existing row lines (gaps and row ends), then new row lines
  behind the last one, inside the hall less ``PERIMETER_CLEARANCE_M``, never on another rack's footprint,
  a new row at least ``AISLE_CLEARANCE_M`` from every existing rack front or back;
* **rack density**: an air-cooled rack within ``cooling.AIR_COOLING_LIMIT_KW``;
* **fabric ports**: a pod with back-end leaf switches in the hall whose free ports (``count × radix`` less
  the cables already landed on them; a leaf cabled up to a spine of its pod takes node cables on at most
  ``count × radix // 2`` ports, non-blocking, however many of its uplinks are cabled) take the new nodes' NICs (rail-optimized: NIC ``r`` on the hall's
  ``r``-th leaf group, modulo the groups; middle-of-rack: all on one leaf group);
* **cooling**: the hall's units of the racks' kind take the added heat with each pool's (a named group, a
  hall's air units together: ``cooling.cooling_pools``) usable capacity under the declared
  ``cooling_redundancy`` (``cooling.usable_capacity_kw``: N+1 and undeclared the largest unit out, 2N the
  larger half out; N no pool check, every unit within its capacity), no unit
  above its capacity, the plants behind them within capacity and, where a loop has several plants, within
  the loop's usable capacity under the same declared redundancy. The cooling headroom left is rack IT like
  the power's: each element's heat margin over the heat a kW of the racks' IT brings it;
* **power**: a feed pair (A, B) already feeding racks of the hall, from distinct upstream paths (neither
  device upstream of the other), every device and utility feed above it within its planning limit
  (``rated_kw × max_utilization``) in every scenario of the failover headroom
  (``headroom.scenarios._scenarios``: healthy, each live device lost, a generator only where it carries load in the
  healthy chain, each utility feed lost, each whole side lost), loads before any trip. Each side carries 100 % of the new racks when the other is lost. The
  headroom left is rack IT, as the failover headroom counts it: each element's margin after placing over
  its added kW per kW of the racks' IT in that scenario (``power_check``), so the element named is the one
  that limits IT (a fans-only PDU gains a few percent of the IT added, a rack PDU all of it over its
  efficiency);
* **grid**: the campus's grid connection at the peak hour (``headroom.grid_it_kw``, the bound of the
  failover headroom and stranded capacity): its capacity less today's and the new racks' feed load × the
  peak hour's PUE, kW at the grid: below 0 the hall fails on ``grid``; else the option's ``power_kw`` when
  lower than every device's.

The power check is exact for the scenarios' load arithmetic: a scenario's loads are linear in the added
loads for fixed liveness, so the added kW are pushed up through the scenario's own splits (the rules of
``power._solve``); a scenario that kills none of the devices above the new loads (nor a side or utility
feed) leaves those splits as in the healthy chain, so its worst existing load plus the healthy added load
is its worst case. The scenario loads are swept once per snapshot and cached.
"""

from __future__ import annotations

import heapq
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from campus.analysis.cooling import (
    AIR_COOLING_LIMIT_KW,
    PLANT_LOOP_POOL,
    CoolingBalance,
    cooling_balance,
    cooling_pools,
    plant_loop_name,
    redundancy_pool_checks,
    unit_electrical_fraction,
    usable_capacity_kw,
)
from campus.analysis.fabric import medium_for_length
from campus.analysis.facility import heat_rejection_shortfalls, plant_weather_margin_kw
from campus.analysis.headroom import Failure, failover_headroom, grid_it_kw
from campus.analysis.headroom.bounds import GRID_BINDING_NAME
from campus.analysis.headroom.results import HEALTHY
from campus.analysis.headroom.scenarios import _scenarios
from campus.analysis.heat import (
    AIR_UNIT_KINDS,
    ALL_TO_LIQUID,
    COLD_PLATE,
    other_it_per_server_kw,
    plant_loops,
)
from campus.analysis.power import PowerGraph, baseline_state, power_graph
from campus.analysis.power_solve import _resolve
from campus.analysis.rackscale import whole_rack_nodes
from campus.analysis.snapshot import CampusSnapshot, NodeSpec

# Clearances (docs/planning.md): ANSI/TIA-942-B (2017) recommends cold aisles of at least 1.2 m
# (4 ft) and hot aisles of at least 0.9 m (3 ft); one figure, the larger, for both sides of a new row and
# for the walkway along the hall's walls.
AISLE_CLEARANCE_M = 1.2
PERIMETER_CLEARANCE_M = 1.2
DEFAULT_RACK_SIZE_M = (0.6, 1.2)  # width, depth: a 600 x 1200 mm AI rack (as the floor map)
USABLE_RACK_UNITS = 36  # a 48U rack less top-of-rack, PDU, cable management (the generator's figure)
RACK_UNITS = 48  # the rack itself (Rack.rack_units default): more servers than this do not fit at all
MAX_RACKS = 500
MAX_OPTIONS = 3
MAX_FREE_POSITIONS = 100_000  # free positions counted in a hall after placing (more: reported as this)
FEED_RATING_STEP_KW = 5.0  # rack feed breakers rounded up to 5 kW (as the generator)
TOL = 1e-9
# What can bind, in the order the checks run in a hall (a hall that fails early has passed fewer checks).
CONSTRAINTS = ("floor_space", "rack_density", "fabric_ports", "cooling", "power", "grid")
TOP_K = 64  # worst scenario loads kept per element
# What a declared cooling redundancy takes out of a group (cooling.usable_capacity_kw)
REDUNDANCY_OUT = {"N": "nothing", "N+1": "largest unit", "2N": "larger half of the units"}


def _out(declared: str, plants: bool = False) -> str:
    """What the declared redundancy takes out, in words (of a plant loop: plants)."""
    text = REDUNDANCY_OUT.get(declared, declared)
    return text.replace("unit", "plant") if plants else text


@dataclass(frozen=True)
class RowGeo:
    """A row of a hall as the database holds it (the snapshot has no rows)."""

    id: int
    hall_id: int
    name: str
    x_m: float
    y_m: float


@dataclass(frozen=True)
class PlacementRequest:
    node_model: str
    racks: int
    nodes_per_rack: int | None = None
    hall_id: int | None = None


@dataclass
class _Fail:
    constraint: str
    hall: str
    level: str
    element: str
    detail: str
    margin: float = -math.inf  # how close it came (kW, positions or ports); larger is closer
    # where: a hall's name is not unique on a campus (every building may have an H1)
    hall_id: int | None = None
    building: str | None = None
    building_id: int | None = None

    def located(self, snap: CampusSnapshot, hall) -> _Fail:
        self.hall_id = hall.id
        self.building_id = hall.building_id
        self.building = _building_name(snap, hall.building_id)
        return self

    def as_dict(self) -> dict:
        return {
            "constraint": self.constraint,
            "hall": self.hall,
            "hall_id": self.hall_id,
            "building": self.building,
            "building_id": self.building_id,
            "level": self.level,
            "element": self.element,
            "detail": self.detail,
        }


def _building_name(snap: CampusSnapshot, building_id: int | None) -> str | None:
    return next((bd.name for bd in snap.buildings if bd.id == building_id), None)


# ---------------------------------------------------------------- request checks


def default_nodes_per_rack(snap: CampusSnapshot, node_slug: str) -> int:
    """The commonest count of this model in the campus's racks; else as many as fit the usable units."""
    counts: dict[int, int] = {}
    for r in snap.racks:
        for slug, n in r.nodes:
            if slug == node_slug and n > 0:
                counts[n] = counts.get(n, 0) + 1
    if counts:
        return max(sorted(counts), key=counts.__getitem__)
    spec = snap.node_models[node_slug]
    whole = whole_rack_nodes(node_slug, spec.gpus_per_node)
    if whole is not None:
        return whole
    return max(1, USABLE_RACK_UNITS // max(1, spec.rack_units))


def node_kw(snap: CampusSnapshot, slug: str) -> float:
    return snap.node_power_w(slug) / 1000.0


# ---------------------------------------------------------------- the scenario sweep (cached per graph)


class _Sweep:
    """Every failover scenario's device and utility loads, kept sparse (only what the scenario changes)."""

    def __init__(self, g: PowerGraph) -> None:
        self.g = g
        base = self.base = baseline_state(g)
        self.scenarios = _scenarios(g)
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
            st = _resolve(g, base, set(dead), set(dead_feeds), failed_utils, hit, None)
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


_CACHE: dict[int, tuple[PowerGraph, _Sweep]] = {}
_CACHE_LOCK = threading.Lock()


def _sweep(g: PowerGraph) -> _Sweep:
    with _CACHE_LOCK:
        hit = _CACHE.get(id(g))
    if hit is not None and hit[0] is g:
        return hit[1]
    result = _Sweep(g)
    with _CACHE_LOCK:
        while len(_CACHE) >= 4:
            _CACHE.pop(next(iter(_CACHE)), None)
        _CACHE[id(g)] = (g, result)
    return result


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


# ---------------------------------------------------------------- floor space


def _overlaps(x: float, y: float, w: float, d: float, boxes: list[tuple[float, float, float, float]]) -> bool:
    for bx, by, bw, bd in boxes:
        if x < bx + bw - TOL and bx < x + w - TOL and y < by + bd - TOL and by < y + d - TOL:
            return True
    return False


def free_positions(
    hall_width_m: float,
    hall_length_m: float,
    racks: list[tuple[float, float, float, float]],
    size: tuple[float, float],
    wanted: int,
    prefer_lines: frozenset[float] = frozenset(),
    obstacles: list[tuple[float, float, float, float]] = (),
) -> list[tuple[float, float, bool]]:
    """Up to ``wanted`` free rack corners (x, y, on a new row line) in a hall, existing row lines first
    (``prefer_lines`` before the others).

    ``racks`` are the hall's footprints (x, y, width, depth). On an existing row line (racks sharing a
    ``y``) a position fills a gap or extends the row, within the span of the hall's rows (the walkways
    at their ends stay free), on no footprint. New row lines go behind the last rack, at
    ``AISLE_CLEARANCE_M`` from every rack's and ``obstacles``' (cooling units) front and back, across the
    hall less ``PERIMETER_CLEARANCE_M`` (or the rows' span where it is wider: a hall of one short row
    is not as narrow as that row)."""
    w, d = size
    if racks:
        lo_x = min(x for x, _, _, _ in racks)
        hi_x = max(x + rw for x, _, rw, _ in racks) - w
    else:
        lo_x, hi_x = PERIMETER_CLEARANCE_M, hall_width_m - PERIMETER_CLEARANCE_M - w
    hi_x = min(hi_x, hall_width_m - w)
    hi_y = hall_length_m - PERIMETER_CLEARANCE_M - d
    out: list[tuple[float, float, bool]] = []
    taken: list[tuple[float, float, float, float]] = list(racks)
    lines = sorted({round(y, 6) for _, y, _, _ in racks}, key=lambda y: (y not in prefer_lines, y))
    reach = 5.0 + 2 * AISLE_CLEARANCE_M  # racks are at most 5 m deep: nothing further away can touch
    for y in lines:
        if y + d > hall_length_m + TOL:
            continue
        near = [box for box in taken if abs(box[1] - y) < reach]
        x = lo_x
        while x <= hi_x + TOL and len(out) < wanted:
            if not _overlaps(x, y, w, d, near):
                out.append((round(x, 4), y, False))
                taken.append((x, y, w, d))
                near.append((x, y, w, d))
            x += w
        if len(out) >= wanted:
            return out
    blocked = list(racks) + list(obstacles)
    new_lo = min(lo_x, PERIMETER_CLEARANCE_M)
    new_hi = max(hi_x, min(hall_width_m - PERIMETER_CLEARANCE_M, hall_width_m) - w)
    y = max((ry + rd for _, ry, _, rd in racks), default=PERIMETER_CLEARANCE_M - AISLE_CLEARANCE_M)
    y += AISLE_CLEARANCE_M
    # along a new line: in step with the rows, from their first x to the far wall, then back to the near one
    xs = [lo_x + k * w for k in range(int((new_hi - lo_x + TOL) // w) + 1)]
    xs += [lo_x - k * w for k in range(1, int((lo_x - new_lo + TOL) // w) + 1)]
    while y <= hi_y + TOL and len(out) < wanted:
        placed = False
        near = [box for box in blocked if abs(box[1] - y) < reach]
        for x in xs:
            if len(out) >= wanted:
                break
            if not _overlaps(x, y - AISLE_CLEARANCE_M, w, d + 2 * AISLE_CLEARANCE_M, near):
                out.append((round(x, 4), round(y, 4), True))
                placed = True
        y += d + AISLE_CLEARANCE_M if placed else w
    return out


UNIT_FOOTPRINT_M = (1.2, 1.2)  # a cooling unit with a recorded position: about two rack widths square


# ---------------------------------------------------------------- one hall


@dataclass
class _HallInput:
    snap: CampusSnapshot
    node: NodeSpec
    slug: str
    nodes_per_rack: int
    racks: int
    rack_kw: float  # IT at full TDP, kW
    rack_size: Mapping[int, tuple[float, float]]
    rows: Mapping[int, list[RowGeo]]
    used_ports: dict[int, int] = field(default_factory=dict)
    balance: object = None
    per_server: float = 0.0  # other IT per kW of servers added (heat.other_it_per_server_kw)
    cables: dict = field(default_factory=dict)  # switch id -> [(hall, x, y, length)] of its rack cables
    grid: tuple[float, float, float] | None = None  # headroom.grid_it_kw: (feed kW allowed, today, peak PUE)
    pools: list = field(default_factory=list)  # cooling.cooling_pools(snap, hall_air=True)


def _cooling_type(inp: _HallInput, hall_id: int, units) -> tuple[str, list]:
    """The new racks' cooling type and the units that would take their main heat."""
    for r in inp.snap.racks:
        if r.hall_id == hall_id and any(s == inp.slug for s, _ in r.nodes):
            kind = r.cooling_type
            break
    else:
        liquid_units = [u for u in units if u.kind not in AIR_UNIT_KINDS]
        kind = COLD_PLATE if inp.node.liquid_heat_fraction > 0 and liquid_units else "air"
    if kind == "air":
        return kind, [u for u in units if u.kind in AIR_UNIT_KINDS]
    return kind, [u for u in units if u.kind not in AIR_UNIT_KINDS]


def _feed_pairs(g: PowerGraph, hall_racks: list, single: bool = False) -> list[tuple[int, int | None]]:
    """(A device, B device) pairs feeding racks of the hall, from distinct upstream paths, commonest first.
    ``single`` (a campus declared N: one distribution path, docs/model.md "Redundancy topologies"): also
    (A device, None) for the devices feeding racks of the hall on their one feed."""
    seen: dict[tuple[int, int | None], int] = {}
    for r in hall_racks:
        info = g.rack_feed_info.get(r.id, ())
        a = {up for _, side, up in info if side == "A"}
        b = {up for _, side, up in info if side == "B"}
        if len(a) == 1 and len(b) == 1:
            pair = (next(iter(a)), next(iter(b)))
            seen[pair] = seen.get(pair, 0) + 1
        elif single and len(info) == 1:
            pair = (next(iter(a | b)), None)
            seen[pair] = seen.get(pair, 0) + 1
    live = baseline_state(g).live
    out = []
    for (a, b), _n in sorted(seen.items(), key=lambda kv: -kv[1]):
        if b is not None and (a == b or a in g.ancestors([b]) or b in g.ancestors([a])):
            continue
        if a in g.generators or b in g.generators:
            continue
        # a device out of operation (failed, offline, cut off) feeds nothing: a rack placed on it would
        # have one live path with the redundancy called intact
        if not live.get(a, False) or (b is not None and not live.get(b, False)):
            continue
        out.append((a, b))
    return out


def _evaluate_hall(inp: _HallInput, hall) -> tuple[list[dict], _Fail | None]:
    snap = inp.snap
    g = power_graph(snap)
    hall_racks = [r for r in snap.racks if r.hall_id == hall.id]
    size = DEFAULT_RACK_SIZE_M
    boxes = [(r.x_m, r.y_m, *inp.rack_size.get(r.id, DEFAULT_RACK_SIZE_M)) for r in hall_racks]
    obstacles = [
        (u.x_m, u.y_m, *UNIT_FOOTPRINT_M)
        for u in snap.cooling_units
        if u.hall_id == hall.id and u.x_m is not None and u.y_m is not None
    ]

    def positions_for(lines: frozenset[float]) -> list[tuple[float, float, bool]]:
        return free_positions(hall.width_m, hall.length_m, boxes, size, inp.racks, lines, obstacles)

    positions = positions_for(frozenset())
    if len(positions) < inp.racks:
        return [], _Fail(
            "floor_space",
            hall.name,
            "hall",
            hall.name,
            f"{len(positions)} free rack position(s) for {inp.racks}",
            margin=len(positions) - inp.racks,
        )
    units = [u for u in snap.cooling_units if u.hall_id == hall.id]
    ctype, main_units = _cooling_type(inp, hall.id, units)
    if ctype == "air" and inp.rack_kw > AIR_COOLING_LIMIT_KW:
        return [], _Fail(
            "rack_density",
            hall.name,
            "rack",
            "",
            f"an air-cooled rack of {inp.rack_kw:.1f} kW is above the air-cooling limit of "
            f"{AIR_COOLING_LIMIT_KW:g} kW",
        )
    # ---- fabric
    fabric, ffail = _fabric(inp, hall, hall_racks)
    if ffail is not None:
        return [], ffail
    # ---- cooling
    cool, cfail = _cooling(inp, hall, ctype, main_units, units)
    if cfail is not None:
        return [], cfail
    # ---- power
    pairs = _feed_pairs(g, hall_racks, single=snap.power_redundancy == "N")
    if not pairs:
        return [], _Fail("power", hall.name, "hall", hall.name, "no A/B feed pair feeds racks of this hall")
    # The new racks' feeds carry their own IT; the allowance their servers bring (``inp.per_server``, kW per
    # server kW) is beside the racks on the hall's load, counted here on the devices that feed them.
    fed_kw = inp.rack_kw * (1.0 + inp.per_server)
    mech = _mechanical_loads(g, cool)

    def loads_of(a: int, b: int | None) -> list[_Load]:
        members = [("A", a, None)] if b is None else [("A", a, None), ("B", b, None)]
        return [_Load(fed_kw, members) for _ in range(inp.racks)] + mech

    it_added = inp.racks * inp.rack_kw

    def run(a: int, b: int) -> tuple[dict | None, _Fail | None]:
        check = power_check(snap, loads_of(a, b), it_added)
        if check is None:
            return None, None
        if inp.grid is not None:
            # the campus grid connection at the peak hour (headroom.grid_it_kw): the rack-feed kW it allows
            # less today's and the new racks'; in rack IT over the new racks' feed kW per kW of IT (as
            # headroom.bounds._grid_bound), at the grid times the peak hour's PUE
            allowed, fed_now, pue = inp.grid
            feeds_left = allowed - fed_now - inp.racks * fed_kw
            grid_it = feeds_left * inp.rack_kw / fed_kw if fed_kw > 0 else math.inf
            if grid_it < check.headroom_kw:
                check = PowerCheck(
                    grid_it, ("grid", snap.id, GRID_BINDING_NAME), HEALTHY, check.elements, feeds_left * pue
                )
        if check.headroom_kw < -TOL:
            level, _ident, name = check.element
            too_many = (
                f"; {-check.headroom_kw:.1f} kW of rack IT too many"
                if math.isfinite(check.headroom_kw)
                else ""
            )
            if level == "grid":
                return None, _Fail(
                    "grid",
                    hall.name,
                    "grid",
                    name,
                    f"the {name} would carry {-check.element_headroom_kw:.1f} kW beyond its "
                    f"{snap.grid_capacity_kw:.1f} kW at the peak hour (PUE {inp.grid[2]:.3f}){too_many}",
                    margin=check.headroom_kw,
                )
            return None, _Fail(
                "power",
                hall.name,
                level,
                name,
                f"{name} would carry {-check.element_headroom_kw:.1f} kW beyond its planning limit "
                f"after {check.failure.name}{too_many}",
                margin=check.headroom_kw,
            )
        max_util = min(g.devices[d].max_utilization for d in (a, b) if d is not None) or 0.8
        rating = math.ceil(inp.rack_kw / max_util / FEED_RATING_STEP_KW - 1e-9) * FEED_RATING_STEP_KW
        lines = frozenset(
            round(r.y_m, 6)
            for r in hall_racks
            if {up for _, _, up in g.rack_feed_info.get(r.id, ())} == {a, b} - {None}
        )
        here = positions_for(lines) if lines else positions
        # every free position of the hall, not only the ones asked for: what is left after these racks
        free = free_positions(
            hall.width_m, hall.length_m, boxes, size, MAX_FREE_POSITIONS, frozenset(), obstacles
        )
        option = _option(inp, hall, here, ctype, a, b, rating, cool, fabric, check)
        option["headroom_after"]["floor_positions"] = len(free) - inp.racks
        return option, None

    # The power headroom after placing is at most what the pair's own devices keep with the other side
    # lost: the bound that lets ``place`` stop early.
    return [
        _Candidate(side_bound(snap, loads_of(a, b), it_added), hall.name, a, b, run, hall.id)
        for a, b in pairs
    ], None


@dataclass
class _Candidate:
    bound_kw: float
    hall: str
    a: int
    b: int | None
    run: object
    hall_id: int = 0

    def evaluate(self) -> tuple[dict | None, _Fail | None]:
        return self.run(self.a, self.b)


def _mechanical_loads(g: PowerGraph, cool: dict) -> list[_Load]:
    """The fans, pumps and plants' added electrical load on their supplies."""
    by_key = {key: lid for lid, key in g.mechanical.items()}
    out = []
    for kind, added in (("unit", cool["unit_electrical_kw"]), ("plant", cool["plant_electrical_kw"])):
        for ident, kw in added.items():
            lid = by_key.get((kind, ident))
            if lid is None or kw <= 0:
                continue
            members = [(side, up, fid) for fid, side, up in g.load_feed_info.get(lid, ())]
            if members:
                out.append(_Load(kw, members))
    return out


def _cooling(
    inp: _HallInput, hall, ctype: str, main_units: list, hall_units: list
) -> tuple[dict, _Fail | None]:
    snap = inp.snap
    bal = inp.balance
    if not main_units:
        kind = "air (CRAH)" if ctype == "air" else "liquid (CDU)"
        return {}, _Fail("cooling", hall.name, "hall", hall.name, f"no {kind} cooling unit in this hall")
    heat = {u.id: u.heat_kw for u in bal.units}
    cap = {u.id: u.capacity_kw for u in snap.cooling_units}
    if ctype == COLD_PLATE:
        liquid = inp.rack_kw * inp.node.liquid_heat_fraction
    elif ctype in ALL_TO_LIQUID:
        liquid = inp.rack_kw
    else:
        liquid = 0.0
    main_kw = liquid if ctype != "air" else inp.rack_kw
    air_kw = inp.rack_kw - main_kw
    # the other IT the new servers bring, all on this hall's air units (the model spreads it over every
    # hall by their server heat: this is the larger share here, a bound)
    per_server = inp.per_server
    added: dict[int, float] = {}
    assignment: list[int] = []
    for _ in range(inp.racks):
        unit = max(main_units, key=lambda u: (cap[u.id] - heat.get(u.id, 0.0) - added.get(u.id, 0.0), -u.id))
        added[unit.id] = added.get(unit.id, 0.0) + main_kw
        assignment.append(unit.id)
    # as heat.heat_map: a rack's air share on its hall's air units, the other IT on the hall's or else
    # the building's
    hall_air = [u for u in hall_units if u.kind in AIR_UNIT_KINDS]
    building_halls = {h.id for h in snap.halls if h.building_id == hall.building_id}
    building_air = [u for u in snap.cooling_units if u.kind in AIR_UNIT_KINDS and u.hall_id in building_halls]
    for kw, targets, what in (
        (air_kw * inp.racks, hall_air, "the air share of the racks' heat"),
        (inp.rack_kw * per_server * inp.racks, hall_air or building_air, "the other IT the servers bring"),
    ):
        if kw <= 0:
            continue
        if not targets:
            return {}, _Fail("cooling", hall.name, "hall", hall.name, f"no air cooling unit takes {what}")
        total_cap = sum(max(u.capacity_kw, 0.0) for u in targets)
        for u in targets:
            share = u.capacity_kw / total_cap if total_cap > 0 else 1.0 / len(targets)
            added[u.id] = added.get(u.id, 0.0) + kw * share
    units = {u.id: u for u in snap.cooling_units}
    # (rack IT left, heat margin kW, level, element, detail): an element's heat margin after placing over the
    # heat the racks' IT brings it per kW (a CDU takes a cold-plate rack's liquid share, a CRAH its air
    # share), so the element named is the one that limits IT, in the unit of the power headroom
    it_added = inp.racks * inp.rack_kw
    margins: list[tuple[float, float, str, str, str]] = []

    def margin(heat_margin: float, heat_added: float, level: str, element: str, what: str) -> None:
        margins.append((_it_headroom(heat_margin, heat_added, it_added), heat_margin, level, element, what))

    for uid, kw in added.items():
        u = units[uid]
        margin(cap[uid] - heat.get(uid, 0.0) - kw, kw, "cooling unit", u.name, "capacity")
    # A campus declared N (docs/model.md, "Redundancy topologies": the fewest units and plants that carry
    # the heat) keeps no spare to protect: each unit and plant within its capacity is its design intact.
    # Otherwise a group keeps its heat with the declared redundancy's units out (cooling.usable_capacity_kw:
    # N+1 and undeclared the largest unit, 2N the larger half), as the balance and stranded capacity count it.
    declared = snap.cooling_redundancy or "N+1"
    spare = declared != "N"
    out_what = REDUNDANCY_OUT[declared]
    # The pools are the failure analysis's (cooling.cooling_pools with hall_air): each named group, and a
    # hall's air units together (its ungrouped CRAHs; all its CRAHs, the room's air being one), so a hall of
    # ungrouped CRAHs keeps its spare too. A lone unit has no spare to keep (the redundancy check names it
    # as a single point).
    for pool in inp.pools if spare else ():
        if len(pool.unit_ids) < 2 or not any(uid in added for uid in pool.unit_ids):
            continue
        members = [units[uid] for uid in pool.unit_ids]
        g_cap = usable_capacity_kw([cap[u.id] for u in members], declared)
        g_heat = sum(heat.get(u.id, 0.0) + added.get(u.id, 0.0) for u in members)
        g_added = sum(added.get(u.id, 0.0) for u in members)
        if all(u.group == pool.name for u in members):
            level, element = "cooling group", pool.name
        else:
            # Named as the summary and the redundancy check name it (hall names repeat between buildings).
            building = _building_name(snap, hall.building_id)
            level, element = "hall air units", f"{building or ''} {hall.name} air units".strip()
        margin(g_cap - g_heat, g_added, level, element, f"{declared} ({out_what} out)")
    unit_electrical = {uid: kw * unit_electrical_fraction(units[uid].kind) for uid, kw in added.items()}
    plant_added: dict[int, float] = {}
    for uid, kw in added.items():
        p = units[uid].plant_id
        if p is not None:
            plant_added[p] = plant_added.get(p, 0.0) + kw + unit_electrical[uid]
    weather = plant_weather_margin_kw(snap)  # what its worst typical or design hour leaves each plant
    plant_heat = {p.id: max(p.heat_kw, p.capacity_kw - weather.get(p.id, math.inf)) for p in bal.plants}
    plants = {p.id: p for p in snap.cooling_plants}
    for pid, kw in plant_added.items():
        p = plants[pid]
        margin(p.capacity_kw - plant_heat.get(pid, 0.0) - kw, kw, "cooling plant", p.name, "capacity")
    # the declared redundancy over the plants of a loop: only they can take each other's heat
    # (heat.plant_loops; cooling.plant_usable_capacity_kw)
    loop_of = plant_loops(snap)
    for loop in sorted({loop_of[p] for p in plant_added}):
        members = [p for p in snap.cooling_plants if loop_of[p.id] == loop]
        if len(members) < 2 or not spare:
            continue
        usable = usable_capacity_kw([p.capacity_kw for p in members], declared)
        total = sum(plant_heat.get(p.id, 0.0) + plant_added.get(p.id, 0.0) for p in members)
        names = plant_loop_name(_building_name(snap, members[0].building_id) or "", members)
        what = "largest plant" if declared == "N+1" else "the larger half of the plants"
        loop_added = sum(plant_added.get(p.id, 0.0) for p in members)
        margin(usable - total, loop_added, "plant loop", names, f"{declared} ({what} out)")
    worst = min(margins, key=lambda m: (m[0], m[1]))
    plant_electrical = {pid: kw / plants[pid].cop for pid, kw in plant_added.items() if plants[pid].cop > 0}
    result = {
        "assignment": assignment,
        "unit_electrical_kw": unit_electrical,
        "plant_electrical_kw": plant_electrical,
        "headroom_kw": worst[0],  # rack IT
        "element_headroom_kw": worst[1],  # heat at the binding element
        "binding": worst,
    }
    if worst[0] < -TOL:
        it_left, heat_margin, level, element, what = worst
        too_many = f"; {-it_left:.1f} kW of rack IT too many" if math.isfinite(it_left) else ""
        return result, _Fail(
            "cooling",
            hall.name,
            level,
            element,
            f"{element} would be {-heat_margin:.1f} kW short ({what}){too_many}",
            margin=it_left,
        )
    return result, None


def _fabric(inp: _HallInput, hall, hall_racks: list) -> tuple[dict | None, _Fail | None]:
    """The pod and the leaf groups that take the new racks' NICs, with the ports they use."""
    snap = inp.snap
    leaves = [s for s in snap.switches if s.tier == "leaf" and s.network == "backend"]
    if not leaves:
        pod_counts: dict[int, int] = {}
        for r in hall_racks:
            if r.pod_id is not None:
                pod_counts[r.pod_id] = pod_counts.get(r.pod_id, 0) + 1
        pod = max(pod_counts, key=pod_counts.__getitem__) if pod_counts else None
        return {"pod": pod, "groups": [], "free_after": None}, None  # no fabric modelled
    rack_halls = {r.id: r.hall_id for r in snap.racks}
    in_hall = [s for s in leaves if s.hall_id == hall.id or rack_halls.get(s.rack_id) == hall.id]
    pods = {p.id: p for p in snap.pods}
    by_pod: dict[int, list] = {}
    for s in in_hall:
        if s.pod_id is not None:
            by_pod.setdefault(s.pod_id, []).append(s)
    rails = max(1, inp.node.nics)
    best = None
    best_short = None
    for pid in sorted(by_pod):
        groups = sorted(by_pod[pid], key=lambda s: s.name)
        free = {}
        for s in groups:
            spec = snap.switch_models.get(s.model)
            radix = spec.radix if spec is not None else 0
            free[s.id] = s.count * radix - inp.used_ports.get(s.id, 0)
        need: dict[int, int] = {}
        rail_opt = pods[pid].topology == "rail-optimized" if pid in pods else False
        per_rack: list[tuple[int, int]] = []  # (switch, ports) per rack
        if rail_opt and len(groups) > 1:
            counts: dict[int, int] = {}
            for r in range(rails):
                sid = groups[r % len(groups)].id
                counts[sid] = counts.get(sid, 0) + inp.nodes_per_rack
            per_rack = sorted(counts.items())
            for sid, n in per_rack:
                need[sid] = n * inp.racks
        else:
            sid = max(groups, key=lambda s: (free[s.id], -s.id)).id
            per_rack = [(sid, rails * inp.nodes_per_rack)]
            need[sid] = rails * inp.nodes_per_rack * inp.racks
        short = min(free[s] - n for s, n in need.items())
        if short >= 0:
            if best is None or short > best["free_after"]:
                best = {"pod": pid, "groups": per_rack, "free_after": short}
        elif best_short is None or short > best_short[0]:
            worst_sid = min(need, key=lambda s: free[s] - need[s])
            name = next(s.name for s in groups if s.id == worst_sid)
            best_short = (short, name)
    if best is not None:
        return best, None
    if best_short is None:
        return None, _Fail(
            "fabric_ports", hall.name, "hall", hall.name, "no back-end leaf switch in this hall"
        )
    short, name = best_short
    return None, _Fail(
        "fabric_ports", hall.name, "leaf", name, f"{name} is {-short} port(s) short", margin=float(short)
    )


def _rack_cables(snap: CampusSnapshot) -> dict[int, list[tuple[int, float, float, float]]]:
    racks = {r.id: r for r in snap.racks}
    out: dict[int, list[tuple[int, float, float, float]]] = {}
    for link in snap.links:
        r = racks.get(link.a_rack_id) if link.a_rack_id is not None else None
        if r is not None:
            out.setdefault(link.b_switch_id, []).append((r.hall_id, r.x_m, r.y_m, link.length_m))
    return out


def _link_length(inp: _HallInput, switch_id: int, x: float, y: float, hall_id: int) -> float:
    """An existing cable of the leaf group to the nearest rack, lengthened by the way from there, m."""
    best = None
    for h, rx, ry, length in inp.cables.get(switch_id, ()):
        if h != hall_id:
            continue
        dist = abs(rx - x) + abs(ry - y)
        if best is None or dist < best[0]:
            best = (dist, length)
    if best is None:
        return 10.0
    return float(math.ceil(best[1] + best[0] - 1e-9))


def _option(inp: _HallInput, hall, positions, ctype, a, b, rating, cool, fabric, check: PowerCheck) -> dict:
    snap = inp.snap
    g = power_graph(snap)
    units = {u.id: u for u in snap.cooling_units}
    rows = sorted(inp.rows.get(hall.id, []), key=lambda r: r.y_m)
    switches = {s.id: s for s in snap.switches} if fabric and fabric["groups"] else {}
    racks = []
    for k, (x, y, _new) in enumerate(positions[: inp.racks]):
        row = next((r for r in rows if abs(r.y_m - y) < 1e-6), None)
        unit = units[cool["assignment"][k]]
        links = []
        for sid, ports in fabric["groups"] if fabric else []:
            sw = switches[sid]
            length = _link_length(inp, sid, x, y, hall.id)
            links.append(
                {
                    "switch": sw.name,
                    "count": ports,
                    "length_m": length,
                    "medium": medium_for_length(length),
                    "speed_gbps": inp.node.nic_speed_gbps,
                }
            )
        pod = next((p for p in snap.pods if fabric and p.id == fabric["pod"]), None)
        racks.append(
            {
                "x_m": x,
                "y_m": y,
                "row": row.name if row is not None else None,
                "feed_a": g.devices[a].name,
                "feed_b": g.devices[b].name if b is not None else None,
                "cooling_unit": unit.name,
                "pod": pod.name if pod is not None else None,
                "cooling_type": ctype,
                "design_kw": round(inp.rack_kw, 3),
                "feed_rating_kw": rating,
                "nodes": inp.nodes_per_rack,
                "links": links,
            }
        )
    level, _ident, name = check.element
    return {
        "hall": hall.name,
        "hall_id": hall.id,
        "building": _building_name(snap, hall.building_id),
        "building_id": hall.building_id,
        "racks": racks,
        "headroom_after": {
            "power_kw": round(check.headroom_kw, 3),
            "power_level": level,
            "power_element": name,
            "power_element_headroom_kw": round(check.element_headroom_kw, 3),
            "power_failure": check.failure.as_dict(),
            "cooling_kw": round(cool["headroom_kw"], 3),
            "cooling_level": cool["binding"][2],
            "cooling_element": cool["binding"][3],
            "cooling_element_headroom_kw": round(cool["element_headroom_kw"], 3),
            "floor_positions": len(positions) - inp.racks,
            "fabric_ports": fabric["free_after"] if fabric else None,
        },
    }


# ---------------------------------------------------------------- the answer


def _used_ports(snap: CampusSnapshot) -> dict[int, int]:
    """Ports of each switch group taken for placement. A leaf group cabled up to a tier of its pod is
    non-blocking: it takes node cables on half its ports at most (the other half are their uplinks, cabled
    or not), so it counts as taken at least ``count × (radix − radix // 2)`` plus its node cables."""
    used: dict[int, int] = {}
    node_cables: dict[int, int] = {}
    switches = {s.id: s for s in snap.switches}
    cabled_up: set[int] = set()  # leaf groups with uplinks to a switch tier of their own pod
    for link in snap.links:
        used[link.b_switch_id] = used.get(link.b_switch_id, 0) + link.count
        if link.a_switch_id is not None:
            used[link.a_switch_id] = used.get(link.a_switch_id, 0) + link.count
            upper = switches.get(link.b_switch_id)
            if upper is not None and upper.pod_id is not None:
                cabled_up.add(link.a_switch_id)
        elif link.a_rack_id is not None:
            node_cables[link.b_switch_id] = node_cables.get(link.b_switch_id, 0) + link.count
    for sid in cabled_up:
        s = switches[sid]
        spec = snap.switch_models.get(s.model)
        if s.tier != "leaf" or spec is None:
            continue
        reserved = s.count * (spec.radix - spec.radix // 2) + node_cables.get(sid, 0)
        used[sid] = max(used.get(sid, 0), reserved)
    return used


# A pool's kind (cooling.PoolCheck.kind) as placement names its level
_POOL_LEVEL = {"group": "cooling group", "hall air units": "hall air units", "plant loop": "plant loop"}


def short_at_design(snap: CampusSnapshot, balance: CoolingBalance) -> list[dict]:
    """Elements already short at design with nothing placed, most short first: cooling units and plants over
    their capacity or short in a typical or design hour of the weather, pools and plant loops over their usable
    capacity with the declared redundancy (``cooling.redundancy_pool_checks``), power devices and utility feeds
    over their planning limit in the failover headroom's worst scenario, the grid over its capacity at the peak
    hour. Each ``{constraint, level, element, shortfall_kw (heat; kW at the input), detail}`` binds a new rack."""
    declared = snap.cooling_redundancy or "N+1"
    out: list[dict] = []
    halls = {h.id: h for h in snap.halls}
    unit_hall = {u.id: u.hall_id for u in snap.cooling_units}
    plant_building = {p.id: p.building_id for p in snap.cooling_plants}
    device_place = {d.id: (d.hall_id, d.building_id) for d in snap.power_devices}

    def add(
        constraint: str,
        level: str,
        element: str,
        short_kw: float,
        detail: str,
        hall_id: int | None = None,
        building_id: int | None = None,
    ) -> None:
        # where it stands: its hall (and building), or its building alone (a plant, a building's device)
        hall = halls.get(hall_id) if hall_id is not None else None
        if hall is not None:
            building_id = hall.building_id
        out.append(
            {
                "constraint": constraint,
                "level": level,
                "element": element,
                "shortfall_kw": short_kw,
                "detail": detail,
                "hall": hall.name if hall is not None else "",
                "hall_id": hall.id if hall is not None else None,
                "building": _building_name(snap, building_id),
                "building_id": building_id,
            }
        )

    for level, carriers in (("cooling unit", balance.units), ("cooling plant", balance.plants)):
        for c in carriers:
            if c.heat_kw > c.capacity_kw + TOL:
                add(
                    "cooling",
                    level,
                    c.name,
                    c.heat_kw - c.capacity_kw,
                    f"{c.name} carries {c.heat_kw:.1f} kW of heat on {c.capacity_kw:.1f} kW",
                    unit_hall.get(c.id) if level == "cooling unit" else None,
                    plant_building.get(c.id) if level == "cooling plant" else None,
                )
    for pool in redundancy_pool_checks(snap, balance):
        if pool.heat_kw > pool.usable_capacity_kw + TOL:
            add(
                "cooling",
                _POOL_LEVEL.get(pool.kind, pool.kind),
                pool.name,
                pool.heat_kw - pool.usable_capacity_kw,
                f"{pool.name} carries {pool.heat_kw:.1f} kW of heat on {pool.usable_capacity_kw:.1f} kW usable "
                f"with {declared} ({_out(declared, pool.kind == PLANT_LOOP_POOL)} out)",
                pool.hall_id,
                pool.building_id,
            )
    head = failover_headroom(snap)
    for row in (*head.devices.values(), *head.utilities.values()):
        if row.headroom_kw < -TOL:
            add(
                "power",
                row.kind,
                row.name,
                -row.headroom_kw,
                f"{row.name} carries {row.worst_load_kw:.1f} kW after {row.worst_failure.name} on a planning "
                f"limit of {row.limit_kw:.1f} kW",
                *(device_place.get(row.id, (None, None)) if row.kind != "utility" else (None, None)),
            )
    if head.grid is not None and head.grid.headroom_kw < -TOL:
        add(
            "grid",
            "grid",
            GRID_BINDING_NAME,
            -head.grid.headroom_kw,
            f"the {GRID_BINDING_NAME} carries {head.grid.facility_kw:.1f} kW at the peak hour on "
            f"{head.grid.capacity_kw:.1f} kW",
        )
    out += heat_rejection_shortfalls(snap)
    out.sort(key=lambda x: (-x["shortfall_kw"], x["constraint"], x["element"]))
    return out


def _memo(g: PowerGraph, key: str, compute):
    if key not in g.memo:
        g.memo[key] = compute()
    return g.memo[key]


def place(
    snap: CampusSnapshot,
    request: PlacementRequest,
    rack_size: Mapping[int, tuple[float, float]] | None = None,
    rows: Mapping[int, list[RowGeo]] | None = None,
) -> dict:
    """``{"feasible", "binding_constraint", "binding", "options", "short_at_design"}`` for ``request``
    (module doc): when nothing fits and an element is already short at design (``short_at_design``), the
    most short binds."""
    if request.node_model not in snap.node_models:
        raise ValueError(f"node_model: no node model {request.node_model!r}")
    if not 1 <= request.racks <= MAX_RACKS:
        raise ValueError(f"racks: must be between 1 and {MAX_RACKS}")
    node = snap.node_models[request.node_model]
    npr = request.nodes_per_rack or default_nodes_per_rack(snap, request.node_model)
    if npr < 1:
        raise ValueError("nodes_per_rack: must be >= 1")
    whole = whole_rack_nodes(request.node_model, node.gpus_per_node)
    if whole is not None and npr != whole:
        raise ValueError(f"nodes_per_rack: a {request.node_model} rack is one NVLink domain of {whole} trays")
    if npr * node.rack_units > RACK_UNITS and whole is None:
        raise ValueError(f"nodes_per_rack: {npr} x {node.rack_units}U is more than a {RACK_UNITS}U rack")
    halls = list(snap.halls)
    if request.hall_id is not None:
        halls = [h for h in halls if h.id == request.hall_id]
        if not halls:
            raise ValueError(f"hall: no hall {request.hall_id} in this campus")
    g = power_graph(snap)
    inp = _HallInput(
        snap=snap,
        node=node,
        slug=request.node_model,
        nodes_per_rack=npr,
        racks=request.racks,
        rack_kw=node_kw(snap, request.node_model) * npr,
        rack_size=rack_size or {},
        rows=rows or {},
        used_ports=_memo(g, "placement_ports", lambda: _used_ports(snap)),
        balance=_memo(g, "placement_cooling", lambda: cooling_balance(snap)),
        per_server=_memo(g, "placement_other_it", lambda: other_it_per_server_kw(snap)),
        cables=_memo(g, "placement_cables", lambda: _rack_cables(snap)),
        grid=_memo(g, "placement_grid", lambda: grid_it_kw(snap)),
        pools=_memo(g, "placement_pools", lambda: cooling_pools(snap, hall_air=True)),
    )
    short = _memo(g, "placement_short", lambda: short_at_design(snap, inp.balance))
    candidates: list[_Candidate] = []
    fails: list[_Fail] = []
    for hall in halls:
        found, fail = _evaluate_hall(inp, hall)
        candidates.extend(found)
        if fail is not None:
            fails.append(fail.located(snap, hall))
    # Branch and bound over the feed pairs of every hall: by the bound, best first; once three options
    # are found, a pair whose bound is no better than the third cannot enter the list.
    candidates.sort(key=lambda c: (-c.bound_kw, c.hall, c.a, c.b if c.b is not None else -1))
    options: list[dict] = []
    power_fails: dict[int, _Fail] = {}  # by hall id: names repeat from building to building
    halls_by_id = {h.id: h for h in halls}
    for cand in candidates:
        if len(options) >= MAX_OPTIONS:
            third = sorted(o["headroom_after"]["power_kw"] for o in options)[-MAX_OPTIONS]
            if cand.bound_kw <= third + 1e-3:  # ties (to a watt): the earlier hall and pair stay
                break
        option, fail = cand.evaluate()
        if option is not None:
            options.append(option)
        elif fail is not None and (
            cand.hall_id not in power_fails or fail.margin > power_fails[cand.hall_id].margin
        ):
            power_fails[cand.hall_id] = fail.located(snap, halls_by_id[cand.hall_id])
    fails.extend(power_fails.values())
    options.sort(
        key=lambda o: (-o["headroom_after"]["power_kw"], -o["headroom_after"]["cooling_kw"], o["hall"])
    )
    options = options[:MAX_OPTIONS]
    if options:
        best = options[0]["headroom_after"]
        where = {k: options[0][k] for k in ("hall", "hall_id", "building", "building_id")}
        # what runs out first as more is added to the best option
        binding = {
            "constraint": "power",
            **where,
            "level": best["power_level"],
            "element": best["power_element"],
            "detail": f"{best['power_kw']:.1f} kW of rack IT left before {best['power_element']} reaches its "
            f"planning limit after {best['power_failure']['name']} ({best['power_element_headroom_kw']:.1f} kW "
            "at its input)",
        }
        if best["power_level"] == "grid":
            binding = {
                **binding,
                "constraint": "grid",
                "detail": f"{best['power_kw']:.1f} kW of rack IT left on the grid connection at the peak hour "
                f"({best['power_element_headroom_kw']:.1f} kW at the grid)",
            }
        if best["cooling_kw"] < best["power_kw"]:
            binding = {
                "constraint": "cooling",
                **where,
                "level": best["cooling_level"],
                "element": best["cooling_element"],
                "detail": f"{best['cooling_kw']:.1f} kW of rack IT left before {best['cooling_element']} runs "
                f"out of cooling with {snap.cooling_redundancy or 'N+1'} intact "
                f"({best['cooling_element_headroom_kw']:.1f} kW of heat left there)",
            }
        return {
            "feasible": True,
            "binding_constraint": binding["constraint"],
            "binding": binding,
            "options": options,
            "short_at_design": short,
        }
    if not fails:
        fail = _Fail("floor_space", "", "campus", "", "the campus has no hall")
    else:
        # the hall that came closest: the most checks passed, then the smallest shortfall
        fail = max(fails, key=lambda f: (CONSTRAINTS.index(f.constraint), f.margin))
    binding = fail.as_dict()
    if short:
        # the campus is already short at design: that binds, whatever else a hall fails on first
        worst = short[0]
        more = f" (and {len(short) - 1} more already short)" if len(short) > 1 else ""
        binding = {
            "constraint": worst["constraint"],
            **{k: worst[k] for k in ("hall", "hall_id", "building", "building_id")},
            "level": worst["level"],
            "element": worst["element"],
            "detail": f"already {worst['shortfall_kw']:.1f} kW short at design with nothing placed: "
            f"{worst['detail']}{more}",
        }
    return {
        "feasible": False,
        "binding_constraint": binding["constraint"],
        "binding": binding,
        "options": [],
        "short_at_design": short,
    }
