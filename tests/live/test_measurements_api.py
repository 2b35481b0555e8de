"""Measurements in, measured against modelled, headroom on measured peak (docs/live.md).

The truth is a hand calculation: one rack of 40 kW modelled IT (``extra_it_kw``) on one PDU of 100 kW rated,
80 % planning limit, lossless, no cooling on the chain."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from campus.analysis import measurements as m
from campus.choices import PowerDeviceKind
from campus.models import MeasurementRollup
from tests import factories as f
from tests.live.sites import csv_of, rack_on_pdu, upload, url

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]

NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)


@pytest.fixture
def site():
    return rack_on_pdu()


def rack_rows(t0):
    # bucket 1: 30, 32, 28, 30 kW (mean 30, max 32); bucket 2: 20 kW; the PDU's meter 10 % over its model
    return [
        *(
            ("rack", "R1", "power_kw", t0 + timedelta(seconds=60 * i), v)
            for i, v in enumerate([30, 32, 28, 30])
        ),
        ("rack", "R1", "power_w", t0 + timedelta(minutes=5), 20000),
        ("pdu", "PDU-1", "power_kw", t0, 44.0),
    ]


def test_upload_rolls_up_and_uploading_twice_counts_once(site, planner_client):
    campus, _, _ = site
    body = csv_of(rack_rows(NOW))
    for _ in range(2):
        r = planner_client.post(url("measurements", campus), body, content_type="text/csv")
        assert r.status_code == 201, r.content
    five = MeasurementRollup.objects.filter(campus=campus, object_name="R1", resolution="5m").order_by(
        "bucket_start"
    )
    assert [(b.mean, b.max, b.samples) for b in five] == [(30.0, 32.0, 4), (20.0, 20.0, 1)]
    (day,) = MeasurementRollup.objects.filter(campus=campus, object_name="R1", resolution="1d")
    assert (day.max, day.samples) == (30.0, 5)
    assert day.mean == pytest.approx((30 * 4 + 20) / 5)


def test_a_bad_line_is_a_400_naming_it_and_nothing_is_written(site, planner_client):
    campus, _, _ = site
    rows = rack_rows(NOW)
    rows[2] = ("rack", "R1", "power_kw", NOW, "hot")
    r = planner_client.post(url("measurements", campus), csv_of(rows), content_type="text/csv")
    assert r.status_code == 400 and r.json()["line"] == 4 and r.json()["field"] == "value"
    rows[2] = ("rack", "R9", "power_kw", NOW, 1)
    r = planner_client.post(url("measurements", campus), csv_of(rows), content_type="text/csv")
    assert r.status_code == 400 and r.json()["field"] == "object_name"
    r = planner_client.post(
        url("measurements", campus),
        {
            "rows": [
                {
                    "object_kind": "rack",
                    "object_name": "R1",
                    "metric": "power_kw",
                    "time": 0,
                    "value": 1,
                    "x": 1,
                }
            ]
        },
        format="json",
    )
    assert r.status_code == 400 and r.json()["field"] == "x" and r.json()["line"] == 0
    assert not MeasurementRollup.objects.filter(campus=campus).exists()


def test_measured_against_modelled_flags_the_pdu_over_its_model(site, planner_client, viewer_client):
    campus, rack, pdu = site
    assert (
        planner_client.post(
            url("measurements", campus), csv_of(rack_rows(NOW)), content_type="text/csv"
        ).status_code
        == 201
    )
    body = viewer_client.get(url("measured", campus)).json()
    by = {(o["object_kind"], o["object_name"]): o for o in body["objects"]}
    r1 = by[("rack", "R1")]
    assert (r1["measured_peak_kw"], r1["measured_max_kw"], r1["modelled_kw"]) == (30.0, 32.0, 40.0)
    assert r1["deviation"] == pytest.approx(-0.25) and r1["alarm"] == "under"
    p = by[("pdu", "PDU-1")]
    assert p["modelled_kw"] == pytest.approx(40.0) and p["deviation"] == pytest.approx(0.10)
    assert p["alarm"] is None  # exactly on the band's edge
    assert viewer_client.get(url("measured", campus), {"band": 0.05}).json()["alarms"] == 2
    assert viewer_client.get(url("measured", campus), {"bnd": 1}).status_code == 400


def test_one_object_s_series_reads_the_same_band_as_measured(site, planner_client, viewer_client):
    # the PDU's meter reads 44 kW against its modelled 40 kW: 10 % over, on the default band's edge
    campus, _, _ = site
    upload(planner_client, campus, rack_rows(NOW))

    def pdu(**params):
        query = {"object_kind": "pdu", "object_name": "PDU-1", **params}
        return viewer_client.get(url("measured-object", campus), query)

    body = pdu().json()
    assert body["band"] == 0.10 and body["modelled_kw"] == pytest.approx(40.0)
    assert body["comparison"]["deviation"] == pytest.approx(0.10) and body["comparison"]["alarm"] is None
    assert pdu(band=0.05).json()["comparison"]["alarm"] == "over"
    for bad in (-0.1, 10.5, "wide"):
        r = pdu(band=bad)
        assert r.status_code == 400 and "band" in r.json()


def test_headroom_on_measured_peak_equals_the_hand_calculation(site, planner_client, viewer_client):
    campus, rack, pdu = site
    planner_client.post(url("measurements", campus), csv_of(rack_rows(NOW)), content_type="text/csv")

    def pdu_headroom(**params):
        chain = viewer_client.get(url("power-chain", campus), {"rack": rack.pk, **params}).json()
        (dev,) = [d for s in chain["sides"] for d in s["devices"] if d["id"] == pdu.pk]
        return dev["headroom_after_failover_kw"], chain["hall"]["headroom_mw"]

    # design: 0.8 × 100 − 40 = 40 kW
    assert pdu_headroom() == (pytest.approx(40.0), pytest.approx(0.040))
    # measured: peak 30 kW (the highest 5-minute mean) × 1.1 = 33 kW; 80 − 33 = 47 kW
    assert pdu_headroom(basis="measured") == (pytest.approx(47.0), pytest.approx(0.047))
    # margin 0.5: 30 × 1.5 = 45; 80 − 45 = 35 kW
    assert pdu_headroom(basis="measured", margin=0.5)[0] == pytest.approx(35.0)
    stranded = viewer_client.get(url("stranded", campus), {"basis": "measured"}).json()
    assert stranded["basis"] == "measured"


def test_calibration_fits_the_gpu_power_fraction_the_racks_draw(planner_client, viewer_client):
    # three racks of 1, 2, 3 servers (8 × 700 W GPUs + 4,600 W overhead each) with 0, 5, 1 kW of extras,
    # each drawing 80 % of its GPUs' TDP plus all the rest: the fit gives 0.8; one make of server (its GPU and
    # overhead power in one ratio; the typed extras are held as typed) leaves the overhead scale the campus's
    campus = f.CampusFactory(name="Cal", other_it_fraction=0.0)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus))
    node_model = f.NodeModelFactory()
    rows = []
    for i, extra in ((1, 0.0), (2, 5.0), (3, 1.0)):
        rack = f.RackFactory(hall=hall, name=f"C{i}", extra_it_kw=extra, design_kw=60.0)
        for _ in range(i):
            f.NodeFactory(rack=rack, node_model=node_model)
        rows.append(("rack", f"C{i}", "power_kw", NOW, 0.8 * 5.6 * i + 4.6 * i + extra))
    assert viewer_client.get(url("calibration", campus)).status_code == 400  # nothing measured yet
    planner_client.post(url("measurements", campus), csv_of(rows), content_type="text/csv")
    body = viewer_client.get(url("calibration", campus)).json()
    assert body["racks"] == 3 and body["fitted"] == ["gpu_power_fraction"]
    assert body["gpu_power_fraction"] == pytest.approx(0.8, abs=1e-6)
    assert body["overhead_scale"] == pytest.approx(1.0, abs=1e-6)
    # before: the model at full TDP is 20 % of the GPUs' power too high on every rack
    before = np.sqrt(np.mean([(0.2 * 5.6 * i) ** 2 for i in (1, 2, 3)]))
    assert body["rms_residual_before_kw"] == pytest.approx(before, rel=1e-5)


def test_a_measurement_names_every_kind_of_power_device():
    assert set(m.POWER_DEVICE_KINDS) == set(PowerDeviceKind.values)


def test_viewers_read_and_planners_write(site, viewer_client):
    campus, _, _ = site
    r = viewer_client.post(url("measurements", campus), csv_of(rack_rows(NOW)), content_type="text/csv")
    assert r.status_code == 403
    assert viewer_client.put(url("prometheus", campus), {"mapping": []}, format="json").status_code == 403


def test_the_prometheus_credentials_are_never_echoed_and_a_source_down_is_an_error_not_a_500(
    site, planner_client, settings
):
    campus, _, _ = site
    settings.TWIN_PROMETHEUS_URL = "http://scraper:s3cret-pass@127.0.0.1:9/"
    settings.TWIN_PROMETHEUS_TOKEN = "t0ken-value"
    mapping = [{"query": "up", "object_kind": "rack", "name_label": "rack", "metric": "power_w"}]
    body = planner_client.put(url("prometheus", campus), {"mapping": mapping}, format="json")
    assert body.status_code == 200 and body.json()["url"] == "http://127.0.0.1:9/"
    sync = planner_client.post(url("prometheus-sync", campus))
    assert sync.status_code == 200 and sync.json()["status"] == "error"
    shown = planner_client.get(url("prometheus", campus)).content.decode() + sync.content.decode()
    assert "s3cret-pass" not in shown and "scraper" not in shown and "t0ken-value" not in shown
    assert not MeasurementRollup.objects.filter(campus=campus).exists()
