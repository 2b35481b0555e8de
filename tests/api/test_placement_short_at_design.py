"""Placement on a campus already short at design says so (``short_at_design``) and names that element as
binding, instead of the first check a hall fails (here the fabric: the hall has no leaf switches).

Truth from outside the code: one small campus built here, its heat and usable capacity worked out by hand
in the comments (N+1: the largest unit out; docs/model.md §3).
"""

from __future__ import annotations

import pytest

from tests import factories as f

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]


def _campus():
    """Hall H1 of B1: a group "G" of two CDUs, 8 kW and 4 kW, declared N+1; one rear-door rack of 6 kW
    extra IT (no servers, other IT 0) on CDU-0. The rear door takes all 6 kW to CDU-0 (8 kW: within it).
    N+1 takes the largest (8 kW) out: 4 kW usable < 6 kW, so G is 2 kW short with nothing placed. No pod,
    no leaf switch, no power device: the fabric is the first check a hall fails."""
    campus = f.CampusFactory(cooling_redundancy="N+1", other_it_fraction=0.0)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus, name="B1"), name="H1")
    cdu0 = f.CoolingUnitFactory(campus=campus, hall=hall, name="CDU-0", capacity_kw=8.0, group="G")
    f.CoolingUnitFactory(campus=campus, hall=hall, name="CDU-1", capacity_kw=4.0, group="G")
    f.RackFactory(hall=hall, cooling_type="rear-door", cooling_unit=cdu0, extra_it_kw=6.0, design_kw=6.0)
    return campus


def test_a_group_short_at_design_is_listed_and_binds(planner_client):
    campus = _campus()
    res = planner_client.post(
        f"/api/campuses/{campus.pk}/placement/", {"node_model": "hgx-h100-8", "racks": 1}, format="json"
    )
    assert res.status_code == 200, res.content
    body = res.json()
    assert body["feasible"] is False
    assert body["options"] == []
    (short,) = body["short_at_design"]
    assert (short["constraint"], short["level"], short["element"]) == ("cooling", "cooling group", "G")
    assert short["shortfall_kw"] == pytest.approx(2.0)
    # the binding is the design's own shortfall, not the fabric the hall fails on first
    assert body["binding_constraint"] == "cooling"
    assert (body["binding"]["level"], body["binding"]["element"]) == ("cooling group", "G")
    assert "already 2.0 kW short at design" in body["binding"]["detail"]
    # every existing field is still there
    assert set(body) >= {"feasible", "binding_constraint", "binding", "options"}
    assert set(body["binding"]) == {
        "constraint",
        "hall",
        "hall_id",
        "building",
        "building_id",
        "level",
        "element",
        "detail",
    }
