"""``?basis=measured`` on the summary, the floor map, placement, the power chain and stranded capacity
(docs/live.md, "Headroom on measured peak").

Truth from outside the code: a hand calculation on the uploaded rows (one rack of 40 kW modelled IT on one
PDU of 100 kW at an 80 % planning limit, lossless; the rack's highest 5-minute mean is 30 kW, so its load on
the measured basis is 30 × (1 + margin)), the same figure read from every answer that shows it, and placement
on measured racks whose peak × 1.1 is their modelled load giving back the design basis's answer."""

from datetime import UTC, datetime, timedelta

import pytest

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.snapshot_adapter import build_snapshot
from campus.tasks import run_job
from tests.live.sites import rack_on_pdu, url
from tests.live.sites import upload as upload_rows

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]

NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)


@pytest.fixture
def site():
    return rack_on_pdu()


def upload(client, campus, rows):
    """Rows of (object_kind, object_name, time, kW)."""
    upload_rows(client, campus, [(k, n, "power_kw", t, v) for k, n, t, v in rows])


def every(figures: dict, value: float) -> dict:
    """``figures`` with each one equal to ``value`` (to pytest's relative 1e-6)."""
    return pytest.approx(dict.fromkeys(figures, value))


def figures(client, campus, rack, **params):
    """The IT load and the headroom after failover as the summary, its building card, the whole-campus and
    the hall floor maps and the rack's power chain give them, and the basis each states."""
    summary = client.get(url("summary", campus), params).json()
    campus_map = client.get(url("floor-map", campus), params).json()
    hall_map = client.get(url("floor-map", campus), {"hall": rack.hall_id, **params}).json()
    chain = client.get(url("power-chain", campus), {"rack": rack.pk, **params}).json()
    (card,) = summary["buildings"]
    (building,) = campus_map["buildings"]
    (hall,) = building["halls"]
    return {
        "basis": {summary["basis"], campus_map["basis"], hall_map["basis"], chain["basis"]},
        "it_mw": {
            "summary": summary["power"]["it_mw"],
            "card": card["it_mw"],
            "map": campus_map["campus"]["it_mw"],
            "hall": hall_map["hall"]["it_mw"],
        },
        "headroom_mw": {
            "summary": summary["power"]["headroom_after_failover_mw"],
            "card": card["headroom_mw"],
            "map": campus_map["campus"]["headroom_mw"],
            "building": building["headroom_mw"],
            "hall": hall["headroom_mw"],
            "chain hall": chain["hall"]["headroom_mw"],
            "chain building": chain["building"]["headroom_mw"],
        },
    }


def test_headroom_on_measured_peak_is_the_hand_calculation_in_every_answer(
    site, planner_client, viewer_client
):
    campus, rack, _ = site
    # bucket 1: 30, 32, 28, 30 kW (mean 30); bucket 2: 20 kW: the peak is 30 kW, the highest sample 32 kW
    rows = [("rack", "R1", NOW + timedelta(seconds=60 * i), v) for i, v in enumerate([30, 32, 28, 30])]
    upload(planner_client, campus, [*rows, ("rack", "R1", NOW + timedelta(minutes=5), 20)])

    design = figures(viewer_client, campus, rack)
    assert design["basis"] == {"design"}
    assert design["it_mw"] == every(design["it_mw"], 0.040)
    assert design["headroom_mw"] == every(design["headroom_mw"], 0.080 - 0.040)

    measured = figures(viewer_client, campus, rack, basis="measured")
    assert measured["basis"] == {"measured"}
    assert measured["it_mw"] == every(measured["it_mw"], 0.030 * 1.1)
    assert measured["headroom_mw"] == every(measured["headroom_mw"], 0.080 - 0.033)

    wide = figures(viewer_client, campus, rack, basis="measured", margin=0.5)
    assert wide["headroom_mw"] == every(wide["headroom_mw"], 0.080 - 0.045)

    summary = viewer_client.get(url("summary", campus), {"basis": "measured"}).json()
    assert (summary["margin"], summary["measured_racks"], summary["window_days"]) == (0.1, 1, 30)
    # the design answers are unchanged by the measured ones computed beside them
    assert figures(viewer_client, campus, rack) == design


def test_new_measurements_move_the_measured_basis(site, planner_client, viewer_client):
    campus, rack, _ = site
    upload(planner_client, campus, [("rack", "R1", NOW, 30)])
    first = viewer_client.get(url("summary", campus), {"basis": "measured"}).json()["power"]["it_mw"]
    upload(planner_client, campus, [("rack", "R1", NOW + timedelta(minutes=10), 50)])
    second = viewer_client.get(url("summary", campus), {"basis": "measured"}).json()["power"]["it_mw"]
    assert (first, second) == (pytest.approx(0.033), pytest.approx(0.055))


def test_a_campus_without_measurements_answers_the_design_figures_on_the_measured_basis(site, viewer_client):
    campus, rack, _ = site
    measured = figures(viewer_client, campus, rack, basis="measured")
    design = figures(viewer_client, campus, rack)
    assert measured["it_mw"] == design["it_mw"] and measured["headroom_mw"] == design["headroom_mw"]


def test_bad_basis_parameters_are_400s_naming_the_field(site, viewer_client, planner_client):
    campus, rack, _ = site
    for name, params in (
        ("summary", {}),
        ("floor-map", {}),
        ("stranded", {}),
        ("power-chain", {"rack": rack.pk}),
    ):
        r = viewer_client.get(url(name, campus), {**params, "basis": "metered"})
        assert r.status_code == 400 and "basis" in r.json(), (name, r.content)
        r = viewer_client.get(url(name, campus), {**params, "basis": "measured", "margin": -1})
        assert r.status_code == 400 and "margin" in r.json(), (name, r.content)
    r = planner_client.post(
        f"/api/campuses/{campus.pk}/placement/", {"node_model": "x", "racks": 1, "basis": "m"}, format="json"
    )
    assert r.status_code == 400 and "basis" in r.json()


def test_one_object_series_beside_its_model(site, planner_client, viewer_client):
    campus, rack, _ = site
    upload(planner_client, campus, [("rack", "R1", NOW, 30), ("rack", "R1", NOW + timedelta(minutes=5), 20)])
    body = viewer_client.get(
        url("measured-object", campus), {"object_kind": "rack", "object_name": "R1"}
    ).json()
    assert body["times"] == [int(NOW.timestamp()), int(NOW.timestamp()) + 300]
    assert body["mean_kw"] == [30.0, 20.0] and body["modelled_kw"] == 40.0
    assert body["comparison"]["measured_peak_kw"] == 30.0 and body["comparison"]["alarm"] == "under"
    pdu = viewer_client.get(url("measured-object", campus), {"object_kind": "pdu", "object_name": "PDU-1"})
    assert pdu.status_code == 200 and pdu.json()["comparison"] is None and pdu.json()["times"] == []
    for params, field in (
        ({"object_kind": "rack", "object_name": "R9"}, "object_name"),
        ({"object_kind": "toaster", "object_name": "R1"}, "object_kind"),
        ({"object_kind": "rack"}, "object_name"),
        ({"object_kind": "rack", "object_name": "R1", "day": 1}, "day"),
    ):
        r = viewer_client.get(url("measured-object", campus), params)
        assert r.status_code == 400 and field in r.json(), (params, r.content)


NODE = "hgx-h100-8"


def test_placement_on_measured_peak(planner_client):
    campus = import_campus(generate_spec("Measured placement", 1000))
    snap = build_snapshot(campus.pk)
    request = {"node_model": NODE, "racks": 1, "nodes_per_rack": 1}

    def place(**extra):
        r = planner_client.post(f"/api/campuses/{campus.pk}/placement/", {**request, **extra}, format="json")
        assert r.status_code == 200, r.content
        return r.json()

    design = place()
    assert design["basis"] == "design"
    # every rack measured at its modelled load / 1.1: peak × 1.1 is the design load, the answer the design's
    upload(planner_client, campus, [("rack", r.name, NOW, snap.rack_it_kw(r) / 1.1) for r in snap.racks])
    same = place(basis="measured")
    assert same["basis"] == "measured" and same["measured_racks"] == len(snap.racks)
    assert [o["hall"] for o in same["options"]] == [o["hall"] for o in design["options"]]
    assert [o["headroom_after"]["power_kw"] for o in same["options"]] == pytest.approx(
        [o["headroom_after"]["power_kw"] for o in design["options"]], abs=1e-6
    )
    # measured at half that: the same option leaves more power headroom after the rack is placed
    upload(
        planner_client,
        campus,
        [("rack", r.name, NOW + timedelta(minutes=5), snap.rack_it_kw(r) / 2.2) for r in snap.racks],
    )
    # the peak is still the first bucket's; a margin of 0 on it is 1/1.1 of the design load
    lower = place(basis="measured", margin=0.0)
    assert (
        lower["options"][0]["headroom_after"]["power_kw"] > design["options"][0]["headroom_after"]["power_kw"]
    )
    # as a background job: the job's result is the inline answer on the same basis
    r = planner_client.post(
        f"/api/campuses/{campus.pk}/placement/",
        {**request, "basis": "measured", "margin": 0.0, "async": True},
        format="json",
    )
    assert r.status_code == 202, r.content
    assert run_job(r.json()["job"]) == "succeeded"
    assert planner_client.get(f"/api/jobs/{r.json()['job']}/").json()["result"] == lower
