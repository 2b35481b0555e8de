import pytest

from simulations import runs
from simulations.choices import RunStatus
from simulations.engine.params import KINDS, default_params
from simulations.models import DISPLAY_POINTS, Run, Scenario

from .campus_builder import add_cdu
from .helpers import run_all

pytestmark = pytest.mark.django_db


def finished_run(scenario, replicas=3, seed=1) -> Run:
    return run_all(runs.launch_run(scenario, replicas=replicas, seed=seed))


# ---------------------------------------------------------------- scenarios


def test_kinds_list_every_kind_with_schema_and_defaults(viewer_client):
    response = viewer_client.get("/api/scenarios/kinds/")
    assert response.status_code == 200
    by_kind = {k["kind"]: k for k in response.json()}
    assert set(by_kind) == set(KINDS)
    for kind, entry in by_kind.items():
        assert entry["defaults"] == default_params(kind)
        assert entry["schema"]["type"] == "object"
        assert set(entry["defaults"]) <= set(entry["schema"]["properties"])


@pytest.mark.parametrize("kind", KINDS)
def test_planner_creates_a_scenario_of_every_kind_with_empty_params(planner_client, campus, kind):
    if kind == "liquid_cooling":
        add_cdu(campus)  # the default event is the loss of a unit its redundancy group cannot cover
    response = planner_client.post(
        "/api/scenarios/", {"campus": campus.pk, "kind": kind, "name": f"{kind} baseline", "params": {}}
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["kind"], body["params"], body["owner"]) == (kind, {}, "planner")
    assert Scenario.objects.get(pk=body["id"]).campus_id == campus.pk


def test_params_may_be_left_out(planner_client, campus):
    response = planner_client.post(
        "/api/scenarios/", {"campus": campus.pk, "kind": "grid_limit", "name": "g"}
    )
    assert response.status_code == 201
    assert response.json()["params"] == {}


def test_bad_parameter_is_a_400_naming_its_path(planner_client, campus):
    response = planner_client.post(
        "/api/scenarios/",
        {
            "campus": campus.pk,
            "kind": "power_capping",
            "name": "bad",
            "params": {"caps": [{"cap_fraction": 9}]},
        },
    )
    assert response.status_code == 400
    errors = response.json()["params"]
    assert list(errors) == ["caps[0].cap_fraction"]
    assert not Scenario.objects.filter(name="bad").exists()


def test_unknown_kind_is_a_400_naming_kind(planner_client, campus):
    response = planner_client.post("/api/scenarios/", {"campus": campus.pk, "kind": "meteor", "name": "m"})
    assert response.status_code == 400
    assert "kind" in response.json()


def test_changing_the_kind_revalidates_the_params(planner_client, scenario):
    # duration_days belongs to failure_cascade, not to liquid_cooling.
    response = planner_client.patch(f"/api/scenarios/{scenario.pk}/", {"kind": "liquid_cooling"})
    assert response.status_code == 400
    assert "duration_days" in response.json()["params"]
    scenario.refresh_from_db()
    assert scenario.kind == "failure_cascade"


def test_duplicate_scenario_name_in_a_campus_is_a_400(planner_client, scenario):
    response = planner_client.post(
        "/api/scenarios/", {"campus": scenario.campus_id, "kind": "grid_limit", "name": scenario.name}
    )
    assert response.status_code == 400


def test_viewer_reads_but_cannot_write_scenarios(viewer_client, campus, scenario):
    assert viewer_client.get("/api/scenarios/").status_code == 200
    response = viewer_client.post("/api/scenarios/", {"campus": campus.pk, "kind": "grid_limit", "name": "x"})
    assert response.status_code == 403
    assert viewer_client.post(f"/api/scenarios/{scenario.pk}/run/", {}).status_code == 403


def test_anonymous_requests_are_refused(anon_client, scenario):
    assert anon_client.get("/api/scenarios/").status_code in (401, 403)
    assert anon_client.get("/api/runs/").status_code in (401, 403)


def test_scenarios_filter_by_campus_and_kind(viewer_client, scenario, campus):
    Scenario.objects.create(campus=campus, kind="grid_limit", name="grid")
    response = viewer_client.get(f"/api/scenarios/?campus={campus.pk}&kind=grid_limit")
    assert [s["name"] for s in response.json()["results"]] == ["grid"]


# ---------------------------------------------------------------- launching runs


def test_run_answers_202_with_a_queued_run(planner_client, scenario):
    response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"replicas": 25, "seed": 7})
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["replicas"], body["seed"], body["progress"]) == ("queued", 25, 7, 0.0)
    run = Run.objects.get(pk=body["id"])
    # The run keeps the full parameter set it was launched with.
    assert run.params["duration_days"] == 5
    assert run.params["recovery"] == default_params("failure_cascade")["recovery"]


def test_run_without_body_uses_defaults_and_a_fresh_seed(planner_client, scenario):
    a = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {}).json()
    b = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {}).json()
    assert a["replicas"] == 10
    assert a["seed"] != b["seed"]


@pytest.mark.parametrize("body", [{"replicas": 0}, {"replicas": 1001}, {"replicas": "many"}])
def test_replicas_out_of_range_is_a_400_naming_replicas(planner_client, scenario, body):
    response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", body)
    assert response.status_code == 400
    assert "replicas" in response.json()
    assert not Run.objects.exists()


def test_negative_seed_is_a_400_naming_seed(planner_client, scenario):
    response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"seed": -1})
    assert response.status_code == 400
    assert "seed" in response.json()


def test_scenario_edits_do_not_change_a_queued_run(planner_client, scenario):
    run_id = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {}).json()["id"]
    planner_client.patch(f"/api/scenarios/{scenario.pk}/", {"params": {"duration_days": 9}})
    assert Run.objects.get(pk=run_id).params["duration_days"] == 5


# ---------------------------------------------------------------- reading runs


def test_run_detail_shows_summary_once_finished(viewer_client, scenario):
    run = finished_run(scenario)
    body = viewer_client.get(f"/api/runs/{run.pk}/").json()
    assert body["status"] == "succeeded"
    assert body["progress"] == 1.0
    assert body["replicas_done"] == 3
    assert body["summary"]["metrics"]["ettr"]["n"] == 3
    assert body["kind"] == "failure_cascade"
    assert body["campus"] == scenario.campus_id


def test_runs_filter_by_status_kind_campus_scenario_and_flagged(viewer_client, scenario, campus):
    done = finished_run(scenario)
    other = Scenario.objects.create(campus=campus, kind="grid_limit", name="grid")
    queued = runs.launch_run(other, replicas=2)
    Run.objects.filter(pk=queued.pk).update(flagged=True)

    def ids(query: str) -> set[int]:
        return {r["id"] for r in viewer_client.get(f"/api/runs/?{query}").json()["results"]}

    assert ids("status=succeeded") == {done.pk}
    assert ids("status=queued") == {queued.pk}
    assert ids("kind=grid_limit") == {queued.pk}
    assert ids(f"scenario={scenario.pk}") == {done.pk}
    assert ids(f"campus={campus.pk}") == {done.pk, queued.pk}
    # a campus that does not exist is named as such, not answered with an empty page
    missing = viewer_client.get(f"/api/runs/?campus={campus.pk + 1000}")
    assert missing.status_code == 400
    assert missing.json()["campus"] == [
        f"There is no campus {campus.pk + 1000} (?campus= takes the id of an existing campus)."
    ]
    assert ids("flagged=true") == {queued.pk}


@pytest.mark.parametrize(
    "offset_hours, offset_text",
    # +20:40 is a valid ISO 8601 offset that PostgreSQL refuses (it takes at most +-15:59); -09:30 is an ordinary one
    [(20 + 40 / 60, "%2B20:40"), (-(9 + 30 / 60), "-09:30")],
)
def test_runs_filter_by_creation_time_means_the_same_instant_at_any_utc_offset(
    viewer_client, scenario, offset_hours, offset_text
):
    from datetime import UTC, timedelta

    run = runs.launch_run(scenario, replicas=1)
    created = Run.objects.get(pk=run.pk).created.astimezone(UTC)

    def ids(param: str, instant) -> set[int]:
        local = (instant + timedelta(hours=offset_hours)).replace(tzinfo=None).isoformat(timespec="seconds")
        response = viewer_client.get(f"/api/runs/?{param}={local}{offset_text}")
        assert response.status_code == 200, response.content
        return {r["id"] for r in response.json()["results"]}

    assert ids("created_after", created - timedelta(minutes=1)) == {run.pk}
    assert ids("created_after", created + timedelta(minutes=1)) == set()
    assert ids("created_before", created + timedelta(minutes=1)) == {run.pk}


def test_a_creation_time_outside_the_calendar_after_utc_conversion_is_a_400_naming_it(viewer_client):
    response = viewer_client.get("/api/runs/?created_after=0001-01-01T00:30:00%2B20:40")
    assert response.status_code == 400
    assert "created_after" in response.json()


def test_timeseries_without_metric_lists_the_metrics(viewer_client, scenario):
    run = finished_run(scenario)
    body = viewer_client.get(f"/api/runs/{run.pk}/timeseries/").json()
    assert body["run"] == run.pk
    assert "ettr" in body["metrics"]
    assert body["metrics"] == sorted(body["metrics"])


def test_timeseries_gives_the_display_copy_or_every_point(viewer_client, scenario):
    run = finished_run(scenario)
    series = run.series.get(metric="ettr")
    shown = viewer_client.get(f"/api/runs/{run.pk}/timeseries/?metric=ettr").json()
    assert shown["points"] == len(shown["t_hours"]) == len(shown["values"]) <= DISPLAY_POINTS
    full = viewer_client.get(f"/api/runs/{run.pk}/timeseries/?metric=ettr&full=1").json()
    assert full["full"] is True
    assert full["points"] == full["points_total"] == series.points
    assert full["t_hours"][0] == pytest.approx(shown["t_hours"][0])
    assert all(
        lo <= mid + 1e-6 and mid <= hi + 1e-6
        for lo, mid, hi in zip(full["p5"], full["values"], full["p95"], strict=True)
    )


def test_unknown_timeseries_metric_is_a_400_naming_metric(viewer_client, scenario):
    run = finished_run(scenario)
    response = viewer_client.get(f"/api/runs/{run.pk}/timeseries/?metric=nope")
    assert response.status_code == 400
    assert "nope" in response.json()["metric"][0]


def test_replicas_endpoint_pages_the_stored_replicas(viewer_client, scenario):
    run = finished_run(scenario, replicas=4)
    body = viewer_client.get(f"/api/runs/{run.pk}/replicas/?limit=3").json()
    assert body["count"] == 4
    assert [r["index"] for r in body["results"]] == [0, 1, 2]
    assert "ettr" in body["results"][0]["metrics"]


# ---------------------------------------------------------------- cancel


def test_cancel_a_queued_run_then_a_second_cancel_is_a_409(planner_client, scenario):
    run = runs.launch_run(scenario, replicas=5)
    response = planner_client.post(f"/api/runs/{run.pk}/cancel/")
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    again = planner_client.post(f"/api/runs/{run.pk}/cancel/")
    assert again.status_code == 409
    assert Run.objects.get(pk=run.pk).status == RunStatus.CANCELLED


def test_viewer_cannot_cancel(viewer_client, scenario):
    run = runs.launch_run(scenario, replicas=5)
    assert viewer_client.post(f"/api/runs/{run.pk}/cancel/").status_code == 403
    assert Run.objects.get(pk=run.pk).status == RunStatus.QUEUED


# ---------------------------------------------------------------- compare


def test_compare_puts_summaries_side_by_side_with_differences(viewer_client, scenario, campus):
    base = finished_run(scenario, replicas=3, seed=1)
    longer = Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="ten days", params={"duration_days": 10}
    )
    other = finished_run(longer, replicas=3, seed=1)
    body = viewer_client.get(f"/api/runs/compare/?ids={base.pk},{other.pk}").json()
    assert body["baseline"] == base.pk
    assert [r["id"] for r in body["runs"]] == [base.pk, other.pk]
    hours = body["metrics"]["useful_gpu_hours"]
    assert hours[0]["vs_baseline"] is None
    b_mean = base.summary["metrics"]["useful_gpu_hours"]["mean"]
    o_mean = other.summary["metrics"]["useful_gpu_hours"]["mean"]
    assert hours[1]["vs_baseline"]["mean_delta"] == pytest.approx(o_mean - b_mean)
    assert hours[1]["vs_baseline"]["mean_delta_pct"] == pytest.approx((o_mean - b_mean) / b_mean * 100)


def test_compare_names_the_inputs_that_differ_and_gives_a_share_in_points(viewer_client, scenario, campus):
    base = finished_run(scenario, replicas=3, seed=1)
    longer = Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="ten days", params={"duration_days": 10}
    )
    other = finished_run(longer, replicas=3, seed=2)
    body = viewer_client.get(f"/api/runs/compare/?ids={base.pk},{other.pk}").json()
    inputs = {row["path"]: row["values"] for row in body["inputs"]}
    assert inputs["params.duration_days"] == [base.params["duration_days"], 10]
    assert inputs["seed"] == [1, 2]  # random replicas: the seed is an input that matters
    labels = {row["path"]: row["label"] for row in body["inputs"]}
    assert labels["params.duration_days"] == "Duration (d)"  # the parameter's title, not its key
    assert labels["seed"] == "Seed"
    assert "replicas" not in inputs and "as_of" not in inputs
    # ETTR is a share: its change is in percentage points, never in % of the baseline
    b_mean = base.summary["metrics"]["ettr"]["mean"]
    o_mean = other.summary["metrics"]["ettr"]["mean"]
    ettr = body["metrics"]["ettr"][1]["vs_baseline"]
    assert ettr["mean_delta_pct"] is None
    assert ettr["mean_delta_points"] == pytest.approx((o_mean - b_mean) * 100)
    hours = body["metrics"]["useful_gpu_hours"][1]["vs_baseline"]
    assert hours["mean_delta_points"] is None


@pytest.mark.parametrize("query", ["", "ids=1", "ids=a,b", "ids=1,1"])
def test_compare_with_bad_ids_is_a_400_naming_ids(viewer_client, query):
    response = viewer_client.get(f"/api/runs/compare/?{query}")
    assert response.status_code == 400
    assert "ids" in response.json()


def test_compare_with_an_unknown_run_names_it(viewer_client, scenario):
    run = finished_run(scenario, replicas=2)
    response = viewer_client.get(f"/api/runs/compare/?ids={run.pk},{run.pk + 999}")
    assert response.status_code == 400
    assert str(run.pk + 999) in response.json()["ids"][0]


# ---------------------------------------------------------------- schedules


def schedule_body(scenario, **extra):
    return {"scenario": scenario.pk, "name": "nightly", "crontab": "0 2 * * *", "replicas": 5, **extra}


def test_only_admins_write_schedules(planner_client, admin_client_api, viewer_client, scenario):
    assert planner_client.post("/api/schedules/", schedule_body(scenario)).status_code == 403
    response = admin_client_api.post("/api/schedules/", schedule_body(scenario))
    assert response.status_code == 201, response.json()
    assert response.json()["periodic_task"] is not None
    assert viewer_client.get("/api/schedules/").json()["count"] == 1


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"crontab": "0 2 * *"}, "crontab"),
        ({"crontab": "", "interval_seconds": None}, "crontab"),
        ({"interval_seconds": 3600}, "crontab"),
        ({"thresholds": [{"metric": "ettr", "op": "=<", "value": 1}]}, "thresholds[0].op"),
        ({"replicas": 0}, "replicas"),
    ],
)
def test_bad_schedule_is_a_400_naming_the_field(admin_client_api, scenario, extra, field):
    response = admin_client_api.post("/api/schedules/", schedule_body(scenario, **extra))
    assert response.status_code == 400
    assert field in response.json()


def test_openapi_schema_documents_the_simulation_endpoints(viewer_client):
    response = viewer_client.get("/api/schema/?format=json")
    paths = response.json()["paths"]
    for path in (
        "/api/scenarios/kinds/",
        "/api/scenarios/{id}/run/",
        "/api/runs/{id}/cancel/",
        "/api/runs/{id}/timeseries/",
        "/api/runs/compare/",
        "/api/schedules/",
    ):
        assert path in paths
