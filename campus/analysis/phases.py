"""Phases by date: the part of a campus that is in service on one day.

Every inventory object may carry ``in_service_date`` (first day in service) and ``retire_date`` (first day
out of service). An object is in service on day D when (``in_service_date`` is empty or ≤ D) and
(``retire_date`` is empty or > D). ``snapshot_as_of(snap, D)`` is the snapshot of what is in service on D,
with these rules (docs/planning.md, "Phases"):

* a child of an object out of service is out too: halls of a building, racks of a hall (and of a row:
  the snapshot adapter folds a row's dates into its racks'), pods, plants, storage and cooling units of a
  building, cooling units of a plant, switches of a pod, hall or rack, links to a switch or rack, a rack's
  power feeds;
* a power device out of service stays in the chain as an ``offline`` device: what it feeds loses power
  exactly as if it had failed. A power feed out of service whose downstream end is in service hangs from a
  stand-in ``offline`` device (id ``-upstream id``): the rack or device behind it loses that feed, as in a
  failure. A device whose utility connection is out of service loses that source;
* a rack whose cooling unit or pod is out of service keeps its place without one.

The offline devices and feeds stay for the power flow only: ``in_service_devices`` and ``in_service_feeds``
are those in service on the snapshot's day (what the summary's inventory counts).

Pure: no Django. ``campus.snapshot_adapter.build_snapshot(campus, as_of=D)`` reads the servers in service on
D and applies this.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import date
from typing import Any

from campus.analysis.snapshot import CampusSnapshot, PowerDeviceSnap

OFFLINE = "offline"


def in_service(obj: Any, day: date) -> bool:
    """Whether ``obj`` (anything with ``in_service_date`` and ``retire_date``) is in service on ``day``."""
    start, end = obj.in_service_date, obj.retire_date
    return (start is None or start <= day) and (end is None or end > day)


def interval(dates: Iterable[tuple[date | None, date | None]]) -> tuple[date | None, date | None]:
    """The days every one of several ``(in_service_date, retire_date)`` intervals covers: the latest
    start and the earliest end (an object is in service only while all its parents are)."""
    starts, ends = [], []
    for start, end in dates:
        if start is not None:
            starts.append(start)
        if end is not None:
            ends.append(end)
    return (max(starts) if starts else None, min(ends) if ends else None)


def change_dates(snap: CampusSnapshot) -> list[date]:
    """Every day something in the snapshot enters or leaves service, sorted."""
    days: set[date] = set()
    for name in DATED_COLLECTIONS:
        for obj in getattr(snap, name):
            for day in (obj.in_service_date, obj.retire_date):
                if day is not None:
                    days.add(day)
    return sorted(days)


# The snapshot's collections whose rows have an in-service and a retire date (the snapshot adapter reads
# each from its own table).
DATED_COLLECTIONS = (
    "buildings",
    "halls",
    "racks",
    "utility_feeds",
    "power_devices",
    "power_feeds",
    "energy_storage",
    "cooling_plants",
    "cooling_units",
    "pods",
    "switches",
    "links",
    "storage_systems",
)


def _ok(ref: int | None, kept: set[int]) -> bool:
    return ref is None or ref in kept


# Statuses that take an element out of operation (``campus.analysis.power_graph.DEAD_STATUSES`` for power
# devices: the same two words)
OUT_OF_OPERATION = frozenset({"failed", OFFLINE})


def operating(snap: CampusSnapshot) -> CampusSnapshot:
    """``snap`` with the ``status`` of utility feeds, cooling units and cooling plants applied (power
    devices' is read by the power graph itself): a cooling unit or plant ``failed`` or ``offline`` carries
    no capacity (it stays, with the racks and units naming it, so its heat shows as a shortfall, as after
    any loss); a utility feed ``failed`` or ``offline`` supplies nothing: the devices drawing from it lose
    that source (those with no other go offline), as a feed not yet in service (``snapshot_as_of``).
    A rack ``failed`` or ``offline`` draws nothing: its feeds hang from offline stand-ins of their
    devices, so it is dark like a rack behind a device offline (down at design, its heat the design's).
    ``planned`` changes nothing (the service dates say when). The snapshot itself when nothing is out."""
    units = tuple(
        replace(u, capacity_kw=0.0) if u.status in OUT_OF_OPERATION and u.capacity_kw else u
        for u in snap.cooling_units
    )
    plants = tuple(
        replace(p, capacity_kw=0.0) if p.status in OUT_OF_OPERATION and p.capacity_kw else p
        for p in snap.cooling_plants
    )
    out = {u.id for u in snap.utility_feeds if u.status in OUT_OF_OPERATION}
    dark = {r.id for r in snap.racks if r.status in OUT_OF_OPERATION}
    if not out and not dark and units == snap.cooling_units and plants == snap.cooling_plants:
        return snap
    # a feed out of operation keeps no capacity either: it has no headroom to report
    utilities = tuple(replace(u, capacity_kw=0.0) if u.id in out else u for u in snap.utility_feeds)
    devices = _without_utilities(snap, out) if out else snap.power_devices
    feeds = snap.power_feeds
    if dark:
        # a rack out of operation draws nothing: its feeds hang from offline stand-ins of their devices
        # (ids below -10^9, apart from ``snapshot_as_of``'s), so it is dark like a rack behind a device
        # offline, its heat still the design's
        by_id = {d.id: d for d in devices}
        stand_ins: dict[int, PowerDeviceSnap] = {}
        moved = []
        for f in feeds:
            if f.rack_id in dark and f.upstream_id in by_id:
                up = by_id[f.upstream_id]
                sid = -(_RACK_STAND_IN + abs(up.id))
                if sid not in stand_ins:
                    stand_ins[sid] = replace(
                        up,
                        id=sid,
                        name=f"{up.name} (rack out of operation)",
                        utility_feed_id=None,
                        status=OFFLINE,
                        in_service_date=None,
                        retire_date=None,
                    )
                f = replace(f, upstream_id=sid)
            moved.append(f)
        feeds = tuple(moved)
        devices = (*devices, *(stand_ins[k] for k in sorted(stand_ins, reverse=True)))
    return replace(
        snap,
        cooling_units=units,
        cooling_plants=plants,
        power_devices=tuple(devices),
        utility_feeds=utilities,
        power_feeds=feeds,
    )


_RACK_STAND_IN = 10**9


def _without_utilities(snap: CampusSnapshot, gone: set[int]) -> tuple[PowerDeviceSnap, ...]:
    """The power devices with the utility feeds ``gone`` taken away: a device drawing from one loses that
    source, and goes offline when it has no feed from another device."""
    has_up_feed = {f.downstream_device_id for f in snap.power_feeds if f.downstream_device_id is not None}
    devices = []
    for d in snap.power_devices:
        if d.utility_feed_id is not None and d.utility_feed_id in gone:
            changes: dict[str, Any] = {"utility_feed_id": None}
            if d.id not in has_up_feed:
                changes["status"] = OFFLINE  # its only source is out
            d = replace(d, **changes)
        devices.append(d)
    return tuple(devices)


def snapshot_as_of(snap: CampusSnapshot, day: date) -> CampusSnapshot:
    """What of ``snap`` is in service on ``day`` (the module's rules)."""
    buildings = tuple(b for b in snap.buildings if in_service(b, day))
    b_ids = {b.id for b in buildings}
    halls = tuple(h for h in snap.halls if in_service(h, day) and h.building_id in b_ids)
    h_ids = {h.id for h in halls}
    pods = tuple(p for p in snap.pods if in_service(p, day) and _ok(p.building_id, b_ids))
    pod_ids = {p.id for p in pods}
    plants = tuple(p for p in snap.cooling_plants if in_service(p, day) and _ok(p.building_id, b_ids))
    plant_ids = {p.id for p in plants}
    units = tuple(
        u
        for u in snap.cooling_units
        if in_service(u, day) and _ok(u.hall_id, h_ids) and _ok(u.plant_id, plant_ids)
    )
    unit_ids = {u.id for u in units}
    racks = []
    for r in snap.racks:
        if not (in_service(r, day) and r.hall_id in h_ids and r.building_id in b_ids):
            continue
        changes: dict[str, Any] = {}
        if not _ok(r.cooling_unit_id, unit_ids):
            changes["cooling_unit_id"] = None
        if not _ok(r.pod_id, pod_ids):
            changes["pod_id"] = None
        racks.append(replace(r, **changes) if changes else r)
    r_ids = {r.id for r in racks}
    utilities = tuple(u for u in snap.utility_feeds if in_service(u, day))
    u_ids = {u.id for u in utilities}

    # the power chain: devices stay (offline when out of service), feeds to racks that left go
    devices: list[PowerDeviceSnap] = []
    by_id = {d.id: d for d in snap.power_devices}
    gone = {d.utility_feed_id for d in snap.power_devices if d.utility_feed_id is not None} - u_ids
    # a utility feed not connected yet (or any more) is taken away like one out of operation
    for d in _without_utilities(snap, gone) if gone else snap.power_devices:
        if not (in_service(d, day) and _ok(d.building_id, b_ids)):
            d = replace(d, status=OFFLINE)
        devices.append(d)
    feeds = []
    stand_ins: dict[int, PowerDeviceSnap] = {}
    for f in snap.power_feeds:
        if f.rack_id is not None and f.rack_id not in r_ids:
            continue
        if not in_service(f, day) and f.upstream_id > 0:  # (a stand-in of ``operating`` is offline already)
            up = by_id[f.upstream_id]
            if up.id not in stand_ins:
                stand_ins[up.id] = replace(
                    up,
                    id=-up.id,
                    name=f"{up.name} (feed not in service)",
                    utility_feed_id=None,
                    status=OFFLINE,
                    in_service_date=None,
                    retire_date=None,
                )
            f = replace(f, upstream_id=-up.id)
        feeds.append(f)
    devices.extend(stand_ins[k] for k in sorted(stand_ins))

    storage = tuple(s for s in snap.energy_storage if in_service(s, day) and _ok(s.building_id, b_ids))
    storage_systems = tuple(
        s for s in snap.storage_systems if in_service(s, day) and _ok(s.building_id, b_ids)
    )
    switches = tuple(
        s
        for s in snap.switches
        if in_service(s, day) and _ok(s.pod_id, pod_ids) and _ok(s.hall_id, h_ids) and _ok(s.rack_id, r_ids)
    )
    sw_ids = {s.id for s in switches}
    links = tuple(
        ln
        for ln in snap.links
        if in_service(ln, day)
        and _ok(ln.pod_id, pod_ids)
        and _ok(ln.a_rack_id, r_ids)
        and _ok(ln.a_switch_id, sw_ids)
        and ln.b_switch_id in sw_ids
    )
    return replace(
        snap,
        as_of=day,
        buildings=buildings,
        halls=halls,
        racks=tuple(racks),
        utility_feeds=utilities,
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
        energy_storage=storage,
        cooling_plants=plants,
        cooling_units=units,
        pods=pods,
        switches=switches,
        links=links,
        storage_systems=storage_systems,
    )


_WHAT = {
    "cooling": "cooling unit",
    "plant": "cooling plant",
    "utility": "utility feed",
    "power": "power device",
}


def not_in_service(snap: CampusSnapshot, day: date, kind: str, ident: int) -> str | None:
    """Why the element ``(kind, ident)`` of ``snap`` (the campus as designed: every object whatever its
    dates) is not in service on ``day``, by this module's rules (its own dates and its parents'), or None
    when it is in service that day or is not in ``snap`` at all. Kinds as impact mode's."""
    buildings = {b.id: b for b in snap.buildings}
    halls = {h.id: h for h in snap.halls}
    plants = {p.id: p for p in snap.cooling_plants}
    chain: list[Any] = []  # the element, then every parent whose dates it inherits
    if kind == "cooling":
        unit = next((u for u in snap.cooling_units if u.id == ident), None)
        if unit is None:
            return None
        chain.append(unit)
        hall = halls.get(unit.hall_id) if unit.hall_id is not None else None
        plant = plants.get(unit.plant_id) if unit.plant_id is not None else None
        chain += [hall, buildings.get(hall.building_id) if hall else None]
        chain += [plant, buildings.get(plant.building_id) if plant and plant.building_id else None]
    elif kind == "plant":
        plant = plants.get(ident)
        if plant is None:
            return None
        chain += [plant, buildings.get(plant.building_id) if plant.building_id is not None else None]
    elif kind == "utility":
        chain.append(next((u for u in snap.utility_feeds if u.id == ident), None))
    elif kind == "power":
        device = next((d for d in snap.power_devices if d.id == ident), None)
        if device is None:
            return None
        chain += [device, buildings.get(device.building_id) if device.building_id is not None else None]
    if not chain or chain[0] is None:
        return None
    start, end = interval((o.in_service_date, o.retire_date) for o in chain if o is not None)
    if (start is None or start <= day) and (end is None or end > day):
        return None
    if start is not None and day < start and (end is None or start < end):
        when = f"it enters service on {start.isoformat()}"
    else:
        when = f"it is out of service from {end.isoformat()}"  # type: ignore[union-attr]
    own = chain[0]
    if in_service(own, day):
        when += " (with the building, hall or plant it belongs to)"
    return f"{_WHAT[kind]} {ident} ({own.name}) is not in service on {day.isoformat()}: {when}"


def in_service_devices(snap: CampusSnapshot) -> list[PowerDeviceSnap]:
    """The power devices of ``snap`` in service on its day (every device when it is the campus as designed):
    not the stand-ins, nor a device kept ``offline`` because it or its building is out of service (a device
    whose utility connection is out counts: it is there, without that source)."""
    real = [d for d in snap.power_devices if d.id > 0]
    if snap.as_of is None:
        return real
    b_ids = {b.id for b in snap.buildings}
    return [d for d in real if in_service(d, snap.as_of) and _ok(d.building_id, b_ids)]


def in_service_feeds(snap: CampusSnapshot) -> list:
    """The power feeds of ``snap`` in service on its day: in service themselves, and both their ends (the
    upstream device, the downstream device or rack) in service."""
    if snap.as_of is None:
        return list(snap.power_feeds)
    d_ids = {d.id for d in in_service_devices(snap)}
    return [
        f
        for f in snap.power_feeds
        if in_service(f, snap.as_of)
        and f.upstream_id in d_ids
        and (f.downstream_device_id is None or f.downstream_device_id in d_ids)
    ]
