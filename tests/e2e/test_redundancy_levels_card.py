"""Verified redundancy on the dashboard (docs/api.md, "Redundancy warnings"): the overview's risk card shows,
per domain, the level declared and the level achieved as ``GET /redundancy/`` finds them, with the pairs
that cost GPUs named; a write made on the floor map that takes the campus below its declared level (a rack
placed as a branch) shows its warning there, in the placement panel, and the map stays on the campus.

The campus: the generator's N+1 design (k + 1 blocks, each rack on two of them, docs/generator.md) declared
2N. One of a rack's two blocks out for maintenance and the other failed darken it, so it achieves N+1; a
rack placed on two blocks is N+1 too, newly below the declared 2N. (The generator's own 2N, 2(N+1),
achieves 2N: tests/interchange/test_generator_2n.py.)
"""

from __future__ import annotations

import pytest

from .conftest import PASSWORD, ask_placement, login, new_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

PLANNER = "levels-planner"
NODE = "hgx-h100-8"
SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}


@pytest.fixture(scope="module")
def below(django_db_setup, django_db_blocker):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from campus.interchange.generate import generate_spec
    from campus.interchange.importer import import_campus
    from campus.models import Campus

    with django_db_blocker.unblock():
        call_command("sync_catalog", verbosity=0)
        spec = generate_spec(
            "Levels campus", 256, cooling="air", power_redundancy="N+1", cooling_redundancy="N+1", **SMALL
        )
        spec["campus"]["power_redundancy"] = "2N"  # declared above what is built
        campus = import_campus(spec)
        user = get_user_model().objects.create_user(username=PLANNER, password=PASSWORD)
        user.groups.add(Group.objects.get_or_create(name="planner")[0])
    yield campus.id
    with django_db_blocker.unblock():
        Campus.objects.filter(parent_id=campus.id).delete()
        Campus.objects.filter(pk=campus.id).delete()
        get_user_model().objects.filter(username=PLANNER).delete()


@pytest.fixture
def page(chromium, live_url, below):
    context, page, watch = new_page(chromium, live_url, width=1440, height=1000)
    login(page, PLANNER)
    yield page
    watch.check()
    context.close()


def test_the_risk_card_shows_declared_and_achieved_levels_with_the_pairs_named(page, below):
    levels = {
        lv["domain"]: lv for lv in page.request.get(f"/api/campuses/{below}/redundancy/").json()["levels"]
    }
    assert (levels["power"]["declared"], levels["power"]["achieved"]) == ("2N", "N+1")
    page.goto(f"/campuses/{below}/")
    page.wait_for_selector("#overview[data-ready=true]")
    row = page.locator("[data-testid=level-power]")
    assert (row.get_attribute("data-declared"), row.get_attribute("data-achieved")) == ("2N", "N+1")
    assert page.inner_text("[data-testid=level-power-declared]") == "2N"
    assert page.inner_text("[data-testid=level-power-achieved]") == "N+1"
    costly = page.inner_text("[data-testid=level-power-costly]")
    first = levels["power"]["pairs"][0]
    assert f"{first['maintenance']['name']} out + {first['failure']['name']} failed" in costly
    assert "risk-bad" in (row.get_attribute("class") or "")
    screenshot(page, "overview-redundancy-levels")


def test_a_placement_below_the_declared_level_warns_where_it_was_made(page, below):
    ask_placement(page, below, node_model=NODE, racks=1, nodes_per_rack=1)
    page.wait_for_selector("[data-testid=placement-apply]")
    page.fill("[data-testid=placement-branch-name]", "Levels campus – one more")
    page.click("[data-testid=placement-apply]")
    page.wait_for_selector("[data-testid=placement-open-branch]")
    warning = page.locator(".write-warnings")
    assert warning.count() == 1
    text = warning.inner_text()
    assert "power below the declared 2N" in text and "8 GPUs at risk" in text
    # shown in the placement panel, where the write was made, and the map stays on the campus
    assert page.evaluate(
        "() => !!document.querySelector('.write-warnings').closest('aside, section, div[id]')"
        " && document.querySelector('.write-warnings').nextElementSibling"
        "?.contains(document.querySelector('[data-testid=placement-apply]'))"
    )
    assert f"/campuses/{below}/map/" in page.url
    branch = page.request.get(f"/api/campuses/?parent={below}").json()["results"]
    assert [b["name"] for b in branch] == ["Levels campus – one more"]
    screenshot(page, "map-placement-warning")
