"""A small hand-written spec that uses every section, and helpers to prove nothing was written."""

import copy

import pytest

from campus.models import (
    Building,
    Campus,
    CoolingPlant,
    CoolingUnit,
    DataHall,
    Link,
    Node,
    Pod,
    PowerDevice,
    PowerFeed,
    Rack,
    Row,
    Switch,
    UtilityFeed,
)

INVENTORY_MODELS = (
    Campus,
    UtilityFeed,
    Building,
    DataHall,
    Row,
    Rack,
    Node,
    PowerDevice,
    PowerFeed,
    CoolingPlant,
    CoolingUnit,
    Pod,
    Switch,
    Link,
)


def inventory_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in INVENTORY_MODELS}


def rack(name: str, x_m: float, **extra) -> dict:
    return {
        "name": name,
        "x_m": x_m,
        "y_m": 3.0,
        "cooling_type": "direct-to-chip",
        "design_kw": 40.8,
        "feed_a": "PDU-A",
        "feed_b": "PDU-B",
        "feed_rating_kw": 50.0,
        "cooling_unit": "CDU-1",
        "pod": "POD-1",
        "nodes": [{"model": "hgx-h100-8", "count": 4}],
        **extra,
    }


SMALL_SPEC = {
    "spec_version": 1,
    "campus": {"name": "Small", "grid_capacity_mw": 2.0, "location": "Testville", "design_pue": 1.2},
    "utility_feeds": [{"name": "UTIL-A", "capacity_mw": 2.0}, {"name": "UTIL-B", "capacity_mw": 2.0}],
    "buildings": [
        {
            "name": "B1",
            "width_m": 60.0,
            "length_m": 40.0,
            "halls": [
                {
                    "name": "H1",
                    "x_m": 5.0,
                    "y_m": 5.0,
                    "width_m": 20.0,
                    "length_m": 20.0,
                    "rows": [
                        {
                            "name": "R01",
                            "x_m": 3.0,
                            "y_m": 3.0,
                            "racks": [rack("R01-01", 3.0), rack("R01-02", 3.6)],
                        }
                    ],
                }
            ],
        }
    ],
    "power_devices": [
        {
            "name": "SUB-A",
            "kind": "substation",
            "building": "B1",
            "rated_kw": 2000.0,
            "utility_feed": "UTIL-A",
        },
        {
            "name": "SUB-B",
            "kind": "substation",
            "building": "B1",
            "rated_kw": 2000.0,
            "utility_feed": "UTIL-B",
        },
        {
            "name": "UPS-A",
            "kind": "ups",
            "building": "B1",
            "hall": "H1",
            "rated_kw": 500.0,
            "battery_minutes": 5.0,
        },
        {
            "name": "UPS-B",
            "kind": "ups",
            "building": "B1",
            "hall": "H1",
            "rated_kw": 500.0,
            "battery_minutes": 5.0,
        },
        {"name": "PDU-A", "kind": "pdu", "building": "B1", "hall": "H1", "rated_kw": 150.0},
        {"name": "PDU-B", "kind": "pdu", "building": "B1", "hall": "H1", "rated_kw": 150.0},
    ],
    "power_feeds": [
        {"from": "SUB-A", "to": "UPS-A", "side": "A", "rating_kw": 500.0},
        {"from": "SUB-B", "to": "UPS-B", "side": "B", "rating_kw": 500.0},
        {"from": "UPS-A", "to": "PDU-A", "side": "A", "rating_kw": 150.0},
        {"from": "UPS-B", "to": "PDU-B", "side": "B", "rating_kw": 150.0},
    ],
    "cooling_plants": [{"name": "DRY-1", "kind": "dry-cooler", "building": "B1", "capacity_kw": 500.0}],
    "cooling_units": [
        {
            "name": "CDU-1",
            "kind": "cdu",
            "building": "B1",
            "hall": "H1",
            "plant": "DRY-1",
            "power_device": "UPS-A",
            "capacity_kw": 200.0,
        }
    ],
    "pods": [{"name": "POD-1", "building": "B1", "switch_model": "quantum-2-qm9700"}],
    "switches": [
        {
            "name": "LEAF-1",
            "pod": "POD-1",
            "tier": "leaf",
            "model": "quantum-2-qm9700",
            "count": 2,
            "building": "B1",
            "hall": "H1",
        },
        {"name": "SPINE-1", "pod": "POD-1", "tier": "spine", "model": "quantum-2-qm9700", "count": 1},
    ],
    "links": [
        {
            "pod": "POD-1",
            "a_rack": "R01-01",
            "b_switch": "LEAF-1",
            "medium": "sr",
            "count": 32,
            "length_m": 20.0,
        },
        {
            "pod": "POD-1",
            "a_rack": "R01-02",
            "b_switch": "LEAF-1",
            "medium": "sr",
            "count": 32,
            "length_m": 21.0,
        },
        {
            "pod": "POD-1",
            "a_switch": "LEAF-1",
            "b_switch": "SPINE-1",
            "medium": "sr",
            "count": 64,
            "length_m": 15.0,
        },
    ],
}


@pytest.fixture
def small_spec() -> dict:
    """A fresh deep copy, free to mutate."""
    return copy.deepcopy(SMALL_SPEC)
