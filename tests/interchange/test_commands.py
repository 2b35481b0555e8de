"""manage.py import_campus / export_campus / generate_campus / load_demo_campus."""

import json
from io import StringIO

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from campus.interchange.demo import DEMO_NAME
from campus.interchange.exporter import export_campus
from campus.interchange.formats import dump_spec
from campus.models import Campus, Node

from .conftest import inventory_counts


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_import_prints_the_id_and_progress(tmp_path, small_spec):
    path = tmp_path / "small.yaml"
    path.write_text(dump_spec(small_spec, "yaml"))
    out, err = run("import_campus", str(path))
    campus = Campus.objects.get(pk=int(out.strip()))
    assert campus.name == "Small"
    assert "nodes:" in err and "links:" in err


@pytest.mark.django_db
def test_import_of_an_invalid_spec_exits_with_the_error_list(tmp_path, small_spec):
    small_spec["power_devices"][0]["rated_kw"] = 0
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]["pod"] = "POD-9"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(small_spec))
    before = inventory_counts()
    err = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("import_campus", str(path), stdout=StringIO(), stderr=err)
    assert "nothing was written" in str(caught.value)
    assert "power_devices[0].rated_kw:" in err.getvalue()
    assert inventory_counts() == before


@pytest.mark.django_db
def test_import_replace_keeps_the_id(tmp_path, small_spec):
    path = tmp_path / "small.yaml"
    path.write_text(dump_spec(small_spec, "yaml"))
    first, _ = run("import_campus", str(path))
    with pytest.raises(CommandError):
        run("import_campus", str(path))
    again, _ = run("import_campus", str(path), "--replace")
    assert again == first


@pytest.mark.django_db
def test_export_writes_yaml_or_json(tmp_path, small_spec):
    path = tmp_path / "small.yaml"
    path.write_text(dump_spec(small_spec, "yaml"))
    pk = int(run("import_campus", str(path))[0])
    expected = export_campus(Campus.objects.get(pk=pk))
    out, _ = run("export_campus", str(pk))
    assert yaml.safe_load(out) == expected
    target = tmp_path / "out.json"
    run("export_campus", str(pk), "--format", "json", "-o", str(target))
    assert json.loads(target.read_text()) == expected
    with pytest.raises(CommandError):
        run("export_campus", str(pk + 1000))


@pytest.mark.django_db
def test_generate_imports_a_mix_and_spec_only_writes_nothing(tmp_path):
    out, _ = run(
        "generate_campus",
        "--name",
        "Gen",
        "--mix",
        "h100-sxm:256,gb200:72",
        "--cooling",
        "liquid",
        "--pue",
        "1.2",
    )
    campus = Campus.objects.get(pk=int(out))
    assert campus.design_pue == 1.2
    assert sum(n.node_model.gpus_per_node for n in Node.objects.filter(rack__campus=campus)) == 328
    before = inventory_counts()
    target = tmp_path / "spec.yaml"
    run("generate_campus", "--name", "Only", "--gpus", "512", "--spec-only", "-o", str(target))
    assert yaml.safe_load(target.read_text())["campus"]["name"] == "Only"
    assert inventory_counts() == before
    with pytest.raises(CommandError, match="--mix"):
        run("generate_campus", "--name", "Bad", "--mix", "h100-sxm")
    with pytest.raises(CommandError, match="--gpus"):
        run("generate_campus", "--name", "Bad", "--gpus", "1001")
    with pytest.raises(CommandError, match="--racks-per-hall"):
        run("generate_campus", "--name", "Bad", "--gpus", "1024", "--racks-per-hall", "8")
    with pytest.raises(CommandError, match="--fabric"):
        run("generate_campus", "--name", "Bad", "--gpus", "1024", "--gpu-model", "ascend-910b")


@pytest.mark.django_db
def test_generate_takes_the_redundancy_options(tmp_path):
    target = tmp_path / "spec.yaml"
    run(
        "generate_campus",
        "--name",
        "Blocks",
        "--gpus",
        "1024",
        "--power-redundancy",
        "N+1",
        "--cooling-redundancy",
        "N",
        "--spec-only",
        "-o",
        str(target),
    )
    campus = yaml.safe_load(target.read_text())["campus"]
    assert (campus["power_redundancy"], campus["cooling_redundancy"]) == ("N+1", "N")
    with pytest.raises(CommandError, match="--power-redundancy"):
        run("generate_campus", "--name", "Bad", "--gpus", "1024", "--power-redundancy", "3N")


@pytest.mark.django_db
def test_generate_takes_island_size_and_planning_margin(tmp_path):
    target = tmp_path / "spec.yaml"
    run(
        "generate_campus",
        "--name",
        "Grow",
        "--gpus",
        "2048",
        "--island-gpus",
        "1024",
        "--planning-margin-pct",
        "10",
        "--island-spans-buildings",
        "--spec-only",
        "-o",
        str(target),
    )
    spec = yaml.safe_load(target.read_text())
    assert len(spec["pods"]) == 2
    assert "Planning margin 10 %" in spec["campus"]["description"]
    run(
        "generate_campus",
        "--name",
        "Phased",
        "--phases",
        "2026-01-01:h100-sxm:1024:40,2027-01-01:h100-sxm:1024",
        "--spec-only",
        "-o",
        str(target),
    )
    assert len(yaml.safe_load(target.read_text())["buildings"]) == 2
    with pytest.raises(CommandError, match="--phases"):
        run("generate_campus", "--name", "Bad", "--phases", "2026-01-01:h100-sxm:1024:lots")
    with pytest.raises(CommandError, match="--island-gpus"):
        run("generate_campus", "--name", "Bad", "--gpus", "1024", "--island-gpus", "4")
    with pytest.raises(CommandError, match="--planning-margin-pct"):
        run("generate_campus", "--name", "Bad", "--gpus", "1024", "--planning-margin-pct", "200")


@pytest.mark.django_db
def test_demo_campus_loads_once():
    first, _ = run("load_demo_campus")
    campus = Campus.objects.get(pk=int(first))
    assert campus.name == DEMO_NAME
    counts = inventory_counts()
    second, err = run("load_demo_campus")
    assert second == first
    assert "already present" in err
    assert inventory_counts() == counts
    spec = export_campus(campus)
    assert len(spec["buildings"]) == 2
    models = {
        g["model"]
        for b in spec["buildings"]
        for h in b["halls"]
        for r in h["rows"]
        for k in r["racks"]
        for g in k["nodes"]
    }
    assert models == {"hgx-h100-8", "gb200-nvl72-tray", "mi300x-8"}


@pytest.mark.django_db
def test_the_demo_campus_has_two_phases_so_as_of_moves(viewer_client):
    from campus.interchange.demo import DEMO_PHASES

    first, _ = run("load_demo_campus")
    campus = Campus.objects.get(pk=int(first))
    spec = export_campus(campus)
    assert {b["name"]: b.get("in_service_date") for b in spec["buildings"]} == DEMO_PHASES
    points = viewer_client.get(f"/api/campuses/{campus.pk}/timeline/").json()["points"]
    dates = [p["date"] for p in points]
    assert set(DEMO_PHASES.values()) <= set(dates)
    gpus = {p["date"]: p["gpus"] for p in points}
    # phase 1 (building 1: the two H100 islands) alone, then the whole campus once building 2 is in service
    assert gpus[DEMO_PHASES["B1"]] == 4096
    assert gpus[DEMO_PHASES["B2"]] == 4096 + 1152 + 1024
    today = viewer_client.get(f"/api/campuses/{campus.pk}/summary/").json()
    assert today["inventory"]["gpus"] == 4096 + 1152 + 1024
