"""Expansion proposals through the API (POST /api/campuses/{id}/placement/ with ``propose``, and when nothing
fits).

Truth from outside the proposal code: a generated 4,608-GPU GB200 campus with every fabric port used (its
leaf counts by hand in tests/analysis/test_proposals.py); the branch the proposal is applied to must pass
the reference design checks of tests/interchange/design_checks.py (redundancy check included) and its
summary must name no risk the parent does not; the switch counts in the branch are the parent's plus the
additions; the parent is unchanged.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from campus.analysis.bom import campus_bom
from campus.analysis.capex import unit_price
from campus.interchange.exporter import export_campus
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Campus, CoolingUnit, Link, PowerDevice, Rack, Switch
from campus.snapshot_adapter import build_snapshot
from tests.interchange.design_checks import design_problems

pytestmark = pytest.mark.django_db

NVL72 = "gb200-nvl72-tray"


def url(campus_id: int) -> str:
    return f"/api/campuses/{campus_id}/placement/"


@pytest.fixture
def full_fabric():
    return import_campus(generate_spec("Full fabric", 4608, gpu_model="gb200"))


def test_nothing_fits_answers_with_the_cheapest_proposal(planner_client, full_fabric):
    res = planner_client.post(url(full_fabric.pk), {"node_model": NVL72, "racks": 40}, format="json")
    assert res.status_code == 200, res.content
    body = res.json()
    assert body["feasible"] is False and body["binding_constraint"] == "fabric_ports"
    proposal = body["proposal"]
    assert proposal["feasible"] is True and proposal["hall"] == "H1"
    kinds = {a["kind"] for a in proposal["additions"]}
    assert {"leaf", "spine", "core", "optic"} <= kinds
    for add in proposal["additions"]:
        assert add["reason"] in {"fabric_ports", "spine_ports", "cooling", "power", "grid", "space"}
        assert add["count"] >= 1 and add["capex_usd"] >= 0
    assert proposal["capex_usd"] == pytest.approx(sum(a["capex_usd"] for a in proposal["additions"]))
    days = [a["lead_time_days"] for a in proposal["additions"] if a["lead_time_days"] is not None]
    assert proposal["time_to_power_days"] == (max(days) if days else None)
    assert len(proposal["option"]["racks"]) == 40


def test_propose_is_a_boolean_and_unknown_fields_are_400(planner_client, full_fabric):
    res = planner_client.post(
        url(full_fabric.pk), {"node_model": NVL72, "racks": 1, "propose": "maybe"}, format="json"
    )
    assert res.status_code == 400 and "propose" in res.json()
    res = planner_client.post(
        url(full_fabric.pk), {"node_model": NVL72, "racks": 1, "propse": True}, format="json"
    )
    assert res.status_code == 400 and "propse" in res.json()
    res = planner_client.post(
        url(full_fabric.pk), {"node_model": NVL72, "racks": 1, "propose": True}, format="json"
    )
    assert res.status_code == 200 and res.json()["proposal"]["feasible"]


def test_apply_as_branch_builds_the_proposal_and_the_branch_passes_every_design_check(
    planner_client, full_fabric
):
    parent_export = export_campus(full_fabric)
    before_risks = planner_client.get(f"/api/campuses/{full_fabric.pk}/summary/").json()["risks"]
    res = planner_client.post(
        url(full_fabric.pk), {"node_model": NVL72, "racks": 40, "apply_as_branch": "Grown"}, format="json"
    )
    assert res.status_code == 201, res.content
    body = res.json()
    branch = Campus.objects.get(pk=body["branch"])
    proposal = body["proposal"]
    # every addition is in the branch
    for add in proposal["additions"]:
        if add["kind"] in ("leaf", "spine", "core"):
            parent = Switch.objects.get(campus=full_fabric, name=add["target"]).count
            grown = Switch.objects.get(campus=branch, name=add["target"]).count
            assert grown - parent == sum(
                a["count"]
                for a in proposal["additions"]
                if a["kind"] == add["kind"] and a["target"] == add["target"]
            )
        elif add["category"] == "cooling" and add["names"]:
            assert CoolingUnit.objects.filter(campus=branch, name__in=add["names"]).count() == add["count"]
        elif add["category"] == "power" and add["kind"] != "utility_feed":
            parent = PowerDevice.objects.get(campus=full_fabric, name=add["target"]).rated_kw
            grown = PowerDevice.objects.get(campus=branch, name=add["target"]).rated_kw
            assert grown - parent == pytest.approx(add["count"] * add["capacity_kw"])
    new = Rack.objects.filter(campus=branch).exclude(
        name__in=Rack.objects.filter(campus=full_fabric).values("name")
    )
    assert new.count() == 40
    # the branch passes every check the generated design passes, redundancy included, and the summary
    # names no new risk
    assert design_problems(build_snapshot(branch)) == []
    after_risks = planner_client.get(f"/api/campuses/{branch.pk}/summary/").json()["risks"]
    assert len(after_risks) <= len(before_risks)
    # the parent is unchanged
    assert export_campus(Campus.objects.get(pk=full_fabric.pk)) == parent_export


def _racks_own_usd(snap, rack_ids: set[int]) -> float:
    """What the racks ``rack_ids`` bring themselves in the bill of materials: the racks, their servers and
    their cables (the snapshot holding nothing else)."""
    alone = replace(
        snap,
        buildings=(),
        power_devices=(),
        utility_feeds=(),
        energy_storage=(),
        cooling_units=(),
        cooling_plants=(),
        switches=(),
        racks=tuple(r for r in snap.racks if r.id in rack_ids),
        links=tuple(x for x in snap.links if x.a_rack_id in rack_ids),
    )
    return campus_bom(alone).capex_usd()["total"]


def test_the_proposal_s_capex_is_the_bom_growth_of_the_branch_it_writes(planner_client, full_fabric):
    # An independent path: the branch's bill of materials (GET /bom/) less the parent's, less what the 40
    # new racks bring themselves (racks, servers, their cables), is the proposal's capex but for rows and
    # the grid connection, which the bill of materials does not list (docs/placement.md).
    res = planner_client.post(
        url(full_fabric.pk), {"node_model": NVL72, "racks": 40, "apply_as_branch": "Grown"}, format="json"
    )
    assert res.status_code == 201, res.content
    body = res.json()
    proposal = body["proposal"]
    parent = planner_client.get(f"/api/campuses/{full_fabric.pk}/bom/").json()["capex_usd"]["total"]
    grown = planner_client.get(f"/api/campuses/{body['branch']}/bom/").json()["capex_usd"]["total"]
    snap = build_snapshot(Campus.objects.get(pk=body["branch"]))
    old = set(Rack.objects.filter(campus=full_fabric).values_list("name", flat=True))
    new_racks = {r.id for r in snap.racks if r.name not in old}
    assert len(new_racks) == 40
    built = [a for a in proposal["additions"] if a["kind"] not in ("row", "grid")]
    delta = grown - parent - _racks_own_usd(snap, new_racks)
    assert delta == pytest.approx(sum(a["capex_usd"] for a in built), abs=0.01 * len(built))


def test_a_price_override_moves_the_proposal_s_capex(planner_client, full_fabric):
    # The campus's own UPS and switch prices: the answer's capex moves, and every line still sums to it.
    before = planner_client.post(url(full_fabric.pk), {"node_model": NVL72, "racks": 40}, format="json")
    model = next(a["model"] for a in before.json()["proposal"]["additions"] if a["kind"] == "leaf")
    res = planner_client.patch(
        f"/api/campuses/{full_fabric.pk}/", {"price_overrides": {f"switch/{model}": 1_000.0}}, format="json"
    )
    assert res.status_code == 200, res.content
    after = planner_client.post(url(full_fabric.pk), {"node_model": NVL72, "racks": 40}, format="json")
    a, b = before.json()["proposal"], after.json()["proposal"]
    switches = sum(x["count"] for x in b["additions"] if x["kind"] in ("leaf", "spine", "core"))
    catalog = unit_price("switch", model).unit_price_usd
    assert a["capex_usd"] - b["capex_usd"] == pytest.approx((catalog - 1_000.0) * switches, abs=0.05)


def test_racks_placed_as_a_branch_bring_the_uplinks_their_leaves_need(planner_client):
    # a generated 1,024-GPU H100 fabric with a 30 % margin is non-blocking: each rail's leaf group has as
    # many uplinks as node cables. One rack of 4 servers fits as it stands; its 4 x 8 node cables need
    # 4 new uplinks on each of the 8 rails, written into the branch with the rack
    campus = import_campus(generate_spec("Roomy", 1024, gpu_model="h100-sxm", planning_margin_pct=30))
    res = planner_client.post(
        url(campus.pk),
        {"node_model": "hgx-h100-8", "racks": 1, "nodes_per_rack": 4, "apply_as_branch": "One more"},
        format="json",
    )
    assert res.status_code == 201, res.content
    uplinks = res.json()["options"][0]["uplinks"]
    assert len(uplinks) == 8 and {u["count"] for u in uplinks} == {4}
    branch = Campus.objects.get(pk=res.json()["branch"])

    def cables(c):
        nodes, up = {}, {}
        for link in Link.objects.filter(campus=c, network="backend").select_related("a_switch", "b_switch"):
            if link.a_rack_id is not None:
                nodes[link.b_switch.name] = nodes.get(link.b_switch.name, 0) + link.count
            elif link.a_switch is not None and link.a_switch.tier == "leaf":
                up[link.a_switch.name] = up.get(link.a_switch.name, 0) + link.count
        return nodes, up

    (n0, u0), (n1, u1) = cables(campus), cables(branch)
    assert all(u1[leaf] - u0[leaf] == 4 and n1[leaf] - n0[leaf] == 4 for leaf in u0)
    assert all(u1[leaf] >= n1[leaf] for leaf in u1)
