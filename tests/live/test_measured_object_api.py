"""One object's measured series beside its model (``/measured/object/``, docs/live.md), for a cooling unit's
metrics: the truth is the inventory's design temperatures, the flow a heat needs at 1.5 L/min per kW
(``cooling.FLOW_LPM_PER_KW``) and the rear-door rack's 40 kW of IT taken as heat, set by hand against the peaks
uploaded; the same comparison as the object's rows of ``/measured/``."""

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from campus.choices import PowerDeviceKind
from tests import factories as f

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]

NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)
SUPPLY_C, RETURN_C, RACK_KW = 30.0, 40.0, 40.0
# two 5-minute buckets of each metric: (first, second); the peak is the higher
MEASURED = {
    "supply_temp_c": (31.0, 31.5),  # +1.5 K: within the 2 K band
    "return_temp_c": (42.0, 43.0),  # +3 K: over
    "flow_lpm": (70.0, 72.0),  # 72 / (40 kW x 1.5 L/min per kW) - 1 = +20 %: over
    "heat_kw": (30.0, 32.0),  # 32 / 40 - 1 = -20 %: under
}


@pytest.fixture
def cooled(planner_client):
    campus = f.CampusFactory(name="Cooled", other_it_fraction=0.0)
    feed = f.UtilityFeedFactory(campus=campus)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus))
    cdu = f.CoolingUnitFactory(
        campus=campus, hall=hall, name="CDU-A", supply_temp_c=SUPPLY_C, return_temp_c=RETURN_C, flow_lpm=0.0
    )
    # a rear-door rack: all its heat goes to the liquid, so to the CDU
    rack = f.RackFactory(
        hall=hall, name="R1", extra_it_kw=RACK_KW, design_kw=60.0, cooling_unit=cdu, cooling_type="rear-door"
    )
    pdu = f.PowerDeviceFactory(
        campus=campus,
        name="PDU-1",
        kind=PowerDeviceKind.PDU,
        rated_kw=100.0,
        efficiency=1.0,
        utility_feed=feed,
    )
    f.PowerFeedFactory(rack=rack, upstream=pdu, rating_kw=200.0)
    lines = ["object_kind,object_name,metric,time,value"]
    for metric, values in MEASURED.items():
        for i, v in enumerate(values):
            lines.append(f"cdu,CDU-A,{metric},{(NOW + timedelta(minutes=5 * i, seconds=30)).isoformat()},{v}")
    answer = planner_client.post(
        reverse("campus-measurements", kwargs={"pk": campus.pk}),
        "\n".join(lines) + "\n",
        content_type="text/csv",
    )
    assert answer.status_code == 201, answer.content
    return campus


def _object(client, campus, **query):
    url = reverse("campus-measured-object", kwargs={"pk": campus.pk})
    return client.get(url, {"object_kind": "cdu", "object_name": "CDU-A", **query})


@pytest.mark.parametrize(
    ("metric", "modelled", "deviation", "alarm"),
    [
        ("supply_temp_c", SUPPLY_C, 1.5, None),
        ("return_temp_c", RETURN_C, 3.0, "over"),
        ("flow_lpm", RACK_KW * 1.5, 72.0 / 60.0 - 1.0, "over"),
        ("heat_kw", RACK_KW, 32.0 / 40.0 - 1.0, "under"),
    ],
)
def test_a_cooling_units_metric_is_set_against_its_design_figure(
    cooled, viewer_client, metric, modelled, deviation, alarm
):
    answer = _object(viewer_client, cooled, metric=metric)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["metric"] == metric and body["modelled"] == pytest.approx(modelled)
    assert body["mean"] == pytest.approx(list(MEASURED[metric])) and len(body["times"]) == 2
    c = body["comparison"]
    assert c["measured_peak"] == pytest.approx(max(MEASURED[metric]))
    assert c["deviation"] == pytest.approx(deviation) and c["alarm"] == alarm
    assert c["deviation_unit"] == ("K" if metric.endswith("_temp_c") else "fraction")
    assert "modelled_kw" not in body  # the power-only names stay on power
    # the same row /measured/ gives for the object and metric
    rows = viewer_client.get(reverse("campus-measured", kwargs={"pk": cooled.pk}), {"metric": metric}).json()
    (row,) = [o for o in rows["objects"] if o["object_name"] == "CDU-A"]
    assert row == c


def test_a_wider_temperature_band_clears_the_alarm(cooled, viewer_client):
    c = _object(viewer_client, cooled, metric="return_temp_c", band_k=4).json()["comparison"]
    assert c["deviation"] == pytest.approx(3.0) and c["alarm"] is None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"metric": "dry_bulb_c"}, "metric"),  # the campus's, not a cooling unit's
        ({"metric": "volts"}, "metric"),
        ({"object_name": "CDU-Z"}, "object_name"),
        ({"band_k": -1}, "band_k"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_query_is_a_400_naming_the_field(cooled, viewer_client, query, field):
    answer = _object(viewer_client, cooled, **query)
    assert answer.status_code == 400, answer.content
    assert field in answer.json(), answer.json()


def test_an_unmeasured_metric_keeps_its_model_and_no_comparison(cooled, viewer_client):
    answer = _object(viewer_client, cooled, object_kind="pdu", object_name="PDU-1")
    body = answer.json()
    assert answer.status_code == 200 and body["comparison"] is None and body["times"] == []
    # the PDU carries the rack's 40 kW and the CDU's (no fan power modelled on a CDU), lossless
    assert body["modelled_kw"] == body["modelled"] == pytest.approx(RACK_KW)


def test_a_branch_without_measurements_reads_its_sites(cooled, planner_client, viewer_client):
    branch = planner_client.post(
        reverse("campus-branch", kwargs={"pk": cooled.pk}),
        {"name": "Cooled b"},
        content_type="application/json",
    )
    assert branch.status_code == 201, branch.content
    trunk = _object(viewer_client, cooled, metric="return_temp_c").json()
    other = _object(viewer_client, type(cooled)(pk=branch.json()["id"]), metric="return_temp_c").json()
    assert other["comparison"]["measured_peak"] == trunk["comparison"]["measured_peak"] == 43.0
    assert other["times"] == trunk["times"]
