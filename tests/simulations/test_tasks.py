"""The Celery tasks called as plain functions, in this process: the same code a worker runs."""

from datetime import timedelta

import pytest
from celery.exceptions import TimeLimitExceeded
from django.utils import timezone

from simulations import runs
from simulations.choices import RunStatus
from simulations.engine import runner
from simulations.models import ReplicaResult, Run, RunChunk, RunSeries, Scenario
from simulations.runs import config, execute, results
from simulations.tasks import reap_stale_runs, run_chunk, start_run

from .helpers import run_all, start

pytestmark = pytest.mark.django_db


def launch(scenario, replicas=6, seed=11) -> Run:
    return runs.launch_run(scenario, replicas=replicas, seed=seed)


def test_run_goes_from_queued_to_succeeded_with_summary_and_series(scenario):
    run = launch(scenario)
    assert run.status == RunStatus.QUEUED
    run = run_all(run)
    assert run.status == RunStatus.SUCCEEDED
    assert run.progress == 1.0
    assert run.replicas_done == run.replicas == ReplicaResult.objects.filter(run=run).count()
    assert run.summary["replicas"] == run.replicas
    ettr = run.summary["metrics"]["ettr"]
    assert ettr["n"] == run.replicas
    assert ettr["p5"] <= ettr["mean"] <= ettr["p95"] <= 1.0
    assert run.started <= run.finished
    assert run.snapshot is None  # freed once the run is finished
    assert RunSeries.objects.filter(run=run).exists()


def test_summary_matches_the_engine_aggregate_of_the_stored_replicas(scenario):
    run = run_all(launch(scenario, replicas=4))
    rows = ReplicaResult.objects.filter(run=run).order_by("index")
    expected = runner.aggregate(results.engine_results(list(rows)))
    assert run.summary["metrics"]["ettr"]["mean"] == pytest.approx(expected["ettr"]["mean"])


def test_replica_seeds_derive_from_the_run_seed_and_index(scenario):
    run = run_all(launch(scenario, replicas=3, seed=99))
    seeds = list(ReplicaResult.objects.filter(run=run).order_by("index").values_list("seed", flat=True))
    assert seeds == [runner.replica_seed(99, i) for i in range(3)]


def test_chunk_order_does_not_change_the_results(scenario):
    forward = run_all(launch(scenario, replicas=7, seed=5))
    backward = run_all(launch(scenario, replicas=7, seed=5), reverse=True)
    assert forward.summary["metrics"] == backward.summary["metrics"]


def test_different_seeds_give_different_replicas(scenario):
    a = run_all(launch(scenario, replicas=3, seed=1))
    b = run_all(launch(scenario, replicas=3, seed=2))
    assert a.summary["metrics"]["useful_gpu_hours"] != b.summary["metrics"]["useful_gpu_hours"]


def test_run_is_cut_into_chunks_covering_every_replica_once(scenario):
    run = launch(scenario, replicas=70)
    chunks = start(run)
    indices = [i for c in chunks for i in c.indices]
    assert sorted(indices) == list(range(70))
    assert len(chunks) > 1


def test_start_run_twice_fans_out_once(scenario):
    run = launch(scenario)
    first = start(run)
    start_run(run.pk)
    run.refresh_from_db()
    assert RunChunk.objects.filter(run=run).count() == len(first)
    assert run.attempts == 1


def test_running_a_chunk_twice_stores_nothing_twice(scenario):
    run = launch(scenario, replicas=70)
    chunk = start(run)[0]
    run_chunk(run.pk, chunk.indices, chunk.number)
    stored = dict(ReplicaResult.objects.filter(run=run).values_list("index", "created"))
    # A redelivered message: same chunk again, as after a lost acknowledgement.
    RunChunk.objects.filter(pk=chunk.pk).update(state=RunChunk.State.QUEUED)
    run_chunk(run.pk, chunk.indices, chunk.number)
    assert dict(ReplicaResult.objects.filter(run=run).values_list("index", "created")) == stored
    run.refresh_from_db()
    assert run.replicas_done == len(chunk.indices)
    assert run.progress == pytest.approx(len(chunk.indices) / 70)
    assert run.status == RunStatus.RUNNING


def test_a_late_duplicate_chunk_after_success_changes_nothing(scenario):
    run = run_all(launch(scenario, replicas=3))
    finished, summary = run.finished, run.summary
    result = run_chunk(run.pk, [0, 1, 2], 0)
    run.refresh_from_db()
    assert result == RunStatus.SUCCEEDED
    assert (run.finished, run.summary) == (finished, summary)
    assert ReplicaResult.objects.filter(run=run).count() == 3


def test_start_run_does_nothing_for_a_cancelled_run(scenario):
    run = launch(scenario)
    runs.cancel_run(run.pk)
    assert start_run(run.pk) == "finished"
    assert not RunChunk.objects.filter(run=run).exists()


def test_cancel_stops_the_remaining_chunks(scenario):
    run = launch(scenario, replicas=70)
    chunks = start(run)
    run_chunk(run.pk, chunks[0].indices, chunks[0].number)
    runs.cancel_run(run.pk)
    for chunk in chunks[1:]:
        run_chunk(run.pk, chunk.indices, chunk.number)
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run.summary is None
    assert ReplicaResult.objects.filter(run=run).count() == len(chunks[0].indices)


def test_cancelling_a_finished_run_is_refused(scenario):
    run = run_all(launch(scenario, replicas=2))
    with pytest.raises(runs.RunFinishedError):
        runs.cancel_run(run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_scenario_the_campus_cannot_run_fails_with_a_clear_error(campus):
    scenario = Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="no such GPUs", params={"gpu_models": ["not-a-gpu"]}
    )
    run = launch(scenario)
    start_run(run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error.startswith("could not prepare the scenario")
    assert run.finished is not None


def test_hard_time_limit_fails_the_run_with_the_reason(scenario):
    run = launch(scenario)
    chunk = start(run)[0]
    run_chunk.on_failure(TimeLimitExceeded(30), "task-id", (run.pk, chunk.indices, chunk.number), {}, None)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "hard time limit" in run.error


def _make_stale(run: Run, chunk: RunChunk, seconds: int) -> None:
    past = timezone.now() - timedelta(seconds=seconds)
    RunChunk.objects.filter(pk=chunk.pk).update(state=RunChunk.State.RUNNING, heartbeat=past, dispatched=past)
    Run.objects.filter(pk=run.pk).update(updated=past)


def test_reaper_resends_a_chunk_whose_worker_went_silent(scenario, django_capture_on_commit_callbacks):
    run = launch(scenario, replicas=70)
    chunks = start(run)
    run_chunk(run.pk, chunks[1].indices, chunks[1].number)
    _make_stale(run, chunks[0], config.STALE_S + 10)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        report = reap_stale_runs()
    assert report["requeued"] == [run.pk]
    assert len(sent) == 1
    chunk = RunChunk.objects.get(pk=chunks[0].pk)
    assert (chunk.state, chunk.attempts) == (RunChunk.State.QUEUED, 2)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    # The re-sent chunk finishes its work; the finished chunk's replicas are not run again.
    run_chunk(run.pk, chunk.indices, chunk.number)
    assert ReplicaResult.objects.filter(run=run).count() == len(chunks[0].indices) + len(chunks[1].indices)


def test_reaper_leaves_a_run_with_a_fresh_heartbeat_alone(scenario):
    run = launch(scenario, replicas=70)
    chunk = start(run)[0]
    _make_stale(run, chunk, config.STALE_S // 2)
    assert reap_stale_runs()["requeued"] == []
    assert RunChunk.objects.get(pk=chunk.pk).attempts == 1


def test_reaper_fails_a_run_whose_chunk_keeps_losing_its_worker(scenario):
    run = launch(scenario, replicas=70)
    chunk = start(run)[0]
    RunChunk.objects.filter(pk=chunk.pk).update(attempts=config.MAX_ATTEMPTS)
    _make_stale(run, chunk, config.STALE_S + 10)
    assert reap_stale_runs()["failed"] == [run.pk]
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert f"chunk {chunk.number}" in run.error
    assert run.finished is not None


def test_a_chunk_of_a_deleted_run_does_nothing(scenario):
    run = launch(scenario)
    chunk = start(run)[0]
    run_id = run.pk
    run.delete()
    assert run_chunk(run_id, chunk.indices, chunk.number) == "missing"


def test_progress_counts_the_replica_in_flight_and_never_goes_back(scenario):
    run = launch(scenario, replicas=4)
    chunks = start(run)
    run_chunk(run.pk, chunks[0].indices, chunks[0].number)  # one replica stored: 1/4
    beat = execute.Heartbeat(run.pk, None)  # not started: only its stop flags are read
    execute.progress_writer(run.pk, run.replicas, beat)(0.5)
    run.refresh_from_db()
    assert run.progress == pytest.approx((1 + 0.5) / 4)
    # Another chunk, less far into its replica, reports later: progress stays where it was.
    execute.progress_writer(run.pk, run.replicas, beat)(0.2)
    run.refresh_from_db()
    assert run.progress == pytest.approx((1 + 0.5) / 4)


def test_a_replica_stops_at_its_next_progress_report_once_the_run_is_cancelled(scenario):
    run = launch(scenario, replicas=4)
    start(run)
    beat = execute.Heartbeat(run.pk, None)
    beat.stopped_run.set()  # what the heartbeat thread sets when it sees the run is no longer running
    with pytest.raises(runs.RunStopped):
        execute.progress_writer(run.pk, run.replicas, beat)(0.1)


def test_the_run_machinery_sends_tasks_by_name_and_never_imports_the_task_module():
    # simulations.tasks imports simulations.runs; the other way round would be an import circle.
    import ast
    from pathlib import Path

    import simulations.runs

    for path in Path(simulations.runs.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {
            (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        assert not {m for m in imported if m.endswith("tasks")}, path.name
