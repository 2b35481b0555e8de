"""The failover headroom as it was computed before the incremental solver: every scenario re-solves its
affected devices with per-hall probe dictionaries. Kept verbatim (the additions are marked) as the reference
the property test holds ``campus.analysis.headroom`` to.

Failover-aware headroom: the load that can be added with the design redundancy intact.

The design redundancy is written into the chain itself, so it is checked by failing the chain:

* **scenarios**: the healthy chain; each live non-generator device lost alone (N+1 and block-redundant
  groups: any one unit lost); each utility feed lost alone; and, where racks have A and B sides from
  separate devices, each whole side lost (2N: either side carries everything; not in a distributed
  redundant design, where one block feeds A sides and B sides). Generators are standby sources: they carry load
  only in the scenarios that cut their switchboard's normal supply. Loads are the untripped roll-up of
  the scenario (``power_solve.resolve``), so an element over its limit shows as negative headroom instead of
  vanishing in a trip.
* **device headroom** = planning limit − worst load over the scenarios, in kW at the device's input.
  The planning limit is ``rated_kw × max_utilization`` (a utility feed: its ``capacity_kw``). The scenario
  giving the worst load is the *binding failure*.
* **hall / building / campus headroom** = the IT load (kW at the racks) that can be added to the scope
  before the first device reaches its planning limit in any scenario. Added load is placed like today's
  load: over a hall's racks in proportion to their IT load, over a building's (campus') halls in
  proportion to theirs. A scope with no IT load yet places it by rack ``design_kw`` (failing that: evenly
  per rack). Within one scenario every device load is linear in the rack loads (fixed splits, fixed
  efficiencies), so with ``s`` the device's input kW per added IT kW in that scenario:
  ``headroom = min over (device, scenario) of (limit − load) / s``; the minimising pair names the binding
  device and failure. A scope without fed racks has no headroom (None): nothing can be placed in it.

``s`` is found by pushing one unit of probe load per hall through the scenario's splits, so it includes
every efficiency on the way and the shift of the racks onto the surviving side. The probe also carries
the cooling power the added IT brings (``mechanical.mechanical_sensitivity``): its heat on the units
and plants that would take it, their fans, pumps and chillers' extra kW on their own supplies, so a
mechanical PDU, or the UPS, transformer or substation above it, can bind.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from campus.analysis.headroom.scenarios import _generator_carries  # addition: the scenario set
from campus.analysis.heat import (
    other_it_per_server_kw,
    server_share,
)
from campus.analysis.mechanical import mechanical_sensitivity
from campus.analysis.power import PowerGraph, baseline_state, power_graph
from campus.analysis.power_solve import _State, resolve
from campus.analysis.snapshot import CampusSnapshot

# Sensitivities below this (kW per added kW) mean the scope does not load the device.
MIN_SENSITIVITY = 1e-9
SIDES_2N = ("A", "B")

Vec = dict[int, float]  # hall id -> kW (per kW of probe load added to that hall)


@dataclass(frozen=True)
class Failure:
    """One scenario: ``kind`` is "none" (healthy), "power" (a device), "utility" (a feed) or "side"."""

    kind: str
    id: int | str | None = None
    name: str = ""

    def as_dict(self) -> dict:
        return {"kind": self.kind, "id": self.id, "name": self.name}


HEALTHY = Failure("none", None, "no failure")


@dataclass
class ElementHeadroom:
    """A power device or utility feed: limit, healthy load and worst load over the scenarios, kW."""

    kind: str  # device kind, or "utility"
    id: int
    name: str
    limit_kw: float
    load_kw: float
    worst_load_kw: float
    worst_failure: Failure

    @property
    def headroom_kw(self) -> float:
        return self.limit_kw - self.worst_load_kw

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "id": self.id,
            "name": self.name,
            "limit_kw": self.limit_kw,
            "load_kw": self.load_kw,
            "worst_load_kw": self.worst_load_kw,
            "headroom_after_failover_kw": self.headroom_kw,
            "worst_failure": self.worst_failure.as_dict(),
        }


@dataclass
class ScopeHeadroom:
    """Added IT load a hall, building or the campus takes with the design redundancy intact, kW."""

    scope: str  # "hall" | "building" | "campus"
    id: int | None
    it_kw: float  # today's rack IT load
    headroom_kw: float | None  # None: no fed racks to place load on
    binding_kind: str = ""  # device kind or "utility"
    binding_id: int | None = None
    binding_name: str = ""
    binding_failure: Failure | None = None
    placement: str = "load"  # "load" | "design" | "racks": how added load is spread

    def binding_dict(self) -> dict | None:
        if self.binding_id is None:
            return None
        return {
            "kind": self.binding_kind,
            "id": self.binding_id,
            "name": self.binding_name,
            "failure": self.binding_failure.as_dict() if self.binding_failure else None,
        }

    def as_dict(self) -> dict:
        return {
            "scope": self.scope,
            "id": self.id,
            "it_kw": self.it_kw,
            "headroom_after_failover_kw": self.headroom_kw,
            "binding": self.binding_dict(),
            "placement": self.placement,
        }


@dataclass
class Headroom:
    devices: dict[int, ElementHeadroom]
    utilities: dict[int, ElementHeadroom]
    halls: dict[int, ScopeHeadroom]
    buildings: dict[int, ScopeHeadroom]
    campus: ScopeHeadroom
    scenarios: int = 0

    def as_dict(self) -> dict:
        return {
            "campus": self.campus.as_dict(),
            "buildings": [b.as_dict() for b in self.buildings.values()],
            "halls": [h.as_dict() for h in self.halls.values()],
            "utilities": [u.as_dict() for u in self.utilities.values()],
            "devices": [d.as_dict() for d in self.devices.values()],
            "scenarios": self.scenarios,
        }


# ---------------------------------------------------------------- placement of added load


@dataclass
class _Placement:
    rack_weight: dict[int, float]  # rack -> share of its hall's added load
    hall_mode: dict[int, str]
    building_share: dict[int, dict[int, float]]  # building -> hall -> share
    building_mode: dict[int, str]
    campus_share: dict[int, float] = field(default_factory=dict)
    campus_mode: str = "load"


def _shares(weights: Mapping[int, tuple[float, float]]) -> tuple[dict[int, float], str]:
    """Normalise (load, design) weights: by load, else by design, else evenly."""
    for index, mode in ((0, "load"), (1, "design")):
        total = sum(w[index] for w in weights.values())
        if total > 0:
            return {k: w[index] / total for k, w in weights.items()}, mode
    n = len(weights)
    return ({k: 1.0 / n for k in weights} if n else {}), "racks"


def _placement(g: PowerGraph) -> _Placement:
    snap = g.snap
    hall_building = {h.id: h.building_id for h in snap.halls}
    per_hall: dict[int, dict[int, tuple[float, float]]] = {}
    live = baseline_state(g).live
    for r in snap.racks:
        # a rack takes added load only on a live path: a rack dark with nothing failed (its feeds' devices
        # offline) can take none, and the scope around it places all on the others  # addition of a later rule
        fids = g.rack_feeds.get(r.id)
        if fids and any(live.get(g.feeds[f].upstream_id, False) for f in fids):
            per_hall.setdefault(r.hall_id, {})[r.id] = (g.default_rack_load_kw[r.id], max(r.design_kw, 0.0))
            hall_building.setdefault(r.hall_id, r.building_id)
    rack_weight: dict[int, float] = {}
    hall_mode: dict[int, str] = {}
    hall_totals: dict[int, tuple[float, float]] = {}
    for hid, racks in per_hall.items():
        shares, hall_mode[hid] = _shares(racks)
        rack_weight.update(shares)
        hall_totals[hid] = (sum(w[0] for w in racks.values()), sum(w[1] for w in racks.values()))
    by_building: dict[int, dict[int, tuple[float, float]]] = {}
    for hid, totals in hall_totals.items():
        by_building.setdefault(hall_building[hid], {})[hid] = totals
    building_share: dict[int, dict[int, float]] = {}
    building_mode: dict[int, str] = {}
    for bid, halls in by_building.items():
        building_share[bid], building_mode[bid] = _shares(halls)
    campus_share, campus_mode = _shares(hall_totals)
    return _Placement(rack_weight, hall_mode, building_share, building_mode, campus_share, campus_mode)


# ---------------------------------------------------------------- probe propagation


def _side_groups(members: list[tuple[str, int]]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for side, ident in members:
        groups.setdefault(side, []).append(ident)
    return groups


def _add_scaled(out: Vec, vec: Vec, factor: float) -> None:
    for k, v in vec.items():
        out[k] = out.get(k, 0.0) + v * factor


class _Probe:
    """Per-hall unit probe loads pushed through one scenario's splits (the rules of ``power._solve``)."""

    def __init__(self, g: PowerGraph, weights: dict[int, float]) -> None:
        self.g = g
        # every load's kW per kW added to a hall: racks by their placement weight, the mechanical loads
        # by the cooling power the added heat brings
        self.load_vec: dict[int, Vec] = {}
        for r in g.snap.racks:
            w = weights.get(r.id, 0.0)
            if w > 0:
                self.load_vec[r.id] = {r.hall_id: w}
        # The allowance the added servers bring (``heat.other_it_per_server_kw`` per server kW) is on their
        # hall's load beside the racks (``power_graph.PowerGraph._it_beside_racks``), not on the racks.
        per_server = other_it_per_server_kw(g.snap)
        if per_server > 0:
            hall_servers: dict[int, float] = {}  # server kW per kW of probe load added to the hall
            for r in g.snap.racks:
                w = weights.get(r.id, 0.0)
                if w > 0:
                    hall_servers[r.hall_id] = hall_servers.get(r.hall_id, 0.0) + w * server_share(g.snap, r)
            for lid, (_kind, hall) in g.it_places.items():
                if hall_servers.get(hall, 0.0) > 0:
                    self.load_vec[lid] = {hall: per_server * hall_servers[hall] * g.it_share[lid]}
        mech = mechanical_sensitivity(g.snap, weights)
        for lid, key in g.mechanical.items():
            vec = {h: kw for h, kw in mech.get(key, {}).items() if kw > 0}
            if vec:
                self.load_vec[lid] = vec
        self.base_in: dict[int, Vec] = {}
        self.base_feed: dict[int, Vec] = {}
        self.base_util: dict[int, Vec] = {}
        base = baseline_state(g)
        self.solve(base, set(g.status_dead), set(), frozenset(), g.order, g.load_feeds.keys(), True)

    def solve(
        self,
        base: _State,
        dead_devices: set[int],
        dead_feeds: set[int],
        failed_utilities: frozenset[int],
        devices,
        racks,
        baseline: bool = False,
        st: _State | None = None,
    ) -> tuple[dict[int, Vec], dict[int, Vec]]:
        """Input vectors of ``devices`` and utility-share vectors, re-solving only them and ``racks``."""
        g = self.g
        feed_vec: dict[int, Vec] = self.base_feed if baseline else {}
        in_vec: dict[int, Vec] = self.base_in if baseline else {}
        util_vec: dict[int, Vec] = self.base_util if baseline else {}
        live_over = st.live if st is not None else {}

        def live(d: int) -> bool:
            v = live_over.get(d)
            return base.live[d] if v is None else v

        def feed_live(fid: int) -> bool:
            return fid not in dead_feeds and live(g.feeds[fid].upstream_id)

        for rid in racks:
            members = []
            for fid, side, _up in g.load_feed_info.get(rid, ()):
                feed_vec[fid] = {}
                if feed_live(fid):
                    members.append((side, fid))
            vec = self.load_vec.get(rid)
            if not members or not vec:
                continue
            groups = _side_groups(members)
            for ids in groups.values():
                factor = 1.0 / len(groups) / len(ids)
                for fid in ids:
                    feed_vec[fid] = {h: kw * factor for h, kw in vec.items()}
        order = devices if baseline else sorted(devices, key=g.pos.__getitem__)
        for d in reversed(order):
            dev = g.devices[d]
            ups = g.up_feeds[d]
            for fid in ups:
                feed_vec[fid] = {}
            if dev.utility_feed_id is not None:
                util_vec[d] = {}
            if not live(d):
                in_vec[d] = {}
                continue
            out: Vec = {}
            for fid in g.down_feeds[d]:
                v = feed_vec.get(fid)
                _add_scaled(out, self.base_feed.get(fid, {}) if v is None else v, 1.0)
            inp = {k: v / dev.efficiency for k, v in out.items()} if dev.efficiency > 0 else out
            in_vec[d] = inp
            members = []
            util = dev.utility_feed_id
            if util is not None and util not in failed_utilities:
                members.append(("utility", -1))
            for fid in ups:
                if feed_live(fid) and g.feeds[fid].upstream_id not in g.generators:
                    members.append((g.feeds[fid].side, fid))
            if not members:
                members = [(g.feeds[fid].side, fid) for fid in ups if feed_live(fid)]
            if not members:
                continue
            groups = _side_groups(members)
            for ids in groups.values():
                factor = 1.0 / len(groups) / len(ids)
                for fid in ids:
                    scaled = {k: v * factor for k, v in inp.items()}
                    if fid == -1:
                        util_vec[d] = scaled
                    else:
                        feed_vec[fid] = scaled
        return in_vec, util_vec


# ---------------------------------------------------------------- the analysis


def _scenarios(g: PowerGraph) -> list[tuple[Failure, set[int], set[int], frozenset[int]]]:
    """(failure, dead devices, dead feeds, failed utilities) of every scenario after the healthy one."""
    base = baseline_state(g)
    out = []
    for d in g.order:
        # addition: a generator that carries load in the healthy chain is failed too (the scenario set of
        # ``headroom.scenarios.failure_scenarios``, ``_generator_carries``); the reference checks the solve, not the set
        if not base.live.get(d, False) or (d in g.generators and not _generator_carries(g, base.live, d)):
            continue
        out.append((Failure("power", d, g.devices[d].name), set(g.status_dead) | {d}, set(), frozenset()))
    for u in sorted(g.utility_ids):
        name = next((x.name for x in g.snap.utility_feeds if x.id == u), f"utility feed {u}")
        out.append((Failure("utility", u, name), set(g.status_dead), set(), frozenset({u})))
    rack_sides = {side for info in g.rack_feed_info.values() for _, side, _ in info}
    # A side is one system only when no device feeds racks on both sides (2N). In a distributed redundant
    # design (N+1 blocks, each rack on two of them) a block feeds A sides of some racks and B sides of
    # others, so "all of side A" is no single failure: its blocks' own losses are the scenarios.
    sides_of_feeder: dict[int, set[str]] = {}
    for info in g.rack_feed_info.values():
        for _, side, up in info:
            sides_of_feeder.setdefault(up, set()).add(side)
    separate = all(len(sides) == 1 for sides in sides_of_feeder.values())
    if set(SIDES_2N) <= rack_sides and separate:
        for side in SIDES_2N:
            dead = {fid for fid, f in g.feeds.items() if f.side == side}
            out.append((Failure("side", side, f"side {side}"), set(g.status_dead), dead, frozenset()))
    return out


class _ScopeMin:
    def __init__(self, it_kw: float = 0.0) -> None:
        self.value: float | None = None
        self.element: tuple[str, int, str] | None = None
        self.failure: Failure | None = None
        self.it_kw = it_kw
        self.seq: list = []

    def offer(self, value: float, element: tuple[str, int, str], failure: Failure) -> None:
        self.seq.append((value, element, failure))

    def finish(self) -> None:
        # addition of a later rule: an element the scope cannot bring back within its limit in some
        # scenario by shedding all of its own load (a value below minus its IT) gives it 0 in every scenario
        unfixable = {element for value, element, _ in self.seq if value < -self.it_kw}
        # addition for the property test: every (element, failure) offered, at its lowest value
        seen = self.__dict__.setdefault("offers", {})
        for value, element, failure in self.seq:
            if element in unfixable:
                value = max(value, 0.0)
            key = (element, failure)
            if key not in seen or value < seen[key]:
                seen[key] = value
            if self.value is None or value < self.value:
                self.value, self.element, self.failure = value, element, failure


def failover_headroom(snap: CampusSnapshot) -> Headroom:
    """Headroom of every device, utility feed, hall, building and the campus (see the module doc).

    Computed once per snapshot and shared: callers must not modify the result."""
    g = power_graph(snap)
    with _CACHE_LOCK:
        hit = _CACHE.get(id(g))
    if hit is not None and hit[0] is g:
        return hit[1]
    result = _compute(g)
    with _CACHE_LOCK:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)), None)
        _CACHE[id(g)] = (g, result)
    return result


_CACHE: dict[int, tuple[PowerGraph, Headroom]] = {}
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


def _compute(g: PowerGraph) -> Headroom:
    snap = g.snap
    base = baseline_state(g)
    place = _placement(g)
    probe = _Probe(g, place.rack_weight)
    hall_building = {h.id: h.building_id for h in snap.halls}
    hall_building.update({r.hall_id: r.building_id for r in snap.racks if r.hall_id not in hall_building})
    utilities = {u.id: u for u in snap.utility_feeds}
    util_devices: dict[int, list[int]] = {}
    for d, dev in g.devices.items():
        if dev.utility_feed_id is not None:
            util_devices.setdefault(dev.utility_feed_id, []).append(d)

    devices: dict[int, ElementHeadroom] = {}
    for d, dev in g.devices.items():
        if dev.rated_kw > 0:
            load = base.in_kw.get(d, 0.0)
            devices[d] = ElementHeadroom(
                dev.kind, d, dev.name, dev.rated_kw * dev.max_utilization, load, load, HEALTHY
            )
    util_rows: dict[int, ElementHeadroom] = {}
    base_util_load = {u: sum(base.utility_share_kw.get(d, 0.0) for d in ds) for u, ds in util_devices.items()}
    for u, feed in utilities.items():
        if feed.capacity_kw > 0:
            load = base_util_load.get(u, 0.0)
            util_rows[u] = ElementHeadroom("utility", u, feed.name, feed.capacity_kw, load, load, HEALTHY)

    it_by_hall: dict[int, float] = {}
    for r in snap.racks:
        it_by_hall[r.hall_id] = it_by_hall.get(r.hall_id, 0.0) + g.default_rack_load_kw[r.id]
    building_it: dict[int | None, float] = {}
    for h, kw in it_by_hall.items():
        building_it[hall_building.get(h)] = building_it.get(hall_building.get(h), 0.0) + kw

    hall_min: dict[int, _ScopeMin] = {h: _ScopeMin(it_by_hall.get(h, 0.0)) for h in place.hall_mode}
    building_min: dict[int, _ScopeMin] = {b: _ScopeMin(building_it.get(b, 0.0)) for b in place.building_share}
    campus_min = _ScopeMin(sum(it_by_hall.values()))

    def offer(element: tuple[str, int, str], margin: float, vec: Vec, failure: Failure) -> None:
        building_sens: dict[int, float] = {}
        campus_sens = 0.0
        for hall, s in vec.items():
            if s > MIN_SENSITIVITY and hall in hall_min:
                hall_min[hall].offer(margin / s, element, failure)
            bid = hall_building.get(hall)
            share = place.building_share.get(bid, {}).get(hall, 0.0)
            if share:
                building_sens[bid] = building_sens.get(bid, 0.0) + s * share
            campus_sens += s * place.campus_share.get(hall, 0.0)
        for bid, s in building_sens.items():
            if s > MIN_SENSITIVITY:
                building_min[bid].offer(margin / s, element, failure)
        if campus_sens > MIN_SENSITIVITY:
            campus_min.offer(margin / campus_sens, element, failure)

    def evaluate(failure: Failure, in_kw, in_vec, util_load, util_vec, dev_ids, util_ids) -> None:
        for d in dev_ids:
            row = devices.get(d)
            if row is None:
                continue
            load = in_kw(d)
            row.__dict__.setdefault("loads", {})[failure] = load  # addition for the property test
            if load > row.worst_load_kw:
                row.worst_load_kw, row.worst_failure = load, failure
            offer((row.kind, d, row.name), row.limit_kw - load, in_vec(d), failure)
        for u in util_ids:
            row = util_rows.get(u)
            if row is None:
                continue
            load = util_load(u)
            row.__dict__.setdefault("loads", {})[failure] = load  # addition for the property test
            if load > row.worst_load_kw:
                row.worst_load_kw, row.worst_failure = load, failure
            offer(("utility", u, row.name), row.limit_kw - load, util_vec(u), failure)

    def util_vector(u: int, vecs: Mapping[int, Vec]) -> Vec:
        out: Vec = {}
        for d in util_devices.get(u, ()):
            _add_scaled(out, vecs.get(d, probe.base_util.get(d, {})), 1.0)
        return out

    evaluate(
        HEALTHY,
        lambda d: base.in_kw.get(d, 0.0),
        lambda d: probe.base_in.get(d, {}),
        lambda u: base_util_load.get(u, 0.0),
        lambda u: util_vector(u, {}),
        list(g.devices),
        list(util_rows),
    )
    scenarios = _scenarios(g)
    for failure, dead_devices, dead_feeds, failed_utilities in scenarios:
        utility_hit = {d for u in failed_utilities for d in g.by_utility.get(u, ())}
        st = resolve(g, base, set(dead_devices), set(dead_feeds), failed_utilities, utility_hit, None)
        affected = set(st.in_kw)
        if not affected:
            continue
        in_vec, util_vec = probe.solve(
            base, dead_devices, dead_feeds, failed_utilities, affected, st.racks, st=st
        )
        live = {**base.live, **st.live}
        touched_utils = {g.devices[d].utility_feed_id for d in affected} - {None}

        def util_load(u: int, st=st) -> float:
            return sum(
                st.utility_share_kw.get(d, base.utility_share_kw.get(d, 0.0)) for d in util_devices.get(u, ())
            )

        evaluate(
            failure,
            lambda d, st=st: st.in_kw.get(d, base.in_kw.get(d, 0.0)),
            lambda d, in_vec=in_vec: in_vec.get(d, probe.base_in.get(d, {})),
            util_load,
            lambda u, util_vec=util_vec: util_vector(u, util_vec),
            [d for d in affected if live.get(d, False)],
            sorted(u for u in touched_utils if u not in failed_utilities),
        )

    for m in (*hall_min.values(), *building_min.values(), campus_min):
        m.finish()

    def scope_row(
        scope: str, ident: int | None, it_kw: float, m: _ScopeMin | None, mode: str
    ) -> ScopeHeadroom:
        if m is None or m.value is None:
            return ScopeHeadroom(scope, ident, it_kw, None, placement=mode)
        kind, eid, name = m.element
        return ScopeHeadroom(scope, ident, it_kw, m.value, kind, eid, name, m.failure, mode)

    halls = {
        h.id: scope_row(
            "hall", h.id, it_by_hall.get(h.id, 0.0), hall_min.get(h.id), place.hall_mode.get(h.id, "")
        )
        for h in snap.halls
    }
    buildings = {}
    for b in snap.buildings:
        it_kw = sum(v for h, v in it_by_hall.items() if hall_building.get(h) == b.id)
        buildings[b.id] = scope_row(
            "building", b.id, it_kw, building_min.get(b.id), place.building_mode.get(b.id, "")
        )
    campus = scope_row("campus", None, sum(it_by_hall.values()), campus_min, place.campus_mode)
    result = Headroom(devices, util_rows, halls, buildings, campus, scenarios=len(scenarios) + 1)
    # addition for the property test: every scope's offers, (element, failure) -> lowest value
    scopes = [(("hall", h), m) for h, m in hall_min.items()]
    scopes += [(("building", b), m) for b, m in building_min.items()] + [(("campus", None), campus_min)]
    result.offers = {key: m.__dict__.get("offers", {}) for key, m in scopes}
    return result


def both_sides_headroom_kw(snap: CampusSnapshot) -> dict[int, float]:
    """Per building: the planning headroom of its grid-connected devices added up, healthy chain, kW.

    Both sides of a 2N chain count, so this is NOT load that can be added with redundancy intact; it is
    kept for comparison with ``failover_headroom``."""
    g = power_graph(snap)
    base = baseline_state(g)
    out: dict[int, float] = {}
    for d in snap.power_devices:
        if d.utility_feed_id is not None and d.building_id is not None:
            out[d.building_id] = out.get(d.building_id, 0.0) + (
                d.rated_kw * d.max_utilization - base.in_kw.get(d.id, 0.0)
            )
    return out


__all__ = [
    "ElementHeadroom",
    "Failure",
    "Headroom",
    "ScopeHeadroom",
    "both_sides_headroom_kw",
    "failover_headroom",
]
