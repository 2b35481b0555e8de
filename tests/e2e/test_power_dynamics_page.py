"""The power_dynamics dashboard and the campus's batteries in a real browser (Debian's Chromium): the verdict per
requirement in words, the zoomable grid-connection waveform, the spectrum with its band limit, the sizing sweeps,
and each building's battery storage on the overview. The run goes through a real worker (PostgreSQL)."""

from __future__ import annotations

import pytest

from .conftest import axe_violations, csrf_headers, screenshot
from .test_dashboard import RUN_TIMEOUT_MS, api

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


@pytest.fixture(scope="module")
def batteries(demo, django_db_blocker):
    """Two battery systems in the campus's first building, on one of its substations where there is one."""
    from campus.models import Building, EnergyStorage, PowerDevice

    with django_db_blocker.unblock():
        building = Building.objects.filter(campus_id=demo["campus_id"]).order_by("name").first()
        sub = PowerDevice.objects.filter(building=building, kind="substation").order_by("name").first()
        rows = [
            EnergyStorage.objects.create(
                campus_id=demo["campus_id"],
                building=building,
                power_device=sub,
                name=f"E2E-BESS-{side}",
                power_mw=power,
                energy_mwh=energy,
                round_trip_efficiency=0.88,
            )
            for side, power, energy in (("A", 6.0, 12.0), ("B", 4.0, 10.0))
        ]
    yield {"building": building.pk, "power_mw": 10.0, "energy_mwh": 22.0}
    with django_db_blocker.unblock():
        EnergyStorage.objects.filter(pk__in=[r.pk for r in rows]).delete()


def test_the_overview_shows_each_buildings_battery_storage(planner_page, demo, batteries):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/")
    page.wait_for_selector("#overview[data-ready=true]")
    systems = api(page, f"/api/energy-storage/?campus={demo['campus_id']}")["results"]
    assert sum(s["power_mw"] for s in systems) == pytest.approx(batteries["power_mw"])
    card = page.locator(f"[data-testid=building-card][data-building-id='{batteries['building']}']")
    cell = card.locator("[data-field=storage]")
    assert float(cell.get_attribute("data-power-mw")) == pytest.approx(10.0)
    assert float(cell.get_attribute("data-energy-mwh")) == pytest.approx(22.0)
    assert cell.inner_text() == "10.0 MW / 22.0 MWh"
    assert "2 systems" in page.locator("[data-testid=campus-storage]").inner_text()
    # the other buildings have none, and say nothing of it
    assert page.locator("[data-testid=building-card] [data-field=storage]").count() == 1
    card.scroll_into_view_if_needed()
    screenshot(page, "overview-storage")
    watch.check()


def _run_dynamics(page, campus_id: int) -> dict:
    params = {
        "duration_seconds": 300,
        "jobs": [{"iteration_seconds": 4.0, "comm_fraction": 0.3, "comm_power_fraction": 0.3}],
        "events": [{"kind": "job_crash", "at_seconds": 150, "restart_after_seconds": 60, "ramp_seconds": 20}],
        "requirements": {
            "max_swing_mw": 2.0,
            "max_ramp_mw_per_s": 50.0,
            "max_ramp_mw_per_min": 100.0,
            "max_band_mw": 1.0,
            "band_hz": [0.1, 3.0],
        },
        "sizing_points": 5,
    }
    body = {"campus": campus_id, "kind": "power_dynamics", "name": "E2E power dynamics", "params": params}
    headers = csrf_headers(page)
    response = page.request.post("/api/scenarios/", data=body, headers=headers)
    assert response.status == 201, response.text()
    scenario = response.json()
    response = page.request.post(
        f"/api/scenarios/{scenario['id']}/run/", data={"replicas": 1, "seed": 1}, headers=headers
    )
    assert response.status in (200, 201, 202), response.text()
    return response.json()


def test_a_power_dynamics_run_shows_its_verdict_waveform_spectrum_and_sizing(
    planner_page, demo, batteries, celery_worker
):
    page, watch = planner_page
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/")  # for the session's CSRF cookie
    run = _run_dynamics(page, demo["campus_id"])
    page.goto(f"/campuses/{demo['campus_id']}/scenarios/?run={run['id']}")
    page.wait_for_selector("[data-testid=run-detail][data-status=succeeded]", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector("[data-testid=run-detail][data-results=ready]")
    run = api(page, f"/api/runs/{run['id']}/")
    details, metrics = run["summary"]["details"], run["summary"]["metrics"]

    # the campus's own batteries were used (the scenario left bess out)
    assert details["assets"]["bess"]["source"] == "campus"
    assert details["assets"]["bess"]["power_mw"] == pytest.approx(10.0)
    assets = page.locator("[data-testid=dynamics-assets]").inner_text()
    assert "10.0 MW / 22.0 MWh" in assets and "the campus's own" in assets

    # one verdict per requirement, pass or fail as the value against the limit, in words
    limits = {
        "max_swing_mw": "swing_mw",
        "max_ramp_mw_per_s": "max_ramp_mw_per_s",
        "max_ramp_mw_per_min": "max_ramp_mw_per_min",
        "max_band_mw": "band_amplitude_mw",
    }
    rows = page.locator("[data-testid=verdict]")
    assert rows.count() == 4
    broken = {v["requirement"] for v in details["violations"]}
    for i in range(rows.count()):
        row = rows.nth(i)
        name = row.get_attribute("data-requirement")
        value = metrics[limits[name]]["mean"]
        passed = value <= details["requirements"][name] * (1 + 1e-9)
        assert row.get_attribute("data-pass") == str(passed).lower()
        assert (name in broken) == (not passed)
        text = row.inner_text()
        assert ("passes" in text) == passed and ("fails" in text) == (not passed)
    overall = page.locator("[data-testid=verdict-overall]").inner_text()
    assert ("Complies" in overall) == (not broken)

    # the waveform: every full-resolution point, zoomed by dragging across it, reset by the button
    wave = page.locator("[data-testid=waveform]")
    assert int(wave.get_attribute("data-points")) == len(details["waveform"]["t_s"])
    scale = "document.querySelector('[data-testid=waveform] .chart-plot').__plot.scales.x"
    full = page.evaluate(f"(() => {{ const s = {scale}; return [s.min, s.max]; }})()")
    over = wave.locator(".u-over")
    over.scroll_into_view_if_needed()
    box = over.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()
    zoomed = page.evaluate(f"(() => {{ const s = {scale}; return [s.min, s.max]; }})()")
    assert full[0] < zoomed[0] < zoomed[1] < full[1]
    assert (zoomed[1] - zoomed[0]) < 0.4 * (full[1] - full[0])
    screenshot(page, "dynamics-waveform-zoomed")
    page.click("[data-testid=waveform-reset]")
    again = page.evaluate(f"(() => {{ const s = {scale}; return [s.min, s.max]; }})()")
    assert again == pytest.approx(full)

    # the spectrum with the band and its limit
    spectrum = page.locator("[data-testid=spectrum]")
    assert spectrum.get_attribute("data-band-hz") == "0.1-3"
    assert float(spectrum.get_attribute("data-limit-mw")) == pytest.approx(1.0)
    # the sizing sweeps (the engine's search) against the floor and the battery
    assert page.locator("[data-testid=sizing-floor] canvas").count() == 1
    assert page.locator("[data-testid=sizing-bess] canvas").count() == 1
    page.locator("[data-testid=dynamics]").scroll_into_view_if_needed()
    screenshot(page, "dynamics-run", full_page=True)

    assert axe_violations(page) == []
    watch.check()
