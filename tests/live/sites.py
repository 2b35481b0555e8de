"""The small campuses the live-twin tests measure, and the upload of measured rows through the API."""

from django.urls import reverse

from tests import factories as f


def url(name, campus):
    return reverse(f"campus-{name}", kwargs={"pk": campus.pk})


def csv_of(rows):
    """CSV of ``(object_kind, object_name, metric, time, value)`` rows."""
    lines = ["object_kind,object_name,metric,time,value"]
    lines += [f"{k},{n},{m},{t.isoformat()},{v}" for k, n, m, t, v in rows]
    return "\n".join(lines) + "\n"


def upload(client, campus, rows):
    r = client.post(url("measurements", campus), csv_of(rows), content_type="text/csv")
    assert r.status_code == 201, r.content
    return r


def rack_on_pdu():
    """One rack of 40 kW modelled IT (``extra_it_kw``) on one PDU of 100 kW rated, 80 % planning limit,
    lossless, no cooling on the chain: (campus, rack, pdu)."""
    campus = f.CampusFactory(name="Live", other_it_fraction=0.0)
    feed = f.UtilityFeedFactory(campus=campus)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus))
    rack = f.RackFactory(hall=hall, name="R1", extra_it_kw=40.0, design_kw=60.0)
    pdu = f.PowerDeviceFactory(
        campus=campus, name="PDU-1", rated_kw=100.0, max_utilization=0.8, efficiency=1.0, utility_feed=feed
    )
    f.PowerFeedFactory(rack=rack, upstream=pdu, rating_kw=200.0)
    return campus, rack, pdu


def cooled_rack(name: str, plant_cop: float, ups_efficiency: float):
    """One rack of 100 kW modelled IT on a UPS of 500 kW, cooled by a 300 kW CDU (30 °C supply, 45 °C return)
    on an air-cooled chiller plant of 400 kW: (campus, rack)."""
    campus = f.CampusFactory(name=name, other_it_fraction=0.0, design_pue=None)
    feed = f.UtilityFeedFactory(campus=campus)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus))
    plant = f.CoolingPlantFactory(
        campus=campus, name="AC-1", kind="air-chiller", capacity_kw=400.0, cop=plant_cop
    )
    cdu = f.CoolingUnitFactory(
        campus=campus,
        hall=hall,
        plant=plant,
        name="CDU-1",
        capacity_kw=300.0,
        supply_temp_c=30.0,
        return_temp_c=45.0,
    )
    rack = f.RackFactory(hall=hall, name="R1", extra_it_kw=100.0, design_kw=120.0, cooling_unit=cdu)
    ups = f.PowerDeviceFactory(
        campus=campus, name="UPS-1", kind="ups", rated_kw=500.0, efficiency=ups_efficiency, utility_feed=feed
    )
    f.PowerFeedFactory(rack=rack, upstream=ups, rating_kw=200.0)
    return campus, rack
