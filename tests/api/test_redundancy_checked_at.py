"""The summary checks the cooling pools at its ``gpu_power_fraction``, the redundancy endpoint at design load:
each answer says which load it checked at (``checked_at_gpu_power_fraction``), so a pool short in one and
not in the other reads as two loads, not a contradiction (docs/model.md §3).

Truth from outside the code: one small campus built here, its heat worked out by hand in the comments.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories as f

pytestmark = pytest.mark.usefixtures("fresh_analytics")


def _campus():
    """Hall H1 of B1: a group "G" of three 5 kW CDUs, declared N+1; two rear-door racks, each one server of
    8 GPUs of 700 W TDP with 400 W of other parts and no NICs (other IT 0): 6.0 kW at TDP, 8 x 350 + 400 =
    3.2 kW with the GPUs at half TDP. Rear doors take all their rack's heat to its CDU (CDU-0, CDU-1)."""
    campus = f.CampusFactory(cooling_redundancy="N+1", other_it_fraction=0.0)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus, name="B1"), name="H1")
    model = f.NodeModelFactory(
        gpu_model=f.GPUModelFactory(tdp_w=700.0), gpus_per_node=8, overhead_w=400.0, nics=0
    )
    units = [
        f.CoolingUnitFactory(campus=campus, hall=hall, name=f"CDU-{i}", capacity_kw=5.0, group="G")
        for i in range(3)
    ]
    for i in range(2):
        rack = f.RackFactory(hall=hall, cooling_type="rear-door", cooling_unit=units[i], design_kw=6.0)
        f.NodeFactory(rack=rack, node_model=model)
    return campus


@pytest.mark.django_db
def test_each_answer_says_the_load_its_pools_were_checked_at(viewer_client):
    campus = _campus()
    # N+1 leaves 2 x 5 = 10 kW usable. At design load the group carries 2 x 6.0 = 12 kW: short by 2 kW.
    body = viewer_client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk})).json()
    for entry in body["declared"]:
        assert entry["checked_at_gpu_power_fraction"] == 1.0
    (cooling,) = [d for d in body["declared"] if d["domain"] == "cooling"]
    (pool,) = cooling["pools_failing"]
    assert (pool["name"], pool["heat_kw"], pool["usable_capacity_kw"]) == ("G", pytest.approx(12.0), 10.0)

    url = reverse("campus-summary", kwargs={"pk": campus.pk})
    design = viewer_client.get(url).json()["cooling"]
    assert design["checked_at_gpu_power_fraction"] == 1.0
    assert design["groups_failing_redundancy"] == ["G"]  # the same load, the same answer
    # At half GPU power the group carries 2 x 3.2 = 6.4 kW <= 10 kW: it holds, and the summary says it
    # checked at 0.5, not at the design load the endpoint checked at.
    half = viewer_client.get(url, {"gpu_power_fraction": "0.5"}).json()["cooling"]
    assert half["heat_load_mw"] == pytest.approx(0.0064)
    assert half["groups_failing_redundancy"] == []
    assert half["checked_at_gpu_power_fraction"] == 0.5
