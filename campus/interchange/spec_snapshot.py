"""A campus spec straight to a ``CampusSnapshot``, without the database.

The importer writes a spec to the database and ``campus.snapshot_adapter.build_snapshot`` reads it back;
this is the same picture in one step, for checking a generated design in memory (the generator's property
tests, notebooks, the ``generate_campus --spec-only`` path). Ids are positions in the spec (1-based, per
table), names resolve as the importer resolves them, and absent fields take the model defaults. The spec is
assumed valid (run ``campus.interchange.importer.validate_spec`` first for a spec from outside);
tests/interchange/test_spec_snapshot.py checks it against the database path.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date
from typing import Any

from campus import catalog_data as cat
from campus.analysis.catalog import catalog_specs
from campus.analysis.phases import in_service, interval, operating, snapshot_as_of
from campus.analysis.snapshot import (
    BuildingSnap,
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
    EnergyStorageSnap,
    HallSnap,
    LinkSnap,
    PodSnap,
    PowerDeviceSnap,
    PowerFeedSnap,
    RackSnap,
    StorageSnap,
    SwitchSnap,
    UtilityFeedSnap,
)
from campus.analysis.units import mw_to_kw, mwh_to_kwh
from campus.analysis.weather import DEFAULT_CLIMATE

# Model defaults (campus/models) for fields a spec may leave out.
_DEVICE_EFFICIENCY = 0.99
_DEVICE_MAX_UTILIZATION = 0.8
_AMBIENT_TEMP_C = 25.0
_RACK_COOLING_TYPE = "air"
_PLANT_COP = 5.0
_PLANT_RESTART_MINUTES = 6.0
_UNIT_SUPPLY_C, _UNIT_RETURN_C = 25.0, 45.0


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)


def _dates(row: dict) -> dict[str, date | None]:
    return {name: date.fromisoformat(row[name]) if row.get(name) else None for name in _PHASES}


def _ids(rows: list[dict]) -> dict[str, int]:
    return {r["name"]: i for i, r in enumerate(rows, start=1)}


_PHASES = ("in_service_date", "retire_date")
_SECOND_SUPPLY = any(f.name == "power_device_b_id" for f in fields(CoolingUnitSnap))


def spec_snapshot(spec: dict[str, Any], campus_id: int = 1, as_of: date | None = None) -> CampusSnapshot:
    """The snapshot ``build_snapshot(campus, as_of)`` would give after ``import_campus(spec)``, built in
    memory (``as_of``: what is in service that day, ``campus.analysis.phases``)."""
    c = spec["campus"]
    utility_rows = spec.get("utility_feeds", [])
    utility_id = _ids(utility_rows)
    building_rows = spec.get("buildings", [])
    building_id = _ids(building_rows)
    device_rows = spec.get("power_devices", [])
    device_id = _ids(device_rows)
    plant_rows = spec.get("cooling_plants", [])
    plant_id = _ids(plant_rows)
    unit_rows = spec.get("cooling_units", [])
    unit_id = _ids(unit_rows)
    pod_rows = spec.get("pods", [])
    pod_id = _ids(pod_rows)

    halls: list[HallSnap] = []
    hall_id: dict[tuple[str, str], int] = {}
    racks: list[RackSnap] = []
    rack_id: dict[str, int] = {}
    rack_feeds: list[tuple[str, str, str, float, dict]] = []  # (device, rack, side, rating, dates)
    for b in building_rows:
        bid = building_id[b["name"]]
        for h in b.get("halls", []):
            hid = len(halls) + 1
            hall_id[(b["name"], h["name"])] = hid
            halls.append(
                HallSnap(hid, bid, h["name"], float(h["width_m"]), float(h["length_m"]), **_dates(h))
            )
            placed = [(row, k) for row in h.get("rows", []) for k in row.get("racks", [])]
            placed += [({}, k) for k in h.get("racks", [])]
            for row, k in placed:
                rid = len(racks) + 1
                rack_id[k["name"]] = rid
                nodes = tuple(
                    (g["model"], int(g["count"]))
                    for g in k.get("nodes", [])
                    if g.get("status", "active") == "active"
                    and (as_of is None or in_service(_Dated(**_dates(g)), as_of))
                )
                start, end = interval([tuple(_dates(k).values()), tuple(_dates(row).values())])
                racks.append(
                    RackSnap(
                        id=rid,
                        name=k["name"],
                        hall_id=hid,
                        building_id=bid,
                        x_m=float(k["x_m"]),
                        y_m=float(k["y_m"]),
                        cooling_type=k.get("cooling_type", _RACK_COOLING_TYPE),
                        design_kw=float(k["design_kw"]),
                        cooling_unit_id=unit_id.get(k.get("cooling_unit")),
                        pod_id=pod_id.get(k.get("pod")),
                        status=k.get("status", "active"),
                        nodes=nodes,
                        extra_it_kw=float(k.get("extra_it_kw", 0.0)),
                        in_service_date=start,
                        retire_date=end,
                    )
                )
                for side in ("a", "b"):
                    if device := k.get(f"feed_{side}"):
                        rating = k.get(f"feed_{side}_rating_kw", k.get("feed_rating_kw", k["design_kw"]))
                        rack_feeds.append((device, k["name"], side.upper(), float(rating), _dates(k)))

    def hall_of(row: dict) -> int | None:
        return hall_id.get((row.get("building"), row.get("hall")))

    devices = tuple(
        PowerDeviceSnap(
            id=device_id[d["name"]],
            name=d["name"],
            kind=d["kind"],
            rated_kw=float(d["rated_kw"]),
            efficiency=float(d.get("efficiency", _DEVICE_EFFICIENCY)),
            max_utilization=float(d.get("max_utilization", _DEVICE_MAX_UTILIZATION)),
            building_id=building_id.get(d.get("building")),
            utility_feed_id=utility_id.get(d.get("utility_feed")),
            battery_minutes=float(d.get("battery_minutes", 0.0)),
            start_delay_s=float(d.get("start_delay_s", 0.0)),
            ramp_s=float(d.get("ramp_s", 0.0)),
            status=d.get("status", "active"),
            **{
                name: _optional(d.get(name))
                for name in ("prime_rating_kw", "ramp_kw_per_s", "fuel_usd_per_mwh")
            },
            **_dates(d),
            hall_id=hall_of(d),
        )
        for d in device_rows
    )
    feeds: list[PowerFeedSnap] = []
    for f in spec.get("power_feeds", []):
        to_rack = "rack" in f
        feeds.append(
            PowerFeedSnap(
                id=len(feeds) + 1,
                upstream_id=device_id[f["from"]],
                downstream_device_id=None if to_rack else device_id[f["to"]],
                rack_id=rack_id[f["rack"]] if to_rack else None,
                side=f.get("side", "N"),
                rating_kw=float(f["rating_kw"]),
                **_dates(f),
            )
        )
    for device, rack, side, rating, dates in rack_feeds:
        feeds.append(
            PowerFeedSnap(len(feeds) + 1, device_id[device], None, rack_id[rack], side, rating, **dates)
        )

    storage = tuple(
        EnergyStorageSnap(
            id=i,
            name=e["name"],
            power_kw=mw_to_kw(float(e["power_mw"])),
            energy_kwh=mwh_to_kwh(float(e["energy_mwh"])),
            round_trip_efficiency=float(
                e.get("round_trip_efficiency", cat.default_value("bess_round_trip_efficiency"))
            ),
            response_ms=float(e.get("response_ms", cat.default_value("bess_response_ms"))),
            building_id=building_id.get(e.get("building")),
            power_device_id=device_id.get(e.get("power_device")),
            status=e.get("status", "active"),
            **_dates(e),
        )
        for i, e in enumerate(spec.get("energy_storage", []), start=1)
    )

    storage_systems = tuple(
        StorageSnap(
            id=i,
            name=s["name"],
            kind=s.get("kind", "parallel-fs"),
            capacity_pb=float(s["capacity_pb"]),
            read_gb_s=float(s["read_gb_s"]),
            write_gb_s=float(s["write_gb_s"]),
            power_kw=float(s.get("power_kw", 0.0)),
            racks=int(s.get("racks", 0)),
            frontend_gbps_per_node=float(s.get("frontend_gbps_per_node", 400.0)),
            building_id=building_id.get(s.get("building")),
            status=s.get("status", "active"),
            **_dates(s),
        )
        for i, s in enumerate(spec.get("storage_systems", []), start=1)
    )

    def second(row: dict) -> dict:
        """A mechanical load's second supply, where the snapshot has the field."""
        if not _SECOND_SUPPLY:
            return {}
        return {"power_device_b_id": device_id.get(row.get("power_device_b"))}

    plants = tuple(
        CoolingPlantSnap(
            id=plant_id[p["name"]],
            name=p["name"],
            kind=p["kind"],
            capacity_kw=float(p["capacity_kw"]),
            cop=float(p.get("cop", _PLANT_COP)),
            building_id=building_id.get(p.get("building")),
            power_device_id=device_id.get(p.get("power_device")),
            restart_minutes=float(p.get("restart_minutes", _PLANT_RESTART_MINUTES)),
            status=p.get("status", "active"),
            **{f: (None if p.get(f) is None else float(p[f])) for f in ("fixed_kw", "eir_ref", "eir_per_k")},
            **second(p),
            **_dates(p),
        )
        for p in plant_rows
    )
    units = tuple(
        CoolingUnitSnap(
            id=unit_id[u["name"]],
            name=u["name"],
            kind=u["kind"],
            capacity_kw=float(u["capacity_kw"]),
            supply_temp_c=float(u.get("supply_temp_c", _UNIT_SUPPLY_C)),
            return_temp_c=float(u.get("return_temp_c", _UNIT_RETURN_C)),
            flow_lpm=float(u.get("flow_lpm", 0.0)),
            plant_id=plant_id.get(u.get("plant")),
            power_device_id=device_id.get(u.get("power_device")),
            hall_id=hall_of(u),
            group=u.get("group", ""),
            x_m=u.get("x_m"),
            y_m=u.get("y_m"),
            status=u.get("status", "active"),
            **second(u),
            **_dates(u),
        )
        for u in unit_rows
    )
    pods = tuple(
        PodSnap(
            id=pod_id[p["name"]],
            name=p["name"],
            fabric=p.get("fabric", "infiniband-ndr"),
            topology=p.get("topology", "rail-optimized"),
            oversubscription=float(p.get("oversubscription", 1.0)),
            switch_model=p.get("switch_model"),
            building_id=building_id.get(p.get("building")),
            **_dates(p),
        )
        for p in pod_rows
    )
    switch_rows = spec.get("switches", [])
    switch_id = _ids(switch_rows)
    switches = tuple(
        SwitchSnap(
            id=switch_id[s["name"]],
            name=s["name"],
            pod_id=pod_id.get(s.get("pod")),
            tier=s["tier"],
            model=s["model"],
            count=int(s.get("count", 1)),
            hall_id=hall_of(s),
            rack_id=rack_id.get(s.get("rack")),
            network=s.get("network", "backend"),
            **_dates(s),
        )
        for s in switch_rows
    )
    links = tuple(
        LinkSnap(
            id=i,
            pod_id=pod_id.get(k.get("pod")),
            network=k.get("network", "backend"),
            medium=k["medium"],
            count=int(k.get("count", 1)),
            length_m=float(k["length_m"]),
            speed_gbps=float(k["speed_gbps"]),
            a_rack_id=rack_id.get(k.get("a_rack")),
            a_switch_id=switch_id.get(k.get("a_switch")),
            b_switch_id=switch_id[k["b_switch"]],
            **_dates(k),
        )
        for i, k in enumerate(spec.get("links", []), start=1)
    )
    snap = CampusSnapshot(
        id=campus_id,
        name=c["name"],
        grid_capacity_kw=mw_to_kw(float(c.get("grid_capacity_mw", 0.0))),
        price_usd_per_kwh=float(c.get("price_usd_per_kwh", 0.0)),
        design_pue=float(c["design_pue"]) if c.get("design_pue") is not None else None,
        ambient_temp_c=float(c.get("ambient_temp_c", _AMBIENT_TEMP_C)),
        other_it_fraction=float(c.get("other_it_fraction", cat.default_value("other_it_fraction"))),
        gpu_power_fraction=float(c.get("gpu_power_fraction", 1.0)),
        server_overhead_scale=float(c.get("server_overhead_scale", 1.0)),
        climate=str(c.get("climate", DEFAULT_CLIMATE)),
        power_redundancy=str(c.get("power_redundancy", "")),
        cooling_redundancy=str(c.get("cooling_redundancy", "")),
        price_overrides=tuple(sorted((k, float(v)) for k, v in (c.get("price_overrides") or {}).items())),
        buildings=tuple(
            BuildingSnap(
                building_id[b["name"]],
                b["name"],
                float(b.get("x_m", 0.0)),
                float(b.get("y_m", 0.0)),
                float(b.get("width_m", 100.0)),
                float(b.get("length_m", 100.0)),
                **_dates(b),
            )
            for b in building_rows
        ),
        halls=tuple(halls),
        racks=tuple(racks),
        utility_feeds=tuple(
            UtilityFeedSnap(
                utility_id[u["name"]],
                u["name"],
                mw_to_kw(float(u.get("capacity_mw", 0.0))),
                status=u.get("status", "active"),
                **_dates(u),
            )
            for u in utility_rows
        ),
        power_devices=devices,
        power_feeds=tuple(feeds),
        energy_storage=storage,
        cooling_plants=plants,
        cooling_units=units,
        pods=pods,
        switches=switches,
        links=links,
        storage_systems=storage_systems,
        **catalog_specs(),
    )
    snap = operating(snap)
    return snap if as_of is None else snapshot_as_of(snap, as_of)


@dataclass(frozen=True)
class _Dated:
    in_service_date: date | None
    retire_date: date | None
