"""A replayed load in a real browser: the power_dynamics form takes a pasted series as its load source, the run
goes through a real worker, and its page says where the load came from (and shows no power-floor sweep: a
floor acts on the jobs' own GPUs, which a replayed total does not have)."""

from __future__ import annotations

import pytest

from .conftest import axe_violations, screenshot
from .test_dashboard import RUN_TIMEOUT_MS, api
from .test_scenario_forms import open_kind, sent_scenarios

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

SERIES_KW = [6000.0, 6400.0, 4100.0, 6300.0]


def test_a_pasted_series_is_replayed_and_the_run_says_so(planner_page, demo, celery_worker):
    page, watch = planner_page
    fields = open_kind(page, demo["campus_id"], "power_dynamics")
    bodies = sent_scenarios(page)
    source = fields.locator("[data-path=load_source]")
    assert source.count() == 1
    # the resolved gaps are the server's: no field for them
    assert fields.locator("[data-path='load_source.filled_steps']").count() == 0
    page.select_option("#param-load-source-kind", "series")
    page.fill("#param-load-source-values-kw", "6000, 6400\n4100 6300")
    page.fill("#param-load-source-step-seconds", "300")
    page.fill("[data-testid=scenario-name]", "E2E replayed series")
    page.click("[data-testid=launch]")
    page.wait_for_selector("[data-testid=run-detail][data-run-id]", timeout=30_000)
    sent = bodies[-1]["params"]["load_source"]
    assert sent["kind"] == "series" and sent["values_kw"] == SERIES_KW and sent["step_seconds"] == 300
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector("[data-testid=run-detail][data-results=ready]")
    run_id = page.get_attribute("[data-testid=run-detail]", "data-run-id")
    run = api(page, f"/api/runs/{run_id}/")
    metrics = run["summary"]["metrics"]
    # the hand figures of the series: its peak, and its largest jump between neighbours
    assert metrics["peak_grid_mw"]["mean"] == pytest.approx(6.4)
    assert metrics["max_ramp_mw_per_s"]["mean"] == pytest.approx(2.3)
    line = page.locator("[data-testid=load-source]").inner_text()
    assert line == "Load replayed from a given series of 4 values, one every 300 s."
    assert (
        "replayed from a given series of 4 values"
        in page.locator("[data-testid=run-explanation]").inner_text()
    )
    assert page.locator("[data-testid=sizing-floor]").count() == 0
    assert page.locator("[data-testid=sizing-bess] canvas").count() == 1
    screenshot(page, "replayed-series-run", full_page=True)
    assert axe_violations(page) == []
    watch.check()
