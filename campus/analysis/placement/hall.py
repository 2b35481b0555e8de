"""Capacity placement in one hall: the checks in order, the feed pairs, the options."""

from __future__ import annotations

import math
from dataclasses import dataclass

from campus.analysis.cooling import AIR_COOLING_LIMIT_KW
from campus.analysis.fabric import medium_for_length
from campus.analysis.headroom.bounds import GRID_BINDING_NAME
from campus.analysis.headroom.results import HEALTHY
from campus.analysis.heat import AIR_UNIT_KINDS, COLD_PLATE
from campus.analysis.placement.cooling_fit import _cooling, _mechanical_loads
from campus.analysis.placement.fabric_fit import _fabric, _link_length, new_uplinks, uplinks
from campus.analysis.placement.positions import UNIT_FOOTPRINT_M, free_positions
from campus.analysis.placement.power_fit import PowerCheck, _Load, power_check, side_bound
from campus.analysis.placement.request import (
    DEFAULT_RACK_SIZE_M,
    FEED_RATING_STEP_KW,
    MAX_FREE_POSITIONS,
    TOL,
    _building_name,
    _Fail,
    _HallInput,
)
from campus.analysis.power import PowerGraph, baseline_state, power_graph


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
        if a and b:
            # a rack with several feeds a side (the whips of a 2(N+1) design) counts by its first of each
            # side by name, as the spec writes them inline; a rack placed on the pair takes the same whips
            # (``placement_branch.whips_beside``; the fit counts them: ``_whips``)
            pair = (min(a, key=lambda d: g.devices[d].name), min(b, key=lambda d: g.devices[d].name))
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


def _whips(g: PowerGraph, hall_racks: list) -> dict[tuple[int, int], list[tuple[str, int]]]:
    """(side, device) of the other feeds of the hall's racks with several a side (a 2(N+1) design's second
    whips), by the rack's first A and B device (``_feed_pairs``): a rack placed on the pair takes them too."""
    out: dict[tuple[int, int], list[tuple[str, int]]] = {}
    for r in hall_racks:
        info = g.rack_feed_info.get(r.id, ())
        by_side = {
            s: sorted({up for _, side, up in info if side == s}, key=lambda d: g.devices[d].name)
            for s in "AB"
        }
        if by_side["A"] and by_side["B"] and len(by_side["A"]) + len(by_side["B"]) > 2:
            pair = (by_side["A"][0], by_side["B"][0])
            out.setdefault(pair, [(s, d) for s in "AB" for d in by_side[s][1:]])
    return out


def _empty_hall_pairs(g: PowerGraph, hall_id: int, single: bool = False) -> list[tuple[int, int | None]]:
    """A hall with no rack yet (a new hall of a proposal): its last devices (those feeding no device) paired
    by name, each with the first after it on a distinct upstream path (neither upstream of the other, fed
    from other devices); ``single``: each on its own."""
    live = baseline_state(g).live
    last = sorted(
        (
            d
            for d in g.devices.values()
            if d.hall_id == hall_id
            and d.id not in g.generators
            and live.get(d.id, False)
            and not any(g.feeds[f].downstream_device_id is not None for f in g.down_feeds[d.id])
        ),
        key=lambda d: (d.name, d.id),
    )
    if single:
        return [(d.id, None) for d in last]
    ups = {d.id: {g.feeds[f].upstream_id for f in g.up_feeds[d.id]} for d in last}
    out: list[tuple[int, int | None]] = []
    taken: set[int] = set()
    for i, a in enumerate(last):
        if a.id in taken:
            continue
        for b in last[i + 1 :]:
            if b.id in taken or ups[a.id] & ups[b.id]:
                continue
            if a.id in g.ancestors([b.id]) or b.id in g.ancestors([a.id]):
                continue
            out.append((a.id, b.id))
            taken |= {a.id, b.id}
            break
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
    # the transceivers of the racks' cables, node cables and the uplinks the spine-port check counts: on
    # the power beside the racks and on the hall's air units
    ups = _uplinks(inp, fabric)
    optics_kw = inp.racks * inp.optics_kw_per_rack + sum(u["count"] for u in ups) * inp.cable_kw
    # ---- cooling
    cool, cfail = _cooling(inp, hall, ctype, main_units, units, optics_kw)
    if cfail is not None:
        return [], cfail
    # ---- power
    pairs = _feed_pairs(g, hall_racks, single=snap.power_redundancy == "N")
    whips = _whips(g, hall_racks)
    if not hall_racks:
        pairs = _empty_hall_pairs(g, hall.id, single=snap.power_redundancy == "N")
    if not pairs:
        return [], _Fail("power", hall.name, "hall", hall.name, "no A/B feed pair feeds racks of this hall")
    # The new racks' feeds carry their own IT; the allowance their servers bring (``inp.per_server``, kW per
    # server kW) is beside the racks on the hall's load, counted here on the devices that feed them.
    # The hall's network beside its racks is shared over its racks by their IT: the new racks take their
    # share of it (the network there and their own cables' transceivers, over the hall's racks' IT with
    # them) onto the devices that feed them. Counted on every element above too, where it only moves
    # between the hall's feeds: an upper bound there.
    net_kw, hall_racks_kw = inp.network.get(hall.id, (0.0, 0.0))
    it_after = hall_racks_kw + inp.racks * inp.rack_kw
    net_share = (net_kw + optics_kw) / it_after if it_after > 0 else 0.0
    fed_kw = inp.rack_kw * (1.0 + inp.per_server + net_share)
    mech = _mechanical_loads(g, cool)

    def loads_for(assign: list[tuple[int, int | None]]) -> list[_Load]:
        """The new racks' load on each (A, B) pair (a rack's load splits over its pair's live sides alone,
        so the racks of one pair add up to one load), and the cooling's."""
        count: dict[tuple[int, int | None], int] = {}
        for pair in assign:
            count[pair] = count.get(pair, 0) + 1
        return [
            _Load(
                fed_kw * n,
                [("A", a, None)]
                if b is None
                else [("A", a, None), ("B", b, None)] + [(s, d, None) for s, d in whips.get((a, b), ())],
            )
            for (a, b), n in count.items()
        ] + mech

    def loads_of(a: int, b: int | None) -> list[_Load]:
        return loads_for([(a, b)] * inp.racks)

    it_added = inp.racks * inp.rack_kw

    def run(a: int, b: int | None) -> tuple[dict | None, _Fail | None]:
        return run_assign([(a, b)] * inp.racks)

    def run_spread(_a: int, _b: int | None) -> tuple[dict | None, _Fail | None]:
        """Every rack on the first pair (best bound first) that still takes it: the spare of several rows'
        feeds (each row's share of the planning margin) pooled for one request. Tried only when no single
        pair takes them all (``place``)."""
        assign: list[tuple[int, int | None]] = []

        for a, b in sorted(pairs, key=lambda p: -side_bound(snap, loads_of(*p), it_added)):
            while len(assign) < inp.racks:
                trial = [*assign, (a, b)]
                check = power_check(snap, loads_for(trial), len(trial) * inp.rack_kw)
                if check is None or check.headroom_kw < -TOL:
                    break
                assign = trial
            if len(assign) == inp.racks:
                break
        if len(assign) < inp.racks:
            return None, None
        option, _fail = run_assign(assign)
        return option, None

    def run_assign(assign: list[tuple[int, int | None]]) -> tuple[dict | None, _Fail | None]:
        check = power_check(snap, loads_for(assign), it_added)
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
            level, ident, name = check.element
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
                    short=-check.element_headroom_kw,
                )
            return None, _Fail(
                "power",
                hall.name,
                level,
                name,
                f"{name} would carry {-check.element_headroom_kw:.1f} kW beyond its planning limit "
                f"after {check.failure.name}{too_many}",
                margin=check.headroom_kw,
                element_id=ident,
                short=-check.element_headroom_kw,
            )
        ratings = []
        for a, b in assign:
            max_util = min(g.devices[d].max_utilization for d in (a, b) if d is not None) or 0.8
            ratings.append(
                math.ceil(inp.rack_kw / max_util / FEED_RATING_STEP_KW - 1e-9) * FEED_RATING_STEP_KW
            )
        here = _spots(assign, hall_racks, g, positions_for, positions)
        # every free position of the hall, not only the ones asked for: what is left after these racks
        free = free_positions(
            hall.width_m, hall.length_m, boxes, size, MAX_FREE_POSITIONS, frozenset(), obstacles
        )
        option = _option(inp, hall, here, ctype, assign, ratings, cool, fabric, check, ups)
        option["headroom_after"]["floor_positions"] = len(free) - inp.racks
        return option, None

    # The power headroom after placing is at most what the pair's own devices keep with the other side
    # lost: the bound that lets ``place`` stop early.
    candidates = [
        _Candidate(side_bound(snap, loads_of(a, b), it_added), hall.name, a, b, run, hall.id)
        for a, b in pairs
    ]
    if len(pairs) > 1 and inp.racks > 1:
        a, b = pairs[0]
        candidates.append(_Candidate(-math.inf, hall.name, a, b, run_spread, hall.id, spread=True))
    return candidates, None


def _spots(assign, hall_racks, g: PowerGraph, positions_for, positions) -> list[tuple[float, float, bool]]:
    """A position for each new rack: on the row lines its own pair already feeds where there is room, else
    the hall's first free ones."""
    lines_of: dict[tuple[int, int | None], frozenset[float]] = {}
    for pair in dict.fromkeys(assign):
        a, b = pair
        lines_of[pair] = frozenset(
            round(r.y_m, 6)
            for r in hall_racks
            if {up for _, _, up in g.rack_feed_info.get(r.id, ())} == {a, b} - {None}
        )
    taken: set[tuple[float, float]] = set()
    out: list = []
    for pair in assign:
        lines = lines_of[pair]
        found = next(
            (p for p in (positions_for(lines) if lines else positions) if (p[0], p[1]) not in taken), None
        )
        if found is None:
            found = next(
                (
                    p
                    for p in positions_for(frozenset().union(*lines_of.values()))
                    if (p[0], p[1]) not in taken
                ),
                None,
            )
        if found is None:
            found = next(p for p in positions if (p[0], p[1]) not in taken)
        taken.add((found[0], found[1]))
        out.append(found)
    return out


@dataclass
class _Candidate:
    bound_kw: float
    hall: str
    a: int
    b: int | None
    run: object
    hall_id: int = 0
    spread: bool = False  # the racks over several pairs (tried only when no single pair takes them)

    def evaluate(self) -> tuple[dict | None, _Fail | None]:
        return self.run(self.a, self.b)


def _option(
    inp: _HallInput, hall, positions, ctype, assign, ratings, cool, fabric, check: PowerCheck, ups: list
) -> dict:
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
                "feed_a": g.devices[assign[k][0]].name,
                "feed_b": g.devices[assign[k][1]].name if assign[k][1] is not None else None,
                "cooling_unit": unit.name,
                "pod": pod.name if pod is not None else None,
                "cooling_type": ctype,
                "design_kw": round(inp.rack_kw, 3),
                "feed_rating_kw": ratings[k],
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
        "uplinks": ups,
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


def _uplinks(inp: _HallInput, fabric: dict | None) -> list[dict]:
    """The cables up from the leaf groups taking the new racks that the spine-port check counts
    (``fabric_fit.new_uplinks``), each like the group's first link up to that group."""
    if not fabric or not fabric["groups"]:
        return []
    snap = inp.snap
    need = {sid: ports * inp.racks for sid, ports in fabric["groups"]}
    cabled = inp.uplinks if inp.uplinks is not None else uplinks(snap)
    names = {s.id: s.name for s in snap.switches}
    out = []
    for (sid, up), count in sorted(new_uplinks(snap, cabled, need).items()):
        link = min(
            (lk for lk in snap.links if lk.a_switch_id == sid and lk.b_switch_id == up), key=lambda lk: lk.id
        )
        out.append(
            {
                "switch": names[sid],
                "to": names[up],
                "count": count,
                "medium": link.medium,
                "length_m": link.length_m,
                "speed_gbps": link.speed_gbps,
            }
        )
    return out
