import pytest
from django.urls import reverse

from campus.models import EnergyStorage, PowerDevice, PowerFeed
from tests import factories as f
from tests.api.base import APIViewTests
from tests.conftest import client_for, make_user


class TestPowerDevices(APIViewTests):
    model = PowerDevice
    basename = "powerdevice"
    factory = f.PowerDeviceFactory
    brief_fields = ("id", "url", "name", "kind")
    update_data = {"rated_kw": 450.0, "kind": "switchgear", "battery_minutes": 7.0}
    bulk_update_data = {"max_utilization": 0.9}
    bad_data = {"efficiency": 1.5}
    filter_params = {"campus": "campus_id", "kind": "kind", "status": "status"}

    def create_data(self):
        campus = f.CampusFactory()
        return [
            {"campus": campus.pk, "name": f"UPS-{i}", "kind": "ups", "rated_kw": 1000.0} for i in range(3)
        ]


class TestPowerFeeds(APIViewTests):
    model = PowerFeed
    basename = "powerfeed"
    factory = f.PowerFeedFactory
    brief_fields = ("id", "url", "side", "rating_kw")
    update_data = {"rating_kw": 120.0}
    bulk_update_data = {"rating_kw": 95.0}
    filter_params = {"campus": "campus_id", "rack": "rack_id", "side": "side", "upstream": "upstream_id"}

    def bad_data(self):
        # a feed to a rack and a device at once
        return {"downstream_device": f.PowerDeviceFactory().pk}

    def create_data(self):
        rack = f.RackFactory()
        pdu = f.PowerDeviceFactory(campus=rack.campus)
        racks = [rack, *f.RackFactory.create_batch(2, hall=rack.hall)]
        return [
            {"campus": rack.campus_id, "upstream": pdu.pk, "rack": r.pk, "side": "A", "rating_kw": 80.0}
            for r in racks
        ]


class TestEnergyStorage(APIViewTests):
    model = EnergyStorage
    basename = "energystorage"
    factory = f.EnergyStorageFactory
    brief_fields = ("id", "url", "name", "power_mw", "energy_mwh")
    update_data = {"power_mw": 7.5, "energy_mwh": 30.0, "round_trip_efficiency": 0.9}
    bulk_update_data = {"response_ms": 250.0}
    bad_data = {"round_trip_efficiency": 1.2}
    filter_params = {"campus": "campus_id", "status": "status", "name": "name"}

    def create_data(self):
        building = f.BuildingFactory()
        sub = f.PowerDeviceFactory(campus=building.campus, building=building, kind="substation")
        return [
            {
                "campus": building.campus_id,
                "building": building.pk,
                "power_device": sub.pk,
                "name": f"BESS-{i}",
                "power_mw": 5.0,
                "energy_mwh": 10.0,
            }
            for i in range(3)
        ]


@pytest.fixture
def planner(db):
    return client_for(make_user("storage-planner", "planner"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("round_trip_efficiency", 0.0),
        ("round_trip_efficiency", 1.01),
        ("power_mw", 0.0),
        ("energy_mwh", -1.0),
        ("response_ms", -5.0),
    ],
)
def test_a_battery_out_of_range_is_a_400_naming_the_field(planner, field, value):
    campus = f.CampusFactory()
    body = {"campus": campus.pk, "name": "B", "power_mw": 5.0, "energy_mwh": 10.0, field: value}
    response = planner.post(reverse("energystorage-list"), body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not EnergyStorage.objects.exists()


@pytest.mark.django_db
def test_a_battery_on_a_device_of_another_campus_is_a_400_naming_the_field(planner):
    campus, other = f.CampusFactory(), f.CampusFactory()
    foreign = f.PowerDeviceFactory(campus=other, kind="substation")
    body = {"campus": campus.pk, "name": "B", "power_mw": 5.0, "energy_mwh": 10.0, "power_device": foreign.pk}
    response = planner.post(reverse("energystorage-list"), body, format="json")
    assert response.status_code == 400
    assert "another campus" in str(response.json()["power_device"])
    # and in a bulk request, with nothing written
    bulk = [{**body, "power_device": None, "name": "ok"}, {**body, "name": "bad"}]
    response = planner.post(reverse("energystorage-list"), bulk, format="json")
    assert response.status_code == 400
    assert not EnergyStorage.objects.exists()


@pytest.mark.django_db
def test_a_battery_on_a_device_of_another_building_is_a_400(planner):
    campus = f.CampusFactory()
    here, there = f.BuildingFactory(campus=campus), f.BuildingFactory(campus=campus)
    sub = f.PowerDeviceFactory(campus=campus, building=there, kind="substation")
    body = {
        "campus": campus.pk,
        "building": here.pk,
        "name": "B",
        "power_mw": 5.0,
        "energy_mwh": 10.0,
        "power_device": sub.pk,
    }
    response = planner.post(reverse("energystorage-list"), body, format="json")
    assert response.status_code == 400
    assert "another building" in str(response.json()["power_device"])


@pytest.mark.django_db
def test_an_unknown_battery_field_is_a_400(planner):
    campus = f.CampusFactory()
    body = {"campus": campus.pk, "name": "B", "power_mw": 5.0, "energy_mwh": 10.0, "capacity_mwh": 3}
    response = planner.post(reverse("energystorage-list"), body, format="json")
    assert response.status_code == 400
    assert "capacity_mwh" in response.json()


@pytest.mark.django_db
def test_on_site_generation_fields_belong_to_generators_and_prime_stays_within_the_rating(planner):
    campus = f.CampusFactory()
    url = reverse("powerdevice-list")
    ups = {"campus": campus.pk, "name": "UPS", "kind": "ups", "rated_kw": 1000.0, "fuel_usd_per_mwh": 50.0}
    response = planner.post(url, ups, format="json")
    assert response.status_code == 400 and "fuel_usd_per_mwh" in response.json()
    gen = {"campus": campus.pk, "name": "GEN", "kind": "generator", "rated_kw": 2000.0}
    response = planner.post(url, {**gen, "prime_rating_kw": 2500.0}, format="json")
    assert response.status_code == 400 and "prime_rating_kw" in response.json()
    body = {**gen, "prime_rating_kw": 1800.0, "ramp_kw_per_s": 20.0, "fuel_usd_per_mwh": 40.0}
    response = planner.post(url, body, format="json")
    assert response.status_code == 201, response.json()
    device = PowerDevice.objects.get(name="GEN")
    assert (device.prime_rating_kw, device.ramp_kw_per_s, device.fuel_usd_per_mwh) == (1800.0, 20.0, 40.0)
    # lowering the rating below the prime rating is refused too
    response = planner.patch(
        reverse("powerdevice-detail", args=[device.pk]), {"rated_kw": 1000.0}, format="json"
    )
    assert response.status_code == 400 and "prime_rating_kw" in response.json()
