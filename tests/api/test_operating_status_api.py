"""Marking a utility feed, a cooling unit or a plant out of service through the API changes the answers:
the status was stored and ignored (only power devices' was read). Hand figures from the campus's own rows."""

from __future__ import annotations

import copy

import pytest

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import CoolingPlant, CoolingUnit
from tests.interchange.conftest import SMALL_SPEC

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]


@pytest.fixture
def generated():
    return import_campus(generate_spec("Status", 512))


@pytest.fixture
def small():
    """tests/interchange/conftest.py's campus: racks fed A from UTIL-A's side and B from UTIL-B's, no
    generators."""
    return import_campus(copy.deepcopy(SMALL_SPEC))


def summary(client, campus):
    res = client.get(f"/api/campuses/{campus.pk}/summary/", {"include_redundancy": "true"})
    assert res.status_code == 200, res.content
    return res.json()


def test_a_utility_feed_marked_failed_carries_nothing_and_the_other_takes_its_load(planner_client, small):
    generated = small
    before = summary(planner_client, generated)
    loads = before["power"]["utility_load_mw"]
    assert len(loads) == 2 and all(v > 0 for v in loads.values())
    first, second = sorted(loads, key=int)
    total = sum(loads.values())
    res = planner_client.patch(f"/api/utility-feeds/{first}/", {"status": "failed"}, format="json")
    assert res.status_code == 200, res.content
    after = summary(planner_client, generated)
    assert after["power"]["utility_load_mw"].get(first, 0.0) == 0.0
    # every rack's feeds on the other side; what side A alone supplied (CDU-1, powered from UPS-A only)
    # is gone with it, so the other feed carries more than its own share and no more than both
    assert loads[second] * 1.9 < after["power"]["utility_load_mw"][second] <= total * (1 + 1e-9)
    assert after["power"]["design_it_mw"] == pytest.approx(before["power"]["design_it_mw"])
    # CDU-1 is powered from UPS-A alone: with UTIL-A out both racks lose their cooling
    assert (before["power"]["racks_down_at_design"], after["power"]["racks_down_at_design"]) == (0, 2)


def test_a_cooling_unit_or_plant_marked_offline_loses_its_capacity(planner_client, generated):
    before = summary(planner_client, generated)["cooling"]
    unit = CoolingUnit.objects.filter(campus=generated, capacity_kw__gt=0).order_by("pk").first()
    res = planner_client.patch(f"/api/cooling-units/{unit.pk}/", {"status": "offline"}, format="json")
    assert res.status_code == 200, res.content
    after = summary(planner_client, generated)["cooling"]
    assert after["unit_capacity_mw"] == pytest.approx(before["unit_capacity_mw"] - unit.capacity_kw / 1000.0)
    assert after["heat_load_mw"] == pytest.approx(before["heat_load_mw"])
    plant = CoolingPlant.objects.filter(campus=generated).order_by("pk").first()
    res = planner_client.patch(f"/api/cooling-plants/{plant.pk}/", {"status": "failed"}, format="json")
    assert res.status_code == 200, res.content
    again = summary(planner_client, generated)["cooling"]
    assert again["plant_capacity_mw"] == pytest.approx(
        before["plant_capacity_mw"] - plant.capacity_kw / 1000.0
    )


def test_a_rack_marked_offline_draws_nothing(planner_client, small):
    from campus.models import Rack

    before = summary(planner_client, small)["power"]
    rack = Rack.objects.filter(campus=small).order_by("pk").first()
    res = planner_client.patch(f"/api/racks/{rack.pk}/", {"status": "offline"}, format="json")
    assert res.status_code == 200, res.content
    after = summary(planner_client, small)["power"]
    assert after["racks_down_at_design"] == before["racks_down_at_design"] + 1
    assert after["it_mw"] < before["it_mw"]
    assert after["design_it_mw"] == pytest.approx(before["design_it_mw"])
    floor = planner_client.get(f"/api/campuses/{small.pk}/floor-map/").json()
    rows = {r[0]: dict(zip(floor["rack_columns"], r, strict=True)) for r in floor["racks"]}
    assert rows[rack.pk]["powered"] is False and rows[rack.pk]["fed_kw"] == 0
