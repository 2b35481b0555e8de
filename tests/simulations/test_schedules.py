import json

import pytest
from django_celery_beat.models import PeriodicTask

from simulations.models import Run, Schedule
from simulations.runs import config, launch_run
from simulations.schedules import REAPER_NAME, REAPER_TASK, RUN_SCHEDULE_TASK
from simulations.tasks import run_schedule

from .helpers import run_all

pytestmark = pytest.mark.django_db


def make_schedule(scenario, **extra) -> Schedule:
    fields = {"name": "nightly", "crontab": "30 2 * * 1-5", "replicas": 3, **extra}
    return Schedule.objects.create(scenario=scenario, **fields)


def test_saving_a_schedule_creates_its_periodic_task(scenario):
    schedule = make_schedule(scenario)
    task = PeriodicTask.objects.get(pk=schedule.periodic_task_id)
    assert task.task == RUN_SCHEDULE_TASK
    assert json.loads(task.args) == [schedule.pk]
    assert task.enabled
    cron = task.crontab
    assert (cron.minute, cron.hour, cron.day_of_month, cron.month_of_year, cron.day_of_week) == (
        "30",
        "2",
        "*",
        "*",
        "1-5",
    )
    assert task.interval is None


def test_changing_a_schedule_updates_the_same_periodic_task(scenario):
    schedule = make_schedule(scenario)
    task_id = schedule.periodic_task_id
    schedule.crontab = ""
    schedule.interval_seconds = 600
    schedule.enabled = False
    schedule.save()
    task = PeriodicTask.objects.get(pk=task_id)
    assert task.crontab is None
    assert (task.interval.every, task.interval.period) == (600, "seconds")
    assert not task.enabled
    assert PeriodicTask.objects.filter(task=RUN_SCHEDULE_TASK).count() == 1


def test_deleting_a_schedule_deletes_its_periodic_task(scenario):
    schedule = make_schedule(scenario)
    task_id = schedule.periodic_task_id
    schedule.delete()
    assert not PeriodicTask.objects.filter(pk=task_id).exists()


def test_deleting_the_scenario_removes_the_schedules_periodic_tasks(scenario):
    task_id = make_schedule(scenario).periodic_task_id
    scenario.delete()
    assert not PeriodicTask.objects.filter(pk=task_id).exists()


def test_api_delete_of_a_schedule_keeps_its_runs(admin_client_api, scenario):
    schedule = make_schedule(scenario)
    run_schedule(schedule.pk)
    assert admin_client_api.delete(f"/api/schedules/{schedule.pk}/").status_code == 204
    assert Run.objects.filter(scenario=scenario, schedule__isnull=True).count() == 1


def test_the_reaper_is_on_beats_timetable():
    task = PeriodicTask.objects.get(name=REAPER_NAME)
    assert task.task == REAPER_TASK
    assert task.enabled
    assert task.interval.every * {"seconds": 1, "minutes": 60}[task.interval.period] <= config.STALE_S


def test_each_firing_creates_a_new_run(scenario):
    schedule = make_schedule(scenario, seed=4)
    first, second = run_schedule(schedule.pk), run_schedule(schedule.pk)
    runs = Run.objects.filter(schedule=schedule)
    assert sorted(runs.values_list("pk", flat=True)) == sorted([first, second])
    assert all(r.replicas == 3 and r.seed == 4 for r in runs)


def test_a_disabled_schedule_creates_no_run(scenario):
    schedule = make_schedule(scenario, enabled=False)
    assert run_schedule(schedule.pk) is None
    assert not Run.objects.exists()


def run_scheduled(scenario, thresholds) -> Run:
    schedule = make_schedule(scenario, thresholds=thresholds, seed=8)
    return run_all(Run.objects.get(pk=run_schedule(schedule.pk)))


def test_a_run_that_breaks_a_threshold_is_flagged_with_the_reason(scenario):
    # ETTR is a share of wall time: it can never exceed 1, so "< 1.5" always holds and "> 1.5" never does.
    run = run_scheduled(
        scenario,
        [
            {"metric": "ettr", "op": "<", "value": 1.5},
            {"metric": "ettr", "op": ">", "value": 1.5, "stat": "p95"},
        ],
    )
    assert run.flagged
    (reason,) = run.flag_reasons
    assert (reason["metric"], reason["op"], reason["stat"]) == ("ettr", "<", "mean")
    assert reason["actual"] == pytest.approx(run.summary["metrics"]["ettr"]["mean"])


def test_a_run_within_its_thresholds_is_not_flagged(scenario):
    run = run_scheduled(scenario, [{"metric": "ettr", "op": "<", "value": 0.0}])
    assert run.status == "succeeded"
    assert not run.flagged
    assert run.flag_reasons == []


def test_a_threshold_on_a_metric_the_run_lacks_flags_the_run(scenario):
    run = run_scheduled(scenario, [{"metric": "etr", "op": "<", "value": 0.9}])
    assert run.flagged
    assert "not in the results" in run.flag_reasons[0]["message"]


def test_campus_headroom_threshold_reads_the_campus_summary(scenario):
    # The test campus draws far less than its 5 MW grid connection: headroom is positive.
    run = run_scheduled(
        scenario,
        [
            {"metric": "campus.power.grid_headroom_mw", "op": "<", "value": 0},
            {"metric": "campus.power.grid_headroom_mw", "op": ">", "value": 0},
        ],
    )
    (reason,) = run.flag_reasons
    assert reason["op"] == ">"
    assert 0 < reason["actual"] < 5.0


def test_unscheduled_runs_are_never_flagged(scenario):
    run = run_all(launch_run(scenario, replicas=2, seed=1))
    assert not run.flagged


def test_the_app_config_connects_the_schedule_receivers_and_models_import_nothing_for_side_effects():
    import ast
    from pathlib import Path

    from django.db.models.signals import post_delete, post_save

    import simulations.models

    assert post_save.has_listeners(Schedule) and post_delete.has_listeners(Schedule)
    tree = ast.parse(Path(simulations.models.__file__).read_text())
    imported = {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    assert not imported & {"schedules", "sync_periodic_task"}


class _Receiver:
    """A webhook receiver on this machine's loopback: it keeps what it is POSTed."""

    def __init__(self):
        import http.server
        import threading

        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers["Content-Length"])
                received.append((self.headers["Content-Type"], json.loads(self.rfile.read(length))))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.handle_request, daemon=True)
        self.thread.start()

    def close(self):
        self.thread.join(timeout=5)
        self.server.server_close()


def test_a_flagged_scheduled_run_is_posted_to_its_webhook(scenario, django_capture_on_commit_callbacks):
    from simulations.runs import notify

    receiver = _Receiver()
    try:
        schedule = make_schedule(
            scenario,
            thresholds=[{"metric": "ettr", "op": "<", "value": 1.5}],
            seed=8,
            webhook_url=receiver.url,
        )
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            run = run_all(Run.objects.get(pk=run_schedule(schedule.pk)))
        assert run.flagged
        # the POST is sent once the run's result is committed (one callback beyond the run's own)
        assert [c for c in callbacks if c.__qualname__.startswith("send_on_commit")]
        assert notify.post(run.pk) == 204
    finally:
        receiver.close()
    ((content_type, body),) = receiver.received
    assert content_type == "application/json"
    assert body["event"] == "run.threshold_crossed"
    assert body["run"]["id"] == run.pk and body["schedule"]["name"] == "nightly"
    assert body["crossed"][0]["metric"] == "ettr" and body["crossed"][0]["op"] == "<"


def test_a_run_within_its_thresholds_posts_nothing(scenario):
    from simulations.runs import notify

    schedule = make_schedule(
        scenario,
        thresholds=[{"metric": "ettr", "op": "<", "value": 0.0}],
        webhook_url="http://127.0.0.1:9/none",
    )
    run = run_all(Run.objects.get(pk=run_schedule(schedule.pk)))
    assert not run.flagged
    assert notify.post(run.pk) is None


def test_a_webhook_must_be_http_or_https(admin_client, scenario):
    response = admin_client.post(
        "/api/schedules/",
        {
            "scenario": scenario.pk,
            "name": "hooked",
            "crontab": "0 2 * * *",
            "webhook_url": "ftp://example.org/x",
        },
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "webhook_url" in response.json()
