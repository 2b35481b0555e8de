"""The training_step dashboard in a real browser (Debian's Chromium): where the step goes, the scaling curve
with the sentence saying where linearity breaks and why, and the TP x PP sweep. The run goes through a real
worker."""

from __future__ import annotations

import pytest

from .conftest import screenshot
from .test_dashboard import AXE, AXE_RUN, RUN_TIMEOUT_MS, api

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


def _run_training(page, campus_id: int) -> dict:
    params = {"model": "llama3-8b", "tp": 8, "pp": 1, "global_batch": 64, "tp_values": [4, 8]}
    body = {"campus": campus_id, "kind": "training_step", "name": "E2E training step", "params": params}
    headers = {"X-CSRFToken": page.evaluate("document.cookie.match(/csrftoken=([^;]+)/)[1]")}
    response = page.request.post("/api/scenarios/", data=body, headers=headers)
    assert response.status == 201, response.text()
    scenario = response.json()
    response = page.request.post(f"/api/scenarios/{scenario['id']}/run/", data={"seed": 1}, headers=headers)
    assert response.status in (200, 201, 202), response.text()
    return response.json()


def test_a_training_step_run_shows_its_breakdown_scaling_and_sweep(planner_page, demo, celery_worker):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")  # for the session's CSRF cookie
    run = _run_training(page, demo["campus_id"])
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/?run={run['id']}")
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector("[data-testid=run-detail][data-results=ready]")
    run = api(page, f"/api/runs/{run['id']}/")
    details = run["summary"]["details"]

    breakdown = page.locator("[data-testid=step-breakdown]").inner_text()
    assert "compute" in breakdown
    curve = details["scaling"]
    rows = page.locator("[data-testid=scaling-table] tbody tr")
    assert rows.count() == len(curve)
    assert rows.nth(0).locator("td").nth(0).inner_text() == f"{curve[0]['gpus']:,}"
    note = page.locator("[data-testid=scaling] p").inner_text()
    assert "linear" in note.lower()
    assert page.locator("[data-testid=sweep-table] tbody tr").count() == len(details["sweep"]) == 2
    # one replica: no distributions, and nothing written for them (the DOM's append wrote "nullnull")
    assert "null" not in page.locator("[data-testid=run-detail]").inner_text()
    # the step's causes are the breakdown above, in words; not a second list titled "Interruptions by cause"
    assert page.locator("[data-testid=by-cause]").count() == 0
    page.locator("[data-testid=training]").scroll_into_view_if_needed()
    screenshot(page, "training-step-run")
    page.add_script_tag(path=str(AXE))
    assert page.evaluate(AXE_RUN) == []
    watch.check()
