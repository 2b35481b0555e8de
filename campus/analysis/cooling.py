"""Heat balance: cooling units and plants against the heat they take.

All IT power becomes heat; ``heat.heat_map`` places every kW of it on a cooling unit (liquid share of
liquid-cooled racks on their CDU, air share, network and other IT on the hall's air units) or reports it
unassigned. A plant's heat is the sum over its units of their heat and their own fan or pump power
(1-4% more: that power ends up as heat in the air or water the unit hands to the plant). Coolant flow needed = heat x 1.5 L/min per kW
(vendor CDU sizing, ~10 K rise in water). Plant electrical power = heat / COP. A unit's electrical power
is its fans (CRAH) or pumps (CDU, rear door, immersion tank) as a fraction of the heat it moves
(``crah_fan_kw_per_kw_heat``, ``cdu_pump_kw_per_kw_heat`` in the catalog). A named group holds its declared
redundancy when the group's heat fits in its usable capacity (``usable_capacity_kw`` with the campus's
``cooling_redundancy``: N every unit, N+1 and undeclared without its largest unit, 2N without the larger half).

Usable capacity (``cooling_pools``, ``usable_capacity_kw``): units back each other up in pools, the ones the
failure analysis pools (``failures.cooling_lost``): each named group; the air units of a hall (the room air
mixes between them); a unit in neither alone. A pool's usable capacity keeps the campus's declared
``cooling_redundancy``: N every unit, N+1 (also when undeclared) the largest unit lost, 2N the larger half
lost. Plants pool per loop (``heat.plant_loops``). The balance's ``capacity_kw`` is the units' usable capacity: what takes
the IT heat with the design redundancy intact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field

from campus.analysis.heat import AIR_UNIT_KINDS, heat_map, plant_loops
from campus.analysis.snapshot import CampusSnapshot, CoolingUnitSnap
from campus.catalog_data import default_value

# Air cooling runs out at about 30-50 kW per rack (an estimate, catalog `air_cooling_limit_kw_per_rack`);
# 40 kW is the mid-point default.
AIR_COOLING_LIMIT_KW = 40.0
# Coolant flow per kW of heat, L/min (vendor CDU sizing 1.5-2 L/min per kW).
FLOW_LPM_PER_KW = 1.5
AIR_COOLED = "air"


def unit_electrical_fraction(kind: str) -> float:
    """Fan or pump power of a cooling unit per kW of heat it moves."""
    name = "crah_fan_kw_per_kw_heat" if kind in AIR_UNIT_KINDS else "cdu_pump_kw_per_kw_heat"
    return default_value(name)


LIQUID_PATH = "liquid"  # heat a unit takes in liquid (CDU, rear door, tank)
AIR_PATH = "air"  # heat a unit takes from the room air (CRAH)


def usable_capacity_kw(capacities_kw: Iterable[float], redundancy: str) -> float:
    """Capacity of units that back each other up, kW, with the declared ``redundancy`` intact: ``N`` every
    unit; ``2N`` the larger half of the units lost (half of equal units); ``N+1`` (and undeclared) the
    largest unit lost."""
    caps = sorted((max(c, 0.0) for c in capacities_kw), reverse=True)
    if redundancy == "N":
        return sum(caps)
    lost = (len(caps) + 1) // 2 if redundancy == "2N" else 1
    return sum(caps[lost:])


@dataclass(frozen=True)
class CoolingPool:
    """Units that back each other up (module doc), with their capacity and the heat path they serve."""

    name: str  # the group's name, "hall <id> air", or the unit's name
    path: str  # AIR_PATH when every unit is an air unit, else LIQUID_PATH
    unit_ids: tuple[int, ...]
    capacity_kw: float  # nameplate
    usable_kw: float  # with the declared cooling redundancy intact


def cooling_pools(
    snap: CampusSnapshot, capacity_kw: Mapping[int, float] | None = None, hall_air: bool = False
) -> list[CoolingPool]:
    """The pools of units that back each other up: each named group, the ungrouped air units of each hall,
    every other unit alone. Each unit is in one pool; with ``hall_air`` every hall's air units together
    are a pool too (where they are not one already), as the failure analysis checks them whatever their
    groups. ``capacity_kw`` overrides units' capacity (failed units: 0)."""

    def cap(u: CoolingUnitSnap) -> float:
        return capacity_kw.get(u.id, u.capacity_kw) if capacity_kw is not None else u.capacity_kw

    members: dict[tuple[str, str], list[CoolingUnitSnap]] = {}
    hall_air_units: dict[int, list[CoolingUnitSnap]] = {}
    for u in snap.cooling_units:
        air = u.kind in AIR_UNIT_KINDS
        if air and u.hall_id is not None:
            hall_air_units.setdefault(u.hall_id, []).append(u)
        if u.group:
            key = ("group", u.group)
        elif air and u.hall_id is not None:
            key = ("hall", f"hall {u.hall_id} air")
        else:
            key = ("unit", f"{u.name} #{u.id}")
        members.setdefault(key, []).append(u)
    if hall_air:
        have = {frozenset(x.id for x in us) for us in members.values()}
        for hall_id, us in hall_air_units.items():
            if frozenset(x.id for x in us) not in have:
                members[("hall-all", f"hall {hall_id} air")] = us
    out = []
    for (_, name), us in members.items():
        caps = [cap(u) for u in us]
        path = AIR_PATH if all(u.kind in AIR_UNIT_KINDS for u in us) else LIQUID_PATH
        usable = usable_capacity_kw(caps, snap.cooling_redundancy)
        out.append(CoolingPool(name, path, tuple(u.id for u in us), sum(caps), usable))
    return out


def plant_usable_capacity_kw(snap: CampusSnapshot, capacity_kw: Mapping[int, float] | None = None) -> float:
    """The plants' capacity with the declared cooling redundancy intact, kW: the plants of a loop back each
    other up (``heat.plant_loops``: a building's plants taking one medium, as ``failures.cooling_lost``
    pools them)."""
    loop_of = plant_loops(snap)
    by_loop: dict[int, list[float]] = {}
    for p in snap.cooling_plants:
        c = capacity_kw.get(p.id, p.capacity_kw) if capacity_kw is not None else p.capacity_kw
        by_loop.setdefault(loop_of[p.id], []).append(c)
    return sum(usable_capacity_kw(caps, snap.cooling_redundancy) for caps in by_loop.values())


@dataclass(frozen=True)
class UnitLoad:
    id: int
    name: str
    group: str
    plant_id: int | None
    capacity_kw: float
    heat_kw: float
    utilization: float
    racks: int
    flow_needed_lpm: float
    flow_lpm: float
    overloaded: bool
    flow_short: bool
    electrical_kw: float = 0.0  # fans or pumps
    liquid_heat_kw: float = 0.0  # of heat_kw, what liquid brings (cold plates, rear doors, tanks)
    air_heat_kw: float = 0.0  # of heat_kw, what comes in the air


@dataclass(frozen=True)
class PlantLoad:
    id: int
    name: str
    building_id: int | None
    capacity_kw: float
    heat_kw: float
    utilization: float
    cop: float
    electrical_kw: float
    overloaded: bool


@dataclass(frozen=True)
class GroupCheck:
    group: str
    units: int
    heat_kw: float
    capacity_kw: float
    capacity_without_largest_kw: float
    n_plus_1: bool  # the heat fits without the largest unit (the N+1 figure, whatever is declared)
    # the declared cooling redundancy the group is checked against ("N", "N+1" or "2N"; undeclared: "N+1"),
    # its usable capacity with that redundancy intact (usable_capacity_kw) and whether the heat fits in it
    redundancy: str = "N+1"
    usable_capacity_kw: float = 0.0
    holds: bool = True


@dataclass
class CoolingBalance:
    heat_load_kw: float  # all IT heat of the campus (= IT power)
    unit_capacity_kw: float  # nameplate of every unit, spares included
    plant_capacity_kw: float  # nameplate of every plant, spares included
    # the units' usable capacity: each pool's with the declared cooling redundancy intact (cooling_pools)
    capacity_kw: float
    unassigned_heat_kw: float  # heat no cooling unit takes (see unassigned_by_reason_kw)
    plant_electrical_kw: float
    unit_electrical_kw: float = 0.0
    liquid_heat_kw: float = 0.0  # carried by liquid to a unit
    air_heat_kw: float = 0.0  # left in the air (assigned to air units or not)
    heat_without_plant_kw: float = 0.0  # taken by units that name no plant
    unassigned_by_reason_kw: dict[str, float] = field(default_factory=dict)
    heat_sources_kw: dict[str, float] = field(default_factory=dict)  # servers, rack_extra, network, other_it
    units: list[UnitLoad] = field(default_factory=list)
    plants: list[PlantLoad] = field(default_factory=list)
    groups: list[GroupCheck] = field(default_factory=list)
    racks_over_air_limit: list[int] = field(default_factory=list)
    capacity_by_path_kw: dict[str, float] = field(default_factory=dict)  # capacity_kw by LIQUID/AIR_PATH
    # IT heat that can still be added with the declared redundancy intact along the whole chain (units and
    # plants): 0 while any pool of units or any plant loop is short; else the pools' spare, the part on
    # plants capped by the plant loops' spare
    spare_kw: float = 0.0
    # each pool's usable capacity above its heat, summed (the units alone; the earlier spare_kw)
    unit_spare_kw: float = 0.0
    # each plant loop's usable capacity above its heat, summed, as IT heat (a loop's heat includes its
    # units' fans and pumps, so 1 kW more IT heat adds its units' share of them at the plant)
    plant_spare_kw: float = 0.0
    plant_usable_capacity_kw: float = 0.0  # plants' capacity with the declared redundancy intact
    redundancy: str = ""  # the declared cooling redundancy the usable figures keep

    def as_dict(self) -> dict:
        return asdict(self)


# a pool or loop sized to its heat exactly (to the last bit of a sum) is not short
_SPARE_EPS_KW = 1e-9


def _plant_spare_kw(
    snap: CampusSnapshot,
    plants: list[PlantLoad],
    unit_heat: Mapping[int, float],
    plant_heat: Mapping[int, float],
) -> tuple[float, bool]:
    """(Σ over plant loops with units piped to them of their usable capacity above their heat, as IT heat;
    whether any such loop is short). A loop's heat is its units' heat plus their fans and pumps
    (``plant_heat``); its spare in IT heat is that spare × its units' heat / its heat."""
    loop_of = plant_loops(snap)
    caps: dict[int, list[float]] = {}
    heat: dict[int, float] = {}
    for p in plants:
        loop = loop_of[p.id]
        caps.setdefault(loop, []).append(p.capacity_kw)
        heat[loop] = heat.get(loop, 0.0) + plant_heat.get(p.id, 0.0)
    it_heat: dict[int, float] = {}
    for u in snap.cooling_units:
        if u.plant_id is not None and u.plant_id in loop_of:
            loop = loop_of[u.plant_id]
            it_heat[loop] = it_heat.get(loop, 0.0) + unit_heat.get(u.id, 0.0)
    spare, short = 0.0, False
    for loop in it_heat:  # loops some unit is piped to (a plant no unit names backs nothing)
        left = usable_capacity_kw(caps.get(loop, []), snap.cooling_redundancy) - heat.get(loop, 0.0)
        short = short or left < -_SPARE_EPS_KW
        spare += max(left, 0.0) * (it_heat[loop] / heat[loop] if heat.get(loop, 0.0) > 0 else 1.0)
    return spare, short


def cooling_balance(
    snap: CampusSnapshot,
    rack_load_kw: Mapping[int, float] | None = None,
    air_limit_kw: float = AIR_COOLING_LIMIT_KW,
    flow_lpm_per_kw: float = FLOW_LPM_PER_KW,
    failed_units: frozenset[int] = frozenset(),
    failed_plants: frozenset[int] = frozenset(),
    gpu_power_fraction: float = 1.0,
) -> CoolingBalance:
    """Heat per unit, plant and named group (checked against the declared redundancy). Failed units and plants carry no capacity. Racks not named in
    ``rack_load_kw`` run with their GPUs at ``gpu_power_fraction`` of TDP (the summary's energy figures)."""
    if air_limit_kw <= 0:
        raise ValueError("air_limit_kw: must be > 0")
    if flow_lpm_per_kw <= 0:
        raise ValueError("flow_lpm_per_kw: must be > 0")
    heat = heat_map(snap, rack_load_kw, gpu_power_fraction)
    unit_heat = heat.unit_kw
    unit_racks: dict[int, int] = {}
    over_air: list[int] = []
    it_by_make: dict[tuple, float] = {}  # racks of one make have one IT load
    for r in snap.racks:
        make = (r.nodes, r.extra_it_kw)
        it_kw = it_by_make.get(make)
        if it_kw is None:
            it_kw = it_by_make[make] = snap.rack_it_kw(r)
        load = rack_load_kw.get(r.id, it_kw) if rack_load_kw is not None else it_kw
        if r.cooling_type == AIR_COOLED and load > air_limit_kw:
            over_air.append(r.id)
        if r.cooling_unit_id is not None:
            unit_racks[r.cooling_unit_id] = unit_racks.get(r.cooling_unit_id, 0) + 1
    units: list[UnitLoad] = []
    without_plant = 0.0
    plant_heat: dict[int, float] = {}
    groups: dict[str, list[tuple[float, float]]] = {}  # group -> [(capacity, heat)]
    for u in snap.cooling_units:
        u_heat = unit_heat.get(u.id, 0.0)
        cap = 0.0 if u.id in failed_units or u.plant_id in failed_plants else u.capacity_kw
        need = u_heat * flow_lpm_per_kw
        u_electrical_kw = u_heat * unit_electrical_fraction(u.kind) if cap > 0 else 0.0
        units.append(
            UnitLoad(
                id=u.id,
                name=u.name,
                group=u.group,
                plant_id=u.plant_id,
                capacity_kw=cap,
                heat_kw=u_heat,
                utilization=u_heat / cap if cap > 0 else (0.0 if u_heat == 0 else float("inf")),
                racks=unit_racks.get(u.id, 0),
                flow_needed_lpm=need,
                flow_lpm=u.flow_lpm,
                overloaded=u_heat > cap,
                flow_short=u.flow_lpm > 0 and need > u.flow_lpm,
                electrical_kw=u_electrical_kw,
                liquid_heat_kw=heat.unit_liquid_kw.get(u.id, 0.0),
                air_heat_kw=heat.unit_air_kw.get(u.id, 0.0),
            )
        )
        if u.plant_id is not None:
            # the unit's fans or pumps end up as heat in the air or water it hands to the plant
            plant_heat[u.plant_id] = plant_heat.get(u.plant_id, 0.0) + u_heat + u_electrical_kw
        else:
            without_plant += u_heat
        if u.group:
            groups.setdefault(u.group, []).append((cap, u_heat))
    plants: list[PlantLoad] = []
    for p in snap.cooling_plants:
        p_heat = plant_heat.get(p.id, 0.0)
        cap = 0.0 if p.id in failed_plants else p.capacity_kw
        plants.append(
            PlantLoad(
                id=p.id,
                name=p.name,
                building_id=p.building_id,
                capacity_kw=cap,
                heat_kw=p_heat,
                utilization=p_heat / cap if cap > 0 else (0.0 if p_heat == 0 else float("inf")),
                cop=p.cop,
                electrical_kw=p_heat / p.cop if p.cop > 0 else 0.0,
                overloaded=p_heat > cap,
            )
        )
    checks = []
    declared = snap.cooling_redundancy or "N+1"
    for name, members in sorted(groups.items()):
        caps = [c for c, _ in members]
        g_heat = sum(h for _, h in members)
        without = sum(caps) - max(caps)
        usable = usable_capacity_kw(caps, declared)
        checks.append(
            GroupCheck(
                name,
                len(members),
                g_heat,
                sum(caps),
                without,
                g_heat <= without,
                redundancy=declared,
                usable_capacity_kw=usable,
                holds=g_heat <= usable,
            )
        )
    unit_cap = sum(u.capacity_kw for u in units)
    plant_cap = sum(p.capacity_kw for p in plants)
    unit_caps = {u.id: u.capacity_kw for u in units}
    by_path = {LIQUID_PATH: 0.0, AIR_PATH: 0.0}
    unit_plant = {u.id: u.plant_id for u in snap.cooling_units}
    unit_spare = on_plant = off_plant = 0.0
    short = False
    for pool in cooling_pools(snap, unit_caps):
        by_path[pool.path] += pool.usable_kw
        left = pool.usable_kw - sum(unit_heat.get(uid, 0.0) for uid in pool.unit_ids)
        short = short or left < -_SPARE_EPS_KW
        unit_spare += max(left, 0.0)
        if any(unit_plant.get(uid) is not None for uid in pool.unit_ids):
            on_plant += max(left, 0.0)
        else:
            off_plant += max(left, 0.0)
    plant_spare, loops_short = _plant_spare_kw(snap, plants, unit_heat, plant_heat)
    spare = 0.0 if short or loops_short else off_plant + min(on_plant, plant_spare)
    return CoolingBalance(
        heat_load_kw=heat.it_kw,
        unit_capacity_kw=unit_cap,
        plant_capacity_kw=plant_cap,
        capacity_kw=sum(by_path.values()),
        capacity_by_path_kw=by_path,
        spare_kw=spare,
        unit_spare_kw=unit_spare,
        plant_spare_kw=plant_spare,
        plant_usable_capacity_kw=plant_usable_capacity_kw(snap, {p.id: p.capacity_kw for p in plants}),
        redundancy=snap.cooling_redundancy or "N+1",
        unassigned_heat_kw=heat.unassigned_total_kw,
        liquid_heat_kw=heat.liquid_kw,
        air_heat_kw=heat.air_kw,
        heat_without_plant_kw=without_plant,
        unassigned_by_reason_kw=dict(heat.unassigned_kw),
        heat_sources_kw={
            "servers": heat.server_kw,
            "rack_extra": heat.rack_extra_kw,
            "network": heat.network_kw,
            "other_it": heat.other_it_kw,
            "storage": heat.storage_kw,
        },
        plant_electrical_kw=sum(p.electrical_kw for p in plants),
        unit_electrical_kw=sum(u.electrical_kw for u in units),
        units=units,
        plants=plants,
        groups=checks,
        racks_over_air_limit=over_air,
    )


@dataclass(frozen=True)
class PoolCheck:
    """A pool of units that back each other up (a named group, or a hall's ungrouped air units pooled as
    ``cooling_pools`` and the failure analysis pool them) against the declared cooling redundancy."""

    name: str  # the group's name; "<building> <hall> air units" for a hall's ungrouped air units;
    # "<building> plant loop (<plants>)" for a plant loop
    kind: str  # "group" | "hall air units" | "plant loop"
    units: int
    heat_kw: float
    capacity_kw: float  # nameplate (failed units: 0)
    usable_capacity_kw: float  # with the declared redundancy intact (usable_capacity_kw)
    redundancy: str  # the level checked: "N", "N+1" or "2N" (undeclared: "N+1")
    holds: bool  # the heat fits in the usable capacity
    hall_id: int | None = None  # the hall of a hall's air units; of a group whose units are in one hall
    hall: str = ""
    building_id: int | None = None
    building: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


HALL_AIR_POOL = "hall air units"
PLANT_LOOP_POOL = "plant loop"


def redundancy_pool_checks(snap: CampusSnapshot, balance: CoolingBalance | None = None) -> list[PoolCheck]:
    """Every pool of units checked against the declared ``cooling_redundancy``: each named group (the
    balance's ``groups``), each hall's ungrouped air units pooled as one (``cooling_pools``), named
    by building and hall, and each plant loop that takes heat (``heat.plant_loops``: the plants of a loop
    back each other up, as ``plant_usable_capacity_kw`` and the failure analysis pool them), named
    ``<building> plant loop (<plants>)``, its heat the units' heat and fan or pump power handed to its
    plants. The one rule the summary (``groups_failing_redundancy``), the redundancy
    endpoint's declared check and the balance share; ``balance``: the campus's ``cooling_balance`` already
    run (its heat and its failed units), else one at design load."""
    if balance is None:
        balance = cooling_balance(snap)
    halls = {h.id: h for h in snap.halls}
    buildings = {b.id: b for b in snap.buildings}
    unit_hall = {u.id: u.hall_id for u in snap.cooling_units}
    group_halls: dict[str, set] = {}
    for u in snap.cooling_units:
        if u.group:
            group_halls.setdefault(u.group, set()).add(u.hall_id)

    def place(hall_id: int | None) -> dict:
        h = halls.get(hall_id) if hall_id is not None else None
        if h is None:
            return {}
        b = buildings.get(h.building_id)
        return {
            "hall_id": h.id,
            "hall": h.name,
            "building_id": h.building_id,
            "building": b.name if b is not None else "",
        }

    out = [
        PoolCheck(
            g.group,
            "group",
            g.units,
            g.heat_kw,
            g.capacity_kw,
            g.usable_capacity_kw,
            g.redundancy,
            g.holds,
            **place(next(iter(group_halls[g.group])) if len(group_halls.get(g.group, ())) == 1 else None),
        )
        for g in balance.groups
    ]
    heat = {u.id: u.heat_kw for u in balance.units}
    caps = {u.id: u.capacity_kw for u in balance.units}
    air = {u.id for u in snap.cooling_units if u.kind in AIR_UNIT_KINDS and not u.group}
    hall_pools = []
    for pool in cooling_pools(snap, caps):
        ids = pool.unit_ids
        hall_id = unit_hall[ids[0]]
        if hall_id is None or not all(i in air and unit_hall[i] == hall_id for i in ids):
            continue  # a named group (above) or a unit alone
        where = place(hall_id)
        name = f"{where.get('building', '')} {where.get('hall', pool.name)} air units".strip()
        p_heat = sum(heat.get(i, 0.0) for i in ids)
        hall_pools.append(
            PoolCheck(
                name,
                HALL_AIR_POOL,
                len(ids),
                p_heat,
                pool.capacity_kw,
                pool.usable_kw,
                balance.redundancy,
                p_heat <= pool.usable_kw,
                **where,
            )
        )
    loops: dict[int, list[PlantLoad]] = {}
    loop_of = plant_loops(snap)
    for p in balance.plants:
        loops.setdefault(loop_of[p.id], []).append(p)
    plant_pools = []
    for plants in loops.values():
        p_heat = sum(p.heat_kw for p in plants)
        if p_heat <= 0.0:
            continue  # a loop no unit hands heat to carries nothing to keep
        usable = usable_capacity_kw([p.capacity_kw for p in plants], balance.redundancy)
        b = buildings.get(plants[0].building_id)
        where = {"building_id": b.id, "building": b.name} if b is not None else {}
        name = plant_loop_name(b.name if b is not None else "", plants)
        plant_pools.append(
            PoolCheck(
                name,
                PLANT_LOOP_POOL,
                len(plants),
                p_heat,
                sum(p.capacity_kw for p in plants),
                usable,
                balance.redundancy,
                p_heat <= usable,
                **where,
            )
        )
    return (
        out
        + sorted(hall_pools, key=lambda p: (p.building, p.hall, p.hall_id or 0))
        + sorted(plant_pools, key=lambda p: (p.building, p.name))
    )


def plant_loop_name(building: str, plants) -> str:
    """``"<building> plant loop (<plants>)"``: a loop as the summary, the redundancy check and placement
    name it (plants by id)."""
    names = ", ".join(p.name for p in sorted(plants, key=lambda p: p.id))
    return f"{building} plant loop ({names})".strip()


def pools_failing_redundancy(snap: CampusSnapshot, balance: CoolingBalance | None = None) -> list[PoolCheck]:
    """The pools (``redundancy_pool_checks``) whose heat is above their usable capacity with the declared
    cooling redundancy: groups first by name, then halls' air units by building and hall."""
    return [p for p in redundancy_pool_checks(snap, balance) if not p.holds]


def unit_heat_kw(snap: CampusSnapshot, rack_load_kw: Mapping[int, float] | None = None) -> dict[int, float]:
    """Heat each cooling unit carries, kW, for every unit of the campus (0.0 when it serves nothing)."""
    return {u.id: u.heat_kw for u in cooling_balance(snap, rack_load_kw=rack_load_kw).units}


def mechanical_loads_kw(
    snap: CampusSnapshot, rack_load_kw: Mapping[int, float] | None = None
) -> dict[tuple[str, int], float]:
    """Electrical load of every cooling unit (fans, pumps) and plant (heat / COP), kW.

    Keyed ``("unit", id)`` and ``("plant", id)``: the loads the power chain carries on the units' and
    plants' ``power_device``.
    """
    bal = cooling_balance(snap, rack_load_kw=rack_load_kw)
    out: dict[tuple[str, int], float] = {("unit", u.id): u.electrical_kw for u in bal.units}
    out.update({("plant", p.id): p.electrical_kw for p in bal.plants})
    return out
