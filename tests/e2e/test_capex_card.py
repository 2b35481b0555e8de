"""The capex card on the overview (docs/capex.md): a planner generates a campus, the card shows the summary API's
capex total and categories written as the shared formatter writes money, and on demand the bill of materials,
whose switch lines count every switch of the campus's switch list (read from the switches API, not the BOM).
"""

from __future__ import annotations

import pytest

from .conftest import csrf_headers, login, new_page, planner_user, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "capex-planner"
SPEC = dict(gpus=512, gpu_model="h100-sxm", cooling="liquid", hall_max_it_mw=0.4, pod_max_gpus=256)


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


def usd(value: float) -> str:
    """Money as the dashboard writes it: $2.50 B, $7.4 M, $950.0 k, $950."""
    if abs(value) >= 1e9:
        return f"${value / 1e9:,.2f} B"
    if abs(value) >= 1e6:
        return f"${value / 1e6:,.1f} M"
    if abs(value) >= 1e3:
        return f"${value / 1e3:,.1f} k"
    return f"${value:,.0f}"


def test_the_capex_card_shows_the_summary_and_the_bill_of_materials(page):
    made = page.request.post(
        "/api/campuses/generate/", data={"name": "Capex card campus", **SPEC}, headers=csrf_headers(page)
    )
    assert made.status == 201, made.text()[:500]
    campus_id = made.json()["id"]
    capex = page.request.get(f"/api/campuses/{campus_id}/summary/").json()["capex"]
    switches = page.request.get(f"/api/switches/?campus={campus_id}&limit=1000").json()["results"]

    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("#overview[data-ready=true]")
    card = page.locator("[data-testid=capex-card]")
    assert page.inner_text("[data-testid=fig-capex-total-text]") == usd(capex["capex_usd"]["total"])
    for category in ("power", "cooling", "network", "compute", "building"):
        assert page.inner_text(f"[data-testid=fig-capex-{category}-text]") == usd(
            capex["capex_usd"][category]
        )
    assert f"{usd(capex['usd_per_mw_it'])} per MW of IT" in card.inner_text()
    assert page.inner_text("[data-testid=fig-tco-text]") == usd(capex["tco"]["total_usd"])

    card.locator("[data-testid=bom-load]").click()
    page.wait_for_selector("[data-testid=bom-table]")
    counts = [
        float(row.get_attribute("data-count"))
        for row in page.locator("[data-testid=bom-line]").all()
        if row.get_attribute("data-key").startswith("switch/")
    ]
    assert sum(counts) == sum(s["count"] for s in switches) > 0
    assert page.inner_text("[data-testid=bom-total-network]") == usd(capex["capex_usd"]["network"])
    card.scroll_into_view_if_needed()
    screenshot(page, "capex-card")
