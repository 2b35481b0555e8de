"""A sweep built in the scenario form, run by a real worker, and its chart of a metric against the swept
parameter with the confidence band, in a real browser; a bad sweep's API error lands on its row."""

from __future__ import annotations

import pytest

from .conftest import SCREENSHOTS, axe_violations, screenshot
from .test_dashboard import RUN_TIMEOUT_MS, api

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


def test_a_sweep_made_in_the_form_charts_a_metric_against_its_parameter(planner_page, demo, celery_worker):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")
    page.click("[data-testid=kind-failure_cascade]")
    page.wait_for_selector("[data-testid=param-fields].schema-form")
    page.fill("[data-testid=scenario-name]", "E2E sweep of the checkpoint interval")
    page.fill("#param-duration-days", "3")
    page.fill("[data-testid=run-replicas]", "3")
    page.fill("[data-testid=run-seed]", "5")
    page.check("[data-testid=sweep-on]")
    page.select_option("[data-testid=sweep-name-0]", "checkpoint_interval_minutes")
    page.select_option("[data-testid=sweep-mode-0]", "range")
    page.fill("[data-testid=sweep-start-0]", "30")
    page.fill("[data-testid=sweep-stop-0]", "240")
    page.fill("[data-testid=sweep-num-0]", "4")
    page.click("[data-testid=sweep-add]")
    page.select_option("[data-testid=sweep-name-1]", "recovery")
    page.fill("[data-testid=sweep-values-1]", "checkpoint_restart, in_memory")
    page.click("[data-testid=launch]")
    detail = page.locator("[data-testid=run-detail]")
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector("[data-testid=run-detail][data-results=ready]")
    run = api(page, f"/api/runs/{int(detail.get_attribute('data-run-id'))}/")
    assert run["sweep"]["parameters"] == [
        {"name": "checkpoint_interval_minutes", "values": [30.0, 100.0, 170.0, 240.0]},
        {"name": "recovery", "values": ["checkpoint_restart", "in_memory"]},
    ]
    assert run["replicas"] == run["replicas_done"] == 8 * 3
    assert len(run["summary"]["points"]) == 8
    # The chart: one line per recovery strategy, each point with its confidence band.
    chart = page.locator("[data-testid=sweep-charts] [data-testid=sweep-chart]")
    assert chart.count() == 1
    assert chart.get_attribute("data-lines") == "2" and chart.get_attribute("data-points") == "4"
    assert page.locator("[data-testid=sweep-charts] canvas").count() >= 1
    assert page.locator("[data-testid=sweep-table] [data-testid=sweep-point]").count() == 8
    assert "sweep of checkpoint_interval_minutes × recovery" in detail.inner_text()
    # Another metric redraws the chart and the table.
    page.select_option("[data-testid=sweep-metric]", "mean_lost_hours_per_interruption")
    page.wait_for_selector("[data-testid=run-detail][data-sweep-metric=mean_lost_hours_per_interruption]")
    first = run["summary"]["points"][0]["summary"]["mean_lost_hours_per_interruption"]["mean"]
    cell = page.locator("[data-testid=sweep-table] [data-testid=sweep-point]").first.locator("td").nth(2)
    assert (
        cell.inner_text() != "–"
        and abs(float(cell.inner_text().replace(",", "")) - first) <= 0.01 * abs(first) + 1e-3
    )
    assert axe_violations(page) == []
    detail.scroll_into_view_if_needed()
    screenshot(page, "sweep-results", full_page=True)
    page.locator("[data-testid=sweep-results]").screenshot(path=str(SCREENSHOTS / "sweep-chart.png"))
    watch.check()


def test_a_bad_sweep_value_is_shown_on_its_row(planner_page, demo):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")
    page.click("[data-testid=kind-failure_cascade]")
    page.wait_for_selector("[data-testid=param-fields].schema-form")
    page.fill("[data-testid=scenario-name]", "E2E bad sweep")
    page.check("[data-testid=sweep-on]")
    page.select_option("[data-testid=sweep-name-0]", "recovery")
    page.fill("[data-testid=sweep-values-0]", "in_memory, teleport")
    page.click("[data-testid=launch]")
    error = page.locator("[data-testid=sweep-error-0]")
    error.wait_for(state="visible")
    assert "values[1]" in error.inner_text()
    assert page.locator("[data-testid=api-errors]").count() == 1
    # the refused request itself is the one console error the browser logs
    watch.console_errors = [e for e in watch.console_errors if "400" not in e]
    watch.check()
