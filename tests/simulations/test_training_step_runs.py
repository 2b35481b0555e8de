"""A training_step scenario saved, run and read back through the API on a campus in the database."""

import pytest

from simulations import runs
from simulations.models import Scenario

from .helpers import run_all

pytestmark = pytest.mark.django_db

JOB = {"model": "llama3-8b", "tp": 8, "pp": 1, "global_batch": 16, "tp_values": [4, 8]}


def test_a_training_step_run_reports_the_step_its_curve_and_sweep(planner_client, campus):
    # the small campus: one pod, 4 racks x 4 HGX H100 = 128 GPUs
    r = planner_client.post(
        "/api/scenarios/",
        {"campus": campus.pk, "kind": "training_step", "name": "step", "params": JOB},
        format="json",
    )
    assert r.status_code == 201, r.json()
    scenario = Scenario.objects.get(pk=r.json()["id"])
    run = run_all(runs.launch_run(scenario))
    assert run.status == "succeeded", run.error
    assert run.replicas == 1
    m = run.summary["metrics"]
    assert m["gpus"]["mean"] == 128
    assert 0 < m["mfu"]["mean"] < 0.6
    details = run.summary["details"]
    assert [p["gpus"] for p in details["scaling"]] == [8, 16, 32, 64, 128]
    assert len(details["sweep"]) == 2
    assert details["step"]["collectives"]["dp"]["tier"] == "island"


def test_a_split_the_campus_cannot_run_is_a_400_on_the_field(planner_client, campus):
    r = planner_client.post(
        "/api/scenarios/",
        {"campus": campus.pk, "kind": "training_step", "name": "bad", "params": {**JOB, "tp": 3}},
        format="json",
    )
    assert r.status_code == 400
    assert "tp" in r.json()["params"]


def test_an_unknown_parameter_is_a_400_naming_it(planner_client, campus):
    r = planner_client.post(
        "/api/scenarios/",
        {"campus": campus.pk, "kind": "training_step", "name": "bad", "params": {"tq": 3}},
        format="json",
    )
    assert r.status_code == 400
    assert "tq" in r.json()["params"]
