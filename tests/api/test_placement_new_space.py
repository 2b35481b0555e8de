"""Expansion proposals that build a new building, through the API (``apply_as_branch``).

Truth from outside the proposal code: the branch the proposal is written into must pass the reference design
checks of tests/interchange/design_checks.py (every single side lost rolled up by the power solver, the heat
balanced); plain placement of the same request on the branch (without a proposal) must fit; the branch's
redundancy check names no finding the parent does not have in kind; every single failure rolled up by the
power solver overloads nothing new; the parent is unchanged.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.urls import reverse

from campus.analysis.placement import PlacementRequest, place
from campus.interchange.exporter import export_campus
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import (
    Building,
    Campus,
    CoolingUnit,
    DataHall,
    EnergyStorage,
    Link,
    PowerDevice,
    Rack,
    Switch,
    UtilityFeed,
)
from campus.snapshot_adapter import build_snapshot
from tests.analysis.placement_check import overloads
from tests.interchange.design_checks import design_problems

pytestmark = pytest.mark.django_db


@pytest.fixture
def full_hall():
    """A generated 1,024-GPU H100 campus (20 % planning margin) whose hall is cut down to its racks."""
    campus = import_campus(generate_spec("Full hall", 1024, gpu_model="h100-sxm", planning_margin_pct=20))
    for hall in DataHall.objects.filter(building__campus=campus):
        ys = [r.y_m for r in Rack.objects.filter(hall=hall)]
        hall.length_m = max(ys) + 1.2 + 2.4
        hall.save()
    return campus


def test_a_new_building_written_as_a_branch_passes_every_check_and_takes_the_request(
    planner_client, viewer_client, full_hall
):
    url = f"/api/campuses/{full_hall.pk}/placement/"
    request = {"node_model": "hgx-h100-8", "racks": 40}
    parent_export = export_campus(full_hall)
    first = planner_client.post(url, request, format="json").json()
    assert first["feasible"] is False and first["binding_constraint"] == "floor_space"
    proposal = first["proposal"]
    assert proposal["feasible"] is True and proposal["building"] == "B2"
    new = [a for a in proposal["additions"] if a["new"]]
    assert {a["kind"] for a in new} >= {
        "building",
        "hall",
        "utility_feed",
        "substation",
        "ups",
        "pdu",
        "leaf",
    }
    res = planner_client.post(url, {**request, "apply_as_branch": "With B2"}, format="json")
    assert res.status_code == 201, res.content
    branch = Campus.objects.get(pk=res.json()["branch"])
    # the new building, its hall, feeds, devices and switches are in the branch
    assert Building.objects.filter(campus=branch, name="B2").exists()
    assert DataHall.objects.filter(building__campus=branch, building__name="B2", name="H1").exists()
    for add in new:
        if add["kind"] == "utility_feed":
            assert UtilityFeed.objects.filter(campus=branch, name=add["names"][0]).exists()
        elif add["category"] == "power":
            dev = PowerDevice.objects.get(campus=branch, name=add["names"][0])
            assert dev.building.name == "B2"
        elif add["kind"] in ("leaf", "spine"):
            assert Switch.objects.filter(campus=branch, name=add["names"][0]).exists()
    assert Rack.objects.filter(campus=branch, hall__building__name="B2").count() == 40
    # every design check holds on the branch, with every single side lost, and no single failure (each
    # device, utility feed or side lost) overloads anything the parent's same failures do not
    assert design_problems(build_snapshot(branch)) == []
    assert overloads(build_snapshot(branch)) <= overloads(build_snapshot(full_hall))
    # plain placement of the same request fits on the branch with the additions built and the placed racks
    # taken out again
    snap = build_snapshot(branch)
    placed = {
        r.id for r in snap.racks if r.building_id == next(b.id for b in snap.buildings if b.name == "B2")
    }
    bare = replace(
        snap,
        racks=tuple(r for r in snap.racks if r.id not in placed),
        power_feeds=tuple(f for f in snap.power_feeds if f.rack_id not in placed),
        links=tuple(x for x in snap.links if x.a_rack_id not in placed),
    )
    assert place(bare, PlacementRequest("hgx-h100-8", 40))["feasible"]

    # the redundancy check finds no kind of finding the parent does not have
    def effects(campus):
        body = viewer_client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk})).json()
        return {f["effect"] for f in body["findings"]}

    assert effects(branch) <= effects(full_hall)
    assert export_campus(Campus.objects.get(pk=full_hall.pk)) == parent_export


def test_a_new_building_branch_brings_storage_its_own_substation_feed_unit_positions_and_uplinks(
    planner_client,
):
    # the template building has 2 MW of storage on its substations' buses, and its substations stand outside
    # it (campus-level): the branch's new building gets the storage, substations of its own on utility feeds
    # of its own, its units where the template's stand, and the racks' uplinks cabled
    campus = import_campus(
        generate_spec("Campus subs", 1024, gpu_model="h100-sxm", bess_mw_per_building=2, bess_hours=4)
    )
    for hall in DataHall.objects.filter(building__campus=campus):
        hall.length_m = max(r.y_m for r in Rack.objects.filter(hall=hall)) + 1.2 + 2.4
        hall.save()
    PowerDevice.objects.filter(campus=campus, kind="substation").update(building=None)
    CoolingUnit.objects.filter(campus=campus).update(y_m=0.0)  # inside the hall cut down to its racks
    url = f"/api/campuses/{campus.pk}/placement/"
    res = planner_client.post(
        url, {"node_model": "hgx-h100-8", "racks": 40, "apply_as_branch": "With B2"}, format="json"
    )
    assert res.status_code == 201, res.content
    proposal = res.json()["proposal"]
    branch = Campus.objects.get(pk=res.json()["branch"])
    b2 = Building.objects.get(campus=branch, name="B2")
    storage = EnergyStorage.objects.filter(campus=branch, building=b2)
    assert storage.count() == 2 and all(e.power_device.building_id == b2.pk for e in storage)
    subs = PowerDevice.objects.filter(campus=branch, building=b2, kind="substation")
    parent_feeds = set(UtilityFeed.objects.filter(campus=campus).values_list("name", flat=True))
    assert subs.count() == 2 and all(s.utility_feed.name not in parent_feeds for s in subs)
    template = {u.name: (u.x_m, u.y_m) for u in CoolingUnit.objects.filter(campus=campus)}
    for add in proposal["additions"]:
        if add["new"] and add["category"] == "cooling" and add["kind"] in ("cdu", "crah"):
            unit = CoolingUnit.objects.get(campus=branch, name=add["names"][0])
            assert (unit.x_m, unit.y_m) == template[add["target"]] != (None, None)
    # every leaf group cabled up has as many uplinks as node cables (non-blocking inside its island),
    # the racks' uplinks (written with them) counted
    nodes: dict[str, int] = {}
    up: dict[str, int] = {}
    for link in Link.objects.filter(campus=branch, network="backend").select_related("a_switch", "b_switch"):
        if link.a_rack_id is not None:
            nodes[link.b_switch.name] = nodes.get(link.b_switch.name, 0) + link.count
        elif link.a_switch is not None and link.a_switch.tier == "leaf":
            up[link.a_switch.name] = up.get(link.a_switch.name, 0) + link.count
    assert up and all(up[leaf] >= nodes.get(leaf, 0) for leaf in up)
    assert design_problems(build_snapshot(branch)) == []
