"""An independent check of a placement option: the racks added to the snapshot by hand, then every failover
scenario rolled up with the power solver and the heat balanced with the cooling model (no placement code)."""

from __future__ import annotations

import dataclasses

from campus.analysis.cooling import cooling_balance, cooling_pools
from campus.analysis.power import rollup
from campus.analysis.snapshot import CampusSnapshot, LinkSnap, PowerFeedSnap, RackSnap

TOL = 1e-6


def _whips_of_a_neighbour(
    snap: CampusSnapshot, hall_id: int, mine: list[tuple[int, str]]
) -> list[tuple[int, str]]:
    """The other A/B feeds (device, side) of a rack of the hall fed from both of ``mine``."""
    if len(mine) < 2:
        return []
    in_hall = {r.id for r in snap.racks if r.hall_id == hall_id}
    by_rack: dict[int, set[tuple[int, str]]] = {}
    for f in snap.power_feeds:
        if f.rack_id in in_hall and f.side in ("A", "B"):
            by_rack.setdefault(f.rack_id, set()).add((f.upstream_id, f.side))
    for rid in sorted(by_rack):
        if set(mine) <= by_rack[rid]:
            return sorted(by_rack[rid] - set(mine), key=lambda us: (us[1], us[0]))
    return []


def with_option(snap: CampusSnapshot, option: dict, node_model: str) -> CampusSnapshot:
    """``snap`` with the option's racks, their A/B feeds and their cooling units added, and their cables: the
    racks' node cables and the uplinks the option adds (as a branch writes them), whose transceivers the
    network's power and heat count."""
    dev = {d.name: d.id for d in snap.power_devices}
    units = {u.name: u.id for u in snap.cooling_units}
    pods = {p.name: p.id for p in snap.pods}
    hall = next(h for h in snap.halls if h.name == option["hall"] and h.id == option["hall_id"])
    rack_id = max((r.id for r in snap.racks), default=0)
    feed_id = max((f.id for f in snap.power_feeds), default=0)
    racks, feeds = list(snap.racks), list(snap.power_feeds)
    switches = {sw.name: sw.id for sw in snap.switches}
    links = list(snap.links)
    link_id = max((lk.id for lk in links), default=0)
    for up in option.get("uplinks", ()):
        a, b = switches[up["switch"]], switches[up["to"]]
        k = min(
            (i for i, lk in enumerate(links) if (lk.a_switch_id, lk.b_switch_id) == (a, b)),
            key=lambda i: links[i].id,
        )
        links[k] = dataclasses.replace(links[k], count=links[k].count + up["count"])
    for spec in option["racks"]:
        rack_id += 1
        racks.append(
            RackSnap(
                id=rack_id,
                name=f"new-{rack_id}",
                hall_id=hall.id,
                building_id=hall.building_id,
                x_m=spec["x_m"],
                y_m=spec["y_m"],
                cooling_type=spec["cooling_type"],
                design_kw=spec["design_kw"],
                cooling_unit_id=units[spec["cooling_unit"]],
                pod_id=pods.get(spec["pod"]),
                status="active",
                nodes=((node_model, spec["nodes"]),),
            )
        )
        for link in spec.get("links", ()):
            link_id += 1
            links.append(
                LinkSnap(
                    link_id,
                    pods.get(spec["pod"]),
                    "backend",
                    link["medium"],
                    link["count"],
                    link["length_m"],
                    link["speed_gbps"],
                    rack_id,
                    None,
                    switches[link["switch"]],
                )
            )
        mine = [(dev[spec[f"feed_{s.lower()}"]], s) for s in "AB" if spec[f"feed_{s.lower()}"] is not None]
        # as a branch writes them: a rack beside one with two whips a side (2(N+1)) takes its other whips,
        # the rack's rating a side shared by the whips
        more = _whips_of_a_neighbour(snap, hall.id, mine)
        for up, side in mine + more:
            feed_id += 1
            feeds.append(
                PowerFeedSnap(feed_id, up, None, rack_id, side, spec["feed_rating_kw"] / (2 if more else 1))
            )
    return dataclasses.replace(snap, racks=tuple(racks), power_feeds=tuple(feeds), links=tuple(links))


def scenarios(snap: CampusSnapshot) -> list[tuple[str, dict]]:
    """Healthy; each live non-generator device alone; each utility feed alone; each whole side."""
    out = [("healthy", {})]
    out += [
        (f"device {d.name}", {"failed": frozenset({d.id})})
        for d in snap.power_devices
        if d.kind != "generator" and d.status not in ("failed", "offline")
    ]
    out += [(f"utility {u.name}", {"failed_feeds": frozenset({u.id})}) for u in snap.utility_feeds]
    for side in "AB":
        out.append(
            (
                f"side {side}",
                {"failed_power_feeds": frozenset(f.id for f in snap.power_feeds if f.side == side)},
            )
        )
    return out


def overloads(snap: CampusSnapshot) -> set[tuple[str, str]]:
    """(scenario, element) of every device above its planning limit or utility feed above its capacity, and
    every element that trips (a trip takes its load off the roll-up, so it counts as an overload)."""
    out = set()
    for label, kw in scenarios(snap):
        r = rollup(snap, **kw)
        out |= {(label, f"trip {kind} {ident}") for kind, ident, _ in r.tripped}
        for d in snap.power_devices:
            load = r.device_load_kw.get(d.id, 0.0)
            if d.rated_kw > 0 and load > d.rated_kw * d.max_utilization * (1 + TOL) + TOL:
                out.add((label, d.name))
        for u in snap.utility_feeds:
            if u.capacity_kw > 0 and r.utility_load_kw.get(u.id, 0.0) > u.capacity_kw * (1 + TOL) + TOL:
                out.add((label, u.name))
    return out


def cooling_shortfalls(snap: CampusSnapshot) -> set[str]:
    """Units over capacity and groups and hall air pools short of their declared redundancy (N+1 undeclared),
    at design load."""
    bal = cooling_balance(snap)
    out = {f"unit {u.name}" for u in bal.units if u.heat_kw > u.capacity_kw * (1 + TOL) + TOL}
    out |= {f"group {g.group}" for g in bal.groups if g.heat_kw > g.usable_capacity_kw * (1 + TOL) + TOL}
    # a hall's air units back each other up as one pool too (the failure analysis's pools)
    heat = {u.id: u.heat_kw for u in bal.units}
    for pool in cooling_pools(snap, hall_air=True):
        if len(pool.unit_ids) > 1 and sum(heat[i] for i in pool.unit_ids) > pool.usable_kw * (1 + TOL) + TOL:
            out.add(f"pool {pool.name}")
    out |= {f"plant {p.name}" for p in bal.plants if p.heat_kw > p.capacity_kw * (1 + TOL) + TOL}
    return out
