"""What a planner meets on a first run: parameters checked against the campus when a scenario is saved and when
it is launched, a taken name said in words on the Name field, one replica for a deterministic kind, compare
only within one kind, and a default cooling event with only its own parameters."""

from datetime import date, timedelta

import pytest

from campus.models import Campus, Node, Pod, Rack
from simulations import runs
from simulations.engine.params import default_params
from simulations.models import Run, Scenario

from .campus_builder import add_cdu
from .helpers import run_all

pytestmark = pytest.mark.django_db


def post_scenario(client, campus, kind, params, name="checked"):
    return client.post("/api/scenarios/", {"campus": campus.pk, "kind": kind, "name": name, "params": params})


# ---------------------------------------------------------------- parameters against the campus


def test_a_cap_for_a_gpu_model_the_campus_lacks_is_a_400_on_its_path(planner_client, campus):
    response = post_scenario(
        planner_client, campus, "power_capping", {"caps": [{"gpu_model": "h999", "cap_fraction": 0.8}]}
    )
    assert response.status_code == 400
    errors = response.json()["params"]
    assert list(errors) == ["caps[0].gpu_model"]
    assert "h999" in errors["caps[0].gpu_model"][0]
    assert not Scenario.objects.filter(name="checked").exists()


@pytest.mark.parametrize(
    ("kind", "params", "path"),
    [
        ("power_capping", {"caps": [{"pod_id": 987654, "cap_fraction": 0.7}]}, "caps[0].pod_id"),
        (
            "power_capping",
            {"schedule": [{"start_hours": 2, "caps": [{"gpu_model": "mi999", "cap_w": 500}]}]},
            "schedule[0].caps[0].gpu_model",
        ),
        ("liquid_cooling", {"events": [{"kind": "pump_loss", "target_id": 987654}]}, "events[0].target_id"),
        ("liquid_cooling", {"events": [{"kind": "chiller_loss"}]}, "events[0].target_id"),
        ("failure_cascade", {"gpu_models": ["h999"]}, "gpu_models"),
    ],
)
def test_every_kind_refuses_what_the_campus_does_not_have(planner_client, campus, kind, params, path):
    add_cdu(campus)
    response = post_scenario(planner_client, campus, kind, params)
    assert response.status_code == 400, response.json()
    assert path in response.json()["params"]


def test_a_grid_limit_on_a_campus_without_grid_capacity_is_a_400_on_capacity_kw(planner_client, campus):
    Campus.objects.filter(pk=campus.pk).update(grid_capacity_mw=0)
    response = post_scenario(planner_client, campus, "grid_limit", {})
    assert response.status_code == 400
    assert "capacity_kw" in response.json()["params"]
    assert post_scenario(planner_client, campus, "grid_limit", {"capacity_kw": 4000}).status_code == 201


def test_put_and_patch_check_the_campus_too(planner_client, campus):
    created = post_scenario(planner_client, campus, "power_capping", {"caps": [{"cap_fraction": 0.8}]})
    assert created.status_code == 201
    url = f"/api/scenarios/{created.json()['id']}/"
    bad = {"caps": [{"gpu_model": "h999", "cap_fraction": 0.8}]}
    patched = planner_client.patch(url, {"params": bad})
    assert patched.status_code == 400
    assert "caps[0].gpu_model" in patched.json()["params"]
    body = {"campus": campus.pk, "kind": "power_capping", "name": "checked", "params": bad}
    put = planner_client.put(url, body)
    assert put.status_code == 400
    assert "caps[0].gpu_model" in put.json()["params"]
    assert Scenario.objects.get(name="checked").params == {"caps": [{"cap_fraction": 0.8}]}


def test_a_run_on_a_campus_that_changed_since_the_scenario_was_saved_is_a_400(planner_client, campus):
    pod = Pod.objects.filter(campus=campus).first()
    created = post_scenario(
        planner_client, campus, "power_capping", {"caps": [{"pod_id": pod.pk, "cap_fraction": 0.7}]}
    )
    assert created.status_code == 201
    pod.delete()  # the racks stay, the pod the cap names is gone
    response = planner_client.post(f"/api/scenarios/{created.json()['id']}/run/", {})
    assert response.status_code == 400
    assert "caps[0].pod_id" in response.json()["params"]
    assert not Run.objects.exists()


def test_a_bad_sweep_is_named_before_the_campus_is_tried(planner_client, campus):
    # The request's own fields are checked first: a misspelt swept parameter is its own 400, whatever the
    # campus can run (here: nothing of the saved scenario, its pod is gone).
    pod = Pod.objects.filter(campus=campus).first()
    created = post_scenario(
        planner_client, campus, "power_capping", {"caps": [{"pod_id": pod.pk, "cap_fraction": 0.7}]}
    )
    pod.delete()
    sweep = {"parameters": [{"name": "caps[0].cap_fractoin", "values": [0.5, 0.6]}]}
    response = planner_client.post(f"/api/scenarios/{created.json()['id']}/run/", {"sweep": sweep})
    assert response.status_code == 400
    assert list(response.json()) == ["sweep.parameters[0].name"]
    good = {"parameters": [{"name": "caps[0].cap_fraction", "values": [0.5, 0.6]}]}
    response = planner_client.post(f"/api/scenarios/{created.json()['id']}/run/", {"sweep": good})
    assert response.status_code == 400
    assert "caps[0].pod_id" in response.json()["params"]
    assert not Run.objects.exists()


def test_the_campus_is_tried_as_designed_when_saved_and_on_its_day_when_run(planner_client, campus):
    # Racks entering service next year hold the campus's only GPUs: a scenario is checked against the campus
    # as designed, so a cap on their GPU model is saved; a run today has nothing in service to run (a 400 on
    # as_of), a run on a day after they enter service is queued.
    later = date.today() + timedelta(days=365)
    Rack.objects.filter(campus=campus).update(in_service_date=later)
    slug = Node.objects.filter(rack__campus=campus).first().node_model.gpu_model.slug
    created = post_scenario(
        planner_client, campus, "power_capping", {"caps": [{"gpu_model": slug, "cap_fraction": 0.8}]}
    )
    assert created.status_code == 201, created.json()
    url = f"/api/scenarios/{created.json()['id']}/run/"
    today = planner_client.post(url, {})
    assert today.status_code == 400 and list(today.json()) == ["as_of"], today.json()
    response = planner_client.post(url, {"as_of": (later + timedelta(days=1)).isoformat()})
    assert response.status_code == 202, response.json()


def test_a_run_takes_the_campus_from_the_analytics_cache(planner_client, campus):
    # A run reads the campus in service on its day (today), the state the dashboard's summary of today
    # holds: once that is built, launching a run (and a second scenario) reads no inventory table again
    # while the campus is unchanged, and a change is seen (the version query notices it).
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    created = post_scenario(planner_client, campus, "power_capping", {"caps": [{"cap_fraction": 0.8}]})
    assert created.status_code == 201
    assert planner_client.get(f"/api/campuses/{campus.pk}/summary/").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        response = planner_client.post(f"/api/scenarios/{created.json()['id']}/run/", {})
    assert response.status_code == 202, response.json()
    # Only the version query (a count and the newest stamp of each table) looks at the racks and servers.
    reads = [q["sql"] for q in queries if "MAX(last_updated)" not in q["sql"]]
    assert not [sql for sql in reads if '"campus_node"' in sql or '"campus_rack"' in sql], reads
    pod = Pod.objects.filter(campus=campus).first()
    cap = post_scenario(
        planner_client,
        campus,
        "power_capping",
        {"caps": [{"pod_id": pod.pk, "cap_fraction": 0.7}]},
        "pod cap",
    )
    assert cap.status_code == 201
    pod.delete()
    response = planner_client.post(f"/api/scenarios/{cap.json()['id']}/run/", {})
    assert response.status_code == 400
    assert "caps[0].pod_id" in response.json()["params"]


# ---------------------------------------------------------------- a taken name


def test_a_taken_name_is_a_400_on_name_in_a_sentence(planner_client, scenario):
    response = planner_client.post(
        "/api/scenarios/", {"campus": scenario.campus_id, "kind": "grid_limit", "name": scenario.name}
    )
    assert response.status_code == 400
    assert response.json() == {"name": [f'a scenario named "{scenario.name}" already exists in this campus']}


def test_renaming_onto_a_taken_name_is_a_400_on_name(planner_client, scenario, campus):
    other = Scenario.objects.create(campus=campus, kind="grid_limit", name="Grid")
    response = planner_client.patch(f"/api/scenarios/{other.pk}/", {"name": scenario.name})
    assert response.status_code == 400
    assert list(response.json()) == ["name"]
    assert "already exists in this campus" in response.json()["name"][0]


def test_a_taken_rack_name_is_said_on_name_in_a_sentence(planner_client):
    from tests import factories as f

    rack = f.RackFactory()
    body = {
        "campus": rack.campus_id,
        "hall": rack.hall_id,
        "name": rack.name,
        "x_m": 1,
        "y_m": 1,
        "design_kw": 40,
    }
    response = planner_client.post("/api/racks/", body, format="json")
    assert response.status_code == 400
    assert response.json()["name"] == [f'a rack named "{rack.name}" already exists in this campus']


# ---------------------------------------------------------------- replicas of deterministic kinds


def test_the_kinds_say_which_are_deterministic_and_their_default_replicas(viewer_client):
    by_kind = {k["kind"]: k for k in viewer_client.get("/api/scenarios/kinds/").json()}
    assert {k: (v["stochastic"], v["default_replicas"]) for k, v in by_kind.items()} == {
        "power_capping": (False, 1),
        "grid_limit": (False, 1),
        "liquid_cooling": (True, runs.DEFAULT_REPLICAS),
        "failure_cascade": (True, runs.DEFAULT_REPLICAS),
        "power_dynamics": (False, 1),
        "heat_wave": (False, 1),
        "training_step": (False, 1),
        "voltage_dip": (False, 1),
    }


@pytest.mark.parametrize("body", [{}, {"replicas": 8}])
def test_a_deterministic_run_is_one_replica(planner_client, campus, body):
    scenario = Scenario.objects.create(campus=campus, kind="power_capping", name="cap", params={})
    response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", body)
    assert response.status_code == 202
    assert response.json()["replicas"] == 1


def test_a_grid_limit_with_random_generator_starts_keeps_its_replicas(planner_client, campus):
    scenario = Scenario.objects.create(
        campus=campus, kind="grid_limit", name="gens", params={"policy": "generators"}
    )
    default = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {}).json()
    asked = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"replicas": 7}).json()
    assert (default["replicas"], asked["replicas"]) == (runs.DEFAULT_REPLICAS, 7)


def test_every_replica_of_a_deterministic_kind_is_the_same_so_one_is_enough(campus):
    """Property the one-replica rule rests on: two seeds, the same metrics."""
    scenario = Scenario.objects.create(campus=campus, kind="grid_limit", name="cut", params={})
    run = run_all(runs.launch_run(scenario, replicas=1, seed=1))
    again = run_all(runs.launch_run(scenario, replicas=1, seed=999))
    first = {k: v["mean"] for k, v in run.summary["metrics"].items()}
    second = {k: v["mean"] for k, v in again.summary["metrics"].items()}
    assert first == second


# ---------------------------------------------------------------- compare within one kind


def test_compare_refuses_runs_of_different_kinds_naming_ids(viewer_client, scenario, campus):
    cap = Scenario.objects.create(campus=campus, kind="power_capping", name="cap", params={})
    a = run_all(runs.launch_run(scenario, replicas=2, seed=1))
    b = run_all(runs.launch_run(cap, seed=1))
    response = viewer_client.get(f"/api/runs/compare/?ids={a.pk},{b.pk}")
    assert response.status_code == 400
    message = response.json()["ids"][0]
    assert "one kind" in message and f"run {a.pk}" in message and f"run {b.pk}" in message


# ---------------------------------------------------------------- the default cooling event


def test_the_default_cooling_event_carries_only_a_cdu_loss_parameters():
    (event,) = default_params("liquid_cooling")["events"]
    assert event["kind"] == "cdu_loss"
    assert set(event) == {"kind", "target_id", "at_minutes", "repair_minutes"}


@pytest.mark.parametrize(
    ("event", "foreign"),
    [
        ({"kind": "cdu_loss", "remaining_flow_fraction": 0.5}, "remaining_flow_fraction"),
        ({"supply_rise_k": 4}, "supply_rise_k"),
        ({"kind": "pump_loss", "supply_rise_k": 4}, "supply_rise_k"),
        ({"kind": "chiller_loss", "remaining_flow_fraction": 0.5}, "remaining_flow_fraction"),
    ],
)
def test_an_event_refuses_the_parameters_of_other_kinds_of_event(planner_client, campus, event, foreign):
    add_cdu(campus)
    response = post_scenario(planner_client, campus, "liquid_cooling", {"events": [event]})
    assert response.status_code == 400
    assert list(response.json()["params"]) == [f"events[0].{foreign}"]
