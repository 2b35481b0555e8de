"""Capacity placement's cooling fit, and what is already short at design."""

from __future__ import annotations

import math

from campus.analysis.cooling import (
    PLANT_LOOP_POOL,
    CoolingBalance,
    plant_loop_name,
    redundancy_pool_checks,
    unit_electrical_fraction,
    usable_capacity_kw,
)
from campus.analysis.facility import heat_rejection_shortfalls, plant_weather_margin_kw
from campus.analysis.headroom import failover_headroom
from campus.analysis.headroom.bounds import GRID_BINDING_NAME
from campus.analysis.heat import AIR_UNIT_KINDS, ALL_TO_LIQUID, COLD_PLATE, plant_loops
from campus.analysis.placement.power_fit import _it_headroom, _Load
from campus.analysis.placement.request import REDUNDANCY_OUT, TOL, _building_name, _Fail, _HallInput, _out
from campus.analysis.power import PowerGraph
from campus.analysis.snapshot import CampusSnapshot


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
    inp: _HallInput, hall, ctype: str, main_units: list, hall_units: list, optics_kw: float = 0.0
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
        # the transceivers of the racks' cables (node cables and new uplinks): the hall's network heat
        (optics_kw, hall_air or building_air, "the transceivers of the racks' cables"),
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
    margins: list[tuple[float, float, str, str, str, int | None]] = []

    def margin(
        heat_margin: float, heat_added: float, level: str, element: str, what: str, ident: int | None
    ) -> None:
        # ident: what a proposal extends (a unit of the pool, the plant), _Fail.element_id
        it_left = _it_headroom(heat_margin, heat_added, it_added)
        margins.append((it_left, heat_margin, level, element, what, ident))

    for uid, kw in added.items():
        u = units[uid]
        margin(cap[uid] - heat.get(uid, 0.0) - kw, kw, "cooling unit", u.name, "capacity", uid)
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
        largest = max(members, key=lambda u: (cap[u.id], -u.id)).id
        margin(g_cap - g_heat, g_added, level, element, f"{declared} ({out_what} out)", largest)
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
        margin(p.capacity_kw - plant_heat.get(pid, 0.0) - kw, kw, "cooling plant", p.name, "capacity", pid)
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
        smallest = min(members, key=lambda p: (p.capacity_kw, p.id)).id
        margin(usable - total, loop_added, "plant loop", names, f"{declared} ({what} out)", smallest)
    worst = min(margins, key=lambda m: (m[0], m[1]))[:5]
    ident = min(margins, key=lambda m: (m[0], m[1]))[5]
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
            element_id=ident,
            short=-heat_margin,
        )
    return result, None


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
