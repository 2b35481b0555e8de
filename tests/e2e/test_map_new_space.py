"""A proposal that builds a new building, on the floor map: a planner asks for 40 more H100 servers' racks on a
campus whose only hall is full; the map answers with the proposal's cost table, its new building, hall, utility
feeds and power chain marked new (one row per addition the API lists, the total and time to power as the API
gives them), and draws the new building and hall dashed on the campus map with the racks in the hall.

One generated 1,024-GPU H100 campus (20 % planning margin) whose hall is cut down to its racks, for the module.
"""

from __future__ import annotations

import pytest

from .conftest import ask_placement, generated_campus, login, new_page, placement_answer, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

PLANNER = "new-space-planner"
NODE = "hgx-h100-8"


@pytest.fixture(scope="module")
def full_hall(django_db_setup, django_db_blocker):
    from campus.models import DataHall, Rack

    spec = dict(gpus=1024, gpu_model="h100-sxm", planning_margin_pct=20)
    with generated_campus(django_db_blocker, "New space campus", PLANNER, **spec) as campus_id:
        with django_db_blocker.unblock():
            for hall in DataHall.objects.filter(building__campus_id=campus_id):
                hall.length_m = max(r.y_m for r in Rack.objects.filter(hall=hall)) + 1.2 + 2.4
                hall.save()
        yield campus_id


def test_the_map_draws_a_new_building_dashed_with_its_cost_table(chromium, live_url, full_hall):
    context, page, watch = new_page(chromium, live_url, width=1440, height=1000)
    login(page, PLANNER)
    campus = full_hall
    ask_placement(page, campus, node_model=NODE, racks=40)
    page.wait_for_selector("[data-testid=proposal-table]")
    answer = placement_answer(page, campus, node_model=NODE, racks=40)
    assert answer["binding_constraint"] == "floor_space" and answer["proposal"]["feasible"] is True
    proposal = answer["proposal"]
    rows = page.locator("[data-testid=proposal-addition]")
    assert rows.count() == len(proposal["additions"])
    new_rows = page.locator("[data-testid=proposal-addition][data-new=true]")
    assert new_rows.count() == sum(1 for a in proposal["additions"] if a["new"])
    new_kinds = {new_rows.nth(k).get_attribute("data-kind") for k in range(new_rows.count())}
    assert {"building", "hall", "utility_feed", "substation", "ups", "pdu"} <= new_kinds
    table = page.inner_text("[data-testid=proposal-table]").lower()
    assert "new building" in table and "like b1" in table
    assert float(page.get_attribute("[data-testid=proposal-capex]", "data-usd")) == pytest.approx(
        proposal["capex_usd"]
    )
    assert page.get_attribute("[data-testid=proposal-time-to-power]", "data-days") == str(
        proposal["time_to_power_days"]
    )
    # the new building and its hall dashed on the campus map, the 40 racks in the hall
    page.wait_for_selector("[data-testid=placement-result][data-new-space]")
    assert page.get_attribute("[data-testid=placement-result]", "data-new-space") == "2"
    assert page.get_attribute("[data-testid=placement-result]", "data-ghosts") == "40"
    screenshot(page, "map-new-building")
    watch.check()
    context.close()
