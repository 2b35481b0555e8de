"""The calibrated model parameters on every write path (docs/campus-spec.md): the campus's
``gpu_power_fraction`` and ``server_overhead_scale``, a cooling plant's fitted ``fixed_kw``, ``eir_ref`` and
``eir_per_k`` (all three or none), through the API (single and bulk), the spec and the admin form."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.forms.models import model_to_dict

from campus.interchange.exporter import export_campus
from campus.interchange.importer import SpecError, import_campus
from campus.models import Campus, CoolingPlant
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def plant():
    return f.CoolingPlantFactory(
        campus=f.CampusFactory(name="Fit"), name="CH-1", kind="chiller", capacity_kw=500.0
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("gpu_power_fraction", 0.0),
        ("gpu_power_fraction", 1.5),
        ("server_overhead_scale", 0.05),
        ("server_overhead_scale", 4),
    ],
)
def test_a_campus_parameter_out_of_bounds_is_a_400_naming_it(planner_client, plant, field, value):
    r = planner_client.patch(f"/api/campuses/{plant.campus_id}/", {field: value}, format="json")
    assert r.status_code == 400 and field in r.json(), r.content


def test_the_campus_parameters_are_written_and_read_back(planner_client, plant):
    body = {"gpu_power_fraction": 0.8, "server_overhead_scale": 1.1}
    r = planner_client.patch(f"/api/campuses/{plant.campus_id}/", body, format="json")
    assert r.status_code == 200, r.content
    assert {k: r.json()[k] for k in body} == body


def test_a_plant_fit_without_all_three_coefficients_is_a_400_naming_the_first_missing(planner_client, plant):
    r = planner_client.patch(f"/api/cooling-plants/{plant.pk}/", {"fixed_kw": 10.0}, format="json")
    assert r.status_code == 400 and "eir_ref" in r.json(), r.content
    r = planner_client.patch(
        "/api/cooling-plants/", [{"id": plant.pk, "fixed_kw": 10.0, "eir_ref": 0.2}], format="json"
    )
    assert r.status_code == 400 and "eir_per_k" in str(r.json()), r.content
    r = planner_client.patch(f"/api/cooling-plants/{plant.pk}/", {"eir_per_k": 0.5}, format="json")
    assert r.status_code == 400 and "eir_per_k" in r.json(), r.content
    whole = {"fixed_kw": 10.0, "eir_ref": 0.2, "eir_per_k": 0.005}
    r = planner_client.patch(f"/api/cooling-plants/{plant.pk}/", whole, format="json")
    assert r.status_code == 200 and {k: r.json()[k] for k in whole} == whole
    # cleared together: the kind's equations again
    none = dict.fromkeys(whole)
    assert planner_client.patch(f"/api/cooling-plants/{plant.pk}/", none, format="json").status_code == 200


def test_the_spec_carries_them_there_and_back_and_refuses_a_partial_fit(plant):
    Campus.objects.filter(pk=plant.campus_id).update(gpu_power_fraction=0.81, server_overhead_scale=1.07)
    CoolingPlant.objects.filter(pk=plant.pk).update(fixed_kw=11.5, eir_ref=0.21, eir_per_k=0.004)
    spec = export_campus(plant.campus_id)
    assert (spec["campus"]["gpu_power_fraction"], spec["campus"]["server_overhead_scale"]) == (0.81, 1.07)
    (exported,) = spec["cooling_plants"]
    assert (exported["fixed_kw"], exported["eir_ref"], exported["eir_per_k"]) == (11.5, 0.21, 0.004)
    spec["campus"]["name"] = "Fit again"
    again = import_campus(spec)
    assert (again.gpu_power_fraction, again.server_overhead_scale) == (0.81, 1.07)
    copy = CoolingPlant.objects.get(campus=again, name="CH-1")
    assert (copy.fixed_kw, copy.eir_ref, copy.eir_per_k) == (11.5, 0.21, 0.004)
    assert export_campus(again)["cooling_plants"] == spec["cooling_plants"]

    spec["campus"]["name"] = "Fit partial"
    del spec["cooling_plants"][0]["eir_per_k"]
    spec["campus"]["gpu_power_fraction"] = 2.0
    with pytest.raises(SpecError) as err:
        import_campus(spec)
    paths = {e["path"] for e in err.value.errors}
    assert "campus.gpu_power_fraction" in paths or any("gpu_power_fraction" in p for p in paths), paths


def test_the_spec_names_the_missing_coefficient(plant):
    CoolingPlant.objects.filter(pk=plant.pk).update(fixed_kw=11.5, eir_ref=0.21, eir_per_k=0.004)
    spec = export_campus(plant.campus_id)
    spec["campus"]["name"] = "Fit partial"
    del spec["cooling_plants"][0]["eir_ref"]
    with pytest.raises(SpecError) as err:
        import_campus(spec)
    assert [e["path"] for e in err.value.errors] == ["cooling_plants[0].eir_ref"]


def test_the_admin_form_refuses_a_partial_fit(rf, plant):
    request = rf.post("/admin/")
    request.user = get_user_model().objects.create_superuser("formuser", "f@example.org", "pw")
    form_class = admin.site._registry[CoolingPlant].get_form(request, plant)
    data = {k: v for k, v in {**model_to_dict(plant), "fixed_kw": 5.0}.items() if v is not None}
    form = form_class(data=data, instance=plant)
    assert not form.is_valid()
    assert "eir_ref" in form.errors


def test_the_rack_list_gives_each_campus_its_own_calibrated_it_load(viewer_client):
    # one server of 8 × 700 W GPUs and 4,600 W overhead (tests.factories) in a rack of each of two campuses,
    # one of them calibrated: 0.8 × 5.6 + 1.1 × 4.6 = 9.54 kW against 10.2 kW
    node_model = f.NodeModelFactory()
    loads = {}
    for name, fraction, scale in (("Design", 1.0, 1.0), ("Calibrated", 0.8, 1.1)):
        campus = f.CampusFactory(name=name, gpu_power_fraction=fraction, server_overhead_scale=scale)
        rack = f.RackFactory(
            hall=f.DataHallFactory(building=f.BuildingFactory(campus=campus)), name=f"{name}-R1"
        )
        f.NodeFactory(rack=rack, node_model=node_model)
        loads[rack.name] = 8 * 0.7 * fraction + 4.6 * scale
    rows = viewer_client.get("/api/racks/", {"limit": 100}).json()["results"]
    got = {r["name"]: r["power"]["it_load_kw"] for r in rows if r["name"] in loads}
    assert got == pytest.approx(loads) and got["Calibrated-R1"] == pytest.approx(9.54)
