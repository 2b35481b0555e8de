"""What a reference design must pass by its own analyses, checked in memory (no database).

Each check returns the problems it finds as sentences, so a failing test says what is wrong where.
"""

from __future__ import annotations

from campus.analysis.cooling import cooling_balance
from campus.analysis.energy import it_breakdown
from campus.analysis.power import rollup
from campus.analysis.redundancy import DOMAIN_OF_KIND, redundancy_check
from campus.analysis.snapshot import CampusSnapshot

TOL = 1e-6


def side_of_devices(snap: CampusSnapshot) -> dict[int, str]:
    """Each device's side: the side of the feeds into it (or out of it, for the top of the chain)."""
    into: dict[int, set[str]] = {}
    out_of: dict[int, set[str]] = {}
    for f in snap.power_feeds:
        out_of.setdefault(f.upstream_id, set()).add(f.side)
        if f.downstream_device_id is not None:
            into.setdefault(f.downstream_device_id, set()).add(f.side)
    sides = {}
    for d in snap.power_devices:
        got = into.get(d.id) or out_of.get(d.id) or set()
        if len(got) == 1:
            sides[d.id] = next(iter(got))
    return sides


def _cases(snap: CampusSnapshot) -> list[tuple[str, frozenset[int]]]:
    """Design load with everything up, and with the whole of side A or side B (generators too) lost; an
    N+1 design also with each block lost (its switchgear: the UPS behind it goes dark); an N design has
    only the first."""
    if snap.power_redundancy == "N":
        return [("normal", frozenset())]
    sides = side_of_devices(snap)
    cases = [("normal", frozenset())] + [
        (f"side {s} lost", frozenset(d for d, side in sides.items() if side == s)) for s in "AB"
    ]
    if snap.power_redundancy == "N+1":
        cases += [
            (f"block {d.name} lost", frozenset({d.id}))
            for d in snap.power_devices
            if d.kind == "switchgear" and "-SWGR-" in d.name
        ]
    return cases


def power_problems(snap: CampusSnapshot) -> list[str]:
    """At design load nothing trips and every device and feed stays within its planning limit, with
    both sides up and with either side lost (2N: one side carries everything, its utility feed too)."""
    out: list[str] = []
    devices = {d.id: d for d in snap.power_devices}
    feeds = {f.id: f for f in snap.power_feeds}
    max_util = max((d.max_utilization for d in snap.power_devices), default=0.8)
    for label, lost in _cases(snap):
        r = rollup(snap, failed=lost)
        out += [f"{label}: {kind} {ident} trips ({why})" for kind, ident, why in r.tripped]
        for d, load in r.device_load_kw.items():
            dev = devices[d]
            if load > dev.rated_kw * dev.max_utilization * (1 + TOL):
                out.append(f"{label}: {dev.name} at {load / dev.rated_kw:.3f} of {dev.rated_kw:g} kW")
        for fid, load in r.feed_load_kw.items():
            f = feeds.get(fid)
            if f is not None and load > f.rating_kw * max_util * (1 + TOL):
                out.append(f"{label}: feed from {devices[f.upstream_id].name} at {load / f.rating_kw:.3f}")
        for u in snap.utility_feeds:
            if r.utility_load_kw.get(u.id, 0.0) > u.capacity_kw * (1 + TOL):
                out.append(f"{label}: utility {u.name} over its capacity")
        out += [f"{label}: rack {rid} without power" for rid in sorted(r.racks_without_power)]
    return out


def sides_problems(snap: CampusSnapshot) -> list[str]:
    """2N: no device feeds both sides; every cooling unit and plant is fed from both (N+1: from two
    different devices of sides A and B; N: from side A alone)."""
    out: list[str] = []
    devices = {d.id: d for d in snap.power_devices}
    if snap.power_redundancy in ("", "2N"):
        feeding: dict[int, set[str]] = {}
        for f in snap.power_feeds:
            feeding.setdefault(f.upstream_id, set()).add(f.side)
        out += [f"{devices[d].name} feeds sides {sorted(s)}" for d, s in feeding.items() if len(s) > 1]
    sides = side_of_devices(snap)
    want = ["A"] if snap.power_redundancy == "N" else ["A", "B"]
    for kind, items in (("unit", snap.cooling_units), ("plant", snap.cooling_plants)):
        for x in items:
            got = sorted(str(sides.get(s)) for s in x.supply_ids)
            if got != want:
                out.append(f"{kind} {x.name} is fed from sides {got}")
    return out


def cooling_problems(snap: CampusSnapshot) -> list[str]:
    """Heat = IT (±1 %), all of it assigned; no unit or plant over capacity; every plant serves heat (N; a
    redundant set may keep a plant standing by); every group within its declared redundancy (N+1, 2N); in every building the other plants carry the heat when any one is lost."""
    out: list[str] = []
    bal = cooling_balance(snap)
    it_kw = it_breakdown(snap).it_kw
    if abs(bal.heat_load_kw - it_kw) > 0.01 * it_kw:
        out.append(f"heat {bal.heat_load_kw:.0f} kW against IT {it_kw:.0f} kW")
    if bal.unassigned_heat_kw > 1e-6 * it_kw:
        out.append(f"{bal.unassigned_heat_kw:.1f} kW of heat unassigned: {bal.unassigned_by_reason_kw}")
    out += [f"unit {u.name} at {u.utilization:.3f}" for u in bal.units if u.overloaded]
    out += [f"plant {p.name} at {p.utilization:.3f}" for p in bal.plants if p.overloaded]
    if snap.cooling_redundancy == "N":
        # no spare asked for: a plant without heat is one too many
        return out + [f"plant {p.name} serves no heat" for p in bal.plants if p.heat_kw <= 0]
    # N+1 / 2N: a plant may stand by without heat (its units are piped to one plant each), as long as the
    # building's other plants carry the heat with any one lost (below)
    out += [f"group {g.group} fails {g.redundancy}" for g in bal.groups if not g.holds]
    by_building: dict[int | None, list] = {}
    for p in bal.plants:
        by_building.setdefault(p.building_id, []).append(p)
    for plants in by_building.values():
        heat = sum(p.heat_kw for p in plants)
        for lost in plants:
            if sum(p.capacity_kw for p in plants if p is not lost) < heat * (1 - TOL):
                out.append(f"losing plant {lost.name} leaves the building short")
    return out


def design_problems(snap: CampusSnapshot) -> list[str]:
    """Every problem of the design; the single points of a domain declared N were asked for (the design
    check reports them as warnings) and are not problems."""
    declared = {"power": snap.power_redundancy, "cooling": snap.cooling_redundancy}
    findings = [
        f"single point: {f.device_name}"
        for f in redundancy_check(snap)
        if declared[DOMAIN_OF_KIND[f.device_kind]] != "N"
    ]
    return power_problems(snap) + sides_problems(snap) + cooling_problems(snap) + findings


def worst_utilisation(snap: CampusSnapshot) -> dict[str, float]:
    """Worst utilisation (load / rating) of any device, with both sides up or either lost, and of any
    cooling unit and plant at design load."""
    bal = cooling_balance(snap)
    devices = {d.id: d for d in snap.power_devices}
    worst = {"device_normal": 0.0, "device_one_side": 0.0}
    for label, lost in _cases(snap):
        r = rollup(snap, failed=lost)
        key = "device_normal" if label == "normal" else "device_one_side"
        worst[key] = max(worst[key], *(load / devices[d].rated_kw for d, load in r.device_load_kw.items()))
    worst["unit"] = max(u.utilization for u in bal.units)
    worst["plant"] = max(p.utilization for p in bal.plants)
    return worst
