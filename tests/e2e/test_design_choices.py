"""The design choices in words on the dashboard, on campuses made through the generator API
(``POST /api/campuses/generate/``) by a planner in the browser:

* 1,024 H100 on 800 VDC with air-cooled chillers and W40 facility water: the overview's design card says
  "800 VDC" and "Air-cooled chillers (closed loop)", the water class, the chain losses, copper and capex, and
  the peak and grid headroom at design conditions, each the summary API's figure; the floor map names the
  plant kinds in words;
* the same campus with its grid connection cut below the peak (a PATCH): the risk card shows the summary's
  grid shortfall in words with the generators' energy, the count turns red.
"""

from __future__ import annotations

import pytest

from .conftest import axe_violations, csrf_headers, login, new_page, planner_user, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "design-planner"
SPEC = dict(
    gpus=1024,
    gpu_model="h100-sxm",
    cooling="liquid",
    hall_max_it_mw=0.8,
    power_architecture="dc-800",
    heat_rejection="air-cooled",
    facility_water="W40",
)
SHORT_GRID_MW = 0.5  # a 1,024-H100 campus draws ~1.6 MW at its peak: a third of it from the grid


@pytest.fixture(scope="module")
def planner(django_db_setup, django_db_blocker):
    with planner_user(django_db_blocker, USER) as name:
        yield name


@pytest.fixture
def page(chromium, live_url, planner):
    context, page, watch = new_page(chromium, live_url, width=1280, height=1000)
    login(page, planner)
    yield page
    watch.check()
    context.close()


def generate(page, name: str) -> int:
    response = page.request.post(
        "/api/campuses/generate/", data={"name": name, **SPEC}, headers=csrf_headers(page)
    )
    assert response.status == 201, response.text()[:500]
    return response.json()["id"]


def summary(page, campus_id: int) -> dict:
    response = page.request.get(f"/api/campuses/{campus_id}/summary/")
    assert response.ok
    return response.json()


def mw(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f} MW"


def test_the_design_card_says_800_vdc_and_air_cooled_chillers_in_words(page):
    campus_id = generate(page, "Closed-loop 800 VDC campus")
    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("#overview[data-ready=true]")
    s = summary(page, campus_id)
    dist, power, cooling = s["power"]["distribution"], s["power"], s["cooling"]
    assert dist["architecture"] == "dc-800"

    card = page.locator("[data-testid=design-card]")
    arch = card.locator("[data-testid=fig-power-architecture]")
    assert arch.get_attribute("data-value") == "dc-800"
    assert page.inner_text("[data-testid=fig-power-architecture-text]").startswith("800 VDC")
    sub = arch.inner_text()
    loss_share = 100 * dist["chain_loss_mw"] / power["it_mw"]
    assert f"chain losses {mw(dist['chain_loss_mw'], 2)} ({loss_share:.1f} % of IT)" in sub
    # copper as the API gives it against 415 VAC, written out here: 1 − relative, whole percent
    assert f"{round((1 - dist['copper_relative_to_ac']) * 100)} % less copper than 415 VAC" in sub
    assert f"${dist['power_capex_usd'] / 1e6:,.1f} M" in sub

    heat = card.locator("[data-testid=fig-heat-rejection]")
    assert heat.get_attribute("data-value") == "air-chiller"
    assert page.inner_text("[data-testid=fig-heat-rejection-text]") == "Air-cooled chillers (closed loop)"
    assert "facility water W40" in heat.inner_text()
    assert f"WUE {cooling['wue_l_per_kwh']:.2f} L/kWh" in heat.inner_text()
    assert cooling["wue_l_per_kwh"] == 0.0  # a closed loop evaporates nothing

    peak = card.locator("[data-testid=fig-design-peak]")
    assert float(peak.get_attribute("data-value")) == pytest.approx(power["design_peak_facility_mw"])
    assert page.inner_text("[data-testid=fig-design-peak-text]") == mw(power["design_peak_facility_mw"])
    assert f"typical year's peak {mw(power['peak_facility_mw'])}" in peak.inner_text()
    assert power["design_peak_facility_mw"] >= power["peak_facility_mw"]
    head = card.locator("[data-testid=fig-design-grid-headroom]")
    assert float(head.get_attribute("data-value")) == pytest.approx(power["design_grid_headroom_mw"])
    assert page.inner_text("[data-testid=fig-design-grid-headroom-text]") == mw(
        power["design_grid_headroom_mw"]
    )
    assert page.get_attribute("[data-testid=summary-risks]", "data-value") == str(len(s["risks"]))
    # the weather card: the site's design conditions, as the weather API gives them
    dc = page.request.get(f"/api/campuses/{campus_id}/weather/").json()["design_conditions"]
    conditions = page.locator("[data-testid=weather-design-conditions]")
    assert float(conditions.get_attribute("data-value")) == pytest.approx(dc["cooling_db_04_c"])
    assert (
        f"0.4 % {dc['cooling_db_04_c']:.1f} °C dry bulb / {dc['cooling_mcwb_04_c']:.1f} °C wet bulb"
        in conditions.inner_text()
    )
    assert f"20-year extreme {dc['extreme_db_20y_c']:.1f} °C" in conditions.inner_text()
    assert axe_violations(page) == []
    card.scroll_into_view_if_needed()
    screenshot(page, "overview-design-card")

    page.goto(f"/campuses/{campus_id}/map/")
    page.wait_for_selector("[data-testid=plant-kinds] li")
    kinds = page.locator("[data-testid=plant-kinds]")
    text = kinds.inner_text()
    assert "Air-cooled chillers (closed loop)" in text
    assert "Solid-state transformer" in text and "DC busway" in text
    assert kinds.locator("li[data-kind=air-chiller]").count() == 1
    assert axe_violations(page) == []
    kinds.scroll_into_view_if_needed()
    screenshot(page, "map-plant-kinds")

    # one hall: its IT load and, of it, the network and allowance carried beside its racks
    campus_map = page.request.get(f"/api/campuses/{campus_id}/floor-map/").json()
    hall_id = campus_map["buildings"][0]["halls"][0]["id"]
    hall = page.request.get(f"/api/campuses/{campus_id}/floor-map/?hall={hall_id}").json()["hall"]
    assert hall["beside_racks_mw"] > 0  # the fabric and other IT sit on the GPU halls' PDUs
    page.goto(f"/campuses/{campus_id}/map/?hall={hall_id}")
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")
    beside = page.locator("[data-testid=map-beside-mw]")
    assert float(beside.get_attribute("data-value")) == pytest.approx(hall["beside_racks_mw"])
    assert beside.inner_text() == f"{hall['beside_racks_mw']:,.2f} MW of it beside the racks"


def test_a_grid_below_the_peak_shows_the_shortfall_risk_in_words(page):
    campus_id = generate(page, "Short-grid campus")
    page.goto(f"/campuses/{campus_id}/")
    answer = page.request.patch(
        f"/api/campuses/{campus_id}/", data={"grid_capacity_mw": SHORT_GRID_MW}, headers=csrf_headers(page)
    )
    assert answer.ok, answer.text()[:300]
    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("#overview[data-ready=true]")
    s = summary(page, campus_id)
    risk = next(r for r in s["risks"] if r["kind"] == "grid_shortfall")
    assert risk["shortfall_mw"] == pytest.approx(s["power"]["peak_facility_mw"] - SHORT_GRID_MW)

    item = page.locator("[data-testid=summary-risk-grid_shortfall]")
    assert item.get_attribute("data-severity") == risk["severity"]
    text = item.inner_text()
    assert "Grid connection below the peak facility power" in text
    assert f"{risk['shortfall_mw']:,.2f} MW short" in text
    assert f"{risk['hours']:,} h a year" in text
    assert f"{risk['generator_energy_mwh']:,.0f} MWh a year from generators" in text
    assert risk["message"] in text
    assert page.get_attribute("[data-testid=risk-grid-shortfall]", "data-value") == "1"
    assert axe_violations(page) == []  # the risk's words and border keep the WCAG AA contrast
    page.locator("[data-testid=risk-card]").scroll_into_view_if_needed()
    screenshot(page, "overview-grid-shortfall-risk")


def test_a_planner_generates_a_dc_800_campus_from_the_schema_driven_form(page):
    """The overview's *Generate a campus* form is built from the API schema: the new generator options are
    controls with their choices (never JSON), and what it submits is the generator API's campus."""
    start = generate(page, "Campus the form is opened from")
    page.goto(f"/campuses/{start}/")
    page.wait_for_selector("#overview[data-ready=true]")
    page.click("[data-testid=generate-card] summary")
    page.wait_for_selector("[data-testid=generate-form] #param-power-architecture")
    options = page.eval_on_selector_all("#param-power-architecture option", "els => els.map(e => e.value)")
    assert {"ac", "dc-800", "dc-400"} <= set(options)
    # the choices read as the API's labels (campus.choices.PowerArchitecture), not as codes
    label = page.inner_text("#param-power-architecture option[value=dc-800]")
    assert label == "800 VDC (solid-state transformer, DC busway)"
    options = page.eval_on_selector_all("#param-heat-rejection option", "els => els.map(e => e.value)")
    assert {"air-cooled", "adiabatic", "evaporative", "hybrid"} <= set(options)
    for control in ("facility-water", "island-gpus", "island-spans-buildings", "planning-margin-pct"):
        assert page.locator(f"#param-{control}").count() == 1, control
    assert page.locator("[data-testid=generate-form] textarea").count() == 0  # no JSON box
    page.fill("#param-name", "Form-made 800 VDC campus")
    page.fill("#param-gpus", "1024")
    page.fill("#param-hall-max-it-mw", "0.8")
    page.select_option("#param-power-architecture", "dc-800")
    page.select_option("#param-heat-rejection", "air-cooled")
    page.select_option("#param-facility-water", "W40")
    page.locator("[data-testid=generate-card]").scroll_into_view_if_needed()
    screenshot(page, "overview-generate-form")
    before = page.url
    page.click("[data-testid=generate-submit]")
    page.wait_for_function(
        "(before) => location.href !== before || document.querySelector('[data-testid=generate-api-errors]')",
        arg=before,
        timeout=60_000,
    )
    assert page.locator("[data-testid=generate-api-errors]").count() == 0, page.inner_text(
        "[data-testid=generate-api-errors]"
    )
    page.wait_for_selector("#overview[data-ready=true]")
    campus_id = int(page.url.rstrip("/").split("/")[-1])
    assert summary(page, campus_id)["power"]["distribution"]["architecture"] == "dc-800"
    assert page.inner_text("[data-testid=fig-power-architecture-text]").startswith("800 VDC")
    assert page.inner_text("[data-testid=fig-heat-rejection-text]") == "Air-cooled chillers (closed loop)"
