"""Schedules are created and edited in the dashboard (administrators): a preset writes the crontab, shown in
words; thresholds are picked by their catalogue labels; a webhook and a confidence target are kept; the API holds
what the form said."""

from __future__ import annotations

import pytest

from .conftest import axe_violations, csrf_headers, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


def call(page, method: str, path: str, data: dict | None = None):
    response = page.request.fetch(path, method=method, data=data, headers=csrf_headers(page))
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json() if response.status != 204 else None


def test_an_administrator_creates_and_edits_a_schedule_in_the_dashboard(admin_page, demo):
    page, watch = admin_page
    campus = demo["campus_id"]
    page.goto(f"/campuses/{campus}/scenarios/")
    scenario = call(
        page,
        "POST",
        "/api/scenarios/",
        {"campus": campus, "kind": "failure_cascade", "name": "Form nightly", "params": {"duration_days": 2}},
    )
    page.goto(f"/campuses/{campus}/scenarios/")
    page.click("[data-testid=schedule-new]")
    page.wait_for_selector("[data-testid=schedule-form]")
    page.select_option("[data-testid=sf-scenario]", str(scenario["id"]))
    page.fill("[data-testid=sf-name]", "Form weekly failures")
    page.select_option("[data-testid=sf-preset]", "weekly")
    page.select_option("[data-testid=sf-day]", "1")
    page.fill("[data-testid=sf-time]", "06:30")
    assert page.inner_text("[data-testid=sf-cron-words]").startswith("every Monday at 06:30 UTC")
    page.click("[data-testid=sf-add-threshold]")
    threshold = page.locator("[data-testid=sf-threshold]").first
    # the metric is offered by its catalogue label; its value is typed in the unit shown (ETTR in %) and
    # stored as the run records it (a fraction)
    assert "ETTR" in threshold.locator("[data-part=metric] option[value=ettr]").inner_text()
    threshold.locator("[data-part=metric]").select_option("ettr")
    assert threshold.locator(".value-unit").inner_text() == " (%)"
    threshold.locator("[data-part=op]").select_option("<")
    threshold.locator("[data-part=value]").fill("90")
    page.fill("[data-testid=sf-webhook]", "https://alerts.example.org/hooks/campus")
    # each run stops once the ETTR's mean is known to ±1 % (the replicas per run the cap)
    assert page.input_value("[data-testid=sf-confidence-metric]") == "ettr"
    page.fill("[data-testid=sf-confidence]", "1")
    screenshot(page, "schedule-form", full_page=True)
    assert axe_violations(page) == []
    page.click("[data-testid=sf-save]")
    page.wait_for_selector("[data-testid=schedule-table] tr[data-schedule-id]")
    made = next(
        s
        for s in call(page, "GET", f"/api/schedules/?campus={campus}")["results"]
        if s["name"] == "Form weekly failures"
    )
    try:
        assert made["crontab"] == "30 6 * * 1"
        assert made["thresholds"] == [{"metric": "ettr", "stat": "mean", "op": "<", "value": 0.9}]
        assert made["webhook_url"] == "https://alerts.example.org/hooks/campus"
        target = made["confidence_target"]
        assert (target["relative_half_width"], target["metric"]) == (0.01, "ettr")
        row = page.locator(f"[data-testid=schedule-table] tr[data-schedule-id='{made['id']}']")
        assert "every Monday at 06:30 UTC" in row.inner_text()

        # Edit: the form opens on what the schedule holds; a daily time replaces the weekly one.
        page.click(f"[data-testid=schedule-edit-{made['id']}]")
        page.wait_for_selector("[data-testid=schedule-form]")
        assert page.input_value("[data-testid=sf-preset]") == "weekly"
        assert page.input_value("[data-testid=sf-time]") == "06:30"
        assert page.input_value("[data-testid=sf-confidence]") == "1"
        page.select_option("[data-testid=sf-preset]", "daily")
        page.fill("[data-testid=sf-time]", "02:15")
        page.click("[data-testid=sf-save]")
        page.wait_for_function(
            "(id) => document.querySelector(`[data-schedule-id='${id}']`)?.textContent.includes('02:15')",
            arg=made["id"],
        )
        assert call(page, "GET", f"/api/schedules/{made['id']}/")["crontab"] == "15 2 * * *"
        watch.check()
    finally:
        call(page, "DELETE", f"/api/schedules/{made['id']}/")
        call(page, "DELETE", f"/api/scenarios/{scenario['id']}/")
