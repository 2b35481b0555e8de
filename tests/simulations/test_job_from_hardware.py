"""A scenario's job figures from the hardware: with no ``mfu``, checkpoint write or restart typed, a run takes
the step-time model's MFU and the checkpoint model's write and restart for the campus it runs on, and says so
in its details; a typed number overrides each and is reported as typed.

The truth is the same job asked another way: POST /api/calculators/step-time/ with the workload the run
reports, on the same campus and storage system (the calculator builds its pools and its checkpoint from the
request, not from the scenario's code path), and the campus summary's ``compute.mfu``."""

import pytest

from campus.models import StorageSystem
from simulations import runs
from simulations.models import Scenario

from .campus_builder import add_cdu
from .helpers import run_all

pytestmark = pytest.mark.django_db

# a slow file system, so the checkpoint takes minutes and the storage is its bound
STORAGE = {"name": "FS-1", "capacity_pb": 5.0, "read_gb_s": 4.0, "write_gb_s": 2.0, "power_kw": 0.0}


@pytest.fixture
def storage(campus):
    return StorageSystem.objects.create(campus=campus, **STORAGE)


def _launch(client, campus, kind: str, params: dict):
    name = f"{kind} job {Scenario.objects.count()}"
    r = client.post(
        "/api/scenarios/",
        {"campus": campus.pk, "kind": kind, "name": name, "params": params},
        format="json",
    )
    assert r.status_code == 201, r.json()
    run = run_all(runs.launch_run(Scenario.objects.get(pk=r.json()["id"]), replicas=1))
    assert run.status == "succeeded", run.error
    return run


def _run(client, campus, kind: str, params: dict) -> dict:
    return _launch(client, campus, kind, params).summary["details"]["job"]


def _step_time(client, campus, workload: dict, precision: str = "bf16") -> dict:
    par = workload["parallel"]
    body = {
        "model_preset": workload["model"],
        "global_batch": workload["global_batch"],
        "precision": precision,
        "campus": campus.pk,
        "parallel": {k: par[k] for k in ("tp", "pp", "dp", "zero_stage", "virtual_stages")},
    }
    r = client.post("/api/calculators/step-time/", body, format="json")
    assert r.status_code == 200, r.json()
    return r.json()


def test_a_failure_cascade_with_no_job_figures_takes_the_step_time_and_checkpoint_models(
    planner_client, campus, storage
):
    job = _run(planner_client, campus, "failure_cascade", {"duration_days": 2})
    # the small campus's 128 H100 run a preset over every GPU
    assert job["workload"]["gpus"] == 128
    st = _step_time(planner_client, campus, job["workload"])
    assert st["gpus"] == 128
    assert job["mfu_source"] == "step-time model"
    assert job["mfu"] == pytest.approx(st["mfu"], rel=1e-9)
    ck = st["checkpoint"]
    assert ck["storage"] == "FS-1" and ck["write_bound"] == "storage"
    # state x 14 bytes over the 2 GB/s the file system writes, and the restart: 300 s launch + restore
    assert ck["checkpoint_write_s"] == pytest.approx(ck["checkpoint_bytes"] / 2e9)
    assert job["checkpoint_minutes"] == pytest.approx(ck["checkpoint_write_s"] / 60.0, rel=1e-9)
    assert job["restart_minutes"] == pytest.approx(ck["restart_s"] / 60.0, rel=1e-9)
    assert job["checkpoint_minutes_source"].startswith("checkpoint model")
    assert job["restart_minutes_source"].startswith("checkpoint model")


def test_typed_job_figures_override_the_hardware_and_are_reported_as_typed(planner_client, campus, storage):
    params = {"duration_days": 2, "mfu": 0.3, "checkpoint_write_minutes": 7.0, "restart_minutes": 12.0}
    run = _launch(planner_client, campus, "failure_cascade", params)
    job = run.summary["details"]["job"]
    assert (job["mfu"], job["checkpoint_minutes"], job["restart_minutes"]) == (0.3, 7.0, 12.0)
    assert job["mfu_source"] == job["checkpoint_minutes_source"] == job["restart_minutes_source"] == "typed"
    # the run's words say so
    words = planner_client.get(f"/api/runs/{run.pk}/").json()["explanation"]
    assert any("30 % MFU (typed), 7 min checkpoint write (typed), 12 min restart (typed)" in w for w in words)


def test_without_a_storage_system_the_checkpoint_keeps_the_catalog_figures(planner_client, campus):
    job = _run(planner_client, campus, "failure_cascade", {"duration_days": 2})
    # Kokolis et al. 2024 (Meta RSC): ~5 min to write, restart 5-20 min (the catalog's 10)
    assert (job["checkpoint_minutes"], job["restart_minutes"]) == (5.0, 10.0)
    assert job["mfu_source"] == "step-time model"


@pytest.mark.parametrize("kind", ["grid_limit", "power_capping"])
def test_the_campus_load_kinds_train_at_the_summary_mfu(planner_client, campus, kind):
    job = _run(planner_client, campus, kind, {})
    summary = planner_client.get(f"/api/campuses/{campus.pk}/summary/").json()
    assert job["mfu_source"] == summary["compute"]["mfu_source"] == "step-time model"
    assert job["mfu"] == pytest.approx(summary["compute"]["mfu"]["bf16"], rel=1e-9)
    # one island, every GPU in the job: the calculator's MFU for the summary's workload
    wl = summary["reliability"]["headline"]["jobs"][0]["training"]["workload"]
    assert job["mfu"] == pytest.approx(_step_time(planner_client, campus, wl)["mfu"], rel=1e-9)
    typed = _run(planner_client, campus, kind, {"job": {"mfu": 0.25}})
    assert (typed["mfu"], typed["mfu_source"]) == (0.25, "typed")


def test_a_liquid_cooling_job_restarts_as_the_checkpoint_model_says(planner_client, campus, storage):
    add_cdu(campus)
    job = _run(planner_client, campus, "liquid_cooling", {})
    st = _step_time(planner_client, campus, job["workload"])
    assert job["restart_minutes"] == pytest.approx(st["checkpoint"]["restart_s"] / 60.0, rel=1e-9)
    assert job["checkpoint_minutes"] == pytest.approx(st["checkpoint"]["checkpoint_write_s"] / 60.0, rel=1e-9)


def test_a_power_dynamics_checkpoint_lasts_what_the_checkpoint_model_says(planner_client, campus, storage):
    run = _launch(planner_client, campus, "power_dynamics", {"jobs": [{"checkpoint_every_seconds": 600.0}]})
    (job,) = run.summary["details"]["jobs"]
    assert job["checkpoint_seconds_source"].startswith("checkpoint model")
    wl = _run(planner_client, campus, "failure_cascade", {"duration_days": 1})["workload"]
    ck = _step_time(planner_client, campus, wl)["checkpoint"]
    assert job["checkpoint_seconds"] == pytest.approx(ck["checkpoint_write_s"], rel=1e-9)
    typed = _launch(planner_client, campus, "power_dynamics", {"jobs": [{"checkpoint_seconds": 30.0}]})
    assert typed.summary["details"]["jobs"] == [
        {"checkpoint_seconds": 30.0, "checkpoint_seconds_source": "typed"}
    ]
