"""Expansion proposals' additions: what lifts one failed placement check, and the additions written into a
snapshot (docs/placement.md, "Expansion proposals").

An addition is a plain dict: ``kind`` (leaf, spine, core, optic; cdu, crah, … or a plant kind; a power
device kind, ``utility_feed``, ``grid``; ``row``), ``model`` (a switch or cable model, a unit kind, a module
of ``capacity_kw``), ``count``, where (``building``, ``hall``, ``row``), the element it grows (``target``;
``to`` for the cables up from a switch group), the new units' ``names``, ``reason`` (the placement check it
lifts: ``fabric_ports``, ``cooling``, ``power``, ``grid``, ``space``) and ``category`` (network, cooling, power,
grid, building). Prices and lead times are added by ``proposal``.

How each check is lifted, sized from the shortfall the check reports (``_Fail.short``); the proposal's loop
runs the check again and adds more while the same element is short:

* **fabric ports**: leaves in the short leaf group, each taking node cables on ``radix // 2`` ports when the
  group is cabled up (the other half its uplinks), else on all; their uplinks as the group's (cables of the
  same class to the same upper groups, the same number per switch), and switches in an upper group whose free
  ports do not take them (each with the ports its group's switches keep for their own uplinks taken off),
  up to the top tier;
* **cooling**: units like the largest of the short pool (or the short unit), in its hall, group, plant and
  supplies, one unit's capacity per unit short (two under 2N, whose larger half is out); a short plant or
  plant loop grows by plant modules (``catalog_data.EXPANSION_MODULE_KW["plant"]``, the loop's smallest plant);
* **power**: the short device grows by modules of its kind (``EXPANSION_MODULE_KW``), each lifting its
  planning limit by ``module × max_utilization``; a short utility feed and the grid connection by steps of
  ``EXPANSION_MODULE_KW["utility_feed"]``.

* **spine ports**: switches in the short upper group, with their cables up (``_lift_spines``).

Floor space is lifted by new space (``expansion``, from ``proposal``); rack density is not lifted.
"""

from __future__ import annotations

import math
from dataclasses import replace

from campus import catalog_data as cat
from campus.analysis.cooling import cooling_pools, plant_loop_name
from campus.analysis.heat import plant_loops
from campus.analysis.placement.expansion import apply_space
from campus.analysis.placement.positions import UNIT_FOOTPRINT_M
from campus.analysis.placement.request import DEFAULT_RACK_SIZE_M, _building_name, _Fail
from campus.analysis.snapshot import CampusSnapshot, CoolingUnitSnap

SWITCH_TIERS = ("leaf", "spine", "core")


def module_kw(kind: str) -> float:
    row = cat.EXPANSION_MODULE_KW.get(kind) or cat.EXPANSION_MODULE_KW["other"]
    return float(row["kw"])


def _where(snap: CampusSnapshot, building_id: int | None, hall_id: int | None) -> dict:
    hall = next((h for h in snap.halls if h.id == hall_id), None) if hall_id is not None else None
    if hall is not None:
        building_id = hall.building_id
    return {
        "building": _building_name(snap, building_id),
        "building_id": building_id,
        "hall": hall.name if hall is not None else None,
        "hall_id": hall_id,
        "row": None,
    }


def _addition(kind: str, model: str, count: int, reason: str, category: str, where: dict, **kw) -> dict:
    return {
        "kind": kind,
        "model": model,
        "count": int(count),
        "capacity_kw": kw.pop("capacity_kw", None),
        **where,
        "target": kw.pop("target", None),
        "to": kw.pop("to", None),
        "names": kw.pop("names", []),
        "reason": reason,
        "category": category,
        **({"positions": kw.pop("positions")} if "positions" in kw else {}),
    }


# ---------------------------------------------------------------- fabric


def _raw_used(snap: CampusSnapshot) -> dict[int, int]:
    used: dict[int, int] = {}
    for link in snap.links:
        used[link.b_switch_id] = used.get(link.b_switch_id, 0) + link.count
        if link.a_switch_id is not None:
            used[link.a_switch_id] = used.get(link.a_switch_id, 0) + link.count
    return used


def _switch_where(snap: CampusSnapshot, sw) -> dict:
    hall_id = sw.hall_id
    if hall_id is None and sw.rack_id is not None:
        hall_id = next((r.hall_id for r in snap.racks if r.id == sw.rack_id), None)
    pod = next((p for p in snap.pods if p.id == sw.pod_id), None)
    return _where(snap, pod.building_id if pod is not None else None, hall_id)


def _grow_up(snap: CampusSnapshot, group, added: int, used: dict[int, int], out: list[dict]) -> None:
    """The cables up from ``added`` new switches of ``group`` and the upper switches they need."""
    switches = {s.id: s for s in snap.switches}
    up: dict[int, tuple[int, str]] = {}
    for link in snap.links:
        if link.a_switch_id == group.id:
            cnt, medium = up.get(link.b_switch_id, (0, link.medium))
            up[link.b_switch_id] = (cnt + link.count, medium)
    for upper_id in sorted(up):
        count, medium = up[upper_id]
        upper = switches[upper_id]
        cables = math.ceil(added * count / max(group.count, 1) - 1e-9)
        if cables <= 0:
            continue
        out.append(
            _addition(
                "optic",
                medium,
                cables,
                "fabric_ports" if group.tier == "leaf" else "spine_ports",
                "network",
                _switch_where(snap, group),
                target=group.name,
                to=upper.name,
            )
        )
        spec = snap.switch_models.get(upper.model)
        if spec is None:
            continue
        free = upper.count * spec.radix - used.get(upper.id, 0)
        if cables <= free:
            used[upper.id] = used.get(upper.id, 0) + cables
            continue
        own_up = sum(lk.count for lk in snap.links if lk.a_switch_id == upper.id)
        keep_up = math.ceil(own_up / max(upper.count, 1) - 1e-9) if own_up else 0
        down = max(spec.radix - keep_up, 1)
        more = math.ceil((cables - free) / down - 1e-9)
        used[upper.id] = used.get(upper.id, 0) + cables
        out.append(
            _addition(
                upper.tier if upper.tier in SWITCH_TIERS else "spine",
                upper.model,
                more,
                "spine_ports",
                "network",
                _switch_where(snap, upper),
                target=upper.name,
            )
        )
        used[upper.id] -= more * down  # the new switches' ports for the groups below
        _grow_up(snap, upper, more, used, out)


def _lift_fabric(snap: CampusSnapshot, fail: _Fail) -> list[dict] | None:
    """Leaves for the short group and for every other group of its pod short for the same request
    (``_Fail.also``: the other rails), with what they need above them."""
    switches = {s.id: s for s in snap.switches}
    used = _raw_used(snap)
    out: list[dict] = []
    for sid, short in ((fail.element_id, fail.short), *fail.also):
        sw = switches.get(sid)
        spec = snap.switch_models.get(sw.model) if sw is not None else None
        if sw is None or spec is None or short <= 0:
            continue
        cabled_up = any(
            lk.a_switch_id == sw.id and switches[lk.b_switch_id].pod_id is not None
            for lk in snap.links
            if lk.b_switch_id in switches
        )
        per = spec.radix // 2 if cabled_up else spec.radix
        n = math.ceil(short / max(per, 1) - 1e-9)
        where = _switch_where(snap, sw)
        out.append(_addition(sw.tier, sw.model, n, "fabric_ports", "network", where, target=sw.name))
        _grow_up(snap, sw, n, used, out)
    return out or None


# ---------------------------------------------------------------- cooling


def _unit_names(snap: CampusSnapshot, base: str, n: int) -> list[str]:
    taken = {u.name for u in snap.cooling_units}
    names = []
    k = 1
    while len(names) < n:
        name = f"{base}-X{k:02d}"
        if name not in taken:
            names.append(name)
            taken.add(name)
        k += 1
    return names


def unit_spots(snap: CampusSnapshot, src: CoolingUnitSnap, n: int) -> list[tuple[float, float] | None]:
    """Floor positions (corners) for ``n`` units like ``src`` in its hall: on the template's line at its
    units' pitch (one unit footprint, ``UNIT_FOOTPRINT_M``, when it stands alone), then on lines a pitch
    behind and ahead of it, inside the hall, off every unit's and rack's footprint (None: the template has no
    position, or no room is left)."""
    hall = next((h for h in snap.halls if h.id == src.hall_id), None)
    if hall is None or src.x_m is None or src.y_m is None:
        return [None] * n
    fw, fd = UNIT_FOOTPRINT_M
    here = [(u.x_m, u.y_m) for u in snap.cooling_units if u.hall_id == hall.id and u.x_m is not None]
    taken = [(x, y, fw, fd) for x, y in here if y is not None]
    taken += [(r.x_m, r.y_m, *DEFAULT_RACK_SIZE_M) for r in snap.racks if r.hall_id == hall.id]
    xs = sorted({x for x, y in here if y is not None and abs(y - src.y_m) < 1e-6})
    gaps = [b - a for a, b in zip(xs, xs[1:], strict=False) if b - a > 1e-6]
    pitch = max(min(gaps), fw) if gaps else fw

    def free(x: float, y: float) -> bool:
        return not any(
            x < tx + tw - 1e-6 and tx < x + fw - 1e-6 and y < ty + td - 1e-6 and ty < y + fd - 1e-6
            for tx, ty, tw, td in taken
        )

    start = src.x_m - pitch * math.floor(src.x_m / pitch + 1e-9)
    lines = [src.y_m]
    for k in range(1, math.ceil(hall.length_m / pitch) + 1):
        lines += [src.y_m + k * pitch, src.y_m - k * pitch]
    out: list[tuple[float, float] | None] = []
    for y in (y for y in lines if 0.0 <= y <= hall.length_m - fd + 1e-6):
        x = start
        while x <= hall.width_m - fw + 1e-6 and len(out) < n:
            if free(x, y):
                out.append((round(x, 3), round(y, 3)))
                taken.append((x, y, fw, fd))
            x += pitch
        if len(out) == n:
            break
    return out + [None] * (n - len(out))


def _lift_cooling(snap: CampusSnapshot, fail: _Fail) -> list[dict] | None:
    if fail.element_id is None or fail.short <= 0:
        return None
    if fail.level in ("cooling plant", "plant loop"):
        plant = next((p for p in snap.cooling_plants if p.id == fail.element_id), None)
        if plant is None:
            return None
        size = module_kw("plant")
        n = math.ceil(fail.short / size - 1e-9)
        return [
            _addition(
                plant.kind,
                f"{size:g} kW plant module",
                n,
                "cooling",
                "cooling",
                _where(snap, plant.building_id, None),
                capacity_kw=size,
                target=plant.name,
            )
        ]
    unit = next((u for u in snap.cooling_units if u.id == fail.element_id), None)
    if unit is None or unit.capacity_kw <= 0:
        return None
    per = unit.capacity_kw / (2.0 if snap.cooling_redundancy == "2N" else 1.0)
    n = math.ceil(fail.short / per - 1e-9)
    if snap.cooling_redundancy == "2N" and n % 2:
        n += 1  # a 2N group grows by pairs (one on each half)
    return [
        _addition(
            unit.kind,
            unit.kind,
            n,
            "cooling",
            "cooling",
            _where(snap, None, unit.hall_id),
            capacity_kw=unit.capacity_kw,
            target=unit.name,
            names=_unit_names(snap, unit.name, n),
            positions=unit_spots(snap, unit, n),
        )
    ]


# ---------------------------------------------------------------- power and grid


def _lift_power(snap: CampusSnapshot, fail: _Fail) -> list[dict] | None:
    if fail.short <= 0:
        return None
    if fail.constraint == "grid":
        size = module_kw("utility_feed")
        n = math.ceil(fail.short / size - 1e-9)
        return [
            _addition(
                "grid",
                "grid connection",
                n,
                "grid",
                "grid",
                _where(snap, None, None),
                capacity_kw=size,
                target=fail.element,
            )
        ]
    if fail.level == "utility":
        feed = next((u for u in snap.utility_feeds if u.id == fail.element_id), None)
        if feed is None:
            return None
        size = module_kw("utility_feed")
        n = math.ceil(fail.short / size - 1e-9)
        return [
            _addition(
                "utility_feed",
                "utility feed capacity",
                n,
                "power",
                "power",
                _where(snap, None, None),
                capacity_kw=size,
                target=feed.name,
            )
        ]
    dev = next((d for d in snap.power_devices if d.id == fail.element_id), None)
    if dev is None or dev.max_utilization <= 0:
        return None
    size = module_kw(dev.kind)
    n = math.ceil(fail.short / (size * dev.max_utilization) - 1e-9)
    return [
        _addition(
            dev.kind,
            f"{size:g} kW {dev.kind} module",
            n,
            "power",
            "power",
            _where(snap, dev.building_id, dev.hall_id),
            capacity_kw=size,
            target=dev.name,
        )
    ]


def fail_of_short(snap: CampusSnapshot, entry: dict) -> _Fail | None:
    """An element short at design (``cooling_fit.short_at_design``'s entry) as the failure that lifts it
    (None: an element it cannot find)."""
    level, name, building_id = entry["level"], entry["element"], entry["building_id"]
    ident = None
    if entry["constraint"] == "power" and level == "utility":
        ident = next((u.id for u in snap.utility_feeds if u.name == name), None)
    elif entry["constraint"] == "power":
        ident = next(
            (d.id for d in snap.power_devices if d.name == name and building_id in (None, d.building_id)),
            None,
        )
    elif level == "cooling unit":
        ident = next(
            (u.id for u in snap.cooling_units if u.name == name and u.hall_id == entry["hall_id"]), None
        )
    elif level == "cooling plant":
        ident = next((p.id for p in snap.cooling_plants if p.name == name), None)
    elif level in ("cooling group", "hall air units"):
        pool = next((p for p in cooling_pools(snap, hall_air=True) if p.name == name), None)
        if pool is not None:
            units = [u for u in snap.cooling_units if u.id in set(pool.unit_ids)]
            ident = max(units, key=lambda u: (u.capacity_kw, -u.id)).id if units else None
    elif level == "plant loop":
        loop_of = plant_loops(snap)
        for loop in sorted(set(loop_of.values())):
            members = [p for p in snap.cooling_plants if loop_of[p.id] == loop]
            if plant_loop_name(_building_name(snap, members[0].building_id) or "", members) == name:
                ident = min(members, key=lambda p: (p.capacity_kw, p.id)).id
                break
    if ident is None and entry["constraint"] != "grid":
        return None
    return _Fail(
        entry["constraint"],
        entry["hall"],
        level,
        name,
        entry["detail"],
        element_id=ident,
        short=entry["shortfall_kw"],
    )


def _lift_spines(snap: CampusSnapshot, fail: _Fail) -> list[dict] | None:
    """Switches in the upper group whose ports are short (each with the ports its group's switches keep
    for their own uplinks taken off), with the cables up from them and what they need above."""
    sw = next((s for s in snap.switches if s.id == fail.element_id), None)
    spec = snap.switch_models.get(sw.model) if sw is not None else None
    if sw is None or spec is None or fail.short <= 0:
        return None
    own_up = sum(lk.count for lk in snap.links if lk.a_switch_id == sw.id)
    keep_up = math.ceil(own_up / max(sw.count, 1) - 1e-9) if own_up else 0
    down = spec.radix - keep_up
    if down <= 0:
        return None
    n = math.ceil(fail.short / down - 1e-9)
    tier = sw.tier if sw.tier in SWITCH_TIERS else "spine"
    out = [_addition(tier, sw.model, n, "spine_ports", "network", _switch_where(snap, sw), target=sw.name)]
    used = _raw_used(snap)
    used[sw.id] = used.get(sw.id, 0) - n * down
    _grow_up(snap, sw, n, used, out)
    return out


def lift(snap: CampusSnapshot, fail: _Fail) -> list[dict] | None:
    """The additions that lift ``fail`` (None: nothing the proposal adds lifts it)."""
    if fail.constraint == "fabric_ports":
        return _lift_fabric(snap, fail)
    if fail.constraint == "spine_ports":
        return _lift_spines(snap, fail)
    if fail.constraint == "cooling":
        return _lift_cooling(snap, fail)
    if fail.constraint in ("power", "grid"):
        return _lift_power(snap, fail)
    return None


# ---------------------------------------------------------------- additions written into a snapshot


def apply_additions(snap: CampusSnapshot, additions: list[dict]) -> CampusSnapshot:
    """``snap`` with ``additions`` built in order: new space (lines with a ``clone``: ``expansion.apply_space``)
    and what grows what stands (``_apply_growth``)."""
    batch: list[dict] = []
    for add in additions:
        if add.get("clone"):
            snap = apply_space(_apply_growth(snap, batch), add)
            batch = []
        else:
            batch.append(add)
    return _apply_growth(snap, batch)


def _apply_growth(snap: CampusSnapshot, additions: list[dict]) -> CampusSnapshot:
    """``snap`` with ``additions`` built (by the names they carry): switches added to their group, cables to
    the first link of the group up to ``to``, units cloned from ``target`` under ``names``, plants, devices,
    utility feeds and the grid connection grown by ``count × capacity_kw`` (a device's feeds from upstream
    in proportion); rows add nothing here (the placement lays its new rows itself)."""
    switches = list(snap.switches)
    links = list(snap.links)
    units = list(snap.cooling_units)
    plants = list(snap.cooling_plants)
    devices = list(snap.power_devices)
    feeds = list(snap.utility_feeds)
    power_feeds = list(snap.power_feeds)
    grid = snap.grid_capacity_kw
    next_unit = max((u.id for u in units), default=0) + 1
    for add in additions:
        kind, n, target = add["kind"], add["count"], add["target"]
        grow = n * (add.get("capacity_kw") or 0.0)
        if add.get("with_racks"):
            continue  # the racks' uplinks: built with the racks (placement_branch)
        if add["category"] == "network" and kind in SWITCH_TIERS:
            k = next(i for i, s in enumerate(switches) if s.name == target)
            switches[k] = replace(switches[k], count=switches[k].count + n)
        elif kind == "optic":
            ids = {s.name: s.id for s in switches}
            k = min(
                (
                    i
                    for i, lk in enumerate(links)
                    if lk.a_switch_id == ids[target] and lk.b_switch_id == ids[add["to"]]
                ),
                key=lambda i: links[i].id,
            )
            links[k] = replace(links[k], count=links[k].count + n)
        elif add["category"] == "cooling" and add["names"]:
            src: CoolingUnitSnap = next(u for u in units if u.name == target)
            spots = add.get("positions") or [None] * len(add["names"])
            for name, spot in zip(add["names"], spots, strict=True):
                x, y = spot if spot is not None else (None, None)
                units.append(replace(src, id=next_unit, name=name, x_m=x, y_m=y, status="active"))
                next_unit += 1
        elif add["category"] == "cooling":
            k = next(i for i, p in enumerate(plants) if p.name == target)
            plants[k] = replace(plants[k], capacity_kw=plants[k].capacity_kw + grow)
        elif kind == "utility_feed":
            k = next(i for i, f in enumerate(feeds) if f.name == target)
            feeds[k] = replace(feeds[k], capacity_kw=feeds[k].capacity_kw + grow)
        elif kind == "grid":
            grid += grow
        elif add["category"] == "power":
            k = next(i for i, d in enumerate(devices) if d.name == target)
            dev = devices[k]
            devices[k] = replace(dev, rated_kw=dev.rated_kw + grow)
            # the feeds into it (cable and breaker) grow with it, in proportion
            scale = (dev.rated_kw + grow) / dev.rated_kw if dev.rated_kw > 0 else 1.0
            feeds_in = [
                replace(f, rating_kw=f.rating_kw * scale) if f.downstream_device_id == dev.id else f
                for f in power_feeds
            ]
            power_feeds = feeds_in
    return replace(
        snap,
        power_feeds=tuple(power_feeds),
        switches=tuple(switches),
        links=tuple(links),
        cooling_units=tuple(units),
        cooling_plants=tuple(plants),
        power_devices=tuple(devices),
        utility_feeds=tuple(feeds),
        grid_capacity_kw=grid,
    )
