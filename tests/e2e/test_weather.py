"""The climate & weather card of the overview in a real browser: the picker shows and changes the campus's
climate (planners only), the figures are the weather API's, and where the facility engine's hourly view is
served, its month × hour heat maps and the hottest day match it."""

from __future__ import annotations

import pytest

from .conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def api(page, path: str):
    response = page.request.get(path)
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json()


def month_hour_means(values: list) -> list[float]:
    out, day = [], 0
    for n in MONTH_DAYS:
        rows = [values[(day + d) * 24 : (day + d + 1) * 24] for d in range(n)]
        out.extend(sum(r[h] for r in rows) / n for h in range(24))
        day += n
    return out


def test_the_climate_picker_changes_the_campus_climate(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    before = api(page, f"/api/campuses/{campus_id}/weather/")
    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("[data-testid=weather-card][data-ready=true]")
    picker = page.locator("[data-testid=climate-picker]")
    assert picker.input_value() == before["climate"]
    assert picker.locator("option").count() == len(before["climates"]) >= 6
    shown = float(page.get_attribute("[data-testid=weather-dry-bulb]", "data-value"))
    assert shown == pytest.approx(before["annual"]["max_dry_bulb_c"])

    plant_model = api(page, f"/api/campuses/{campus_id}/summary/")["power"].get("pue_source") is not None
    year = page.request.get(f"/api/campuses/{campus_id}/facility-year/") if plant_model else None
    if year is not None and year.ok:
        year = year.json()
        pue = month_hour_means(year["pue"])
        assert float(page.get_attribute("[data-testid=heatmap-pue]", "data-max")) == pytest.approx(max(pue))
        facility = month_hour_means(year["facility_mw"])
        assert float(page.get_attribute("[data-testid=heatmap-facility]", "data-min")) == pytest.approx(
            min(facility)
        )
        hottest = max(range(len(year["dry_bulb_c"])), key=lambda i: year["dry_bulb_c"][i])
        assert int(page.get_attribute("[data-testid=hottest-day]", "data-day")) == hottest // 24 + 1
    screenshot(page, "overview-weather", full_page=True)

    target = "phoenix-us" if before["climate"] != "phoenix-us" else "dublin-ie"
    # Picking a climate asks first: Cancel sends nothing and puts the picker back.
    patches = []
    page.on("request", lambda r: patches.append(r.url) if r.method == "PATCH" else None)
    picker.select_option(target)
    page.wait_for_selector("[data-testid=climate-confirm]")
    screenshot(page, "overview-climate-confirm")
    page.click("[data-testid=climate-cancel]")
    assert picker.input_value() == before["climate"] and patches == []
    assert api(page, f"/api/campuses/{campus_id}/weather/")["climate"] == before["climate"]
    try:
        picker.select_option(target)
        with (
            page.expect_response(
                lambda r: r.request.method == "PATCH" and "/api/campuses/" in r.url
            ) as patch,
            page.expect_response(lambda r: r.request.method == "GET" and r.url.endswith("/weather/")),
        ):
            page.click("[data-testid=climate-confirm]")
        assert patch.value.ok
        page.wait_for_function(
            f"document.querySelector('[data-testid=climate-picker]')?.value === '{target}' && "
            "document.querySelector('[data-testid=weather-card]')?.dataset.ready === 'true'"
        )
        after = api(page, f"/api/campuses/{campus_id}/weather/")
        assert after["climate"] == target
        assert after["annual"]["max_dry_bulb_c"] != before["annual"]["max_dry_bulb_c"]
        shown = float(page.get_attribute("[data-testid=weather-dry-bulb]", "data-value"))
        assert shown == pytest.approx(after["annual"]["max_dry_bulb_c"])
    finally:
        response = page.request.patch(
            f"/api/campuses/{campus_id}/",
            data={"climate": before["climate"]},
            headers={"X-CSRFToken": page.evaluate("document.cookie.match(/csrftoken=([^;]+)/)?.[1] ?? ''")},
        )
        assert response.ok, response.text()
    watch.check()


def test_a_viewer_sees_the_climate_but_cannot_change_it(viewer_page, demo):
    page, watch = viewer_page
    page.goto(f"/campuses/{demo['campus_id']}/")
    page.wait_for_selector("[data-testid=weather-card][data-ready=true]")
    assert page.locator("[data-testid=climate-picker]").is_disabled()
    watch.check()
