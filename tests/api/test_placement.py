"""Capacity placement through the API (POST /api/campuses/{id}/placement/).

Truth from outside the placement code: a generated campus (which passes the reference design checks of
tests/interchange/design_checks.py) must still pass them once the best option is applied as a branch; the
branch's summary IT rises by exactly racks × nodes per rack × the node's power computed by hand from the
catalog rows; the parent's export is unchanged; every inventory rule of the API holds on the branch.
"""

from __future__ import annotations

import pytest

from campus import state as states
from campus.interchange.exporter import export_campus
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Campus, DataHall, GPUModel, Link, Node, NodeModel, PowerFeed, Rack
from campus.snapshot_adapter import build_snapshot
from tests.interchange.design_checks import design_problems

pytestmark = pytest.mark.django_db

NODE = "hgx-h100-8"


def url(campus_id: int) -> str:
    return f"/api/campuses/{campus_id}/placement/"


@pytest.fixture
def generated():
    return import_campus(generate_spec("Placement", 1000))


def test_unknown_fields_and_bad_values_are_400_naming_the_field(planner_client, generated):
    cases = [
        ({"node_model": NODE, "racks": 1, "rakcs": 2}, "rakcs"),
        ({"node_model": "no-such-node", "racks": 1}, "node_model"),
        ({"node_model": NODE, "racks": 0}, "racks"),
        ({"node_model": NODE, "racks": 501}, "racks"),
        ({"node_model": NODE}, "racks"),
        ({"racks": 1}, "node_model"),
        ({"node_model": NODE, "racks": 1, "nodes_per_rack": 0}, "nodes_per_rack"),
        ({"node_model": NODE, "racks": 1, "nodes_per_rack": 7}, "nodes_per_rack"),  # 7 x 8U > 48U
        ({"node_model": NODE, "racks": 1, "hall": "x"}, "hall"),
        ({"node_model": "gb200-nvl72-tray", "racks": 1, "nodes_per_rack": 4}, "nodes_per_rack"),  # 18 or none
        ({"node_model": NODE, "racks": 1, "apply_as_branch": ""}, "apply_as_branch"),
        ({"node_model": NODE, "racks": 1, "apply_as_branch": "Placement"}, "apply_as_branch"),
        ({"node_model": NODE, "racks": 1, "apply_as_branch": 123}, "apply_as_branch"),  # a name is text
        ({"node_model": NODE, "racks": 1, "apply_as_branch": True}, "apply_as_branch"),
    ]
    for body, field in cases:
        res = planner_client.post(url(generated.pk), body, format="json")
        assert res.status_code == 400, (body, res.content)
        assert field in res.json(), (body, res.json())
    other = import_campus({**generate_spec("Other", 1000)})
    foreign = DataHall.objects.filter(building__campus=other).first()
    res = planner_client.post(
        url(generated.pk), {"node_model": NODE, "racks": 1, "hall": foreign.pk}, format="json"
    )
    assert res.status_code == 400 and "hall" in res.json()
    assert Campus.objects.count() == 2


def test_viewer_may_not_place(viewer_client, generated):
    res = viewer_client.post(url(generated.pk), {"node_model": NODE, "racks": 1}, format="json")
    assert res.status_code == 403


def test_shape_of_the_answer(planner_client, generated):
    res = planner_client.post(
        url(generated.pk), {"node_model": NODE, "racks": 1, "nodes_per_rack": 1}, format="json"
    )
    assert res.status_code == 200, res.content
    body = res.json()
    assert {"feasible", "binding_constraint", "options"} <= set(body)
    assert body["binding_constraint"] in {"floor_space", "rack_density", "fabric_ports", "cooling", "power"}
    assert body["feasible"] and 1 <= len(body["options"]) <= 3
    for option in body["options"]:
        assert {"hall", "racks", "headroom_after"} <= set(option)
        for rack in option["racks"]:
            assert {"x_m", "y_m", "row", "feed_a", "feed_b", "cooling_unit", "pod"} <= set(rack)
    powers = [o["headroom_after"]["power_kw"] for o in body["options"]]
    assert powers == sorted(powers, reverse=True)


def test_infeasible_names_the_binding_constraint(planner_client, generated):
    # in one named hall: no new hall or building is proposed, so nothing makes 500 racks fit there
    hall = DataHall.objects.filter(building__campus=generated).order_by("pk").first().pk
    request = {"node_model": NODE, "racks": 500, "hall": hall}
    res = planner_client.post(url(generated.pk), request, format="json")
    assert res.status_code == 200
    body = res.json()
    assert body["feasible"] is False and body["options"] == []
    assert body["binding_constraint"] == body["binding"]["constraint"]
    assert body["proposal"]["feasible"] is False
    res = planner_client.post(url(generated.pk), {**request, "apply_as_branch": "Nope"}, format="json")
    assert res.status_code == 400 and "apply_as_branch" in res.json()
    assert not Campus.objects.filter(name="Nope").exists()


def test_apply_as_branch_passes_the_design_checks_and_adds_exactly_the_it(planner_client, generated):
    parent_export = export_campus(generated)
    parent_snap = build_snapshot(generated)
    assert design_problems(parent_snap) == []
    before = planner_client.get(f"/api/campuses/{generated.pk}/summary/").json()["power"]
    before_it, before_network_mw = before["it_mw"], before["network_mw"]
    racks, npr = 1, 1
    res = planner_client.post(
        url(generated.pk),
        {"node_model": NODE, "racks": racks, "nodes_per_rack": npr, "apply_as_branch": "Placed"},
        format="json",
    )
    if res.status_code == 200:  # pragma: no cover - the generated campus has room for a single-node rack
        pytest.fail(f"nothing fits: {res.json()}")
    assert res.status_code == 201, res.content
    body = res.json()
    branch = Campus.objects.get(pk=body["branch"])
    assert branch.parent_id == generated.pk and branch.name == "Placed"
    option = body["options"][0]
    # the racks are where the option says, fed and cabled as it says
    placed = Rack.objects.filter(campus=branch).exclude(
        name__in=Rack.objects.filter(campus=generated).values("name")
    )
    assert placed.count() == racks
    spots = sorted((r["x_m"], r["y_m"]) for r in option["racks"])
    assert sorted((r.x_m, r.y_m) for r in placed) == spots
    for rack in placed:
        # on the option's A and B devices, and (2N as 2(N+1)) the second whip a side of the racks beside
        feeds = sorted((f.side, f.upstream.name) for f in PowerFeed.objects.filter(rack=rack))
        first = {side: min(name for s, name in feeds if s == side) for side in "AB"}
        assert first == {"A": option["racks"][0]["feed_a"], "B": option["racks"][0]["feed_b"]}
        assert [side for side, _ in feeds] == ["A", "A", "B", "B"]
        assert Node.objects.filter(rack=rack).count() == npr
        assert Link.objects.filter(a_rack=rack).exists()
    # IT by hand from the catalog rows: GPUs x TDP + overhead + NICs x NIC extra
    model = NodeModel.objects.get(slug=NODE)
    gpu = GPUModel.objects.get(pk=model.gpu_model_id)
    nic_extra = {"connectx7": 0.0, "bluefield3": 50.0}.get(model.nic_kind, 0.0)
    node_w = model.gpus_per_node * gpu.tdp_w + model.overhead_w + model.nics * nic_extra
    states.forget()
    after = planner_client.get(f"/api/campuses/{branch.pk}/summary/").json()["power"]
    after_it = after["it_mw"]
    servers_mw = racks * npr * node_w / 1e6
    f = branch.other_it_fraction
    # the summary's IT counts the allowance the servers bring, servers / (1 − fraction), and the
    # transceivers of the new cables add their own draw (inventoried network, docs/model.md §2)
    network_mw = after["network_mw"] - before_network_mw
    assert network_mw > 0
    assert after_it - before_it == pytest.approx(servers_mw / (1 - f) + network_mw, rel=1e-6)
    # the branch passes every check the generated design passes
    assert design_problems(build_snapshot(branch)) == []
    # the parent is unchanged
    assert export_campus(Campus.objects.get(pk=generated.pk)) == parent_export


def test_a_campus_declared_n_gets_racks_on_one_feed_and_no_new_single_point(planner_client):
    # An N / N design (one distribution path, no spare cooling unit or plant) used to get "nothing fits"
    # for any request: no A/B pair and no N+1 group to keep. Now a rack goes on its row's one PDU, and
    # the branch's single points are exactly the parent's (the declared N warnings), nothing overloaded.
    parent = import_campus(generate_spec("Tier II", 1000, power_redundancy="N", cooling_redundancy="N"))
    res = planner_client.post(
        url(parent.pk),
        {"node_model": NODE, "racks": 1, "nodes_per_rack": 1, "apply_as_branch": "Tier II placed"},
        format="json",
    )
    assert res.status_code == 201, res.content
    spot = res.json()["options"][0]["racks"][0]
    assert spot["feed_b"] is None
    branch = Campus.objects.get(pk=res.json()["branch"])
    (rack,) = Rack.objects.filter(campus=branch).exclude(
        name__in=Rack.objects.filter(campus=parent).values("name")
    )
    assert {f.side: f.upstream.name for f in PowerFeed.objects.filter(rack=rack)} == {"A": spot["feed_a"]}

    def single_points(campus_id):
        body = planner_client.get(f"/api/campuses/{campus_id}/redundancy/").json()
        return {f["device_name"] for f in body["findings"]}

    states.forget()
    assert single_points(branch.pk) == single_points(parent.pk) != set()
    power = planner_client.get(f"/api/campuses/{branch.pk}/summary/").json()["power"]
    assert power["devices_over_planning_limit"] == [] and power["headroom_after_failover_mw"] >= 0


def test_a_hall_not_yet_in_service_is_named(planner_client):
    # Every object of this campus enters service in 2099: its hall exists but is not on today's floor
    # (the analytics' default as_of), which the answer says instead of "no hall".
    parent = import_campus(
        generate_spec("Later", phases=[{"date": "2099-01-01", "gpus": 1000, "gpu_model": "h100-sxm"}])
    )
    hall = DataHall.objects.filter(building__campus=parent).first()
    res = planner_client.post(
        url(parent.pk), {"node_model": NODE, "racks": 1, "hall": hall.pk}, format="json"
    )
    assert res.status_code == 400
    assert "not in service today" in res.json()["hall"][0]


@pytest.fixture
def two_buildings():
    """Two buildings in service, each with one hall named H1."""
    phases = [
        {"date": "2020-01-01", "gpus": 1000, "gpu_model": "h100-sxm"},
        {"date": "2021-01-01", "gpus": 1000, "gpu_model": "h100-sxm"},
    ]
    return import_campus(generate_spec("Two H1", phases=phases))


def _names_its_hall(where: dict) -> None:
    hall = DataHall.objects.select_related("building").get(pk=where["hall_id"])
    assert (where["hall"], where["building"], where["building_id"]) == (
        hall.name,
        hall.building.name,
        hall.building_id,
    )


@pytest.mark.parametrize("racks", [1, 500])
def test_the_binding_and_every_option_name_the_building_of_their_hall(planner_client, two_buildings, racks):
    halls = DataHall.objects.filter(building__campus=two_buildings)
    assert sorted(h.name for h in halls) == ["H1", "H1"]  # the hall's name alone says nothing
    res = planner_client.post(
        url(two_buildings.pk), {"node_model": NODE, "racks": racks, "nodes_per_rack": 1}, format="json"
    )
    assert res.status_code == 200, res.content
    body = res.json()
    assert body["feasible"] is (racks == 1)
    _names_its_hall(body["binding"])
    for option in body["options"]:
        _names_its_hall(option)


def test_the_answer_gives_each_elements_own_headroom_beside_the_rack_it(planner_client, generated):
    """The API gives what the placement computes: the binding elements' own headroom (kW at the power
    element's input, kW of heat at the cooling element) and the cooling element's level, and a binding
    cooling element is named with that same level. With nothing placed elsewhere, each own figure is at least
    the rack-IT one's sign: an element with IT headroom left has room of its own."""
    res = planner_client.post(url(generated.pk), {"node_model": NODE, "racks": 1}, format="json")
    assert res.status_code == 200, res.content
    body = res.json()
    for option in body["options"]:
        after = option["headroom_after"]
        for key in ("power_element_headroom_kw", "cooling_element_headroom_kw", "cooling_level"):
            assert key in after, key
        assert after["cooling_level"] in ("cooling unit", "cooling group", "hall air units", "plant loop")
        assert (after["power_kw"] >= 0) == (after["power_element_headroom_kw"] >= 0)
        assert (after["cooling_kw"] >= 0) == (after["cooling_element_headroom_kw"] >= 0)
    if body["feasible"] and body["binding_constraint"] == "cooling":
        best = body["options"][0]["headroom_after"]
        assert (body["binding"]["level"], body["binding"]["element"]) == (
            best["cooling_level"],
            best["cooling_element"],
        )
