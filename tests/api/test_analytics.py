"""The campus analytics endpoints against a small 2N campus built with the factories.

Chain: utility → substation → UPS-A / UPS-B → PDU-A / PDU-B → racks (side A / side B feeds).
Each rack holds two 8-GPU servers of 8 × 700 W + 4,600 W overhead = 10.2 kW, so 20.4 kW per rack.
"""

import pytest
from django.urls import reverse

from campus.api import analytics
from campus.models import Node
from tests import factories as f

NODE_KW = (8 * 700.0 + 4600.0) / 1000.0
RACKS = 4
NODES_PER_RACK = 2


pytestmark = pytest.mark.usefixtures("fresh_analytics")


def build_campus(b_feed_kw: float = 80.0):
    campus = f.CampusFactory(grid_capacity_mw=50.0, design_pue=1.25)
    utility = f.UtilityFeedFactory(campus=campus, capacity_mw=40.0)
    building = f.BuildingFactory(campus=campus)
    hall = f.DataHallFactory(building=building, width_m=20.0, length_m=30.0)
    node_model = f.NodeModelFactory()
    sub = f.PowerDeviceFactory(
        campus=campus,
        building=building,
        kind="substation",
        rated_kw=10_000.0,
        utility_feed=utility,
        name="SUB",
    )
    devices = {}
    for side in ("A", "B"):
        ups = f.PowerDeviceFactory(
            campus=campus, building=building, kind="ups", rated_kw=2000.0, name=f"UPS-{side}"
        )
        pdu = f.PowerDeviceFactory(
            campus=campus, building=building, kind="pdu", rated_kw=500.0, name=f"PDU-{side}"
        )
        f.PowerFeedFactory(
            campus=campus, rack=None, upstream=sub, downstream_device=ups, side=side, rating_kw=2000.0
        )
        f.PowerFeedFactory(
            campus=campus, rack=None, upstream=ups, downstream_device=pdu, side=side, rating_kw=500.0
        )
        devices[side] = (ups, pdu)
    racks = []
    for i in range(RACKS):
        rack = f.RackFactory(hall=hall, name=f"R{i}", x_m=2.0 * i, y_m=1.0, design_kw=60.0)
        for _ in range(NODES_PER_RACK):
            f.NodeFactory(rack=rack, node_model=node_model)
        f.PowerFeedFactory(campus=campus, rack=rack, upstream=devices["A"][1], side="A", rating_kw=80.0)
        f.PowerFeedFactory(campus=campus, rack=rack, upstream=devices["B"][1], side="B", rating_kw=b_feed_kw)
        racks.append(rack)
    return {
        "campus": campus,
        "hall": hall,
        "racks": racks,
        "devices": devices,
        "sub": sub,
        "utility": utility,
        "node_model": node_model,
    }


def url(name: str, campus) -> str:
    return reverse(f"campus-{name}", kwargs={"pk": campus.pk})


@pytest.mark.django_db
class TestSummary:
    def test_summary_counts_the_inventory(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("summary", site["campus"]))
        assert response.status_code == 200, response.json()
        inventory = response.json()["inventory"]
        assert inventory["racks"] == RACKS
        assert inventory["nodes"] == RACKS * NODES_PER_RACK
        assert inventory["gpus"] == RACKS * NODES_PER_RACK * 8

    def test_pue_parameter_overrides_the_design_pue(self, viewer_client):
        site = build_campus()
        design = viewer_client.get(url("summary", site["campus"])).json()["power"]
        override = viewer_client.get(url("summary", site["campus"]), {"pue": 1.5}).json()["power"]
        assert design["pue"] == pytest.approx(1.25)
        assert override["pue"] == pytest.approx(1.5)
        assert override["facility_mw"] == pytest.approx(override["it_mw"] * 1.5)

    def test_a_typed_pue_below_the_plants_says_so_beside_the_plant_models_figures(self, viewer_client):
        """A typed PUE is an override, but the summary still gives what the plant draws in this weather: the
        same figures the campus answers with no PUE typed, and says when the typed one is below them."""
        campus = build_campus()["campus"]
        campus.design_pue = None
        campus.save()
        modelled = viewer_client.get(url("summary", campus)).json()["power"]
        assert modelled["pue_source"] == "plant-model" and modelled["pue"] > 1.0
        assert modelled["plant_model_pue"] == pytest.approx(modelled["pue"])
        assert modelled["pue_below_plant_model"] is False
        campus.design_pue = 1.0
        campus.save()
        typed = viewer_client.get(url("summary", campus)).json()["power"]
        assert typed["pue_source"] == "override" and typed["pue"] == 1.0
        assert typed["facility_mw"] == pytest.approx(typed["it_mw"])
        assert typed["plant_model_pue"] == pytest.approx(modelled["pue"])
        assert typed["plant_model_facility_mw"] == pytest.approx(modelled["facility_mw"])
        assert typed["pue_below_plant_model"] is True
        above = viewer_client.get(url("summary", campus), {"pue": modelled["pue"] + 0.2}).json()["power"]
        assert above["pue_below_plant_model"] is False

    @pytest.mark.parametrize(("param", "value"), [("pue", 0.5), ("mfu", 2), ("gpu_power_fraction", "x")])
    def test_bad_parameter_is_400_naming_it(self, viewer_client, param, value):
        site = build_campus()
        response = viewer_client.get(url("summary", site["campus"]), {param: value})
        assert response.status_code == 400
        assert param in response.json()

    def test_unknown_dataset_is_400_naming_dataset(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("summary", site["campus"]), {"dataset": "no-such-set"})
        assert response.status_code == 400
        assert "dataset" in response.json()

    @pytest.mark.parametrize("dataset", ["optics-component", "infrastructure-estimates"])
    def test_a_set_that_is_not_a_job_set_is_400_listing_the_valid_ones(self, viewer_client, dataset):
        # optical links and facility devices interrupt no job by themselves: no job failure rate to give
        site = build_campus()
        response = viewer_client.get(url("summary", site["campus"]), {"dataset": dataset})
        assert response.status_code == 400
        message = str(response.json()["dataset"])
        assert "not a job failure data set" in message
        assert "per-model" in message and "llama3-2024" in message
        assert "optics-component" not in message.split("valid:")[1]

    def test_summary_follows_inventory_changes(self, viewer_client, planner_client):
        site = build_campus()
        before = viewer_client.get(url("summary", site["campus"])).json()["inventory"]["gpus"]
        created = planner_client.post(
            reverse("node-list"),
            {"rack": site["racks"][0].pk, "node_model": site["node_model"].pk, "name": "extra"},
            format="json",
        )
        assert created.status_code == 201
        after = viewer_client.get(url("summary", site["campus"])).json()["inventory"]["gpus"]
        assert after == before + 8
        deleted = planner_client.delete(reverse("node-detail", kwargs={"pk": created.data["id"]}))
        assert deleted.status_code == 204
        assert viewer_client.get(url("summary", site["campus"])).json()["inventory"]["gpus"] == before

    def test_summary_sees_rows_written_without_signals(self, viewer_client, monkeypatch):
        # bulk_create sends no signals (like another process's write): the version query must catch it.
        monkeypatch.setattr(analytics, "VERSION_TTL_S", 0.0)
        site = build_campus()
        before = viewer_client.get(url("summary", site["campus"])).json()["inventory"]["gpus"]
        Node.objects.bulk_create([Node(rack=site["racks"][0], node_model=site["node_model"], name="bulk")])
        after = viewer_client.get(url("summary", site["campus"])).json()["inventory"]["gpus"]
        assert after == before + 8

    def test_summary_answers_conditional_get_with_304(self, viewer_client):
        site = build_campus()
        first = viewer_client.get(url("summary", site["campus"]))
        again = viewer_client.get(url("summary", site["campus"]), HTTP_IF_NONE_MATCH=first.headers["ETag"])
        assert again.status_code == 304

    def test_unknown_campus_is_404(self, viewer_client):
        assert viewer_client.get(reverse("campus-summary", kwargs={"pk": 2**40})).status_code == 404

    def test_anonymous_is_401(self, anon_client):
        site = build_campus()
        assert anon_client.get(url("summary", site["campus"])).status_code == 401


@pytest.mark.django_db
class TestImpact:
    def test_pdu_loss_takes_side_a_of_every_rack(self, viewer_client):
        site = build_campus()
        pdu_a = site["devices"]["A"][1]
        response = viewer_client.get(url("impact", site["campus"]), {"device": pdu_a.pk, "kind": "power"})
        assert response.status_code == 200, response.json()
        assert sorted(response.json()["racks"]["lost_a"]) == sorted(r.pk for r in site["racks"])
        assert response.json()["racks"]["lost_both"] == []
        assert response.json()["gpus"]["lost_power"] == 0

    def test_b_side_that_cannot_carry_the_rack_trips_when_a_fails(self, viewer_client):
        site = build_campus(b_feed_kw=15.0)  # 20.4 kW rack on a 15 kW B feed
        pdu_a = site["devices"]["A"][1]
        response = viewer_client.get(url("impact", site["campus"]), {"device": pdu_a.pk})
        assert response.status_code == 200
        assert sorted(response.json()["racks"]["lost_both"]) == sorted(r.pk for r in site["racks"])
        assert response.json()["gpus"]["lost_power"] == RACKS * NODES_PER_RACK * 8

    def test_missing_device_is_400_naming_device(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("impact", site["campus"]))
        assert response.status_code == 400
        assert "device" in response.json()

    def test_device_of_another_campus_is_400_naming_device(self, viewer_client):
        site = build_campus()
        other = f.PowerDeviceFactory()
        response = viewer_client.get(url("impact", site["campus"]), {"device": other.pk})
        assert response.status_code == 400
        assert "device" in response.json()

    def test_unknown_kind_is_400_naming_kind(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("impact", site["campus"]), {"device": site["sub"].pk, "kind": "x"})
        assert response.status_code == 400
        assert "kind" in response.json()


@pytest.mark.django_db
class TestFloorMapAndPowerChain:
    def test_hall_floor_map_lists_racks_with_position_size_and_load(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("floor-map", site["campus"]), {"hall": site["hall"].pk})
        assert response.status_code == 200, response.json()
        assert response.json()["hall"]["width_m"] == pytest.approx(20.0)
        racks = {r["id"]: r for r in response.json()["racks"]}
        assert set(racks) == {r.pk for r in site["racks"]}
        first = racks[site["racks"][1].pk]
        assert (first["x_m"], first["y_m"], first["width_m"], first["depth_m"]) == (2.0, 1.0, 0.6, 1.2)
        assert first["load_kw"] == pytest.approx(NODES_PER_RACK * NODE_KW)
        assert first["gpus"] == NODES_PER_RACK * 8

    def test_campus_floor_map_is_compact_arrays(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("floor-map", site["campus"]))
        assert response.status_code == 200
        columns = response.json()["rack_columns"]
        rows = [dict(zip(columns, row, strict=True)) for row in response.json()["racks"]]
        assert {r["id"] for r in rows} == {r.pk for r in site["racks"]}
        assert [h["id"] for b in response.json()["buildings"] for h in b["halls"]] == [site["hall"].pk]

    def test_hall_floor_map_gives_each_cooling_unit_its_liquid_and_air_heat(self, viewer_client):
        # 4 racks x 2 servers x 10.2 kW = 81.6 kW of servers; cold plates take 75% -> 61.2 kW to the CDU.
        # The CRAH takes the other 20.4 kW plus other IT at the campus's 10%: 81.6 / 0.9 - 81.6 = 9.0667 kW.
        # Fans 4% of 29.4667 kW = 1.17867 kW.
        site = build_campus()
        node_model = site["node_model"]
        node_model.liquid_heat_fraction = 0.75
        node_model.save()
        cdu = f.CoolingUnitFactory(campus=site["campus"], hall=site["hall"], kind="cdu", capacity_kw=500.0)
        crah = f.CoolingUnitFactory(campus=site["campus"], hall=site["hall"], kind="crah", capacity_kw=350.0)
        for rack in site["racks"]:
            rack.cooling_unit = cdu
            rack.save()
        response = viewer_client.get(url("floor-map", site["campus"]), {"hall": site["hall"].pk})
        assert response.status_code == 200, response.json()
        units = {u["id"]: u for u in response.json()["cooling_units"]}
        assert units[cdu.pk]["heat_kw"] == pytest.approx(61.2)
        assert units[cdu.pk]["liquid_heat_kw"] == pytest.approx(61.2)
        assert units[crah.pk]["air_heat_kw"] == pytest.approx(20.4 + 81.6 / 0.9 - 81.6)
        assert units[crah.pk]["electrical_kw"] == pytest.approx(0.04 * (20.4 + 81.6 / 0.9 - 81.6))
        summary = viewer_client.get(url("summary", site["campus"])).json()
        assert summary["cooling"]["heat_load_mw"] == pytest.approx(summary["power"]["it_mw"])
        assert summary["cooling"]["unassigned_heat_mw"] == pytest.approx(0.0, abs=1e-12)

    def test_unknown_hall_is_400_naming_hall(self, viewer_client):
        site = build_campus()
        other_hall = f.DataHallFactory()
        response = viewer_client.get(url("floor-map", site["campus"]), {"hall": other_hall.pk})
        assert response.status_code == 400
        assert "hall" in response.json()

    def test_power_chain_reaches_the_utility_on_both_sides(self, viewer_client):
        site = build_campus()
        rack = site["racks"][0]
        response = viewer_client.get(url("power-chain", site["campus"]), {"rack": rack.pk})
        assert response.status_code == 200, response.json()
        sides = {s["side"]: s for s in response.json()["sides"]}
        assert set(sides) == {"A", "B"}
        for side in ("A", "B"):
            ups, pdu = site["devices"][side]
            names = [d["name"] for d in sides[side]["devices"]]
            assert names == [pdu.name, ups.name, "SUB"]
            assert [u["id"] for u in sides[side]["utility_feeds"]] == [site["utility"].pk]
            rack_feed = next(
                x for x in sides[side]["feeds"] if x["upstream_id"] == pdu.pk and x["side"] == side
            )
            # the rack's own IT, half on each side (the allowance is carried beside the racks, on the PDU)
            assert rack_feed["load_kw"] == pytest.approx(NODES_PER_RACK * NODE_KW / 2)

    def test_power_chain_without_rack_is_400_naming_rack(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("power-chain", site["campus"]))
        assert response.status_code == 400
        assert "rack" in response.json()


@pytest.mark.django_db
class TestRedundancyAndStranded:
    def test_redundancy_reports_the_cascade(self, viewer_client):
        site = build_campus(b_feed_kw=15.0)
        response = viewer_client.get(url("redundancy", site["campus"]))
        assert response.status_code == 200
        by_device = {(x["device_kind"], x["device_id"]): x for x in response.json()["findings"]}
        pdu_a = site["devices"]["A"][1]
        assert by_device[("power", pdu_a.pk)]["kind"] == "cascade"
        assert by_device[("power", pdu_a.pk)]["effect"] == "cascade"
        assert response.json()["count"] == len(response.json()["findings"])

    def test_healthy_2n_campus_has_no_cascade(self, viewer_client):
        site = build_campus()
        response = viewer_client.get(url("redundancy", site["campus"]), {"include_single_points": "false"})
        assert response.status_code == 200
        assert response.json()["findings"] == []

    def test_stranded_counts_the_weaker_side(self, viewer_client):
        site = build_campus(b_feed_kw=40.0)  # provisioned 80 (side A), usable 40 (side B must carry alone)
        response = viewer_client.get(url("stranded", site["campus"]), {"racks": "true"})
        assert response.status_code == 200
        campus_row = response.json()["campus"]
        assert campus_row["stranded_kw"] == pytest.approx(RACKS * 40.0)
        assert campus_row["binding"] == "feed"
        assert len(response.json()["racks"]) == RACKS
