"""The analytics endpoints' data: one snapshot per campus, cached until the campus' rows change.

A campus' *version* is the row count and newest ``last_updated`` of every table it is built from (the
catalog included), read in one query. While the version holds, the snapshot, its roll-up and the default
summary are reused, so repeated dashboard and script calls cost one small query. Counts catch deletions,
which leave no newer ``last_updated`` behind.

The cache lives in the process (each gunicorn worker keeps its own); it holds a few campuses at most.
A version read is reused for ``VERSION_TTL_S`` seconds, unless this process saves or deletes a campus row
in the meantime (then the next request reads it again): a change made through another worker is seen at
most that long after it was committed.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models.signals import post_delete, post_save
from rest_framework.renderers import JSONRenderer

from campus import models
from campus.analysis import cooling as cooling_mod
from campus.analysis import impact as impact_mod
from campus.analysis import power, summary
from campus.analysis import redundancy as redundancy_mod
from campus.analysis import stranded as stranded_mod
from campus.analysis.snapshot import CampusSnapshot
from campus.snapshot_adapter import build_snapshot

MAX_CAMPUSES = 4
VERSION_TTL_S = 1.0
MAX_RESULTS_PER_CAMPUS = 32

# (model, how its rows are tied to a campus); None: catalog tables, shared by every campus.
_VERSION_SOURCES: list[tuple[type, str | None]] = [
    (models.Campus, "id"),
    (models.UtilityFeed, "campus_id"),
    (models.Building, "campus_id"),
    (models.DataHall, "building"),
    (models.Row, "hall"),
    (models.Rack, "campus_id"),
    (models.PowerDevice, "campus_id"),
    (models.PowerFeed, "campus_id"),
    (models.CoolingPlant, "campus_id"),
    (models.CoolingUnit, "campus_id"),
    (models.Node, "rack"),
    (models.Pod, "campus_id"),
    (models.Switch, "campus_id"),
    (models.Link, "campus_id"),
    (models.GPUModel, None),
    (models.NodeModel, None),
    (models.SwitchModel, None),
    (models.LinkMedium, None),
    (models.FailureRate, None),
]


def _version_sql(catalog_only: bool = False) -> str:
    qn = connection.ops.quote_name
    parts = []
    building, hall, rack = (qn(m._meta.db_table) for m in (models.Building, models.DataHall, models.Rack))
    for model, how in _VERSION_SOURCES:
        if catalog_only and how is not None:
            continue
        table = qn(model._meta.db_table)
        if how is None:
            where = ""
        elif how == "building":
            where = f" WHERE building_id IN (SELECT id FROM {building} WHERE campus_id = %(c)s)"
        elif how == "hall":
            where = (
                f" WHERE hall_id IN (SELECT h.id FROM {hall} h JOIN {building} b ON h.building_id = b.id"
                " WHERE b.campus_id = %(c)s)"
            )
        elif how == "rack":
            where = f" WHERE rack_id IN (SELECT id FROM {rack} WHERE campus_id = %(c)s)"
        else:
            where = f" WHERE {qn(how)} = %(c)s"
        parts.append(f"SELECT COUNT(*), MAX(last_updated) FROM {table}{where}")
    return " UNION ALL ".join(parts)


def campus_version(campus_id: int) -> tuple:
    """What changes whenever anything the campus' analytics read changes."""
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(), {"c": campus_id})
        return tuple((count, str(stamp)) for count, stamp in cursor.fetchall())


# campus id -> (version, monotonic time it was read); cleared by any local write to a campus model.
_recent_versions: dict[int, tuple[tuple, float]] = {}


def _note_write(sender, **kwargs) -> None:
    if sender._meta.app_label == "campus" or getattr(sender, "instance_type", None) is not None:
        _recent_versions.clear()


post_save.connect(_note_write, dispatch_uid="campus-analytics-version-save")
post_delete.connect(_note_write, dispatch_uid="campus-analytics-version-delete")


def current_catalog_version() -> tuple:
    """catalog_version(), reused like a campus version (key 0 is never a campus id)."""
    now = time.monotonic()
    recent = _recent_versions.get(0)
    if recent is not None and now - recent[1] < VERSION_TTL_S:
        return recent[0]
    version = catalog_version()
    _recent_versions[0] = (version, now)
    return version


def current_version(campus_id: int) -> tuple:
    now = time.monotonic()
    recent = _recent_versions.get(campus_id)
    if recent is not None and now - recent[1] < VERSION_TTL_S:
        return recent[0]
    version = campus_version(campus_id)
    _recent_versions[campus_id] = (version, now)
    return version


def catalog_version() -> tuple:
    """What changes whenever a catalog row changes."""
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(catalog_only=True))
        return tuple((count, str(stamp)) for count, stamp in cursor.fetchall())


@dataclass
class CampusState:
    """A snapshot and the results computed from it, valid for one version of the campus."""

    version: tuple
    snap: CampusSnapshot
    hall_geometry: dict[int, dict]  # hall id -> x_m, y_m (position in its building)
    rack_size: dict[int, tuple[float, float]]  # rack id -> (width_m, depth_m)
    results: OrderedDict = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def memo(self, key: tuple, compute: Callable[[], Any]) -> Any:
        with self.lock:
            if key in self.results:
                self.results.move_to_end(key)
                return self.results[key]
        value = compute()
        with self.lock:
            self.results[key] = value
            while len(self.results) > MAX_RESULTS_PER_CAMPUS:
                self.results.popitem(last=False)
        return value

    def rollup(self) -> power.PowerRollup:
        return self.memo(("rollup",), lambda: power.rollup(self.snap))


_states: OrderedDict[int, CampusState] = OrderedDict()
_states_lock = threading.Lock()


def campus_state(campus: models.Campus) -> CampusState:
    version = current_version(campus.pk)
    with _states_lock:
        state = _states.get(campus.pk)
        if state is not None and state.version == version:
            _states.move_to_end(campus.pk)
            return state
    snap = build_snapshot(campus)
    halls = {
        row["id"]: {"x_m": row["x_m"], "y_m": row["y_m"]}
        for row in models.DataHall.objects.filter(building__campus_id=campus.pk).values("id", "x_m", "y_m")
    }
    sizes = {
        pk: (w, d)
        for pk, w, d in models.Rack.objects.filter(campus_id=campus.pk).values_list(
            "id", "width_m", "depth_m"
        )
    }
    state = CampusState(version=version, snap=snap, hall_geometry=halls, rack_size=sizes)
    with _states_lock:
        _states[campus.pk] = state
        _states.move_to_end(campus.pk)
        while len(_states) > MAX_CAMPUSES:
            _states.popitem(last=False)
    return state


def forget(campus_id: int | None = None) -> None:
    """Drop cached states (tests; a campus' state also expires by itself when its rows change)."""
    _recent_versions.clear()
    with _states_lock:
        if campus_id is None:
            _states.clear()
        else:
            _states.pop(campus_id, None)


# ---------------------------------------------------------------- the endpoints' bodies


def rendered(state: CampusState, key: tuple, data: Callable[[], Any]) -> tuple[bytes, str]:
    """JSON bytes and their ETag, kept with the state: a hot endpoint renders its body once per version."""

    def render():
        body = JSONRenderer().render(data())
        return body, f'"{hashlib.md5(body, usedforsecurity=False).hexdigest()}"'

    return state.memo(("rendered", *key), render)


def campus_summary(state: CampusState, **params) -> dict:
    key = ("summary", tuple(sorted(params.items())))
    return state.memo(key, lambda: summary.campus_summary(state.snap, **params))


def impact(state: CampusState, device_id: int, kind: str) -> dict:
    return state.memo(
        ("impact", kind, device_id), lambda: impact_mod.impact(state.snap, device_id, kind).as_dict()
    )


def redundancy(state: CampusState, include_single_points: bool) -> list[dict]:
    return state.memo(
        ("redundancy", include_single_points),
        lambda: [f.as_dict() for f in redundancy_mod.redundancy_check(state.snap, include_single_points)],
    )


def stranded(state: CampusState, include_racks: bool) -> dict:
    def compute():
        result = stranded_mod.stranded_capacity(state.snap)
        body = result.as_dict()
        if include_racks:
            body["racks"] = [row.as_dict() for row in result.racks.values()]
        return body

    return state.memo(("stranded", include_racks), compute)


def _metrics(state: CampusState, hall_id: int | None) -> list[dict]:
    chain = state.rollup()
    return state.memo(("rack_metrics", hall_id), lambda: summary.rack_metrics(state.snap, hall_id, chain))


def _hall_dict(state: CampusState, hall) -> dict:
    geometry = state.hall_geometry.get(hall.id, {"x_m": 0.0, "y_m": 0.0})
    return {
        "id": hall.id,
        "name": hall.name,
        "building_id": hall.building_id,
        "x_m": geometry["x_m"],
        "y_m": geometry["y_m"],
        "width_m": hall.width_m,
        "length_m": hall.length_m,
    }


def _with_size(state: CampusState, metric: dict) -> dict:
    width, depth = state.rack_size.get(metric["id"], (0.6, 1.2))
    return {**metric, "width_m": width, "depth_m": depth}


# Columns of the compact campus-wide floor map (one array per rack).
RACK_COLUMNS = (
    "id",
    "name",
    "hall_id",
    "x_m",
    "y_m",
    "width_m",
    "depth_m",
    "load_kw",
    "design_kw",
    "feed_a_pct",
    "feed_b_pct",
    "density_kw_per_m2",
    "cooling_type",
    "gpus",
    "status",
    "pod_id",
    "cooling_unit_id",
    "powered",
)


def floor_map(state: CampusState, hall_id: int | None) -> dict:
    snap = state.snap
    if hall_id is not None:
        hall = next((h for h in snap.halls if h.id == hall_id), None)
        if hall is None:
            raise ValueError(f"hall: no hall {hall_id} in this campus")

        def compute_hall():
            loads = {u.id: u for u in cooling_mod.cooling_balance(snap).units}
            return {
                "hall": _hall_dict(state, hall),
                "racks": [_with_size(state, m) for m in _metrics(state, hall_id)],
                "cooling_units": [
                    {
                        "id": u.id,
                        "name": u.name,
                        "kind": u.kind,
                        "capacity_kw": u.capacity_kw,
                        "heat_kw": loads[u.id].heat_kw,
                        "liquid_heat_kw": loads[u.id].liquid_heat_kw,
                        "air_heat_kw": loads[u.id].air_heat_kw,
                        "utilization": loads[u.id].utilization
                        if math.isfinite(loads[u.id].utilization)
                        else None,
                        "electrical_kw": loads[u.id].electrical_kw,
                    }
                    for u in snap.cooling_units
                    if u.hall_id == hall_id
                ],
            }

        return state.memo(("floor_map", hall_id), compute_hall)

    def compute_campus():
        halls_by_building: dict[int, list[dict]] = {}
        for h in snap.halls:
            halls_by_building.setdefault(h.building_id, []).append(_hall_dict(state, h))
        rows = []
        for m in _metrics(state, None):
            full = _with_size(state, m)
            rows.append([full[c] for c in RACK_COLUMNS])
        return {
            "campus": {"id": snap.id, "name": snap.name},
            "buildings": [
                {
                    "id": b.id,
                    "name": b.name,
                    "x_m": b.x_m,
                    "y_m": b.y_m,
                    "width_m": b.width_m,
                    "length_m": b.length_m,
                    "halls": halls_by_building.get(b.id, []),
                }
                for b in snap.buildings
            ],
            "rack_columns": list(RACK_COLUMNS),
            "racks": rows,
        }

    return state.memo(("floor_map", None), compute_campus)


def power_chain(state: CampusState, rack_id: int) -> dict:
    """The power paths of one rack, side by side, from its feeds up to the utility feeds.

    Each side lists the feeds and devices reached going upstream (nearest first) with their load from the
    healthy roll-up, so a panel can show where the headroom of each side runs out."""
    snap = state.snap
    rack = next((r for r in snap.racks if r.id == rack_id), None)
    if rack is None:
        raise ValueError(f"rack: no rack {rack_id} in this campus")

    def compute():
        g = power.power_graph(snap)
        chain = state.rollup()
        utilities = {u.id: u for u in snap.utility_feeds}

        def feed_dict(fid: int) -> dict:
            f = g.feeds[fid]
            load = chain.feed_load_kw.get(fid, 0.0)
            return {
                "id": f.id,
                "side": f.side,
                "upstream_id": f.upstream_id,
                "downstream_device_id": f.downstream_device_id,
                "rating_kw": f.rating_kw,
                "load_kw": load,
                "load_pct": 100.0 * load / f.rating_kw if f.rating_kw else None,
                "live": fid not in chain.dead_feeds,
            }

        def device_dict(did: int, depth: int) -> dict:
            d = g.devices[did]
            return {
                "id": d.id,
                "name": d.name,
                "kind": d.kind,
                "depth": depth,
                "status": d.status,
                "rated_kw": d.rated_kw,
                "load_kw": chain.device_load_kw.get(did, 0.0),
                "utilization": chain.device_utilization.get(did, 0.0),
                "headroom_kw": chain.device_headroom_kw.get(did, 0.0),
                "live": did not in chain.dead_devices,
                "utility_feed_id": d.utility_feed_id,
                "source_feed_ids": sorted(g.up_feeds.get(did, [])),
            }

        sides = []
        by_side: dict[str, list[int]] = {}
        for fid in g.rack_feeds.get(rack_id, ()):
            by_side.setdefault(g.feeds[fid].side, []).append(fid)
        for side in sorted(by_side):
            feeds = list(by_side[side])
            devices: list[dict] = []
            seen: set[int] = set()
            frontier = [(g.feeds[fid].upstream_id, 1) for fid in feeds]
            utility_ids: set[int] = set()
            while frontier:
                nxt = []
                for did, depth in frontier:
                    if did in seen:
                        continue
                    seen.add(did)
                    devices.append(device_dict(did, depth))
                    if g.devices[did].utility_feed_id is not None:
                        utility_ids.add(g.devices[did].utility_feed_id)
                    for fid in g.up_feeds.get(did, []):
                        feeds.append(fid)
                        nxt.append((g.feeds[fid].upstream_id, depth + 1))
                frontier = nxt
            sides.append(
                {
                    "side": side,
                    "feeds": [feed_dict(fid) for fid in feeds],
                    "devices": devices,
                    "utility_feeds": [
                        {
                            "id": u,
                            "name": utilities[u].name if u in utilities else "",
                            "capacity_kw": utilities[u].capacity_kw if u in utilities else None,
                            "load_kw": chain.utility_load_kw.get(u, 0.0),
                        }
                        for u in sorted(utility_ids)
                    ],
                }
            )
        return {
            "rack": {
                "id": rack.id,
                "name": rack.name,
                "load_kw": snap.rack_it_kw(rack),
                "design_kw": rack.design_kw,
                "sides_lost": sorted(chain.rack_sides_lost.get(rack.id, ())),
                "powered": rack.id not in chain.racks_without_power,
            },
            "sides": sides,
        }

    return state.memo(("power_chain", rack_id), compute)
