"""Through the API: a rack with servers and no feed is dark in every view, and the campus grid connection
bounds the headroom of every view and placement, on a generated campus.

Truth from outside the headroom code: the rack's GPUs are counted from its servers (the node model's GPUs
each), and the grid headroom is worked from figures other views give: the summary's peak facility load and
IT (the peak PUE) and the floor map's rack loads (what the feeds carry per kW of rack IT).
"""

from __future__ import annotations

import pytest

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Node, PowerFeed, Rack

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]
NODE = "hgx-h100-8"


@pytest.fixture
def generated():
    return import_campus(generate_spec("Grid", 1000))


def get(client, campus, name, **params):
    res = client.get(f"/api/campuses/{campus.pk}/{name}/", params)
    assert res.status_code == 200, res.content
    return res.json()


def test_a_rack_whose_feeds_are_removed_is_dark_everywhere(planner_client, generated):
    rack = Rack.objects.filter(hall__building__campus=generated).order_by("pk").first()
    gpus = sum(
        n.node_model.gpus_per_node for n in Node.objects.filter(rack=rack).select_related("node_model")
    )
    assert gpus > 0
    for fid in PowerFeed.objects.filter(rack=rack).values_list("pk", flat=True):
        deleted = planner_client.delete(f"/api/power-feeds/{fid}/")
        # the first feed gone takes the rack below the declared level: 200 with the warning (docs/api.md,
        # "Redundancy warnings"); the last one leaves it as far down as it was: 204
        assert deleted.status_code in (200, 204)
        if deleted.status_code == 200:
            assert rack.pk in deleted.json()["warnings"][0]["racks_at_risk"]
    summary = get(planner_client, generated, "summary", include_redundancy="false")
    assert (summary["power"]["racks_without_power"], summary["power"]["unfed_racks"]) == (1, 1)
    floor = get(planner_client, generated, "floor-map")
    racks = {r[0]: dict(zip(floor["rack_columns"], r, strict=True)) for r in floor["racks"]}
    assert racks[rack.pk]["powered"] is False
    total = summary["inventory"]["gpus"]
    utilities = ",".join(f"utility:{u.pk}" for u in generated.utility_feeds.all())
    impact = get(planner_client, generated, "impact", failed=utilities)
    assert impact["gpus"]["usable_before"] == total - gpus
    assert impact["gpus"]["usable_after"] <= total - gpus
    assert rack.pk not in impact["racks"]["lost_both"]
    red = get(planner_client, generated, "redundancy")
    assert [r["id"] for r in red["unfed_racks"]] == [rack.pk]
    assert red["unfed_racks"][0]["gpus"] == gpus


def test_a_grid_of_zero_is_a_400_naming_the_field(planner_client, generated):
    res = planner_client.patch(f"/api/campuses/{generated.pk}/", {"grid_capacity_mw": 0}, format="json")
    assert res.status_code == 400
    zero = res.json()["grid_capacity_mw"]
    assert "must be greater than 0 MW" in zero[0]
    # a negative or a null capacity gets the same message (not "greater than or equal to 0")
    for value in (-1, None):
        res = planner_client.patch(
            f"/api/campuses/{generated.pk}/", {"grid_capacity_mw": value}, format="json"
        )
        assert res.status_code == 400 and res.json()["grid_capacity_mw"] == zero, (value, res.content)


def test_a_grid_below_the_peak_facility_load_binds_every_view_and_placement(planner_client, generated):
    before = get(planner_client, generated, "summary", include_redundancy="false")["power"]
    grid_mw = round(before["peak_facility_mw"] * 0.75, 3)
    res = planner_client.patch(f"/api/campuses/{generated.pk}/", {"grid_capacity_mw": grid_mw}, format="json")
    assert res.status_code == 200, res.content
    power = get(planner_client, generated, "summary", include_redundancy="false")["power"]
    assert power["grid_headroom_mw"] < 0
    headroom = power["headroom_after_failover_mw"]
    assert headroom < 0 and power["headroom_binding"]["kind"] == "grid"
    # by hand from the other views: the racks' feeds and the network and allowance beside them may carry
    # grid / peak PUE (peak PUE = the summary's peak facility over its IT, which is what they carry); the
    # headroom is rack IT, so the kW left are divided by the kW carried per kW of rack IT (the floor map's
    # fed_kw and its halls' beside_racks_mw over its racks' load_kw)
    floor = get(planner_client, generated, "floor-map")
    rows = [dict(zip(floor["rack_columns"], r, strict=True)) for r in floor["racks"]]
    racks_fed_kw, own_kw = sum(r["fed_kw"] for r in rows), sum(r["load_kw"] for r in rows)
    beside_kw = 1000 * sum(h["beside_racks_mw"] for b in floor["buildings"] for h in b["halls"])
    fed_kw = racks_fed_kw + beside_kw
    assert fed_kw == pytest.approx(power["it_mw"] * 1000, rel=1e-9)
    peak_pue = power["peak_facility_mw"] / power["it_mw"]
    expected_kw = (grid_mw * 1000 / peak_pue - fed_kw) / (fed_kw / own_kw)
    assert headroom * 1000 == pytest.approx(expected_kw, rel=1e-9)
    # stranded capacity caps the campus by the same grid: nothing usable beyond today's load (power in use
    # is not stranded; the headroom above is the overload), in kW on the racks' feeds (their own IT)
    stranded = get(planner_client, generated, "stranded")["campus"]
    assert stranded["usable_kw"] == pytest.approx(racks_fed_kw, rel=1e-9)
    assert stranded["limits_kw"]["grid"] == pytest.approx(racks_fed_kw, rel=1e-9)
    assert floor["campus"]["headroom_mw"] == pytest.approx(headroom)
    for b in floor["buildings"]:
        assert b["headroom_mw"] <= headroom + 1e-12
        for h in b["halls"]:
            assert h["headroom_mw"] <= headroom + 1e-12
    timeline = get(planner_client, generated, "timeline")["points"]
    assert timeline[-1]["headroom_mw"] == pytest.approx(headroom)
    res = planner_client.post(
        f"/api/campuses/{generated.pk}/placement/",
        {"node_model": NODE, "racks": 1, "nodes_per_rack": 1},
        format="json",
    )
    assert res.status_code == 200, res.content
    answer = res.json()
    assert answer["feasible"] is False and answer["binding_constraint"] == "grid"
