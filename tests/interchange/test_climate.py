"""A campus's climate: every write path takes one of the shipped climates and refuses any other, naming
the field; the spec, the generator, the snapshot and the export carry it."""

import copy

import pytest

from campus.analysis.weather import CLIMATES, DEFAULT_CLIMATE
from campus.choices import Climate
from campus.interchange.exporter import export_campus
from campus.interchange.generate import GeneratorError, generate, generate_spec
from campus.interchange.importer import SpecError, import_campus, validate_spec
from campus.interchange.spec_snapshot import spec_snapshot
from campus.models import Campus
from campus.snapshot_adapter import build_snapshot


def test_the_choices_are_the_shipped_climates():
    assert tuple(Climate.values) == CLIMATES
    assert Climate.ASHBURN_US == DEFAULT_CLIMATE


def test_generator_takes_a_climate_and_names_a_bad_one():
    spec = generate_spec("Hot site", 64, climate="phoenix-us")
    assert spec["campus"]["climate"] == "phoenix-us"
    assert generate_spec("Default site", 64)["campus"]["climate"] == DEFAULT_CLIMATE
    with pytest.raises(GeneratorError) as caught:
        generate("Bad site", 64, climate="atlantis")
    assert caught.value.field == "climate"


@pytest.mark.django_db
def test_spec_import_export_and_snapshots_carry_the_climate():
    spec = generate_spec("Dublin site", 64, climate="dublin-ie")
    campus = import_campus(copy.deepcopy(spec))
    assert Campus.objects.get(pk=campus.pk).climate == "dublin-ie"
    assert export_campus(campus)["campus"]["climate"] == "dublin-ie"
    snap = build_snapshot(campus.pk)
    assert snap.climate == "dublin-ie" and snap.weather is None
    assert spec_snapshot(spec).climate == "dublin-ie"


@pytest.mark.django_db
def test_spec_with_an_unknown_climate_is_refused_at_the_field():
    spec = generate_spec("Nowhere", 64)
    spec["campus"]["climate"] = "atlantis"
    errors = validate_spec(spec)
    assert any(e["path"] == "campus.climate" for e in errors), errors
    with pytest.raises(SpecError):
        import_campus(spec)
    assert not Campus.objects.filter(name="Nowhere").exists()


@pytest.mark.django_db
def test_api_campus_climate_is_validated(planner_client):
    created = planner_client.post(
        "/api/campuses/",
        {"name": "Api site", "grid_capacity_mw": 10, "climate": "singapore-sg"},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["climate"] == "singapore-sg"
    cid = created.json()["id"]
    bad = planner_client.patch(f"/api/campuses/{cid}/", {"climate": "atlantis"}, format="json")
    assert bad.status_code == 400 and "climate" in bad.json()
    good = planner_client.patch(f"/api/campuses/{cid}/", {"climate": "ulanqab-cn"}, format="json")
    assert good.status_code == 200 and good.json()["climate"] == "ulanqab-cn"
    listed = planner_client.get("/api/campuses/?climate=ulanqab-cn").json()
    assert [c["id"] for c in listed["results"]] == [cid]
    assert planner_client.get("/api/campuses/?climate=dublin-ie").json()["results"] == []
    default = planner_client.post("/api/campuses/", {"name": "Plain", "grid_capacity_mw": 1}, format="json")
    assert default.json()["climate"] == DEFAULT_CLIMATE


@pytest.mark.django_db
def test_api_generate_names_a_bad_climate(planner_client):
    bad = planner_client.post(
        "/api/campuses/generate/", {"name": "G", "gpus": 64, "climate": "mars"}, format="json"
    )
    assert bad.status_code == 400 and "climate" in bad.json()
