"""The floor map as a floor plan a planner recognises, at one hall, one building and a 1M-GPU campus: rows with
labels, the side their fronts face, cold aisles between fronts and contained hot aisles between backs, a 600 mm
tile grid with its coordinates, a scale bar of a round length, a north mark, and the key beside the map inside the
window.

Truth: the floor-map API's racks (their rows, from their names and positions), the scale bar checked against the
map's own pixels per metre, the legend's box against the viewport, and axe-core's WCAG 2.1 AA rules. Screenshots go
to test-results/screenshots/floor-plan-*.png.
"""

from __future__ import annotations

import re

import pytest

from .conftest import axe_violations, generated_campus, login, new_page, screenshot
from .test_dashboard import api, campus_racks, wait_map_ready

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "million-planner"
# 1M GPUs in GB200 NVL72 racks: about 14,000 racks, the cheapest 1M-GPU campus to import.
MILLION = dict(gpus=1_000_000, gpu_model="gb200")
ROW = re.compile(r"^[A-Za-z]+\d+$")


def plan(page) -> dict:
    return page.evaluate("() => { window.floorMap.draw(); return window.floorMap.plan; }")


def check_key_beside_map(page) -> None:
    """The colour legend and the plan key sit to the right of the canvas, inside the window."""
    canvas = page.evaluate("floorMap.canvasBox")
    view = page.viewport_size
    for testid in ("legend", "plan-key"):
        box = page.locator(f"[data-testid={testid}]").bounding_box()
        assert box is not None, testid
        assert box["x"] >= canvas["right"] - 1, (testid, box, canvas)
        assert box["x"] + box["width"] <= view["width"] + 1, (testid, box)
        assert box["y"] < view["height"], (testid, box)
    assert page.locator("[data-testid=legend] li").count() > 0


def check_scale_bar(p: dict) -> None:
    bar = p["scaleBar"]
    assert bar is not None
    # a round length, drawn at the map's scale
    lead = bar["metres"] / 10 ** int(f"{bar['metres']:e}".split("e")[1])
    assert round(lead, 9) in (1, 2, 5), bar
    assert abs(bar["px"] - bar["metres"] * p["scale"]) < 1e-6
    assert 0 < bar["px"] <= 160


def check_aisles(p: dict) -> None:
    kinds = {(a["kind"], a["contained"]) for a in p["aisles"]}
    assert kinds == {("cold", False), ("hot", True)}, kinds


def test_one_hall_reads_as_a_floor_plan(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    floor = api(page, f"/api/campuses/{campus_id}/floor-map/")
    hall = max((h for b in floor["buildings"] for h in b["halls"]), key=lambda h: h["it_mw"])
    racks = [r for r in campus_racks(floor) if r["hall_id"] == hall["id"]]
    expected_rows = {r["name"].split("-")[-2] for r in racks}
    page.goto(f"/campuses/{campus_id}/map/?hall={hall['id']}")
    wait_map_ready(page)
    p = plan(page)
    assert {r["label"] for r in p["rows"]} == expected_rows
    assert sum(r["racks"] for r in p["rows"]) == len(racks)
    # fronts alternate across the hall: facing pairs
    fronts = [r["front"] for r in p["rows"]]
    assert set(fronts) <= {"up", "down", "left", "right"} and len(set(fronts)) == 2
    if len(p["rows"]) >= 3:
        check_aisles(p)
    written = [lab["text"] for lab in p["labels"] if lab["kind"] == "row"]
    assert written and set(written) <= expected_rows
    check_scale_bar(p)
    check_key_beside_map(page)
    screenshot(page, "floor-plan-hall")

    # Zoomed in on the first row: the tile grid's coordinates are written ("A1" at the hall's corner).
    page.evaluate("floorMap.zoomAt(4)")
    p = plan(page)
    tiles = [lab["text"] for lab in p["labels"] if lab["kind"] == "tile"]
    assert tiles and all(re.fullmatch(r"[A-Z]+\d+", t) for t in tiles), tiles
    check_scale_bar(p)
    screenshot(page, "floor-plan-hall-zoomed")

    assert axe_violations(page) == []
    watch.check()


def test_one_building_keeps_rows_and_key(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    floor = api(page, f"/api/campuses/{campus_id}/floor-map/")
    building = floor["buildings"][0]
    page.goto(f"/campuses/{campus_id}/map/?building={building['id']}")
    wait_map_ready(page)
    p = plan(page)
    halls = {h["id"] for h in building["halls"]}
    assert {r["hall"] for r in p["rows"]} == {
        r["hall_id"] for r in campus_racks(floor) if r["hall_id"] in halls
    }
    check_scale_bar(p)
    check_key_beside_map(page)
    screenshot(page, "floor-plan-building")
    watch.check()


@pytest.fixture(scope="module")
def million(django_db_setup, django_db_blocker):
    with generated_campus(django_db_blocker, "Million GPUs", USER, **MILLION) as campus_id:
        yield campus_id


def test_a_million_gpus_aggregate_then_open_to_rows(chromium, live_url, million):
    context, page, watch = new_page(chromium, live_url)
    try:
        login(page, USER)
        page.goto(f"/campuses/{million}/map/")
        page.wait_for_function("window.floorMap && window.floorMap.ready === true", timeout=120_000)
        p = plan(page)
        # Fitted: racks merged into cells, no row label written over them, the scale bar in hundreds of metres.
        assert page.evaluate("floorMap.detail.aggregated") is True
        assert not [lab for lab in p["labels"] if lab["kind"] == "row"]
        check_scale_bar(p)
        assert p["scaleBar"]["metres"] >= 100
        check_key_beside_map(page)
        screenshot(page, "floor-plan-million")
        # Zoomed to one hall: its rows are labelled and the aisles drawn.
        floor = api(page, f"/api/campuses/{million}/floor-map/")
        first = floor["buildings"][0]["halls"][0]["id"]
        ids = [r["id"] for r in campus_racks(floor) if r["hall_id"] == first]
        page.evaluate(f"floorMap.fitToIds({ids})")
        p = plan(page)
        assert [lab for lab in p["labels"] if lab["kind"] == "row"]
        check_aisles(p)
        screenshot(page, "floor-plan-million-row")
        watch.check()
    finally:
        context.close()
