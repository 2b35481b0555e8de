from campus.models import PowerDevice, PowerFeed
from tests import factories as f
from tests.api.base import APIViewTests


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
