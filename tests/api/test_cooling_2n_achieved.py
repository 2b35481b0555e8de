"""A campus declared 2N whose cooling holds 2N is achieved 2N, and the summary and the redundancy endpoint
agree on it (docs/model.md §1 "Redundancy check", §3 "Pools against the declared redundancy").

Truth from outside the code: one small campus built here, its heat and usable capacities worked out by hand
in the comments (2N: the larger half of a pool's capacity out; N+1: the largest out).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories as f

pytestmark = pytest.mark.usefixtures("fresh_analytics")


def _campus(plant_kw: list[float]):
    """Building B1, hall H1: one group "G" of four 500 kW CDUs, each taking one rear-door rack of 225 kW extra
    IT (no servers, other IT 0): the group carries 4 x 225 = 900 kW. The CDUs are piped to the plants P1..Pk
    of B1 in turn (one liquid loop: the plants of a building taking one medium share it). A plant takes its
    units' heat and their pump power (cdu_pump_kw_per_kw_heat 0.02): the loop carries 900 x 1.02 = 918 kW."""
    campus = f.CampusFactory(cooling_redundancy="2N", other_it_fraction=0.0)
    building = f.BuildingFactory(campus=campus, name="B1")
    hall = f.DataHallFactory(building=building, name="H1")
    plants = [
        f.CoolingPlantFactory(campus=campus, building=building, name=f"P{i + 1}", capacity_kw=kw)
        for i, kw in enumerate(plant_kw)
    ]
    for i in range(4):
        unit = f.CoolingUnitFactory(
            campus=campus,
            hall=hall,
            name=f"CDU-{i}",
            capacity_kw=500.0,
            group="G",
            plant=plants[i % len(plants)],
        )
        f.RackFactory(
            hall=hall, cooling_type="rear-door", cooling_unit=unit, extra_it_kw=225.0, design_kw=225.0
        )
    return campus


def _answers(client, campus) -> tuple[dict, dict]:
    summary = client.get(reverse("campus-summary", kwargs={"pk": campus.pk})).json()["cooling"]
    body = client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk})).json()
    (cooling,) = [d for d in body["declared"] if d["domain"] == "cooling"]
    return summary, cooling


@pytest.mark.django_db
def test_a_2n_campus_whose_cooling_holds_2n_is_achieved_2n_in_the_endpoint_and_the_summary(viewer_client):
    # Units: 2N leaves 2 x 500 = 1,000 kW usable >= 900 kW (N+1 leaves 1,500 kW).
    # Plants: three 1,000 kW plants on one loop, 2N (the larger half, two of three, out) leaves 1,000 kW
    # >= 918 kW. No single failure costs anything (any 3 CDUs give 1,500 kW; any two plants take 918 kW),
    # no pair does (any 2 CDUs give 1,000 kW >= 900; any one plant takes 918 kW), and every pool holds with
    # the larger half of its capacity out: achieved 2N, ok. (Two 1,000 kW plants would not: one out for
    # maintenance and the other failed leave the loop without a plant.)
    campus = _campus([1000.0, 1000.0, 1000.0])
    summary, cooling = _answers(viewer_client, campus)
    assert cooling["single_points"] == []
    assert cooling["pools_failing"] == []
    assert (cooling["declared"], cooling["achieved"], cooling["severity"]) == ("2N", "2N", "ok")
    # the summary agrees: its capacity keeps 2N, no pool is short of it, and it gives the same achieved level
    assert summary["capacity_redundancy"] == "2N"
    assert summary["groups_failing_redundancy"] == []
    assert summary["achieved_redundancy"] == cooling["achieved"] == summary["capacity_redundancy"]
    assert summary["capacity_mw"] == pytest.approx(1.0)  # 1,000 kW usable under 2N
    assert summary["plant_usable_capacity_mw"] == pytest.approx(1.0)


@pytest.mark.django_db
def test_a_2n_campus_whose_plant_loop_holds_only_n_plus_1_is_achieved_n_plus_1(viewer_client):
    # Units as above (hold 2N). Plants: three 500 kW plants on one loop. 2N takes the larger half (2 of 3)
    # out: 500 kW usable < 918 kW, short of 2N. N+1 (one out) leaves 1,000 kW >= 918 kW, so no plant's loss
    # alone costs anything: no single point, the loop short of the declared 2N: achieved N+1, an error,
    # and the loop named in both answers.
    campus = _campus([500.0, 500.0, 500.0])
    summary, cooling = _answers(viewer_client, campus)
    assert cooling["single_points"] == []
    assert (cooling["declared"], cooling["achieved"], cooling["severity"]) == ("2N", "N+1", "error")
    (pool,) = cooling["pools_failing"]
    assert pool["name"] == "B1 plant loop (P1, P2, P3)"
    assert pool["kind"] == "plant loop"
    assert pool["units"] == 3
    assert pool["heat_kw"] == pytest.approx(918.0)
    assert pool["capacity_kw"] == pytest.approx(1500.0)
    assert pool["usable_capacity_kw"] == pytest.approx(500.0)
    assert pool["building"] == "B1"
    assert summary["groups_failing_redundancy"] == ["B1 plant loop (P1, P2, P3)"]
    assert summary["pools_failing_redundancy"] == cooling["pools_failing"]
    # the capacity figures keep the declared 2N; the level achieved is the endpoint's
    assert summary["capacity_redundancy"] == "2N"
    assert summary["achieved_redundancy"] == cooling["achieved"] == "N+1"
