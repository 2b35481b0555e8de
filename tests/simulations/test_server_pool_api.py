"""A failure_cascade scenario with a server pool through the API: its parameters validate by path, a run of
it ends when the work is done and says so, and a run of a pool larger than the campus fails naming it."""

import pytest

from simulations import runs
from simulations.models import Scenario
from tests.simulations.helpers import run_all

pytestmark = pytest.mark.django_db

POOL = {
    "duration_days": 60,
    "work_days": 5,
    "restart_minutes": 20,
    "failures_during_recovery": False,
    "server_pool": {
        "warm_standbys": 2,
        "spare_pool_nodes": 2,
        "bad_server_fraction": 0.25,
        "node_mtbf_hours": 500,
    },
}


def test_a_server_pool_scenario_runs_to_the_end_of_its_work(planner_client, viewer_client, campus):
    response = planner_client.post(
        "/api/scenarios/",
        {"campus": campus.pk, "kind": "failure_cascade", "name": "pool", "params": POOL},
        format="json",
    )
    assert response.status_code == 201, response.json()
    run = run_all(runs.launch_run(Scenario.objects.get(pk=response.json()["id"]), replicas=3, seed=2))
    body = viewer_client.get(f"/api/runs/{run.pk}/").json()
    assert body["status"] == "succeeded"
    metrics = body["summary"]["metrics"]
    # 12 of the campus's 16 nodes train, a failure every ~42 h: 5 days of work take a little more
    assert 5 < metrics["time_to_train_days"]["mean"] < 7
    assert metrics["work_done_fraction"]["mean"] == 1.0
    assert any(
        "Time to train" in line for line in body["summary"].get("explanation", body.get("explanation", []))
    )


def test_a_bad_server_pool_field_is_a_400_naming_its_path(planner_client, campus):
    bad = {**POOL, "server_pool": {**POOL["server_pool"], "bad_server_fraction": 2}}
    response = planner_client.post(
        "/api/scenarios/",
        {"campus": campus.pk, "kind": "failure_cascade", "name": "bad", "params": bad},
        format="json",
    )
    assert response.status_code == 400
    assert list(response.json()["params"]) == ["server_pool.bad_server_fraction"]


def test_a_pool_larger_than_the_campus_fails_the_run_naming_server_pool(campus, planner):
    too_big = {**POOL, "server_pool": {**POOL["server_pool"], "spare_pool_nodes": 40}}
    scenario = Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="big", params=too_big, owner=planner
    )
    run = run_all(runs.launch_run(scenario, replicas=1))
    assert run.status == "failed"
    assert "server_pool" in (run.error or "")
