"""Expansion proposals' new space: a new hall in a building, or a new building with its power chain, cooling
and fabric, built like one that stands (docs/placement.md, "New halls and buildings").

Pure. When no existing hall can take a request for floor space, the proposal lays out new space like the
hall the racks would go in (its *template*) and then lifts what the new space is short of as it lifts any
hall (``proposal._grow``):

* **a new hall** in the template's building, when the building's floor holds it (``hall_fits``): the hall's
  size, and what stands in the template hall: its power devices (rated as the template's, fed from the same
  devices above the hall), its cooling units (on the same plants, as their own group), its back-end leaf
  groups (same pod, the same uplinks to the same upper groups, so the pod's spine ports are checked:
  ``spine_ports``);
* **a new building** like the template's: its footprint and the template hall; its utility feeds (one
  each, rated as the template's), every power device of the building (substation, transformers,
  switchgear, generators, UPS) and of the hall (PDUs), the feeds between them; its cooling plants; the
  hall's units; a new pod (a compute island) with the hall's leaf groups and the pod's upper groups in
  proportion (the hall's share of the pod's leaves), cabled as the template's, the links to the campus tier
  kept (so its core ports are checked).

Each element is one addition line (``clone`` names what it is cloned from and how it is wired, by name: the
same lines write the snapshot here and the branch in ``campus.proposal_space``). A new building also gets
the template building's energy storage and, when its chain hangs off campus-level devices, its own
(``_campus_level_above``) on a utility feed of its own. Racks and rack feeds are not cloned.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from campus.analysis.snapshot import CampusSnapshot

# The share of a building's footprint its halls may take (the rest: electrical gallery, plant rooms,
# corridors, margins); estimate. A generated building is sized to its halls, so it holds no second one.
BUILDING_HALL_FRACTION = 0.75
NEW_BUILDING_GAP_M = 60.0  # a new building beside the campus's last (the generator's BUILDING_GAP_M)
SWITCH_TIERS = ("leaf", "spine", "core")


def hall_fits(snap: CampusSnapshot, building_id: int, width_m: float, length_m: float) -> bool:
    """The building's floor holds one more hall of ``width_m × length_m`` (halls' area within
    ``BUILDING_HALL_FRACTION`` of its footprint)."""
    bd = next(b for b in snap.buildings if b.id == building_id)
    used = sum(h.width_m * h.length_m for h in snap.halls if h.building_id == building_id)
    return used + width_m * length_m <= BUILDING_HALL_FRACTION * bd.width_m * bd.length_m + 1e-9


def _renamed(name: str, old: str, new: str, taken: set[str]) -> str:
    """``name`` with the token ``old`` (a building's or hall's name) replaced by ``new``, made unique."""
    out = re.sub(rf"(?<![A-Za-z0-9]){re.escape(old)}(?![A-Za-z0-9])", new, name) if old else name
    base, k = out, 1
    while out in taken or out == name:
        out = f"{base}-X{k:02d}"
        k += 1
    taken.add(out)
    return out


def _next_numbered(name: str, taken: set[str]) -> str:
    m = re.fullmatch(r"([A-Za-z]*)(\d+)", name)
    if m:
        prefix, k = m.group(1), int(m.group(2)) + 1
        while f"{prefix}{k}" in taken:
            k += 1
        return f"{prefix}{k}"
    return _renamed(name, "", "", taken)


def _line(table: str, kind: str, model: str, count: int, reason: str, category: str, **kw) -> dict:
    return {
        "kind": kind,
        "model": model,
        "count": int(count),
        "capacity_kw": kw.get("capacity_kw"),
        "building": kw.get("building"),
        "building_id": None,
        "hall": kw.get("hall"),
        "hall_id": None,
        "row": None,
        "target": kw.get("target"),
        "to": kw.get("to"),
        "names": kw.get("names", []),
        "reason": reason,
        "category": category,
        "new": True,
        "clone": {"table": table, **kw.get("clone", {})},
    }


def _topological(devices: list, feeds) -> list:
    """``devices`` upstream first (a device after every device of the list that feeds it)."""
    ids = {d.id for d in devices}
    ups = {d.id: {f.upstream_id for f in feeds if f.downstream_device_id == d.id} & ids for d in devices}
    out, done = [], set()
    while len(out) < len(devices):
        ready = [d for d in devices if d.id not in done and ups[d.id] <= done]
        if not ready:  # a loop: keep the rest in order
            ready = [d for d in devices if d.id not in done]
        for d in sorted(ready, key=lambda d: d.id):
            out.append(d)
            done.add(d.id)
    return out


def space_lines(snap: CampusSnapshot, hall, new_building: bool, length_m: float | None = None) -> list[dict]:
    """The addition lines of a new hall like ``hall`` (in its building), or of a new building like its
    building holding one such hall (module doc), in the order they are built. ``length_m``: the new hall's
    length when longer than ``hall``'s (a new building is as much longer)."""
    extra = max((length_m or hall.length_m) - hall.length_m, 0.0)
    bd = next(b for b in snap.buildings if b.id == hall.building_id)
    bd = replace(bd, length_m=bd.length_m + extra)
    lines: list[dict] = []
    taken = (
        {d.name for d in snap.power_devices}
        | {u.name for u in snap.cooling_units}
        | {p.name for p in snap.cooling_plants}
        | {s.name for s in snap.switches}
        | {p.name for p in snap.pods}
        | {f.name for f in snap.utility_feeds}
        | {e.name for e in snap.energy_storage}
    )
    old_token, new_token = hall.name, hall.name
    if new_building:
        dest = _next_numbered(bd.name, {b.name for b in snap.buildings})
        new_hall = hall.name
        right = max(b.x_m + b.width_m for b in snap.buildings)
        lines.append(
            _line(
                "building",
                "building",
                f"{bd.width_m:g} x {bd.length_m:g} m building like {bd.name}",
                1,
                "space",
                "building",
                building=dest,
                target=bd.name,
                names=[dest],
                clone={
                    "x_m": right + NEW_BUILDING_GAP_M,
                    "y_m": bd.y_m,
                    "length_m": bd.length_m,
                    "area_m2": bd.width_m * bd.length_m,
                },
            )
        )
        old_token, new_token = bd.name, dest
    else:
        dest = bd.name
        new_hall = _next_numbered(hall.name, {h.name for h in snap.halls if h.building_id == bd.id})
        old_token, new_token = hall.name, new_hall
    lines.append(
        _line(
            "hall",
            "hall",
            f"{hall.width_m:g} x {hall.length_m + extra:g} m hall like {hall.name}",
            1,
            "space",
            "building",
            building=dest,
            hall=new_hall,
            target=hall.name,
            names=[new_hall],
            clone={
                "from_building": bd.name,
                "length_m": hall.length_m + extra,
                "area_m2": hall.width_m * (hall.length_m + extra),
                "in_new_building": new_building,
            },
        )
    )
    ren: dict[str, str] = {}  # template name -> new name (devices, feeds, plants, pods, switches)

    def new_name(name: str) -> str:
        ren[name] = _renamed(name, old_token, new_token, taken)
        return ren[name]

    # ---- power: utility feeds, then the devices upstream first, each with its feeds in
    devices = [d for d in snap.power_devices if d.hall_id == hall.id]
    rating = {d.id: d.rated_kw for d in snap.power_devices}
    if new_building:
        devices += [d for d in snap.power_devices if d.building_id == bd.id and d.hall_id is None]
        above = _campus_level_above(snap, devices)
        rating.update(above)
        devices += [d for d in snap.power_devices if d.id in above]
        feed_ids = sorted({d.utility_feed_id for d in devices if d.utility_feed_id is not None})
        for feed in (u for u in snap.utility_feeds if u.id in feed_ids):
            on_it = [d for d in devices if d.utility_feed_id == feed.id]
            cap = feed.capacity_kw
            if all(d.id in above for d in on_it):  # only campus-level devices, cut to the building's share
                cap = min(cap, sum(rating[d.id] for d in on_it))
            lines.append(
                _line(
                    "utility_feed",
                    "utility_feed",
                    f"{cap / 1000.0:g} MW utility feed like {feed.name}",
                    1,
                    "power",
                    "power",
                    capacity_kw=cap,
                    building=dest,
                    target=feed.name,
                    names=[new_name(feed.name)],
                )
            )
    names = {d.id: d.name for d in snap.power_devices}
    feed_names = {u.id: u.name for u in snap.utility_feeds}
    for dev in _topological(devices, snap.power_feeds):
        ups = [
            (names[f.upstream_id], f.side)
            for f in snap.power_feeds
            if f.downstream_device_id == dev.id and f.upstream_id in names
        ]
        feed_name = feed_names.get(dev.utility_feed_id) if dev.utility_feed_id is not None else None
        lines.append(
            _line(
                "device",
                dev.kind,
                f"{rating[dev.id]:g} kW {dev.kind} like {dev.name}",
                1,
                "power",
                "power",
                capacity_kw=rating[dev.id],
                building=dest,
                hall=new_hall if dev.hall_id is not None else None,
                target=dev.name,
                names=[new_name(dev.name)],
                clone={
                    "upstream": {up: ren.get(up, up) for up, _ in ups},
                    "utility_feed": ren.get(feed_name, feed_name) if feed_name else None,
                },
            )
        )
    if new_building:
        lines += _storage_lines(snap, devices, bd, dest, ren, new_name)
    # ---- cooling: the building's plants (a new building), the hall's units
    if new_building:
        for plant in (p for p in snap.cooling_plants if p.building_id == bd.id):
            lines.append(
                _line(
                    "plant",
                    plant.kind,
                    f"{plant.capacity_kw:g} kW {plant.kind} like {plant.name}",
                    1,
                    "cooling",
                    "cooling",
                    capacity_kw=plant.capacity_kw,
                    building=dest,
                    target=plant.name,
                    names=[new_name(plant.name)],
                    clone={"devices": _mapped_devices(plant, names, ren)},
                )
            )
    plants = {p.id: p.name for p in snap.cooling_plants}
    groups: dict[str, str] = {}
    all_groups = {u.group for u in snap.cooling_units if u.group}
    for unit in (u for u in snap.cooling_units if u.hall_id == hall.id):
        if unit.group and unit.group not in groups:
            groups[unit.group] = _renamed(unit.group, old_token, new_token, all_groups)
        plant = plants.get(unit.plant_id) if unit.plant_id is not None else None
        lines.append(
            _line(
                "unit",
                unit.kind,
                f"{unit.capacity_kw:g} kW {unit.kind} like {unit.name}",
                1,
                "cooling",
                "cooling",
                capacity_kw=unit.capacity_kw,
                building=dest,
                hall=new_hall,
                target=unit.name,
                names=[new_name(unit.name)],
                clone={
                    "plant": ren.get(plant, plant) if plant else None,
                    "devices": _mapped_devices(unit, names, ren),
                    "group": groups.get(unit.group, ""),
                    "position": _inside(unit, hall.width_m, hall.length_m + extra),
                },
            )
        )
    lines += _fabric_lines(snap, hall, dest, new_hall, new_building, ren, new_name)
    return lines


def _campus_level_above(snap: CampusSnapshot, devices: list) -> dict[int, float]:
    """The campus-level devices (in no building) upstream of ``devices``, each with the share the new
    building takes of it, kW: the ratings of its feeds into the building's chain (above another campus-level
    device: that one's share), at most its own rating. A new building gets its own (a substation like the
    campus's, with a utility feed of its own)."""
    ids = {d.id for d in devices}
    top = {d.id: d for d in snap.power_devices if d.building_id is None and d.hall_id is None}
    share: dict[int, float] = {}
    frontier = ids
    for _ in range(len(top) + 1):  # one level up per round (a loop in the chain stops here)
        step: dict[int, float] = {}
        for f in snap.power_feeds:
            d = f.downstream_device_id
            if d in frontier and f.upstream_id in top and f.upstream_id not in ids:
                step[f.upstream_id] = step.get(f.upstream_id, 0.0) + (f.rating_kw if d in ids else share[d])
        if not step:
            break
        for u, kw in step.items():
            share[u] = share.get(u, 0.0) + kw
        frontier = set(step)
    return {u: min(top[u].rated_kw, kw) if kw > 0 else top[u].rated_kw for u, kw in share.items()}


def _storage_lines(snap: CampusSnapshot, devices: list, bd, dest: str, ren, new_name) -> list[dict]:
    """The template building's energy storage (and any on its cloned devices), on the new devices."""
    ids = {d.id for d in devices}
    names = {d.id: d.name for d in snap.power_devices}
    out = []
    for e in snap.energy_storage:
        if e.building_id != bd.id and e.power_device_id not in ids:
            continue
        dev = names.get(e.power_device_id) if e.power_device_id is not None else None
        out.append(
            _line(
                "storage",
                "energy_storage",
                f"{e.power_kw / 1000.0:g} MW / {e.energy_kwh / 1000.0:g} MWh storage like {e.name}",
                1,
                "power",
                "power",
                capacity_kw=e.power_kw,
                building=dest,
                target=e.name,
                names=[new_name(e.name)],
                clone={"device": ren.get(dev, dev) if dev else None, "energy_kwh": e.energy_kwh},
            )
        )
    return out


def _inside(unit, width_m: float, length_m: float) -> list[float] | None:
    """The template unit's corner, where the new unit stands in the new hall (None: it has none, or one
    outside the hall, as an inventory written before positions were checked may hold)."""
    if unit.x_m is None or unit.y_m is None:
        return None
    if not (0.0 <= unit.x_m <= width_m and 0.0 <= unit.y_m <= length_m):
        return None
    return [unit.x_m, unit.y_m]


def _mapped_devices(obj, names: dict[int, str], ren: dict[str, str]) -> list[str | None]:
    out = []
    for did in (obj.power_device_id, obj.power_device_b_id):
        name = names.get(did) if did is not None else None
        out.append(ren.get(name, name) if name else None)
    return out


def _fabric_lines(snap, hall, dest, new_hall, new_building, ren, new_name) -> list[dict]:
    rack_halls = {r.id: r.hall_id for r in snap.racks}
    leaves = [
        s
        for s in snap.switches
        if s.tier == "leaf" and (s.hall_id == hall.id or rack_halls.get(s.rack_id) == hall.id)
    ]
    if not leaves:
        return []
    out: list[dict] = []
    pods = {p.id: p for p in snap.pods}
    cloned: list = []  # (template switch, new count)
    pod_ids = sorted({s.pod_id for s in leaves if s.pod_id is not None})
    share: dict[int, float] = {}
    for pid in pod_ids:
        mine = sum(s.count for s in leaves if s.pod_id == pid)
        every = sum(s.count for s in snap.switches if s.pod_id == pid and s.tier == "leaf")
        share[pid] = mine / every if every else 1.0
    if new_building:
        for pid in pod_ids:
            out.append(
                _line(
                    "pod",
                    "pod",
                    f"compute island like {pods[pid].name}",
                    1,
                    "fabric_ports",
                    "network",
                    building=dest,
                    target=pods[pid].name,
                    names=[new_name(pods[pid].name)],
                )
            )
    cloned += [(s, s.count) for s in leaves]
    if new_building:
        uppers = [s for s in snap.switches if s.pod_id in share and s.tier != "leaf"]
        cloned += [(s, max(1, math.ceil(s.count * share[s.pod_id] - 1e-9))) for s in uppers]
    pod_names = {p.id: p.name for p in snap.pods}
    for sw, count in cloned:
        pod = pod_names.get(sw.pod_id) if sw.pod_id is not None else None
        out.append(
            _line(
                "switch",
                sw.tier,
                sw.model,
                count,
                "fabric_ports" if sw.tier == "leaf" else "spine_ports",
                "network",
                building=dest,
                hall=new_hall if sw.tier == "leaf" else None,
                target=sw.name,
                names=[new_name(sw.name)],
                clone={"pod": ren.get(pod, pod) if pod else None, "in_hall": sw.tier == "leaf"},
            )
        )
    by_id = {s.id: s for s in snap.switches}
    counts = {sw.id: (count, sw.count) for sw, count in cloned}
    for link in snap.links:
        if link.a_switch_id not in counts or link.b_switch_id not in by_id:
            continue
        new_count, old_count = counts[link.a_switch_id]
        n = math.ceil(link.count * new_count / max(old_count, 1) - 1e-9)
        a, b = by_id[link.a_switch_id].name, by_id[link.b_switch_id].name
        pod = pod_names.get(link.pod_id) if link.pod_id is not None else None
        out.append(
            _line(
                "link",
                "optic",
                link.medium,
                n,
                "fabric_ports",
                "network",
                building=dest,
                target=ren[a],
                to=ren.get(b, b),
                clone={
                    "medium": link.medium,
                    "length_m": link.length_m,
                    "speed_gbps": link.speed_gbps,
                    "network": link.network,
                    "pod": ren.get(pod, pod) if pod else None,
                },
            )
        )
    return out


# ---------------------------------------------------------------- the lines written into a snapshot


def apply_space(snap: CampusSnapshot, add: dict) -> CampusSnapshot:
    """``snap`` with one line of ``space_lines`` built (by name, as ``campus.proposal_space`` builds it)."""
    c = add["clone"]
    table, new = c["table"], add["names"][0] if add["names"] else None

    def next_id(items) -> int:
        return max((x.id for x in items), default=0) + 1

    bid = {b.name: b.id for b in snap.buildings}
    dev = {d.name: d for d in snap.power_devices}
    if table == "building":
        src = next(b for b in snap.buildings if b.name == add["target"])
        made = replace(
            src, id=next_id(snap.buildings), name=new, x_m=c["x_m"], y_m=c["y_m"], length_m=c["length_m"]
        )
        return replace(snap, buildings=(*snap.buildings, made))
    if table == "hall":
        src = next(
            h for h in snap.halls if h.name == add["target"] and h.building_id == bid[c["from_building"]]
        )
        made = replace(
            src, id=next_id(snap.halls), name=new, building_id=bid[add["building"]], length_m=c["length_m"]
        )
        return replace(snap, halls=(*snap.halls, made))
    hall_id = _hall_id(snap, add)
    if table == "utility_feed":
        src = next(u for u in snap.utility_feeds if u.name == add["target"])
        made = replace(src, id=next_id(snap.utility_feeds), name=new, capacity_kw=add["capacity_kw"])
        return replace(snap, utility_feeds=(*snap.utility_feeds, made))
    if table == "storage":
        src = next(e for e in snap.energy_storage if e.name == add["target"])
        made = replace(
            src,
            id=next_id(snap.energy_storage),
            name=new,
            building_id=bid[add["building"]],
            power_device_id=dev[c["device"]].id if c["device"] else None,
        )
        return replace(snap, energy_storage=(*snap.energy_storage, made))
    if table == "device":
        src = dev[add["target"]]
        feed_id = next((u.id for u in snap.utility_feeds if u.name == c["utility_feed"]), None)
        made = replace(
            src,
            id=next_id(snap.power_devices),
            name=new,
            building_id=bid[add["building"]],
            hall_id=hall_id if src.hall_id is not None else None,
            utility_feed_id=feed_id,
            rated_kw=add["capacity_kw"],
        )
        fid = next_id(snap.power_feeds)
        feeds = []
        for f in snap.power_feeds:
            if f.downstream_device_id == src.id and f.upstream_id in {d.id for d in snap.power_devices}:
                up_name = next(d.name for d in snap.power_devices if d.id == f.upstream_id)
                up = dev[c["upstream"].get(up_name, up_name)]
                feeds.append(replace(f, id=fid, upstream_id=up.id, downstream_device_id=made.id))
                fid += 1
        return replace(
            snap, power_devices=(*snap.power_devices, made), power_feeds=(*snap.power_feeds, *feeds)
        )
    ids = [dev[n].id if n else None for n in c.get("devices", (None, None))]
    if table == "plant":
        src = next(p for p in snap.cooling_plants if p.name == add["target"])
        made = replace(
            src,
            id=next_id(snap.cooling_plants),
            name=new,
            building_id=bid[add["building"]],
            power_device_id=ids[0],
            power_device_b_id=ids[1],
        )
        return replace(snap, cooling_plants=(*snap.cooling_plants, made))
    if table == "unit":
        src = next(u for u in snap.cooling_units if u.name == add["target"])
        plant = next((p.id for p in snap.cooling_plants if p.name == c["plant"]), None)
        made = replace(
            src,
            id=next_id(snap.cooling_units),
            name=new,
            hall_id=hall_id,
            plant_id=plant,
            power_device_id=ids[0],
            power_device_b_id=ids[1],
            group=c["group"],
            x_m=c["position"][0] if c["position"] else None,
            y_m=c["position"][1] if c["position"] else None,
        )  # where the template stands in its hall (the new hall is laid out like it)
        return replace(snap, cooling_units=(*snap.cooling_units, made))
    if table == "pod":
        src = next(p for p in snap.pods if p.name == add["target"])
        made = replace(src, id=next_id(snap.pods), name=new, building_id=bid[add["building"]])
        return replace(snap, pods=(*snap.pods, made))
    pods = {p.name: p.id for p in snap.pods}
    if table == "switch":
        src = next(s for s in snap.switches if s.name == add["target"])
        made = replace(
            src,
            id=next_id(snap.switches),
            name=new,
            count=add["count"],
            pod_id=pods.get(c["pod"]) if c["pod"] else None,
            hall_id=hall_id if c["in_hall"] else None,
            rack_id=None,
        )
        return replace(snap, switches=(*snap.switches, made))
    # table == "link"
    sw = {s.name: s.id for s in snap.switches}
    src = next(lk for lk in snap.links if lk.a_switch_id is not None)
    made = replace(
        src,
        id=next_id(snap.links),
        pod_id=pods.get(c["pod"]) if c["pod"] else None,
        network=c["network"],
        medium=c["medium"],
        count=add["count"],
        length_m=c["length_m"],
        speed_gbps=c["speed_gbps"],
        a_rack_id=None,
        a_switch_id=sw[add["target"]],
        b_switch_id=sw[add["to"]],
    )
    return replace(snap, links=(*snap.links, made))


def _hall_id(snap: CampusSnapshot, add: dict) -> int | None:
    if add.get("hall") is None:
        return None
    bid = next((b.id for b in snap.buildings if b.name == add["building"]), None)
    return next((h.id for h in snap.halls if h.name == add["hall"] and h.building_id == bid), None)
