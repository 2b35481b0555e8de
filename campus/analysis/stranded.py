"""Stranded capacity: power provisioned to racks that another constraint keeps from being used.

Everything is in kW of IT as the racks' feeds carry it (a rack's own IT: the network and the allowance
are carried beside the racks, ``power_graph``), with the design redundancy intact. Per rack:

* ``provisioned_kw`` = its strongest side's feed rating (what the chain reserves for it);
* ``feed`` strands the difference to the rating the rack may draw with one side lost
  (``feeds.redundant_rating_kw``: the weakest A/B side);
* ``design_margin_kw`` = that rating × (1 − ``max_utilization`` of the device feeding the rack): the
  planning margin, reported apart and never counted as stranded;
* ``design`` strands what the rack at its ``design_kw`` leaves of the rest (its feeds carrying the design
  IT with the network and other IT share it brings, in the proportion they carry today); a rack holding
  more than its ``design_kw`` (refused on every write, possible only in older rows) counts as designed for
  what it holds, so power in use is never reported stranded.

Per hall, what its racks could use is further capped by

* ``upstream``: today's load + the hall's failover headroom (``headroom.failover_headroom``: added
  load placed like today's until a device reaches its planning limit after the worst single failure,
  given in rack IT and carried with the hall's share of network and other IT),
  with ``binding_device`` naming the device and failure; never below today's load (a device already over
  its limit strands all above it, ``_upstream``);
* ``cooling``: each heat path against the units that serve it (``_cooling_limits_kw``): the liquid share of
  the racks' heat against their CDUs' pools, the air share with the network and other IT against the
  hall's air units, each pool with the declared cooling redundancy intact (``cooling.cooling_pools``: N
  every unit, N+1 the largest lost, 2N the larger half lost), the heat other halls put on a pool as today;
  heat taken as equal to IT power;

and upstream and cooling capacity that no rack is provisioned for is stranded by ``space`` when the hall's
floor has no free rack position left (``RACK_POSITION_M2``, ``WHITE_SPACE_FRACTION``). A building caps its
halls by its own failover headroom (shared substations), the campus its buildings by its own, each over the
elements within their limit (``ScopeHeadroom.within_headroom_kw``) and never above its members' upstream
limits added up (``_within_members``): an element already over its limit holds the halls loading it. Last, every
scope is capped by the grid (``grid_capacity_kw`` over the PUE of the peak hour, ``facility.campus_pue``:
the typed PUE, or the plant model's in the campus's weather): its racks' feeds may carry what they carry
today plus what the connection has left, the rest of the campus as today; the grid strands what the
other constraints leave above that. The grid is one connection, so a parent composes its members' rows
before their grid and applies its own (the members' grid kW need not add up to the parent's).

The same rules at every scope, so a scope naming the same racks as its only member reads the same:

* ``stranded_kw`` = the sum of ``stranded_by_constraint_kw``: a rack's ``feed`` and ``design``; above,
  the members' summed (their ``grid`` apart) plus what the scope's own constraints strand beyond them
  (a hall's ``upstream``, ``cooling`` and ``space``, a building's and the campus's ``upstream``, the
  grid), so where a parent's own strand nothing its stranded kW are its members' (grid apart);
* ``binding`` = the constraint stranding the most kW in the scope (``binding_of``; a tie within 1 W goes
  to the earlier of ``CONSTRAINTS``, from the rack outwards), ``""`` when nothing is stranded;
* ``binding_device``: whenever ``upstream`` strands any kW in the scope, the device and failure whose
  limit strands the most of them (summed over the scope and its members), else None;
* ``limits_kw``: ``racks`` = the racks' own usable kW (feeds and ``design_kw`` alone) summed; a constraint
  the scope checks itself at its own figure (``upstream`` of halls, buildings and the campus, ``cooling``
  of halls, ``grid``), one only its members check at theirs summed (a member without it at its ``racks``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from campus.analysis.cooling import (
    cooling_balance,
    cooling_pools,
    unit_electrical_fraction,
    usable_capacity_kw,
)
from campus.analysis.feeds import rack_side_ratings_kw, redundant_rating_kw
from campus.analysis.headroom import ScopeHeadroom, failover_headroom, grid_it_kw
from campus.analysis.heat import AIR_UNIT_KINDS, heat_map, plant_loops, rack_heat_split
from campus.analysis.power import baseline_state, power_graph
from campus.analysis.power_graph import PowerGraph
from campus.analysis.snapshot import CampusSnapshot

# One rack position with its share of the hot/cold aisles: 0.6 m wide x 3.0 m row pitch (1.2 m rack +
# 1.8 m aisle), the layout of ASHRAE TC 9.9 hot/cold aisle guidance; an estimate for the whole floor.
RACK_POSITION_M2 = 0.6 * 3.0
# Share of a hall's floor that can hold racks (the rest: perimeter walkways, cross aisles, CDUs/CRAHs and
# service zone). An estimate; halls without racks get their positions from it too.
WHITE_SPACE_FRACTION = 0.6


# Constraints in the order they apply from a rack outwards; on a tie of stranded kW the earlier one binds.
CONSTRAINTS = ("feed", "design", "upstream", "cooling", "space", "grid")


@dataclass
class StrandedRow:
    scope: str  # "rack" | "hall" | "building" | "campus"
    id: int | None
    provisioned_kw: float
    usable_kw: float
    stranded_kw: float
    binding: (
        str  # "" when nothing is stranded; else "feed" | "design" | "upstream" | "cooling" | "space" | "grid"
    )
    stranded_by_constraint_kw: dict[str, float]
    design_margin_kw: float = 0.0
    binding_device: dict | None = None  # when upstream strands any kW: the device and failure stranding most
    limits_kw: dict[str, float] = field(default_factory=dict)  # IT each constraint allows the scope
    # Before the grid (each scope's own, not passed up: the grid is one connection, module doc): what a
    # parent composes from its members.
    usable_before_grid_kw: float = field(default=0.0, repr=False)
    by_before_grid_kw: dict[str, float] = field(default_factory=dict, repr=False)
    # upstream kW stranded per (device, failure), to name the one stranding the most at every scope
    upstream_devices: dict[str, tuple[dict, float]] = field(default_factory=dict, repr=False)

    def as_dict(self) -> dict:
        return {
            "scope": self.scope,
            "id": self.id,
            "provisioned_kw": self.provisioned_kw,
            "design_margin_kw": self.design_margin_kw,
            "usable_kw": self.usable_kw,
            "stranded_kw": self.stranded_kw,
            "binding": self.binding,
            "binding_device": self.binding_device,
            "stranded_by_constraint_kw": self.stranded_by_constraint_kw,
            "limits_kw": self.limits_kw,
        }


@dataclass
class StrandedCapacity:
    racks: dict[int, StrandedRow]
    halls: dict[int, StrandedRow]
    buildings: dict[int, StrandedRow]
    campus: StrandedRow

    def as_dict(self) -> dict:
        return {
            "campus": self.campus.as_dict(),
            "buildings": [r.as_dict() for r in self.buildings.values()],
            "halls": [r.as_dict() for r in self.halls.values()],
        }


def _add(into: dict[str, float], key: str, kw: float) -> None:
    if kw > 1e-9:
        into[key] = into.get(key, 0.0) + kw


def binding_of(by: dict[str, float]) -> str:
    """The constraint stranding the most kW (``""`` when none strands any); on a tie (within 1e-9 relative,
    1 W absolute) the earlier in ``CONSTRAINTS``. The one rule of every scope, so a scope's binding follows
    from its ``stranded_by_constraint_kw`` alone."""
    if not by:
        return ""
    most = max(by.values())
    tied = [k for k in by if math.isclose(by[k], most, rel_tol=1e-9, abs_tol=1e-3)]
    return min(tied, key=lambda k: CONSTRAINTS.index(k) if k in CONSTRAINTS else len(CONSTRAINTS))


def _device_key(device: dict) -> str:
    failure = device.get("failure") or {}
    return f"{device.get('kind')}:{device.get('id')}:{failure.get('kind')}:{failure.get('id')}"


def _most_upstream(devices: dict[str, tuple[dict, float]]) -> dict | None:
    """The device and failure stranding the most upstream kW (the first met on a tie)."""
    best = None
    for device, kw in devices.values():
        if best is None or kw > best[1] * (1 + 1e-9) + 1e-3:
            best = (device, kw)
    return best[0] if best else None


def _capped(
    scope: str,
    ident: int | None,
    members: list[StrandedRow],
    caps: dict[str, float],
    binding_device: dict | None,
) -> StrandedRow:
    """Members summed (before their grid), then capped by the scope's own constraints other than the grid
    (the tightest one strands the rest). ``_grid`` then finishes the row."""
    prov = sum(m.provisioned_kw for m in members)
    margin = sum(m.design_margin_kw for m in members)
    inner = sum(m.usable_before_grid_kw for m in members)
    by: dict[str, float] = {}
    devices: dict[str, tuple[dict, float]] = {}
    for m in members:
        for k, v in m.by_before_grid_kw.items():
            _add(by, k, v)
        for key, (device, kw) in m.upstream_devices.items():
            devices[key] = (device, devices.get(key, (device, 0.0))[1] + kw)
    usable = inner
    cap_binding = ""
    for name, cap in caps.items():
        if cap < usable:
            usable, cap_binding = max(cap, 0.0), name
    if cap_binding:
        _add(by, cap_binding, inner - usable)
        if cap_binding == "upstream" and binding_device and inner - usable > 1e-9:
            key = _device_key(binding_device)
            devices[key] = (binding_device, devices.get(key, (binding_device, 0.0))[1] + inner - usable)
    # limits: the racks' own (feeds and design_kw) summed; a constraint the scope checks itself at its own
    # figure, one only its members check at theirs summed (a member without it at its racks' figure)
    racks = sum(m.limits_kw.get("racks", 0.0) for m in members)
    limits = {"racks": racks}
    names = [k for m in members for k in m.limits_kw if k not in ("racks", "grid")] + list(caps)
    for name in sorted(set(names), key=lambda k: CONSTRAINTS.index(k) if k in CONSTRAINTS else 99):
        if name in caps:
            limits[name] = caps[name]
        else:
            limits[name] = sum(m.limits_kw.get(name, m.limits_kw.get("racks", 0.0)) for m in members)
    return StrandedRow(
        scope,
        ident,
        prov,
        usable,
        sum(by.values()),
        "",
        dict(by),
        margin,
        None,
        limits,
        usable_before_grid_kw=usable,
        by_before_grid_kw=by,
        upstream_devices=devices,
    )


def _grid(row: StrandedRow, grid_cap: float | None) -> StrandedRow:
    """The row finished: the grid (what the connection lets this scope's racks carry, the rest of the
    campus as today) strands what the other constraints leave above it; binding and device named."""
    by = dict(row.by_before_grid_kw)
    usable = row.usable_before_grid_kw
    if grid_cap is not None:
        row.limits_kw["grid"] = grid_cap
        if grid_cap < usable:
            capped = max(grid_cap, 0.0)
            _add(by, "grid", usable - capped)
            usable = capped
    row.usable_kw = usable
    row.stranded_by_constraint_kw = by
    row.stranded_kw = sum(by.values())
    row.binding = binding_of(by)
    row.binding_device = _most_upstream(row.upstream_devices) if by.get("upstream") else None
    return row


def _upstream(
    row: ScopeHeadroom | None, fed_kw: float, it_kw: float, *, parent: bool = False
) -> tuple[float | None, dict | None]:
    """What the scope's live racks' feeds may carry by the upstream chain: today's ``fed_kw`` (of ``it_kw``
    of their own IT) plus the failover
    headroom of the chain alone (kW of rack IT, before the grid bound: the grid is its own constraint) with
    the network and other IT share the scope's racks carry today.

    Never less than today's ``fed_kw``: power in use is not stranded (as a rack over its design). A device
    already over its limit leaves a negative headroom (the IT to shed, ``headroom.rows._ratios``); here it
    strands everything above today's load in every scope loading it. Taking the negative figure would
    count one shared device's overload once in each member and again at their parent.

    A ``parent`` (a building, the campus) whose halls all fit at their own headroom at once
    (``ScopeHeadroom.members_fit``) has no cap of its own: its members' limits add up. Otherwise it is
    capped by the elements within their limit only
    (``ScopeHeadroom.within_headroom_kw``): an element over its limit already holds every hall loading it
    at today's load, and placing the parent's added load like today's would hold the halls that do not
    load it there too (a building with one hall's PDU over its limit read every hall stranded)."""
    if row is None or row.chain_headroom_kw is None:
        return None, None
    carried = fed_kw / it_kw if it_kw > 0 else 1.0  # feed kW per kW of the live racks' own IT
    if parent:
        if row.within_headroom_kw is None or row.members_fit:
            return None, None  # nothing binds it beyond its members: their limits added up
        return fed_kw + max(row.within_headroom_kw, 0.0) * carried, row.within_binding
    return fed_kw + max(row.chain_headroom_kw, 0.0) * carried, row.chain_binding


def _within_members(cap: float | None, members: list[StrandedRow]) -> float | None:
    """A parent's upstream limit: its own (``_upstream``) and never above its members' limits added up (a
    member without one at its racks' figure). The parent's own holds what its members share; an element
    already over its limit holds only the members loading it, at today's load, and the parent's limit
    says so too (a one-hall building reads as its hall)."""
    if not any("upstream" in m.limits_kw for m in members):
        return cap
    total = sum(m.limits_kw.get("upstream", m.limits_kw.get("racks", 0.0)) for m in members)
    return total if cap is None else min(cap, total)


def _cooling_limits_kw(
    snap: CampusSnapshot, g: PowerGraph, racks: dict[int, StrandedRow], hall_racks: dict[int, list[int]]
) -> dict[int, float]:
    """Per hall, the IT (kW as the feeds carry it) its racks may carry by cooling: the racks' usable kW
    scaled until the first pool of units (``cooling.cooling_pools``, the hall's air units together too)
    would carry more heat than its usable capacity, the heat of other halls on the pool as today.

    A rack's heat at ``x`` kW on its feeds: its own IT ``x`` / (feed kW per kW of own IT) splits by the
    heat balance's rules (``heat.rack_heat_split``): the liquid share to the rack's unit, the rest and the
    network and other IT the feeds carry to the hall's air units by capacity (a rack on an air unit: all to
    it). Heat no unit takes (no unit named, no air unit in the hall) caps nothing here: the balance
    reports it as unassigned. Halls whose racks send no heat to a unit have no cooling limit."""
    units = {u.id: u for u in snap.cooling_units}
    pools = cooling_pools(snap, hall_air=True)
    unit_pools: dict[int, list[int]] = {}
    for i, pool in enumerate(pools):
        for uid in pool.unit_ids:
            unit_pools.setdefault(uid, []).append(i)
    today_kw = heat_map(snap).unit_kw
    pool_heat = [sum(today_kw.get(uid, 0.0) for uid in pool.unit_ids) for pool in pools]
    air_shares: dict[int, list[tuple[int, float]]] = {}
    for u in snap.cooling_units:
        if u.kind in AIR_UNIT_KINDS and u.hall_id is not None:
            air_shares.setdefault(u.hall_id, []).append((u.id, max(u.capacity_kw, 0.0)))
    for hall_id, shares in air_shares.items():
        total = sum(c for _, c in shares)
        air_shares[hall_id] = [(uid, c / total if total > 0 else 1.0 / len(shares)) for uid, c in shares]
    rack_of = {r.id: r for r in snap.racks}
    plant_side = _PlantSide(snap)
    liquid_of: dict[tuple, float] = {}  # liquid share of a rack's own IT, per make
    out: dict[int, float] = {}
    for hall_id, rids in hall_racks.items():
        at_usable: dict[int, float] = {}  # unit -> heat of the hall's racks at their usable kW
        at_today: dict[int, float] = {}  # unit -> heat of the hall's racks today
        for rid in rids:
            r = rack_of[rid]
            unit = units.get(r.cooling_unit_id) if r.cooling_unit_id is not None else None
            if unit is None or rid not in racks:
                continue
            make = (r.nodes, r.cooling_type, r.extra_it_kw)
            share = liquid_of.get(make)
            if share is None:
                liquid, air = rack_heat_split(snap, r, None)
                share = liquid_of[make] = liquid / (liquid + air) if liquid + air > 0 else 0.0
            own = g.default_rack_load_kw[rid]
            carried = g.load_kw[rid] / own if own > 0 else 1.0
            for fed, into in ((racks[rid].usable_kw, at_usable), (g.load_kw[rid], at_today)):
                if unit.kind in AIR_UNIT_KINDS:
                    into[unit.id] = into.get(unit.id, 0.0) + fed
                    continue
                liquid = fed / carried * share
                into[unit.id] = into.get(unit.id, 0.0) + liquid
                for uid, w in air_shares.get(r.hall_id, ()):
                    into[uid] = into.get(uid, 0.0) + (fed - liquid) * w
        touched = {i for uid in at_usable for i in unit_pools.get(uid, ())}
        if not touched:
            continue
        inner = sum(racks[rid].usable_kw for rid in rids if rid in racks)
        scale = _plant_loop_scale(plant_side, at_usable, at_today)
        for i in touched:
            ids = pools[i].unit_ids
            heat = sum(at_usable.get(uid, 0.0) for uid in ids)
            if heat <= 1e-12:
                continue
            others = max(pool_heat[i] - sum(at_today.get(uid, 0.0) for uid in ids), 0.0)
            scale = min(scale, max(pools[i].usable_kw - others, 0.0) / heat)
        if scale < math.inf:
            out[hall_id] = inner * scale
    return out


class _PlantSide:
    """The plant loops (``heat.plant_loops``) as a cooling limit: a loop's heat is its units' heat plus their
    fans and pumps (``cooling.unit_electrical_fraction``), against the plants' capacity with the declared
    cooling redundancy intact (``cooling.usable_capacity_kw``), as the cooling balance and placement check
    them."""

    def __init__(self, snap: CampusSnapshot) -> None:
        loop_of = plant_loops(snap)
        self.unit_loop: dict[int, tuple[int, float]] = {}  # unit -> (loop, loop heat per kW of its heat)
        for u in snap.cooling_units:
            if u.plant_id is not None and u.plant_id in loop_of:
                self.unit_loop[u.id] = (loop_of[u.plant_id], 1.0 + unit_electrical_fraction(u.kind))
        caps: dict[int, list[float]] = {}
        for p in snap.cooling_plants:
            caps.setdefault(loop_of[p.id], []).append(max(p.capacity_kw, 0.0))
        self.usable = {loop: usable_capacity_kw(c, snap.cooling_redundancy) for loop, c in caps.items()}
        balance = cooling_balance(snap)
        self.heat: dict[int, float] = {}
        for p in balance.plants:
            self.heat[loop_of[p.id]] = self.heat.get(loop_of[p.id], 0.0) + p.heat_kw

    def loop_heat(self, unit_heat: dict[int, float]) -> dict[int, float]:
        out: dict[int, float] = {}
        for uid, kw in unit_heat.items():
            if uid in self.unit_loop:
                loop, per_kw = self.unit_loop[uid]
                out[loop] = out.get(loop, 0.0) + kw * per_kw
        return out


def _plant_loop_scale(side: _PlantSide, at_usable: dict[int, float], at_today: dict[int, float]) -> float:
    """The largest share of the hall's racks' usable heat its plant loops take, the heat other halls put
    on a loop as today (``math.inf``: no loop bounds it)."""
    usable, today = side.loop_heat(at_usable), side.loop_heat(at_today)
    scale = math.inf
    for loop, heat in usable.items():
        if heat > 1e-12:
            others = max(side.heat.get(loop, 0.0) - today.get(loop, 0.0), 0.0)
            scale = min(scale, max(side.usable.get(loop, 0.0) - others, 0.0) / heat)
    return scale


def stranded_capacity(snap: CampusSnapshot) -> StrandedCapacity:
    """Per rack, hall, building and campus: provisioned, design margin, usable and stranded kW (module doc)."""
    g = power_graph(snap)
    headroom = failover_headroom(snap)
    racks: dict[int, StrandedRow] = {}
    for r in snap.racks:
        fids = g.rack_feeds.get(r.id, ())
        if not fids:
            continue
        sides = rack_side_ratings_kw((g.feeds[f].side, g.feeds[f].rating_kw) for f in fids)
        provisioned = max(sides.values())
        redundant = redundant_rating_kw(sides)
        util = min(g.devices[g.feeds[f].upstream_id].max_utilization for f in fids)
        plannable = redundant * util
        own = g.default_rack_load_kw[r.id]
        carried = g.load_kw[r.id] / own if own > 0 else 1.0  # feed kW per kW of the rack's own IT
        # A rack over its design (a row written before the writes refused it, docs/planning.md "What a
        # rack holds") is designed for at least what it holds: its load is in use, never stranded.
        design_kw = max(r.design_kw, own)
        usable = min(plannable, design_kw * carried) if r.design_kw > 0 else plannable
        by: dict[str, float] = {}
        _add(by, "feed", provisioned - redundant)
        _add(by, "design", plannable - usable)
        racks[r.id] = StrandedRow(
            "rack",
            r.id,
            provisioned,
            usable,
            sum(by.values()),
            binding_of(by),
            dict(by),
            redundant * (1 - util),
            None,
            {"racks": usable},
            usable_before_grid_kw=usable,
            by_before_grid_kw=by,
        )

    hall_racks: dict[int, list[int]] = {}
    for r in snap.racks:
        hall_racks.setdefault(r.hall_id, []).append(r.id)
    mean_rack_kw = sum(x.usable_kw for x in racks.values()) / len(racks) if racks else 0.0
    fed_by_hall: dict[int, float] = {}  # what the hall's racks' feeds carry today
    for r in snap.racks:
        fed_by_hall[r.hall_id] = fed_by_hall.get(r.hall_id, 0.0) + g.load_kw[r.id]
    hall_building = {h.id: h.building_id for h in snap.halls}
    fed_by_building: dict[int, float] = {}
    for hid, kw in fed_by_hall.items():
        bid = hall_building.get(hid)
        fed_by_building[bid] = fed_by_building.get(bid, 0.0) + kw
    fed_campus = sum(fed_by_hall.values())
    # the upstream chain counts what runs: a rack dark with nothing failed (its feeds' devices offline)
    # draws nothing and can take nothing; a hall of such racks strands all of them, naming a dead device
    live = baseline_state(g).live
    live_fed_by_hall: dict[int, float] = {}
    live_it_by_hall: dict[int, float] = {}
    dead_supply: dict[int, dict] = {}  # hall -> a dead device feeding one of its dark racks
    for r in snap.racks:
        ups = [g.feeds[f].upstream_id for f in g.rack_feeds.get(r.id, ())]
        if any(live.get(d, False) for d in ups):
            live_fed_by_hall[r.hall_id] = live_fed_by_hall.get(r.hall_id, 0.0) + g.load_kw[r.id]
            live_it_by_hall[r.hall_id] = live_it_by_hall.get(r.hall_id, 0.0) + g.default_rack_load_kw[r.id]
        elif ups and r.hall_id not in dead_supply:
            dev = g.devices[min(ups)]
            dead_supply[r.hall_id] = {
                "kind": dev.kind,
                "id": dev.id,
                "name": dev.name,
                "failure": {"kind": "none", "id": None, "name": "no failure"},
            }
    live_fed_by_building: dict[int, float] = {}
    live_it_by_building: dict[int, float] = {}
    for hid, kw in live_fed_by_hall.items():
        bid = hall_building.get(hid)
        live_fed_by_building[bid] = live_fed_by_building.get(bid, 0.0) + kw
        live_it_by_building[bid] = live_it_by_building.get(bid, 0.0) + live_it_by_hall[hid]
    cooling = _cooling_limits_kw(snap, g, racks, hall_racks)
    grid = grid_it_kw(snap)

    def grid_cap(fed_kw: float) -> float | None:
        # the grid carries the peak hour: the scope's racks' feeds may carry what they carry today plus
        # what the connection has left (IT x the peak hour's PUE within it, the rest of the campus as
        # today): the failover headroom's grid bound, counted here as its own constraint. Never below
        # today's load: power in use is not stranded (an exhausted grid strands all above it)
        return None if grid is None else fed_kw + max(grid[0] - fed_campus, 0.0)

    halls: dict[int, StrandedRow] = {}
    for h in snap.halls:
        members = [racks[rid] for rid in hall_racks.get(h.id, ()) if rid in racks]
        caps: dict[str, float] = {}
        upstream, device = _upstream(
            headroom.halls.get(h.id), live_fed_by_hall.get(h.id, 0.0), live_it_by_hall.get(h.id, 0.0)
        )
        if upstream is None and members and h.id in dead_supply:
            upstream, device = 0.0, dead_supply[h.id]  # every rack of the hall dark: none runs
        if upstream is not None:
            caps["upstream"] = upstream
        if h.id in cooling:
            # never below what the hall's feeds carry today: power in use is not stranded (units already
            # short strand all above it; the cooling balance reports the shortfall)
            caps["cooling"] = max(cooling[h.id], fed_by_hall.get(h.id, 0.0))
        row = _capped("hall", h.id, members, caps, device)
        # upstream and cooling capacity beyond the racks' provision, on a floor with no free position
        spare = min(caps.values()) - row.limits_kw["racks"] if caps else 0.0
        positions = math.floor(h.width_m * h.length_m * WHITE_SPACE_FRACTION / RACK_POSITION_M2)
        free = max(positions - len(hall_racks.get(h.id, ())), 0)
        space = spare - free * mean_rack_kw
        if space > 1e-9 and members:
            _add(row.by_before_grid_kw, "space", space)
        halls[h.id] = _grid(row, grid_cap(fed_by_hall.get(h.id, 0.0)))

    buildings: dict[int, StrandedRow] = {}
    for b in snap.buildings:
        fed = fed_by_building.get(b.id, 0.0)
        upstream, device = _upstream(
            headroom.buildings.get(b.id),
            live_fed_by_building.get(b.id, 0.0),
            live_it_by_building.get(b.id, 0.0),
            parent=True,
        )
        members = [halls[h.id] for h in snap.halls if h.building_id == b.id]
        upstream = _within_members(upstream, members)
        row = _capped(
            "building", b.id, members, {"upstream": upstream} if upstream is not None else {}, device
        )
        buildings[b.id] = _grid(row, grid_cap(fed))
    campus_caps: dict[str, float] = {}
    upstream, device = _upstream(
        headroom.campus, sum(live_fed_by_hall.values()), sum(live_it_by_hall.values()), parent=True
    )
    upstream = _within_members(upstream, list(buildings.values()))
    if upstream is not None:
        campus_caps["upstream"] = upstream
    campus = _grid(
        _capped("campus", None, list(buildings.values()), campus_caps, device), grid_cap(fed_campus)
    )
    return StrandedCapacity(racks=racks, halls=halls, buildings=buildings, campus=campus)
