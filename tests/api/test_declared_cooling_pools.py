"""The summary's pools short of the declared cooling redundancy and the redundancy endpoint's declared check
name the same pools: named groups and a hall's ungrouped CRAHs pooled as one (docs/model.md §3).

Truth from outside the code: small campuses whose heat and usable capacity are worked out by hand in the
comments (N every unit, N+1 the largest unit out, 2N the larger half out), and generated campuses whose
cooling is cut down so that some pools fall short, where both lists must be the same set.
"""

from __future__ import annotations

import copy

import pytest
from django.urls import reverse

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from tests import factories as f

SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}

pytestmark = pytest.mark.usefixtures("fresh_analytics")


def _lists(client, campus) -> tuple[list[str], dict]:
    """The summary's failing list and the redundancy endpoint's cooling entry."""
    summary = client.get(reverse("campus-summary", kwargs={"pk": campus.pk})).json()["cooling"]
    body = client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk})).json()
    (cooling,) = [d for d in body["declared"] if d["domain"] == "cooling"]
    return summary, cooling


def _cdu_group_campus(redundancy: str):
    """One group "G" of four 500 kW CDUs; four rear-door racks of 275 kW extra IT and no servers, one per
    CDU: a rear door takes all of its rack's heat to its CDU and other IT is a share of server heat (none
    here), so the group carries 4 x 275 = 1,100 kW."""
    campus = f.CampusFactory(cooling_redundancy=redundancy, other_it_fraction=0.0)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus, name="B1"), name="H1")
    for i in range(4):
        unit = f.CoolingUnitFactory(campus=campus, hall=hall, name=f"CDU-{i}", capacity_kw=500.0, group="G")
        f.RackFactory(
            hall=hall, cooling_type="rear-door", cooling_unit=unit, extra_it_kw=275.0, design_kw=275.0
        )
    return campus


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("redundancy", "fails", "achieved", "severity"),
    [
        # 2N: the larger half (2 x 500 kW) out leaves 1,000 kW usable < 1,100 kW: fails. No single CDU's
        # loss costs anything (3 x 500 = 1,500 kW >= 1,100), so only the pool check tells 2N from N+1:
        # achieved N+1, an error against the declared 2N (the old endpoint said "ok").
        ("2N", True, "N+1", "error"),
        # N+1: the largest (500 kW) out leaves 1,500 kW >= 1,100 kW: holds
        ("N+1", False, "N+1", "ok"),
    ],
)
def test_a_2n_group_holding_only_n_plus_1_is_listed_by_the_summary_and_the_endpoint(
    viewer_client, redundancy, fails, achieved, severity
):
    campus = _cdu_group_campus(redundancy)
    summary, cooling = _lists(viewer_client, campus)
    assert summary["groups_failing_redundancy"] == (["G"] if fails else [])
    assert [p["name"] for p in cooling["pools_failing"]] == (["G"] if fails else [])
    assert cooling["declared"] == redundancy
    assert cooling["achieved"] == achieved
    assert cooling["severity"] == severity
    assert cooling["single_points"] == []
    if fails:
        (pool,) = cooling["pools_failing"]
        assert pool["kind"] == "group"
        assert pool["heat_kw"] == pytest.approx(1100.0)
        assert pool["usable_capacity_kw"] == pytest.approx(1000.0)
        assert (pool["hall"], pool["building"]) == ("H1", "B1")
        assert '"G" (1,100 kW on 1,000 kW usable)' in cooling["message"]
        assert summary["pools_failing_redundancy"] == cooling["pools_failing"]


def _crah_hall_campus(redundancy: str, heat_kw: float):
    """Building B1, hall H1: three ungrouped 20 kW CRAHs, each named by one air rack of heat_kw / 3 extra
    IT (no servers, so no other IT): an air rack's heat goes to its CRAH, so the hall's air units carry
    heat_kw (15 kW on each at 45 kW, within each unit's 20 kW)."""
    campus = f.CampusFactory(cooling_redundancy=redundancy, other_it_fraction=0.0)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus, name="B1"), name="H1")
    for i in range(3):
        unit = f.CoolingUnitFactory(campus=campus, hall=hall, name=f"CRAH-{i}", kind="crah", capacity_kw=20.0)
        f.RackFactory(
            hall=hall,
            cooling_type="air",
            cooling_unit=unit,
            extra_it_kw=heat_kw / 3,
            design_kw=heat_kw / 3,
        )
    return campus


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("redundancy", "heat_kw", "usable_kw", "fails"),
    [
        # N+1: one 20 kW CRAH out leaves 40 kW usable < 45 kW: the hall's air units fail
        ("N+1", 45.0, 40.0, True),
        # undeclared counts as N+1: the same
        ("", 45.0, 40.0, True),
        # N+1 at 36 kW: 40 kW usable holds
        ("N+1", 36.0, 40.0, False),
        # 2N: the larger half (2 of 3 units, 40 kW) out leaves 20 kW < 36 kW: fails
        ("2N", 36.0, 20.0, True),
        # N: every unit, 60 kW >= 45 kW: holds
        ("N", 45.0, 60.0, False),
    ],
)
def test_a_hall_of_ungrouped_crahs_short_of_its_redundancy_is_listed_by_both(
    viewer_client, redundancy, heat_kw, usable_kw, fails
):
    campus = _crah_hall_campus(redundancy, heat_kw)
    summary, cooling = _lists(viewer_client, campus)
    name = "B1 H1 air units"
    assert summary["groups_failing_redundancy"] == ([name] if fails else [])
    assert summary["groups_failing_n_plus_1"] == summary["groups_failing_redundancy"]
    assert [p["name"] for p in cooling["pools_failing"]] == ([name] if fails else [])
    if fails:
        (pool,) = cooling["pools_failing"]
        assert pool["kind"] == "hall air units"
        assert pool["units"] == 3
        assert pool["heat_kw"] == pytest.approx(heat_kw)
        assert pool["usable_capacity_kw"] == pytest.approx(usable_kw)
        assert pool["redundancy"] == (redundancy or "N+1")
        assert (pool["building"], pool["hall"]) == ("B1", "H1")
        assert pool["hall_id"] == campus.buildings.get().halls.get().pk
        assert cooling["severity"] == ("error" if redundancy else "ok")
        assert summary["pools_failing_redundancy"] == cooling["pools_failing"]
    else:
        assert cooling["severity"] == "ok"


def _cut_down(spec: dict) -> dict:
    """The generated design with its cooling cut: hall H1 of building B1 keeps its CRAHs ungrouped (one
    pool of the hall's air units) at 60 kW each, every CDU at 100 kW; the other CRAHs keep their groups and
    capacity. The small designs carry 50-190 kW per hall pool (generated figures), so some pools fall
    short and others hold."""
    spec = copy.deepcopy(spec)
    for unit in spec["cooling_units"]:
        if unit["kind"] == "crah" and (unit["building"], unit["hall"]) == ("B1", "H1"):
            unit["group"] = ""
            unit["capacity_kw"] = 60.0
        elif unit["kind"] == "cdu":
            unit["capacity_kw"] = 100.0
    return spec


@pytest.mark.django_db
@pytest.mark.parametrize("cooling", ["air", "liquid"])
@pytest.mark.parametrize("redundancy", ["N", "N+1", "2N"])
def test_summary_and_redundancy_endpoint_list_the_same_pools_on_generated_campuses(
    viewer_client, cooling, redundancy
):
    spec = generate_spec("Agree", 256, cooling=cooling, cooling_redundancy=redundancy, **SMALL)
    campus = import_campus(_cut_down(spec))
    summary, declared = _lists(viewer_client, campus)
    listed = set(summary["groups_failing_redundancy"])
    assert listed == {p["name"] for p in declared["pools_failing"]}
    assert listed == set(summary["groups_failing_n_plus_1"])
    # the hall pool of ungrouped CRAHs is among the pools checked, and at 60 kW per CRAH (one unit under N,
    # two otherwise: at most 120 kW, 60 kW usable with N+1 or 2N) below the hall's air heat it is short
    assert "B1 H1 air units" in listed
    assert declared["severity"] == "error"
