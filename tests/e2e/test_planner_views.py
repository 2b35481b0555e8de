"""The overview, the building cards, the floor map and impact mode show the REST API's figures, on one generated
2N campus (6,144 H100 in two buildings, liquid-cooled): what a capacity planner reads off the dashboard is what
the API answers, number for number.

Each figure is read from the DOM (``data-value``, else the text) and compared with the JSON the page's own
session gets from the API.
"""

from __future__ import annotations

import os

import pytest

from .conftest import generated_campus, login, new_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "views-planner"
# Two 3,072-GPU pods, each in its own building (at most 5 MW of IT), two halls per building.
SPEC = dict(
    gpus=6144,
    gpu_model="h100-sxm",
    cooling="liquid",
    pod_max_gpus=3072,
    building_max_it_mw=5.0,
    hall_max_it_mw=2.5,
)
# TWIN_E2E_CAMPUS_GPUS=100000 walks the same pages over a full-size Spectrum-X campus (minutes, not for CI).
FULL_SIZE = int(os.environ.get("TWIN_E2E_CAMPUS_GPUS", "0"))
if FULL_SIZE:
    SPEC = dict(gpus=FULL_SIZE, fabric="spectrum-x", cooling="liquid")


def api(page, path: str):
    response = page.request.get(path)
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json()


def value(page, selector: str) -> float:
    return float(page.get_attribute(selector, "data-value"))


@pytest.fixture(scope="module")
def campus_2n(django_db_setup, django_db_blocker):
    with generated_campus(django_db_blocker, "Planner 2N campus", USER, **SPEC) as campus_id:
        yield campus_id


@pytest.fixture
def page(chromium, live_url, campus_2n):
    context, page, watch = new_page(chromium, live_url, width=1440, height=1000)
    login(page, USER)
    yield page
    watch.check()
    context.close()


def open_map(page, campus_id: int, query: str = "") -> None:
    page.goto(f"/campuses/{campus_id}/map/{query}")
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")


def test_overview_and_building_cards_show_the_api_figures(page, campus_2n):
    page.goto(f"/campuses/{campus_2n}/")
    page.wait_for_selector("#overview[data-ready=true]")
    summary = api(page, f"/api/campuses/{campus_2n}/summary/")
    redundancy = api(page, f"/api/campuses/{campus_2n}/redundancy/")
    power, cooling = summary["power"], summary["cooling"]

    assert value(page, "[data-testid=fig-it-mw]") == pytest.approx(power["it_mw"])
    assert value(page, "[data-testid=fig-heat-mw]") == pytest.approx(cooling["heat_load_mw"])
    assert page.inner_text("[data-testid=fig-heat-mw-text]") == f"{cooling['heat_load_mw']:,.1f} MW"
    # Every watt of IT power is heat to reject (energy balance), to within the summary's 1%.
    assert cooling["heat_load_mw"] == pytest.approx(power["it_mw"], rel=0.01)
    assert value(page, "[data-testid=fig-failover-headroom]") == pytest.approx(
        power["headroom_after_failover_mw"]
    )
    assert power["headroom_after_failover_mw"] > 0, power["headroom_binding"]
    assert page.inner_text("[data-testid=fig-failover-headroom-text]") == (
        f"{power['headroom_after_failover_mw']:,.2f} MW"
    )
    # The single points the overview counts are the redundancy endpoint's, one for one.
    assert (
        value(page, "[data-testid=risk-redundancy]")
        == redundancy["count"]
        == power["redundancy_findings_count"]
    )

    floor = api(page, f"/api/campuses/{campus_2n}/floor-map/")
    floor_headroom = {b["id"]: b["headroom_mw"] for b in floor["buildings"]}
    assert len(summary["buildings"]) == 2 or FULL_SIZE
    for building in summary["buildings"]:
        card = page.locator(f"[data-testid=building-card][data-building-id='{building['id']}']")
        shown = float(card.locator("[data-field=headroom_mw]").get_attribute("data-value"))
        assert shown == pytest.approx(building["headroom_mw"])
        assert shown == pytest.approx(floor_headroom[building["id"]])
        assert building["headroom_mw"] > 0, building["headroom_binding"]
        assert (
            card.locator("[data-field=headroom_mw]")
            .inner_text()
            .startswith(f"{building['headroom_mw']:,.2f} MW")
        )
    # Campus headroom is placed like today's load, so each building takes its share of it; that share must fit in the
    # building's own headroom (its devices see the same loading pattern), whatever the campus-wide devices allow.
    rack_it = sum(b["it_mw"] for b in summary["buildings"])
    for building in summary["buildings"]:
        share = building["it_mw"] / rack_it
        # 1 %: the grid's cap is turned into rack IT through each building's own share of the network and
        # other IT its feeds carry, which the campus-wide share by rack IT rounds differently.
        assert share * power["headroom_after_failover_mw"] <= building["headroom_mw"] * (1 + 1e-2)
    screenshot(page, "planner-overview", full_page=True)


def _rack_rows(data: dict) -> list[dict]:
    columns = data["rack_columns"]
    return [dict(zip(columns, row, strict=True)) for row in data["racks"]]


def test_floor_map_header_and_outlines_show_the_api_figures(page, campus_2n):
    summary = api(page, f"/api/campuses/{campus_2n}/summary/")
    floor = api(page, f"/api/campuses/{campus_2n}/floor-map/")
    racks = _rack_rows(floor)

    open_map(page, campus_2n)
    rack_fed_mw = sum(r["fed_kw"] for r in racks) / 1000.0
    # The campus header gives the overview's IT load (servers, fabric and other IT), field for field.
    assert value(page, "[data-testid=map-it-mw]") == summary["power"]["it_mw"] == floor["campus"]["it_mw"]
    # A rack's feeds carry that rack's own IT; the network and other IT sit beside the racks on the halls'
    # PDUs (beside_racks_mw). Together they are the building cards' IT, and the buildings add up to the campus.
    beside_mw = sum(h["beside_racks_mw"] for b in floor["buildings"] for h in b["halls"])
    assert rack_fed_mw + beside_mw == pytest.approx(sum(b["it_mw"] for b in summary["buildings"]))
    assert sum(b["it_mw"] for b in summary["buildings"]) == pytest.approx(summary["power"]["it_mw"])
    assert value(page, "[data-testid=map-headroom]") == pytest.approx(power_headroom(summary))
    outlines = {(o["level"], o["id"]): o["headroomMw"] for o in page.evaluate("floorMap.outlines")}
    halls = {h["id"]: h for b in floor["buildings"] for h in b["halls"]}
    expected = {("building", b["id"]): b["headroom_mw"] for b in floor["buildings"]}
    expected |= {("hall", hid): h["headroom_mw"] for hid, h in halls.items()}
    assert outlines == pytest.approx(expected)
    screenshot(page, "planner-map-campus")

    building = summary["buildings"][0]
    open_map(page, campus_2n, f"?building={building['id']}")
    assert value(page, "[data-testid=map-headroom]") == pytest.approx(building["headroom_mw"])
    assert value(page, "[data-testid=map-it-mw]") == pytest.approx(building["it_mw"])

    hall_id = min(halls)
    hall = api(page, f"/api/campuses/{campus_2n}/floor-map/?hall={hall_id}")
    open_map(page, campus_2n, f"?hall={hall_id}")
    assert value(page, "[data-testid=map-headroom]") == pytest.approx(hall["hall"]["headroom_mw"])
    assert hall["hall"]["headroom_mw"] == pytest.approx(halls[hall_id]["headroom_mw"])
    assert value(page, "[data-testid=map-it-mw]") == pytest.approx(
        sum(r["fed_kw"] for r in hall["racks"]) / 1000.0 + hall["hall"]["beside_racks_mw"]
    )
    assert value(page, "[data-testid=map-beside-mw]") == pytest.approx(hall["hall"]["beside_racks_mw"])
    assert hall["hall"]["headroom_mw"] > 0
    screenshot(page, "planner-map-hall")


def power_headroom(summary: dict) -> float:
    return summary["power"]["headroom_after_failover_mw"]


def _lost(impact: dict) -> int:
    return impact["gpus"]["lost_power"] + impact["gpus"]["lost_cooling"]


def test_impact_mode_lists_cooling_and_shows_the_api_gpus_lost(page, campus_2n):
    units = api(page, f"/api/cooling-units/?campus={campus_2n}&limit=1000")["results"]
    plants = api(page, f"/api/cooling-plants/?campus={campus_2n}&limit=1000")["results"]
    redundancy = api(page, f"/api/campuses/{campus_2n}/redundancy/")
    open_map(page, campus_2n)
    page.wait_for_selector("[data-testid=impact-device][data-ready=true]")
    options = page.locator("[data-testid=impact-device] option").evaluate_all("els => els.map(e => e.value)")
    assert units and plants
    assert {f"cooling:{u['id']}" for u in units} <= set(options)
    assert {f"plant:{p['id']}" for p in plants} <= set(options)

    # The worst single failure the redundancy check names (if any), a UPS, a CDU and a plant: impact mode shows
    # the GPUs the impact API loses for each, and the number the redundancy check gives (0 when not listed).
    ups = page.locator(
        "[data-testid=impact-device] optgroup[data-group='power:ups'] option"
    ).first.get_attribute("value")
    chosen = [ups, f"cooling:{units[0]['id']}", f"plant:{plants[0]['id']}"]
    worst = redundancy["findings"][0] if redundancy["findings"] else None
    if worst is not None:
        chosen.insert(0, f"{worst['device_kind']}:{worst['device_id']}")
    findings = {f"{f['device_kind']}:{f['device_id']}": f["gpus_lost"] for f in redundancy["findings"]}
    for choice in chosen:
        kind, ident = choice.split(":")
        page.select_option("[data-testid=impact-device]", choice)
        page.wait_for_function(
            "v => document.querySelector('[data-testid=impact-gpus-lost]') && "
            "window.floorMap.impact !== null && document.querySelector('#impact-device').value === v",
            arg=choice,
        )
        impact = api(page, f"/api/campuses/{campus_2n}/impact/?device={ident}&kind={kind}")
        page.wait_for_function(
            "n => Number(document.querySelector('[data-testid=impact-gpus-lost]').dataset.value) === n",
            arg=_lost(impact),
        )
        assert _lost(impact) == findings.get(choice, 0), choice
        assert "null" not in page.inner_text("[data-testid=impact-result]")
        # The racks counted by outcome are the API's lists (no trips here, so none moves to "cascade").
        assert impact["tripped"] == []
        racks = impact["racks"]
        shown = {
            k: int(page.get_attribute(f"[data-testid=impact-counts] tr[data-kind={k}]", "data-count"))
            for k in ("both", "a", "b", "cooling")
        }
        assert shown == {
            "both": len(racks["lost_both"]),
            "a": len(racks["lost_a"]),
            "b": len(racks["lost_b"]),
            "cooling": len(racks["lost_cooling"]),
        }
        if choice == ups:
            # the generated 2N is 2(N+1): a UPS module lost leaves its side on the side's other modules, so no
            # rack loses a side, let alone both
            assert shown == {"both": 0, "a": 0, "b": 0, "cooling": 0}
        screenshot(page, f"planner-impact-{kind}")
        page.click("[data-testid=impact-clear]")


def test_the_generated_2n_campus_shows_no_single_point_of_failure(page, campus_2n):
    page.goto(f"/campuses/{campus_2n}/")
    page.wait_for_selector("#overview[data-ready=true]")
    redundancy = api(page, f"/api/campuses/{campus_2n}/redundancy/")
    shown = value(page, "[data-testid=risk-redundancy]")
    assert shown == redundancy["count"]
    assert redundancy["count"] == 0, [
        (f["device_name"], f["effect"], f["gpus_lost"]) for f in redundancy["findings"]
    ]
