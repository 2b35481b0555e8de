"""The floor map's plant and figures, on the demo campus (two buildings, 2N power with standby generators,
CDUs and CRAHs with recorded floor positions, chillers and dry coolers).

Truth from outside the floor-map code: the database rows (every device, unit and plant, every feed), the summary
endpoint's figures, the units' recorded positions, and geometric properties a drawing must have (no two laid-out
elements overlap, a row-end PDU touches the row it feeds, nothing laid out covers a rack).
"""

from __future__ import annotations

import pytest

from campus.api import analytics
from campus.interchange.demo import load_demo_campus
from campus.models import CoolingPlant, CoolingUnit, PowerDevice, PowerFeed

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    analytics.forget()
    campus, _ = load_demo_campus()
    yield campus
    analytics.forget()


def _get(client, url):
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return response.json()


def _racks(data):
    return [dict(zip(data["rack_columns"], row, strict=True)) for row in data["racks"]]


def _overlap(a, b, tol=1e-6):
    return (
        a[0] < b[0] + b[2] - tol
        and b[0] < a[0] + a[2] - tol
        and a[1] < b[1] + b[3] - tol
        and b[1] < a[1] + a[3] - tol
    )


def test_floor_map_it_figures_are_the_summary_fields(planner_client, demo):
    # One figure, one field: the campus IT load is the overview's power.it_mw, a building's IT its card's it_mw;
    # a hall's IT is what its racks' feeds carry (their own IT) and the network and allowance beside them,
    # and the buildings add up to the campus.
    summary = _get(planner_client, f"/api/campuses/{demo.id}/summary/")
    floor = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/")
    assert floor["campus"]["it_mw"] == summary["power"]["it_mw"]
    cards = {b["id"]: b["it_mw"] for b in summary["buildings"]}
    assert {b["id"]: b["it_mw"] for b in floor["buildings"]} == cards
    racks = _racks(floor)
    for b in floor["buildings"]:
        for h in b["halls"]:
            mine = sum(r["fed_kw"] for r in racks if r["hall_id"] == h["id"]) / 1000.0
            assert h["it_mw"] == pytest.approx(mine + h["beside_racks_mw"], rel=1e-12)
            hall = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/?hall={h['id']}")
            assert hall["hall"]["it_mw"] == h["it_mw"]
        assert sum(h["it_mw"] for h in b["halls"]) == pytest.approx(cards[b["id"]], rel=1e-12)
    assert sum(cards.values()) == pytest.approx(summary["power"]["it_mw"], rel=1e-9)
    assert all(r["fed_kw"] >= r["load_kw"] for r in racks)


def test_the_plant_lists_every_device_unit_and_plant_once(planner_client, demo):
    floor = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/")
    keys = [(p["type"], p["id"]) for p in floor["plant"]]
    assert len(keys) == len(set(keys))
    expected = {("power", i) for i in PowerDevice.objects.filter(campus=demo).values_list("id", flat=True)}
    expected |= {("cooling", i) for i in CoolingUnit.objects.filter(campus=demo).values_list("id", flat=True)}
    expected |= {("plant", i) for i in CoolingPlant.objects.filter(campus=demo).values_list("id", flat=True)}
    assert set(keys) == expected
    # The links between devices are the feeds between devices, one for one.
    feeds = PowerFeed.objects.filter(campus=demo, downstream_device__isnull=False)
    assert sorted(map(tuple, floor["power_links"])) == sorted(
        (f.upstream_id, f.downstream_device_id, f.side) for f in feeds
    )
    # A rack's feed devices are its feeds' upstream devices.
    for r in _racks(floor):
        rows = PowerFeed.objects.filter(rack_id=r["id"]).values_list("upstream_id", "side")
        assert sorted(map(tuple, r["feed_devices"])) == sorted(rows)


def test_recorded_positions_are_kept_and_laid_out_ones_never_overlap(planner_client, demo):
    floor = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/")
    units = {u.id: u for u in CoolingUnit.objects.filter(campus=demo)}
    halls = {h["id"]: h for b in floor["buildings"] for h in b["halls"]}
    racks = _racks(floor)
    for p in floor["plant"]:
        if p["type"] == "cooling" and units[p["id"]].x_m is not None:
            assert p["position"] == "recorded" and p["frame"] == "hall"
            assert (p["x_m"], p["y_m"]) == (units[p["id"]].x_m, units[p["id"]].y_m)
        else:
            assert p["position"] == "laid out"

    # Everything on one building's plan, in the building's frame.
    def box(p):
        dx, dy = (halls[p["hall_id"]]["x_m"], halls[p["hall_id"]]["y_m"]) if p["frame"] == "hall" else (0, 0)
        return (p["x_m"] + dx, p["y_m"] + dy, p["width_m"], p["depth_m"])

    laid = [p for p in floor["plant"] if p["position"] == "laid out"]
    for i, a in enumerate(laid):
        for b in laid[i + 1 :]:
            if a["building_id"] == b["building_id"]:
                assert not _overlap(box(a), box(b)), (a["name"], b["name"])
        for r in racks:
            hall = halls[r["hall_id"]]
            if hall["building_id"] == a["building_id"]:
                rack = (r["x_m"] + hall["x_m"], r["y_m"] + hall["y_m"], r["width_m"], r["depth_m"])
                assert not _overlap(box(a), rack), (a["name"], r["name"])


def test_a_row_pdu_stands_at_the_end_of_the_row_it_feeds(planner_client, demo):
    floor = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/")
    racks = _racks(floor)
    pdus = [p for p in floor["plant"] if p["type"] == "power" and p["frame"] == "hall" and p["kind"] == "pdu"]
    assert pdus
    for p in pdus:
        fed = [r for r in racks if any(d == p["id"] for d, _ in r["feed_devices"])]
        assert fed and all(r["hall_id"] == p["hall_id"] for r in fed)
        assert p["y_m"] == pytest.approx(min(r["y_m"] for r in fed))
        left = min(r["x_m"] for r in fed)
        right = max(r["x_m"] + r["width_m"] for r in fed)
        # within a PDU's width of one end of the row, outside it
        assert (
            left - 2 * p["width_m"] <= p["x_m"] + p["width_m"] <= left
            or right <= p["x_m"] <= right + 2 * p["width_m"]
        ), p["name"]


def test_the_hall_answer_carries_its_plant_in_the_hall_frame(planner_client, demo):
    floor = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/")
    hall = floor["buildings"][0]["halls"][0]
    one = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/?hall={hall['id']}")
    mine = {(p["type"], p["id"]) for p in floor["plant"] if p["hall_id"] == hall["id"]}
    assert {(p["type"], p["id"]) for p in one["plant"]} == mine
    assert all(p["frame"] == "hall" for p in one["plant"])
    campus_items = {(p["type"], p["id"]): p for p in floor["plant"]}
    for p in one["plant"]:
        q = campus_items[(p["type"], p["id"])]
        dx, dy = (hall["x_m"], hall["y_m"]) if q["frame"] == "building" else (0.0, 0.0)
        assert (p["x_m"] + dx, p["y_m"] + dy) == pytest.approx((q["x_m"], q["y_m"]))


def test_a_rack_power_path_shows_generators_as_standby_sources(planner_client, demo):
    # The demo's switchgear draws from its transformer; its generators carry it only when the grid side is dead.
    floor = _get(planner_client, f"/api/campuses/{demo.id}/floor-map/")
    rack = _racks(floor)[0]
    chain = _get(planner_client, f"/api/campuses/{demo.id}/power-chain/?rack={rack['id']}")
    generators = set(PowerDevice.objects.filter(campus=demo, kind="generator").values_list("id", flat=True))
    seen_standby = False
    for side in chain["sides"]:
        in_path = {d["id"] for d in side["devices"]}
        for d in side["devices"]:
            assert d["standby"] == (d["id"] in generators)
            if d["standby"]:
                seen_standby = True
                backed = set(d["feeds_device_ids"]) & in_path
                assert backed, d["name"]
                for target in backed:
                    # the device a generator backs has a normal (non-generator) source on this path too
                    sources = {f.upstream_id for f in PowerFeed.objects.filter(downstream_device_id=target)}
                    assert sources - generators, target
    assert seen_standby
