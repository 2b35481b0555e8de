"""Celery tasks of the simulations app. Each is keyed by an id, reads its state from the database and can run
twice without harm (Saleor style); the work itself lives in ``simulations.runs``.

Delivery: ``acks_late`` and ``reject_on_worker_lost`` (settings) put the message of a chunk whose worker died
back on the queue; the chunk then re-runs and skips what is stored. With Redis an unacknowledged message comes
back only after the transport's visibility timeout, so ``reap_stale_runs`` (beat, and once at each worker
start: ``runs.reaper.reap_on_worker_ready``) re-sends what a dead worker held well before that.
"""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded

from campus.jobs import reap_stale_jobs

from .runs import dispatch, execute, launch, notify, reaper

log = logging.getLogger(__name__)


class RunTask(Task):
    """Turns a hard time limit (the worker kills the child process) into a failed run with a clear error."""

    ignore_result = True

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        if isinstance(exc, TimeLimitExceeded) and args:
            launch.fail_run(
                int(args[0]),
                f"{self.name} exceeded the hard time limit ({exc}); fewer replicas per run or a larger "
                "TWIN_TASK_TIME_LIMIT would let it finish",
            )


@shared_task(base=RunTask, name="simulations.tasks.start_run")
def start_run(run_id: int) -> str:
    """Snapshot the campus once and fan the replicas out in chunks. Does nothing if the run finished."""
    return dispatch.start(run_id)


@shared_task(base=RunTask, bind=True, name="simulations.tasks.run_chunk")
def run_chunk(self, run_id: int, indices: list[int], number: int | None = None) -> str:
    """Run the replicas ``indices`` of a run that are not stored yet; the last one finishes the run."""
    try:
        return execute.execute_chunk(run_id, list(indices), number)
    except SoftTimeLimitExceeded:
        limit = self.request.timelimit[1] if self.request.timelimit else None
        launch.fail_run(
            run_id,
            f"a chunk of replicas {indices[0]}-{indices[-1]} exceeded the soft time limit"
            + (f" of {limit} s" if limit else "")
            + "; the replicas stored so far are kept",
        )
        return "timeout"
    except Exception as exc:
        # A replica that raises would raise again on every retry: fail the run with the reason instead.
        log.exception("run %s chunk %s failed", run_id, number)
        where = f"replicas {indices[0]}-{indices[-1]}" if indices else "a chunk"
        launch.fail_run(run_id, f"{where} failed: {type(exc).__name__}: {exc}")
        return "failed"


@shared_task(base=RunTask, name="simulations.tasks.run_schedule")
def run_schedule(schedule_id: int) -> int | None:
    """One firing of a schedule (from beat): a new run; thresholds flag it when it finishes."""
    run = launch.run_schedule(schedule_id)
    return run.pk if run else None


@shared_task(bind=True, name="simulations.tasks.notify_threshold", ignore_result=True, max_retries=2)
def notify_threshold(self, run_id: int) -> int | None:
    """POST a flagged scheduled run's notice to its schedule's webhook (``runs.notify``); a receiver out of
    reach is tried again a minute later, twice."""
    try:
        return notify.post(run_id)
    except OSError as exc:  # URLError, a timeout, a refused connection
        log.warning("run %s: the schedule's webhook could not be reached: %s", run_id, exc)
        raise self.retry(exc=exc, countdown=60) from None


@shared_task(base=RunTask, name="simulations.tasks.reap_stale_runs")
def reap_stale_runs() -> dict:
    """Re-send chunks of dead workers and lost messages; fail runs that keep losing their workers. Beat's one
    reaper also sweeps the campus jobs (``campus.jobs.reap_stale_jobs``)."""
    report = reaper.reap_stale_runs()
    jobs_report = reap_stale_jobs()
    if any(jobs_report.values()):
        report["jobs"] = jobs_report
    if any(report.values()):
        log.warning("reaper: %s", report)
    return report
