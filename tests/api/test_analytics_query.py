"""The analytics endpoints refuse query parameters they do not take, naming them (issue: unknown fields →
400). Before, ``?gpu_power_fractoin=0.6`` on the summary answered 200 with the default fraction (1.0), so
the planner read an energy figure for a load they had not asked for."""

import copy

import pytest

from campus.interchange.importer import import_campus
from campus.models import PowerDevice, Rack
from tests.interchange.conftest import SMALL_SPEC


@pytest.fixture
def campus(db):
    return import_campus(copy.deepcopy(SMALL_SPEC))


def endpoints(campus) -> dict[str, dict]:
    """Each analytics endpoint with the parameters it needs."""
    return {
        "summary": {},
        "impact": {"device": PowerDevice.objects.get(campus=campus, name="UPS-A").pk, "kind": "power"},
        "floor-map": {},
        "power-chain": {"rack": Rack.objects.get(campus=campus, name="R01-01").pk},
        "redundancy": {},
        "stranded": {},
    }


@pytest.mark.parametrize("name", ["summary", "impact", "floor-map", "power-chain", "redundancy", "stranded"])
def test_an_unknown_query_parameter_is_400_naming_it(planner_client, campus, name):
    params = endpoints(campus)[name]
    url = f"/api/campuses/{campus.pk}/{name}/"
    assert planner_client.get(url, params).status_code == 200
    response = planner_client.get(url, {**params, "gpu_power_fractoin": "0.6"})
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["gpu_power_fractoin"]
    # The message lists what the endpoint takes, so the typo can be fixed.
    for known in params:
        assert known in response.json()["gpu_power_fractoin"][0]


def test_the_summary_names_the_misspelt_fraction_and_takes_the_right_one(planner_client, campus):
    url = f"/api/campuses/{campus.pk}/summary/"
    response = planner_client.get(url, {"gpu_power_fractoin": "0.6"})
    assert response.status_code == 400
    assert "gpu_power_fraction" in response.json()["gpu_power_fractoin"][0]
    full = planner_client.get(url).json()["power"]["annual_cost_usd"]
    part = planner_client.get(url, {"gpu_power_fraction": "0.6"}).json()["power"]["annual_cost_usd"]
    assert part < full


@pytest.mark.parametrize("standard", [{"format": "json"}, {"limit": "10", "offset": "0"}, {"brief": "1"}])
def test_standard_drf_parameters_still_work(planner_client, campus, standard):
    for name, params in endpoints(campus).items():
        response = planner_client.get(f"/api/campuses/{campus.pk}/{name}/", {**params, **standard})
        assert response.status_code == 200, (name, response.content)


def test_list_endpoints_keep_their_filters_and_ordering(planner_client, campus):
    response = planner_client.get("/api/racks/", {"campus": campus.pk, "ordering": "-name", "limit": 1})
    assert response.status_code == 200, response.content
    assert response.json()["results"][0]["name"] == "R01-02"
