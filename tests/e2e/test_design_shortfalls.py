"""What the dashboard says of a campus that falls short of its own design, on one generated campus (1,024 H100 in
two halls, liquid-cooled) with a typed design PUE of 1.0 and one CDU group cut to 1 kW a unit:

* the overview says the typed PUE is below the plant model's and shows the plant model's PUE and facility
  power, the summary API's figures;
* impact mode counts the GPUs already without cooling at design (the racks of the short group), the impact
  API's count, apart from the GPUs a failure loses;
* the run form's "Campus as of" takes the page's day and the run is stored with that day.
"""

from __future__ import annotations

import pytest

from .conftest import (
    SCREENSHOTS,
    ask_placement,
    axe_violations,
    generated_campus,
    login,
    new_page,
    placement_answer,
    screenshot,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "shortfall-planner"
GPUS_PER_NODE = 8  # hgx-h100-8: an HGX H100 board carries eight GPUs
TYPED_PUE = 1.0  # the lowest PUE the model takes; any plant that draws power sits above it
RUN_DAY = "2030-06-01"  # after the generated campus comes into service, nothing retired by then
RUN_TIMEOUT_MS = 180_000
# Two halls of 512 H100 (a hall holds at most 0.8 MW of IT), each with its own CDU group: one group is cut short.
SPEC = dict(gpus=1024, gpu_model="h100-sxm", cooling="liquid", hall_max_it_mw=0.8, pue=TYPED_PUE)


def api(page, path: str):
    response = page.request.get(path)
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json()


@pytest.fixture(scope="module")
def short_campus(django_db_setup, django_db_blocker):
    """The campus id and the GPUs on the racks of the CDU group cut short (counted from the inventory)."""
    from campus.models import Campus, CoolingUnit, Node

    with generated_campus(django_db_blocker, "Shortfall campus", USER, **SPEC) as campus_id:
        with django_db_blocker.unblock():
            assert Campus.objects.get(pk=campus_id).design_pue == TYPED_PUE
            group = CoolingUnit.objects.filter(campus_id=campus_id, kind="cdu").order_by("id").first().group
            assert group
            units = list(CoolingUnit.objects.filter(campus_id=campus_id, group=group))
            for unit in units:
                unit.capacity_kw = 1.0  # far below any rack's heat: the group is short with nothing failed
                unit.save()
            nodes = Node.objects.filter(rack__cooling_unit__in=units).count()
            all_nodes = Node.objects.filter(rack__campus_id=campus_id).count()
        assert 0 < nodes < all_nodes  # the short group cools part of the campus, not all of it
        yield campus_id, nodes * GPUS_PER_NODE


@pytest.fixture
def page(chromium, live_url, short_campus):
    context, page, watch = new_page(chromium, live_url, width=1280, height=900)
    login(page, USER)
    yield page
    watch.check()
    context.close()


def test_the_overview_says_the_typed_pue_is_below_the_plant_model(page, short_campus):
    campus_id, _ = short_campus
    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("#overview[data-ready=true]")
    power = api(page, f"/api/campuses/{campus_id}/summary/")["power"]
    assert power["pue"] == TYPED_PUE and power["pue_source"] == "override"
    assert power["pue_below_plant_model"] is True
    # A typed PUE of 1.0: facility power is the IT load, to the last watt.
    assert power["facility_mw"] == pytest.approx(power["it_mw"])

    note = page.locator("[data-testid=fig-pue-plant]")
    assert float(note.get_attribute("data-value")) == pytest.approx(power["plant_model_pue"])
    text = note.inner_text()
    assert f"plant model's {power['plant_model_pue']:.2f}" in text
    assert f"facility {power['plant_model_facility_mw']:,.1f} MW, not {power['facility_mw']:,.1f} MW" in text
    assert "understated" in text
    assert page.inner_text("[data-testid=fig-pue-text]") == f"{TYPED_PUE:.2f}"
    # The short group's racks have no cooling at design, so they do not run: the running IT load is below the
    # design's by their share, and so is the year's energy.
    _, gpus_short = short_campus
    assert power["gpus_down_at_design"] == gpus_short
    assert 0 < power["it_mw"] < power["design_it_mw"]
    # A year at PUE 1.0 is the IT load for 8,760 hours; a campus of a few MW is shown in GWh, not as 0.01 TWh
    # (under 10 GWh with one decimal).
    assert power["annual_energy_twh"] == pytest.approx(power["it_mw"] * 8760 / 1e6)
    gwh = power["annual_energy_twh"] * 1000
    assert 1 <= gwh < 10
    assert page.inner_text("[data-testid=fig-cost]").endswith(f"{gwh:,.1f} GWh / year")
    # The note spans the card: no line of it is wider than the card it stands in.
    card = page.locator("[data-testid=fig-pue]").locator("xpath=ancestor::div[contains(@class,'card')][1]")
    assert note.bounding_box()["width"] <= card.bounding_box()["width"]
    assert axe_violations(page) == []  # the warning's colour keeps the WCAG AA contrast
    screenshot(page, "shortfall-overview", full_page=True)
    card.screenshot(path=str(SCREENSHOTS / "shortfall-pue.png"))


def test_impact_mode_counts_the_gpus_without_cooling_at_design(page, short_campus):
    campus_id, gpus_short = short_campus
    page.goto(f"/campuses/{campus_id}/map/")
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")
    page.wait_for_selector("[data-testid=impact-device][data-ready=true]")
    ups = page.locator(
        "[data-testid=impact-device] optgroup[data-group='power:ups'] option"
    ).first.get_attribute("value")
    page.select_option("[data-testid=impact-device]", ups)
    line = page.locator("[data-testid=impact-uncooled-at-design]")
    line.wait_for()
    kind, ident = ups.split(":")
    impact = api(page, f"/api/campuses/{campus_id}/impact/?device={ident}&kind={kind}")
    at_design = impact["gpus"]["without_cooling_at_design"]
    racks = impact["racks"]["without_cooling_at_design"]
    assert at_design == gpus_short
    assert int(line.get_attribute("data-value")) == at_design
    assert int(line.get_attribute("data-racks")) == len(racks) > 0
    assert line.inner_text().startswith(
        f"{at_design:,} GPUs in {len(racks):,} racks were already without cooling"
    )
    assert "not counted as lost" in line.inner_text()
    lost = impact["gpus"]["lost_power"] + impact["gpus"]["lost_cooling"]
    assert int(page.get_attribute("[data-testid=impact-gpus-lost]", "data-value")) == lost
    assert axe_violations(page) == []
    screenshot(page, "shortfall-map")
    page.locator("[data-testid=impact-result]").screenshot(path=str(SCREENSHOTS / "shortfall-impact.png"))


def test_placement_lists_what_is_already_short_at_design(page, short_campus):
    """The group cut to 1 kW a unit carries its racks' whole liquid heat on a few kW: asking for one more rack,
    the map lists it as short before anything is placed, with the API's shortfall."""
    from campus.models import CoolingUnit

    campus_id, _ = short_campus
    group = CoolingUnit.objects.filter(campus_id=campus_id, capacity_kw=1.0).first().group
    request = {"node_model": "hgx-h100-8", "racks": 1, "nodes_per_rack": 1}
    ask_placement(page, campus_id, **request)
    page.wait_for_selector("[data-testid=placement-short-at-design]")
    answer = placement_answer(page, campus_id, **request)
    shorts = answer["short_at_design"]
    assert group in {short["element"] for short in shorts}
    items = page.locator("[data-testid=placement-short]")
    assert items.count() == len(shorts)
    for k, short in enumerate(shorts):
        assert items.nth(k).get_attribute("data-element") == short["element"]
        assert (
            f"{short['element']} ({short['level']}): {short['shortfall_kw']:,.1f} kW short"
            in items.nth(k).inner_text()
        )
    page.locator("[data-testid=placement-result]").screenshot(
        path=str(SCREENSHOTS / "shortfall-placement.png")
    )


def test_the_run_form_takes_the_pages_day_and_the_run_keeps_it(page, short_campus, celery_worker):
    campus_id, _ = short_campus
    page.goto(f"/campuses/{campus_id}/scenarios/?as_of={RUN_DAY}")
    page.click("[data-testid=kind-liquid_cooling]")
    page.wait_for_selector("[data-testid=param-fields].schema-form")
    assert page.input_value("[data-testid=run-as-of]") == RUN_DAY
    help_id = page.get_attribute("[data-testid=run-as-of]", "aria-describedby")
    assert "in service that day" in page.inner_text(f"#{help_id}")
    page.locator("[data-testid=run-as-of]").scroll_into_view_if_needed()
    screenshot(page, "shortfall-run-form")
    page.fill("[data-testid=scenario-name]", "Shortfall run as of a day")
    page.fill("[data-testid=run-replicas]", "1")
    page.fill("[data-testid=run-seed]", "3")
    page.click("[data-testid=launch]")
    detail = page.locator("[data-testid=run-detail]")
    page.wait_for_function(
        "() => { const d = document.querySelector('[data-testid=run-detail]'); return d && d.dataset.runId; }"
    )
    run = api(page, f"/api/runs/{int(detail.get_attribute('data-run-id'))}/")
    assert run["as_of"] == RUN_DAY
    assert f"campus as of {run['as_of']}" in detail.inner_text()
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
