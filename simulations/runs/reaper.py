"""The reaper: no run stays *running* for ever.

A chunk is lost when its heartbeat is older than STALE_S while it was running (its worker died: SIGKILL,
OOM, a hard time limit), or when it was sent QUEUED_STALE_S ago, never started and the broker queue is
empty (the message itself was lost). Each chunk is sent at most MAX_ATTEMPTS times; then the run fails.
"""

from __future__ import annotations

import logging
import os
from datetime import timedelta

import redis
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from simulations.choices import RunStatus
from simulations.models import ReplicaResult, Run, RunChunk
from twin.celery import app

from .config import MAX_ATTEMPTS, QUEUED_STALE_S, STALE_S
from .dispatch import send_chunks, send_start
from .launch import fail_locked

log = logging.getLogger(__name__)


def broker_backlog() -> int | None:
    """Messages waiting in the broker's default queue, or None when it cannot tell."""
    url = app.conf.broker_url or ""
    try:
        if url.startswith(("redis://", "rediss://")):
            client = redis.Redis.from_url(url, socket_timeout=2)
            try:
                return int(client.llen(app.conf.task_default_queue or "celery"))
            finally:
                client.close()
        if url.startswith("filesystem://"):
            folder = app.conf.broker_transport_options.get("data_folder_in")
            return sum(1 for p in os.scandir(folder) if p.is_file()) if folder else None
    except Exception:
        log.exception("could not read the broker backlog")
    return None


def reap_on_worker_ready(sender=None, **_kwargs) -> None:
    """celery's worker_ready: a worker that starts (often the one replacing a dead one) picks up what was left
    behind at once, here in the main process rather than as a task queued behind the very chunks it may have
    to re-send."""
    try:
        report = reap_stale_runs()
        if any(report.values()):
            log.warning("reaper at worker start: %s", report)
    except Exception:
        log.exception("reaper at worker start")
    finally:
        connection.close()


def reap_stale_runs(now=None) -> dict[str, list[int]]:
    """Re-send the chunks of dead workers, re-send lost messages, fail runs that keep losing workers."""
    now = now or timezone.now()
    stale_before = now - timedelta(seconds=STALE_S)
    queued_before = now - timedelta(seconds=QUEUED_STALE_S)
    report: dict[str, list[int]] = {"requeued": [], "failed": [], "restarted": []}
    cache: list[int | None] = []

    def queue_empty() -> bool:
        # Read once per sweep; when the broker cannot tell, trust the age of the message alone.
        if not cache:
            cache.append(broker_backlog())
        return cache[0] in (0, None)

    # Judged chunk by chunk, not by the run's own heartbeat: while one chunk of a run is dead, its live
    # siblings keep Run.updated fresh.
    suspects = (
        RunChunk.objects.filter(run__status=RunStatus.RUNNING)
        .filter(
            Q(state=RunChunk.State.RUNNING, heartbeat__lt=stale_before)
            | Q(state=RunChunk.State.RUNNING, heartbeat__isnull=True)
            | Q(state=RunChunk.State.QUEUED, dispatched__lt=queued_before)
        )
        .values_list("run_id", flat=True)
        .distinct()
    )
    for run_id in sorted(set(suspects)):
        _reap_run(run_id, stale_before, queued_before, report, queue_empty)
    # Runs whose start_run never ran (its message was lost): send it again.
    old_queued = list(
        Run.objects.filter(status=RunStatus.QUEUED, created__lt=queued_before).values_list("pk", flat=True)
    )
    if old_queued and queue_empty():
        for run_id in old_queued:
            transaction.on_commit(lambda rid=run_id: send_start(rid))
            report["restarted"].append(run_id)
    return report


def _reap_run(run_id: int, stale_before, queued_before, report, queue_empty) -> None:
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id, status=RunStatus.RUNNING).first()
        if run is None:
            return
        chunks = list(RunChunk.objects.select_for_update().filter(run=run).exclude(state=RunChunk.State.DONE))
        stored = set(ReplicaResult.objects.filter(run=run).values_list("index", flat=True))
        lost = []
        for chunk in chunks:
            if all(i in stored for i in chunk.indices):
                chunk.state = RunChunk.State.DONE
                chunk.save(update_fields=["state"])
                continue
            worker_died = chunk.state == RunChunk.State.RUNNING and (
                chunk.heartbeat is None or chunk.heartbeat < stale_before
            )
            message_lost = (
                chunk.state == RunChunk.State.QUEUED
                and (chunk.dispatched is None or chunk.dispatched < queued_before)
                and queue_empty()
            )
            if worker_died or message_lost:
                lost.append(chunk)
        if not chunks and run.replicas_done < run.replicas:
            # Started before any chunk was recorded (should not happen): nothing to re-send, fail clearly.
            fail_locked(run, "the run lost its chunks before they were recorded")
            report["failed"].append(run.pk)
            return
        if not lost:
            return
        worn = [c for c in lost if c.attempts >= MAX_ATTEMPTS]
        if worn:
            c = worn[0]
            fail_locked(
                run,
                f"chunk {c.number} (replicas {c.indices[0]}-{c.indices[-1]}) lost its worker {c.attempts} times "
                f"(no heartbeat for {STALE_S} s); {run.replicas_done} of {run.replicas} replicas were stored",
            )
            report["failed"].append(run.pk)
            return
        now = timezone.now()
        for chunk in lost:
            chunk.state = RunChunk.State.QUEUED
            chunk.attempts += 1
            chunk.dispatched = now
            chunk.heartbeat = None
            chunk.save(update_fields=["state", "attempts", "dispatched", "heartbeat"])
        run.attempts += 1
        run.save(update_fields=["attempts", "updated"])
        payload = [(c.number, c.indices) for c in lost]
        transaction.on_commit(lambda: send_chunks(run_id, payload))
        report["requeued"].append(run.pk)
