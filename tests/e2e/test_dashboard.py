"""The planners' dashboard in a real browser (Debian's Chromium) against a live server with the demo campus.

Every test also checks, through its page fixture, that the page logged no console error, threw nothing and
sent no request beyond localhost.
"""

from __future__ import annotations

import pytest

from .conftest import PASSWORD, axe_violations, csrf_headers, generated_campus, login, new_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

RUN_TIMEOUT_MS = 180_000


def api(page, path: str):
    response = page.request.get(path)
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json()


def wait_map_ready(page) -> None:
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")


def campus_racks(data: dict) -> list[dict]:
    """The whole-campus floor map sends racks as rows in `rack_columns` order."""
    columns = data["rack_columns"]
    return [dict(zip(columns, row, strict=True)) for row in data["racks"]]


def largest_hall(page, campus_id: int) -> dict:
    """The hall with the most racks, as the single-hall floor map answers it."""
    racks = campus_racks(api(page, f"/api/campuses/{campus_id}/floor-map/"))
    counts: dict[int, int] = {}
    for rack in racks:
        counts[rack["hall_id"]] = counts.get(rack["hall_id"], 0) + 1
    hall_id = max(counts, key=counts.get)
    data = api(page, f"/api/campuses/{campus_id}/floor-map/?hall={hall_id}")
    return {**data["hall"], "racks": data["racks"]}


# ---------------------------------------------------------------- login and roles


def test_pages_need_a_login_and_the_login_page_signs_in(chromium, live_url, demo):
    context, page, watch = new_page(chromium, live_url)
    page.goto(f"/campuses/{demo['campus_id']}/map/")
    assert "/login/" in page.url
    page.fill("#id_username", demo["users"]["planner"])
    page.fill("#id_password", "wrong-password")
    page.click("[data-testid=login-submit]")
    assert page.locator("[data-testid=login-error]").is_visible()
    assert axe_violations(page) == []
    screenshot(page, "login-error")
    page.fill("#id_password", PASSWORD)
    page.click("[data-testid=login-submit]")
    page.wait_for_url(f"**/campuses/{demo['campus_id']}/map/")
    assert page.locator("[data-testid=role-badge]").text_content().strip() == "planner"
    # Let the page finish its requests: after signing out they would (rightly) be refused.
    wait_map_ready(page)
    page.wait_for_selector("[data-testid=impact-device][data-ready=true]")
    page.wait_for_load_state("networkidle")
    page.click("[data-testid=logout]")
    page.wait_for_url("**/login/")
    watch.check()
    context.close()


def test_a_viewer_sees_scenarios_but_cannot_launch(viewer_page, demo):
    page, watch = viewer_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")
    assert page.locator("[data-testid=read-only-note]").is_visible()
    page.locator("[data-testid=kind-list] .kind-card").first.click()
    launch = page.locator("[data-testid=launch]")
    assert launch.is_disabled()
    # The API refuses the write as well: the page only hides what the server enforces.
    response = page.request.post(
        "/api/scenarios/",
        data={"campus": demo["campus_id"], "kind": "failure_cascade", "name": "not allowed", "params": {}},
        headers=csrf_headers(page),
    )
    assert response.status == 403
    screenshot(page, "scenarios-viewer")
    watch.check()


# ---------------------------------------------------------------- overview


def test_overview_figures_match_the_summary_api(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("#overview[data-ready=true]")
    summary = api(page, f"/api/campuses/{campus_id}/summary/")

    def shown(testid: str) -> float:
        return float(page.get_attribute(f"[data-testid={testid}]", "data-value"))

    power, inventory = summary["power"], summary["inventory"]
    assert shown("fig-gpus") == inventory["gpus"]
    assert page.inner_text("[data-testid=fig-gpus-text]") == f"{inventory['gpus']:,}"
    assert shown("fig-it-mw") == pytest.approx(power["it_mw"])
    assert page.inner_text("[data-testid=fig-it-mw-text]") == f"{power['it_mw']:,.1f} MW"
    assert shown("fig-facility-mw") == pytest.approx(power["facility_mw"])
    assert page.inner_text("[data-testid=fig-facility-mw-text]") == f"{power['facility_mw']:,.1f} MW"
    assert shown("fig-grid-mw") == pytest.approx(power["grid_capacity_mw"])
    assert shown("fig-pue") == pytest.approx(power["pue"])
    assert page.inner_text("[data-testid=fig-pue-text]") == f"{power['pue']:.2f}"
    assert shown("fig-cost") == pytest.approx(power["annual_cost_usd"])
    assert shown("fig-power-headroom") == pytest.approx(power["grid_headroom_mw"])
    cooling = summary["cooling"]
    # the whole chain's spare (units and plant loops), never the units' capacity alone
    assert shown("fig-cooling-headroom") == pytest.approx(cooling["spare_mw"])
    # the grid connection against the peak hour's draw, as the grid headroom
    grid_use = power["peak_facility_mw"] / power["grid_capacity_mw"]
    sub = page.inner_text("[data-testid=fig-facility-mw] .figure-sub")
    assert f"peak {power['peak_facility_mw']:,.1f} MW" in sub and f"{100 * grid_use:.0f}" in sub
    for precision in ("fp8", "bf16", "fp16"):
        assert shown(f"fig-pflops-{precision}") == pytest.approx(summary["compute"]["peak_pflops"][precision])
    # the declared jobs' ETTR (one per island), with the campus-wide job's beside it, labelled as such
    assert shown("fig-ettr") == pytest.approx(summary["compute"]["ettr"])
    assert shown("fig-ettr") == pytest.approx(summary["reliability"]["headline"]["ettr"])
    assert shown("fig-ettr-campus") == pytest.approx(summary["reliability"]["expected_ettr"])
    assert summary["reliability"]["headline"]["basis"] in page.inner_text("[data-testid=fig-ettr]")
    assert "ETTR and effective compute for one synchronous job per island" in page.inner_text(
        "[data-testid=ettr-jobs]"
    )
    # the first job's preset workload and its step-time MFU (docs/training.md, "The summary's jobs")
    first = summary["reliability"]["headline"]["jobs"][0]
    if first["training"]["workload"]:
        line = page.inner_text("[data-testid=job-workload]")
        assert first["training"]["workload"]["model"] in line
        # the jobs checkpointing together share the storage (docs/training.md, "Storage shared by the jobs")
        ck = first["training"]["checkpoint"]
        if ck and ck["storage_jobs"] > 1:
            assert f"shared by {ck['storage_jobs']} jobs" in line
    assert shown("fig-fabric-switches") == summary["network"]["switches"]
    assert shown("risk-dark") == power["racks_without_power"]
    assert shown("risk-redundancy") == power["redundancy_findings_count"]

    by_model = {
        li.get_attribute("data-model"): int(li.get_attribute("data-value"))
        for li in page.locator("[data-testid=fig-gpus-by-model] li").all()
    }
    assert by_model == inventory["gpus_by_model"]
    campuses = api(page, "/api/campuses/?limit=1000")["results"]
    options = page.locator("[data-testid=campus-picker] option")
    assert sorted(options.evaluate_all("els => els.map(e => Number(e.value))")) == sorted(
        c["id"] for c in campuses
    )
    assert page.locator("[data-testid=campus-picker]").input_value() == str(campus_id)
    cards = page.locator("[data-testid=building-card]")
    assert cards.count() == len(summary["buildings"]) >= 1
    for building in summary["buildings"]:
        card = page.locator(f"[data-testid=building-card][data-building-id='{building['id']}']")
        assert card.locator("[data-field=gpus]").inner_text() == f"{building['gpus']:,}"
        assert card.locator("[data-field=it_mw]").inner_text() == f"{building['it_mw']:,.1f} MW"
    screenshot(page, "overview")
    watch.check()


def test_overview_fits_a_wide_screen(chromium, live_url, demo):
    context, page, watch = new_page(chromium, live_url, width=1920, height=1080)
    login(page, demo["users"]["planner"])
    page.goto(f"/campuses/{demo['campus_id']}/")
    page.wait_for_selector("#overview[data-ready=true]")
    no_overflow = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert no_overflow
    screenshot(page, "overview-wide")
    watch.check()
    context.close()


# ---------------------------------------------------------------- floor map

DRAWN_CHECK = """
() => {
  window.floorMap.draw();
  const canvas = document.querySelector('[data-testid=floor-canvas]');
  const ctx = canvas.getContext('2d');
  const box = canvas.getBoundingClientRect();
  const dpr = canvas.width / box.width;
  const hex = (d) => '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
  const bad = [];
  let checked = 0, skipped = 0;
  for (const r of window.floorMap.racks) {
    // Racks under 4 px overlap their neighbours on screen; their own pixel may be a neighbour's.
    if (r.w < 4 || r.h < 4) { skipped += 1; continue; }
    const px = Math.floor((r.x - box.left) * dpr), py = Math.floor((r.y - box.top) * dpr);
    if (px < 0 || py < 0 || px >= canvas.width || py >= canvas.height) { skipped += 1; continue; }
    checked += 1;
    const got = hex(ctx.getImageData(px, py, 1, 1).data);
    if (got !== r.color.toLowerCase()) bad.push([r.name, got, r.color]);
  }
  return {bad, checked, skipped};
}
"""


def test_floor_map_draws_every_rack_of_the_largest_hall(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/")
    hall = largest_hall(page, campus_id)
    page.goto(f"/campuses/{campus_id}/map/?hall={hall['id']}")
    wait_map_ready(page)
    state = page.evaluate("({hallId: floorMap.hallId, metric: floorMap.metric, racks: floorMap.racks})")
    assert state["hallId"] == hall["id"]
    assert state["metric"] == "load_kw"
    assert sorted(r["id"] for r in state["racks"]) == sorted(r["id"] for r in hall["racks"])
    assert all(r["color"].startswith("#") for r in state["racks"])
    # Each rack's centre pixel has the rack's colour: every one of them was actually painted.
    page.evaluate("floorMap.fitForCheck()")
    drawn = page.evaluate(DRAWN_CHECK)
    assert drawn == {"bad": [], "checked": len(hall["racks"]), "skipped": 0}
    legend_items = page.locator("[data-testid=legend] li")
    assert legend_items.count() >= 2
    screenshot(page, "floor-map-hall")

    page.select_option("[data-testid=metric-picker]", "cooling_type")
    page.wait_for_function("floorMap.metric === 'cooling_type'")
    assert page.evaluate(DRAWN_CHECK)["bad"] == []
    assert "Cooling type" in page.inner_text("[data-testid=legend]")
    screenshot(page, "floor-map-cooling-type")
    watch.check()


def test_floor_map_of_the_whole_campus_and_keyboard_zoom(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    data = api(page, f"/api/campuses/{campus_id}/floor-map/")
    expected = sorted(r["id"] for r in campus_racks(data))
    assert sorted(r["id"] for r in page.evaluate("floorMap.racks")) == expected
    screenshot(page, "floor-map-campus")
    # At the campus scale a rack is under a pixel; close in on a row to see them painted.
    page.evaluate(f"floorMap.fitToIds({expected[:12]})")
    drawn = page.evaluate(DRAWN_CHECK)
    assert drawn["bad"] == [] and drawn["checked"] >= 12
    page.evaluate("floorMap.fit()")

    page.focus("[data-testid=floor-canvas]")
    before = page.evaluate("floorMap.scale")
    page.keyboard.press("+")
    page.keyboard.press("+")
    assert page.evaluate("floorMap.scale") > before
    first = page.evaluate("floorMap.racks[0].x")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("floorMap.racks[0].x") < first
    page.keyboard.press("0")
    assert page.evaluate("floorMap.scale") == pytest.approx(before)
    watch.check()


def test_a_building_card_opens_that_building_on_the_map(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("#overview[data-ready=true]")
    card = page.locator("[data-testid=building-card]").last
    building_id = int(card.get_attribute("data-building-id"))
    building_name = card.locator("h3").inner_text().strip()
    card.locator("h3 a").click()
    page.wait_for_url(f"**/map/?building={building_id}")
    wait_map_ready(page)
    data = api(page, f"/api/campuses/{campus_id}/floor-map/")
    halls = {h["id"] for b in data["buildings"] if b["id"] == building_id for h in b["halls"]}
    expected = sorted(r["id"] for r in campus_racks(data) if r["hall_id"] in halls)
    assert sorted(r["id"] for r in page.evaluate("floorMap.racks")) == expected
    assert page.evaluate("floorMap.buildingId") == building_id
    assert page.inner_text("#map-crumbs").strip().endswith(building_name)
    watch.check()


def test_clicking_a_rack_opens_its_panel_with_power_paths(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/")
    hall = largest_hall(page, campus_id)
    page.goto(f"/campuses/{campus_id}/map/?hall={hall['id']}")
    wait_map_ready(page)
    rack = max(
        page.evaluate("floorMap.racks"),
        key=lambda r: next(x["gpus"] for x in hall["racks"] if x["id"] == r["id"]),
    )
    page.mouse.move(rack["x"], rack["y"])
    tooltip = page.locator("[data-testid=map-tooltip]")
    tooltip.wait_for(state="visible")
    assert rack["name"] in tooltip.inner_text()
    page.mouse.click(rack["x"], rack["y"])
    panel = page.locator("[data-testid=rack-panel]")
    panel.wait_for(state="visible")
    assert panel.locator("[data-testid=rack-panel-name]").inner_text() == rack["name"]
    page.wait_for_selector("[data-testid=rack-panel][data-ready=true]")
    chain = api(page, f"/api/campuses/{campus_id}/power-chain/?rack={rack['id']}")
    power = panel.locator("[data-testid=rack-panel-power]")
    sides = power.locator(".path").evaluate_all("els => els.map(e => e.dataset.side)")
    assert "A" in sides and "B" in sides
    for side in ("A", "B"):
        names = power.locator(f".path[data-side={side}] .chain-name").all_inner_texts()
        expected = [d["name"] for d in _path(chain, side)]
        assert names == expected
    expected_gpus = next(x["gpus"] for x in hall["racks"] if x["id"] == rack["id"])
    assert panel.locator("[data-testid=rack-panel-gpus]").inner_text() == f"{expected_gpus:,}"
    assert panel.locator("[data-testid=rack-panel-nodes] table").count() == 1
    links = api(page, f"/api/links/?a_rack={rack['id']}&limit=100")
    assert panel.locator("[data-testid=rack-panel-links] li").count() == min(links["count"], 40)
    screenshot(page, "rack-panel")
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    watch.check()


def _path(chain: dict, side: str) -> list[dict]:
    """Devices in series upstream of the rack's feed on one side, nearest first, then the utility feeds (standby
    generators stand beside the device they back, not in the series)."""
    entry = next(s for s in chain["sides"] if s["side"] == side)
    series = sorted((d for d in entry["devices"] if not d["standby"]), key=lambda d: d["depth"])
    return series + entry["utility_feeds"]


# ---------------------------------------------------------------- impact mode


@pytest.fixture(scope="module")
def single_path(django_db_setup, django_db_blocker):
    """A campus whose single power failures cost racks: the demo's 2(N+1) chain, standby generators behind
    every side, loses no rack side to any one device."""
    with generated_campus(
        django_db_blocker, "Single path", "single-path-planner", gpus=512, power_redundancy="N"
    ) as cid:
        yield cid


def test_impact_mode_highlights_the_racks_the_impact_api_names(planner_page, single_path):
    page, watch = planner_page
    campus_id = single_path
    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    page.wait_for_selector("[data-testid=impact-device][data-ready=true]")
    # the first power device whose loss hits racks (a row PDU of the single path)
    values = page.eval_on_selector_all(
        "[data-testid=impact-device] option[value^='power:']", "options => options.map(o => o.value)"
    )
    for value in values:
        kind, device = value.split(":")
        impact = api(page, f"/api/campuses/{campus_id}/impact/?device={device}&kind={kind}")
        racks = impact["racks"]
        hit = (
            set(racks["lost_a"]) | set(racks["lost_b"]) | set(racks["lost_both"]) | set(racks["lost_cooling"])
        )
        if hit:
            break
    assert hit, "failing some power device should hit some racks"
    page.select_option("[data-testid=impact-device]", value)
    page.wait_for_selector("[data-testid=impact-gpus-lost]")
    shown = page.evaluate("floorMap.racks")
    assert {r["id"] for r in shown if r["highlighted"]} == hit
    colours = {r["id"]: r["color"] for r in shown}
    impact_colours = page.evaluate("floorMap.impactColors")
    for rid in racks["lost_a"]:
        assert colours[rid] in (impact_colours["a"], impact_colours["cascade"])
    for rid in racks["lost_b"]:
        assert colours[rid] in (impact_colours["b"], impact_colours["cascade"])
    for rid in racks["lost_both"]:
        assert colours[rid] in (impact_colours["both"], impact_colours["cascade"])
    for rid in set(colours) - hit:
        assert colours[rid] == impact_colours["unaffected"]
    lost = impact["gpus"]["lost_power"] + impact["gpus"]["lost_cooling"]
    assert int(page.get_attribute("[data-testid=impact-gpus-lost]", "data-value")) == lost
    assert page.evaluate(DRAWN_CHECK)["bad"] == []
    screenshot(page, "impact-mode")
    page.click("[data-testid=impact-clear]")
    assert not any(r["highlighted"] for r in page.evaluate("floorMap.racks"))
    watch.check()


def test_impact_mode_fails_several_elements_at_once(planner_page, demo):
    # Two power devices picked with "several at once": the map shows what the API answers for both failed
    # together (?failed=kind:id,kind:id), and taking one out goes back to the other alone.
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    page.wait_for_selector("[data-testid=impact-device][data-ready=true]")
    values = page.locator("[data-testid=impact-device] option[value^='power:']").evaluate_all(
        "els => [...new Set(els.map(e => e.value))]"
    )
    assert len(values) >= 2
    first, second = values[0], values[1]
    page.check("[data-testid=impact-several]")
    page.select_option("[data-testid=impact-device]", first)
    page.wait_for_selector("[data-testid=impact-gpus-lost]")
    page.select_option("[data-testid=impact-device]", second)
    page.wait_for_selector(f"[data-testid=impact-picked] li[data-value='{second}']")
    both = api(page, f"/api/campuses/{campus_id}/impact/?failed={first},{second}")
    lost = both["gpus"]["lost_power"] + both["gpus"]["lost_cooling"]
    page.wait_for_selector(f"[data-testid=impact-gpus-lost][data-value='{lost}']")
    racks = both["racks"]
    hit = set(racks["lost_a"]) | set(racks["lost_b"]) | set(racks["lost_both"]) | set(racks["lost_cooling"])
    assert {r["id"] for r in page.evaluate("floorMap.racks") if r["highlighted"]} == hit
    page.click(f"[data-testid=impact-picked] li[data-value='{first}'] button")
    kind, device = second.split(":")
    alone = api(page, f"/api/campuses/{campus_id}/impact/?device={device}&kind={kind}")
    lost = alone["gpus"]["lost_power"] + alone["gpus"]["lost_cooling"]
    page.wait_for_selector(f"[data-testid=impact-gpus-lost][data-value='{lost}']")
    assert page.locator("[data-testid=impact-picked] li").count() == 1
    page.click("[data-testid=impact-clear]")
    assert not any(r["highlighted"] for r in page.evaluate("floorMap.racks"))
    watch.check()


# ---------------------------------------------------------------- scenarios and runs


def test_scenario_form_shows_client_and_api_errors(planner_page, demo):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")
    page.click("[data-testid=kind-power_capping]")
    form = page.locator("[data-testid=scenario-form]")
    form.wait_for(state="visible")
    # Client side: out of the schema's range, caught before any request.
    page.fill("#param-job-mfu", "5")
    requests = []
    page.on("request", lambda r: requests.append(r.url) if r.method == "POST" else None)
    page.click("[data-testid=launch]")
    error = page.locator("[data-path='job.mfu'] .field-error")
    error.wait_for(state="visible")
    assert "≤ 1" in error.inner_text()
    assert requests == []
    page.fill("#param-job-mfu", "0.4")
    # Server side only: a cap rule with both a fraction and watts passes the schema but not the API, which
    # names the rule (caps[0]); the message lands on its row.
    page.fill("#param-caps-0-cap-w", "500")
    page.click("[data-testid=launch]")
    page.wait_for_selector("[data-testid=api-errors]")
    caps_error = page.locator("[data-path=caps] [data-testid=param-row] .field-error").filter(
        has_text="exactly one"
    )
    assert caps_error.first.is_visible()
    screenshot(page, "scenario-form-errors")
    # A 400 logs a failed resource load in the console; that one is expected here.
    watch.console_errors = [e for e in watch.console_errors if "400" not in e]
    watch.check()


def test_a_scenario_launched_from_the_page_finishes_and_shows_its_charts(planner_page, demo, celery_worker):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")
    page.click("[data-testid=kind-failure_cascade]")
    page.fill("[data-testid=scenario-name]", "E2E failures, 3 days")
    page.fill("#param-duration-days", "3")
    page.fill("[data-testid=run-replicas]", "4")
    page.fill("[data-testid=run-seed]", "7")
    page.click("[data-testid=launch]")
    detail = page.locator("[data-testid=run-detail]")
    detail.wait_for(state="visible")
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector("[data-testid=run-detail][data-results=ready]")
    run_id = int(detail.get_attribute("data-run-id"))
    run = api(page, f"/api/runs/{run_id}/")
    assert run["status"] == "succeeded" and run["replicas_done"] == 4
    metrics = api(page, f"/api/runs/{run_id}/timeseries/")["metrics"]
    charts = page.locator("[data-testid=run-charts] [data-testid=chart]")
    assert charts.count() == min(len(metrics), 8) >= 1
    assert page.locator("[data-testid=run-charts] canvas").count() >= charts.count()
    assert page.locator("[data-testid=run-distributions] [data-testid=histogram]").count() >= 1
    rows = page.locator("[data-testid=summary-table] tbody tr")
    assert rows.count() == len(run["summary"]["metrics"])
    detail.scroll_into_view_if_needed()
    screenshot(page, "run-results", full_page=True)
    watch.check()


def launch_from_page(page, kind: str, name: str, replicas: int, seed: int, fields: dict | None = None) -> int:
    page.click(f"[data-testid=kind-{kind}]")
    page.fill("[data-testid=scenario-name]", name)
    for selector, value in (fields or {}).items():
        page.fill(selector, value)
    page.fill("[data-testid=run-replicas]", str(replicas))
    page.fill("[data-testid=run-seed]", str(seed))
    before = page.get_attribute("[data-testid=run-detail]", "data-run-id")
    page.click("[data-testid=launch]")
    page.wait_for_function(
        """(before) => {
          const d = document.querySelector('[data-testid=run-detail]');
          return d.dataset.runId && d.dataset.runId !== before && d.dataset.results === 'ready';
        }""",
        arg=before,
        timeout=RUN_TIMEOUT_MS,
    )
    assert page.get_attribute("[data-testid=run-detail]", "data-status") == "succeeded"
    return int(page.get_attribute("[data-testid=run-detail]", "data-run-id"))


def test_a_cooling_run_replays_on_the_floor_map(planner_page, demo, celery_worker):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/scenarios/")
    run_id = launch_from_page(page, "liquid_cooling", "E2E CDU loss", replicas=2, seed=3)
    names = api(page, f"/api/runs/{run_id}/timeseries/")["metrics"]
    with_series = {int(n.split(".")[1]) for n in names if n.startswith("rack.") and n.endswith("temp_c")}
    assert with_series, "the cooling run should record per-rack temperatures"
    page.click("[data-testid=replay-link]")
    page.wait_for_url(f"**/campuses/{campus_id}/map/?run={run_id}*")
    wait_map_ready(page)
    page.wait_for_selector("#replay-controls:not([hidden])", timeout=60_000)
    slider = page.locator("[data-testid=replay-slider]")
    last = int(slider.get_attribute("max"))
    assert last > 0
    slider.focus()
    page.keyboard.press("End")
    assert page.evaluate("floorMap.metric") == "temperature"
    no_data = page.evaluate("floorMap.noDataColor")
    racks = page.evaluate("floorMap.racks")
    coloured = {r["id"] for r in racks if r["color"] != no_data}
    assert coloured == with_series & {r["id"] for r in racks}
    # The replay zoomed to the racks it follows: they are on screen and painted in their colours.
    drawn = page.evaluate(DRAWN_CHECK)
    assert drawn["bad"] == [] and drawn["checked"] >= len(with_series)
    screenshot(page, "replay-end")
    page.keyboard.press("Home")
    assert page.inner_text("[data-testid=replay-time]").strip() in {"0 min", "0.0 h"}
    watch.check()


def test_two_runs_compare_side_by_side(planner_page, demo, celery_worker):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/scenarios/")
    first = launch_from_page(page, "grid_limit", "E2E grid cut, cap", 2, 11)
    second = launch_from_page(page, "grid_limit", "E2E grid cut, other seed", 2, 12)
    for run_id in (first, second):
        page.check(f"[data-testid=run-row][data-run-id='{run_id}'] input[type=checkbox]")
    page.click("[data-testid=compare-button]")
    page.wait_for_selector("[data-testid=compare-view][data-ready=true]", timeout=60_000)
    compared = api(page, f"/api/runs/compare/?ids={first},{second}")
    rows = page.locator("[data-testid=compare-table] tbody tr")
    assert rows.count() == len(compared["metrics"])
    assert page.locator("[data-testid=compare-column]").count() == 2
    assert page.locator("[data-testid=compare-chart]").count() >= 2
    page.locator("[data-testid=compare-view]").scroll_into_view_if_needed()
    screenshot(page, "compare-runs")
    watch.check()


def post(page, path: str, data: dict) -> dict:
    response = page.request.post(path, data=data, headers=csrf_headers(page))
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json()


def test_a_scheduled_run_shows_with_its_flag(admin_page, demo, celery_worker):
    page, watch = admin_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/scenarios/")
    scenario = post(
        page,
        "/api/scenarios/",
        {
            "campus": campus_id,
            "kind": "failure_cascade",
            "name": "E2E nightly",
            "params": {"duration_days": 2},
        },
    )
    # ETTR is at most 1, so this threshold flags every run: the page must show it.
    schedule = post(
        page,
        "/api/schedules/",
        {
            "scenario": scenario["id"],
            "name": "E2E nightly failures",
            "crontab": "0 2 * * *",
            "replicas": 2,
            "seed": 5,
            "thresholds": [{"metric": "ettr", "op": "<", "value": 2}],
        },
    )
    from simulations.tasks import run_schedule

    run_schedule.delay(schedule["id"])  # what beat sends at 02:00
    row = page.locator(f"[data-testid=schedule-table] tr[data-schedule-id='{schedule['id']}']")
    for _ in range(60):
        page.goto(f"/campuses/{campus_id}/scenarios/")
        row.wait_for()
        if row.locator(".flag", has_text="flagged").count():
            break
        page.wait_for_timeout(1000)
    assert row.locator(".flag", has_text="flagged").count() == 1
    assert "every day at 02:00 UTC (0 2 * * *)" in row.inner_text()
    # the threshold's metric in words (ETTR), not its key
    assert "ETTR (mean) < 2" in row.inner_text() or "ETTR < 2" in row.inner_text()
    row.locator("a").first.click()
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]")
    assert "ettr" in page.inner_text("[data-testid=run-flags]")
    screenshot(page, "scheduled-run-flagged")
    watch.check()


# ---------------------------------------------------------------- accessibility


@pytest.mark.parametrize("page_path", ["/campuses/{id}/", "/campuses/{id}/map/", "/campuses/{id}/scenarios/"])
def test_pages_pass_the_wcag_aa_checks(planner_page, demo, page_path):
    """axe-core (npm, bundled with the dashboard's dev dependencies): contrast, labels, names, structure."""
    page, watch = planner_page
    page.goto(page_path.format(id=demo["campus_id"]))
    if "/map/" in page_path:
        wait_map_ready(page)
    elif "/scenarios/" in page_path:
        page.click("[data-testid=kind-grid_limit]")
    else:
        page.wait_for_selector("#overview[data-ready=true]")
    assert axe_violations(page) == []
    watch.check()


def test_the_map_works_from_the_keyboard(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/")
    hall = largest_hall(page, campus_id)
    page.goto(f"/campuses/{campus_id}/map/?hall={hall['id']}")
    wait_map_ready(page)
    # Tab order reaches the canvas; keys pan and zoom it.
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == "floor-canvas":
            break
    assert page.evaluate("document.activeElement.dataset.testid") == "floor-canvas"
    scale = page.evaluate("floorMap.scale")
    page.keyboard.press("-")
    assert page.evaluate("floorMap.scale") < scale
    # A rack by name: type it, Enter, and its panel opens with the focus in it; Escape closes it.
    name = hall["racks"][len(hall["racks"]) // 2]["name"]
    page.focus("[data-testid=rack-search]")
    page.keyboard.type(name)
    page.keyboard.press("Enter")
    panel = page.locator("[data-testid=rack-panel]")
    panel.wait_for(state="visible")
    assert panel.locator("[data-testid=rack-panel-name]").inner_text() == name
    assert page.evaluate("document.activeElement.dataset.testid") == "rack-panel"
    page.wait_for_selector("[data-testid=rack-panel][data-ready=true]")
    assert axe_violations(page) == []
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    watch.check()
