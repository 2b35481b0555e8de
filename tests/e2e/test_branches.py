"""Design branches in the dashboard: a planner branches a campus from the overview, changes a rack on the
branch, and the compare page shows the change and the figure deltas the diff endpoint answers."""

from __future__ import annotations

import pytest

from .conftest import axe_violations, csrf_headers, generated_campus, login, new_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "branches-planner"
# digits the compare page shows each figure with (frontend/src/pages/compare/index.js LABELS; USD whole)
DISPLAY_DIGITS = {  # the overview's rounding, which the comparison shares (frontend/src/lib/figures.js)
    "inventory.gpus": 0,
    "inventory.racks": 0,
    "power.it_mw": 1,
    "power.facility_mw": 1,
    "power.pue": 2,
    "power.grid_capacity_mw": 1,
    "power.grid_headroom_mw": 1,
    "power.headroom_after_failover_mw": 2,
    "power.stranded_mw": 1,
    "power.redundancy_findings_count": 0,
    "power.annual_cost_usd": 0,
    "power.distribution.chain_loss_mw": 2,
    "power.distribution.copper_relative_to_ac": 2,
    "power.distribution.power_capex_usd": 0,
    "cooling.heat_load_mw": 1,
    "cooling.capacity_mw": 1,
    "cooling.plant_usable_capacity_mw": 1,
    "cooling.spare_mw": 1,
    "capex.capex_usd.power": 0,
    "capex.capex_usd.cooling": 0,
    "capex.capex_usd.network": 0,
    "capex.capex_usd.compute": 0,
    "capex.capex_usd.building": 0,
    "capex.capex_usd.total": 0,
    "capex.usd_per_mw_it": 0,
}
# The figures the overview's headline shows, by their path in the summary and the comparison (testid on the overview)
OVERVIEW_FIGURES = {
    "power.it_mw": "fig-it-mw",
    "power.facility_mw": "fig-facility-mw",
    "power.grid_capacity_mw": "fig-grid-mw",
    "power.pue": "fig-pue",
    "power.grid_headroom_mw": "fig-power-headroom",
    "power.headroom_after_failover_mw": "fig-failover-headroom",
    "cooling.heat_load_mw": "fig-heat-mw",
    "cooling.spare_mw": "fig-cooling-headroom",
}


@pytest.fixture(scope="module")
def campus(django_db_setup, django_db_blocker):
    with generated_campus(
        django_db_blocker, "Branch base campus", USER, gpus=1024, gpu_model="h100-sxm"
    ) as campus_id:
        yield campus_id


def test_branch_from_the_overview_and_compare_it_with_its_parent(chromium, live_url, campus):
    context, page, watch = new_page(chromium, live_url, height=1100)
    try:
        login(page, USER)
        page.goto(f"/campuses/{campus}/")
        page.wait_for_selector("[data-testid=branch-list][data-ready=true]")
        # an empty name (spaces only) is said beside the field, and nothing is sent
        posts = []
        page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
        page.fill("[data-testid=branch-name]", "   ")
        page.click("[data-testid=branch-create]")
        page.wait_for_selector("[data-testid=branch-error]")
        assert "Give the branch a name" in page.inner_text("[data-testid=branch-error]")
        assert page.get_attribute("[data-testid=branch-name]", "aria-invalid") == "true" and posts == []
        # a name in use is refused on the field
        page.fill("[data-testid=branch-name]", "Branch base campus")
        page.click("[data-testid=branch-create]")
        page.wait_for_selector("[data-testid=branch-error]")
        assert "exists already" in page.inner_text("[data-testid=branch-error]")
        # the browser logs the refused request; that 400 is the answer this step expects
        assert [e for e in watch.console_errors if "400" not in e] == []
        watch.console_errors.clear()
        page.fill("[data-testid=branch-name]", "Branch base campus – denser")
        page.click("[data-testid=branch-create]")
        page.wait_for_url(lambda url: f"/campuses/{campus}/" not in url)
        branch = page.request.get(f"/api/campuses/?parent={campus}").json()["results"][0]
        assert branch["name"] == "Branch base campus – denser"
        rack = page.request.get(f"/api/racks/?campus={branch['id']}&ordering=name&limit=1").json()["results"][
            0
        ]
        old_kw = rack["design_kw"]
        changed = page.request.patch(
            f"/api/racks/{rack['id']}/", data={"design_kw": old_kw + 10.0}, headers=csrf_headers(page)
        )
        assert changed.ok, changed.text()
        page.wait_for_selector(f"[data-testid=branch-{campus}]")
        assert "(parent)" in page.inner_text(f"[data-testid=branch-{campus}]")
        # the new branch opened: this page is the branch's, labelled so
        assert page.url.endswith(f"/campuses/{branch['id']}/")
        assert "(this branch)" in page.inner_text(f"[data-testid=branch-{branch['id']}]")
        page.click(f"[data-testid=compare-{campus}]")
        page.wait_for_selector("#compare[data-ready=true]")
        row = page.locator(f'[data-object="rack:{rack["name"]}"][data-field=design_kw]')
        cells = row.locator("td").all_inner_texts()
        assert [float(c) for c in cells[2:]] == [old_kw, old_kw + 10.0]
        diff = page.request.get(f"/api/campuses/{branch['id']}/diff/?against={campus}").json()
        gpus = diff["figures"]["inventory.gpus"]
        assert gpus[2] == 0
        assert page.inner_text('[data-testid="delta-inventory.gpus"]') == "0"
        # the API's deltas are exact float differences; one that rounds to zero at the figure's displayed
        # precision is shown unchanged ("0", not bold), any other with its sign
        for path, (_theirs, _ours, d) in diff["figures"].items():
            if d is None:
                continue
            cell = page.inner_text(f'[data-testid="delta-{path}"]')
            bold = "changed" in (page.get_attribute(f'tr[data-figure="{path}"]', "class") or "")
            if round(abs(d), DISPLAY_DIGITS[path]) == 0:
                assert (cell, bold) == ("0", False), (path, d)
            else:
                assert cell[0] == ("+" if d > 0 else "−") and bold, (path, d, cell)
        # (a 10-kW change to one rack may move some megawatt figures by float rounding only, ~1e-14 MW: each
        # is shown as "0" above; whether any does depends on the order of sums, so none is required)
        screenshot(page, "branches-compare", full_page=True)
        assert axe_violations(page) == []
        # the parent's figures as the comparison writes them (its own column) ...
        compared = {
            path: page.locator(f'tr[data-figure="{path}"] td').first.inner_text() for path in OVERVIEW_FIGURES
        }
        page.goto(f"/campuses/{campus}/")
        page.wait_for_selector("[data-testid=branch-list][data-ready=true]")
        # ... are the parent's overview figures to the character: one rounding and one unit on both pages
        page.wait_for_selector("[data-testid=fig-it-mw-text]")
        overview = {
            path: page.inner_text(f"[data-testid={testid}-text]") for path, testid in OVERVIEW_FIGURES.items()
        }
        assert overview == compared
        assert "(branch)" in page.inner_text(f"[data-testid=branch-{branch['id']}]")
        assert "(this" not in page.inner_text(f"[data-testid=branch-{branch['id']}]")
        screenshot(page, "branches-overview", full_page=True)
        assert axe_violations(page) == []
        # the compare page of the parent opens on a placeholder: picking the only branch is a change
        page.goto(f"/campuses/{campus}/compare/")
        picker = page.locator("[data-testid=compare-against]")
        assert picker.input_value() == ""
        picker.select_option(str(branch["id"]))
        page.wait_for_url(lambda url: f"against={branch['id']}" in url)
        page.wait_for_selector("#compare[data-ready=true]")
        watch.check()
    finally:
        context.close()
