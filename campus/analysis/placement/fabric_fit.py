"""Capacity placement's fabric fit: free leaf ports, cable lengths."""

from __future__ import annotations

import math

from campus.analysis.placement.request import _Fail, _HallInput
from campus.analysis.snapshot import CampusSnapshot


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
    spine_fail = None  # (ports short, upper group) of the closest pod whose leaves fit but not above them
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
            spine = _spine_short(inp, need)
            if spine is not None:
                if spine_fail is None or spine[0] < spine_fail[0]:
                    spine_fail = spine
                continue
            if best is None or short > best["free_after"]:
                best = {"pod": pid, "groups": per_rack, "free_after": short}
        elif best_short is None or short > best_short[0]:
            worst_sid = min(need, key=lambda s: free[s] - need[s])
            name = next(s.name for s in groups if s.id == worst_sid)
            others = tuple(
                (s, float(need[s] - free[s])) for s in sorted(need) if s != worst_sid and need[s] > free[s]
            )
            best_short = (short, name, worst_sid, others)
    if best is not None:
        return best, None
    if spine_fail is not None:
        short, sid = spine_fail
        name = next(s.name for s in snap.switches if s.id == sid)
        return None, _Fail(
            "spine_ports",
            hall.name,
            next(s.tier for s in snap.switches if s.id == sid),
            name,
            f"{name} is {short} port(s) short for the uplinks of the new racks' leaves",
            margin=float(-short),
            element_id=sid,
            short=float(short),
        )
    if best_short is None:
        return None, _Fail(
            "fabric_ports", hall.name, "hall", hall.name, "no back-end leaf switch in this hall"
        )
    short, name, sid, others = best_short
    return None, _Fail(
        "fabric_ports",
        hall.name,
        "leaf",
        name,
        f"{name} is {-short} port(s) short",
        margin=float(short),
        element_id=sid,
        short=float(-short),
        also=others,
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


def _spine_short(inp: _HallInput, need: dict[int, int]) -> tuple[int, int] | None:
    """(ports short, upper group) when the groups above the leaf groups taking ``need`` new node cables
    cannot take their uplinks (None: they can). A leaf group cabled up is non-blocking inside its island:
    its uplinks must reach its node cables, so node cables beyond its cabled uplinks need as many new
    uplinks, spread over its upper groups as its uplinks are; an upper group is short by what lands on it
    beyond ``count × radix`` (its free ports less the new uplinks, and any group already over, up the tree)."""
    snap = inp.snap
    switches = {s.id: s for s in snap.switches}
    nodes, ups = inp.uplinks if inp.uplinks is not None else uplinks(snap)
    demand: dict[int, float] = {}
    for (_sid, u), cables in new_uplinks(snap, (nodes, ups), need).items():
        demand[u] = demand.get(u, 0.0) + cables
    seen: set[int] = set()
    todo = sorted({u for sid in need for u in ups.get(sid, {}) if u in switches})
    worst: tuple[int, int] | None = None
    while todo:
        u = todo.pop()
        if u in seen:
            continue
        seen.add(u)
        spec = snap.switch_models.get(switches[u].model)
        if spec is not None:
            short = math.ceil(demand.get(u, 0.0) - 1e-9) - (
                switches[u].count * spec.radix - inp.used_ports.get(u, 0)
            )
            if short > 0 and (worst is None or short > worst[0]):
                worst = (short, u)
        todo.extend(x for x in ups.get(u, {}) if x in switches and x not in seen)
    return worst


def new_uplinks(snap: CampusSnapshot, cabled: tuple, need: dict[int, int]) -> dict[tuple[int, int], int]:
    """The uplinks ``need`` new node cables on each leaf group bring, per (leaf group, upper group): a
    group cabled up is non-blocking inside its island, so its node cables beyond its cabled uplinks need as
    many new ones, spread over its upper groups as its uplinks are; per upper group the total is rounded up
    once, shared over the leaf groups by largest remainder (so the cables written are the ones checked)."""
    switches = {s.id for s in snap.switches}
    nodes, ups = cabled
    exact: dict[int, list[tuple[int, float]]] = {}
    for sid, n in sorted(need.items()):
        up = {u: c for u, c in ups.get(sid, {}).items() if u in switches}
        total = sum(up.values())
        if not total:
            continue  # not cabled up: nothing above to check
        extra = max(nodes.get(sid, 0) + n - total, 0)
        for u, c in sorted(up.items()):
            exact.setdefault(u, []).append((sid, extra * c / total))
    out: dict[tuple[int, int], int] = {}
    for u, parts in exact.items():
        whole = math.ceil(sum(x for _, x in parts) - 1e-9)
        floors = {sid: math.floor(x + 1e-9) for sid, x in parts}
        left = whole - sum(floors.values())
        for sid, _x in sorted(parts, key=lambda p: (-(p[1] - floors[p[0]]), p[0]))[: max(left, 0)]:
            floors[sid] += 1
        out.update({(sid, u): k for sid, k in floors.items() if k > 0})
    return out


def uplinks(snap: CampusSnapshot) -> tuple[dict[int, int], dict[int, dict[int, int]]]:
    """(node cables per switch group, cables up from each group per upper group)."""
    nodes: dict[int, int] = {}
    ups: dict[int, dict[int, int]] = {}
    for lk in snap.links:
        if lk.a_rack_id is not None:
            nodes[lk.b_switch_id] = nodes.get(lk.b_switch_id, 0) + lk.count
        elif lk.a_switch_id is not None:
            per = ups.setdefault(lk.a_switch_id, {})
            per[lk.b_switch_id] = per.get(lk.b_switch_id, 0) + lk.count
    return nodes, ups
