"""Export a campus as a spec document (the inverse of ``campus.interchange.importer.import_campus``).

Deterministic: every list is sorted by name (links and feeds by all their fields), and a field whose
value equals the model default is left out, so export → import → export gives the same document.
Nodes are exported as counts per node model and status, in the order of their names; serial numbers
and rack positions of single nodes are not part of the spec.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count, Min

from campus.choices import FeedSide, NodeStatus
from campus.interchange.schema import SPEC_VERSION
from campus.interchange.storage import export_storage_systems
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

_MISSING = object()


def _defaults(model) -> dict[str, Any]:
    out = {}
    for field in model._meta.concrete_fields:
        if field.has_default() and not callable(field.default):
            out[field.name] = field.default
    return out


_DEFAULTS = {
    model: _defaults(model)
    for model in (
        Campus,
        UtilityFeed,
        Building,
        DataHall,
        Row,
        Rack,
        PowerDevice,
        EnergyStorage,
        CoolingPlant,
        CoolingUnit,
        Pod,
        Switch,
        Link,
    )
}


def _fields(model, row: dict, names: tuple[str, ...], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The named values of ``row`` that differ from the model default (required ones always), no nulls and
    no empty objects."""
    defaults = _DEFAULTS[model]
    out: dict[str, Any] = {}
    for name in names:
        value = row[name]
        if name not in required and (value in (None, "", {}) or defaults.get(name, _MISSING) == value):
            continue
        out[name] = value
    return out


def _dates(row: dict) -> dict[str, str]:
    """The service dates the row carries, as ISO dates (absent when empty)."""
    return {name: row[name].isoformat() for name in ("in_service_date", "retire_date") if row.get(name)}


def export_campus(campus: Campus | int) -> dict[str, Any]:
    """The spec of one campus as a plain dict (dump it as YAML or JSON)."""
    campus = campus if isinstance(campus, Campus) else Campus.objects.get(pk=campus)
    cid = campus.pk
    node_slug = dict(NodeModel.objects.values_list("id", "slug"))
    switch_slug = dict(SwitchModel.objects.values_list("id", "slug"))
    medium_slug = dict(LinkMedium.objects.values_list("id", "slug"))

    campus_row = Campus.objects.filter(pk=cid).values().get()
    spec: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "campus": _fields(
            Campus,
            campus_row,
            (
                "name",
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
            ),
            required=("name", "grid_capacity_mw"),
        ),
    }

    feed_name = {}
    utility_feeds = []
    for row in UtilityFeed.objects.filter(campus_id=cid).order_by("name").values():
        feed_name[row["id"]] = row["name"]
        utility_feeds.append(
            _fields(
                UtilityFeed,
                row,
                ("name", "utility", "capacity_mw", "voltage_kv", "status"),
                ("name", "capacity_mw"),
            )
            | _dates(row)
        )

    # Sites.
    building_name: dict[int, str] = {}
    buildings: dict[int, dict] = {}
    for row in Building.objects.filter(campus_id=cid).order_by("name").values():
        building_name[row["id"]] = row["name"]
        buildings[row["id"]] = _fields(
            Building,
            row,
            ("name", "x_m", "y_m", "width_m", "length_m", "design_it_mw", "status"),
            ("name", "width_m", "length_m"),
        ) | _dates(row)
    hall_key: dict[int, tuple[str, str]] = {}
    halls: dict[int, dict] = {}
    for row in DataHall.objects.filter(building__campus_id=cid).order_by("name").values():
        hall_key[row["id"]] = (building_name[row["building_id"]], row["name"])
        hall = _fields(
            DataHall,
            row,
            ("name", "x_m", "y_m", "width_m", "length_m", "design_it_mw"),
            ("name", "width_m", "length_m"),
        ) | _dates(row)
        halls[row["id"]] = hall
        buildings[row["building_id"]].setdefault("halls", []).append(hall)
    rows: dict[int, dict] = {}
    for row in Row.objects.filter(hall__building__campus_id=cid).order_by("name").values():
        rows[row["id"]] = _fields(Row, row, ("name", "x_m", "y_m"), ("name",)) | _dates(row)
        halls[row["hall_id"]].setdefault("rows", []).append(rows[row["id"]])

    device_name = dict(PowerDevice.objects.filter(campus_id=cid).values_list("id", "name"))
    unit_name = dict(CoolingUnit.objects.filter(campus_id=cid).values_list("id", "name"))
    plant_name = dict(CoolingPlant.objects.filter(campus_id=cid).values_list("id", "name"))
    pod_name = dict(Pod.objects.filter(campus_id=cid).values_list("id", "name"))
    rack_name = dict(Rack.objects.filter(campus_id=cid).values_list("id", "name"))
    rack_dates = {
        pk: (start, end)
        for pk, start, end in Rack.objects.filter(campus_id=cid).values_list(
            "id", "in_service_date", "retire_date"
        )
    }

    node_groups: dict[int, list[dict]] = defaultdict(list)
    for row in (
        Node.objects.filter(rack__campus_id=cid)
        .values("rack_id", "node_model_id", "status", "in_service_date", "retire_date")
        .annotate(n=Count("id"), first=Min("name"))
        .order_by("rack_id", "first", "node_model_id", "status", "in_service_date", "retire_date")
    ):
        group: dict[str, Any] = {"model": node_slug[row["node_model_id"]], "count": row["n"]}
        if row["status"] != NodeStatus.ACTIVE:
            group["status"] = row["status"]
        group.update(_dates(row))
        node_groups[row["rack_id"]].append(group)

    rack_sides: dict[int, dict[str, tuple[str, float]]] = defaultdict(dict)
    power_feeds = []
    feed_rows = list(PowerFeed.objects.filter(campus_id=cid).values())
    # A rack's A and B feeds go inline (feed_a, feed_b); where a side has several (a 2(N+1) rack's two
    # whips), the one from the first device by name, the others as power_feeds.
    inline_feed: dict[tuple[int, str], tuple[str, int]] = {}
    for row in feed_rows:
        inline = rack_dates.get(row["rack_id"]) == (row["in_service_date"], row["retire_date"])
        if row["rack_id"] is not None and row["side"] != FeedSide.N and inline:
            key, here = (row["rack_id"], row["side"]), (device_name[row["upstream_id"]], row["id"])
            inline_feed[key] = min(inline_feed.get(key, here), here)
    for row in feed_rows:
        side_key = (row["rack_id"], row["side"])
        if row["rack_id"] is not None and inline_feed.get(side_key, ("", None))[1] == row["id"]:
            rack_sides[row["rack_id"]][row["side"]] = (device_name[row["upstream_id"]], row["rating_kw"])
            continue
        feed: dict[str, Any] = {"from": device_name[row["upstream_id"]]}
        if row["downstream_device_id"] is not None:
            feed["to"] = device_name[row["downstream_device_id"]]
        else:
            feed["rack"] = rack_name[row["rack_id"]]
        feed["side"] = row["side"]
        feed["rating_kw"] = row["rating_kw"]
        feed.update(_dates(row))
        power_feeds.append(feed)
    power_feeds.sort(
        key=lambda f: (
            f["from"],
            f.get("to", ""),
            f.get("rack", ""),
            f["side"],
            f["rating_kw"],
            f.get("in_service_date", ""),
            f.get("retire_date", ""),
        )
    )

    rack_fields = (
        "name",
        "x_m",
        "y_m",
        "width_m",
        "depth_m",
        "rack_units",
        "cooling_type",
        "design_kw",
        "extra_it_kw",
        "status",
    )
    for row in Rack.objects.filter(campus_id=cid).order_by("name").values():
        rack = _fields(Rack, row, rack_fields, ("name", "x_m", "y_m", "design_kw"))
        sides = rack_sides.get(row["id"], {})
        if "A" in sides:
            rack["feed_a"] = sides["A"][0]
        if "B" in sides:
            rack["feed_b"] = sides["B"][0]
        ratings = {side: rating for side, (_, rating) in sides.items()}
        if len(set(ratings.values())) == 1:
            rack["feed_rating_kw"] = next(iter(ratings.values()))
        else:
            for side, rating in sorted(ratings.items()):
                rack[f"feed_{side.lower()}_rating_kw"] = rating
        if row["cooling_unit_id"] is not None:
            rack["cooling_unit"] = unit_name[row["cooling_unit_id"]]
        if row["pod_id"] is not None:
            rack["pod"] = pod_name[row["pod_id"]]
        if row["id"] in node_groups:
            rack["nodes"] = node_groups[row["id"]]
        rack.update(_dates(row))
        parent = rows[row["row_id"]] if row["row_id"] is not None else halls[row["hall_id"]]
        parent.setdefault("racks", []).append(rack)

    def place(row: dict, with_building: bool) -> dict[str, str]:
        out = {}
        if with_building and row.get("building_id") is not None:
            out["building"] = building_name[row["building_id"]]
        if row.get("hall_id") is not None:
            out["building"], out["hall"] = hall_key[row["hall_id"]]
        return out

    power_devices = []
    for row in PowerDevice.objects.filter(campus_id=cid).order_by("name").values():
        device = _fields(PowerDevice, row, ("name", "kind"), ("name", "kind"))
        device.update(place(row, with_building=True))
        device.update(
            _fields(
                PowerDevice,
                row,
                (
                    "rated_kw",
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
                ("rated_kw",),
            )
        )
        if row["utility_feed_id"] is not None:
            device["utility_feed"] = feed_name[row["utility_feed_id"]]
        device.update(_dates(row))
        power_devices.append(device)

    energy_storage = []
    for row in EnergyStorage.objects.filter(campus_id=cid).order_by("name").values():
        store = _fields(EnergyStorage, row, ("name",), ("name",))
        if row["building_id"] is not None:
            store["building"] = building_name[row["building_id"]]
        if row["power_device_id"] is not None:
            store["power_device"] = device_name[row["power_device_id"]]
        store.update(
            _fields(
                EnergyStorage,
                row,
                ("power_mw", "energy_mwh", "round_trip_efficiency", "response_ms", "status"),
                ("power_mw", "energy_mwh"),
            )
        )
        store.update(_dates(row))
        energy_storage.append(store)

    storage_systems = export_storage_systems(cid, building_name)

    cooling_plants = []
    for row in CoolingPlant.objects.filter(campus_id=cid).order_by("name").values():
        plant = _fields(CoolingPlant, row, ("name", "kind"), ("name", "kind"))
        plant.update(place(row, with_building=True))
        plant.update(
            _fields(
                CoolingPlant,
                row,
                ("capacity_kw", "cop", "restart_minutes", "status", "fixed_kw", "eir_ref", "eir_per_k"),
                ("capacity_kw",),
            )
        )
        if row["power_device_id"] is not None:
            plant["power_device"] = device_name[row["power_device_id"]]
        if row["power_device_b_id"] is not None:
            plant["power_device_b"] = device_name[row["power_device_b_id"]]
        plant.update(_dates(row))
        cooling_plants.append(plant)

    cooling_units = []
    for row in CoolingUnit.objects.filter(campus_id=cid).order_by("name").values():
        unit = _fields(CoolingUnit, row, ("name", "kind"), ("name", "kind"))
        unit.update(place(row, with_building=False))
        if row["plant_id"] is not None:
            unit["plant"] = plant_name[row["plant_id"]]
        if row["power_device_id"] is not None:
            unit["power_device"] = device_name[row["power_device_id"]]
        if row["power_device_b_id"] is not None:
            unit["power_device_b"] = device_name[row["power_device_b_id"]]
        unit.update(
            _fields(
                CoolingUnit,
                row,
                (
                    "capacity_kw",
                    "supply_temp_c",
                    "return_temp_c",
                    "flow_lpm",
                    "group",
                    "x_m",
                    "y_m",
                    "status",
                ),
                ("capacity_kw",),
            )
        )
        unit.update(_dates(row))
        cooling_units.append(unit)

    pods = []
    for row in Pod.objects.filter(campus_id=cid).order_by("name").values():
        pod = _fields(Pod, row, ("name",), ("name",))
        if row["building_id"] is not None:
            pod["building"] = building_name[row["building_id"]]
        pod.update(_fields(Pod, row, ("fabric", "topology", "oversubscription", "priority")))
        if row["switch_model_id"] is not None:
            pod["switch_model"] = switch_slug[row["switch_model_id"]]
        pod.update(_dates(row))
        pods.append(pod)

    switch_name = {}
    switches = []
    for row in Switch.objects.filter(campus_id=cid).order_by("name").values():
        switch_name[row["id"]] = row["name"]
        switch = _fields(Switch, row, ("name",), ("name",))
        if row["pod_id"] is not None:
            switch["pod"] = pod_name[row["pod_id"]]
        switch["tier"] = row["tier"]
        switch.update(_fields(Switch, row, ("network",)))
        switch["model"] = switch_slug[row["model_id"]]
        switch["count"] = row["count"]
        switch.update(place(row, with_building=False))
        if row["rack_id"] is not None:
            switch["rack"] = rack_name[row["rack_id"]]
        switch.update(_dates(row))
        switches.append(switch)

    links = []
    for row in Link.objects.filter(campus_id=cid).values():
        link: dict[str, Any] = {}
        if row["pod_id"] is not None:
            link["pod"] = pod_name[row["pod_id"]]
        link.update(_fields(Link, row, ("network",)))
        if row["a_rack_id"] is not None:
            link["a_rack"] = rack_name[row["a_rack_id"]]
        else:
            link["a_switch"] = switch_name[row["a_switch_id"]]
        link["b_switch"] = switch_name[row["b_switch_id"]]
        link["medium"] = medium_slug[row["medium_id"]]
        link["count"] = row["count"]
        link["length_m"] = row["length_m"]
        link.update(_fields(Link, row, ("speed_gbps",)))
        link.update(_dates(row))
        links.append(link)
    links.sort(
        key=lambda k: (
            k.get("pod", ""),
            k.get("network", ""),
            k.get("a_rack", ""),
            k.get("a_switch", ""),
            k["b_switch"],
            k["medium"],
            k["length_m"],
            k["count"],
            k.get("speed_gbps", 0.0),
            k.get("in_service_date", ""),
            k.get("retire_date", ""),
        )
    )

    for key, value in (
        ("utility_feeds", utility_feeds),
        ("buildings", list(buildings.values())),
        ("power_devices", power_devices),
        ("power_feeds", power_feeds),
        ("energy_storage", energy_storage),
        ("storage_systems", storage_systems),
        ("cooling_plants", cooling_plants),
        ("cooling_units", cooling_units),
        ("pods", pods),
        ("switches", switches),
        ("links", links),
    ):
        if value:
            spec[key] = value
    return spec
