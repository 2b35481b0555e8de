"""Every kind of spec error is reported with the path of the field at fault, and nothing is written."""

import copy

import pytest

from campus.interchange.formats import parse_spec
from campus.interchange.importer import SpecError, import_campus, validate_spec
from campus.models import Campus, Node, PowerFeed, Rack

from .conftest import inventory_counts

RACK0 = "buildings[0].halls[0].rows[0].racks[0]"
RACK1 = "buildings[0].halls[0].rows[0].racks[1]"


def rejected(spec: dict) -> list[dict[str, str]]:
    """Import ``spec``, expect a SpecError, check nothing was written, return the errors."""
    before = inventory_counts()
    with pytest.raises(SpecError) as caught:
        import_campus(spec)
    assert inventory_counts() == before
    return caught.value.errors


def paths(errors: list[dict[str, str]]) -> list[str]:
    return [e["path"] for e in errors]


@pytest.mark.django_db
def test_valid_small_spec_imports_every_section(small_spec):
    campus = import_campus(small_spec)
    assert campus.name == "Small"
    assert Rack.objects.filter(campus=campus).count() == 2
    assert Node.objects.filter(rack__campus=campus).count() == 8
    names = sorted(Node.objects.filter(rack__name="R01-01").values_list("name", flat=True))
    assert names == ["R01-01-n01", "R01-01-n02", "R01-01-n03", "R01-01-n04"]
    sides = PowerFeed.objects.filter(rack__name="R01-02").values_list("side", "rating_kw", "upstream__name")
    assert sorted(sides) == [("A", 50.0, "PDU-A"), ("B", 50.0, "PDU-B")]


@pytest.mark.django_db
def test_whole_numbers_written_as_floats_are_accepted_as_integers(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["nodes"][0]["count"] = 4.0
    small_spec["links"][0]["count"] = 32.0
    small_spec["switches"][0]["count"] = 2.0
    campus = import_campus(small_spec)
    assert Node.objects.filter(rack__campus=campus).count() == 8
    assert sorted(campus.links.values_list("count", flat=True)) == [32, 32, 64]


@pytest.mark.django_db
def test_schema_negative_rating_names_the_field(small_spec):
    small_spec["power_devices"][4]["rated_kw"] = -5
    errors = rejected(small_spec)
    assert paths(errors) == ["power_devices[4].rated_kw"]
    assert "minimum" in errors[0]["message"]


@pytest.mark.django_db
def test_schema_absurd_rating_names_the_field(small_spec):
    small_spec["power_feeds"][1]["rating_kw"] = 5e9
    assert paths(rejected(small_spec)) == ["power_feeds[1].rating_kw"]


@pytest.mark.django_db
def test_schema_missing_required_field_names_the_missing_field(small_spec):
    del small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]["design_kw"]
    errors = rejected(small_spec)
    assert errors == [{"path": f"{RACK1}.design_kw", "message": "this field is required"}]


@pytest.mark.django_db
def test_schema_unknown_field_is_named(small_spec):
    small_spec["buildings"][0]["halls"][0]["colour"] = "blue"
    assert rejected(small_spec) == [{"path": "buildings[0].halls[0].colour", "message": "unknown field"}]


@pytest.mark.django_db
def test_schema_bad_choice_and_wrong_type_are_all_listed(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["cooling_type"] = "steam"
    small_spec["links"][2]["count"] = "many"
    assert sorted(paths(rejected(small_spec))) == [f"{RACK0}.cooling_type", "links[2].count"]


@pytest.mark.django_db
def test_schema_hall_without_building_is_named(small_spec):
    del small_spec["power_devices"][2]["building"]
    assert paths(rejected(small_spec)) == ["power_devices[2].building"]


@pytest.mark.django_db
def test_dangling_feed_reference_names_the_device(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["feed_a"] = "PDU-9"
    assert rejected(small_spec) == [{"path": f"{RACK0}.feed_a", "message": 'unknown power device "PDU-9"'}]


@pytest.mark.django_db
def test_dangling_references_of_every_section_are_all_listed(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]["cooling_unit"] = "CDU-X"
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]["pod"] = "POD-X"
    small_spec["power_feeds"][0]["to"] = "UPS-X"
    small_spec["cooling_units"][0]["plant"] = "PLANT-X"
    small_spec["power_devices"][0]["utility_feed"] = "UTIL-X"
    small_spec["switches"][0]["hall"] = "H9"
    small_spec["links"][0]["a_rack"] = "RACK-X"
    small_spec["links"][2]["b_switch"] = "SPINE-X"
    assert sorted(paths(rejected(small_spec))) == sorted(
        [
            f"{RACK1}.cooling_unit",
            f"{RACK1}.pod",
            "power_feeds[0].to",
            "cooling_units[0].plant",
            "power_devices[0].utility_feed",
            "switches[0].hall",
            "links[0].a_rack",
            "links[2].b_switch",
        ]
    )


@pytest.mark.django_db
def test_duplicate_rack_name_points_at_the_second_one(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]["name"] = "R01-01"
    small_spec["links"].pop(1)  # it pointed at the renamed rack
    errors = rejected(small_spec)
    assert paths(errors) == [f"{RACK1}.name"]
    assert 'duplicate rack name "R01-01"' in errors[0]["message"]
    assert f"first at {RACK0}.name" in errors[0]["message"]


@pytest.mark.django_db
def test_duplicate_device_and_switch_names_are_listed(small_spec):
    small_spec["power_devices"].append({"name": "PDU-A", "kind": "pdu", "rated_kw": 10.0})
    small_spec["switches"].append({"name": "LEAF-1", "tier": "leaf", "model": "quantum-2-qm9700"})
    assert sorted(paths(rejected(small_spec))) == ["power_devices[6].name", "switches[2].name"]


@pytest.mark.django_db
def test_cycle_in_power_graph_names_its_devices_at_its_last_feed(small_spec):
    small_spec["power_feeds"].append({"from": "PDU-A", "to": "SUB-A", "rating_kw": 10.0})
    errors = rejected(small_spec)
    assert paths(errors) == ["power_feeds[4].to"]
    message = errors[0]["message"]
    assert message.startswith("power chain has a cycle")
    for device in ("SUB-A", "UPS-A", "PDU-A"):
        assert f'"{device}"' in message


@pytest.mark.django_db
def test_device_feeding_itself_is_a_cycle(small_spec):
    small_spec["power_feeds"].append({"from": "UPS-B", "to": "UPS-B", "rating_kw": 10.0})
    errors = rejected(small_spec)
    assert paths(errors) == ["power_feeds[4].to"]
    assert "UPS-B" in errors[0]["message"]


@pytest.mark.django_db
def test_rack_outside_its_hall_names_the_coordinate(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]["x_m"] = 19.5  # 19.5 + 0.6 > 20 m
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["y_m"] = -1.0
    assert sorted(paths(rejected(small_spec))) == [f"{RACK0}.y_m", f"{RACK1}.x_m"]


@pytest.mark.django_db
def test_racks_overlapping_on_the_floor_are_refused_touching_ones_are_not(small_spec):
    racks = small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"]
    assert racks[1]["x_m"] - racks[0]["x_m"] == pytest.approx(0.6)  # side by side, touching
    assert validate_spec(copy.deepcopy(small_spec)) == []
    racks[1]["x_m"] = 3.3  # half of R01-02 on R01-01's tiles
    errors = rejected(small_spec)
    assert paths(errors) == [f"{RACK1}.x_m"]
    assert RACK0 in errors[0]["message"]


@pytest.mark.django_db
def test_partial_gb200_nvl72_rack_is_refused(small_spec):
    rack = small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]
    rack["design_kw"] = 132.0
    rack["feed_rating_kw"] = 140.0
    rack["nodes"] = [{"model": "gb200-nvl72-tray", "count": 18}]
    assert validate_spec(copy.deepcopy(small_spec)) == []
    rack["nodes"] = [{"model": "gb200-nvl72-tray", "count": 16}, {"model": "gb200-nvl72-tray", "count": 1}]
    errors = rejected(small_spec)
    assert paths(errors) == [f"{RACK0}.nodes"]
    assert "17" in errors[0]["message"] and "18" in errors[0]["message"]


@pytest.mark.django_db
def test_hall_beyond_its_building_is_named(small_spec):
    small_spec["buildings"][0]["halls"][0]["width_m"] = 58.0  # x 5 + 58 > 60 m
    assert paths(rejected(small_spec)) == ["buildings[0].halls[0].width_m"]


@pytest.mark.django_db
def test_link_longer_than_its_medium_reaches(small_spec):
    small_spec["links"][2]["medium"] = "dac"
    errors = rejected(small_spec)
    assert errors == [{"path": "links[2].length_m", "message": '15.0 m exceeds the reach of "dac" (3.0 m)'}]


@pytest.mark.django_db
def test_unknown_catalog_slugs_are_named(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["nodes"][0]["model"] = "hgx-h999"
    small_spec["switches"][0]["model"] = "quantum-9"
    small_spec["links"][0]["medium"] = "smoke-signal"
    small_spec["pods"][0]["switch_model"] = "nope"
    errors = rejected(small_spec)
    assert sorted(paths(errors)) == sorted(
        [f"{RACK0}.nodes[0].model", "switches[0].model", "links[0].medium", "pods[0].switch_model"]
    )
    assert {"path": f"{RACK0}.nodes[0].model", "message": 'unknown node model "hgx-h999"'} in errors


@pytest.mark.django_db
def test_link_needs_exactly_one_a_end(small_spec):
    small_spec["links"][0]["a_switch"] = "SPINE-1"
    assert paths(rejected(small_spec)) == ["links[0].a_rack"]


@pytest.mark.django_db
def test_link_from_a_switch_group_to_itself(small_spec):
    small_spec["links"][2]["b_switch"] = "LEAF-1"
    assert paths(rejected(small_spec)) == ["links[2].b_switch"]


@pytest.mark.django_db
def test_feed_to_a_device_and_a_rack_at_once(small_spec):
    small_spec["power_feeds"][0]["rack"] = "R01-01"
    assert paths(rejected(small_spec)) == ["power_feeds[0].to"]


@pytest.mark.django_db
def test_a_second_side_a_feed_of_a_rack_shares_the_side_and_exports_as_a_power_feed(small_spec):
    # two whips a side (the generator's 2N racks): the rack's side A is fed by both, ratings adding up
    from campus.interchange.exporter import export_campus

    small_spec["power_feeds"].append({"from": "UPS-A", "rack": "R01-01", "side": "A", "rating_kw": 50.0})
    assert validate_spec(small_spec) == []
    campus = import_campus(small_spec)
    feeds = PowerFeed.objects.filter(rack__name="R01-01", side="A").order_by("upstream__name")
    rack = small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]
    assert [f.upstream.name for f in feeds] == sorted([rack["feed_a"], "UPS-A"])
    out = export_campus(campus)
    assert out["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["feed_a"] == min(rack["feed_a"], "UPS-A")
    assert {"from": "UPS-A", "rack": "R01-01", "side": "A", "rating_kw": 50.0} in out["power_feeds"]


@pytest.mark.django_db
def test_return_temperature_below_supply(small_spec):
    small_spec["cooling_units"][0].update(supply_temp_c=40.0, return_temp_c=30.0)
    assert paths(rejected(small_spec)) == ["cooling_units[0].return_temp_c"]


@pytest.mark.django_db
def test_not_a_number_nul_text_and_lone_surrogates_are_refused(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["x_m"] = float("nan")
    small_spec["campus"]["description"] = "bad\x00text"
    small_spec["campus"]["location"] = "lone \ud800 surrogate"
    assert sorted(paths(rejected(small_spec))) == [f"{RACK0}.x_m", "campus.description", "campus.location"]


@pytest.mark.django_db
def test_a_document_that_refers_to_itself_or_nests_too_deeply():
    looping = parse_spec("campus: {name: X, grid_capacity_mw: 1}\nbuildings: &b [{name: B, halls: *b}]")
    assert "buildings[0].halls[0].halls" in paths(rejected(looping))
    deep = {"campus": {"name": "X", "grid_capacity_mw": 1, "description": []}}
    inner = deep["campus"]["description"]
    for _ in range(5000):
        inner.append([])
        inner = inner[0]
    assert rejected(deep) == [{"path": "$", "message": "the document nests too deeply or refers to itself"}]


@pytest.mark.django_db
def test_a_document_that_is_not_a_mapping(small_spec):
    assert paths(rejected([small_spec])) == ["$"]


@pytest.mark.django_db
def test_existing_campus_name_is_refused_without_replace(small_spec):
    import_campus(small_spec)
    errors = rejected(small_spec)
    assert paths(errors) == ["campus.name"]


@pytest.mark.django_db
def test_replace_keeps_the_campus_id_and_swaps_the_contents(small_spec):
    first = import_campus(small_spec)
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"].pop()
    small_spec["links"].pop(1)
    small_spec["campus"]["grid_capacity_mw"] = 3.0
    second = import_campus(small_spec, replace=True)
    assert second.pk == first.pk
    assert Campus.objects.get(pk=first.pk).grid_capacity_mw == 3.0
    assert list(Rack.objects.filter(campus=second).values_list("name", flat=True)) == ["R01-01"]
    assert Node.objects.filter(rack__campus=second).count() == 4
    # nothing of the old contents is left: the counts are those of a fresh import of the new spec
    replaced = inventory_counts()
    Campus.objects.all().delete()
    small_spec["campus"]["name"] = "Fresh"
    import_campus(small_spec)
    assert inventory_counts() == replaced


@pytest.mark.django_db
def test_validate_spec_reports_without_writing(small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["feed_b"] = "NOPE"
    before = inventory_counts()
    assert paths(validate_spec(small_spec)) == [f"{RACK0}.feed_b"]
    assert inventory_counts() == before


@pytest.mark.django_db
def test_progress_reports_each_stage_with_counts(small_spec):
    stages = []
    import_campus(small_spec, progress=lambda stage, count: stages.append((stage, count)))
    seen = dict(stages)
    assert seen["racks"] == 2
    assert seen["nodes"] == 8
    assert seen["rack_feeds"] == 4
    assert seen["links"] == 3


@pytest.mark.django_db
def test_a_grid_capacity_of_zero_is_refused_naming_the_field_with_the_apis_message(
    small_spec, planner_client
):
    # 0 MW once imported as "no grid limit", while the API answered 400 to the same campus: one meaning on
    # every write path, so the importer refuses it with the API's own message.
    small_spec["campus"]["grid_capacity_mw"] = 0
    errors = rejected(small_spec)
    assert paths(errors) == ["campus.grid_capacity_mw"]
    api = planner_client.post("/api/campuses/", {"name": "Zero grid", "grid_capacity_mw": 0}, format="json")
    assert api.status_code == 400
    assert errors[0]["message"] == api.json()["grid_capacity_mw"][0]
    assert errors[0]["message"].startswith("must be greater than 0 MW")
    # the pure validation says the same without a database write
    assert validate_spec(small_spec) == errors
    # there is no spelling of "no limit": null is refused on both paths too (docs/campus-spec.md)
    small_spec["campus"]["grid_capacity_mw"] = None
    assert paths(rejected(small_spec)) == ["campus.grid_capacity_mw"]
    api = planner_client.post(
        "/api/campuses/", {"name": "Null grid", "grid_capacity_mw": None}, format="json"
    )
    assert api.status_code == 400 and "grid_capacity_mw" in api.json()
    # the smallest capacity above 0 is a grid like any other
    small_spec["campus"]["grid_capacity_mw"] = 0.001
    assert Campus.objects.get(pk=import_campus(small_spec).pk).grid_capacity_mw == 0.001
