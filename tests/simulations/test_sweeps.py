"""Sweeps: the grid checked before anything is stored, replicas of every point through the run machinery, one
summary per point equal to a plain run of the point's parameters, and the physics the points must follow
(Young 1974 / Daly 2006 for checkpoint intervals; a lower power cap never draws more power)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulations import runs
from simulations.choices import RunStatus
from simulations.engine.runner import prepare, replica_seed
from simulations.models import ReplicaResult, Run, RunChunk, Scenario
from simulations.runs import config, sweeps
from simulations.tasks import reap_stale_runs, run_chunk
from tests.engine.builders import campus as engine_campus

from .helpers import run_all, start

# ---------------------------------------------------------------- the grid, without a database


def test_a_range_gives_num_evenly_spaced_values_with_both_ends():
    spec = sweeps.normalise(
        "failure_cascade",
        {},
        {"parameters": [{"name": "checkpoint_interval_minutes", "start": 30, "stop": 240, "num": 4}]},
        5,
    )
    assert spec["parameters"][0]["values"] == [30.0, 100.0, 170.0, 240.0]
    assert spec["points"] == [{"checkpoint_interval_minutes": v} for v in (30.0, 100.0, 170.0, 240.0)]
    assert spec["replicas_per_point"] == 5
    steps = sweeps.normalise(
        "failure_cascade",
        {},
        {"parameters": [{"name": "checkpoint_interval_minutes", "start": 30, "stop": 240, "steps": 4}]},
        5,
    )
    assert steps == spec


def test_two_parameters_make_the_product_grid_first_parameter_slowest():
    spec = sweeps.normalise(
        "failure_cascade",
        {"duration_days": 5},
        {
            "parameters": [
                {"name": "checkpoint_interval_minutes", "values": [30, 60, 120]},
                {"name": "recovery", "values": ["checkpoint_restart", "in_memory"]},
            ]
        },
        2,
    )
    assert len(spec["points"]) == 6
    assert spec["points"][1] == {"checkpoint_interval_minutes": 30, "recovery": "in_memory"}
    assert spec["points"][2] == {"checkpoint_interval_minutes": 60, "recovery": "checkpoint_restart"}


def test_nested_paths_reach_list_entries_and_optional_objects():
    spec = sweeps.normalise(
        "power_capping", {}, {"parameters": [{"name": "caps[0].cap_fraction", "values": [0.5, 0.9]}]}, 1
    )
    assert sweeps.point_params("power_capping", {}, spec, 1)["caps"][0]["cap_fraction"] == 0.9
    spec = sweeps.normalise(
        "power_dynamics", {}, {"parameters": [{"name": "bess.energy_mwh", "values": [0, 10]}]}, 1
    )
    assert sweeps.point_params("power_dynamics", {}, spec, 1)["bess"]["energy_mwh"] == 10


@pytest.mark.parametrize(
    ("sweep", "field"),
    [
        ({"parameters": [{"name": "checkpoint_minutes", "values": [1]}]}, "sweep.parameters[0].name"),
        (
            {"parameters": [{"name": "recovery_strategy", "values": ["in_memory"]}]},
            "sweep.parameters[0].name",
        ),
        ({"parameters": [{"name": "caps[3].cap_fraction", "values": [0.5]}]}, "sweep.parameters[0].name"),
        ({"parameters": [{"name": "1abc", "values": [1]}]}, "sweep.parameters[0].name"),
        ({"parameters": [{"name": "duration_days", "values": [5, -1]}]}, "sweep.parameters[0].values[1]"),
        (
            {"parameters": [{"name": "recovery", "values": ["in_memory", "magic"]}]},
            "sweep.parameters[0].values[1]",
        ),
        ({"parameters": [{"name": "duration_days", "values": [5, 5]}]}, "sweep.parameters[0].values[1]"),
        ({"parameters": [{"name": "duration_days", "values": []}]}, "sweep.parameters[0].values"),
        ({"parameters": [{"name": "duration_days", "start": 1, "stop": 2}]}, "sweep.parameters[0].num"),
        (
            {"parameters": [{"name": "duration_days", "start": "a", "stop": 2, "num": 3}]},
            "sweep.parameters[0].start",
        ),
        (
            {"parameters": [{"name": "duration_days", "start": 1, "stop": 2, "num": 3, "steps": 3}]},
            "sweep.parameters[0].steps",
        ),
        (
            {"parameters": [{"name": "recovery", "start": 1, "stop": 2, "num": 3}]},
            "sweep.parameters[0].start",
        ),
        ({"parameters": [{"name": "duration_days", "values": [1], "start": 1}]}, "sweep.parameters[0]"),
        (
            {"parameters": [{"name": "duration_days", "values": [1], "colour": 1}]},
            "sweep.parameters[0].colour",
        ),
        (
            {
                "parameters": [
                    {"name": "duration_days", "values": [1]},
                    {"name": "duration_days", "values": [2]},
                ]
            },
            "sweep.parameters[1].name",
        ),
        ({"parameters": []}, "sweep.parameters"),
        ({"parameters": [{"name": "a", "values": [1]}] * 3}, "sweep.parameters"),
        ({"axes": []}, "sweep.axes"),
        ([1, 2], "sweep"),
    ],
)
def test_a_bad_sweep_is_named_by_its_place(sweep, field):
    kind = "power_capping" if "caps" in str(sweep) else "failure_cascade"
    with pytest.raises(sweeps.SweepError) as exc:
        sweeps.normalise(kind, {}, sweep, 3)
    assert field in exc.value.errors, exc.value.errors


def test_whole_number_parameters_take_only_whole_values_from_a_range():
    spec = sweeps.normalise(
        "heat_wave", {}, {"parameters": [{"name": "days", "start": 1, "stop": 7, "num": 4}]}, 1
    )
    assert spec["parameters"][0]["values"] == [1, 3, 5, 7]
    with pytest.raises(sweeps.SweepError) as exc:
        sweeps.normalise(
            "heat_wave", {}, {"parameters": [{"name": "days", "start": 1, "stop": 7, "num": 5}]}, 1
        )
    assert "sweep.parameters[0].num" in exc.value.errors


def test_a_point_valid_value_by_value_but_not_together_is_refused():
    # Each value alone fits (no start day: the hottest stretch); day 360 with 7 days runs past the year's end.
    with pytest.raises(sweeps.SweepError) as exc:
        sweeps.normalise(
            "heat_wave",
            {},
            {"parameters": [{"name": "start_day", "values": [100, 360]}, {"name": "days", "values": [2, 7]}]},
            1,
        )
    assert "sweep" in exc.value.errors
    assert "start_day = 360, days = 7" in exc.value.errors["sweep"][0]


def test_points_times_replicas_is_bounded():
    points = min(100, sweeps.MAX_POINTS)
    per = sweeps.MAX_REPLICAS // points + 1
    sweep = {"parameters": [{"name": "duration_days", "start": 1, "stop": points, "num": points}]}
    assert len(sweeps.normalise("failure_cascade", {}, sweep, per - 1)["points"]) == points
    with pytest.raises(sweeps.SweepError) as exc:
        sweeps.normalise("failure_cascade", {}, sweep, per)
    assert "TWIN_SWEEP_MAX_REPLICAS" in exc.value.errors["sweep"][0]


@pytest.mark.parametrize(
    ("kind", "name", "campus_things"),
    [
        ("power_capping", "caps[0].gpu_model", True),
        ("power_capping", "caps[0].cap_fraction", False),
        ("failure_cascade", "gpu_models", True),
        ("failure_cascade", "checkpoint_interval_minutes", False),
        ("power_dynamics", "jobs[0].pods", True),
        ("liquid_cooling", "events[0].target_id", True),
        ("liquid_cooling", "events[0].repair_minutes", False),
        ("grid_limit", "pod_priorities", True),
    ],
)
def test_the_parameters_tried_on_the_campus_are_those_naming_its_things(kind, name, campus_things):
    from simulations.engine.params import params_json_schema

    assert sweeps.names_campus_things(params_json_schema(kind), sweeps.parse_path(name)) is campus_things


@settings(max_examples=25, deadline=None)
@given(points=st.integers(1, 12), per=st.integers(1, 40), size=st.integers(1, 30))
def test_chunks_cover_every_replica_once_and_never_span_two_points(points, per, size):
    spec = {"points": [{}] * points, "replicas_per_point": per}
    cut = sweeps.chunks(spec, size)
    assert sorted(i for c in cut for i in c) == list(range(points * per))
    for c in cut:
        assert len(c) <= size
        assert len({sweeps.locate(spec, i)[0] for i in c}) == 1


# ---------------------------------------------------------------- physics, pure engine


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    low=st.floats(0.2, 1.5, allow_nan=False),
    high=st.floats(0.2, 1.5, allow_nan=False),
    utilization=st.floats(0.0, 1.0),
)
def test_a_lower_power_cap_never_draws_more_power(low, high, utilization):
    low, high = sorted((low, high))
    snap = _ENGINE_SNAP
    params = {"duration_hours": 2, "utilization": utilization}
    drawn = [
        prepare(snap, "power_capping", {**params, "caps": [{"cap_fraction": c}]}).run(0).metrics
        for c in (low, high)
    ]
    for metric in ("mean_it_mw", "mean_facility_mw", "peak_facility_mw", "energy_facility_mwh"):
        assert drawn[0][metric] <= drawn[1][metric] + 1e-9, metric


_ENGINE_SNAP = engine_campus()


# ---------------------------------------------------------------- through the API and the run machinery

pytestmark_db = pytest.mark.django_db


@pytest.fixture
def capping(campus, planner):
    return Scenario.objects.create(
        campus=campus, kind="power_capping", name="Caps", params={"duration_hours": 6}, owner=planner
    )


@pytestmark_db
def test_the_api_queues_a_sweep_with_every_point(planner_client, scenario):
    body = {
        "replicas": 3,
        "seed": 4,
        "sweep": {
            "parameters": [
                {"name": "checkpoint_interval_minutes", "values": [30, 120]},
                {"name": "recovery", "values": ["checkpoint_restart", "in_memory"]},
            ]
        },
    }
    r = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", body, format="json")
    assert r.status_code == 202, r.content
    run = Run.objects.get(pk=r.json()["id"])
    assert run.replicas == 12
    assert r.json()["sweep"]["replicas_per_point"] == 3
    assert len(r.json()["sweep"]["points"]) == 4


@pytestmark_db
@pytest.mark.parametrize(
    ("sweep", "field"),
    [
        (
            {"parameters": [{"name": "recovery_strategy", "values": ["in_memory"]}]},
            "sweep.parameters[0].name",
        ),
        (
            {"parameters": [{"name": "checkpoint_interval_minutes", "values": [30, 0]}]},
            "sweep.parameters[0].values[1]",
        ),
        (
            {"parameters": [{"name": "gpu_models", "values": [["h100-sxm"], ["nope"]]}]},
            "sweep.parameters[0].values[1]",
        ),
    ],
)
def test_the_api_refuses_a_bad_sweep_naming_the_field_and_stores_nothing(
    planner_client, scenario, sweep, field
):
    r = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"sweep": sweep}, format="json")
    assert r.status_code == 400, r.content
    assert field in r.json(), r.json()
    assert not Run.objects.exists()


@pytestmark_db
def test_the_api_refuses_an_unknown_field_of_a_run_request(planner_client, scenario):
    r = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"sweeep": {}}, format="json")
    assert r.status_code == 400
    assert "sweeep" in r.json()
    assert not Run.objects.exists()


@pytestmark_db
def test_the_api_refuses_a_swept_value_the_campus_cannot_run(planner_client, capping):
    sweep = {"parameters": [{"name": "caps[0].gpu_model", "values": ["h100-sxm", "b200-nope"]}]}
    r = planner_client.post(f"/api/scenarios/{capping.pk}/run/", {"sweep": sweep}, format="json")
    assert r.status_code == 400, r.content
    assert "sweep.parameters[0].values[1]" in r.json()
    assert not Run.objects.exists()


@pytestmark_db
def test_each_point_equals_a_plain_run_of_its_parameters_with_the_same_seed(capping, campus, planner):
    # power_capping is deterministic: one replica per point, and each point must match a separately
    # launched run of a scenario whose cap is that point's.
    values = [0.5, 0.7, 0.9, 1.1]
    sweep = {"parameters": [{"name": "caps[0].cap_fraction", "values": values}]}
    run = run_all(runs.launch_run(capping, replicas=5, seed=21, sweep=sweep))
    assert run.status == RunStatus.SUCCEEDED
    assert run.replicas == len(values)  # deterministic: one replica per point
    points = run.summary["points"]
    assert [p["params"] for p in points] == [{"caps[0].cap_fraction": v} for v in values]
    for value, point in zip(values, points, strict=True):
        single = Scenario.objects.create(
            campus=campus,
            kind="power_capping",
            name=f"cap {value}",
            params={"duration_hours": 6, "caps": [{"cap_fraction": value}]},
            owner=planner,
        )
        plain = run_all(runs.launch_run(single, seed=21))
        assert point["summary"] == plain.summary["metrics"]
    # Physics across the points: a lower cap never draws more power.
    power = [p["summary"]["mean_it_mw"]["mean"] for p in points]
    assert power == sorted(power)
    assert power[0] < power[-1]


@pytestmark_db
def test_a_stochastic_point_matches_a_plain_run_replica_for_replica(scenario, campus, planner):
    sweep = {"parameters": [{"name": "checkpoint_interval_minutes", "values": [45, 180]}]}
    run = run_all(runs.launch_run(scenario, replicas=4, seed=8, sweep=sweep), reverse=True)
    assert run.status == RunStatus.SUCCEEDED
    assert run.replicas_done == 8
    seeds = list(ReplicaResult.objects.filter(run=run).order_by("index").values_list("seed", flat=True))
    assert seeds == [replica_seed(8, i) for i in range(4)] * 2  # every point on the same seeds
    single = Scenario.objects.create(
        campus=campus,
        kind="failure_cascade",
        name="180 min",
        params={"duration_days": 5, "checkpoint_interval_minutes": 180},
        owner=planner,
    )
    plain = run_all(runs.launch_run(single, replicas=4, seed=8))
    assert run.summary["points"][1]["summary"] == plain.summary["metrics"]
    assert "2 points with 4 replicas each" in " ".join(runs.explanation(run))


def _daly_ettr(rate: float, tau: float, delta: float, restart: float) -> float:
    """Daly (2006), eq. 12: expected wall time per committed segment of tau hours of compute, exponential
    failures at ``rate``: exp(rate R) (exp(rate (tau + delta)) - 1) / rate."""
    wall = math.exp(rate * restart) * (math.exp(rate * (tau + delta)) - 1.0) / rate
    return tau / wall


def _lost_per_failure(rate: float, period: float, restart: float) -> float:
    """Time since the last completed checkpoint when a Poisson failure strikes: the mean of an exponential
    truncated to one period T, 1/rate - T / (exp(rate T) - 1) (tends to T/2), plus the restart R."""
    return 1.0 / rate - period / math.expm1(rate * period) + restart


@pytestmark_db
def test_a_checkpoint_interval_sweep_follows_young_and_daly(campus, planner):
    # The job's GPUs fail with an MTBF of 128 x 20 h (job MTBF about 20 h with the rest of the rate set);
    # checkpoint write 6 min and restart 12 min. Young's optimum sqrt(2 x 0.1 h x 20 h) = 2 h.
    scenario = Scenario.objects.create(
        campus=campus,
        kind="failure_cascade",
        name="Young/Daly",
        params={
            "duration_days": 200,
            "include_infrastructure": False,
            "checkpoint_write_minutes": 6,
            "restart_minutes": 12,
            "rate_overrides": {"gpu": 128 * 20.0},
        },
        owner=planner,
    )
    sweep = {"parameters": [{"name": "checkpoint_interval_minutes", "values": [30, 120, 480]}]}
    run = run_all(runs.launch_run(scenario, replicas=8, seed=3, sweep=sweep))
    assert run.status == RunStatus.SUCCEEDED
    write_h, restart_h = 0.1, 0.2
    ettr = []
    for point in run.summary["points"]:
        s = point["summary"]
        tau = point["params"]["checkpoint_interval_minutes"] / 60.0
        rate = 1.0 / s["job_mtbf_hours_expected"]["mean"]
        assert 1 / 25 < rate < 1 / 15  # the job MTBF the scenario means
        half = s["ettr"]["ci95_high"] - s["ettr"]["mean"]
        expected = _daly_ettr(rate, tau, write_h, restart_h)
        # twice the 95 % half-width, plus one unfinished segment at the end of 4,800 h
        assert abs(s["ettr"]["mean"] - expected) < 2 * half + (tau + write_h) / 4800, (tau, expected)
        lost = s["mean_lost_hours_per_interruption"]
        expected_lost = _lost_per_failure(rate, tau + write_h, restart_h)
        # failures during a restart (about rate x R = 1 % of them) lose no work: a 2 % margin covers them
        margin = 2 * (lost["ci95_high"] - lost["mean"]) + 0.02 * expected_lost
        assert abs(lost["mean"] - expected_lost) < margin, (tau, expected_lost)
        ettr.append(s["ettr"]["mean"])
    # The interval nearest Young's optimum (120 min) keeps the most of the job's time.
    assert ettr[1] > ettr[0] and ettr[1] > ettr[2]
    young = math.sqrt(2 * write_h * (1.0 / rate)) * 60
    assert 100 < young < 140


@pytestmark_db
def test_progress_counts_every_replica_of_every_point(scenario):
    sweep = {"parameters": [{"name": "checkpoint_interval_minutes", "values": [30, 60, 90]}]}
    run = runs.launch_run(scenario, replicas=4, seed=1, sweep=sweep)
    chunks = start(run)
    run_chunk(run.pk, chunks[0].indices, chunks[0].number)
    run.refresh_from_db()
    assert run.replicas == 12
    assert run.progress == pytest.approx(len(chunks[0].indices) / 12)


@pytestmark_db
def test_the_reaper_recovers_a_sweep_whose_worker_died(scenario, django_capture_on_commit_callbacks):
    sweep = {"parameters": [{"name": "checkpoint_interval_minutes", "values": [30, 60, 90]}]}
    run = runs.launch_run(scenario, replicas=30, seed=2, sweep=sweep)
    chunks = start(run)
    assert len(chunks) > 3
    dead = chunks[1]
    for chunk in chunks:
        if chunk.pk != dead.pk:
            run_chunk(run.pk, chunk.indices, chunk.number)
    past = timezone.now() - timedelta(seconds=config.STALE_S + 10)
    RunChunk.objects.filter(pk=dead.pk).update(state=RunChunk.State.RUNNING, heartbeat=past, dispatched=past)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        report = reap_stale_runs()
    assert report["requeued"] == [run.pk]
    assert len(sent) == 1
    run_chunk(run.pk, dead.indices, dead.number)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert ReplicaResult.objects.filter(run=run).count() == 90
    assert [p["replicas"] for p in run.summary["points"]] == [30, 30, 30]
