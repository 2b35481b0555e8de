"""On PostgreSQL a job's progress is visible while its campus is still being written in one open transaction
(the progress thread has its own connection), and it only rises. Sampled from another connection."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from campus.models import Campus, Job
from campus.tasks import run_job

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_progress_is_visible_during_the_write_transaction_and_only_rises(settings):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has one writer at a time: there the progress shows at the commit")
    settings.TWIN_JOB_HEARTBEAT_SECONDS = 0.05
    job = Job.objects.create(kind="generate", params={"name": "PG progress", "gpus": 16384, "replace": False})

    def work() -> None:
        try:
            run_job(job.pk)
        finally:
            connection.close()

    worker = threading.Thread(target=work)
    worker.start()
    samples: list[tuple[str, float, str]] = []
    while worker.is_alive():
        samples.append(Job.objects.filter(pk=job.pk).values_list("status", "progress", "message").get())
        time.sleep(0.01)
    worker.join()
    samples.append(Job.objects.filter(pk=job.pk).values_list("status", "progress", "message").get())

    progress = [p for _, p, _ in samples]
    assert progress == sorted(progress)
    assert samples[-1][:2] == ("succeeded", 1.0)
    # Seen from outside while the campus was being written and not yet committed.
    writing = [(p, m) for s, p, m in samples if s == "running" and m.startswith("writing")]
    assert writing and all(0.35 <= p < 1.0 for p, _ in writing)
    assert Campus.objects.filter(name="PG progress").count() == 1
