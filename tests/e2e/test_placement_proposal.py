"""The expansion proposal on the floor map: a planner asks for two more NVL72 racks on a campus whose fabric
is full; the map answers with the proposal's cost table (one row per addition the API lists, its total and
time to power) and draws the proposal's racks dashed in their hall; applying it warns in the panel that the
new racks are below the declared 2N, and the branch it opens has the racks and the added leaves.

One generated 1,152-GPU GB200 campus (16 NVL72 racks, every leaf port used) for the module.
"""

from __future__ import annotations

import pytest

from .conftest import ask_placement, generated_campus, login, new_page, placement_answer, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

PLANNER = "proposal-planner"
NVL72 = "gb200-nvl72-tray"


@pytest.fixture(scope="module")
def full(django_db_setup, django_db_blocker):
    with generated_campus(
        django_db_blocker, "Proposal campus", PLANNER, gpus=1152, gpu_model="gb200"
    ) as campus_id:
        yield campus_id


def test_the_map_draws_the_proposal_with_its_cost_table_and_applies_it(chromium, live_url, full):
    context, page, watch = new_page(chromium, live_url, width=1440, height=1000)
    login(page, PLANNER)
    campus = full
    ask_placement(page, campus, node_model=NVL72, racks=2)
    page.wait_for_selector("[data-testid=proposal-table]")
    # the same request straight to the API: the table shows exactly its additions and totals
    answer = placement_answer(page, campus, node_model=NVL72, racks=2)
    assert answer["feasible"] is False and answer["proposal"]["feasible"] is True
    proposal = answer["proposal"]
    assert page.get_attribute("[data-testid=placement-verdict]", "data-feasible") == "false"
    rows = page.locator("[data-testid=proposal-addition]")
    assert rows.count() == len(proposal["additions"])
    assert sorted(rows.nth(k).get_attribute("data-kind") for k in range(rows.count())) == sorted(
        a["kind"] for a in proposal["additions"]
    )
    assert "leaf" in {a["kind"] for a in proposal["additions"]}
    assert float(page.get_attribute("[data-testid=proposal-capex]", "data-usd")) == pytest.approx(
        proposal["capex_usd"]
    )
    days = page.get_attribute("[data-testid=proposal-time-to-power]", "data-days")
    assert days == ("" if proposal["time_to_power_days"] is None else str(proposal["time_to_power_days"]))
    # the proposal's racks drawn dashed in their hall
    page.wait_for_selector("[data-testid=placement-result][data-ghosts]")
    assert int(page.get_attribute("[data-testid=placement-result]", "data-ghosts")) == 2
    screenshot(page, "map-proposal")

    page.fill("[data-testid=placement-branch-name]", "Proposal campus – grown")
    page.click("[data-testid=placement-apply]")
    # the generated design declares 2N and achieves it (2(N+1)); the proposal's racks take whips beside their
    # neighbours', so no warning holds the panel: the branch opens at once
    page.wait_for_url(lambda url: f"/campuses/{campus}/" not in url)
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")
    branch = page.request.get(f"/api/campuses/?parent={campus}&name=Proposal campus – grown").json()[
        "results"
    ][0]
    racks = [
        page.request.get(f"/api/campuses/{c}/summary/").json()["inventory"]["racks"]
        for c in (campus, branch["id"])
    ]
    assert racks[1] == racks[0] + 2
    levels = page.request.get(f"/api/campuses/{branch['id']}/redundancy/").json()["levels"]
    assert levels and all(level["meets_declared"] for level in levels)
    leaves = {
        c: sum(
            s["count"]
            for s in page.request.get(f"/api/switches/?campus={c}&limit=1000").json()["results"]
            if s["tier"] == "leaf"
        )
        for c in (campus, branch["id"])
    }
    added = sum(a["count"] for a in proposal["additions"] if a["kind"] == "leaf")
    assert leaves[branch["id"]] - leaves[campus] == added
    watch.check()
    context.close()
