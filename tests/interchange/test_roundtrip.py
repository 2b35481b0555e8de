"""Export is deterministic and import gives it back: export → import → export is identical."""

import copy

import pytest

from campus.interchange.exporter import export_campus
from campus.interchange.formats import dump_spec, parse_spec
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Campus, Node, PowerDevice, PowerFeed, Rack


def reimported(spec: dict) -> dict:
    """Import ``spec`` under its own name after deleting the campus of that name, and export it again."""
    Campus.objects.filter(name=spec["campus"]["name"]).delete()
    return export_campus(import_campus(copy.deepcopy(spec)))


@pytest.mark.django_db
def test_generated_mix_campus_round_trips_identically():
    spec = generate_spec(
        "Round trip",
        mix=[{"gpu_model": "h100-sxm", "gpus": 1024}, {"gpu_model": "gb200", "gpus": 288}],
        pod_max_gpus=1024,
        hall_max_it_mw=1.0,
        building_max_it_mw=1.5,
    )
    first = export_campus(import_campus(spec))
    second = reimported(first)
    assert second == first
    assert len(first["buildings"]) == 2


@pytest.mark.django_db
def test_round_trip_through_yaml_and_json_text():
    first = export_campus(import_campus(generate_spec("Text round trip", 512, topology="middle-of-rack")))
    for fmt in ("yaml", "json"):
        assert reimported(parse_spec(dump_spec(first, fmt), fmt)) == first


@pytest.mark.django_db
def test_hand_edited_inventory_round_trips(small_spec):
    """Things the generator never writes: node statuses, unequal A/B ratings, single-corded racks, racks
    outside rows, N-side feeds, devices without a building."""
    small_spec["buildings"][0]["halls"][0]["racks"] = [
        {"name": "LOOSE-1", "x_m": 10.0, "y_m": 10.0, "design_kw": 12.5, "status": "planned"}
    ]
    small_spec["power_devices"].append(
        {"name": "RPP-1", "kind": "rpp", "rated_kw": 30.0, "status": "offline"}
    )
    small_spec["power_feeds"].append({"from": "RPP-1", "rack": "LOOSE-1", "side": "N", "rating_kw": 20.0})
    rack = small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]
    rack.pop("feed_rating_kw")
    rack["feed_a_rating_kw"] = 45.0
    rack["feed_b_rating_kw"] = 60.0
    rack["nodes"] = [
        {"model": "hgx-h100-8", "count": 2},
        {"model": "hgx-h100-8", "count": 1, "status": "spare"},
        {"model": "dgx-h100", "count": 1, "status": "failed"},
    ]
    campus = import_campus(small_spec)
    first = export_campus(campus)
    exported_rack = first["buildings"][0]["halls"][0]["rows"][0]["racks"][1]
    assert exported_rack["feed_a_rating_kw"] == 45.0 and exported_rack["feed_b_rating_kw"] == 60.0
    assert exported_rack["nodes"] == rack["nodes"]
    assert first["buildings"][0]["halls"][0]["racks"][0]["name"] == "LOOSE-1"
    assert {"from": "RPP-1", "rack": "LOOSE-1", "side": "N", "rating_kw": 20.0} in first["power_feeds"]
    assert reimported(first) == first


@pytest.mark.django_db
def test_export_reflects_edits_made_outside_the_spec(small_spec):
    campus = import_campus(small_spec)
    PowerDevice.objects.filter(campus=campus, name="PDU-B").update(rated_kw=175.0)
    Rack.objects.filter(campus=campus, name="R01-02").update(design_kw=55.5)
    Node.objects.filter(name="R01-01-n04").update(status="maintenance")
    spec = export_campus(campus)
    assert next(d for d in spec["power_devices"] if d["name"] == "PDU-B")["rated_kw"] == 175.0
    racks = spec["buildings"][0]["halls"][0]["rows"][0]["racks"]
    assert racks[1]["design_kw"] == 55.5
    assert racks[0]["nodes"] == [
        {"model": "hgx-h100-8", "count": 3},
        {"model": "hgx-h100-8", "count": 1, "status": "maintenance"},
    ]
    assert reimported(spec) == spec


@pytest.mark.django_db
def test_export_order_does_not_depend_on_insert_order(small_spec):
    first = export_campus(import_campus(copy.deepcopy(small_spec)))
    Campus.objects.all().delete()
    shuffled = copy.deepcopy(small_spec)
    for key in ("power_devices", "power_feeds", "links", "switches", "utility_feeds"):
        shuffled[key].reverse()
    shuffled["buildings"][0]["halls"][0]["rows"][0]["racks"].reverse()
    assert export_campus(import_campus(shuffled)) == first
    assert PowerFeed.objects.count() == 8


@pytest.mark.django_db
def test_dual_fed_mechanical_loads_round_trip_and_reach_the_snapshot(small_spec):
    from campus.snapshot_adapter import build_snapshot

    small_spec["cooling_units"][0]["power_device_b"] = "UPS-B"
    small_spec["cooling_plants"][0].update(power_device="SUB-A", power_device_b="SUB-B")
    campus = import_campus(small_spec)
    first = export_campus(campus)
    assert first["cooling_units"][0]["power_device"] == "UPS-A"
    assert first["cooling_units"][0]["power_device_b"] == "UPS-B"
    assert (first["cooling_plants"][0]["power_device"], first["cooling_plants"][0]["power_device_b"]) == (
        "SUB-A",
        "SUB-B",
    )
    assert reimported(first) == first

    snap = build_snapshot(Campus.objects.get(name=first["campus"]["name"]))
    ids = {d.name: d.id for d in snap.power_devices}
    assert snap.cooling_units[0].supply_ids == (ids["UPS-A"], ids["UPS-B"])
    assert snap.cooling_plants[0].supply_ids == (ids["SUB-A"], ids["SUB-B"])


@pytest.mark.django_db
def test_unknown_second_supply_is_refused_naming_the_field(small_spec):
    from campus.interchange.importer import SpecError

    small_spec["cooling_units"][0]["power_device_b"] = "NOPE"
    with pytest.raises(SpecError) as err:
        import_campus(small_spec)
    assert "cooling_units[0].power_device_b" in str(err.value)


@pytest.mark.django_db
def test_service_dates_round_trip_through_yaml_text():
    """Dates on buildings, racks, servers and feeds come back as written, unquoted YAML dates included;
    a rack feed whose dates differ from its rack's is written as a power feed of its own."""
    spec = generate_spec(
        "Dated",
        phases=[
            {"date": "2026-01-01", "gpus": 256, "gpu_model": "h100-sxm"},
            {"date": "2026-09-01", "gpus": 256, "gpu_model": "h100-sxm"},
        ],
    )
    first = export_campus(import_campus(spec))
    assert [b["in_service_date"] for b in first["buildings"]] == ["2026-01-01", "2026-09-01"]
    rack = first["buildings"][1]["halls"][0]["rows"][0]["racks"][0]
    assert rack["in_service_date"] == "2026-09-01"
    assert rack["nodes"][0]["in_service_date"] == "2026-09-01"
    # a 2N rack's second whip a side is a power feed of its own (feed_a, feed_b: the first by device name)
    whips = [f for f in first["power_feeds"] if f.get("rack") == rack["name"]]
    assert [(f["side"], f["from"]) for f in whips] == [
        ("A", rack["feed_a"][:-1] + "2"),
        ("B", rack["feed_b"][:-1] + "2"),
    ]
    feed = PowerFeed.objects.get(rack__name=rack["name"], side="A", upstream__name=rack["feed_a"])
    PowerFeed.objects.filter(pk=feed.pk).update(in_service_date="2026-10-01", retire_date="2031-01-01")
    edited = export_campus(Campus.objects.get(name="Dated"))
    # the other A whip, dated as its rack, is written inline now
    assert edited["buildings"][1]["halls"][0]["rows"][0]["racks"][0]["feed_a"] == whips[0]["from"]
    loose = [f for f in edited["power_feeds"] if f.get("rack") == rack["name"] and f["side"] == "A"]
    assert loose == [
        {
            "from": feed.upstream.name,
            "rack": rack["name"],
            "side": "A",
            "rating_kw": feed.rating_kw,
            "in_service_date": "2026-10-01",
            "retire_date": "2031-01-01",
        }
    ]
    text = dump_spec(edited, "yaml").replace("'2026-09-01'", "2026-09-01")  # unquoted, as a person writes it
    assert reimported(parse_spec(text, "yaml")) == edited


@pytest.mark.django_db
def test_price_overrides_round_trip_and_reach_the_snapshot(small_spec):
    from campus.interchange.spec_snapshot import spec_snapshot
    from campus.snapshot_adapter import build_snapshot

    small_spec["campus"]["price_overrides"] = {"switch/quantum-2-qm9700": 30_000.0, "power-device/ups": 250.0}
    first = export_campus(import_campus(small_spec))
    assert first["campus"]["price_overrides"] == small_spec["campus"]["price_overrides"]
    assert reimported(first) == first
    snap = build_snapshot(Campus.objects.get(name=first["campus"]["name"]))
    assert snap.price_overrides == (("power-device/ups", 250.0), ("switch/quantum-2-qm9700", 30_000.0))
    generated = generate_spec("Priced", 64)
    generated["campus"]["price_overrides"] = first["campus"]["price_overrides"]
    assert spec_snapshot(generated).price_overrides == snap.price_overrides
    # a campus without overrides exports none
    del small_spec["campus"]["price_overrides"]
    assert "price_overrides" not in reimported(small_spec)["campus"]
