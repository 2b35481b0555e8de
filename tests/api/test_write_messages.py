"""Errors of a write name the field the request gave, in words and with numbers a person reads.

The small spec (tests/interchange/conftest.py): rack R01-01 holds 4 HGX H100 servers, 40.8 kW at full TDP
against its design_kw of 40.8 kW; cooling unit CDU-1 supplies water at 25 °C and takes it back at 45 °C
(the model's defaults); each rack is fed from PDU-A and PDU-B."""

import copy

import pytest

from campus.interchange.importer import import_campus
from campus.models import CoolingUnit, PowerDevice, PowerFeed, Rack
from tests.interchange.conftest import SMALL_SPEC


@pytest.fixture
def campus(db):
    return import_campus(copy.deepcopy(SMALL_SPEC))


def test_a_rack_feed_losing_its_rack_names_rack(planner_client, campus):
    feed = PowerFeed.objects.filter(rack__isnull=False).first()
    response = planner_client.patch(f"/api/power-feeds/{feed.pk}/", {"rack": None}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"rack": ["A feed goes to exactly one device or one rack."]}


def test_a_device_feed_given_a_rack_names_rack_and_a_rack_feed_given_a_device_names_it(
    planner_client, campus
):
    device_feed = PowerFeed.objects.filter(downstream_device__isnull=False).first()
    rack_feed = PowerFeed.objects.filter(rack__isnull=False).first()
    rack = Rack.objects.first()
    response = planner_client.patch(f"/api/power-feeds/{device_feed.pk}/", {"rack": rack.pk}, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"rack"}
    pdu = PowerDevice.objects.get(name="PDU-B")
    response = planner_client.patch(
        f"/api/power-feeds/{rack_feed.pk}/", {"downstream_device": pdu.pk}, format="json"
    )
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"downstream_device"}


def test_a_feed_created_to_nothing_names_downstream_device(planner_client, campus):
    pdu = PowerDevice.objects.get(name="PDU-A")
    body = {"campus": campus.pk, "upstream": pdu.pk, "side": "A", "rating_kw": 10.0}
    response = planner_client.post("/api/power-feeds/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"downstream_device": ["A feed goes to exactly one device or one rack."]}


def test_too_much_extra_it_names_extra_it_kw_with_a_readable_number(planner_client, campus):
    rack = Rack.objects.get(name="R01-01")
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"extra_it_kw": 1e308}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {
        "extra_it_kw": [
            'rack "R01-01" would hold 1e+308 kW of IT (servers at full TDP + extra_it_kw): more than its '
            "design_kw (40.8 kW)"
        ]
    }
    # 40.8 kW of servers + 1,000 kW extra = 1,040.8 kW
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"extra_it_kw": 1000}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["extra_it_kw"]
    assert "would hold 1040.80 kW of IT" in response.json()["extra_it_kw"][0]


def test_too_small_a_design_still_names_design_kw(planner_client, campus):
    rack = Rack.objects.get(name="R01-01")
    response = planner_client.patch(f"/api/racks/{rack.pk}/", {"design_kw": 5}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["design_kw"]
    assert "would hold 40.80 kW of IT" in response.json()["design_kw"][0]


def test_a_return_below_supply_is_said_on_the_field_given(planner_client, campus):
    unit = CoolingUnit.objects.get(name="CDU-1")
    assert (unit.supply_temp_c, unit.return_temp_c) == (25.0, 45.0)
    response = planner_client.patch(f"/api/cooling-units/{unit.pk}/", {"return_temp_c": 10}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {
        "return_temp_c": ["return_temp_c must be at least supply_temp_c (10 °C < 25 °C)."]
    }
    response = planner_client.patch(f"/api/cooling-units/{unit.pk}/", {"supply_temp_c": 60}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {
        "supply_temp_c": ["supply_temp_c must be at most return_temp_c (60 °C > 45 °C)."]
    }
    unit.refresh_from_db()
    assert (unit.supply_temp_c, unit.return_temp_c) == (25.0, 45.0)


def test_a_check_between_two_fields_is_said_in_words(admin_client_api, campus):
    from campus.models import GPUModel, Link

    gpu = GPUModel.objects.get(slug="h100-sxm")
    response = admin_client_api.patch(f"/api/gpu-models/{gpu.pk}/", {"shutdown_temp_c": 1}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {
        "shutdown_temp_c": [
            f"shutdown_temp_c must be greater than slowdown_temp_c (1 vs {gpu.slowdown_temp_c:g})."
        ]
    }
    link = Link.objects.filter(a_switch__isnull=False).first()
    response = admin_client_api.patch(f"/api/links/{link.pk}/", {"a_switch": link.b_switch_id}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"a_switch": ["a_switch must be different from b_switch."]}
