"""The live twin on the dashboard (docs/dashboard.md, "Measured against modelled"), on the demo campus with its
day of emulated measurements (``load_demo_measurements``, as ``make run`` loads them): the overview's side-by-side
figures and basis toggle agree with the summary API on each basis; the floor map's measured-load and deviation
colourings give each rack (and, on the deviation colouring, each power device drawn) the colour of its API
figure's bin and outline those with an alarm; the rack, PDU and UPS pages show the measured peak beside the
modelled figure with a trend chart, a CDU's page its temperatures, flow and heat; the weather card sets the year
in the measured weather beside the typical year as the facility-replay API gives them. Every page passes
axe-core's WCAG AA checks."""

from __future__ import annotations

import pytest

from .conftest import axe_violations, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


# frontend/src/lib/colors.js: the load scale and the deviation scale, bin edges and colours
LOAD_EDGES, LOAD_COLORS = (
    [10, 20, 40, 60, 80, 100, 130],
    ["#2f6fde", "#1aa5c7", "#17a77a", "#7cbd2f", "#e3b50f", "#f08a1c", "#e0452b", "#9b1c1c"],
)
DEVIATION_EDGES, DEVIATION_COLORS = (
    [-25, -10, 10, 25],
    ["#1d4ed8", "#7aa7f0", "#1f9d55", "#f08a1c", "#b42318"],
)
NO_DATA = "#c3cad5"


def binned(value, edges, colors):
    if value is None:
        return NO_DATA
    return colors[sum(1 for e in edges if value >= e)]


@pytest.fixture(scope="module")
def measured_demo(demo, django_db_blocker):
    from django.core.management import call_command
    from django.test import override_settings

    with django_db_blocker.unblock(), override_settings(TWIN_PROMETHEUS_URL=""):
        call_command("load_demo_measurements")
    return demo


def api(page, path: str):
    # the first /measured/ of the demo builds measured-against-modelled for every object (the cooling balance
    # included): on two busy cores that cold read has taken over Playwright's default 30 s
    response = page.request.get(path, timeout=120_000)
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json()


def value(page, testid: str) -> float:
    return float(page.get_attribute(f"[data-testid={testid}]", "data-value"))


def axe_clean(page) -> None:
    assert axe_violations(page) == []


def test_the_overview_sets_measured_beside_modelled_and_switches_basis(planner_page, measured_demo):
    page, watch = planner_page
    campus = measured_demo["campus_id"]
    design = api(page, f"/api/campuses/{campus}/summary/")
    onpeak = api(page, f"/api/campuses/{campus}/summary/?basis=measured")
    measured = api(page, f"/api/campuses/{campus}/measured/")
    assert (design["basis"], onpeak["basis"]) == ("design", "measured") and onpeak["measured_racks"] > 0
    page.goto(f"/campuses/{campus}/")
    page.wait_for_selector("#overview[data-ready=true]")
    page.wait_for_selector("[data-testid=live-side-by-side]")
    for key, read in (
        ("it", lambda s: s["power"]["it_mw"]),
        ("headroom", lambda s: s["power"]["headroom_after_failover_mw"]),
    ):
        assert value(page, f"live-{key}-design") == pytest.approx(read(design))
        assert value(page, f"live-{key}-measured") == pytest.approx(read(onpeak))
    # the demo's racks draw ~80 % of their full-TDP model: less IT and more headroom on measured peak
    assert onpeak["power"]["it_mw"] < design["power"]["it_mw"]
    assert onpeak["power"]["headroom_after_failover_mw"] > design["power"]["headroom_after_failover_mw"]
    alarms = page.locator("[data-testid=live-alarms]")
    over = sum(1 for o in measured["objects"] if o["alarm"] == "over")
    assert int(alarms.get_attribute("data-over")) == over >= 1
    assert value(page, "fig-it-mw") == pytest.approx(design["power"]["it_mw"])
    screenshot(page, "live-overview-design", full_page=True)

    page.check("[data-testid=basis-measured]")
    page.wait_for_selector("[data-testid=basis-note][data-basis=measured]")
    page.wait_for_selector("#overview[data-ready=true]")
    assert "basis=measured" in page.url
    assert value(page, "fig-it-mw") == pytest.approx(onpeak["power"]["it_mw"])
    assert value(page, "fig-failover-headroom") == pytest.approx(
        onpeak["power"]["headroom_after_failover_mw"]
    )
    screenshot(page, "live-overview-measured", full_page=True)
    axe_clean(page)
    page.reload()  # the basis stays in the URL
    page.wait_for_selector("[data-testid=basis-note][data-basis=measured]")
    watch.check()


def test_the_floor_map_colours_racks_by_measured_load_and_deviation_and_outlines_alarms(
    planner_page, measured_demo
):
    page, watch = planner_page
    campus = measured_demo["campus_id"]
    rows = {
        o["object_id"]: o
        for o in api(page, f"/api/campuses/{campus}/measured/")["objects"]
        if o["object_kind"] == "rack"
    }
    devices = [
        o
        for o in api(page, f"/api/campuses/{campus}/measured/")["objects"]
        if o["alarm"] and o["object_kind"] not in ("rack", "campus", "building", "hall")
    ]
    page.goto(f"/campuses/{campus}/map/?metric=deviation")
    page.wait_for_function("window.floorMap && floorMap.ready === true && floorMap.measured !== null")
    racks = page.evaluate("floorMap.racks")
    assert racks and rows
    for r in racks:
        row = rows.get(r["id"])
        deviation = None if row is None or row["deviation"] is None else row["deviation"] * 100
        assert r["color"] == binned(deviation, DEVIATION_EDGES, DEVIATION_COLORS), r
        assert r["highlighted"] == bool(row and row["alarm"]), r
    note = page.locator("[data-testid=measured-alarms]")
    assert int(note.get_attribute("data-racks")) == sum(
        1 for r in racks if rows.get(r["id"], {}).get("alarm")
    )
    assert int(note.get_attribute("data-devices")) == len(devices) >= 1
    assert "within ±10 %" in page.inner_text("[data-testid=legend]")
    screenshot(page, "live-map-deviation")

    page.select_option("[data-testid=metric-picker]", "measured_kw")
    page.wait_for_function("floorMap.metric === 'measured_kw'")
    for r in page.evaluate("floorMap.racks"):
        row = rows.get(r["id"])
        assert r["color"] == binned(row and row["measured_peak_kw"], LOAD_EDGES, LOAD_COLORS), r
    assert "Measured peak (kW)" in page.inner_text("[data-testid=legend]")
    screenshot(page, "live-map-measured-load")
    axe_clean(page)
    watch.check()


@pytest.mark.parametrize("kind", ["rack", "pdu", "ups"])
def test_a_device_page_sets_its_measured_peak_beside_its_model_with_a_trend(
    planner_page, measured_demo, kind
):
    page, watch = planner_page
    campus = measured_demo["campus_id"]
    rows = [o for o in api(page, f"/api/campuses/{campus}/measured/")["objects"] if o["object_kind"] == kind]
    assert rows, f"the demo measures no {kind}"
    # the PDU whose meter reads high (the demo's `over` alarm), else the first
    row = next((o for o in rows if o["alarm"] == "over"), rows[0])
    where = "racks" if kind == "rack" else "power-devices"
    page.goto(f"/campuses/{campus}/inventory/{where}/{row['object_id']}/")
    page.wait_for_selector("[data-testid=measured-card][data-ready=true]")
    assert value(page, "measured-peak") == pytest.approx(row["measured_peak_kw"])
    assert value(page, "measured-modelled") == pytest.approx(row["modelled_kw"])
    assert value(page, "measured-deviation") == pytest.approx(row["deviation"])
    if row["alarm"]:
        assert f"{row['alarm']} the model" in page.inner_text("[data-testid=measured-deviation]")
    chart = page.locator("[data-testid=measured-chart]")
    assert int(chart.get_attribute("data-points")) >= 200  # a day of 5-minute buckets (288, less the last)
    page.wait_for_selector("[data-testid=measured-chart] .uplot")
    page.locator("[data-testid=measured-card]").scroll_into_view_if_needed()
    screenshot(page, f"live-{kind}-page")
    axe_clean(page)
    watch.check()


def test_the_deviation_colouring_paints_the_power_devices_by_their_own_deviation(planner_page, measured_demo):
    page, watch = planner_page
    campus = measured_demo["campus_id"]
    rows = {
        (o["object_kind"], o["object_id"]): o
        for o in api(page, f"/api/campuses/{campus}/measured/?metric=power_kw")["objects"]
    }
    page.goto(f"/campuses/{campus}/map/?metric=deviation")
    page.wait_for_function("window.floorMap && floorMap.ready === true && floorMap.measured !== null")
    devices = [p for p in page.evaluate("floorMap.plant") if p["type"] == "power"]
    assert devices, "the demo map draws no power device"
    measured = alarms = 0
    for p in devices:
        row = rows.get((p["kind"], p["id"]))
        deviation = None if row is None or row["deviation"] is None else row["deviation"] * 100
        assert p["color"] == binned(deviation, DEVIATION_EDGES, DEVIATION_COLORS), p
        assert p["highlighted"] == bool(row and row["alarm"]), p
        measured += row is not None
        alarms += bool(row and row["alarm"])
    assert (
        measured >= 1 and alarms >= 1
    )  # the demo's PDU reading 50 % high is drawn, over the model and outlined
    note = page.locator("[data-testid=measured-device-colours]")
    assert int(note.get_attribute("data-measured")) == measured
    assert int(note.get_attribute("data-alarms")) == alarms
    assert int(note.get_attribute("data-unmeasured")) == len(devices) - measured
    assert "power devices alike" in page.inner_text("[data-testid=legend]")
    screenshot(page, "live-map-devices-deviation")
    # the hall of the PDU whose meter reads high: it is drawn there, over the model (orange or red) and outlined
    pdu = next(p for p in devices if (rows.get((p["kind"], p["id"])) or {}).get("alarm") == "over")
    hall = api(page, f"/api/power-devices/{pdu['id']}/")["hall"]
    page.goto(f"/campuses/{campus}/map/?metric=deviation&hall={hall['id']}")
    page.wait_for_function("window.floorMap && floorMap.ready === true && floorMap.measured !== null")
    page.wait_for_function("floorMap.plant.some((p) => p.highlighted)")
    (drawn,) = [p for p in page.evaluate("floorMap.plant") if p["key"] == f"power:{pdu['id']}"]
    row = rows[(pdu["kind"], pdu["id"])]
    assert (
        drawn["color"] == binned(row["deviation"] * 100, DEVIATION_EDGES, DEVIATION_COLORS)
        and drawn["highlighted"]
    )
    screenshot(page, "live-map-hall-devices-deviation")
    # another colouring gives the devices back their kind's fill
    page.select_option("[data-testid=metric-picker]", "load_kw")
    page.wait_for_function("floorMap.metric === 'load_kw'")
    fills = {
        p["color"]
        for p in page.evaluate("floorMap.plant")
        if p["type"] == "power" and p["kind"] != "generator"
    }
    assert fills == {"#475467"}
    axe_clean(page)
    watch.check()


def test_a_cooling_units_page_sets_its_temperatures_flow_and_heat_beside_the_model(
    planner_page, measured_demo
):
    page, watch = planner_page
    campus = measured_demo["campus_id"]
    objects = api(page, f"/api/campuses/{campus}/measured/")["objects"]
    cdus = [o for o in objects if o["object_kind"] == "cdu"]
    assert cdus, "the demo measures no CDU"
    name, unit_id = cdus[0]["object_name"], cdus[0]["object_id"]
    by_metric = {o["metric"]: o for o in cdus if o["object_name"] == name}
    assert set(by_metric) >= {"supply_temp_c", "return_temp_c", "flow_lpm", "heat_kw"}
    page.goto(f"/campuses/{campus}/inventory/?table=cooling")
    page.click(f"[data-testid=inventory-table] a:text-is('{name}')")
    page.wait_for_url(f"**/inventory/cooling-units/{unit_id}/")
    page.wait_for_selector("[data-testid=measured-card][data-ready=true]")
    assert page.inner_text("[data-testid=unit-name]") == name
    for metric, row in by_metric.items():
        if metric not in ("supply_temp_c", "return_temp_c", "flow_lpm", "heat_kw"):
            continue
        assert value(page, f"measured-{metric}-peak") == pytest.approx(row["measured_peak"])
        assert value(page, f"measured-{metric}-modelled") == pytest.approx(row["modelled"])
        assert value(page, f"measured-{metric}-deviation") == pytest.approx(row["deviation"])
        assert page.get_attribute(f"[data-testid=measured-{metric}]", "data-alarm") == (row["alarm"] or "")
        chart = page.locator(f"[data-testid=measured-chart-{metric}]")
        assert int(chart.get_attribute("data-points")) >= 200  # a day of 5-minute buckets
    # the demo's units carry 0.8 of their modelled heat at their design supply temperature: 20 % under
    assert by_metric["heat_kw"]["deviation"] == pytest.approx(-0.2, abs=0.03)
    assert "under the model" in page.inner_text("[data-testid=measured-heat_kw-deviation]")
    assert "K" in page.inner_text("[data-testid=measured-supply_temp_c-deviation]")
    page.wait_for_selector("[data-testid=measured-chart-heat_kw] .uplot")
    screenshot(page, "live-cdu-page", full_page=True)
    axe_clean(page)
    watch.check()


def test_the_weather_card_sets_the_year_in_the_measured_weather_beside_the_typical_year(
    planner_page, measured_demo
):
    page, watch = planner_page
    campus = measured_demo["campus_id"]
    name = api(page, f"/api/campuses/{campus}/")["name"]
    held = api(
        page,
        f"/api/campuses/{campus}/measured/object/?object_kind=campus&object_name={name}&metric=dry_bulb_c&days=35",
    )
    assert len(held["times"]) >= 200
    from datetime import UTC, datetime
    from urllib.parse import urlencode

    start = datetime.fromtimestamp(held["times"][0], UTC).isoformat()
    end = datetime.fromtimestamp(held["times"][-1] + 300, UTC).isoformat()
    replay = api(page, f"/api/campuses/{campus}/facility-replay/?{urlencode({'start': start, 'end': end})}")
    page.goto(f"/campuses/{campus}/")
    page.wait_for_selector("[data-testid=weather-replay][data-ready=true]", timeout=60_000)
    for key in ("pue", "annual_energy_mwh", "peak_facility_mw", "water_m3", "hours_short"):
        for scope, typical, measured in (("span", "typical_span", "span"), ("year", "typical_year", "year")):
            a, b = replay[typical][key], replay[measured][key]
            assert value(page, f"weather-replay-{scope}-{key}-typical") == pytest.approx(a)
            assert value(page, f"weather-replay-{scope}-{key}-measured") == pytest.approx(b)
            assert value(page, f"weather-replay-{scope}-{key}-difference") == pytest.approx(b - a)
    summary = page.locator("[data-testid=weather-replay-summary]")
    assert float(summary.get_attribute("data-pue")) == pytest.approx(replay["span"]["pue"])
    assert int(summary.get_attribute("data-hours")) == replay["hours"] >= 24
    assert f"{replay['how']['dry_bulb'].get('measured', 0)} measured" in summary.inner_text()
    page.wait_for_selector("[data-testid=weather-replay-chart] .uplot")
    page.locator("[data-testid=weather-replay]").scroll_into_view_if_needed()
    screenshot(page, "live-weather-replay")
    axe_clean(page)
    watch.check()
