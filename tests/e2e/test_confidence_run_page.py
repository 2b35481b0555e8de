"""A failure_cascade run with a confidence target, launched through the API and run by a real worker: its
page says how many replicas met the target and the half-width reached, as the API reports them."""

from __future__ import annotations

import pytest

from .conftest import axe_violations
from .test_dashboard import RUN_TIMEOUT_MS, api, post

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


def test_a_run_with_a_confidence_target_says_how_many_replicas_met_it(planner_page, demo, celery_worker):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")  # for the session's CSRF cookie
    body = {"campus": demo["campus_id"], "kind": "failure_cascade", "name": "E2E ETTR to 2 %"}
    scenario = post(page, "/api/scenarios/", {**body, "params": {"duration_days": 3}})
    run = post(
        page,
        f"/api/scenarios/{scenario['id']}/run/",
        {"replicas": 200, "seed": 3, "confidence_target": {"relative_half_width": 0.02}},
    )
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/?run={run['id']}")
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
    run = api(page, f"/api/runs/{run['id']}/")
    c = run["summary"]["confidence"]
    assert c["converged"] and c["replicas"] == run["replicas"] <= 200
    line = page.locator("[data-testid=run-confidence]").inner_text()
    assert line.startswith("Target met: ettr to ±2.0 % (95 % interval)")
    assert f"after {c['replicas']} of at most 200 replicas" in line
    assert axe_violations(page) == []
    watch.check()
