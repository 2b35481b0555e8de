"""``/api/power-devices/{id}/figures/`` and ``/api/campuses/{id}/capacity/`` on a generated 2N campus: the
device's racks are impact's (none for a row PDU of the generated 2(N+1) chain), its worst single failure
doubles a row PDU's load (its partner's whips fall on it, by hand), the capacity
report sums the racks list, and a wrong request is a 400 or 404 that says why."""

import pytest

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import PowerDevice, Rack

pytestmark = pytest.mark.usefixtures("fresh_analytics")


@pytest.fixture
def campus(db):
    return import_campus(generate_spec("Device pages", gpus=512, racks_per_row=4))


@pytest.mark.django_db
def test_a_row_pdu_serves_impacts_racks_and_doubles_its_load_when_its_partner_fails(viewer_client, campus):
    pdu = (
        PowerDevice.objects.filter(campus=campus, kind="pdu", downstream_feeds__rack__isnull=False)
        .distinct()
        .first()
    )
    body = viewer_client.get(f"/api/power-devices/{pdu.pk}/figures/").json()
    impact = viewer_client.get(f"/api/campuses/{campus.pk}/impact/", {"device": pdu.pk}).json()["racks"]
    hit = (
        set(impact["lost_a"]) | set(impact["lost_b"]) | set(impact["lost_both"]) | set(impact["lost_cooling"])
    )
    assert body["serves"]["rack_count"] == len(hit)
    fed = set(Rack.objects.filter(feeds__upstream=pdu).values_list("id", flat=True))
    # the generated 2N is 2(N+1): each rack takes two whips a side from two row PDUs, so one PDU's loss
    # takes no rack's side down (its partner's whip carries it); impact finds none, the feeds name its racks
    assert fed and hit == set()
    worst = body["worst_single_failure"]
    assert worst["load_kw"] == pytest.approx(2 * body["load_kw"], rel=1e-6)
    assert body["usable_kw"] == pytest.approx(pdu.rated_kw * pdu.max_utilization)


@pytest.mark.django_db
def test_the_capacity_report_sums_the_racks(viewer_client, campus):
    body = viewer_client.get(f"/api/campuses/{campus.pk}/capacity/").json()
    racks = Rack.objects.filter(campus=campus)
    assert sum(h["racks"] for h in body["halls"]) == racks.count()
    assert sum(h["space_u"]["capacity"] for h in body["halls"]) == sum(r.rack_units for r in racks)
    assert sum(h["power_kw"]["capacity"] for h in body["halls"]) == pytest.approx(
        sum(r.design_kw for r in racks)
    )


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/power-devices/{device}/figures/", "/api/campuses/{campus}/capacity/"])
def test_an_unknown_parameter_is_a_400_naming_it(viewer_client, campus, path):
    device = PowerDevice.objects.filter(campus=campus).first()
    response = viewer_client.get(path.format(device=device.pk, campus=campus.pk), {"hall": 1})
    assert response.status_code == 400
    assert "hall" in response.json()


@pytest.mark.django_db
def test_no_such_device_or_campus_is_a_404(viewer_client):
    assert viewer_client.get("/api/power-devices/999999/figures/").status_code == 404
    assert viewer_client.get("/api/campuses/999999/capacity/").status_code == 404
