"""A generated campus spec as a snapshot, without the database: the path property tests take over the
generator's parameter space (the importer writes the same spec into the database for the API).

Ids are assigned in document order per kind; the catalog specs come from ``campus.catalog_data``.
Only what the analysis reads is filled in; defaults follow the models (status active, other IT 10%).
"""

from __future__ import annotations

from typing import Any

from campus import catalog_data as cat
from campus.analysis.catalog import catalog_specs
from campus.analysis.snapshot import (
    BuildingSnap,
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
    HallSnap,
    LinkSnap,
    PodSnap,
    PowerDeviceSnap,
    PowerFeedSnap,
    RackSnap,
    SwitchSnap,
    UtilityFeedSnap,
)


def spec_snapshot(spec: dict[str, Any], campus_id: int = 1) -> CampusSnapshot:
    c = spec["campus"]
    feeds = {f["name"]: i for i, f in enumerate(spec.get("utility_feeds", []), 1)}
    buildings: list[BuildingSnap] = []
    halls: list[HallSnap] = []
    hall_id: dict[tuple[str, str], int] = {}
    rack_specs: list[tuple[dict, int, int]] = []
    for bi, b in enumerate(spec.get("buildings", []), 1):
        buildings.append(BuildingSnap(bi, b["name"], b["x_m"], b["y_m"], b["width_m"], b["length_m"]))
        for h in b.get("halls", []):
            hid = len(halls) + 1
            halls.append(HallSnap(hid, bi, h["name"], h["width_m"], h["length_m"]))
            hall_id[(b["name"], h["name"])] = hid
            for row in h.get("rows", []):
                rack_specs.extend((k, hid, bi) for k in row.get("racks", []))
            rack_specs.extend((k, hid, bi) for k in h.get("racks", []))
    building_id = {b.name: b.id for b in buildings}
    devices = {d["name"]: i for i, d in enumerate(spec.get("power_devices", []), 1)}
    plants = {p["name"]: i for i, p in enumerate(spec.get("cooling_plants", []), 1)}
    units = {u["name"]: i for i, u in enumerate(spec.get("cooling_units", []), 1)}
    pods = {p["name"]: i for i, p in enumerate(spec.get("pods", []), 1)}
    racks = {k["name"]: i for i, (k, _, _) in enumerate(rack_specs, 1)}
    switches = {s["name"]: i for i, s in enumerate(spec.get("switches", []), 1)}

    def hall_of(item: dict) -> int | None:
        return hall_id[(item["building"], item["hall"])] if "hall" in item else None

    power_feeds = [
        PowerFeedSnap(
            i,
            devices[f["from"]],
            devices.get(f.get("to")),
            racks.get(f.get("rack")),
            f.get("side", "N"),
            f["rating_kw"],
        )
        for i, f in enumerate(spec.get("power_feeds", []), 1)
    ]
    for k, _, _ in rack_specs:
        for side in ("a", "b"):
            if dev := k.get(f"feed_{side}"):
                rating = k.get(f"feed_{side}_rating_kw", k.get("feed_rating_kw", k["design_kw"]))
                power_feeds.append(
                    PowerFeedSnap(
                        len(power_feeds) + 1, devices[dev], None, racks[k["name"]], side.upper(), rating
                    )
                )
    return CampusSnapshot(
        id=campus_id,
        name=c["name"],
        grid_capacity_kw=c["grid_capacity_mw"] * 1000.0,
        price_usd_per_kwh=c.get("price_usd_per_kwh", 0.078),
        design_pue=c.get("design_pue", 1.3),
        ambient_temp_c=c.get("ambient_temp_c", 25.0),
        other_it_fraction=c.get("other_it_fraction", cat.default_value("other_it_fraction")),
        **catalog_specs(),
        buildings=tuple(buildings),
        halls=tuple(halls),
        racks=tuple(
            RackSnap(
                id=racks[k["name"]],
                name=k["name"],
                hall_id=hid,
                building_id=bid,
                x_m=k["x_m"],
                y_m=k["y_m"],
                cooling_type=k.get("cooling_type", "air"),
                design_kw=k["design_kw"],
                cooling_unit_id=units.get(k.get("cooling_unit")),
                pod_id=pods.get(k.get("pod")),
                status=k.get("status", "active"),
                nodes=tuple(
                    (g["model"], int(g["count"]))
                    for g in k.get("nodes", [])
                    if g.get("status", "active") == "active"
                ),
                extra_it_kw=k.get("extra_it_kw", 0.0),
            )
            for k, hid, bid in rack_specs
        ),
        utility_feeds=tuple(
            UtilityFeedSnap(feeds[f["name"]], f["name"], f["capacity_mw"] * 1000.0)
            for f in spec.get("utility_feeds", [])
        ),
        power_devices=tuple(
            PowerDeviceSnap(
                id=devices[d["name"]],
                name=d["name"],
                kind=d["kind"],
                rated_kw=d["rated_kw"],
                efficiency=d.get("efficiency", cat.device_efficiency(d["kind"])),
                max_utilization=d.get("max_utilization", cat.default_value("max_utilization")),
                building_id=building_id.get(d.get("building")),
                utility_feed_id=feeds.get(d.get("utility_feed")),
                battery_minutes=d.get("battery_minutes", 0.0),
                start_delay_s=d.get("start_delay_s", 0.0),
                ramp_s=d.get("ramp_s", 0.0),
                status=d.get("status", "active"),
            )
            for d in spec.get("power_devices", [])
        ),
        power_feeds=tuple(power_feeds),
        cooling_plants=tuple(
            CoolingPlantSnap(
                plants[p["name"]],
                p["name"],
                p["kind"],
                p["capacity_kw"],
                p.get("cop", cat.default_value("chiller_cop")),
                building_id.get(p.get("building")),
                devices.get(p.get("power_device")),
                p.get("restart_minutes", 6.0),
                devices.get(p.get("power_device_b")),
            )
            for p in spec.get("cooling_plants", [])
        ),
        cooling_units=tuple(
            CoolingUnitSnap(
                units[u["name"]],
                u["name"],
                u["kind"],
                u["capacity_kw"],
                u.get("supply_temp_c", 25.0),
                u.get("return_temp_c", 45.0),
                u.get("flow_lpm", 0.0),
                plants.get(u.get("plant")),
                devices.get(u.get("power_device")),
                hall_of(u),
                u.get("group", ""),
                devices.get(u.get("power_device_b")),
            )
            for u in spec.get("cooling_units", [])
        ),
        pods=tuple(
            PodSnap(
                pods[p["name"]],
                p["name"],
                p.get("fabric", "infiniband-ndr"),
                p.get("topology", "rail-optimized"),
                p.get("oversubscription", 1.0),
                p.get("switch_model"),
                building_id.get(p.get("building")),
            )
            for p in spec.get("pods", [])
        ),
        switches=tuple(
            SwitchSnap(
                switches[s["name"]],
                s["name"],
                pods.get(s.get("pod")),
                s["tier"],
                s["model"],
                int(s.get("count", 1)),
                hall_of(s),
                racks.get(s.get("rack")),
                s.get("network", "backend"),
            )
            for s in spec.get("switches", [])
        ),
        links=tuple(
            LinkSnap(
                i,
                pods.get(x.get("pod")),
                x.get("network", "backend"),
                x["medium"],
                int(x["count"]),
                x["length_m"],
                x.get("speed_gbps", 400.0),
                racks.get(x.get("a_rack")),
                switches.get(x.get("a_switch")),
                switches[x["b_switch"]],
            )
            for i, x in enumerate(spec.get("links", []), 1)
        ),
    )
