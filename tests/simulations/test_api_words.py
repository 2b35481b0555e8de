"""The API gives what the dashboard needs to name things and explain runs: the metric catalogue with the kinds,
a finished run's explanation, and each series' label."""

from __future__ import annotations

import pytest

from simulations import runs
from simulations.engine import catalogue
from simulations.models import Run, Scenario

from .helpers import run_all

pytestmark = pytest.mark.django_db


def test_kinds_give_the_metric_catalogue_and_cause_labels(viewer_client):
    by_kind = {k["kind"]: k for k in viewer_client.get("/api/scenarios/kinds/").json()}
    ettr = by_kind["failure_cascade"]["metrics"]["ettr"]
    assert ettr["label"] == "Goodput (ETTR)" and ettr["higher_is_better"] is True and ettr["description"]
    # a count with no direction says so
    assert by_kind["failure_cascade"]["metrics"]["job_gpus"]["higher_is_better"] is None
    assert by_kind["liquid_cooling"]["metrics"]["coolant_temp_c"]["label"] == "Coolant temperature"
    assert by_kind["liquid_cooling"]["metrics"]["coolant_temp_c"]["unit"] == "°C"
    causes = by_kind["failure_cascade"]["causes"]
    assert causes["cpu"] == "CPU" and causes["nccl_watchdog"] == "NCCL watchdog timeouts"
    # the parameter schema carries titles with units and the pickers
    schema = by_kind["grid_limit"]["schema"]
    assert schema["properties"]["generator_start_delay_s"]["title"] == "Generator start delay (s)"
    assert schema["properties"]["pod_priorities"]["x-key-picker"] == "pod"


def test_a_finished_run_explains_itself_and_a_queued_one_does_not(viewer_client, scenario):
    queued = runs.launch_run(scenario, replicas=2, seed=1)
    assert viewer_client.get(f"/api/runs/{queued.pk}/").json()["explanation"] == []
    run = run_all(queued)
    body = viewer_client.get(f"/api/runs/{run.pk}/").json()
    ettr = body["summary"]["metrics"]["ettr"]["mean"]
    assert body["explanation"][0] == (
        f"Goodput: the job did useful training for {catalogue.pct(ettr)} of the 5 days (effective training "
        "time ratio)."
    )
    # the list answers the same sentences
    listed = viewer_client.get(f"/api/runs/?scenario={scenario.pk}").json()["results"][0]
    assert listed["explanation"] == body["explanation"]


def test_series_come_with_their_labels(viewer_client, campus, planner):
    scenario = Scenario.objects.create(
        campus=campus, kind="power_capping", name="Caps", params={"duration_hours": 2}, owner=planner
    )
    run: Run = run_all(runs.launch_run(scenario, replicas=1, seed=1))
    index = viewer_client.get(f"/api/runs/{run.pk}/timeseries/").json()
    assert index["labels"]["facility_kw"] == "Facility power (kW)"
    assert set(index["labels"]) == set(index["metrics"])
    one = viewer_client.get(f"/api/runs/{run.pk}/timeseries/?metric=throughput_pflops").json()
    assert one["label"] == "Throughput (PFLOPS)"
