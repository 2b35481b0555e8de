"""The price catalog, a campus's bill of materials and its capex through the API (docs/capex.md).

The counts come from the database, not from the code under test: every switch (a group of n boxes is n),
every cable (a bundle of n is n) and every server of the imported campus. Overrides are refused naming the
field (400, never a 500) and, once accepted, move the BOM, the summary and the design diff by exactly the
price difference times the count.
"""

from __future__ import annotations

import pytest
from django.db.models import Sum
from drf_spectacular.generators import SchemaGenerator

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Link, Node, Switch

pytestmark = pytest.mark.usefixtures("fresh_analytics")

QM9700 = "switch/quantum-2-qm9700"


@pytest.fixture
def campus(db):
    return import_campus(
        generate_spec("BOM", gpus=512, hall_max_it_mw=0.4, building_max_it_mw=1.0, pod_max_gpus=256)
    )


def bom(client, campus, **query) -> dict:
    response = client.get(f"/api/campuses/{campus.pk}/bom/", query)
    assert response.status_code == 200, response.content
    return response.json()


def lines_of(body: dict, kind: str) -> list[dict]:
    return [x for x in body["lines"] if x["kind"] == kind]


def test_bom_counts_equal_the_inventory_and_groups_only_split_them(viewer_client, campus):
    body = bom(viewer_client, campus)
    switches = Switch.objects.filter(campus=campus).aggregate(n=Sum("count"))["n"]
    cables = Link.objects.filter(campus=campus).aggregate(n=Sum("count"))["n"]
    servers = Node.objects.filter(rack__campus=campus).count()
    assert sum(x["count"] for x in lines_of(body, "switch")) == switches == body["counts"]["switch"]
    assert sum(x["count"] for x in lines_of(body, "cable")) == cables == body["counts"]["cable"]
    assert sum(x["count"] for x in lines_of(body, "server")) == servers
    assert set(body["capex_usd"]) == {"power", "cooling", "network", "compute", "building", "total"}
    for line in body["lines"]:
        assert line["total_usd"] == pytest.approx(line["unit_price_usd"] * line["quantity"])
        assert line["source"] and line["unit"] and line["price_key"]
    assert body["usd_per_mw_it"] == pytest.approx(body["capex_usd"]["total"] / body["it_mw"])
    for group in ("building", "hall", "pod"):
        split = bom(viewer_client, campus, group=group)
        assert split["group"] == group
        assert split["capex_usd"]["total"] == pytest.approx(body["capex_usd"]["total"])
        assert split["counts"] == body["counts"]
        assert any(x["group"] and x["group"]["kind"] == group and x["group"]["name"] for x in split["lines"])


def test_the_summary_carries_capex_and_the_tco_by_query(viewer_client, campus):
    body = bom(viewer_client, campus)
    summary = viewer_client.get(f"/api/campuses/{campus.pk}/summary/").json()
    assert summary["capex"]["capex_usd"] == pytest.approx(body["capex_usd"])
    assert summary["capex"]["tco"]["horizon_years"] == 5
    assert summary["capex"]["tco"]["discount_rate"] == 0.08
    longer = viewer_client.get(
        f"/api/campuses/{campus.pk}/summary/", {"horizon_years": 10, "discount_rate": 0}
    )
    tco = longer.json()["capex"]["tco"]
    supply = summary["power"]["grid_supply"]
    assert tco["total_usd"] == pytest.approx(
        body["capex_usd"]["total"] + 10 * (supply["grid_cost_usd"] + supply["generator_cost_usd"])
    )
    assert bom(viewer_client, campus, horizon_years=10, discount_rate=0)["tco"]["total_usd"] == pytest.approx(
        tco["total_usd"]
    )


@pytest.mark.parametrize(
    "query, field",
    [
        ({"group": "row"}, "group"),
        ({"horizon_years": 0}, "horizon_years"),
        ({"discount_rate": 2}, "discount_rate"),
        ({"grup": "hall"}, "grup"),
    ],
)
def test_bad_bom_query_is_a_400_naming_it(viewer_client, campus, query, field):
    response = viewer_client.get(f"/api/campuses/{campus.pk}/bom/", query)
    assert response.status_code == 400, response.content
    assert field in response.json()


def test_bom_of_no_campus_is_a_404(viewer_client, db):
    assert viewer_client.get("/api/campuses/999999/bom/").status_code == 404


@pytest.mark.parametrize(
    "overrides",
    [
        {"switch/no-such-switch": 1.0},
        {QM9700: -5},
        {QM9700: "cheap"},
        {QM9700: 1e12},
        ["not", "an", "object"],
    ],
)
def test_a_bad_override_is_a_400_naming_price_overrides(planner_client, campus, overrides):
    response = planner_client.patch(
        f"/api/campuses/{campus.pk}/", {"price_overrides": overrides}, format="json"
    )
    assert response.status_code == 400, response.content
    assert "price_overrides" in response.json()


def test_an_override_moves_the_bom_the_summary_and_the_catalog_view(planner_client, viewer_client, campus):
    before = bom(viewer_client, campus)
    switches = before["counts"]["switch"]
    response = planner_client.patch(
        f"/api/campuses/{campus.pk}/", {"price_overrides": {QM9700: 30_000}}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["price_overrides"] == {QM9700: 30_000.0}
    after = bom(viewer_client, campus)
    assert before["capex_usd"]["network"] - after["capex_usd"]["network"] == pytest.approx(switches * 6_000)
    assert after["capex_usd"]["compute"] == before["capex_usd"]["compute"]
    (line,) = lines_of(after, "switch")
    assert line["overridden"] and line["unit_price_usd"] == 30_000 and line["source"] == "campus override"
    summary = viewer_client.get(f"/api/campuses/{campus.pk}/summary/").json()
    assert summary["capex"]["capex_usd"]["network"] == pytest.approx(after["capex_usd"]["network"])
    rows = viewer_client.get("/api/price-catalog/", {"campus": campus.pk}).json()
    row = next(r for r in rows if r["key"] == QM9700)
    assert row["unit_price_usd"] == 30_000 and row["overridden"]


def test_the_price_catalog_lists_every_row_with_its_source(viewer_client, db):
    rows = viewer_client.get("/api/price-catalog/").json()
    keys = {r["key"] for r in rows}
    assert {QM9700, "optic/sr-400g", "cable/dac-400g", "server/hgx-h100-8", "power-device/ups"} <= keys
    assert all(r["source"] and r["unit"] and r["unit_price_usd"] >= 0 for r in rows)
    assert viewer_client.get("/api/price-catalog/", {"campus": 999999}).status_code == 400
    bad = viewer_client.get("/api/price-catalog/", {"kind": "switch"})
    assert bad.status_code == 400 and "kind" in bad.json()


def test_the_diff_shows_capex_deltas_by_category(planner_client, campus):
    made = planner_client.post(f"/api/campuses/{campus.pk}/branch/", {"name": "BOM cheaper"}, format="json")
    assert made.status_code == 201, made.content
    branch = made.json()["id"]
    switches = bom(planner_client, campus)["counts"]["switch"]
    planner_client.patch(f"/api/campuses/{branch}/", {"price_overrides": {QM9700: 30_000}}, format="json")
    figures = planner_client.get(f"/api/campuses/{branch}/diff/", {"against": campus.pk}).json()["figures"]
    assert figures["capex.capex_usd.network"][2] == pytest.approx(-switches * 6_000)
    assert figures["capex.capex_usd.total"][2] == pytest.approx(-switches * 6_000)
    assert figures["capex.capex_usd.compute"][2] == 0


def test_a_branch_s_prices_merge_into_its_parent(planner_client, campus):
    made = planner_client.post(f"/api/campuses/{campus.pk}/branch/", {"name": "BOM priced"}, format="json")
    branch = made.json()["id"]
    patched = planner_client.patch(
        f"/api/campuses/{branch}/", {"price_overrides": {"power-device/ups": 250}}, format="json"
    )
    assert patched.status_code == 200, patched.content
    diff = planner_client.get(f"/api/campuses/{branch}/diff/", {"against": campus.pk}).json()
    fields = [c["fields"] for c in diff["objects"]["changed"] if "price_overrides" in c["fields"]]
    assert [f["price_overrides"][1] for f in fields] == [{"power-device/ups": 250.0}]
    merged = planner_client.post(f"/api/campuses/{branch}/merge/", {}, format="json")
    assert merged.status_code == 200, merged.content
    parent = planner_client.get(f"/api/campuses/{campus.pk}/").json()
    assert parent["price_overrides"] == {"power-device/ups": 250.0}
    after = bom(planner_client, campus)
    (ups,) = [x for x in after["lines"] if x["price_key"] == "power-device/ups"]
    assert ups["overridden"] and ups["unit_price_usd"] == 250.0


def test_the_schema_documents_both_endpoints_their_parameters_and_the_override_field(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = schema["paths"]
    bom_get = paths["/api/campuses/{id}/bom/"]["get"]
    assert {p["name"] for p in bom_get["parameters"]} >= {
        "id",
        "group",
        "horizon_years",
        "discount_rate",
        "as_of",
    }
    assert {p["name"] for p in paths["/api/price-catalog/"]["get"]["parameters"]} == {"campus"}
    summary = paths["/api/campuses/{id}/summary/"]["get"]
    assert {"horizon_years", "discount_rate"} <= {p["name"] for p in summary["parameters"]}
    campus = schema["components"]["schemas"]["Campus"]["properties"]["price_overrides"]
    assert campus["type"] == "object" and campus["additionalProperties"]["type"] == "number"
