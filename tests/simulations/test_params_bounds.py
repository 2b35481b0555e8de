"""Bad scenario parameters are a 400 naming the field (``params.<path>``), never a run that fails later:
durations, steps and sizes have documented maxima (docs/scenarios.md, "Bounds"), an event must start within
its run, checks across fields are keyed on the field they concern, and a filter's boolean is true or
false."""

import pytest

from campus.models import Pod
from simulations import runs
from simulations.models import Scenario

from .campus_builder import add_cdu
from .helpers import run_all

pytestmark = pytest.mark.django_db


def post(client, campus, kind, params):
    return client.post(
        "/api/scenarios/",
        {"campus": campus.pk, "kind": kind, "name": "bounds", "params": params},
        format="json",
    )


def errors(response) -> dict:
    assert response.status_code == 400, response.content
    return response.json()["params"]


@pytest.mark.parametrize(
    ("kind", "field", "limit"),
    [
        ("power_capping", "duration_hours", 8760),  # a year of hours
        ("grid_limit", "duration_hours", 8760),
        ("liquid_cooling", "duration_minutes", 10080),  # a week of minutes, 7 x 24 x 60
        ("failure_cascade", "duration_days", 3650),  # ten years
    ],
)
def test_a_duration_past_its_maximum_is_a_400_on_it(planner_client, campus, kind, field, limit):
    add_cdu(campus)
    bad = errors(post(planner_client, campus, kind, {field: 1e308}))
    assert list(bad) == [field]
    assert str(limit) in bad[field][0]


def test_a_grid_limit_of_too_many_steps_is_a_400_on_step_minutes(planner_client, campus):
    # 1,000 h at 0.0001 min: 1,000 x 60 / 0.0001 = 600,000,000 steps, 600 times the 1,000,000 allowed; the
    # least step for 1,000 h is 1,000 x 60 / 1,000,000 = 0.06 min.
    bad = errors(post(planner_client, campus, "grid_limit", {"duration_hours": 1000, "step_minutes": 0.0001}))
    assert bad == {
        "step_minutes": [
            "1000 h at 0.0001 min is 600,000,000 steps; at most 1,000,000: a step of at least 0.06 min"
        ]
    }
    ok = post(
        planner_client, campus, "grid_limit", {"duration_hours": 1000, "step_minutes": 0.06, "events": []}
    )
    assert ok.status_code == 201, ok.json()


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("grid_limit", {"duration_hours": 24, "events": [{"start_hours": 30}]}, "events[0].start_hours"),
        (
            "grid_limit",
            {
                "capacity_schedule": [
                    {"start_hours": 2, "capacity_kw": 100},
                    {"start_hours": 24, "capacity_kw": 50},
                ]
            },
            "capacity_schedule[1].start_hours",
        ),
        (
            "liquid_cooling",
            {"duration_minutes": 120, "events": [{"at_minutes": 5}, {"at_minutes": 500}]},
            "events[1].at_minutes",
        ),
        (
            "power_capping",
            {"duration_hours": 24, "schedule": [{"start_hours": 30, "caps": [{"cap_fraction": 0.8}]}]},
            "schedule[0].start_hours",
        ),
    ],
)
def test_an_event_after_the_run_ends_is_a_400_on_its_start(planner_client, campus, kind, params, field):
    add_cdu(campus)
    bad = errors(post(planner_client, campus, kind, params))
    assert list(bad) == [field]
    assert "not before the run ends" in bad[field][0]


def test_a_pause_priority_for_a_pod_the_campus_lacks_is_a_400(planner_client, campus):
    bad = errors(post(planner_client, campus, "grid_limit", {"pod_priorities": {"99999": 1}}))
    assert bad == {"pod_priorities": ["no pod 99999 in the campus"]}
    pod = Pod.objects.filter(campus=campus).first()
    assert post(planner_client, campus, "grid_limit", {"pod_priorities": {str(pod.pk): 1}}).status_code == 201


def test_a_grid_capacity_of_zero_is_a_real_limit(planner_client, campus):
    # capacity_kw 0: the grid gives nothing, so the whole demand is short in every step (shortfall = demand -
    # limit with a limit of 0). The demand's energy comes by another path: the same campus under a limit it
    # never reaches (10 GW) draws all of it from the grid, so its grid energy is the demand energy.
    def metrics(capacity_kw: float) -> dict:
        params = {"capacity_kw": capacity_kw, "events": [], "duration_hours": 2}
        created = post(planner_client, campus, "grid_limit", params)
        assert created.status_code == 201, created.json()
        scenario = Scenario.objects.get(pk=created.json()["id"])
        run = run_all(runs.launch_run(scenario, replicas=1, seed=1))
        assert run.status == "succeeded", run.error
        scenario.delete()
        return {k: v["mean"] for k, v in run.summary["metrics"].items()}

    dark, roomy = metrics(0), metrics(1e7)
    assert roomy["shortfall_mwh"] == 0
    assert dark["shortfall_mwh"] == pytest.approx(roomy["grid_energy_mwh"], rel=1e-9)
    assert dark["shortfall_mwh"] > 0


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("failure_cascade", {"checkpoint_interval_minutes": 0}, "checkpoint_interval_minutes"),
        (
            "grid_limit",
            {
                "capacity_schedule": [
                    {"start_hours": 5, "capacity_kw": 100},
                    {"start_hours": 1, "capacity_kw": 50},
                ]
            },
            "capacity_schedule",
        ),
        (
            "power_capping",
            {
                "schedule": [
                    {"start_hours": 5, "caps": [{"cap_fraction": 0.8}]},
                    {"start_hours": 1, "caps": [{"cap_fraction": 0.7}]},
                ]
            },
            "schedule",
        ),
        ("power_dynamics", {"requirements": {"band_hz": [3.0, 0.1]}}, "requirements.band_hz"),
    ],
)
def test_a_check_across_fields_is_keyed_on_its_field(planner_client, campus, kind, params, field):
    bad = errors(post(planner_client, campus, kind, params))
    assert list(bad) == [field], bad


def test_a_flag_filter_that_is_not_a_boolean_is_a_400(viewer_client, planner_client):
    for url in ("/api/runs/?flagged=maybe", "/api/schedules/?enabled=maybe"):
        response = viewer_client.get(url)
        assert response.status_code == 400, (url, response.content)
        name = url.split("?")[1].split("=")[0]
        assert list(response.json()) == [name]
    for value in ("true", "false", "1", "0"):
        assert viewer_client.get(f"/api/runs/?flagged={value}").status_code == 200


def test_an_mtbf_override_under_an_hour_is_a_400_on_its_key(planner_client, campus):
    # A GPU failing every 0.01 h (36 s) is no component's MTBF; it made the run's expected ETTR overflow.
    bad = errors(post(planner_client, campus, "failure_cascade", {"rate_overrides": {"gpu": 0.01}}))
    assert list(bad) == ["rate_overrides.gpu"]


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        # each made a run whose figures are not finite (inf energy or cost, a division by zero) or too large
        # to compute (a Welch segment of 8 / 1e-300 s)
        ("power_capping", {"pue": 1e308}, "pue"),
        ("power_capping", {"price_usd_per_kwh": 1e308}, "price_usd_per_kwh"),
        ("grid_limit", {"pue": 1e308}, "pue"),
        ("power_dynamics", {"smoothing": {"ramp_up_w_per_s": 1e308}}, "smoothing.ramp_up_w_per_s"),
        ("power_dynamics", {"requirements": {"band_hz": [1e-300, 3.0]}}, "requirements.band_hz"),
        ("liquid_cooling", {"residual_conductance_fraction": 0}, "residual_conductance_fraction"),
    ],
)
def test_a_value_the_engine_cannot_compute_with_is_a_400_on_it(planner_client, campus, kind, params, field):
    add_cdu(campus)
    assert list(errors(post(planner_client, campus, kind, params))) == [field]
