"""Failing elements of every domain at once: power devices, utility feeds, cooling units, cooling plants.

The shared core of impact mode and the redundancy check. Power runs the roll-up cascade to its end.
Cooling follows power: a unit or plant stops when every one of its supplies is dead. Spare capacity is
counted once, against everything that needs it. A pool of cooling (a unit group, a plant loop, a hall's
air units) that cannot carry its heat with the capacity still running cools none of it: the pool shares
one loop of water or room air, so a shortfall warms every rack on it, not only those of the stopped
members (``cooling_lost``); the model does not shed racks:

* stopped plants: the surviving plants of the stopped plants' loop (``heat.plant_loops``: the plants of
  a building taking heat of one medium, the liquid units' facility water or the air units' chilled
  water) must take the heat of every unit on the loop, else every unit of the loop stops; an air-side
  plant never takes a liquid loop's heat unless a liquid unit is piped to it;
* stopped units: the running units of a pool (``_pool_of``, as ``cooling.cooling_pools``: a named group;
  the ungrouped air units of a hall; any other unit alone) must carry the whole pool's heat, else the
  racks of every unit of the pool lose cooling;
* stopped air units (CRAHs): the air share of a liquid-cooled rack, its network and other IT heat are
  spread over every air unit of the hall (``campus.analysis.heat``), so the hall's air units are a cooling
  dependency of every rack that sends them heat. When the hall's surviving air units cannot carry the
  hall's air heat, every rack whose air share they take loses cooling (the cold plates alone do not keep
  a server's memory, drives and power supplies cool).

A pool already short at design load (nothing failed) cools none of its racks at design: like a design-load
trip, that is the starting point, and impact mode reports those racks apart (``without_cooling_at_design``).

Results are reported against the campus at design load (its own design-load trips already applied), so a
finding is what the failure adds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from campus.analysis.cooling import unit_electrical_fraction
from campus.analysis.heat import AIR_UNIT_KINDS, plant_loops, rack_heat_split
from campus.analysis.power import power_graph
from campus.analysis.power_graph import PowerGraph
from campus.analysis.power_solve import _Outcome, _run
from campus.analysis.snapshot import CampusSnapshot, CoolingUnitSnap

# What an element is, in the words of impact mode's ``kind``.
KINDS = ("power", "cooling", "plant", "utility")
EFFECTS = ("power", "cooling", "cascade")

K = TypeVar("K")  # a cooling pool's key


def effect_of(new_trips: int, gpus_lost_power: int, gpus_lost_cooling: int) -> str | None:
    """A failure that trips another element is a cascade; else it costs power or cooling; else nothing."""
    if new_trips:
        return "cascade"
    if gpus_lost_power:
        return "power"
    if gpus_lost_cooling:
        return "cooling"
    return None


# ---------------------------------------------------------------- cooling, once per snapshot


@dataclass
class _CoolingIndex:
    unit_capacity_kw: dict[int, float]
    unit_group: dict[int, tuple]  # unit -> its pool (``_pool_of``)
    unit_racks: dict[int, list[int]]
    unit_supplies: dict[int, tuple[int, ...]]
    group_units: dict[tuple, list[int]]
    group_heat_kw: dict[tuple, float]
    group_capacity_kw: dict[tuple, float]
    plant_loop: dict[int, int]  # plant -> its loop (``heat.plant_loops``)
    plant_supplies: dict[int, tuple[int, ...]]
    plant_capacity_kw: dict[int, float]
    loop_units: dict[int, list[int]]  # loop -> units piped to its plants
    loop_heat_kw: dict[int, float]  # heat the loop's units hand to it, their fans and pumps included
    loop_capacity_kw: dict[int, float]
    units_fed_by: dict[int, list[int]]  # power device -> units it supplies
    plants_fed_by: dict[int, list[int]]
    air_unit_hall: dict[int, int]  # air unit -> its hall
    hall_air_heat_kw: dict[int, float]  # heat on the hall's air units
    hall_air_capacity_kw: dict[int, float]
    hall_air_racks: dict[int, list[int]]  # racks whose air share the hall's air units take
    # pools short of capacity with nothing failed (design load): they cool none of their racks at design
    loops_short: frozenset[int]
    groups_short: frozenset[tuple]
    halls_short: frozenset[int]


# a pool carries its heat when heat <= capacity; the margin keeps a pool sized to its heat exactly (the
# generator's, to the last bit of a sum) from reading as short
_EPS_KW = 1e-9


def _short(heat_kw: float, capacity_kw: float) -> bool:
    return heat_kw > capacity_kw + _EPS_KW


def _pool_of(u: CoolingUnitSnap) -> tuple:
    """The units a unit backs up with, as ``cooling.cooling_pools`` has them: its named group; else, for an
    air unit, the other ungrouped air units of its hall (the room air mixes between them); else itself."""
    if u.group:
        return ("group", u.group)
    if u.kind in AIR_UNIT_KINDS and u.hall_id is not None:
        return ("hall", u.hall_id)
    return ("unit", u.id)


def _cooling_index(snap: CampusSnapshot, g: PowerGraph) -> _CoolingIndex:
    idx = g.memo.get("cooling_index")
    if idx is not None:
        return idx  # type: ignore[return-value]
    heat = g.unit_heat_kw
    unit_racks: dict[int, list[int]] = {}
    for r in snap.racks:
        if r.cooling_unit_id is not None:
            unit_racks.setdefault(r.cooling_unit_id, []).append(r.id)
    plant_loop = plant_loops(snap)
    group_units: dict[tuple, list[int]] = {}
    group_heat: dict[tuple, float] = {}
    group_cap: dict[tuple, float] = {}
    loop_units: dict[int, list[int]] = {}
    loop_heat: dict[int, float] = {}
    units_fed_by: dict[int, list[int]] = {}
    for u in snap.cooling_units:
        h = heat.get(u.id, 0.0)
        pool = _pool_of(u)
        group_units.setdefault(pool, []).append(u.id)
        group_heat[pool] = group_heat.get(pool, 0.0) + h
        group_cap[pool] = group_cap.get(pool, 0.0) + u.capacity_kw
        loop = plant_loop.get(u.plant_id) if u.plant_id is not None else None
        if loop is not None:
            loop_units.setdefault(loop, []).append(u.id)
            # as the balance: the unit's fans or pumps end up in the water it hands to the plant
            loop_heat[loop] = loop_heat.get(loop, 0.0) + h * (1.0 + unit_electrical_fraction(u.kind))
        for d in u.supply_ids:
            units_fed_by.setdefault(d, []).append(u.id)
    air_unit_hall: dict[int, int] = {}
    hall_air_heat: dict[int, float] = {}
    hall_air_cap: dict[int, float] = {}
    for u in snap.cooling_units:
        if u.kind in AIR_UNIT_KINDS and u.hall_id is not None:
            air_unit_hall[u.id] = u.hall_id
            hall_air_heat[u.hall_id] = hall_air_heat.get(u.hall_id, 0.0) + heat.get(u.id, 0.0)
            hall_air_cap[u.hall_id] = hall_air_cap.get(u.hall_id, 0.0) + u.capacity_kw
    unit_kind = {u.id: u.kind for u in snap.cooling_units}
    hall_air_racks: dict[int, list[int]] = {}
    for r in snap.racks:
        kind = unit_kind.get(r.cooling_unit_id) if r.cooling_unit_id is not None else None
        # a rack on a CRAH depends on that unit (above); one on a liquid unit sends its air share to the hall
        if kind is None or kind in AIR_UNIT_KINDS or r.hall_id not in hall_air_cap:
            continue
        if rack_heat_split(snap, r, None)[1] > 0:
            hall_air_racks.setdefault(r.hall_id, []).append(r.id)
    loop_cap: dict[int, float] = {}
    plants_fed_by: dict[int, list[int]] = {}
    for p in snap.cooling_plants:
        loop = plant_loop[p.id]
        loop_cap[loop] = loop_cap.get(loop, 0.0) + p.capacity_kw
        for d in p.supply_ids:
            plants_fed_by.setdefault(d, []).append(p.id)
    idx = _CoolingIndex(
        unit_capacity_kw={u.id: u.capacity_kw for u in snap.cooling_units},
        unit_group={u.id: _pool_of(u) for u in snap.cooling_units},
        unit_racks=unit_racks,
        unit_supplies={u.id: u.supply_ids for u in snap.cooling_units},
        group_units=group_units,
        group_heat_kw=group_heat,
        group_capacity_kw=group_cap,
        plant_loop=plant_loop,
        plant_supplies={p.id: p.supply_ids for p in snap.cooling_plants},
        plant_capacity_kw={p.id: p.capacity_kw for p in snap.cooling_plants},
        loop_units=loop_units,
        loop_heat_kw=loop_heat,
        loop_capacity_kw=loop_cap,
        units_fed_by=units_fed_by,
        plants_fed_by=plants_fed_by,
        air_unit_hall=air_unit_hall,
        hall_air_heat_kw=hall_air_heat,
        hall_air_capacity_kw=hall_air_cap,
        hall_air_racks=hall_air_racks,
        loops_short=frozenset(lp for lp, h in loop_heat.items() if _short(h, loop_cap.get(lp, 0.0))),
        groups_short=frozenset(gr for gr, h in group_heat.items() if _short(h, group_cap[gr])),
        halls_short=frozenset(hl for hl, h in hall_air_heat.items() if _short(h, hall_air_cap[hl])),
    )
    g.memo["cooling_index"] = idx
    return idx


def _pools_short(
    stopped: Iterable[int],
    pool_of: Mapping[int, K],
    member_capacity_kw: Mapping[int, float],
    pool_heat_kw: Mapping[K, float],
    pool_capacity_kw: Mapping[K, float],
    short_at_design: frozenset[K],
) -> set[K]:
    """The pools (keyed by ``pool_of``: a plant's loop, a unit's group, an air unit's hall) that cannot carry
    their heat with these members stopped: those short at design, and those whose heat exceeds the capacity
    of their running members. A stopped member in no pool of the kind is passed over."""
    lost: dict[K, float] = {}
    for m in stopped:
        pool = pool_of.get(m)
        if pool is not None:
            lost[pool] = lost.get(pool, 0.0) + member_capacity_kw[m]
    short = set(short_at_design)
    short.update(
        pool for pool, kw in lost.items() if _short(pool_heat_kw.get(pool, 0.0), pool_capacity_kw[pool] - kw)
    )
    return short


def cooling_lost(
    snap: CampusSnapshot,
    dead_devices: Iterable[int],
    failed_units: Iterable[int] = (),
    failed_plants: Iterable[int] = (),
) -> tuple[set[int], set[int], set[int]]:
    """(stopped plants, stopped units, racks left without cooling) with these power devices dead and
    these units and plants failed (none: the design state, with the pools already short at design load).
    Costs the size of what is hit, not of the campus."""
    idx = _cooling_index(snap, power_graph(snap))
    dead = set(dead_devices)

    def unpowered(supplies: tuple[int, ...]) -> bool:
        return bool(supplies) and all(s in dead for s in supplies)

    plants = {p for p in failed_plants if p in idx.plant_loop}
    for d in dead:
        for p in idx.plants_fed_by.get(d, ()):
            if p not in plants and unpowered(idx.plant_supplies[p]):
                plants.add(p)
    # a loop short of capacity stops every unit on it (they share its water), not only the stopped plants'
    short_loops = _pools_short(
        plants, idx.plant_loop, idx.plant_capacity_kw, idx.loop_heat_kw, idx.loop_capacity_kw, idx.loops_short
    )
    units = {u for u in failed_units if u in idx.unit_capacity_kw}
    for d in dead:
        for u in idx.units_fed_by.get(d, ()):
            if u not in units and unpowered(idx.unit_supplies[u]):
                units.add(u)
    for loop in short_loops:
        units.update(idx.loop_units.get(loop, ()))
    # a pool short of capacity cools none of its racks: every unit's, not only the stopped units'
    uncovered: set[int] = set()
    short_groups = _pools_short(
        units,
        idx.unit_group,
        idx.unit_capacity_kw,
        idx.group_heat_kw,
        idx.group_capacity_kw,
        idx.groups_short,
    )
    for group in short_groups:
        uncovered.update(idx.group_units[group])
    racks = {r for u in uncovered for r in idx.unit_racks.get(u, ())}
    # the hall's air units, whatever their groups: the air share of the hall's liquid-cooled racks
    short_halls = _pools_short(
        units,
        idx.air_unit_hall,
        idx.unit_capacity_kw,
        idx.hall_air_heat_kw,
        idx.hall_air_capacity_kw,
        idx.halls_short,
    )
    for hall in short_halls:
        racks.update(idx.hall_air_racks.get(hall, ()))
    return plants, units, racks


# ---------------------------------------------------------------- the incremental path


@dataclass(frozen=True)
class FailureOutcome:
    """What failing a set of elements adds to the campus at design load."""

    tripped: tuple[tuple[str, int, str], ...]  # trips beyond the design load's, in cascade order
    racks_lost_power: frozenset[int]
    racks_lost_cooling: frozenset[int]  # still powered, but without cooling
    units_stopped: frozenset[int]
    plants_stopped: frozenset[int]
    gpus_lost_power: int
    gpus_lost_cooling: int

    @property
    def gpus_lost(self) -> int:
        return self.gpus_lost_power + self.gpus_lost_cooling

    @property
    def effect(self) -> str | None:
        return effect_of(len(self.tripped), self.gpus_lost_power, self.gpus_lost_cooling)


@dataclass
class _Start:
    outcome: _Outcome
    trips: frozenset[tuple[str, int]]
    dead: frozenset[int]
    dark: frozenset[int]
    uncooled: frozenset[int]


def _dead_after(g: PowerGraph, res: _Outcome) -> set[int]:
    """Dead devices, looking only at the re-solved devices on top of the healthy solve's."""
    dead = set(_healthy_dead(g, res))
    for d, ok in res.state.live.items():
        if ok:
            dead.discard(d)
        else:
            dead.add(d)
    return dead


def _dark_after(g: PowerGraph, res: _Outcome) -> set[int]:
    """Racks without power, looking only at the re-solved racks on top of the healthy solve's."""
    dark = set(_healthy_dark(g, res))
    for rid in res.state.racks:
        fids = g.rack_feeds.get(rid)
        if not fids:
            continue
        if any(res.state.feed_live.get(fid, False) for fid in fids):
            dark.discard(rid)
        else:
            dark.add(rid)
    return dark


def _healthy_dead(g: PowerGraph, res: _Outcome) -> frozenset[int]:
    hit = g.memo.get("healthy_dead")
    if hit is None or hit[0] is not res.base:
        hit = g.memo["healthy_dead"] = (res.base, frozenset(d for d, ok in res.base.live.items() if not ok))
    return hit[1]  # type: ignore[return-value]


def _healthy_dark(g: PowerGraph, res: _Outcome) -> frozenset[int]:
    dark = g.memo.get("healthy_dark")
    if dark is None:
        live = res.base.feed_live
        dark = g.memo["healthy_dark"] = g.unfed_racks | frozenset(
            rid for rid, fids in g.rack_feeds.items() if not any(live.get(fid, False) for fid in fids)
        )
    return dark  # type: ignore[return-value]


def design_state(snap: CampusSnapshot, g: PowerGraph) -> _Start:
    start = g.memo.get("failure_start")
    if start is None:
        res = _run(g, (), frozenset(), (), None)
        dead = _dead_after(g, res)
        dark = _dark_after(g, res)
        _, _, uncooled = cooling_lost(snap, dead)
        start = g.memo["failure_start"] = _Start(
            res,
            frozenset((k, i) for k, i, _ in res.tripped),
            frozenset(dead),
            frozenset(dark),
            frozenset(uncooled),
        )
    return start  # type: ignore[return-value]


def split_elements(
    snap: CampusSnapshot, failed: Iterable[tuple[str, int]]
) -> tuple[set[int], set[int], set[int], set[int]]:
    """(power devices, utility feeds, cooling units, plants) of ``(kind, id)`` pairs, each checked."""
    g = power_graph(snap)
    known = g.memo.get("element_ids")
    if known is None:
        known = g.memo["element_ids"] = {
            "power": g.devices.keys(),
            "utility": g.utility_ids,
            "cooling": frozenset(u.id for u in snap.cooling_units),
            "plant": frozenset(p.id for p in snap.cooling_plants),
        }
    what = {
        "power": "power device",
        "utility": "utility feed",
        "cooling": "cooling unit",
        "plant": "cooling plant",
    }
    out: dict[str, set[int]] = {k: set() for k in KINDS}
    for kind, ident in failed:
        if kind not in known:
            raise ValueError(f"kind: must be one of {', '.join(KINDS)}")
        if ident not in known[kind]:
            raise ValueError(f"device_id: no {what[kind]} {ident}")
        out[kind].add(ident)
    return out["power"], out["utility"], out["cooling"], out["plant"]


def fail(snap: CampusSnapshot, failed: Iterable[tuple[str, int]]) -> FailureOutcome:
    """Fail every ``(kind, id)`` at once (kinds as in ``KINDS``); incremental on a cached baseline."""
    return fail_with_solve(snap, failed)[0]


def fail_with_solve(
    snap: CampusSnapshot, failed: Iterable[tuple[str, int]]
) -> tuple[FailureOutcome, _Outcome]:
    """``fail`` and the power solve it ran (the design state's when no power element failed): what the
    failure changed in the chain, for ``redundancy_levels`` to tell which failures can meet."""
    devices, utilities, units, plants = split_elements(snap, failed)
    g = power_graph(snap)
    start = design_state(snap, g)
    if devices or utilities:
        res = _run(g, devices, frozenset(utilities), (), None)
        dead, dark = _dead_after(g, res), _dark_after(g, res)
    else:
        res, dead, dark = start.outcome, set(start.dead), set(start.dark)
    plants_out, units_out, uncooled = cooling_lost(snap, dead, units, plants)
    lost_power = dark - start.dark - start.uncooled  # racks uncooled at design were not usable before
    lost_cooling = uncooled - start.uncooled - dark
    gpus = g.rack_gpu_count
    outcome = FailureOutcome(
        tripped=tuple(t for t in res.tripped if (t[0], t[1]) not in start.trips),
        racks_lost_power=frozenset(lost_power),
        racks_lost_cooling=frozenset(lost_cooling),
        units_stopped=frozenset(units_out),
        plants_stopped=frozenset(plants_out),
        gpus_lost_power=sum(gpus.get(r, 0) for r in lost_power),
        gpus_lost_cooling=sum(gpus.get(r, 0) for r in lost_cooling),
    )
    return outcome, res
