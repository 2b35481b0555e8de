"""The JSON Schema of a campus spec (YAML or JSON), version 1.

The schema checks shape, types, enumerations and ranges; the ranges mirror the model validators so a
spec that passes never trips a database constraint. References by name, catalog slugs, duplicates,
geometry and the power graph are checked in Python by ``campus.interchange.validation``. docs/campus-spec.md
describes every field.
"""

from __future__ import annotations

from typing import Any

from campus.analysis.capex import MAX_PRICE_USD, price_keys
from campus.choices import (
    Climate,
    CoolingPlantKind,
    CoolingType,
    CoolingUnitKind,
    Fabric,
    FeedSide,
    Network,
    NodeStatus,
    PowerDeviceKind,
    Redundancy,
    Status,
    StorageKind,
    SwitchTier,
    Topology,
)

SPEC_VERSION = 1

# Positions on a campus plan or inside a building/hall, m. Wide enough for any real site.
_COORD = {"type": "number", "minimum": -1_000_000, "maximum": 1_000_000}


def _name(max_length: int = 128) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_length}


def _text(max_length: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_length}


def _num(minimum: float, maximum: float, exclusive_minimum: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "number", "maximum": maximum}
    out["exclusiveMinimum" if exclusive_minimum else "minimum"] = minimum
    return out


def _int(minimum: int, maximum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def _enum(choices) -> dict[str, Any]:
    return {"type": "string", "enum": list(choices.values)}


def _obj(properties: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
        **extra,
    }


def _list(items: dict[str, Any], max_items: int = 1_000_000) -> dict[str, Any]:
    return {"type": "array", "items": items, "maxItems": max_items}


_SLUG = {"type": "string", "minLength": 1, "maxLength": 64}
# Service dates (ISO 8601 calendar dates; the validation checks the day exists and retire > in service).
_DATE = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
PHASES = {"in_service_date": _DATE, "retire_date": _DATE}
# A rack's A/B feed ratings: a rack draws at most 1,000 kW (Rack.design_kw), a feed may be sized above it.
_RACK_FEED_KW = _num(0.1, 2_000)

NODE_GROUP = _obj(
    {"model": _SLUG, "count": _int(1, 1_000), "status": _enum(NodeStatus), **PHASES},
    required=("model", "count"),
)

RACK = _obj(
    {
        # Node names are "<rack>-n01": keep room for the suffix within the 128 characters of Node.name.
        "name": _name(120),
        "x_m": _COORD,
        "y_m": _COORD,
        "width_m": _num(0.1, 5),
        "depth_m": _num(0.1, 5),
        "rack_units": _int(1, 60),
        "cooling_type": _enum(CoolingType),
        "design_kw": _num(0, 1_000),
        "extra_it_kw": _num(0, 500),
        "status": _enum(Status),
        "feed_a": _name(),
        "feed_b": _name(),
        "feed_rating_kw": _RACK_FEED_KW,
        "feed_a_rating_kw": _RACK_FEED_KW,
        "feed_b_rating_kw": _RACK_FEED_KW,
        "cooling_unit": _name(),
        "pod": _name(),
        "nodes": _list(NODE_GROUP, 1_000),
        **PHASES,
    },
    required=("name", "x_m", "y_m", "design_kw"),
)

ROW = _obj(
    {"name": _name(64), "x_m": _COORD, "y_m": _COORD, "racks": _list(RACK, 10_000), **PHASES},
    required=("name",),
)

HALL = _obj(
    {
        "name": _name(),
        "x_m": _COORD,
        "y_m": _COORD,
        "width_m": _num(1, 2_000),
        "length_m": _num(1, 2_000),
        "design_it_mw": _num(0, 10_000),
        "rows": _list(ROW, 10_000),
        "racks": _list(RACK, 100_000),
        **PHASES,
    },
    required=("name", "width_m", "length_m"),
)

BUILDING = _obj(
    {
        "name": _name(),
        "x_m": _COORD,
        "y_m": _COORD,
        "width_m": _num(1, 100_000),
        "length_m": _num(1, 100_000),
        "design_it_mw": _num(0, 100_000),
        "status": _enum(Status),
        "halls": _list(HALL, 10_000),
        **PHASES,
    },
    required=("name",),
)

CAMPUS = _obj(
    {
        "name": _name(),
        "location": _text(256),
        "latitude": _num(-90, 90),
        "longitude": _num(-180, 180),
        # above 0: the twin models no campus without a grid limit (rules.GRID_CAPACITY_MESSAGE)
        "grid_capacity_mw": _num(0, 100_000, exclusive_minimum=True),
        "price_usd_per_kwh": _num(0, 10),
        "design_pue": {**_num(1, 3), "type": ["number", "null"]},  # null or absent: the plant model
        "ambient_temp_c": _num(-60, 60),
        "other_it_fraction": _num(0, 0.9),
        # the modelled server power, as a calibration from measured rack power sets it (docs/live.md)
        "gpu_power_fraction": _num(0.05, 1.2),
        "server_overhead_scale": _num(0.1, 3),
        "climate": _enum(Climate),
        # declared, checked against the topology by the design check (campus.analysis.redundancy)
        "power_redundancy": _enum(Redundancy),
        "cooling_redundancy": _enum(Redundancy),
        "description": _text(100_000),
        # the campus's own unit prices by price-catalog key (docs/capex.md)
        "price_overrides": {
            "type": "object",
            "propertyNames": {"enum": sorted(price_keys())},
            "additionalProperties": _num(0, MAX_PRICE_USD),
        },
    },
    required=("name", "grid_capacity_mw"),
)

UTILITY_FEED = _obj(
    {
        "name": _name(),
        "utility": _text(128),
        "capacity_mw": _num(0, 100_000, exclusive_minimum=True),
        "voltage_kv": _num(0, 2_000),
        "status": _enum(Status),
        **PHASES,
    },
    required=("name", "capacity_mw"),
)

# A hall is named inside its building, so every reference to a hall comes with the building.
_HALL_NEEDS_BUILDING = {"dependencies": {"hall": ["building"]}}
# Cooling units and switches are placed by hall only; their building just qualifies the hall name.
_HALL_AND_BUILDING = {"dependencies": {"hall": ["building"], "building": ["hall"]}}

POWER_DEVICE = _obj(
    {
        "name": _name(),
        "kind": _enum(PowerDeviceKind),
        "building": _name(),
        "hall": _name(),
        "rated_kw": _num(0.1, 2_000_000),
        "efficiency": _num(0.5, 1),
        "max_utilization": _num(0.1, 1),
        "utility_feed": _name(),
        "battery_minutes": _num(0, 1_440),
        "start_delay_s": _num(0, 3_600),
        "ramp_s": _num(0, 10_800),
        "prime_rating_kw": _num(0.1, 2_000_000),
        "ramp_kw_per_s": _num(0.001, 2_000_000),
        "fuel_usd_per_mwh": _num(0, 100_000),
        "status": _enum(Status),
        **PHASES,
    },
    required=("name", "kind", "rated_kw"),
    **_HALL_NEEDS_BUILDING,
)

ENERGY_STORAGE = _obj(
    {
        "name": _name(),
        "building": _name(),
        "power_device": _name(),
        "power_mw": _num(0, 100_000, exclusive_minimum=True),
        "energy_mwh": _num(0, 1_000_000, exclusive_minimum=True),
        "round_trip_efficiency": _num(0, 1, exclusive_minimum=True),
        "response_ms": _num(0, 600_000),
        "status": _enum(Status),
        **PHASES,
    },
    required=("name", "power_mw", "energy_mwh"),
)

STORAGE_SYSTEM = _obj(
    {
        "name": _name(),
        "building": _name(),
        "kind": _enum(StorageKind),
        "capacity_pb": _num(0.001, 1_000_000),
        "read_gb_s": _num(0.001, 10_000_000),
        "write_gb_s": _num(0.001, 10_000_000),
        "power_kw": _num(0, 1_000_000),
        "racks": _int(0, 100_000),
        "frontend_gbps_per_node": _num(1, 100_000),
        "status": _enum(Status),
        **PHASES,
    },
    required=("name", "capacity_pb", "read_gb_s", "write_gb_s"),
)

POWER_FEED = _obj(
    {
        "from": _name(),
        "to": _name(),
        "rack": _name(),
        "side": _enum(FeedSide),
        "rating_kw": _num(0.1, 2_000_000),
        **PHASES,
    },
    required=("from", "rating_kw"),
)

COOLING_PLANT = _obj(
    {
        "name": _name(),
        "kind": _enum(CoolingPlantKind),
        "building": _name(),
        "capacity_kw": _num(1, 2_000_000),
        "cop": _num(0.5, 100),
        "restart_minutes": _num(0, 240),
        # a fitted plant (docs/model.md): all three or none (validation.check_spec)
        "fixed_kw": {**_num(0, 2_000_000), "type": ["number", "null"]},
        "eir_ref": {**_num(0, 2), "type": ["number", "null"]},
        "eir_per_k": {**_num(-0.1, 0.1), "type": ["number", "null"]},
        "power_device": _name(),
        "power_device_b": _name(),
        "status": _enum(Status),
        **PHASES,
    },
    required=("name", "kind", "capacity_kw"),
)

COOLING_UNIT = _obj(
    {
        "name": _name(),
        "kind": _enum(CoolingUnitKind),
        "building": _name(),
        "hall": _name(),
        "plant": _name(),
        "power_device": _name(),
        "power_device_b": _name(),
        "capacity_kw": _num(1, 100_000),
        "supply_temp_c": _num(0, 70),
        "return_temp_c": _num(0, 90),
        "flow_lpm": _num(0, 10_000_000),
        "group": _text(64),
        "x_m": _COORD,
        "y_m": _COORD,
        "status": _enum(Status),
        **PHASES,
    },
    required=("name", "kind", "capacity_kw"),
    **_HALL_AND_BUILDING,
)

POD = _obj(
    {
        "name": _name(),
        "building": _name(),
        "fabric": _enum(Fabric),
        "topology": _enum(Topology),
        "oversubscription": _num(1, 64),
        "switch_model": _SLUG,
        "priority": _int(-32_768, 32_767),
        **PHASES,
    },
    required=("name",),
)

SWITCH = _obj(
    {
        "name": _name(),
        "pod": _name(),
        "tier": _enum(SwitchTier),
        "network": _enum(Network),
        "model": _SLUG,
        "count": _int(1, 100_000),
        "building": _name(),
        "hall": _name(),
        "rack": _name(),
        **PHASES,
    },
    required=("name", "tier", "model"),
    **_HALL_AND_BUILDING,
)

LINK = _obj(
    {
        "pod": _name(),
        "network": _enum(Network),
        "a_rack": _name(),
        "a_switch": _name(),
        "b_switch": _name(),
        "medium": _SLUG,
        "count": _int(1, 1_000_000),
        "length_m": _num(0.1, 200_000),
        "speed_gbps": _num(1, 3_200),
        **PHASES,
    },
    required=("b_switch", "medium", "count", "length_m"),
)

CAMPUS_SPEC_SCHEMA: dict[str, Any] = {
    # Draft 7: understood by jsonschema (full error lists) and fastjsonschema (the fast first pass).
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://campus-twin.example/schemas/campus-spec-v1.json",
    "title": "Campus Twin campus spec",
    **_obj(
        {
            "spec_version": {"type": "integer", "const": SPEC_VERSION},
            "campus": CAMPUS,
            "utility_feeds": _list(UTILITY_FEED, 1_000),
            "buildings": _list(BUILDING, 1_000),
            "power_devices": _list(POWER_DEVICE),
            "power_feeds": _list(POWER_FEED),
            "energy_storage": _list(ENERGY_STORAGE, 100_000),
            "storage_systems": _list(STORAGE_SYSTEM, 10_000),
            "cooling_plants": _list(COOLING_PLANT),
            "cooling_units": _list(COOLING_UNIT),
            "pods": _list(POD, 10_000),
            "switches": _list(SWITCH),
            "links": _list(LINK),
        },
        required=("campus",),
    ),
}
