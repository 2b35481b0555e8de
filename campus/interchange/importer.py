"""Import a campus spec: validate everything first, then write each table with one bulk insert.

The validation itself is pure and lives in ``campus.interchange.validation``; this module reads what
it needs from the database (the catalog, the names of existing campuses) and raises ``SpecError``
listing every error before a single row is written.

Writing is one transaction: a campus row, then one ``bulk_create`` per table in dependency order, with
the new primary keys read back from the insert (PostgreSQL and SQLite both return them). There is no
per-row ``save()`` and no per-row query, so a 100k-GPU campus takes a handful of seconds. Bulk inserts
write no django-simple-history rows: an import is one event, not thousands of edits (the writing of tables
in bulk is ``campus.interchange.bulk``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from django.db import transaction

from campus.choices import FeedSide, Network, NodeStatus
from campus.interchange.bulk import (
    ANALYZE_AFTER_ROWS,
    Progress,
    analyze_inventory,
    bulk,
    clear_campus,
    insert_rows,
)
from campus.interchange.rules import server_power_w
from campus.interchange.storage import write_storage_systems
from campus.interchange.validation import (
    PHASE_FIELDS,
    CatalogIndex,
    SpecError,
    check_spec,
    format_path,
    schema_errors,
    value_errors,
)
from campus.models import (
    Building,
    Campus,
    CoolingPlant,
    CoolingUnit,
    DataHall,
    EnergyStorage,
    Link,
    LinkMedium,
    Node,
    NodeModel,
    Pod,
    PowerDevice,
    PowerFeed,
    Rack,
    Row,
    Switch,
    SwitchModel,
    UtilityFeed,
)

__all__ = [
    "SpecError",
    "format_path",
    "import_campus",
    "load_catalog",
    "schema_errors",
    "spec_counts",
    "validate_spec",
    "value_errors",
]


def load_catalog() -> CatalogIndex:
    """Catalog slugs → ids, read once per import (three queries)."""
    rows = NodeModel.objects.values_list(
        "id", "slug", "gpus_per_node", "rack_units", "gpu_model__tdp_w", "overhead_w", "nics", "nic_kind"
    )
    node_models, node_sizes = {}, {}
    for pk, slug, gpus, units, tdp_w, overhead_w, nics, nic_kind in rows:
        node_models[slug] = (pk, gpus)
        node_sizes[slug] = (units, server_power_w(gpus, tdp_w, overhead_w, nics, nic_kind))
    return CatalogIndex(
        node_models=node_models,
        node_sizes=node_sizes,
        switch_models=dict(SwitchModel.objects.values_list("slug", "id")),
        media={
            slug: (pk, reach)
            for pk, slug, reach in LinkMedium.objects.values_list("id", "slug", "max_reach_m")
        },
    )


def validate_spec(data: Any, replace: bool = False) -> list[dict[str, str]]:
    """All errors of a spec (empty when it can be imported). Reads the catalog, writes nothing."""

    def campus_exists(name: str) -> bool:
        return not replace and Campus.objects.filter(name=name).exists()

    return check_spec(data, load_catalog, campus_exists)


# ---------------------------------------------------------------- counts


def spec_counts(data: dict) -> dict[str, int]:
    """What a (valid) spec holds: entities per kind, and GPUs when the catalog is at hand."""
    racks = [
        rack
        for building in data.get("buildings", [])
        for hall in building.get("halls", [])
        for rack in [
            *(r for row in hall.get("rows", []) for r in row.get("racks", [])),
            *hall.get("racks", []),
        ]
    ]
    gpus_per = dict(NodeModel.objects.values_list("slug", "gpus_per_node"))
    return {
        "buildings": len(data.get("buildings", [])),
        "halls": sum(len(b.get("halls", [])) for b in data.get("buildings", [])),
        "racks": len(racks),
        "nodes": sum(g["count"] for r in racks for g in r.get("nodes", [])),
        "gpus": sum(g["count"] * gpus_per.get(g["model"], 0) for r in racks for g in r.get("nodes", [])),
        "power_devices": len(data.get("power_devices", [])),
        "energy_storage": len(data.get("energy_storage", [])),
        "storage_systems": len(data.get("storage_systems", [])),
        "cooling_plants": len(data.get("cooling_plants", [])),
        "cooling_units": len(data.get("cooling_units", [])),
        "pods": len(data.get("pods", [])),
        "switch_groups": len(data.get("switches", [])),
        "switches": sum(s.get("count", 1) for s in data.get("switches", [])),
        "link_bundles": len(data.get("links", [])),
        "links": sum(k["count"] for k in data.get("links", [])),
    }


# ---------------------------------------------------------------- writing

_CAMPUS_FIELDS = (
    "location",
    "latitude",
    "longitude",
    "grid_capacity_mw",
    "price_usd_per_kwh",
    "design_pue",
    "ambient_temp_c",
    "other_it_fraction",
    "gpu_power_fraction",
    "server_overhead_scale",
    "climate",
    "power_redundancy",
    "cooling_redundancy",
    "description",
    "price_overrides",
)


def _given(item: dict, fields: Iterable[str]) -> dict[str, Any]:
    """The optional fields the spec sets; the model defaults fill the rest."""
    return {f: item[f] for f in fields if f in item}


def _dates(item: dict, parent: dict | None = None) -> dict[str, date | None]:
    """The service dates of a spec object (ISO strings, checked by the validation), as model values.
    ``parent``: an object whose dates apply when the item has none (a rack's inline feeds, its nodes)."""
    out: dict[str, date | None] = {}
    for name in PHASE_FIELDS:
        value = item.get(name, (parent or {}).get(name))
        out[name] = date.fromisoformat(value) if value else None
    return out


def import_campus(data: dict, progress: Progress | None = None, replace: bool = False) -> Campus:
    """Validate ``data`` (a parsed spec) and write it as a new campus; returns the campus.

    Raises ``SpecError`` listing every error, with nothing written. With ``replace`` an existing
    campus of the same name keeps its id and has its contents replaced.
    """
    errors = validate_spec(data, replace=replace)
    if errors:
        raise SpecError(errors)
    if progress:
        progress("validated", 1)
    catalog = load_catalog()
    with transaction.atomic():
        campus = _write(data, catalog, progress, replace)
    if sum(spec_counts(data).values()) >= ANALYZE_AFTER_ROWS:
        analyze_inventory()
    return campus


def _write(data: dict, catalog: CatalogIndex, progress: Progress | None, replace: bool) -> Campus:
    spec_campus = data["campus"]
    fields = {f: spec_campus[f] for f in _CAMPUS_FIELDS if f in spec_campus}
    campus = Campus.objects.select_for_update().filter(name=spec_campus["name"]).first() if replace else None
    if campus is not None:
        clear_campus(campus)
        for field in _CAMPUS_FIELDS:
            model_field = Campus._meta.get_field(field)
            default = model_field.get_default() if model_field.has_default() else None
            if default is None and not model_field.null:
                default = ""
            setattr(campus, field, fields.get(field, default))
        campus.full_clean(validate_unique=False)
        campus.save()
        if progress:
            progress("cleared", 1)
    else:
        campus = Campus.objects.create(name=spec_campus["name"], **fields)
    cid = campus.pk

    feeds = bulk(
        UtilityFeed,
        [
            UtilityFeed(
                campus_id=cid,
                name=f["name"],
                **_given(f, ("utility", "capacity_mw", "voltage_kv", "status")),
                **_dates(f),
            )
            for f in data.get("utility_feeds", [])
        ],
        progress,
        "utility_feeds",
    )
    feed_id = {f.name: f.pk for f in feeds}

    # Sites: buildings, halls, rows.
    building_specs = data.get("buildings", [])
    buildings = []
    for b in building_specs:
        extra = _given(b, ("x_m", "y_m", "width_m", "length_m", "design_it_mw", "status"))
        halls = b.get("halls", [])
        # A building without a size encloses its halls (the model default of 100 m may be too small).
        for size, axis in (("width_m", "x_m"), ("length_m", "y_m")):
            if size not in extra and halls:
                extra[size] = max(100.0, max(h.get(axis, 0) + h[size] for h in halls))
        buildings.append(Building(campus_id=cid, name=b["name"], **extra, **_dates(b)))
    buildings = bulk(Building, buildings, progress, "buildings")
    building_id = {b.name: b.pk for b in buildings}

    halls = [
        DataHall(
            building_id=building_id[b["name"]],
            name=h["name"],
            width_m=h["width_m"],
            length_m=h["length_m"],
            **_given(h, ("x_m", "y_m", "design_it_mw")),
            **_dates(h),
        )
        for b in building_specs
        for h in b.get("halls", [])
    ]
    halls = bulk(DataHall, halls, progress, "halls")
    hall_keys = [(b["name"], h["name"]) for b in building_specs for h in b.get("halls", [])]
    hall_id = {key: h.pk for key, h in zip(hall_keys, halls, strict=True)}

    rows = []
    row_keys = []
    for b in building_specs:
        for h in b.get("halls", []):
            hid = hall_id[(b["name"], h["name"])]
            for r in h.get("rows", []):
                rows.append(Row(hall_id=hid, name=r["name"], **_given(r, ("x_m", "y_m")), **_dates(r)))
                row_keys.append((b["name"], h["name"], r["name"]))
    rows = bulk(Row, rows, progress, "rows")
    row_id = {key: r.pk for key, r in zip(row_keys, rows, strict=True)}

    def place(item: dict) -> dict[str, int | None]:
        b = item.get("building")
        out: dict[str, int | None] = {}
        if "building" in item:
            out["building_id"] = building_id[b]
        if "hall" in item:
            out["hall_id"] = hall_id[(b, item["hall"])]
        return out

    # Pods and the power chain.
    pods = bulk(
        Pod,
        [
            Pod(
                campus_id=cid,
                name=p["name"],
                building_id=building_id.get(p.get("building")),
                switch_model_id=catalog.switch_models.get(p.get("switch_model")),
                **_given(p, ("fabric", "topology", "oversubscription", "priority")),
                **_dates(p),
            )
            for p in data.get("pods", [])
        ],
        progress,
        "pods",
    )
    pod_id = {p.name: p.pk for p in pods}

    devices = bulk(
        PowerDevice,
        [
            PowerDevice(
                campus_id=cid,
                name=d["name"],
                kind=d["kind"],
                rated_kw=d["rated_kw"],
                utility_feed_id=feed_id.get(d.get("utility_feed")),
                **place(d),
                **_given(
                    d,
                    (
                        "efficiency",
                        "max_utilization",
                        "battery_minutes",
                        "start_delay_s",
                        "ramp_s",
                        "prime_rating_kw",
                        "ramp_kw_per_s",
                        "fuel_usd_per_mwh",
                        "status",
                    ),
                ),
                **_dates(d),
            )
            for d in data.get("power_devices", [])
        ],
        progress,
        "power_devices",
    )
    device_id = {d.name: d.pk for d in devices}
    device_feeds = [
        PowerFeed(
            campus_id=cid,
            upstream_id=device_id[f["from"]],
            downstream_device_id=device_id[f["to"]],
            side=f.get("side", FeedSide.N),
            rating_kw=f["rating_kw"],
            **_dates(f),
        )
        for f in data.get("power_feeds", [])
        if "to" in f
    ]
    bulk(PowerFeed, device_feeds, progress, "power_feeds")
    bulk(
        EnergyStorage,
        [
            EnergyStorage(
                campus_id=cid,
                name=e["name"],
                building_id=building_id.get(e.get("building")),
                power_device_id=device_id.get(e.get("power_device")),
                power_mw=e["power_mw"],
                energy_mwh=e["energy_mwh"],
                **_given(e, ("round_trip_efficiency", "response_ms", "status")),
                **_dates(e),
            )
            for e in data.get("energy_storage", [])
        ],
        progress,
        "energy_storage",
    )
    write_storage_systems(cid, data, building_id, progress)

    # Cooling.
    plants = bulk(
        CoolingPlant,
        [
            CoolingPlant(
                campus_id=cid,
                name=p["name"],
                kind=p["kind"],
                capacity_kw=p["capacity_kw"],
                power_device_id=device_id.get(p.get("power_device")),
                power_device_b_id=device_id.get(p.get("power_device_b")),
                **place(p),
                **_given(p, ("cop", "restart_minutes", "status", "fixed_kw", "eir_ref", "eir_per_k")),
                **_dates(p),
            )
            for p in data.get("cooling_plants", [])
        ],
        progress,
        "cooling_plants",
    )
    plant_id = {p.name: p.pk for p in plants}
    units = []
    for u in data.get("cooling_units", []):
        where = place(u)
        where.pop("building_id", None)  # a unit is placed by its hall
        units.append(
            CoolingUnit(
                campus_id=cid,
                name=u["name"],
                kind=u["kind"],
                capacity_kw=u["capacity_kw"],
                plant_id=plant_id.get(u.get("plant")),
                power_device_id=device_id.get(u.get("power_device")),
                power_device_b_id=device_id.get(u.get("power_device_b")),
                **where,
                **_given(u, ("supply_temp_c", "return_temp_c", "flow_lpm", "group", "x_m", "y_m", "status")),
                **_dates(u),
            )
        )
    units = bulk(CoolingUnit, units, progress, "cooling_units")
    unit_id = {u.name: u.pk for u in units}

    # Racks, their feeds and nodes.
    rack_rows: list[dict[str, Any]] = []
    rack_specs: list[dict] = []
    rack_defaults = {
        f: Rack._meta.get_field(f).get_default()
        for f in ("width_m", "depth_m", "rack_units", "cooling_type", "extra_it_kw", "status")
    }
    for b in building_specs:
        for h in b.get("halls", []):
            hid = hall_id[(b["name"], h["name"])]
            placed = [
                (row_id[(b["name"], h["name"], r["name"])], k)
                for r in h.get("rows", [])
                for k in r.get("racks", [])
            ]
            placed += [(None, k) for k in h.get("racks", [])]
            for rid, k in placed:
                rack_specs.append(k)
                rack_rows.append(
                    {
                        "campus_id": cid,
                        "hall_id": hid,
                        "row_id": rid,
                        "name": k["name"],
                        "x_m": k["x_m"],
                        "y_m": k["y_m"],
                        "design_kw": k["design_kw"],
                        "cooling_unit_id": unit_id.get(k.get("cooling_unit")),
                        "pod_id": pod_id.get(k.get("pod")),
                        **{f: k.get(f, default) for f, default in rack_defaults.items()},
                        **_dates(k),
                    }
                )
    rack_ids = insert_rows(Rack, rack_rows, progress, "racks", return_ids=True)
    rack_id = {k["name"]: pk for k, pk in zip(rack_specs, rack_ids, strict=True)}

    # Leaf tables: rows as plain dicts (every row of a table has the same keys), no model instances.
    rack_feeds: list[dict[str, Any]] = []
    nodes: list[dict[str, Any]] = []
    for spec, rack_pk in zip(rack_specs, rack_ids, strict=True):
        for side in ("a", "b"):
            if side_device := spec.get(f"feed_{side}"):
                rating = spec.get(f"feed_{side}_rating_kw", spec.get("feed_rating_kw", spec["design_kw"]))
                rack_feeds.append(
                    {
                        "campus_id": cid,
                        "upstream_id": device_id[side_device],
                        "downstream_device_id": None,
                        "rack_id": rack_pk,
                        "side": side.upper(),
                        "rating_kw": rating,
                        **_dates(spec),
                    }
                )
        groups = spec.get("nodes", [])
        # Zero-padded to the rack's node count so names sort in creation order.
        width = max(2, len(str(sum(g["count"] for g in groups))))
        index = 0
        for g in groups:
            model_pk, _ = catalog.node_models[g["model"]]
            status = g.get("status", NodeStatus.ACTIVE.value)
            node_dates = _dates(g)
            for _ in range(int(g["count"])):  # JSON Schema lets 4.0 pass as an integer
                index += 1
                nodes.append(
                    {
                        "rack_id": rack_pk,
                        "node_model_id": model_pk,
                        "name": f"{spec['name']}-n{index:0{width}d}",
                        "status": status,
                        **node_dates,
                    }
                )
    for f in data.get("power_feeds", []):
        if "rack" in f:
            rack_feeds.append(
                {
                    "campus_id": cid,
                    "upstream_id": device_id[f["from"]],
                    "downstream_device_id": None,
                    "rack_id": rack_id[f["rack"]],
                    "side": f.get("side", FeedSide.N.value),
                    "rating_kw": f["rating_kw"],
                    **_dates(f),
                }
            )
    insert_rows(PowerFeed, rack_feeds, progress, "rack_feeds")
    insert_rows(Node, nodes, progress, "nodes")

    # Network.
    switches = bulk(
        Switch,
        [
            Switch(
                campus_id=cid,
                name=s["name"],
                tier=s["tier"],
                model_id=catalog.switch_models[s["model"]],
                pod_id=pod_id.get(s.get("pod")),
                hall_id=hall_id[(s["building"], s["hall"])] if "hall" in s else None,
                rack_id=rack_id.get(s.get("rack")),
                **_given(s, ("network", "count")),
                **_dates(s),
            )
            for s in data.get("switches", [])
        ],
        progress,
        "switches",
    )
    switch_id = {s.name: s.pk for s in switches}
    default_speed = Link._meta.get_field("speed_gbps").default
    insert_rows(
        Link,
        [
            {
                "campus_id": cid,
                "pod_id": pod_id.get(k.get("pod")),
                "network": k.get("network", Network.BACKEND.value),
                "a_rack_id": rack_id.get(k.get("a_rack")),
                "a_switch_id": switch_id.get(k.get("a_switch")),
                "b_switch_id": switch_id[k["b_switch"]],
                "medium_id": catalog.media[k["medium"]][0],
                "count": int(k["count"]),
                "length_m": k["length_m"],
                "speed_gbps": k.get("speed_gbps", default_speed),
                **_dates(k),
            }
            for k in data.get("links", [])
        ],
        progress,
        "links",
    )
    return campus
