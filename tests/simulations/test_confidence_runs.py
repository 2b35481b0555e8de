"""Runs with a confidence target, through the real tasks in this process: replicas stop once the
confidence interval of the ETTR's mean is narrow enough, at the replica ``run_to_confidence`` stops at on
the same replica seeds (an independent path: the engine called directly, one replica after another), and
the run says how many replicas it used and the half-width it reached."""

import json

import pytest

from simulations import runs
from simulations.choices import RunStatus
from simulations.engine.confidence import half_width, run_to_confidence
from simulations.engine.runner import prepare, replica_seed
from simulations.models import ReplicaResult, Scenario
from simulations.runs.campus_state import snapshot_with_version
from simulations.tasks import run_chunk

from .helpers import run_all, start

pytestmark = pytest.mark.django_db

PARAMS = {"duration_days": 5, "rate_overrides": {"gpu": 2000.0}}
TARGET = {"relative_half_width": 0.01, "min_replicas": 10}


@pytest.fixture
def noisy(campus, planner):
    return Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="Noisy", params=PARAMS, owner=planner
    )


def _direct(run, target):
    """The same replicas, called one by one in this process until the same rule stops them."""
    snap, _ = snapshot_with_version(run.campus_id, run.as_of)
    prepared = prepare(snap, "failure_cascade", run.params)
    return run_to_confidence(
        lambda i: prepared.run(replica_seed(run.seed, i)).metrics["ettr"],
        relative_accuracy=target["relative_half_width"],
        min_replicas=target["min_replicas"],
        max_replicas=run.confidence["max_replicas"],
    )


@pytest.mark.parametrize("reverse", [False, True])
def test_a_run_stops_once_the_ettr_is_known_to_the_target(noisy, reverse):
    run = run_all(runs.launch_run(noisy, replicas=400, seed=7, confidence_target=TARGET), reverse=reverse)
    assert run.status == RunStatus.SUCCEEDED
    want = _direct(run, TARGET)
    assert want.converged and 10 < want.replicas < 400
    # the run used exactly the replicas the rule needed, whatever order its chunks finished in
    assert run.replicas == run.replicas_done == want.replicas
    assert ReplicaResult.objects.filter(run=run).count() == want.replicas
    c = run.summary["confidence"]
    assert c["converged"] is True
    assert c["replicas"] == run.summary["replicas"] == want.replicas
    assert c["half_width"] == pytest.approx(want.half_width, rel=1e-9)
    assert c["half_width"] == pytest.approx(half_width(want.values), rel=1e-9)
    assert c["relative_half_width_achieved"] <= 0.01
    assert run.summary["metrics"]["ettr"]["mean"] == pytest.approx(want.mean, rel=1e-12)


def test_a_target_out_of_reach_runs_to_the_cap_and_says_so(noisy):
    target = {"relative_half_width": 1e-6, "min_replicas": 5}
    run = run_all(runs.launch_run(noisy, replicas=30, seed=3, confidence_target=target))
    assert run.status == RunStatus.SUCCEEDED
    assert run.replicas == 30
    c = run.summary["confidence"]
    assert c["converged"] is False and c["replicas"] == 30
    values = list(ReplicaResult.objects.filter(run=run).order_by("index").values_list("metrics", flat=True))
    assert c["half_width"] == pytest.approx(half_width([m["ettr"] for m in values]), rel=1e-9)


def test_a_running_run_shows_the_half_width_so_far(noisy, viewer_client):
    # ±0.3 %: some hundred replicas (the ±1 % target above needs a few dozen)
    target = {"relative_half_width": 0.003, "min_replicas": 10}
    run = runs.launch_run(noisy, replicas=400, seed=7, confidence_target=target)
    chunks = start(run)
    # the second chunk alone: a gap at index 0, nothing counted yet
    run_chunk(run.pk, chunks[1].indices, chunks[1].number)
    body = viewer_client.get(f"/api/runs/{run.pk}/").json()
    assert body["status"] == "running"
    assert body["confidence"]["replicas"] == 0
    run_chunk(run.pk, chunks[0].indices, chunks[0].number)
    body = viewer_client.get(f"/api/runs/{run.pk}/").json()
    assert body["status"] == "running"
    c = body["confidence"]
    assert c["replicas"] == len(chunks[0].indices) + len(chunks[1].indices)
    assert c["converged"] is False
    values = [
        m["ettr"]
        for m in ReplicaResult.objects.filter(run=run).order_by("index").values_list("metrics", flat=True)
    ]
    assert c["half_width"] == pytest.approx(half_width(values), rel=1e-9)
    assert c["relative_half_width_achieved"] > 0.003


def test_the_api_takes_a_confidence_target_and_names_what_is_wrong(planner_client, noisy):
    url = f"/api/scenarios/{noisy.pk}/run/"
    ok = planner_client.post(url, {"replicas": 200, "confidence_target": TARGET}, format="json")
    assert ok.status_code == 202, ok.json()
    assert ok.json()["confidence"]["max_replicas"] == 200
    assert ok.json()["confidence"]["metric"] == "ettr"
    cases = [
        ({"confidence_target": {**TARGET, "halfwidth": 0.1}}, ("confidence_target", "halfwidth")),
        ({"confidence_target": {"min_replicas": 10}}, ("confidence_target", "relative_half_width")),
        ({"confidence_target": {**TARGET, "metric": "goodput"}}, ("confidence_target.metric",)),
        ({"replicas": 5, "confidence_target": TARGET}, ("confidence_target.min_replicas",)),
        (
            {
                "confidence_target": TARGET,
                "sweep": {"parameters": [{"name": "restart_minutes", "values": [5, 10]}]},
            },
            ("confidence_target",),
        ),
    ]
    for body, path in cases:
        response = planner_client.post(url, body, format="json")
        assert response.status_code == 400, body
        errors = response.json()
        for key in path:
            assert key in errors, (body, errors)
            errors = errors[key]


# ---------------------------------------------------------------- a schedule carries the target


def _schedule(client, scenario, **extra):
    body = {"scenario": scenario.pk, "name": "nightly", "crontab": "0 2 * * *", "replicas": 400, **extra}
    return client.post("/api/schedules/", body, format="json")


def test_a_scheduled_run_carries_the_schedules_confidence_target(admin_client_api, noisy):
    r = _schedule(admin_client_api, noisy, seed=7, confidence_target=TARGET)
    assert r.status_code == 201, r.json()
    assert r.json()["confidence_target"] == {**TARGET, "metric": "ettr", "confidence": 0.95}
    run = run_all(runs.run_schedule(r.json()["id"]))
    assert run.status == RunStatus.SUCCEEDED
    assert run.schedule_id == r.json()["id"]
    assert run.confidence["max_replicas"] == 400 and run.confidence["relative_half_width"] == 0.01
    # the same stop as an unscheduled run with the target: the rule on the replicas in index order
    want = _direct(run, TARGET)
    assert want.converged and run.replicas == want.replicas < 400
    assert run.summary["confidence"]["converged"] is True
    got = admin_client_api.get(f"/api/runs/{run.pk}/").json()["confidence"]
    assert got["replicas"] == want.replicas


def test_a_schedule_without_a_target_runs_its_replicas(admin_client_api, noisy):
    r = _schedule(admin_client_api, noisy, replicas=3)
    assert r.status_code == 201, r.json()
    assert r.json()["confidence_target"] is None
    run = run_all(runs.run_schedule(r.json()["id"]))
    assert run.confidence is None and run.replicas == 3


def test_a_schedules_target_the_scenario_cannot_meet_is_a_400_naming_the_field(admin_client_api, noisy):
    r = _schedule(admin_client_api, noisy, confidence_target={**TARGET, "metric": "nope"})
    assert r.status_code == 400 and "confidence_target.metric" in r.json()
    r = _schedule(admin_client_api, noisy, replicas=5, confidence_target=TARGET)
    assert r.status_code == 400 and "confidence_target.min_replicas" in r.json()
    r = _schedule(admin_client_api, noisy, confidence_target={**TARGET, "rel": 1})
    assert r.status_code == 400 and "rel" in r.json()["confidence_target"]
    deterministic = Scenario.objects.create(campus=noisy.campus, kind="power_capping", name="Caps", params={})
    r = _schedule(admin_client_api, deterministic, confidence_target=TARGET)
    assert r.status_code == 400 and "confidence_target" in r.json()


def test_a_scheduled_run_whose_scenario_no_longer_fits_the_target_fails_saying_why(admin_client_api, noisy):
    r = _schedule(admin_client_api, noisy, confidence_target=TARGET)
    assert r.status_code == 201, r.json()
    noisy.kind = "power_capping"  # deterministic: one replica is the answer
    noisy.params = {}
    noisy.save()
    run = runs.run_schedule(r.json()["id"])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "confidence target" in run.error


def test_the_admin_schedule_form_checks_the_target_as_the_api_does(rf, noisy, admin_user):
    from django.contrib import admin

    from simulations.models import Schedule

    request = rf.post("/admin/")
    request.user = admin_user
    form_class = admin.site._registry[Schedule].get_form(request)
    base = {"scenario": noisy.pk, "name": "nightly", "crontab": "0 2 * * *", "replicas": 400, "enabled": True}

    def form(target, **extra):
        return form_class(data={**base, **extra, "confidence_target": json.dumps(target)})

    for target, extra, word in (
        ({**TARGET, "metric": "nope"}, {}, "metric"),
        (TARGET, {"replicas": 5}, "min_replicas"),
        ({**TARGET, "rel": 1}, {}, "rel"),
        ({"relative_half_width": "wide"}, {}, "relative_half_width"),
    ):
        bad = form(target, **extra)
        assert not bad.is_valid(), target
        assert word in " ".join(bad.errors["confidence_target"])
    good = form(TARGET)
    assert good.is_valid(), good.errors
    saved = good.save()
    assert saved.confidence_target == {**TARGET, "metric": "ettr", "confidence": 0.95}
    assert Schedule.objects.count() == 1
