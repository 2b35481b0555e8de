"""Failover-aware headroom: the load that can be added with the design redundancy intact.

The design redundancy is written into the chain itself, so it is checked by failing the chain:

* **scenarios**: the healthy chain; each live device lost alone (N+1 and block-redundant groups: any one
  unit lost); each utility feed lost alone; and, where racks have A and B sides from separate devices, each
  whole side lost (2N: either side carries everything; not in a distributed redundant design, where one
  block feeds A sides and B sides). Generators are standby sources: they carry load only where their
  switchboard's normal supply is cut. A generator is lost alone like any device when it carries load in the
  healthy chain (``_generator_carries``: a device of kind ``generator`` in the middle of the chain, such as
  a PDU given that kind, or the only live source of a bus), as the redundancy check and impact mode fail
  it; a standby generator beside a live normal supply carries nothing, so its loss alone changes no load
  and is no scenario (the redundancy check finds it costs nothing). Loads are the untripped roll-up of
  the scenario (the rules of ``power._solve``), so an element over its limit shows as negative headroom instead of
  vanishing in a trip. A failure that leaves racks without power takes their load off the chain: the
  headroom counts what the surviving chain can carry, not the racks lost (the redundancy check lists those).
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

Two bounds follow (``failover_headroom``): the **rack feeds** (``_feed_bound``: a feed's limit is its rating ×
the ``max_utilization`` of the device feeding it, its load its share of the rack's in the scenario giving
it the largest share) and the **grid connection** (``_grid_bound``: the rack IT the campus can add before
its peak hour's facility load reaches ``grid_capacity_kw``, the same for every scope). A scope keeps the
devices' own figure as ``chain_headroom_kw`` (stranded capacity's ``upstream``).

``s`` is found by pushing one unit of probe load per hall through the scenario's splits, so it includes
every efficiency on the way and the shift of the racks onto the surviving side. The probe also carries
the cooling power the added IT brings (``mechanical.mechanical_sensitivity``): its heat on the units
and plants that would take it, their fans, pumps and chillers' extra kW on their own supplies, so a
mechanical PDU, or the UPS, transformer or substation above it, can bind.

**Ties.** Scenarios are taken in order (healthy, the devices in topological order, the utility feeds, the
sides) and within a scenario the devices by id, then the utility feeds by id. The worst load keeps the first
scenario reaching it and the binding the first (device, scenario) pair reaching the minimum; values within
``TIE_RELATIVE`` (1e-12, relative) of each other are a tie, since two routes to the same figure may differ
in the last bits.

**Computation.** A scenario changes only the devices above what it touches (see ``_Probe``): each one's
probe vector and load are its healthy ones plus the change, carried up the chain as a short combination of
healthy vectors and rack shifts; the numbers of all scenarios are then evaluated together in arrays.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from campus.analysis.facility import campus_pue
from campus.analysis.heat import other_it_per_server_kw, server_share
from campus.analysis.mechanical import mechanical_sensitivity
from campus.analysis.power import PowerGraph, baseline_state, power_graph
from campus.analysis.power_solve import _liveness_changes, failure_seeds
from campus.analysis.snapshot import CampusSnapshot

# Sensitivities below this (kW per added kW) mean the scope does not load the device.
MIN_SENSITIVITY = 1e-9
# Values closer than this (relative) are a tie: float rounding, not a difference. The first in scenario
# order keeps the worst load or the binding; see the module doc.
TIE_RELATIVE = 1e-12
SIDES_2N = ("A", "B")
# Rows and source terms per numeric chunk (memory: a row is one float per hall).
_ROW_CHUNK = 4096
_COEF_CHUNK = 32768


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
    # the devices' and utility feeds' own figure and binding, before the rack feeds' and the grid's bounds
    # (``_feed_bound``, ``_grid_bound``); stranded capacity counts feeds and grid apart, as constraints of
    # their own
    chain_headroom_kw: float | None = None
    chain_binding: dict | None = None
    # the chain's figure over the elements within their limit only (None: none bounds the scope); where
    # no element is over its limit, the chain's own. Stranded capacity caps a building and the campus by
    # it: an element already over its limit strands capacity in the halls loading it, not in the others
    # (``stranded._upstream``)
    within_headroom_kw: float | None = None
    within_binding: dict | None = None
    # a building or the campus: its halls all at their own headroom at once keep every element within its
    # limit in every scenario (stranded capacity then adds its halls up)
    members_fit: bool = False

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
class GridHeadroom:
    """The campus's grid connection: its capacity against the facility load of the peak hour, kW at the
    grid, and the rack IT that fits before it is reached (``_grid_bound``)."""

    capacity_kw: float
    facility_kw: float  # what the racks' feeds carry today x the peak hour's PUE
    peak_pue: float
    it_headroom_kw: float  # rack IT (kW at the racks, as the scopes' headroom) the grid still takes

    @property
    def headroom_kw(self) -> float:
        return self.capacity_kw - self.facility_kw

    def as_dict(self) -> dict:
        return {
            "capacity_kw": self.capacity_kw,
            "facility_kw": self.facility_kw,
            "peak_pue": self.peak_pue,
            "headroom_kw": self.headroom_kw,
            "it_headroom_kw": self.it_headroom_kw,
        }


@dataclass
class Headroom:
    devices: dict[int, ElementHeadroom]
    utilities: dict[int, ElementHeadroom]
    halls: dict[int, ScopeHeadroom]
    buildings: dict[int, ScopeHeadroom]
    campus: ScopeHeadroom
    scenarios: int = 0
    grid: GridHeadroom | None = None  # None: no grid limit modelled (``grid_capacity_kw`` 0)

    def as_dict(self) -> dict:
        return {
            "campus": self.campus.as_dict(),
            "grid": self.grid.as_dict() if self.grid is not None else None,
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
        # offline) can take none, and the scope around it places all on the others
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


def _split_factors(groups: dict[str, list[int]]) -> dict[int, float]:
    """Each member's share: evenly over the sides, then over a side's members (``power._split``)."""
    out: dict[int, float] = {}
    for ids in groups.values():
        factor = 1.0 / len(groups) / len(ids)
        for i in ids:
            out[i] = factor
    return out


def _side_groups(members: list[tuple[str, int]]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for side, ident in members:
        groups.setdefault(side, []).append(ident)
    return groups


Coefs = dict[int, float]  # source row -> coefficient: a vector as a combination of the solver's sources


def _add_into(out: Coefs, coefs: Coefs, factor: float) -> None:
    for k, v in coefs.items():
        out[k] = out.get(k, 0.0) + v * factor


class _Probe:
    """Per-hall unit probe loads pushed through the baseline's splits (the rules of ``power._solve``), and
    the change a scenario makes to them, solved incrementally.

    A vector is a row over the probe halls plus one last column, the load in kW, so one propagation gives a
    device's sensitivities and its load. ``base_in`` holds every device's healthy input row. A scenario only
    changes the rows of the devices above a change (a device that dies, a re-split of its sources, racks
    moving to their surviving side); each change is carried up the chain as a short combination of
    *sources* (rows of ``base_in`` and of precomputed rack-shift vectors), so a scenario costs a few
    dictionary operations per changed device. ``rows`` turns the combinations into numbers at the end, all
    scenarios at once."""

    def __init__(self, g: PowerGraph, weights: dict[int, float]) -> None:
        self.g = g
        snap = g.snap
        base = self.base = baseline_state(g)
        per_server = other_it_per_server_kw(snap)
        mech = mechanical_sensitivity(snap, weights, per_server)
        halls = {h.id for h in snap.halls} | {r.hall_id for r in snap.racks}
        for vec in mech.values():
            halls.update(vec)
        self.halls = sorted(halls)
        col = self.col = {h: i for i, h in enumerate(self.halls)}
        n_halls = self.n_halls = len(self.halls)
        # every load's row: kW per kW added to a hall (racks by their placement weight, the mechanical loads
        # by the cooling power the added heat brings) and, last, its kW today
        self.load_row = {lid: i for i, lid in enumerate(g.load_feed_info)}
        loads = self.loads = np.zeros((len(self.load_row), n_halls + 1))
        for lid, i in self.load_row.items():
            loads[i, n_halls] = g.load_kw.get(lid, 0.0)
        # The allowance the added servers bring (``heat.other_it_per_server_kw`` per server kW, rule 5 of
        # ``heat``: k·S_h in each hall) is on their hall's load beside the racks, not on the racks' feeds.
        hall_servers = np.zeros(n_halls)
        weighted = []
        server_shares: dict[tuple, float] = {}  # by rack make-up
        for r in snap.racks:
            w = weights.get(r.id, 0.0)
            if w > 0 and r.id in self.load_row:
                weighted.append((r, w))
                if per_server:
                    key = (r.nodes, r.extra_it_kw)
                    if key not in server_shares:
                        server_shares[key] = server_share(snap, r)
                    hall_servers[col[r.hall_id]] += w * server_shares[key]
        if weighted:
            rows = np.array([self.load_row[r.id] for r, _ in weighted], dtype=np.intp)
            w = np.array([w for _, w in weighted])
            cols = np.array([col[r.hall_id] for r, _ in weighted], dtype=np.intp)
            loads[rows, cols] += w  # a rack's row once: no repeats
        if per_server:
            for lid, (kind, hall) in g.it_places.items():
                if kind == "hall" and hall in col:
                    share = per_server * hall_servers[col[hall]] * g.it_share[lid]
                    loads[self.load_row[lid], col[hall]] += share
        for lid, key in g.mechanical.items():
            vec = mech.get(key)
            if vec:
                kw = np.fromiter(vec.values(), float, len(vec))
                cols = np.fromiter(map(col.__getitem__, vec), np.intp, len(vec))
                loads[self.load_row[lid], cols[kw > 0]] = kw[kw > 0]

        # the baseline's splits: each load feed's and each device source's share
        self.load_fac: dict[int, float] = {}
        for info in g.load_feed_info.values():
            groups: dict[str, list[int]] = {}
            for fid, side, up in info:
                if base.live[up]:
                    groups.setdefault(side, []).append(fid)
            self.load_fac.update(_split_factors(groups))
        self.dev_row = {d: i for i, d in enumerate(g.devices)}
        self.up_fac: dict[int, dict[int, float]] = {}
        self.util_fac: dict[int, float] = {}
        for d in g.devices:
            fac = self.factors(d, base.live.__getitem__, frozenset(), frozenset()) if base.live[d] else {}
            self.util_fac[d] = fac.pop(-1, 0.0)
            self.up_fac[d] = fac
        self.dev_loads: dict[int, list[tuple[int, int, int]]] = {d: [] for d in g.devices}
        for lid, info in g.load_feed_info.items():
            for fid, _side, up in info:
                self.dev_loads[up].append((fid, lid, self.load_row[lid]))
        # a device's sources (feed, device), and the devices taking a share of its input in the baseline
        self.sources = {d: [(fid, g.feeds[fid].upstream_id) for fid in g.up_feeds[d]] for d in g.devices}
        self.shares = {
            d: [(up, self.up_fac[d][fid]) for fid, up in self.sources[d] if self.up_fac[d].get(fid)]
            for d in g.devices
        }
        self.children: dict[int, list[tuple[int, int]]] = {d: [] for d in g.devices}
        for fid, f in g.feeds.items():
            if f.downstream_device_id is not None:
                self.children[f.upstream_id].append((fid, f.downstream_device_id))

        # the healthy solve, bottom up; the load column is the power solve's own figure
        base_in = self.base_in = np.zeros((len(self.dev_row), n_halls + 1))
        for d in reversed(g.order):
            if not base.live[d]:
                continue
            out = np.zeros(n_halls + 1)
            fed = self.dev_loads[d]
            if fed:
                fac = np.array([self.load_fac.get(fid, 0.0) for fid, _, _ in fed])
                out += fac @ loads[[i for _, _, i in fed]]
            for fid, child in self.children[d]:
                fac = self.up_fac[child].get(fid, 0.0)
                if fac:
                    out += fac * base_in[self.dev_row[child]]
            eff = g.devices[d].efficiency
            row = base_in[self.dev_row[d]]
            row[:] = out / eff if eff > 0 else out
            row[n_halls] = base.in_kw.get(d, 0.0)
        self.extra: list[np.ndarray] = []  # sources beyond ``base_in``: rack shifts
        self._shift: dict[int, tuple[list[tuple[int, int]], frozenset[int], frozenset[int]]] = {}

    def factors(self, d: int, live, dead_feeds, failed_utilities) -> dict[int, float]:
        """Shares of a live device's input over its sources (feed id -> share, -1: its utility)."""
        g = self.g
        feeds = g.feeds
        ups = g.up_feeds[d]
        members = []
        util = g.devices[d].utility_feed_id
        if util is not None and util not in failed_utilities:
            members.append(("utility", -1))
        for fid in ups:
            up = feeds[fid].upstream_id
            if fid not in dead_feeds and live(up) and up not in g.generators:
                members.append((feeds[fid].side, fid))
        if not members:
            members = [
                (feeds[fid].side, fid)
                for fid in ups
                if fid not in dead_feeds and live(feeds[fid].upstream_id)
            ]
        return _split_factors(_side_groups(members))

    def source(self, vec: np.ndarray) -> int:
        self.extra.append(vec)
        return len(self.dev_row) + len(self.extra) - 1

    def load_shift(self, rows_by_device: dict[int, tuple[list[int], list[float]]]) -> list[tuple[int, int]]:
        """(device, source) of the rack shifts: per device, its changed load-feed shares times the loads."""
        out = []
        for d, (rows, coefs) in rows_by_device.items():
            out.append((d, self.source(np.asarray(coefs) @ self.loads[rows])))
        return out

    def shift_of(self, x: int) -> tuple[list[tuple[int, int]], frozenset[int], frozenset[int]]:
        """What the loss of device ``x`` alone does to the loads it feeds: (device, source) per other
        feeder, and the other feeds of those loads and their devices (the shift holds while none of them
        changes too)."""
        hit = self._shift.get(x)
        if hit is not None:
            return hit
        g, base = self.g, self.base
        acc: dict[int, tuple[list[int], list[float]]] = {}
        other_feeds: set[int] = set()
        other_devices: set[int] = set()
        for lid in dict.fromkeys(lid for _, lid, _ in self.dev_loads[x]):
            info = g.load_feed_info[lid]
            groups: dict[str, list[int]] = {}
            for fid, side, up in info:
                if up != x:
                    other_feeds.add(fid)
                    other_devices.add(up)
                    if base.live[up]:
                        groups.setdefault(side, []).append(fid)
            new = _split_factors(groups)
            for fid, _side, up in info:
                if up == x:
                    continue
                delta = new.get(fid, 0.0) - self.load_fac.get(fid, 0.0)
                if delta:
                    rows, coefs = acc.setdefault(up, ([], []))
                    rows.append(self.load_row[lid])
                    coefs.append(delta)
        hit = self._shift[x] = (self.load_shift(acc), frozenset(other_feeds), frozenset(other_devices))
        return hit


# ---------------------------------------------------------------- the analysis


def _generator_carries(g: PowerGraph, base_live: Mapping[int, bool], d: int) -> bool:
    """Whether generator ``d`` carries anything in the healthy chain (the rules of ``power._solve``): it
    feeds a load itself (a rack, or a cooling unit's or plant's supply: a load splits over its live feeds
    whatever feeds them), or a live device with no live non-generator source (no utility feed of its own
    and every non-generator feed's device dead), which then draws on its generators. A standby generator
    beside a live normal supply carries nothing, so its loss alone changes no load and no liveness."""
    feeds = g.feeds
    for fid in g.down_feeds[d]:
        child = feeds[fid].downstream_device_id
        if child is None:
            return True
        if not base_live.get(child, False) or g.devices[child].utility_feed_id is not None:
            continue
        if not any(
            base_live.get(feeds[up].upstream_id, False) and feeds[up].upstream_id not in g.generators
            for up in g.up_feeds[child]
        ):
            return True
    return False


def _scenarios(g: PowerGraph) -> list[tuple[Failure, set[int], set[int], frozenset[int]]]:
    """(failure, dead devices, dead feeds, failed utilities) of every scenario after the healthy one.

    Every live device is lost alone, generators included where they carry load in the healthy chain
    (``_generator_carries``: a device of kind ``generator`` in the middle of the chain, or the only source
    of a bus): the redundancy check fails them too (``redundancy.redundancy_elements``). A standby
    generator beside a live normal supply is left out: its loss alone changes nothing, as the redundancy
    check finds."""
    base = baseline_state(g)
    out = []
    for d in g.order:
        if not base.live.get(d, False):
            continue
        if d in g.generators and not _generator_carries(g, base.live, d):
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


def failover_headroom(snap: CampusSnapshot) -> Headroom:
    """Headroom of every device, utility feed, hall, building and the campus (see the module doc).

    Computed once per snapshot and shared: callers must not modify the result."""
    g = power_graph(snap)
    with _CACHE_LOCK:
        hit = _CACHE.get(id(g))
    if hit is not None and hit[0] is g:
        return hit[1]
    context: dict = {}
    result = _compute(g, context)
    for row in (*result.halls.values(), *result.buildings.values(), result.campus):
        row.chain_headroom_kw, row.chain_binding = row.headroom_kw, row.binding_dict()
    result = _grid_bound(g, _feed_bound(g, result, context))
    with _CACHE_LOCK:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)), None)
        _CACHE[id(g)] = (g, result)
    return result


_CACHE: dict[int, tuple[PowerGraph, Headroom]] = {}
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


def _scenario_rows(
    probe: _Probe,
    scenario: tuple[Failure, set[int], set[int], frozenset[int]],
) -> tuple[list[tuple[int, Coefs]], dict[int, Coefs]]:
    """The changed input rows of one scenario's live devices and utility feeds, as source combinations
    added to their healthy rows: ([(device, coefs)], {utility: coefs})."""
    g, base = probe.g, probe.base
    _failure, dead_devices, dead_feeds, failed_utilities = scenario
    utility_hit = {d for u in failed_utilities for d in g.by_utility.get(u, ())}
    seeds = failure_seeds(g, dead_devices, dead_feeds, utility_hit)
    if not seeds and not dead_feeds:
        return [], {}
    base_live = base.live
    changed = _liveness_changes(g, base, seeds, dead_devices, dead_feeds, failed_utilities)

    def live(d: int) -> bool:
        return base_live[d] != (d in changed)

    # devices whose sources may split differently: the changed ones, the seeds and the children of the
    # changed ones
    resplit = seeds | changed
    for x in changed:
        resplit.update(child for _, child in probe.children[x])
    delta: dict[int, Coefs] = {}  # device -> change of its output row
    heap = [(-g.pos[d], d) for d in resplit]
    heapq.heapify(heap)
    queued = set(resplit)

    def add(d: int, coefs: Coefs, factor: float) -> None:
        _add_into(delta.setdefault(d, {}), coefs, factor)
        if d not in queued:
            queued.add(d)
            heapq.heappush(heap, (-g.pos[d], d))

    # loads that move to their surviving sides: per lost device alone a cached shift, else re-split here
    resolve_loads: set[int] = set()
    shifted: set[int] = set()
    for x in changed:
        if not probe.dev_loads[x]:
            continue
        if not live(x):
            shift, other_feeds, other_devices = probe.shift_of(x)
            if other_feeds.isdisjoint(dead_feeds) and other_devices.isdisjoint(changed):
                shifted.add(x)
                for y, src in shift:
                    if live(y):
                        add(y, {src: 1.0}, 1.0)
                continue
        resolve_loads.update(lid for _, lid, _ in probe.dev_loads[x])
    for fid in dead_feeds:
        f = g.feeds[fid]
        if f.downstream_device_id is None and f.rack_id is not None and f.upstream_id not in shifted:
            resolve_loads.add(f.rack_id)
    if resolve_loads:
        acc: dict[int, tuple[list[int], list[float]]] = {}
        for lid in resolve_loads:
            info = g.load_feed_info.get(lid, ())
            groups: dict[str, list[int]] = {}
            for fid, side, up in info:
                if fid not in dead_feeds and live(up):
                    groups.setdefault(side, []).append(fid)
            new = _split_factors(groups)
            for fid, _side, up in info:
                change = new.get(fid, 0.0) - probe.load_fac.get(fid, 0.0)
                if change and live(up):
                    rows, coefs = acc.setdefault(up, ([], []))
                    rows.append(probe.load_row[lid])
                    coefs.append(change)
        for y, src in probe.load_shift(acc):
            add(y, {src: 1.0}, 1.0)

    # bottom up: a device's input change, then its sources' shares of it
    devices, pos = g.devices, g.pos
    rows: list[tuple[int, Coefs]] = []
    util_delta: dict[int, Coefs] = {}
    while heap:
        _, d = heapq.heappop(heap)
        row = probe.dev_row[d]
        base_fac, base_util = probe.up_fac[d], probe.util_fac[d]
        if not live(d):
            if not base_live[d]:
                continue
            din: Coefs = {row: -1.0}  # the healthy row taken off: nothing flows
            fac: dict[int, float] = {}
            util_fac = 0.0
        else:
            dout = delta.get(d)
            eff = devices[d].efficiency
            if not dout:
                din = {}
            elif eff > 0:
                din = {k: v / eff for k, v in dout.items()}
            else:
                din = dict(dout)
            if d in resplit:
                fac = probe.factors(d, live, dead_feeds, failed_utilities)
                util_fac = fac.pop(-1, 0.0)
            else:
                fac, util_fac = base_fac, base_util
            if din:
                rows.append((d, din))
        if fac is not base_fac:
            for fid, parent in probe.sources[d]:
                new_f, old_f = fac.get(fid, 0.0), base_fac.get(fid, 0.0)
                if (new_f == old_f and not din) or (new_f == 0.0 and old_f == 0.0):
                    continue
                if base_live[parent] == (parent in changed):  # dead now
                    continue
                change = {row: new_f - old_f} if new_f != old_f else {}
                if new_f:
                    _add_into(change, din, new_f)
                add(parent, change, 1.0)
        elif din:  # the same shares: each source takes its share of the change
            for parent, share in probe.shares[d]:
                if base_live[parent] == (parent in changed):
                    continue
                out = delta.get(parent)
                if out is None:
                    out = delta[parent] = {}
                    if parent not in queued:
                        queued.add(parent)
                        heapq.heappush(heap, (-pos[parent], parent))
                for k, v in din.items():
                    out[k] = out.get(k, 0.0) + v * share
        util = devices[d].utility_feed_id
        if util is not None and util not in failed_utilities and (util_fac != base_util or din):
            out = util_delta.setdefault(util, {})
            if util_fac != base_util:
                out[row] = out.get(row, 0.0) + util_fac - base_util
            if util_fac:
                _add_into(out, din, util_fac)
    return rows, util_delta


def _lowers(coefs: Coefs, n_healthy: int) -> bool:
    """The change only subtracts healthy rows (each >= 0 in every column), so no column rises."""
    return all(k < n_healthy and v <= 0 for k, v in coefs.items())


class _Rows:
    """The offers of every scenario as rows: a healthy row (device or utility) plus a source combination."""

    def __init__(self) -> None:
        self.base: list[int] = []
        self.element: list[int] = []
        self.failure: list[int] = []
        self.coef_row: list[int] = []
        self.coef_src: list[int] = []
        self.coef: list[float] = []

    def add(self, base: int, element: int, failure: int, coefs: Coefs | None = None) -> None:
        if coefs:
            self.coef_row.extend([len(self.base)] * len(coefs))
            self.coef_src.extend(coefs)
            self.coef.extend(coefs.values())
        self.base.append(base)
        self.element.append(element)
        self.failure.append(failure)


class _ScopeMins:
    """Per column (a hall, building or the campus) the lowest value offered and the row offering it; a
    later row replaces it only when lower by more than float rounding (``TIE_RELATIVE``)."""

    def __init__(self, n: int) -> None:
        self.value = np.full(n, np.inf)
        self.row = np.full(n, -1)

    def offer(self, values: np.ndarray, row_ids: np.ndarray) -> None:
        if not len(values):
            return
        low = values.min(axis=0)
        better = low < _beyond(self.value, -1.0)
        if not better.any():
            return
        cols = np.flatnonzero(better)
        sub = values[:, cols]
        first = (sub <= low[cols] + TIE_RELATIVE * np.abs(low[cols])).argmax(axis=0)
        self.value[cols] = sub[first, np.arange(len(cols))]
        self.row[cols] = row_ids[first]


def _beyond(values: np.ndarray, sign: float) -> np.ndarray:
    """``values`` moved by the tie tolerance in the direction of ``sign`` (infinities stay)."""
    out = values.copy()
    finite = np.isfinite(values)
    out[finite] += sign * TIE_RELATIVE * np.abs(values[finite])
    return out


def _raw_ratios(margin: np.ndarray, sens: np.ndarray) -> np.ndarray:
    """margin / sensitivity where the sensitivity counts (> ``MIN_SENSITIVITY``), else inf."""
    out = np.full(sens.shape, np.inf)
    np.divide(margin[:, None], sens, out=out, where=sens > MIN_SENSITIVITY)
    return out


def _by_scope(
    sens: np.ndarray, hall_cols: np.ndarray, to_building: np.ndarray, to_campus: np.ndarray
) -> np.ndarray:
    """Rows' sensitivities per hall (probe columns) as the scopes' columns: halls, buildings, the campus."""
    return np.hstack([sens[:, hall_cols], sens @ to_building, sens @ to_campus])


def _ratios(margin: np.ndarray, sens: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """margin / sensitivity where the sensitivity counts (> ``MIN_SENSITIVITY``), else inf.

    ``floor`` is minus each column's IT load today. An element already over its limit gives a negative
    figure: the IT the scope would have to shed. Where even shedding all of the scope's load would leave
    the element over its limit (the figure below ``floor``: a scope loading the element only through a
    small share, such as the campus-wide other IT), the scope cannot bring it back, and its figure is 0:
    nothing can be added without adding to an element already over its limit."""
    out = _raw_ratios(margin, sens)
    out[out < floor] = 0.0
    return out


def _scope_value(value: float, it_kw: float) -> float:
    """One scope's figure by the rule of ``_ratios``: below minus its IT load, 0."""
    return 0.0 if value < -it_kw else value


def _compute(g: PowerGraph, context: dict | None = None) -> Headroom:
    """The chain's headroom (devices and utility feeds); ``context`` receives the probe and the scopes'
    columns for the bounds ``failover_headroom`` adds (``_feed_bound``)."""
    snap = g.snap
    base = baseline_state(g)
    place = _placement(g)
    probe = _Probe(g, place.rack_weight)
    n_halls = probe.n_halls
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

    # healthy rows: the devices' inputs, then the utility feeds' (their devices' shares added up)
    n_dev = len(probe.dev_row)
    util_index = {u: i for i, u in enumerate(util_rows)}
    base_util = np.zeros((len(util_rows), n_halls + 1))
    for u, i in util_index.items():
        for d in util_devices.get(u, ()):
            if probe.util_fac[d]:
                base_util[i] += probe.util_fac[d] * probe.base_in[probe.dev_row[d]]
        base_util[i, n_halls] = base_util_load.get(u, 0.0)
    elements: list[ElementHeadroom] = [*devices.values(), *util_rows.values()]
    element_of = {("device", d): i for i, d in enumerate(devices)}
    element_of.update({("utility", u): len(devices) + i for u, i in util_index.items()})

    # elements within their limit today: a scenario that only takes healthy rows off them (sensitivities and
    # load never above the healthy ones) offers nothing the healthy row did not, and is not evaluated
    within: dict = {d: row.load_kw <= row.limit_kw for d, row in devices.items()}
    within.update({("utility", u): row.load_kw <= row.limit_kw for u, row in util_rows.items()})
    rows = _Rows()
    failures = [HEALTHY]
    for d in devices:
        rows.add(probe.dev_row[d], element_of[("device", d)], 0)
    for u, i in util_index.items():
        rows.add(n_dev + i, element_of[("utility", u)], 0)
    scenarios = _scenarios(g)
    for scenario in scenarios:
        dev_rows, util_delta = _scenario_rows(probe, scenario)
        if not dev_rows and not util_delta:
            continue
        failures.append(scenario[0])
        f = len(failures) - 1
        for d, coefs in sorted(dev_rows):
            if d in devices and not (within[d] and _lowers(coefs, n_dev)):
                rows.add(probe.dev_row[d], element_of[("device", d)], f, coefs)
        for u in sorted(util_delta):
            coefs = util_delta[u]
            if u in util_index and coefs and not (within[("utility", u)] and _lowers(coefs, n_dev)):
                rows.add(n_dev + util_index[u], element_of[("utility", u)], f, coefs)

    # every row's numbers, in chunks: healthy row + its sources; then the worst loads and the scope minima
    sources = np.vstack([probe.base_in, *probe.extra]) if probe.extra else probe.base_in
    healthy = np.vstack([probe.base_in, base_util])
    row_base = np.asarray(rows.base, dtype=np.intp)
    row_element = np.asarray(rows.element, dtype=np.intp)
    coef_row = np.asarray(rows.coef_row, dtype=np.intp)
    coef_src = np.asarray(rows.coef_src, dtype=np.intp)
    coef = np.asarray(rows.coef, dtype=float)
    limit = np.array([e.limit_kw for e in elements])
    hall_ids = [h for h in probe.halls if h in place.hall_mode]
    hall_cols = np.array([probe.col[h] for h in hall_ids], dtype=np.intp)
    hall_col_of = {h: i for i, h in enumerate(hall_ids)}
    building_ids = list(place.building_share)
    to_building = np.zeros((n_halls, len(building_ids)))
    for j, b in enumerate(building_ids):
        for h, share in place.building_share[b].items():
            if h in probe.col:
                to_building[probe.col[h], j] = share
    to_campus = np.zeros((n_halls, 1))
    for h, share in place.campus_share.items():
        if h in probe.col:
            to_campus[probe.col[h], 0] = share
    it_by_hall: dict[int, float] = {}
    for r in snap.racks:
        it_by_hall[r.hall_id] = it_by_hall.get(r.hall_id, 0.0) + g.default_rack_load_kw[r.id]
    building_it = {b: 0.0 for b in building_ids}
    for h, kw in it_by_hall.items():
        if hall_building.get(h) in building_it:
            building_it[hall_building[h]] += kw
    # minus each column's IT today (halls, buildings, campus): the rule of ``_ratios``
    floor = -np.array(
        [*(it_by_hall.get(h, 0.0) for h in hall_ids), *building_it.values(), sum(it_by_hall.values())]
    )
    scope_min = _ScopeMins(len(hall_ids) + len(building_ids) + 1)
    within_min = _ScopeMins(len(hall_ids) + len(building_ids) + 1)  # elements within their limit only
    worst = np.full(len(elements), -np.inf)
    worst_row = np.full(len(elements), -1)
    worst_load = np.zeros(len(row_base))
    n_rows = len(row_base)

    # (element, column) pairs where the scope cannot bring the element back within its limit in some
    # scenario (``_ratios``): the element gives that scope 0 in every scenario, not the smaller shedding of
    # another scenario that would leave it over in this one
    unfixable = np.zeros((len(elements), len(floor)), dtype=bool)
    fixed_min = _ScopeMins(len(floor))

    n_parents = len(building_ids) + 1
    members_fit = np.ones(n_parents, dtype=bool)

    def sweep(over: np.ndarray | None, joint: np.ndarray | None = None) -> None:
        """Every row's numbers, chunk by chunk, offered to ``scope_min`` (noting ``unfixable`` and the worst
        loads); with ``over`` (the elements over their limit in some scenario) a second time, to
        ``fixed_min`` with the unfixable pairs at 0 and to ``within_min`` without the elements over."""
        start = 0
        while start < n_rows:
            stop = min(n_rows, start + _ROW_CHUNK)
            c0, c1 = np.searchsorted(coef_row, (start, stop))
            if c1 - c0 > _COEF_CHUNK:  # many sources in few rows (a whole side lost): fewer rows
                stop = max(start + 1, int(coef_row[c0 + _COEF_CHUNK]))
                c1 = int(np.searchsorted(coef_row, stop))
            new = healthy[row_base[start:stop]]
            # A row no higher than its element's healthy row in every column (load and sensitivities), with a
            # healthy margin >= 0, offers nothing lower than the healthy row did: it is left out of the minima.
            offered = np.ones(stop - start, dtype=bool)
            if c1 > c0:
                r = coef_row[c0:c1]
                heads = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
                terms = coef[c0:c1, None] * sources[coef_src[c0:c1]]
                counts = np.diff(np.r_[heads, len(r)])
                summed = terms[heads]  # most rows have one term; the others add theirs up
                more = np.flatnonzero(counts > 1)
                if len(more):
                    many = counts[more]
                    summed[more] = np.add.reduceat(
                        terms[np.repeat(counts > 1, counts)], np.r_[0, np.cumsum(many)[:-1]], axis=0
                    )
                changed = r[heads] - start
                offered[changed] = (summed > 0).any(axis=1) | (
                    limit[row_element[start:stop][changed]] < new[changed, n_halls]
                )
                new[changed] += summed
            load = new[:, n_halls]
            element = row_element[start:stop]
            keep = np.flatnonzero(offered)
            if joint is not None:
                # every hall at its own headroom at once: does any element within its limit go over?
                k = keep if over is None else keep[~over[element[keep]]]
                lim = limit[element[k]]
                added = new[k, :n_halls] @ joint
                members_fit[:] &= ~(added > (lim - load[k] + 1e-9 * np.abs(lim) + 1e-9)[:, None]).any(axis=0)
                start = stop
                continue
            sens = new[keep, :n_halls]
            values = _raw_ratios(
                limit[element[keep]] - load[keep], _by_scope(sens, hall_cols, to_building, to_campus)
            )
            if over is not None:
                pairs = unfixable[element[keep]]
                if pairs.any():
                    # the failures the scope cannot fix give it 0 and name the binding failure; the ones it
                    # could fix (a smaller shedding) offer nothing
                    values = values.copy()
                    values[pairs & (values < floor)] = 0.0
                    values[pairs & (values < 0.0)] = np.inf
                fixed_min.offer(values, start + keep)
                within = ~over[element[keep]]
                within_min.offer(values[within], (start + keep)[within])
                start = stop
                continue
            worst_load[start:stop] = load
            # worst load per element: the first row within rounding of the chunk's highest
            high = np.full(len(elements), -np.inf)
            np.maximum.at(high, element, load)
            better = high > _beyond(worst, 1.0)
            if better.any():
                near = load >= high[element] - TIE_RELATIVE * np.abs(high[element])
                near &= better[element]
                firsts, at = np.unique(element[near], return_index=True)
                picked = np.flatnonzero(near)[at]
                worst[firsts] = load[picked]
                worst_row[firsts] = start + picked
            bad = values < floor
            if bad.any():
                at, cols = np.nonzero(bad)
                unfixable[element[keep][at], cols] = True
                values[bad] = 0.0
            scope_min.offer(values, start + keep)
            start = stop

    sweep(None)
    # An element over its limit in some scenario: a second sweep gives every scope that cannot bring it back
    # 0 from it in every scenario, and the minima over the elements within their limit in every scenario
    # (``ScopeHeadroom.within_headroom_kw``); with none over, both are the first sweep's.
    over = worst > limit
    if over.any():
        sweep(over)
        scope_min = fixed_min
    else:
        within_min = scope_min
    # Each building's and the campus's halls all at their own headroom at once (``ScopeHeadroom.members_fit``):
    # when no element within its limit goes over, no element binds the parent beyond its halls, and stranded
    # capacity adds the halls up instead of placing the parent's load like today's (which held a parent at
    # a PDU of one hall while the other hall had room).
    own = np.clip(
        np.where(np.isfinite(scope_min.value[: len(hall_ids)]), scope_min.value[: len(hall_ids)], 0.0),
        0.0,
        None,
    )
    if len(hall_ids):
        joint = np.zeros((n_halls, n_parents))
        for j, b in enumerate(building_ids):
            for h in place.building_share[b]:
                if h in hall_col_of:
                    joint[probe.col[h], j] = own[hall_col_of[h]]
        joint[hall_cols, n_parents - 1] = own
        sweep(over if over.any() else None, joint)

    for i, e in enumerate(elements):
        if worst_row[i] >= 0:
            e.worst_load_kw = float(worst_load[worst_row[i]])
            e.worst_failure = failures[rows.failure[worst_row[i]]]

    def scope_row(scope: str, ident: int | None, it_kw: float, col: int | None, mode: str) -> ScopeHeadroom:
        if col is None or scope_min.row[col] < 0:
            return ScopeHeadroom(scope, ident, it_kw, None, placement=mode)
        row = int(scope_min.row[col])
        e = elements[rows.element[row]]
        out = ScopeHeadroom(
            scope,
            ident,
            it_kw,
            float(scope_min.value[col]),
            e.kind,
            e.id,
            e.name,
            failures[rows.failure[row]],
            mode,
        )
        if col >= len(hall_ids):
            out.members_fit = bool(members_fit[col - len(hall_ids)])
        if within_min.row[col] >= 0:
            row = int(within_min.row[col])
            e = elements[rows.element[row]]
            out.within_headroom_kw = float(within_min.value[col])
            out.within_binding = {
                "kind": e.kind,
                "id": e.id,
                "name": e.name,
                "failure": failures[rows.failure[row]].as_dict(),
            }
        return out

    hall_col = {h: i for i, h in enumerate(hall_ids)}
    halls = {
        h.id: scope_row(
            "hall", h.id, it_by_hall.get(h.id, 0.0), hall_col.get(h.id), place.hall_mode.get(h.id, "")
        )
        for h in snap.halls
    }
    building_col = {b: len(hall_ids) + j for j, b in enumerate(building_ids)}
    buildings = {}
    for b in snap.buildings:
        it_kw = sum(v for h, v in it_by_hall.items() if hall_building.get(h) == b.id)
        buildings[b.id] = scope_row(
            "building", b.id, it_kw, building_col.get(b.id), place.building_mode.get(b.id, "")
        )
    campus = scope_row(
        "campus", None, sum(it_by_hall.values()), len(hall_ids) + len(building_ids), place.campus_mode
    )
    if context is not None:
        context.update(
            probe=probe,
            scenarios=scenarios,
            columns=(hall_cols, to_building, to_campus),
            floor=floor,
            scope_cols=(hall_col, building_col, len(hall_ids) + len(building_ids)),
        )
    return Headroom(devices, util_rows, halls, buildings, campus, scenarios=len(scenarios) + 1)


GRID_BINDING_NAME = "grid connection"


def _feed_shares(g: PowerGraph, rid: int, live, dead_feeds: set[int] | frozenset[int]) -> dict[int, float]:
    """Each live feed's share of rack ``rid``'s load (``power._split``: evenly over the live sides, then over
    a side's live feeds)."""
    groups: dict[str, list[int]] = {}
    for fid, side, up in g.rack_feed_info.get(rid, ()):
        if fid not in dead_feeds and live(up):
            groups.setdefault(side, []).append(fid)
    return _split_factors(groups)


def feed_name(g: PowerGraph, fid: int) -> str:
    """ "UPS-1 -> R3 (A)": a rack feed by its ends and side (as impact mode names a tripped feed)."""
    f = g.feeds[fid]
    rack = g.racks[f.rack_id].name if f.rack_id in g.racks else f"rack {f.rack_id}"
    return f"{g.devices[f.upstream_id].name} -> {rack} ({f.side})"


def _feed_bound(g: PowerGraph, result: Headroom, context: dict) -> Headroom:
    """Every scope's headroom bounded by its racks' feeds: a rack feed's planning limit is its
    ``rating_kw`` × the ``max_utilization`` of the device feeding it (stranded capacity's plannable rating);
    in a scenario it carries its share of the rack's load (``power._split``), so the share is the feed's
    sensitivity to the rack's load and, the rack's load row being linear in the added IT, the feed offers
    ``(limit − share × load) / (share × s_rack)`` like a device. That ratio only falls as the share grows,
    so each feed's worst scenario is the one giving it its largest share (the first in scenario order).
    Racks with no added load (weight 0) are not offered, as a device the scope does not load."""
    probe: _Probe = context["probe"]
    base = baseline_state(g)
    worst: dict[int, tuple[float, Failure]] = {}  # feed -> (largest share, first scenario giving it)

    def offer(rid: int, shares: dict[int, float], failure: Failure) -> None:
        for fid, share in shares.items():
            if share > worst.get(fid, (0.0, HEALTHY))[0] * (1 + TIE_RELATIVE):
                worst[fid] = (share, failure)

    rated = {
        rid for rid, info in g.rack_feed_info.items() if any(g.feeds[fid].rating_kw > 0 for fid, _, _ in info)
    }
    for rid in sorted(rated):
        offer(rid, _feed_shares(g, rid, base.live.__getitem__, ()), HEALTHY)
    for failure, dead_devices, dead_feeds, failed_utilities in context["scenarios"]:
        utility_hit = {d for u in failed_utilities for d in g.by_utility.get(u, ())}
        seeds = failure_seeds(g, dead_devices, dead_feeds, utility_hit)
        changed = _liveness_changes(g, base, seeds, dead_devices, dead_feeds, failed_utilities)
        hit: set[int] = set()
        for d in changed:
            for fid in g.down_feeds[d]:
                rid = g.feeds[fid].rack_id
                if rid in rated and g.feeds[fid].downstream_device_id is None:
                    hit.add(rid)
        for fid in dead_feeds:
            rid = g.feeds[fid].rack_id
            if rid in rated and g.feeds[fid].downstream_device_id is None:
                hit.add(rid)

        def live(d: int, changed=changed) -> bool:
            return base.live[d] != (d in changed)

        for rid in sorted(hit):
            offer(rid, _feed_shares(g, rid, live, dead_feeds), failure)

    hall_cols, to_building, to_campus = context["columns"]
    hall_col, building_col, campus_col = context["scope_cols"]
    n_halls = probe.n_halls
    fids = [fid for fid in sorted(worst) if g.feeds[fid].rating_kw > 0 and worst[fid][0] > 0]
    scope_min = _ScopeMins(len(hall_cols) + to_building.shape[1] + 1)
    for start in range(0, len(fids), _ROW_CHUNK):
        chunk = fids[start : start + _ROW_CHUNK]
        share = np.array([worst[fid][0] for fid in chunk])
        limit = np.array(
            [g.feeds[fid].rating_kw * g.devices[g.feeds[fid].upstream_id].max_utilization for fid in chunk]
        )
        rows = probe.loads[[probe.load_row[g.feeds[fid].rack_id] for fid in chunk]]
        sens = share[:, None] * rows[:, :n_halls]
        margin = limit - share * rows[:, n_halls]
        values = _ratios(margin, _by_scope(sens, hall_cols, to_building, to_campus), context["floor"])
        scope_min.offer(values, np.arange(start, start + len(chunk)))

    def bound(row: ScopeHeadroom, col: int | None) -> None:
        if col is None or row.headroom_kw is None or scope_min.row[col] < 0:
            return
        value = float(scope_min.value[col])
        if value < row.headroom_kw - TIE_RELATIVE * abs(row.headroom_kw):
            fid = fids[int(scope_min.row[col])]
            row.headroom_kw = value
            row.binding_kind, row.binding_id, row.binding_name = "feed", fid, feed_name(g, fid)
            row.binding_failure = worst[fid][1]

    for hid, row in result.halls.items():
        bound(row, hall_col.get(hid))
    for bid, row in result.buildings.items():
        bound(row, building_col.get(bid))
    bound(result.campus, campus_col)
    return result


def grid_it_kw(snap: CampusSnapshot) -> tuple[float, float, float] | None:
    """(the rack-feed kW the grid allows, the rack-feed kW today, the peak hour's PUE), or None when no grid
    limit is modelled. The grid carries the peak hour: the racks' feeds and the network and allowance beside
    them may carry ``grid_capacity_kw / peak PUE`` (``facility.campus_pue``), the figure
    stranded capacity caps the campus by."""
    if snap.grid_capacity_kw <= 0:
        return None
    g = power_graph(snap)
    pue = campus_pue(snap).peak_pue
    pue = pue if pue > 0 else 1.0
    # the racks' own IT and the network and allowance beside them: what the chain carries of IT
    fed = sum(g.load_kw.get(r.id, 0.0) for r in snap.racks) + sum(g.load_kw[lid] for lid in g.it_places)
    fed += sum(g.it_unplaced_kw.values())
    return snap.grid_capacity_kw / pue, fed, pue


def _grid_bound(g: PowerGraph, result: Headroom) -> Headroom:
    """Every scope's headroom bounded by the campus grid connection: IT added anywhere on the campus draws
    on the one connection, so a hall, a building and the campus can each add at most the rack IT that keeps
    the peak hour's facility load within ``grid_capacity_kw``. Added rack IT brings the network and other
    IT share the campus's racks carry today (``fed / it``). The grid binds in every scenario alike (a
    failure moves load within the chain, not off the grid), so its failure is "no failure"."""
    grid = grid_it_kw(g.snap)
    if grid is None:
        return result
    allowed, fed, pue = grid
    it = sum(g.default_rack_load_kw.get(r.id, 0.0) for r in g.snap.racks)
    carried = fed / it if it > 0 else 1.0
    it_headroom = (allowed - fed) / carried
    result.grid = GridHeadroom(g.snap.grid_capacity_kw, fed * pue, pue, it_headroom)
    for row in (*result.halls.values(), *result.buildings.values(), result.campus):
        value = _scope_value(it_headroom, row.it_kw)
        if row.headroom_kw is not None and value < row.headroom_kw:
            row.headroom_kw = value
            row.binding_kind, row.binding_id, row.binding_name = "grid", g.snap.id, GRID_BINDING_NAME
            row.binding_failure = HEALTHY
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
    "GridHeadroom",
    "Headroom",
    "ScopeHeadroom",
    "both_sides_headroom_kw",
    "failover_headroom",
    "grid_it_kw",
]
