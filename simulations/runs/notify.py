"""A scheduled run that crosses a threshold is announced to its schedule's webhook: one JSON POST
(``Content-Type: application/json``) with the run, its schedule, its campus and the thresholds it crossed.

The POST is a task of its own, sent by name once the run's result is committed, so a slow or failing receiver
never holds up the run; the task tries three times, a minute apart, and logs what the receiver answered. A
receiver is any HTTP(S) endpoint (a chat tool's incoming webhook, an alerting gateway); the note's fields are
listed in docs/runs.md, "Scheduled runs".
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any

from celery import signature
from django.db import transaction

from simulations.models import Run

NOTIFY_TASK = "simulations.tasks.notify_threshold"
TIMEOUT_S = 10
log = logging.getLogger(__name__)


def send_on_commit(run: Run) -> None:
    """After the transaction storing a flagged run of a schedule with a webhook commits, send the POST task."""
    if not run.flagged or run.schedule_id is None:
        return
    if not Run.objects.filter(pk=run.pk, schedule__webhook_url__gt="").exists():
        return
    run_id = run.pk
    transaction.on_commit(lambda: signature(NOTIFY_TASK, args=(run_id,)).apply_async())


def note(run: Run) -> dict[str, Any]:
    """The JSON body of a run's notice."""
    return {
        "event": "run.threshold_crossed",
        "run": {
            "id": run.pk,
            "kind": run.kind,
            "status": run.status,
            "finished": run.finished.isoformat() if run.finished else None,
            "path": f"/campuses/{run.campus_id}/scenarios/?run={run.pk}",
        },
        "schedule": {"id": run.schedule_id, "name": run.schedule.name if run.schedule else None},
        "campus": {"id": run.campus_id, "name": run.campus.name if run.campus_id else None},
        "crossed": run.flag_reasons,
    }


def post(run_id: int) -> int | None:
    """POST the notice of a run to its schedule's webhook; the receiver's HTTP status, or None when there is
    nothing to send. Raises ``urllib.error.URLError`` (the task retries) when the receiver cannot be reached."""
    run = Run.objects.select_related("schedule", "campus").filter(pk=run_id).first()
    if run is None or run.schedule is None or not run.schedule.webhook_url or not run.flagged:
        return None
    body = json.dumps(note(run)).encode()
    request = urllib.request.Request(
        run.schedule.webhook_url,
        data=body,
        headers={"Content-Type": "application/json", "User-Agent": "campus-twin"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 (http/https only)
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code  # the receiver answered: a refusal is logged, not retried
    log.info("run %s: threshold notice to schedule %s's webhook answered %s", run.pk, run.schedule_id, status)
    return status
