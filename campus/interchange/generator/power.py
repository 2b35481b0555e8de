"""The power chain (N, N+1 distributed redundant or 2N) and the mechanical chain that keeps the cooling running.

2N (the default), per building and side (A, B): utility feed → substation → per hall transformer →
switchgear (+ N+1 generators) → UPS modules → per row PDU → rack feed; every rack has an A and a B feed.
The mechanical loads are dual-fed the same way: every cooling unit from the hall's mechanical PDU A (on UPS
A) and B (on UPS B), every plant from the building's mechanical switchboard A (on substation A and N+1
generators) and B (on substation B and its own N+1 generators). No device feeds both sides, so one loss on
either side leaves the other carrying everything.

N: side A alone, one UPS system per hall rated for its load; every rack and mechanical load single-fed.
N+1 (``_hall_power_blocks``): per hall k + 1 blocks (transformer on both substations, switchgear with
generators, UPS) of which any k carry the hall; each rack fed A and B from two different blocks.

Each element is rated for the full load it carries when the other side (or, N+1, any one other block) is
lost, at its input (so its efficiency counted), divided by the planning limit ``max_utilization`` (0.8,
NEC 80 % continuous load).
"""

from __future__ import annotations

import math

from campus import catalog_data as cat
from campus.interchange.generator import cooling
from campus.interchange.generator.builder import Builder, HallRow
from campus.interchange.generator.common import (
    GENERATOR_KW,
    GRID_MARGIN,
    UPS_MODULE_KW,
    Row,
    ceil_to,
    r3,
)

SIDES = "AB"
# Device names by stage kind: an AC hall's "UPS-A01" is a dc-800 hall's "SST-A01" and a dc-400 hall's "PR-A01"
# (its sidecar power racks); an AC row's "PDU-A" is a DC row's "BUS-A".
_MODULE_NAME = {"ups": "UPS", "sst": "SST", "rectifier": "PR"}
_ROW_NAME = {"pdu": "PDU", "dc-busway": "BUS"}


def _eff(kind: str) -> float:
    return cat.device_efficiency(kind)


def _generator(b: Builder, name: str, bname: str, hname: str | None = None) -> str:
    return b.device(
        name,
        "generator",
        bname,
        GENERATOR_KW,
        hname,
        start_delay_s=cat.default_value("generator_start_delay_s"),
        ramp_s=cat.default_value("generator_ramp_s"),
    )


def power_and_cooling(b: Builder, heat: list[list[cooling.HallHeat]]) -> None:
    """Both chains and the cooling of every building; sets the halls' and buildings' design IT."""
    campus_input_kw = 0.0
    sides = campus_sides(b)
    for bi, building in enumerate(b.buildings):
        bname = building["name"]
        subs = {s: f"{bname}-SUB-{s}" for s in sides}
        msbs = {s: f"{bname}-MSB-{s}" for s in sides}
        units: list[cooling.UnitPlan] = []
        halls_out_kw = 0.0  # what the halls' transformers draw from one substation with the other lost
        for hi, rows in enumerate(b.layout[bi]):
            hall, hall_heat = building["halls"][hi], heat[bi][hi]
            hall["design_it_mw"] = r3(hall_heat.it_kw / 1000.0)
            if b.power_redundancy == "N+1":
                tx_in_kw, hall_units = _hall_power_blocks(b, bname, hall, rows, hall_heat, subs)
            elif b.power_redundancy == "2N":
                tx_in_kw, hall_units = _hall_power_2n(b, bname, hall, rows, hall_heat, subs)
            else:
                tx_in_kw, hall_units = _hall_power(b, bname, hall, rows, hall_heat, subs)
            halls_out_kw += tx_in_kw
            units.extend(hall_units)
        it_kw = sum(h.it_kw for h in heat[bi])
        building["design_it_mw"] = r3(it_kw / 1000.0)
        b.it_kw += it_kw

        plants = cooling.building_plants(b, bname, units)
        plant_kw = sum(p.electrical_kw for p in plants)
        msb_kw = ceil_to(plant_kw / _eff("switchgear") / b.max_util, 100.0)
        # The halls' chains carry the network and other IT on their racks' feeds; a typed PUE is a floor
        # for the building's facility power.
        sub_out_kw = halls_out_kw + plant_kw / _eff("switchgear")
        if b.pue is not None:
            sub_out_kw = max(sub_out_kw, it_kw * b.pue)
        sub_in_kw = sub_out_kw / _eff("substation")
        sub_kw = ceil_to(sub_in_kw / b.max_util, 1000.0)
        # The plants ride a grid outage on their own N+1 generators, as the halls' switchgear does: the
        # UPS carries the units' fans and pumps through the start, the chillers restart on the sets.
        n_msb_gens = math.ceil(plant_kw / _eff("switchgear") / GENERATOR_KW) + 1
        for s in sides:
            b.device(subs[s], "substation", bname, sub_kw, utility_feed=f"UTIL-{s}")
        if b.power_redundancy == "2N":
            _mechanical_switchboards_2n(b, bname, plants, subs, n_msb_gens)
        else:
            for s in sides:
                b.device(msbs[s], "switchgear", bname, msb_kw)
                b.feed(subs[s], msbs[s], msb_kw, s)
                for g in range(n_msb_gens):
                    gen = _generator(b, f"{msbs[s]}-GEN-{g + 1:02d}", bname)
                    b.feed(gen, msbs[s], GENERATOR_KW, s)
            cooling.add_plants(b, bname, plants, [(msbs["A"], msbs.get("B"))] * len(plants))
        campus_input_kw += sub_in_kw
    # Each utility feed carries the whole campus when the other is lost.
    capacity_mw = ceil_to(campus_input_kw * GRID_MARGIN / 1000.0, 1.0)
    b.grid_capacity_mw = capacity_mw
    b.utility_feeds = [
        {"name": f"UTIL-{s}", "utility": "grid", "capacity_mw": capacity_mw, "voltage_kv": 138.0}
        for s in sides
    ]


def campus_sides(b: Builder) -> str:
    """The sides of the chain above the halls: one (A) for an N design, else two (A and B)."""
    return "A" if b.power_redundancy == "N" else SIDES


def _hall_power(
    b: Builder, bname: str, hall: Row, rows: list[HallRow], heat: cooling.HallHeat, subs: dict[str, str]
) -> tuple[float, list[cooling.UnitPlan]]:
    """Transformers, switchgear, generators, UPS modules, row PDUs and mechanical PDUs of one hall (both
    sides), its cooling units, and the racks' feeds and units. Returns (what one side's transformer draws
    from its substation carrying the whole hall, the hall's cooling units)."""
    hname = hall["name"]
    prefix = f"{bname}-{hname}"
    sides = campus_sides(b)
    arch = b.architecture
    eff_pdu, eff_ups, eff_row = _eff("pdu"), _eff(arch.module_kind), _eff(arch.row_kind)
    eff_swgr = _eff("switchgear")
    eff_tx = _eff("transformer") if arch.transformer else 1.0
    mpdus = {s: f"{prefix}-MPDU-{s}" for s in sides}
    units = cooling.hall_units(b, prefix, bname, hall, heat, (mpdus["A"], mpdus.get("B")))
    # Fans and pumps at full unit capacity; either mechanical PDU carries all of them.
    mech_kw = sum(cooling.unit_electrical_kw(u) for u in units)
    mpdu_kw = ceil_to(mech_kw / eff_pdu / b.max_util, 10.0)

    # UPS modules per side: the mechanical PDU on the first, rows assigned greedily within the limit.
    # A rack's feeds carry its own IT; the hall's network and allowance (``heat.beside_kw``) are carried
    # beside the racks by the PDUs feeding them, shared out by the racks' IT (``power_graph``): a row's
    # PDU of each side carries its racks and their share, all of it when the other side is lost.
    def fed_kw(kw: float) -> float:
        return kw + heat.beside_kw * kw / heat.servers_kw if heat.servers_kw > 0 else kw

    row_kw = [sum(fed_kw(rack.kw) for _, rack in members) for _, members in rows]
    ups_groups: list[list[int]] = [[]]
    ups_out = [mech_kw / eff_pdu]
    # An N design has one UPS system per hall (its modules in parallel, no spare), rated for the load.
    single = b.power_redundancy == "N"
    for r, kw in enumerate(row_kw):
        load = kw / eff_row
        if not single and ups_groups[-1] and (ups_out[-1] + load) / eff_ups > UPS_MODULE_KW * b.max_util:
            ups_groups.append([])
            ups_out.append(0.0)
        ups_groups[-1].append(r)
        ups_out[-1] += load
    ups_rated = [
        ceil_to(out / eff_ups / b.max_util, 100.0)
        if single
        else max(UPS_MODULE_KW, ceil_to(out / eff_ups / b.max_util, 100.0))
        for out in ups_out
    ]
    side_ups_in = sum(out / eff_ups for out in ups_out)
    swgr_in = side_ups_in / eff_swgr
    tx_in = swgr_in / eff_tx
    swgr_kw = ceil_to(swgr_in / b.max_util, 500.0)
    tx_kw = ceil_to(tx_in / b.max_util, 500.0)
    n_gens = math.ceil(swgr_in / GENERATOR_KW) + 1  # N+1
    ups_names: dict[str, list[str]] = {}
    for s in sides:
        # dc-800: the MV switchgear hangs off the substation and the SSTs below it do the step-down.
        above = subs[s]
        if arch.transformer:
            above = b.device(f"{prefix}-TX-{s}", "transformer", bname, tx_kw, hname)
            b.feed(subs[s], above, tx_kw, s)
        swgr = b.device(f"{prefix}-SWGR-{s}", "switchgear", bname, swgr_kw, hname)
        b.feed(above, swgr, swgr_kw, s)
        for g in range(n_gens):
            gen = _generator(b, f"{prefix}-GEN-{s}{g + 1:02d}", bname, hname)
            b.feed(gen, swgr, GENERATOR_KW, s)
        ups_names[s] = []
        for u, rated in enumerate(ups_rated):
            ups_names[s].append(_ups_module(b, arch, prefix, s, u, bname, hname, swgr, rated))
        if units:
            b.device(mpdus[s], "pdu", bname, mpdu_kw, hname)
            b.feed(ups_names[s][0], mpdus[s], mpdu_kw, s)

    # Row PDUs and rack feeds: each side rated for the whole rack (2N; an N design has side A only).
    for u, members_idx in enumerate(ups_groups):
        for r in members_idx:
            row_spec, members = rows[r]
            pdu_kw = ceil_to(row_kw[r] / eff_row / b.max_util, 50.0)
            row_name = f"{prefix}-{row_spec['name']}-{_ROW_NAME[arch.row_kind]}"
            for s in sides:
                pdu = b.device(f"{row_name}-{s}", arch.row_kind, bname, pdu_kw, hname)
                b.feed(ups_names[s][u], pdu, pdu_kw, s)
            for spec, rack in members:
                spec["feed_a"] = f"{row_name}-A"
                if "B" in sides:
                    spec["feed_b"] = f"{row_name}-B"
                spec["feed_rating_kw"] = ceil_to(rack.kw / b.max_util, 5.0)
    return tx_in, units


def supply_pairs(pools: list[int]) -> tuple[int, list[tuple[int, int]]]:
    """(m, the (A, B) supply of each member) for loads on two feeds each (cooling units, plants), m supplies
    a side: members of one pool (``pools``: its index per member) on distinct (A, B) pairs, so one supply
    of each side lost (one out for maintenance, the other failed) stops at most one member of a pool, the
    spare an N+1 or 2N pool keeps. m = ceil(sqrt(the largest pool)): m² pairs."""
    sizes: dict[int, int] = {}
    for pool in pools:
        sizes[pool] = sizes.get(pool, 0) + 1
    m = max(1, math.isqrt(max(sizes.values(), default=1) - 1) + 1)
    seen: dict[int, int] = {}
    out = []
    for pool in pools:
        u = seen.get(pool, 0)
        seen[pool] = u + 1
        a, c = u % m, u // m  # a Latin square: a pool's members on distinct pairs, spread over both sides
        out.append((a, (a + c) % m))
    return m, out


def _mechanical_switchboards_2n(
    b: Builder, bname: str, plants: list[cooling.PlantPlan], subs: dict[str, str], n_gens: int
) -> None:
    """2N: m mechanical switchboards a side (``supply_pairs`` over the plant loops), each on its side's
    substation and the side's N+1 generators and rated for every plant it feeds (their other side may be
    lost); a plant on one switchboard of each side."""
    loops = [p.name.rsplit("-", 1)[0] for p in plants]
    m, pairs = supply_pairs([loops.index(loop) for loop in loops])
    plant_kw = [p.electrical_kw / _eff("switchgear") for p in plants]
    supplies = []
    for s, side in zip(SIDES, (0, 1), strict=True):
        names = [f"{bname}-MSB-{s}{i + 1}" for i in range(m)]
        for i, name in enumerate(names):
            kw = sum(k for k, pq in zip(plant_kw, pairs, strict=True) if pq[side] == i)
            rated = ceil_to(kw / b.max_util, 100.0) if kw > 0 else 100.0
            b.device(name, "switchgear", bname, rated)
            b.feed(subs[s], name, rated, s)
        for g in range(n_gens):
            gen = _generator(b, f"{bname}-MSB-{s}-GEN-{g + 1:02d}", bname)
            for name in names:
                b.feed(gen, name, GENERATOR_KW, s)
        supplies.append([names[pq[side]] for pq in pairs])
    cooling.add_plants(b, bname, plants, list(zip(supplies[0], supplies[1], strict=True)))


def _hall_power_2n(
    b: Builder, bname: str, hall: Row, rows: list[HallRow], heat: cooling.HallHeat, subs: dict[str, str]
) -> tuple[float, list[cooling.UnitPlan]]:
    """2N as two N+1 systems, "2(N+1)" (Schneider Electric WP 75): per side a transformer (its switchgear
    riding on the side's N+1 generators while it is out) and k + 1 blocks of switchgear and one UPS module,
    any k carrying the whole hall (``block_count``); every row PDU and mechanical PDU of a side on all of the
    side's UPS modules (in parallel). Every rack takes two whips a side (``<row>-PDU-A1``, ``-A2``, ``-B1``,
    ``-B2``), each rated for half the rack: with any two of the four lost, the two left carry it. The
    cooling units take one mechanical PDU of each side (``supply_pairs``), so any pair of them stops at most
    one unit of a group. Returns (what one side's transformer draws carrying the whole hall, the hall's
    cooling units)."""
    hname = hall["name"]
    prefix = f"{bname}-{hname}"
    arch = b.architecture
    eff_pdu, eff_ups, eff_row = _eff("pdu"), _eff(arch.module_kind), _eff(arch.row_kind)
    eff_swgr = _eff("switchgear")
    eff_tx = _eff("transformer") if arch.transformer else 1.0
    units = cooling.hall_units(b, prefix, bname, hall, heat, None)
    groups = [u.row["group"] for u in units]
    m, pairs = supply_pairs([groups.index(g) for g in groups])
    unit_kw = [cooling.unit_electrical_kw(u) / eff_pdu for u in units]

    def fed_kw(kw: float) -> float:
        return kw + heat.beside_kw * kw / heat.servers_kw if heat.servers_kw > 0 else kw

    row_kw = [sum(fed_kw(rack.kw) for _, rack in members) / eff_row for _, members in rows]
    side_in = (sum(row_kw) + sum(unit_kw)) / eff_ups  # the whole hall on one side's UPS modules
    k = block_count(side_in, b.max_util)
    ups_kw = ceil_to(side_in / k / b.max_util, 100.0)
    swgr_in = side_in / k / eff_swgr
    swgr_kw = ceil_to(swgr_in / b.max_util, 500.0)
    tx_in = side_in / eff_swgr / eff_tx
    tx_kw = ceil_to(tx_in / b.max_util, 500.0)
    n_gens = math.ceil(side_in / eff_swgr / GENERATOR_KW) + 1  # N+1 a side, on every block's switchgear
    ups_names: dict[str, list[str]] = {}
    mpdu_names: dict[str, list[str]] = {}
    for side, s in enumerate(SIDES):
        # dc-800: the MV switchgear hangs off the substation and the SSTs below it do the step-down.
        above = subs[s]
        if arch.transformer:
            above = b.device(f"{prefix}-TX-{s}", "transformer", bname, tx_kw, hname)
            b.feed(subs[s], above, tx_kw, s)
        gens = [_generator(b, f"{prefix}-GEN-{s}{g + 1:02d}", bname, hname) for g in range(n_gens)]
        ups_names[s] = []
        for n in range(k + 1):
            swgr = b.device(f"{prefix}-SWGR-{s}{n + 1:02d}", "switchgear", bname, swgr_kw, hname)
            b.feed(above, swgr, swgr_kw, s)
            for gen in gens:
                b.feed(gen, swgr, GENERATOR_KW, s)
            ups_names[s].append(_ups_module(b, arch, prefix, s, n, bname, hname, swgr, ups_kw))
        mpdu_names[s] = []
        for i in range(m if units else 0):
            kw = sum(v for v, pq in zip(unit_kw, pairs, strict=True) if pq[side] == i)
            mpdu_kw = ceil_to(kw / b.max_util, 10.0) if kw > 0 else 10.0
            mpdu = b.device(f"{prefix}-MPDU-{s}{i + 1}", "pdu", bname, mpdu_kw, hname)
            for ups in ups_names[s]:
                b.feed(ups, mpdu, mpdu_kw, s)
            mpdu_names[s].append(mpdu)
    for u, (a, c) in zip(units, pairs, strict=True):
        u.row["power_device"], u.row["power_device_b"] = mpdu_names["A"][a], mpdu_names["B"][c]

    for r, (row_spec, members) in enumerate(rows):
        pdu_kw = ceil_to(row_kw[r] / 2 / b.max_util, 50.0)
        row_name = f"{prefix}-{row_spec['name']}-{_ROW_NAME[arch.row_kind]}"
        for s in SIDES:
            for w in (1, 2):
                pdu = b.device(f"{row_name}-{s}{w}", arch.row_kind, bname, pdu_kw, hname)
                for ups in ups_names[s]:
                    b.feed(ups, pdu, pdu_kw, s)
        for spec, rack in members:
            whip_kw = ceil_to(rack.kw / b.max_util, 5.0) / 2  # a side: a rack feed's rating, as in N+1
            spec["feed_a"], spec["feed_b"] = f"{row_name}-A1", f"{row_name}-B1"
            spec["feed_rating_kw"] = whip_kw
            for s in SIDES:
                b.feeds.append(
                    {"from": f"{row_name}-{s}2", "rack": spec["name"], "side": s, "rating_kw": whip_kw}
                )
    return tx_in, units


def add_storage(b: Builder, mw_per_building: float, hours: float) -> None:
    """Battery energy storage in every building: half the power on each substation's bus (2N, as the rest of
    the chain), each half holding ``hours`` at its full power, at the catalog's round-trip efficiency and
    response time."""
    sides = campus_sides(b)
    for building in b.buildings:
        bname = building["name"]
        for s in sides:
            power_mw = r3(mw_per_building / len(sides))
            b.storage.append(
                {
                    "name": f"{bname}-BESS-{s}",
                    "building": bname,
                    "power_device": f"{bname}-SUB-{s}",
                    "power_mw": power_mw,
                    "energy_mwh": r3(power_mw * hours),
                    "round_trip_efficiency": cat.default_value("bess_round_trip_efficiency"),
                    "response_ms": cat.default_value("bess_response_ms"),
                }
            )


def block_count(critical_in_kw: float, max_util: float) -> int:
    """``k`` of a distributed redundant hall (k + 1 blocks, any k carry it): enough blocks that each stays
    within one UPS module at the planning limit, at least 2 (three blocks carrying the load of two)."""
    return max(2, math.ceil(critical_in_kw / (UPS_MODULE_KW * max_util) - 1e-9))


def pair_loads(loads: list[float], blocks: int) -> list[tuple[int, int]]:
    """Two different blocks for each load (its A and B sides), spread evenly over every pair of blocks so
    each block carries about the same and shares about the same with each other block: each load in turn
    onto the pair that shares the least so far, then whose blocks carry the least. With equal loads this
    cycles through the pairs, and a block carries about 1/(k+1) of the hall, 1/k with any other lost."""
    normal = [0.0] * blocks
    shared: dict[tuple[int, int], float] = {}
    pairs: list[tuple[int, int]] = []
    candidates = [(p, q) for p in range(blocks) for q in range(p + 1, blocks)]
    for load in loads:
        half = load / 2
        p, q = min(
            candidates,
            key=lambda pq: (
                round(shared.get(pq, 0.0) + half, 6),
                round(normal[pq[0]] + normal[pq[1]], 6),
                pq,
            ),
        )
        normal[p] += half
        normal[q] += half
        shared[(p, q)] = shared.get((p, q), 0.0) + half
        pairs.append((p, q))
    return pairs


def block_worst_kw(loads: list[float], pairs: list[tuple[int, int]], blocks: int) -> list[float]:
    """What each block carries in the worst single block failure: its halves of its loads, plus the
    other half of every load it shares with the failed block (the load's other side is gone)."""
    normal = [0.0] * blocks
    shared = [[0.0] * blocks for _ in range(blocks)]
    for load, (p, q) in zip(loads, pairs, strict=True):
        normal[p] += load / 2
        normal[q] += load / 2
        shared[p][q] += load / 2
        shared[q][p] += load / 2
    return [normal[p] + max(shared[p]) for p in range(blocks)]


def _hall_power_blocks(
    b: Builder, bname: str, hall: Row, rows: list[HallRow], heat: cooling.HallHeat, subs: dict[str, str]
) -> tuple[float, list[cooling.UnitPlan]]:
    """N+1 distributed redundant ("k + 1 blocks make k"; Schneider Electric WP 75): the hall has k + 1
    blocks, each a transformer (fed from both substations), switchgear with its generators and one UPS.
    Every rack has an A and a B feed from two different blocks (through its row's PDU of each block), the
    pairs spread evenly over the blocks; the mechanical PDUs A and B stand on two different blocks too.
    Each block and PDU is rated for its share plus what it picks up when any one other block fails.
    Returns (what the hall's transformers draw from one substation carrying all of it, the hall's
    cooling units)."""
    hname = hall["name"]
    prefix = f"{bname}-{hname}"
    arch = b.architecture
    eff_pdu, eff_ups, eff_row = _eff("pdu"), _eff(arch.module_kind), _eff(arch.row_kind)
    eff_swgr = _eff("switchgear")
    eff_tx = _eff("transformer") if arch.transformer else 1.0
    mpdus = {s: f"{prefix}-MPDU-{s}" for s in SIDES}
    units = cooling.hall_units(b, prefix, bname, hall, heat, (mpdus["A"], mpdus["B"]))
    mech_kw = sum(cooling.unit_electrical_kw(u) for u in units)
    mpdu_kw = ceil_to(mech_kw / eff_pdu / b.max_util, 10.0)

    # The hall's network and allowance (``heat.beside_kw``) are carried beside the racks by the PDUs
    # feeding them, shared out by the racks' IT (``power_graph``): each rack's share on its pair of blocks.
    servers_kw = sum(rack.kw for _, members in rows for _, rack in members)

    def fed_kw(spec: Row, kw: float) -> float:
        return kw + heat.beside_kw * kw / servers_kw if servers_kw > 0 else kw

    racks = [
        (r, spec, fed_kw(spec, rack.kw), rack.kw)
        for r, (_, members) in enumerate(rows)
        for spec, rack in members
    ]
    # What each load draws at the UPS output: the mechanical PDUs first, then every rack.
    loads = ([mech_kw / eff_pdu] if units else []) + [kw / eff_row for _, _, kw, _ in racks]
    k = block_count(sum(loads) / eff_ups, b.max_util)
    blocks = k + 1
    pairs = pair_loads(loads, blocks)
    worst = block_worst_kw(loads, pairs, blocks)
    ups_names = []
    for n in range(blocks):
        ups_kw = ceil_to(worst[n] / eff_ups / b.max_util, 100.0)
        swgr_in = worst[n] / eff_ups / eff_swgr
        swgr_kw = ceil_to(swgr_in / b.max_util, 500.0)
        tx_kw = ceil_to(swgr_in / eff_tx / b.max_util, 500.0)
        swgr = b.device(f"{prefix}-SWGR-{n + 1}", "switchgear", bname, swgr_kw, hname)
        if arch.transformer:
            tx = b.device(f"{prefix}-TX-{n + 1}", "transformer", bname, tx_kw, hname)
            for s in SIDES:
                b.feed(subs[s], tx, tx_kw, s)
            b.feed(tx, swgr, swgr_kw)
        else:  # dc-800: the block's MV switchgear on both substations
            for s in SIDES:
                b.feed(subs[s], swgr, swgr_kw, s)
        for g in range(math.ceil(swgr_in / GENERATOR_KW) + 1):  # N+1 per block, as per side in 2N
            gen = _generator(b, f"{prefix}-GEN-{n + 1}-{g + 1:02d}", bname, hname)
            b.feed(gen, swgr, GENERATOR_KW)
        ups = b.device(
            f"{prefix}-{_MODULE_NAME[arch.module_kind]}-{n + 1}",
            arch.module_kind,
            bname,
            ups_kw,
            hname,
            battery_minutes=cat.default_value("ups_battery_minutes"),
        )
        b.feed(swgr, ups, ups_kw)
        ups_names.append(ups)
    offset = 0
    if units:
        for s, block in zip(SIDES, pairs[0], strict=True):
            b.device(mpdus[s], "pdu", bname, mpdu_kw, hname)
            b.feed(ups_names[block], mpdus[s], mpdu_kw, s)
        offset = 1
    # Per row, one PDU on each block its racks use, rated for its worst single block failure.
    for r, (row_spec, _) in enumerate(rows):
        mine = [(i, spec) for i, (row, spec, _, _) in enumerate(racks) if row == r]
        row_loads = [loads[offset + i] for i, _ in mine]
        row_pairs = [pairs[offset + i] for i, _ in mine]
        row_worst = block_worst_kw(row_loads, row_pairs, blocks)
        used = sorted({n for pq in row_pairs for n in pq})
        pdu_of = {}
        for n in used:
            pdu_kw = ceil_to(row_worst[n] / b.max_util, 50.0)
            pdu_of[n] = b.device(
                f"{prefix}-{row_spec['name']}-{_ROW_NAME[arch.row_kind]}-{n + 1}",
                arch.row_kind,
                bname,
                pdu_kw,
                hname,
            )
            b.feed(ups_names[n], pdu_of[n], pdu_kw)
        for (i, spec), (p, q) in zip(mine, row_pairs, strict=True):
            spec["feed_a"], spec["feed_b"] = pdu_of[p], pdu_of[q]
            spec["feed_rating_kw"] = ceil_to(racks[i][3] / b.max_util, 5.0)
    # One substation carries the whole hall when the other is lost.
    return sum(loads) / eff_ups / eff_swgr / eff_tx, units


def _ups_module(
    b, arch, prefix: str, side: str, index: int, building: str, hall: str, swgr: str, rated: float
) -> str:
    """UPS module ``index`` (0-based) of ``side``, fed from ``swgr`` at its rating; its name."""
    ups = b.device(
        f"{prefix}-{_MODULE_NAME[arch.module_kind]}-{side}{index + 1:02d}",
        arch.module_kind,
        building,
        rated,
        hall,
        battery_minutes=cat.default_value("ups_battery_minutes"),
    )
    b.feed(swgr, ups, rated, side)
    return ups
