"""Celery tasks of the campus app: the background jobs that generate or import a campus (``campus.jobs``)."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded

from . import jobs, prometheus_sync

log = logging.getLogger(__name__)


class JobTask(Task):
    """Turns a hard time limit (the worker kills the child process) into a failed job with a clear cause."""

    ignore_result = True

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        if isinstance(exc, TimeLimitExceeded) and args:
            jobs.fail_job(
                int(args[0]),
                None,
                f"the job exceeded the hard time limit ({exc}); nothing was written",
            )


@shared_task(base=JobTask, name="campus.tasks.run_job")
def run_job(job_id: int) -> str:
    """Generate or import the job's campus; the campus and the job's success commit together."""
    jobs.sweep_now_and_then()
    try:
        return jobs.run_job(job_id)
    except SoftTimeLimitExceeded:
        jobs.fail_job(job_id, None, "the job exceeded the soft time limit; nothing was written")
        return "timeout"


@shared_task(base=JobTask, name="campus.tasks.reap_stale_jobs")
def reap_stale_jobs() -> dict:
    """Fail jobs whose worker died; re-send jobs whose message was lost."""
    report = jobs.reap_stale_jobs()
    if any(report.values()):
        log.warning("job reaper: %s", report)
    return report


@shared_task(name="campus.tasks.sync_measurements", ignore_result=True)
def sync_measurements() -> dict:
    """Beat: read every campus's Prometheus source from where it stopped (``campus.prometheus_sync``)."""
    return {str(k): v["status"] for k, v in prometheus_sync.sync_all().items()}
