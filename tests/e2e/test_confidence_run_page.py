"""A failure_cascade run with a confidence target, launched from the dashboard's run form and run by a real
worker: its page says how many replicas met the target and the half-width reached, as the API reports them."""

from __future__ import annotations

import pytest

from .conftest import axe_violations
from .test_dashboard import RUN_TIMEOUT_MS, api

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


def test_a_run_launched_with_a_confidence_target_says_how_many_replicas_met_it(
    planner_page, demo, celery_worker
):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")
    page.click("[data-testid=kind-failure_cascade]")
    page.fill("[data-testid=scenario-name]", "E2E ETTR to 2 %")
    page.fill("#param-duration-days", "3")
    page.fill("[data-testid=run-replicas]", "200")
    page.fill("[data-testid=run-seed]", "3")
    assert page.locator("[data-testid=run-confidence-metric]").input_value() == "ettr"
    page.fill("[data-testid=run-confidence-target]", "2")
    page.click("[data-testid=launch]")
    detail = page.locator("[data-testid=run-detail]")
    detail.wait_for(state="visible")
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
    run = api(page, f"/api/runs/{int(detail.get_attribute('data-run-id'))}/")
    assert run["confidence"]["relative_half_width"] == 0.02 and run["confidence"]["max_replicas"] == 200
    c = run["summary"]["confidence"]
    assert c["converged"] and c["replicas"] == run["replicas"] <= 200
    # the stop reason on the run's page
    line = page.locator("[data-testid=run-confidence]").inner_text()
    assert line.startswith("Target met: ettr to ±2.0 % (95 % interval)")
    assert f"after {c['replicas']} of at most 200 replicas" in line
    assert axe_violations(page) == []
    watch.check()
