"""The floor map: every hall and rack with its figures, plus the failover headroom of halls and buildings.

Pure: the snapshot and the geometry the snapshot does not carry (hall positions in their building, rack
footprints) come in as plain dicts; the API caches and renders the result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from campus.analysis.cards import beside_racks_mw_by, rack_it_mw_by, rack_metrics, running_at_design
from campus.analysis.cooling import cooling_balance
from campus.analysis.headroom import ScopeHeadroom, failover_headroom
from campus.analysis.plant_layout import plant_layout, rack_feed_devices
from campus.analysis.power import PowerRollup, baseline_rollup, power_graph
from campus.analysis.snapshot import CampusSnapshot, HallSnap
from campus.analysis.summary import campus_it
from campus.analysis.units import kw_to_mw

DEFAULT_RACK_SIZE_M = (0.6, 1.2)  # width, depth: a standard 600 x 1200 mm AI rack

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
    "fed_kw",
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
    "feed_devices",
)


def headroom_fields(row: ScopeHeadroom | None) -> dict:
    """The failover headroom of a hall or building as the floor map and power chain show it (MW)."""
    if row is None or row.headroom_kw is None:
        return {"headroom_mw": None, "headroom_binding": row.binding_dict() if row else None}
    return {"headroom_mw": row.headroom_kw / 1000.0, "headroom_binding": row.binding_dict()}


def hall_dict(
    snap: CampusSnapshot,
    hall: HallSnap,
    hall_geometry: Mapping[int, dict],
    it_mw: Mapping[int, float] | None = None,
) -> dict:
    it_mw = it_mw if it_mw is not None else rack_it_mw_by(snap, "hall_id")
    beside = beside_racks_mw_by(snap, "hall_id")
    geometry = hall_geometry.get(hall.id, {"x_m": 0.0, "y_m": 0.0})
    return {
        "id": hall.id,
        "name": hall.name,
        "building_id": hall.building_id,
        "x_m": geometry["x_m"],
        "y_m": geometry["y_m"],
        "width_m": hall.width_m,
        "length_m": hall.length_m,
        "it_mw": it_mw.get(hall.id, 0.0),
        # of it_mw: the network and the allowance for IT not inventoried, carried beside the racks (the
        # racks' fed_kw is their own IT)
        "beside_racks_mw": beside.get(hall.id, 0.0),
        **headroom_fields(failover_headroom(snap).halls.get(hall.id)),
    }


def _with_size(metric: dict, rack_size: Mapping[int, tuple[float, float]], feeds: Mapping[int, list]) -> dict:
    width, depth = rack_size.get(metric["id"], DEFAULT_RACK_SIZE_M)
    return {**metric, "width_m": width, "depth_m": depth, "feed_devices": feeds.get(metric["id"], [])}


def hall_plant(snap: CampusSnapshot, hall_id: int, hall_geometry: Mapping[int, dict]) -> dict:
    """The plant of one hall in the hall's frame: its row-end PDUs, its cooling units, and its gallery (UPS,
    switchgear, transformers, generators) below it."""
    layout = plant_layout(snap, power_graph(snap), hall_geometry)
    at = hall_geometry.get(hall_id, {"x_m": 0.0, "y_m": 0.0})
    items = []
    for it in layout["plant"]:
        if it["hall_id"] != hall_id:
            continue
        if it["frame"] == "building":
            it = {**it, "frame": "hall", "x_m": it["x_m"] - at["x_m"], "y_m": it["y_m"] - at["y_m"]}
        items.append(it)
    return {"plant": items, "power_links": layout["power_links"]}


def hall_floor_map(
    snap: CampusSnapshot,
    hall_id: int,
    hall_geometry: Mapping[int, dict],
    rack_size: Mapping[int, tuple[float, float]],
    chain: PowerRollup | None = None,
) -> dict:
    """One hall in detail: its position, size and headroom, one object per rack, its cooling units."""
    hall = next((h for h in snap.halls if h.id == hall_id), None)
    if hall is None:
        raise ValueError(f"hall: no hall {hall_id} in this campus")
    chain = chain if chain is not None else baseline_rollup(snap)
    loads = {u.id: u for u in cooling_balance(snap).units}
    feeds = rack_feed_devices(power_graph(snap))
    return {
        "hall": hall_dict(snap, hall, hall_geometry),
        "racks": [_with_size(m, rack_size, feeds) for m in rack_metrics(snap, hall_id, chain)],
        **hall_plant(snap, hall_id, hall_geometry),
        "cooling_units": [
            {
                "id": u.id,
                "name": u.name,
                "kind": u.kind,
                "capacity_kw": u.capacity_kw,
                "heat_kw": loads[u.id].heat_kw,
                "liquid_heat_kw": loads[u.id].liquid_heat_kw,
                "air_heat_kw": loads[u.id].air_heat_kw,
                "utilization": loads[u.id].utilization if math.isfinite(loads[u.id].utilization) else None,
                "electrical_kw": loads[u.id].electrical_kw,
            }
            for u in snap.cooling_units
            if u.hall_id == hall_id
        ],
    }


def campus_floor_map(
    snap: CampusSnapshot,
    hall_geometry: Mapping[int, dict],
    rack_size: Mapping[int, tuple[float, float]],
    chain: PowerRollup | None = None,
) -> dict:
    """The whole campus in compact form: buildings with their halls, one array per rack."""
    chain = chain if chain is not None else baseline_rollup(snap)
    headroom = failover_headroom(snap)
    hall_it = rack_it_mw_by(snap, "hall_id")
    building_it = rack_it_mw_by(snap, "building_id")
    halls_by_building: dict[int, list[dict]] = {}
    for h in snap.halls:
        halls_by_building.setdefault(h.building_id, []).append(hall_dict(snap, h, hall_geometry, hall_it))
    rows = []
    g = power_graph(snap)
    feeds = rack_feed_devices(g)
    for m in rack_metrics(snap, None, chain):
        full = _with_size(m, rack_size, feeds)
        rows.append([full[c] for c in RACK_COLUMNS])
    return {
        "campus": {
            "id": snap.id,
            "name": snap.name,
            # the summary's power.it_mw: servers, fabric, rack extras and other IT, what runs at design
            "it_mw": kw_to_mw(campus_it(snap).it_kw * running_at_design(snap)[1]),
            **headroom_fields(headroom.campus),
        },
        "buildings": [
            {
                "id": b.id,
                "name": b.name,
                "x_m": b.x_m,
                "y_m": b.y_m,
                "width_m": b.width_m,
                "length_m": b.length_m,
                "it_mw": building_it.get(b.id, 0.0),
                **headroom_fields(headroom.buildings.get(b.id)),
                "halls": halls_by_building.get(b.id, []),
            }
            for b in snap.buildings
        ],
        "rack_columns": list(RACK_COLUMNS),
        "racks": rows,
        **plant_layout(snap, g, hall_geometry),
    }
