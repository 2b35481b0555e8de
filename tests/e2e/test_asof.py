"""The as-of control on the overview and the floor map: moving it back to the first phase's day shows that
phase's GPUs only, as the API counts them with ``?as_of=`` (a generated campus of two past phases of 512 H100).
"""

from __future__ import annotations

import pytest

from .conftest import generated_campus, login, new_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "asof-planner"
PHASES = [
    {"date": "2024-01-01", "gpus": 512, "gpu_model": "h100-sxm"},
    {"date": "2025-06-01", "gpus": 512, "gpu_model": "h100-sxm"},
]


@pytest.fixture(scope="module")
def phased_campus(django_db_setup, django_db_blocker):
    with generated_campus(django_db_blocker, "Phased campus", USER, phases=PHASES) as campus_id:
        yield campus_id


@pytest.fixture
def page(chromium, live_url, phased_campus):
    context, page, watch = new_page(chromium, live_url, width=1440, height=1000)
    login(page, USER)
    yield page
    watch.check()
    context.close()


def gpus_shown(page) -> float:
    return float(page.get_attribute("[data-testid=fig-gpus]", "data-value"))


def test_moving_the_as_of_slider_changes_the_gpus_on_the_overview_and_the_map(page, phased_campus):
    page.goto(f"/campuses/{phased_campus}/")
    page.wait_for_selector("#overview[data-ready=true]")
    page.wait_for_selector("[data-testid=asof][data-ready=true]")
    assert gpus_shown(page) == 1024  # today: both phases
    first_day = page.request.get(f"/api/campuses/{phased_campus}/summary/?as_of=2024-01-01").json()
    assert first_day["inventory"]["gpus"] == 512

    slider = page.locator("[data-testid=asof-slider]")
    slider.focus()
    page.keyboard.press("Home")  # the first point of the timeline: 2024-01-01
    page.wait_for_function(
        "document.querySelector('#overview').dataset.ready === 'true'"
        " && document.querySelector('[data-testid=fig-gpus]')?.dataset.value === '512'"
    )
    assert page.input_value("[data-testid=asof-date]") == "2024-01-01"
    assert "as_of=2024-01-01" in page.url
    assert page.locator("[data-testid=timeline-chart] path").count() == 1
    screenshot(page, "asof-overview-first-phase", full_page=False)

    # the date picker: the day before the first phase holds nothing
    page.fill("[data-testid=asof-date]", "2023-12-31")
    page.dispatch_event("[data-testid=asof-date]", "change")
    page.wait_for_function("document.querySelector('[data-testid=fig-gpus]')?.dataset.value === '0'")

    # the floor map keeps the day from the URL and follows its own control
    page.goto(f"/campuses/{phased_campus}/map/?as_of=2024-01-01")
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")
    assert "512 GPUs" in page.inner_text("[data-testid=map-stats]")
    page.click("[data-testid=asof-today]")
    page.wait_for_function(
        "window.floorMap.ready === true"
        " && document.querySelector('[data-testid=map-stats]').textContent.includes('1,024 GPUs')"
    )
    screenshot(page, "asof-map-today")
