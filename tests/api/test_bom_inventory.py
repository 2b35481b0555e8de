"""The bill of materials holds every inventory item once, and a design change moves capex as a hand count says
(docs/capex.md).

The counts come from the database rows, not from the code under test; the capex delta of a branch is the
catalog's unit prices times what the branch added, multiplied out here.
"""

from __future__ import annotations

import pytest
from django.db.models import Sum

from campus.analysis.capex import unit_price
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import (
    Building,
    CoolingPlant,
    CoolingUnit,
    EnergyStorage,
    Link,
    Node,
    PowerDevice,
    PowerFeed,
    Rack,
    Switch,
    UtilityFeed,
)

pytestmark = pytest.mark.usefixtures("fresh_analytics")


@pytest.fixture
def campus(db):
    return import_campus(
        generate_spec("BOM-I", gpus=512, hall_max_it_mw=0.4, building_max_it_mw=1.0, pod_max_gpus=256)
    )


def bom(client, campus_id: int, **query) -> dict:
    response = client.get(f"/api/campuses/{campus_id}/bom/", query)
    assert response.status_code == 200, response.content
    return response.json()


def inventory_counts(campus_id: int) -> dict[str, int]:
    """Every priced kind of the bill of materials, counted in the database."""
    racks = Rack.objects.filter(campus_id=campus_id)
    return {
        "utility-feed": UtilityFeed.objects.filter(campus_id=campus_id).count(),
        "power-device": PowerDevice.objects.filter(campus_id=campus_id).count(),
        "energy-storage": EnergyStorage.objects.filter(campus_id=campus_id).count(),
        "rack-power": PowerFeed.objects.filter(campus_id=campus_id, rack__isnull=False).count(),
        "cooling-unit": CoolingUnit.objects.filter(campus_id=campus_id).count(),
        "cooling-plant": CoolingPlant.objects.filter(campus_id=campus_id).count(),
        "rack-cooling": racks.filter(cooling_type="direct-to-chip").count(),
        "switch": Switch.objects.filter(campus_id=campus_id).aggregate(n=Sum("count"))["n"] or 0,
        "cable": Link.objects.filter(campus_id=campus_id).aggregate(n=Sum("count"))["n"] or 0,
        "server": Node.objects.filter(rack__campus_id=campus_id).count(),
        "rack": racks.count(),
        "building": Building.objects.filter(campus_id=campus_id).count(),
    }


def test_bom_counts_equal_the_inventory_for_every_category(viewer_client, campus):
    expected = inventory_counts(campus.pk)
    assert expected["rack-power"] > 0 and expected["rack-cooling"] > 0 and expected["utility-feed"] > 0
    for group in ("campus", "building", "hall", "pod"):
        body = bom(viewer_client, campus.pk, group=group)
        for kind, n in expected.items():
            lines = [x for x in body["lines"] if x["kind"] == kind]
            assert sum(x["count"] for x in lines) == n == body["counts"][kind], (group, kind)
    # the grid connection is a power line per kW of feed capacity
    lines = [x for x in bom(viewer_client, campus.pk)["lines"] if x["kind"] == "utility-feed"]
    feeds_kw = sum(f.capacity_mw * 1000 for f in UtilityFeed.objects.filter(campus=campus))
    assert sum(x["quantity"] for x in lines) == pytest.approx(feeds_kw)
    assert {x["category"] for x in lines} == {"power"}


def free_spots(hall, n: int) -> list[tuple[float, float]]:
    """``n`` places in the hall where a rack of 0.6 m x 1.2 m touches no rack (a grid walk)."""
    taken = [(r.x_m, r.y_m, r.width_m, r.depth_m) for r in Rack.objects.filter(hall=hall)]
    out: list[tuple[float, float]] = []
    y = 0.0
    while y + 1.2 <= hall.length_m and len(out) < n:
        x = 0.0
        while x + 0.6 <= hall.width_m and len(out) < n:
            boxes = taken + [(a, b, 0.6, 1.2) for a, b in out]
            if all(x + 0.6 <= a or a + w <= x or y + 1.2 <= b or b + d <= y for a, b, w, d in boxes):
                out.append((x, y))
            x += 0.7
        y += 1.3
    assert len(out) == n, "no room in the hall"
    return out


def test_a_branch_adding_two_racks_shows_their_capex_by_category_in_the_diff(planner_client, campus):
    made = planner_client.post(
        f"/api/campuses/{campus.pk}/branch/", {"name": "Two more racks"}, format="json"
    )
    assert made.status_code == 201, made.content
    branch = made.json()["id"]
    model = Rack.objects.filter(campus_id=branch, cooling_type="direct-to-chip").order_by("id").first()
    server = Node.objects.filter(rack=model).first()
    servers_per_rack = Node.objects.filter(rack=model).count()
    pdu_a, pdu_b = (
        PowerFeed.objects.filter(rack=model, side=side).values_list("upstream_id", flat=True).first()
        for side in ("A", "B")
    )
    feed_kw = 45.0
    hall = model.hall
    spots = free_spots(hall, 2)
    for i, (x_m, y_m) in enumerate(spots):
        rack = planner_client.post(
            "/api/racks/",
            {
                "campus": branch,
                "hall": hall.pk,
                "name": f"NEW-{i}",
                "x_m": x_m,
                "y_m": y_m,
                "cooling_type": "direct-to-chip",
                "design_kw": model.design_kw,
                "cooling_unit": model.cooling_unit_id,
                "pod": model.pod_id,
            },
            format="json",
        )
        assert rack.status_code == 201, rack.content
        rack_id = rack.json()["id"]
        nodes = [
            {"rack": rack_id, "node_model": server.node_model_id, "name": f"NEW-{i}-n{n}"}
            for n in range(servers_per_rack)
        ]
        assert planner_client.post("/api/nodes/", nodes, format="json").status_code == 201
        feeds = [
            {"campus": branch, "upstream": pdu, "rack": rack_id, "side": side, "rating_kw": feed_kw}
            for pdu, side in ((pdu_a, "A"), (pdu_b, "B"))
        ]
        response = planner_client.post("/api/power-feeds/", feeds, format="json")
        assert response.status_code == 201, response.content
    figures = planner_client.get(f"/api/campuses/{branch}/diff/", {"against": campus.pk}).json()["figures"]

    def usd(kind: str, item: str) -> float:
        return unit_price(kind, item).unit_price_usd

    # by hand: 2 racks of the model's servers; 2 enclosures; 2 manifolds; 4 feeds of 45 kW of in-rack PDU
    compute = 2 * servers_per_rack * usd("server", server.node_model.slug)
    building = 2 * usd("rack", "rack")
    cooling = 2 * usd("rack-cooling", "rack-manifold")
    power = 4 * feed_kw * usd("rack-power", "rack-pdu")
    assert figures["capex.capex_usd.compute"][2] == pytest.approx(compute)
    assert figures["capex.capex_usd.building"][2] == pytest.approx(building)
    assert figures["capex.capex_usd.cooling"][2] == pytest.approx(cooling)
    assert figures["capex.capex_usd.power"][2] == pytest.approx(power)
    assert figures["capex.capex_usd.network"][2] == 0
    assert figures["capex.capex_usd.total"][2] == pytest.approx(compute + building + cooling + power)
