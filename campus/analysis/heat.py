"""Where every watt of IT power ends up as heat: which cooling unit takes it, in liquid or in air.

All IT power becomes heat, so the heat of the campus is its IT power (``energy.it_breakdown``: servers,
racks' extras, network, the rest of ``other_it_fraction``). Each part is placed by these rules:

1. Servers. In a ``direct-to-chip`` rack the cold plates carry the node model's ``liquid_heat_fraction``
   of each server's heat to the rack's cooling unit (the CDU); the rest leaves in the air. A rear door's
   coil and an immersion tank take all of the rack's heat to the rack's unit. An ``air`` rack sends it
   all to air.
2. Racks' itemised extras (storage, CPU nodes, switches in the rack) are air-cooled.
3. A rack's air heat goes to the rack's unit when that unit is an air unit (a CRAH); otherwise to the air
   units of the rack's hall, split in proportion to their capacity (the room air mixes between them).
4. Network: each switch group's power at its hall (or its rack's hall), node-side transceivers at the
   rack's hall; a switch placed only by its pod's building goes to that building's air units, one placed
   nowhere to every air unit of the campus; split by capacity. Storage systems likewise, at their building
   or the campus (``storage_power``: they are air-cooled).
5. Other IT (the allowance ``other_it_fraction`` for storage, CPU nodes and management the inventory
   does not hold) is spread over the halls in proportion to their server heat at full load (the fraction
   is defined against the servers; the design's shares, so a capped hall keeps its storage), each hall's
   share to its air units by capacity, or to its building's air units when the hall has none. It is
   worked out with the GPUs at full power (other IT = k·S at S the servers' full-load heat, k = f / (1 − f),
   less the storage systems the inventory holds, rule 4, never below 0: ``energy.allowance_kw``) and held when ``gpu_power_fraction`` lowers the GPUs' draw: storage and CPU nodes do not idle with the
   GPUs.

``it_beyond_racks`` is the one placement of rules 4 (with storage) and 5; the power chain carries the same watts at the
same places (``it_beyond_at``; ``power_graph``), beside the racks, never on a rack's own feeds.

Heat that finds no unit is reported as unassigned, by reason; assigned + unassigned = IT power.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from campus.analysis.energy import allowance_kw
from campus.analysis.fabric import fabric_from_inventory
from campus.analysis.memo import snapshot_memo
from campus.analysis.snapshot import CampusSnapshot, CoolingUnitSnap, RackSnap
from campus.analysis.storage_power import storage_kw_by_place

AIR_UNIT_KINDS = frozenset({"crah"})
COLD_PLATE = "direct-to-chip"
ALL_TO_LIQUID = frozenset({"rear-door", "immersion"})

NO_UNIT = "rack names no cooling unit"
NO_AIR_UNIT = "no air unit in the hall"
NO_AIR_UNIT_NETWORK = "network: no air unit where the switch is"
NO_AIR_UNIT_OTHER = "other IT: no air unit in the hall or its building"
NO_AIR_UNIT_STORAGE = "storage: no air unit where the storage system is"


@dataclass
class HeatMap:
    """Heat per cooling unit (kW) and what is left over, with the IT parts it came from."""

    it_kw: float
    server_kw: float
    rack_extra_kw: float
    network_kw: float
    other_it_kw: float
    liquid_kw: float  # carried by liquid (cold plates, rear doors, tanks) to a unit
    air_kw: float  # left in the air, assigned or not
    storage_kw: float = 0.0  # storage systems (storage_power)
    unit_liquid_kw: dict[int, float] = field(default_factory=dict)
    unit_air_kw: dict[int, float] = field(default_factory=dict)
    unassigned_kw: dict[str, float] = field(default_factory=dict)  # reason -> kW

    @property
    def unit_kw(self) -> dict[int, float]:
        keys = self.unit_liquid_kw.keys() | self.unit_air_kw.keys()
        return {k: self.unit_liquid_kw.get(k, 0.0) + self.unit_air_kw.get(k, 0.0) for k in keys}

    @property
    def assigned_kw(self) -> float:
        return sum(self.unit_liquid_kw.values()) + sum(self.unit_air_kw.values())

    @property
    def unassigned_total_kw(self) -> float:
        return sum(self.unassigned_kw.values())


def _spread(kw: float, units: list[CoolingUnitSnap], into: dict[int, float]) -> bool:
    """Split ``kw`` over ``units`` by capacity (equally when none has any); False if there is no unit."""
    return _spread_shares(kw, _shares(units), into)


def _shares(units: list[CoolingUnitSnap]) -> tuple[tuple[int, float], ...]:
    """(unit id, share) of a split by capacity (equally when none has any), in the units' order."""
    total = sum(max(u.capacity_kw, 0.0) for u in units)
    return tuple((u.id, max(u.capacity_kw, 0.0) / total if total > 0 else 1.0 / len(units)) for u in units)


def _spread_shares(kw: float, shares: tuple[tuple[int, float], ...], into: dict[int, float]) -> bool:
    """``_spread`` with the shares worked out once (``_shares``): one hall's units take the air heat of
    each of its racks."""
    if not shares:
        return False
    for uid, share in shares:
        into[uid] = into.get(uid, 0.0) + kw * share
    return True


def node_kw_at(snap: CampusSnapshot, slug: str, gpu_power_fraction: float = 1.0) -> float:
    """One server's power with its GPUs at ``gpu_power_fraction`` of their modelled draw (TDP × the campus's
    own fraction), kW (as ``energy.it_breakdown``)."""
    return (snap.node_gpu_w(slug) * gpu_power_fraction + snap.node_overhead_w(slug)) / 1000.0


def rack_heat_split(
    snap: CampusSnapshot, r: RackSnap, load_kw: float | None, gpu_power_fraction: float = 1.0
) -> tuple[float, float]:
    """(liquid, air) heat of one rack, kW, at ``load_kw`` (default: its IT load with the GPUs at
    ``gpu_power_fraction`` of TDP)."""
    servers_kw = liquid_kw = 0.0
    for slug, count in r.nodes:
        node_kw = node_kw_at(snap, slug, gpu_power_fraction) * count
        servers_kw += node_kw
        if r.cooling_type == COLD_PLATE:
            liquid_kw += node_kw * snap.node_models[slug].liquid_heat_fraction
    nominal = servers_kw + r.extra_it_kw
    if r.cooling_type in ALL_TO_LIQUID:
        liquid_kw = nominal
    load = nominal if load_kw is None else load_kw
    # A load given from outside (capping, measurements) keeps the rack's liquid/air proportion.
    liquid = liquid_kw * load / nominal if nominal > 0 else 0.0
    return liquid, load - liquid


@dataclass(frozen=True)
class ItBeyondRacks:
    """Where the IT outside the racks' own load is (rules 4 and 5), kW."""

    network_kw_by_place: dict[tuple[str, int], float]  # ("hall" | "building" | "campus", id) -> kW
    other_kw_by_hall: dict[int, float]
    other_kw: float  # other IT of the campus (also when no hall has servers to carry it)
    storage_kw_by_place: dict[tuple[str, int], float] = field(default_factory=dict)  # as the network's


def it_beyond_racks(snap: CampusSnapshot, server_kw: float, extra_kw: float) -> ItBeyondRacks:
    """Network power by place and other IT by hall (module rules 4 and 5), given the servers' load per
    hall and the racks' itemised extras; the one placement rule for the heat and for the power chain."""
    network: dict[tuple[str, int], float] = {}
    networks = {s.network for s in snap.switches} | {x.network for x in snap.links}
    for net in sorted(networks):
        for place, kw in fabric_from_inventory(snap, net).power_kw_by_place.items():
            network[place] = network.get(place, 0.0) + kw
    storage = storage_kw_by_place(snap)
    other_kw = allowance_kw(server_kw, snap.other_it_fraction, sum(storage.values()))
    by_hall: dict[int, float] = {}
    shares = other_it_hall_shares(snap)
    if other_kw > 0:
        by_hall = {h: other_kw * w for h, w in shares.items()}
    return ItBeyondRacks(network, by_hall, other_kw, storage)


def rack_it_kw_by_id(snap: CampusSnapshot) -> Mapping[int, float]:
    """``snap.rack_it_kw`` of every rack, by rack id: worked out once per make of rack (servers and
    extras) and kept with the snapshot. Read-only."""
    memo = snapshot_memo(snap)
    out = memo.get("rack_it_kw")
    if out is None:
        by_make: dict[tuple, float] = {}
        out = {}
        for r in snap.racks:
            make = (r.nodes, r.extra_it_kw)
            kw = by_make.get(make)
            if kw is None:
                kw = by_make[make] = snap.rack_it_kw(r)
            out[r.id] = kw
        memo["rack_it_kw"] = out
    return out  # type: ignore[return-value]


def it_beyond_at(snap: CampusSnapshot, rack_load_kw: Mapping[int, float] | None = None) -> ItBeyondRacks:
    """``it_beyond_racks`` with the racks at ``rack_load_kw`` (racks it names; the others at their IT
    load): the network and the allowance the power chain carries beside the racks
    (``power_graph.PowerGraph``: a labelled load per place, never on a rack's own feeds)."""
    nominal_kw = rack_it_kw_by_id(snap)
    load = dict(nominal_kw)
    if rack_load_kw is not None:
        load.update({rid: kw for rid, kw in rack_load_kw.items() if rid in load})
    server_kw = extra_kw = 0.0
    servers_by_make: dict[tuple, float] = {}  # racks of one make have one servers' load
    for r in snap.racks:
        nominal_servers = servers_by_make.get(r.nodes)
        if nominal_servers is None:
            nominal_servers = servers_by_make[r.nodes] = sum(node_kw_at(snap, s) * n for s, n in r.nodes)
        nominal = nominal_servers + r.extra_it_kw
        servers = load[r.id] * nominal_servers / nominal if nominal > 0 else load[r.id]
        server_kw += servers
        extra_kw += load[r.id] - servers
    return it_beyond_racks(snap, server_kw, extra_kw)


def heat_map(
    snap: CampusSnapshot, rack_load_kw: Mapping[int, float] | None = None, gpu_power_fraction: float = 1.0
) -> HeatMap:
    """Place every kW of IT heat on a cooling unit (module rules); ``rack_load_kw`` overrides racks' IT load,
    the others run with their GPUs at ``gpu_power_fraction`` of TDP (the servers' other parts at their
    rating, as ``energy.it_breakdown``). Without ``rack_load_kw`` the map is kept with the snapshot (the
    summary's cooling balance and its facility year read the same one)."""
    if rack_load_kw is not None:
        return _heat_map(snap, rack_load_kw, gpu_power_fraction)
    memo = snapshot_memo(snap)
    key = f"heat_map:{gpu_power_fraction!r}"
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = _heat_map(snap, None, gpu_power_fraction)
    return hit  # type: ignore[return-value]


def _air_units(
    snap: CampusSnapshot, hall_building: Mapping[int, int]
) -> tuple[dict[int, list[CoolingUnitSnap]], dict[int, list[CoolingUnitSnap]]]:
    """The air units placed in a hall, by hall and by the hall's building, in the snapshot's order."""
    air_by_hall: dict[int, list[CoolingUnitSnap]] = {}
    air_by_building: dict[int, list[CoolingUnitSnap]] = {}
    for u in snap.cooling_units:
        if u.kind in AIR_UNIT_KINDS and u.hall_id is not None:
            air_by_hall.setdefault(u.hall_id, []).append(u)
            if u.hall_id in hall_building:
                air_by_building.setdefault(hall_building[u.hall_id], []).append(u)
    return air_by_hall, air_by_building


def _heat_map(
    snap: CampusSnapshot, rack_load_kw: Mapping[int, float] | None, gpu_power_fraction: float
) -> HeatMap:
    units = {u.id: u for u in snap.cooling_units}
    hall_building = {h.id: h.building_id for h in snap.halls}
    air_by_hall, air_by_building = _air_units(snap, hall_building)
    all_air = [u for u in snap.cooling_units if u.kind in AIR_UNIT_KINDS]
    liquid: dict[int, float] = {}
    air: dict[int, float] = {}
    lost: dict[str, float] = {}

    def unplaced(reason: str, kw: float) -> None:
        if kw:
            lost[reason] = lost.get(reason, 0.0) + kw

    hall_shares = {hall: _shares(hall_units) for hall, hall_units in air_by_hall.items()}
    # racks of one make (servers, cooling, extras) split alike: each make is worked out once
    makes: dict[tuple, tuple[float, float, float, float]] = {}
    server_kw = extra_kw = liquid_total = 0.0
    # the servers' heat with the GPUs at full power where no load is given: the base of the other IT
    # (rule 5), which does not idle with the GPUs
    full_gap_kw = 0.0
    for r in snap.racks:
        load = rack_load_kw.get(r.id) if rack_load_kw is not None else None
        make = (r.nodes, r.cooling_type, r.extra_it_kw)
        known = makes.get(make) if load is None else None
        if known is None:
            nominal_servers = sum(node_kw_at(snap, s, gpu_power_fraction) * n for s, n in r.nodes)
            rack_liquid, rack_air = rack_heat_split(snap, r, load, gpu_power_fraction)
            gap = (
                sum(node_kw_at(snap, s, 1.0) * n for s, n in r.nodes) - nominal_servers
                if load is None and gpu_power_fraction != 1.0
                else 0.0
            )
            if load is None:
                makes[make] = (nominal_servers, rack_liquid, rack_air, gap)
        else:
            nominal_servers, rack_liquid, rack_air, gap = known
        full_gap_kw += gap
        total = rack_liquid + rack_air
        nominal = nominal_servers + r.extra_it_kw
        # the servers' part of a rack's load, for the IT breakdown
        servers = total * nominal_servers / nominal if nominal > 0 else total
        server_kw += servers
        extra_kw += total - servers
        unit = units.get(r.cooling_unit_id) if r.cooling_unit_id is not None else None
        if unit is None:
            unplaced(NO_UNIT, total)
        elif unit.kind in AIR_UNIT_KINDS:
            air[unit.id] = air.get(unit.id, 0.0) + total
        else:
            liquid[unit.id] = liquid.get(unit.id, 0.0) + rack_liquid
            liquid_total += rack_liquid
            if not _spread_shares(rack_air, hall_shares.get(r.hall_id, ()), air):
                unplaced(NO_AIR_UNIT, rack_air)

    beyond = it_beyond_racks(snap, server_kw + full_gap_kw, extra_kw)
    network_kw = sum(beyond.network_kw_by_place.values())
    for (kind, pid), kw in beyond.network_kw_by_place.items():
        if kind == "hall":
            where = air_by_hall.get(pid, [])
        elif kind == "building":
            where = air_by_building.get(pid, [])
        else:
            where = all_air
        if not _spread(kw, where, air):
            unplaced(NO_AIR_UNIT_NETWORK, kw)
    storage_kw = sum(beyond.storage_kw_by_place.values())
    for (kind, pid), kw in beyond.storage_kw_by_place.items():
        where = air_by_building.get(pid, []) if kind == "building" else all_air
        if not _spread(kw, where, air):
            unplaced(NO_AIR_UNIT_STORAGE, kw)
    other_kw = beyond.other_kw
    for hall_id, share in sorted(beyond.other_kw_by_hall.items()):
        targets = air_by_hall.get(hall_id) or air_by_building.get(hall_building.get(hall_id, -1), [])
        if not _spread(share, targets, air):
            unplaced(NO_AIR_UNIT_OTHER, share)
    if other_kw > 0 and not beyond.other_kw_by_hall:
        unplaced(NO_AIR_UNIT_OTHER, other_kw)
    it_kw = server_kw + extra_kw + network_kw + other_kw + storage_kw
    return HeatMap(
        it_kw=it_kw,
        server_kw=server_kw,
        rack_extra_kw=extra_kw,
        network_kw=network_kw,
        other_it_kw=other_kw,
        liquid_kw=liquid_total,
        air_kw=it_kw - liquid_total,
        storage_kw=storage_kw,
        unit_liquid_kw=liquid,
        unit_air_kw=air,
        unassigned_kw=lost,
    )


def other_it_per_server_kw(snap: CampusSnapshot) -> float:
    """Other IT added per kW of servers added, kW/kW: ``f / (1 − f)`` (rule 5's allowance), 0 on a campus
    without an allowance or without servers."""
    f = snap.other_it_fraction
    return f / (1.0 - f) if f > 0 and heat_map(snap).other_it_kw > 0 else 0.0


def other_it_added_split(snap: CampusSnapshot) -> tuple[float, float]:
    """Other IT brought per kW of servers *installed* (at full load), kW/kW, as ``(in their own hall,
    over every hall by its share)``; the two add up to ``other_it_per_server_kw``.

    Rule 5 gives hall ``h`` the allowance ``O × S_h / S`` with ``O = k·S`` (``k = f / (1 − f)``), that is
    ``k·S_h``: installing ``x`` kW of servers in hall ``h`` adds ``k·x`` there and nothing elsewhere, so
    the split is ``(k, 0)`` (worked out from the heat map, so a campus whose servers the map does not see
    reads the same)."""
    k = other_it_per_server_kw(snap)
    if k <= 0:
        return 0.0, 0.0
    hm = heat_map(snap)
    own = hm.other_it_kw / hm.server_kw if hm.server_kw > 0 else 0.0
    own = min(max(own, 0.0), k)
    return own, k - own


def other_it_hall_shares(snap: CampusSnapshot) -> dict[int, float]:
    """Each hall's share of the other IT (rule 5): its servers' heat at full load over the campus'.

    The shares are the design's, not the load's: storage, CPU nodes and management stay where they are
    installed when servers are capped or shed, and the other IT's placement stays linear in the racks'
    loads (so the failover headroom, which adds load to one hall, is exact)."""
    memo = snapshot_memo(snap)
    shares = memo.get("other_it_hall_shares")
    if shares is None:
        shares = memo["other_it_hall_shares"] = _other_it_hall_shares(snap)
    return dict(shares)  # type: ignore[call-overload]


def _other_it_hall_shares(snap: CampusSnapshot) -> dict[int, float]:
    hall_server_kw: dict[int, float] = {}
    by_make: dict[tuple, float] = {}  # racks of one make have one servers' load
    for r in snap.racks:
        make = (r.nodes, r.extra_it_kw)
        servers = by_make.get(make)
        if servers is None:
            servers = by_make[make] = snap.rack_it_kw(r) * server_share(snap, r)
        if servers > 0:
            hall_server_kw[r.hall_id] = hall_server_kw.get(r.hall_id, 0.0) + servers
    total = sum(hall_server_kw.values())
    return {h: kw / total for h, kw in hall_server_kw.items()} if total > 0 else {}


def server_share(snap: CampusSnapshot, r: RackSnap) -> float:
    """The servers' share of a rack's IT load (the rest: its itemised extras)."""
    nominal_servers = sum(snap.node_power_w(s) * n for s, n in r.nodes) / 1000.0
    nominal = nominal_servers + r.extra_it_kw
    return nominal_servers / nominal if nominal > 0 else 1.0


def heat_sensitivity(
    snap: CampusSnapshot, rack_weight: Mapping[int, float], other_per_server: float | None = None
) -> dict[int, dict[int, float]]:
    """Heat each cooling unit takes per kW of IT added to a hall, kW/kW: unit -> {hall: kW per kW}.

    ``rack_weight`` spreads one added kW of a hall over its racks (weights of one hall add up to 1). Each
    rack's share is placed by the module rules at the rack's liquid/air proportion. Other IT grows with
    the servers (``other_it_fraction`` / (1 − fraction) per server kW), when the campus' other IT is set
    by that fraction: the added kW are servers *installed* (new racks, or more in the racks), which bring
    today's other IT per server kW into their own hall and the rest over the halls by
    ``other_it_hall_shares`` (``other_it_added_split``, the derivative of rule 5, so this is exact).
    ``other_per_server``: ``other_it_per_server_kw(snap)`` when the caller has it.
    """
    units = {u.id: u for u in snap.cooling_units}
    hall_building = {h.id: h.building_id for h in snap.halls}
    air_by_hall, air_by_building = _air_units(snap, hall_building)
    if other_per_server is None:
        other_per_server = other_it_per_server_kw(snap)
    hall_servers: dict[int, float] = {}  # server kW per kW added to the hall
    out: dict[int, dict[int, float]] = {}

    def add(spread: dict[int, float], hall: int) -> None:
        for uid, kw in spread.items():
            row = out.setdefault(uid, {})
            row[hall] = row.get(hall, 0.0) + kw

    # Linear in the added kW, so a hall's air heat spreads over its air units once, and the other IT once
    # per hall; racks of one make-up share their liquid/air proportion and server share.
    hall_air: dict[int, float] = {}  # air heat of racks on liquid units, per kW added to their hall
    kinds: dict[tuple, tuple[float, float]] = {}  # rack make-up -> (liquid share of its IT, server share)
    for r in snap.racks:
        w = rack_weight.get(r.id, 0.0)
        unit = units.get(r.cooling_unit_id) if r.cooling_unit_id is not None else None
        if w <= 0:
            continue
        key = (r.nodes, r.extra_it_kw, r.cooling_type)
        kind = kinds.get(key)
        if kind is None:
            liquid, _ = rack_heat_split(snap, r, 1.0)
            kind = kinds[key] = (liquid, server_share(snap, r))
        if unit is not None:
            if unit.kind in AIR_UNIT_KINDS:
                add({unit.id: w}, r.hall_id)
            else:
                add({unit.id: w * kind[0]}, r.hall_id)
                hall_air[r.hall_id] = hall_air.get(r.hall_id, 0.0) + w * (1.0 - kind[0])
        if other_per_server:
            hall_servers[r.hall_id] = hall_servers.get(r.hall_id, 0.0) + w * kind[1]
    for hall_id, air in hall_air.items():
        into: dict[int, float] = {}
        _spread(air, air_by_hall.get(hall_id, []), into)
        add(into, hall_id)
    # The other IT the added servers bring (``other_it_added_split``): today's per server kW in their own
    # hall, the rest over the halls by their shares (rule 5); a hall's on its air units (or its building's).
    if hall_servers:
        own_other, spread_other = other_it_added_split(snap)
        per_kw: dict[int, float] = {}  # unit -> other IT heat per kW of it
        for hall_id, share in other_it_hall_shares(snap).items():
            targets = air_by_hall.get(hall_id) or air_by_building.get(hall_building.get(hall_id, -1), [])
            _spread(share, targets, per_kw)
        for h0, servers in hall_servers.items():
            kw = servers * spread_other
            into = {uid: kw * v for uid, v in per_kw.items()}
            targets = air_by_hall.get(h0) or air_by_building.get(hall_building.get(h0, -1), [])
            _spread(servers * own_other, targets, into)
            add(into, h0)
    return out


AIR_LOOP = "air"
LIQUID_LOOP = "liquid"


def unit_medium(kind: str) -> str:
    """The loop a unit's heat travels on to its plant: ``air`` for an air unit (a CRAH's chilled-water
    coil), ``liquid`` for the others (a CDU's, rear door's or tank's facility water)."""
    return AIR_LOOP if kind in AIR_UNIT_KINDS else LIQUID_LOOP


def plant_loops(snap: CampusSnapshot) -> dict[int, int]:
    """Which plants share a water loop: plant id -> its loop (the smallest plant id on it).

    A unit is piped to the one plant it names (``plant_id``). The plants of one building that take heat
    of one medium (``unit_medium``: the air units' chilled water, the liquid units' facility water) share
    that loop, so the spare of one can take another's heat; a plant taking both media joins the two
    loops (it is piped to both). A plant no unit names is on a loop of its own (nothing is piped to it),
    and plants of different buildings never share one. An air-side chiller therefore never takes the
    heat of a liquid loop unless a liquid unit is piped to it.
    """
    memo = snapshot_memo(snap)
    loops = memo.get("plant_loops")
    if loops is None:
        parent = {p.id: p.id for p in snap.cooling_plants}

        def root(p: int) -> int:
            while parent[p] != p:
                parent[p] = parent[parent[p]]
                p = parent[p]
            return p

        building = {p.id: p.building_id for p in snap.cooling_plants}
        first: dict[tuple[int | None, str], int] = {}
        for u in snap.cooling_units:
            if u.plant_id not in parent:
                continue
            key = (building[u.plant_id], unit_medium(u.kind))
            other = first.setdefault(key, u.plant_id)
            a, b = root(u.plant_id), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
        loops = memo["plant_loops"] = {p: root(p) for p in parent}
    return dict(loops)  # type: ignore[call-overload]
