"""Every API write path refuses what the spec importer refuses (issue: an inventory the API cannot
corrupt). Each test failed on the code before: the write was accepted (200/201), and for the loop the
campus's redundancy and stranded capacity then answered 500."""

import copy

import pytest
from django.urls import reverse

from campus.interchange.importer import import_campus
from campus.models import Node, NodeModel, PowerDevice, PowerFeed, Rack
from tests.interchange.conftest import SMALL_SPEC


@pytest.fixture
def two_campuses(db):
    one = import_campus(copy.deepcopy(SMALL_SPEC))
    spec = copy.deepcopy(SMALL_SPEC)
    spec["campus"]["name"] = "Other"
    two = import_campus(spec)
    return one, two


def rack_of(campus, name="R01-01"):
    return Rack.objects.get(campus=campus, name=name)


def device(campus, name):
    return PowerDevice.objects.get(campus=campus, name=name)


def test_rack_onto_another_campus_cooling_unit_and_pod_is_400(planner_client, two_campuses):
    one, two = two_campuses
    rack = rack_of(one)
    foreign_unit = two.cooling_units.get().pk
    foreign_pod = two.pods.get().pk
    response = planner_client.patch(
        f"/api/racks/{rack.pk}/", {"cooling_unit": foreign_unit, "pod": foreign_pod}, format="json"
    )
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"cooling_unit", "pod"}
    rack.refresh_from_db()
    assert rack.cooling_unit.campus_id == one.pk


def test_device_into_another_campus_hall_is_400(planner_client, two_campuses):
    one, two = two_campuses
    foreign_hall = rack_of(two).hall_id
    body = {"campus": one.pk, "name": "PDU-X", "kind": "pdu", "rated_kw": 100.0, "hall": foreign_hall}
    response = planner_client.post("/api/power-devices/", body, format="json")
    assert response.status_code == 400, response.content
    assert "hall" in response.json()


def test_feed_between_campuses_is_400(planner_client, two_campuses):
    one, two = two_campuses
    body = {
        "campus": one.pk,
        "upstream": device(one, "SUB-A").pk,
        "downstream_device": device(two, "UPS-A").pk,
        "side": "A",
        "rating_kw": 100.0,
    }
    response = planner_client.post("/api/power-feeds/", body, format="json")
    assert response.status_code == 400, response.content
    assert "downstream_device" in response.json()


def test_feed_closing_a_loop_is_400_and_the_campus_stays_usable(planner_client, two_campuses):
    one, _ = two_campuses
    # SUB-A → UPS-A → PDU-A exists; PDU-A → SUB-A closes the loop.
    body = {
        "campus": one.pk,
        "upstream": device(one, "PDU-A").pk,
        "downstream_device": device(one, "SUB-A").pk,
        "side": "A",
        "rating_kw": 100.0,
    }
    before = PowerFeed.objects.count()
    response = planner_client.post("/api/power-feeds/", body, format="json")
    assert response.status_code == 400, response.content
    assert "loop" in response.json()["downstream_device"][0]
    assert PowerFeed.objects.count() == before
    for name in ("redundancy", "stranded", "summary"):
        assert planner_client.get(reverse(f"campus-{name}", kwargs={"pk": one.pk})).status_code == 200


def test_feeds_closing_a_loop_together_in_one_bulk_request_write_nothing(planner_client, two_campuses):
    one, _ = two_campuses
    pdu, extra = device(one, "PDU-A"), {"campus": one.pk, "side": "A", "rating_kw": 10.0}
    new = planner_client.post(
        "/api/power-devices/",
        {"campus": one.pk, "name": "RPP-1", "kind": "rpp", "rated_kw": 50.0},
        format="json",
    ).json()["id"]
    before = PowerFeed.objects.count()
    body = [
        {"upstream": pdu.pk, "downstream_device": new, **extra},  # fine alone
        {"upstream": new, "downstream_device": device(one, "UPS-A").pk, **extra},  # fine alone, loop with 0
    ]
    response = planner_client.post("/api/power-feeds/", body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["1"]
    assert PowerFeed.objects.count() == before


def test_rack_on_top_of_another_rack_is_400(planner_client, two_campuses):
    one, _ = two_campuses
    rack = rack_of(one)
    body = {
        "campus": one.pk,
        "hall": rack.hall_id,
        "name": "ON-TOP",
        "x_m": rack.x_m + 0.3,
        "y_m": rack.y_m,
        "design_kw": 10.0,
    }
    response = planner_client.post("/api/racks/", body, format="json")
    assert response.status_code == 400, response.content
    assert "R01-01" in response.json()["x_m"][0]
    # Touching side by side is fine: R01-02 sits at x + 0.6.
    body.update(name="BESIDE", x_m=rack.x_m + 1.2)
    assert planner_client.post("/api/racks/", body, format="json").status_code == 201


def test_two_new_racks_on_the_same_tiles_in_one_bulk_request_write_nothing(planner_client, two_campuses):
    one, _ = two_campuses
    hall = rack_of(one).hall_id
    body = [
        {
            "campus": one.pk,
            "hall": hall,
            "name": f"N{i}",
            "x_m": 10.0 + 0.1 * i,
            "y_m": 12.0,
            "design_kw": 5.0,
        }
        for i in range(2)
    ]
    before = Rack.objects.count()
    response = planner_client.post("/api/racks/", body, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()) <= {"0", "1"} and response.json()
    assert Rack.objects.count() == before


def test_rack_whose_footprint_leaves_the_hall_is_400(planner_client, two_campuses):
    one, _ = two_campuses
    rack = rack_of(one)
    # The hall is 20 m wide: a corner at 19.8 m leaves 0.4 m of the 0.6 m rack outside.
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"x_m": 19.8}, format="json")
    assert response.status_code == 400, response.content
    assert "x_m" in response.json()


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/power-devices/{id}/", {"rated_kwh": 100}),
        ("/api/racks/{id}/", {"design_kW": 50}),
        ("/api/campuses/{id}/", {"pue": 1.1}),
    ],
)
def test_unknown_field_is_400_naming_it(planner_client, two_campuses, url, body):
    one, _ = two_campuses
    pk = {"power": device(one, "PDU-A").pk, "racks": rack_of(one).pk, "campuses": one.pk}
    target = next(v for k, v in pk.items() if k in url)
    response = planner_client.patch(url.format(id=target), body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == list(body)


def test_unknown_field_in_a_bulk_request_is_400_keyed_by_index(planner_client, two_campuses):
    one, _ = two_campuses
    pdu = device(one, "PDU-A")
    response = planner_client.patch("/api/power-devices/", [{"id": pdu.pk, "rated_kwh": 1}], format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"0": {"rated_kwh": ["Unknown field."]}}


def test_read_only_fields_sent_back_are_accepted(planner_client, two_campuses):
    one, _ = two_campuses
    pdu = device(one, "PDU-A")
    body = planner_client.get(f"/api/power-devices/{pdu.pk}/").json()
    # Related objects read as brief objects and are written by id.
    body = {k: v["id"] if isinstance(v, dict) else v for k, v in body.items()}
    assert planner_client.put(f"/api/power-devices/{pdu.pk}/", body, format="json").status_code == 200


@pytest.mark.parametrize(("field", "value"), [("rated_kw", 0), ("efficiency", 0), ("max_utilization", 1.5)])
def test_insane_ratings_are_400(planner_client, two_campuses, field, value):
    one, _ = two_campuses
    response = planner_client.patch(
        f"/api/power-devices/{device(one, 'PDU-A').pk}/", {field: value}, format="json"
    )
    assert response.status_code == 400 and field in response.json()


class TestWholeNvl72Racks:
    @pytest.fixture
    def empty_rack(self, two_campuses):
        one, _ = two_campuses
        rack = rack_of(one)
        rack.nodes.all().delete()
        # 18 trays at full TDP: 18 x (4 x 1,200 W + 2,530 W) = 131.94 kW; the rack is designed for them.
        Rack.objects.filter(pk=rack.pk).update(design_kw=140.0)
        rack.refresh_from_db()
        return rack

    def tray(self, rack, i):
        model = NodeModel.objects.get(slug="gb200-nvl72-tray")
        return {"rack": rack.pk, "node_model": model.pk, "name": f"T{i:02d}"}

    def test_one_tray_alone_is_400_naming_rack(self, planner_client, empty_rack):
        response = planner_client.post("/api/nodes/", self.tray(empty_rack, 1), format="json")
        assert response.status_code == 400, response.content
        assert "18" in response.json()["rack"][0]

    def test_seventeen_trays_in_one_request_write_nothing(self, planner_client, empty_rack):
        body = [self.tray(empty_rack, i) for i in range(17)]
        assert planner_client.post("/api/nodes/", body, format="json").status_code == 400
        assert not empty_rack.nodes.exists()

    def test_eighteen_trays_in_one_request_are_a_whole_rack(self, planner_client, empty_rack):
        body = [self.tray(empty_rack, i) for i in range(18)]
        response = planner_client.post("/api/nodes/", body, format="json")
        assert response.status_code == 201, response.content
        # Taking one tray out again would leave a partial rack.
        node = Node.objects.filter(rack=empty_rack).first()
        response = planner_client.delete(f"/api/nodes/{node.pk}/")
        assert response.status_code == 400 and "rack" in response.json()
        assert empty_rack.nodes.count() == 18
        ids = [{"id": n.pk} for n in empty_rack.nodes.all()]
        assert planner_client.delete("/api/nodes/", ids, format="json").status_code == 204


def test_the_admin_form_refuses_a_loop_and_a_foreign_reference(two_campuses, admin_user, rf):
    from django.contrib import admin

    one, two = two_campuses
    request = rf.post("/admin/")
    request.user = admin_user
    form_class = admin.site._registry[PowerFeed].get_form(request)
    base = {"campus": one.pk, "side": "A", "rating_kw": 10.0, "upstream": device(one, "PDU-A").pk}
    loop = form_class(data={**base, "downstream_device": device(one, "SUB-A").pk})
    assert not loop.is_valid() and "loop" in loop.errors["downstream_device"][0]
    foreign = form_class(data={**base, "downstream_device": device(two, "UPS-B").pk})
    assert not foreign.is_valid() and "another campus" in foreign.errors["downstream_device"][0]
    fine = form_class(data={**base, "downstream_device": device(one, "UPS-B").pk})
    assert fine.is_valid(), fine.errors


def test_second_supply_of_a_cooling_unit_from_another_campus_is_400(planner_client, two_campuses):
    one, two = two_campuses
    unit = one.cooling_units.get()
    body = {"power_device_b": device(two, "UPS-B").pk}
    response = planner_client.patch(f"/api/cooling-units/{unit.pk}/", body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["power_device_b"]


def test_bulk_rows_are_judged_against_the_existing_inventory_too(planner_client, two_campuses):
    one, _ = two_campuses
    rack = rack_of(one)
    extra = {"campus": one.pk, "hall": rack.hall_id, "y_m": rack.y_m, "design_kw": 5.0}
    body = [{"name": "FREE", "x_m": 12.0, **extra}, {"name": "ON-R01-01", "x_m": rack.x_m + 0.2, **extra}]
    response = planner_client.post("/api/racks/", body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["1"] and "R01-01" in response.json()["1"]["x_m"][0]
    pdu, ups = device(one, "PDU-A"), device(one, "UPS-A")
    loop = [
        {"campus": one.pk, "upstream": pdu.pk, "downstream_device": ups.pk, "side": "A", "rating_kw": 5.0}
    ]
    response = planner_client.post("/api/power-feeds/", loop, format="json")
    assert response.status_code == 400 and "loop" in response.json()["0"]["downstream_device"][0]
