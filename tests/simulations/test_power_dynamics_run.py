"""A power_dynamics run through the run machinery (the Celery tasks as plain functions): one replica by
default, the details in the summary, the envelope series readable through the API."""

import pytest

from simulations import runs
from simulations.choices import RunStatus
from simulations.models import ReplicaResult, Scenario

from .helpers import run_all

pytestmark = pytest.mark.django_db


def test_a_power_dynamics_run_stores_its_verdict_spectrum_sizing_and_envelopes(
    campus, planner, viewer_client
):
    scenario = Scenario.objects.create(
        campus=campus,
        kind="power_dynamics",
        name="Swings",
        params={"duration_seconds": 300, "requirements": {"max_swing_mw": 0.001}, "sizing_points": 3},
        owner=planner,
    )
    run = runs.launch_run(scenario, replicas=runs.default_replicas("power_dynamics", scenario.params), seed=1)
    assert run.replicas == 1
    run = run_all(run)
    assert run.status == RunStatus.SUCCEEDED
    assert ReplicaResult.objects.get(run=run).details["violations"]
    summary = run.summary
    metrics = summary["metrics"]
    assert metrics["compliant"]["mean"] == 0.0 and metrics["swing_mw"]["mean"] > 0.001
    details = summary["details"]
    (violation,) = details["violations"]
    assert violation["requirement"] == "max_swing_mw" and violation["limit"] == 0.001
    assert violation["value"] == pytest.approx(metrics["swing_mw"]["mean"])
    assert len(details["spectrum"]["f_hz"]) == len(details["spectrum"]["amplitude_mw"]) > 0
    assert details["sizing"]["floor"]["floor_fraction"] == [0.0, 0.5, 1.0]
    assert len(details["waveform"]["t_s"]) == 600  # 60 s at 100 ms
    names = set(runs.series_metrics(run))
    assert {"grid_mw", "grid_min_mw", "grid_max_mw", "load_mw", "bess_mw", "generation_mw"} <= names
    assert any(n.startswith("building.") and n.endswith(".max_mw") for n in names)
    answer = viewer_client.get(f"/api/runs/{run.pk}/timeseries/", {"metric": "grid_max_mw"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["points"] > 0 and max(body["values"]) >= metrics["peak_grid_mw"]["mean"] * (1 - 1e-6)
