"""``start_run``'s work: snapshot the campus once (what is in service on the run's ``as_of`` day), cut the
replicas into chunks and send them.

Tasks are sent by name (a Celery signature), so this package never imports ``simulations.tasks``; a
registered task still honours the app's settings (eager mode included), an unknown one goes to the broker.
"""

from __future__ import annotations

from celery import group, signature
from django.db import transaction
from django.utils import timezone

from simulations.choices import FINISHED_RUN_STATUSES, RunStatus
from simulations.models import Run, RunChunk

from . import campus_state, plans, sweeps
from .config import in_service_errors, validated_params

START_RUN_TASK = "simulations.tasks.start_run"
RUN_CHUNK_TASK = "simulations.tasks.run_chunk"


def send_start(run_id: int, task_id: str | None = None) -> None:
    signature(START_RUN_TASK, args=(run_id,)).apply_async(task_id=task_id)


def send_chunks(run_id: int, chunks: list[tuple[int, list[int]]]) -> None:
    group(
        signature(RUN_CHUNK_TASK, args=(run_id, indices, number), immutable=True)
        for number, indices in chunks
    ).apply_async()


def start(run_id: int) -> str:
    """Build the snapshot, cut the replicas into chunks and send them. Does nothing twice."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return "missing"
        if run.status in FINISHED_RUN_STATUSES:
            return "finished"
        if run.chunks.exists():
            # A redelivered start: the fan-out happened; the reaper owns whatever was lost since.
            return "started"
        try:
            # The run's own kind, campus and parameters (as the scenario was when the run was queued), on what
            # is in service on the run's day, read at one inventory version.
            snap, version = campus_state.snapshot_with_version(run.campus_id, run.as_of)
            nothing = in_service_errors(run.kind, snap, run.as_of)
            if nothing:  # a scheduled run fires on its day, unchecked by the API
                raise ValueError(f"as_of: {nothing[0]}")
            # A sweep: its first point here (the rest on the workers, sharing what the snapshot caches).
            params = validated_params(run.kind, plans.params_of(run, 0))
            prepared = plans.prepare(run.kind, snap, params)
        except Exception as exc:  # the campus cannot run this scenario: a clear failure, not a retry loop
            run.status = RunStatus.FAILED
            run.error = f"could not prepare the scenario: {exc}"
            run.finished = timezone.now()
            run.save(update_fields=["status", "error", "finished", "updated"])
            return "failed"
        now = timezone.now()
        run.campus_state = campus_state.record(run.campus_id, snap, version, params)
        run.snapshot = plans.pack_snapshot(snap)
        run.status = RunStatus.RUNNING
        run.started = now
        run.attempts += 1
        run.save(update_fields=["campus_state", "snapshot", "status", "started", "attempts", "updated"])
        size = run.chunk_size
        if run.sweep:
            cut = sweeps.chunks(run.sweep, size)
        else:
            cut = [list(range(lo, min(lo + size, run.replicas))) for lo in range(0, run.replicas, size)]
        chunks = RunChunk.objects.bulk_create(
            RunChunk(run=run, number=n, indices=indices, attempts=1, dispatched=now)
            for n, indices in enumerate(cut)
        )
        plans.remember(run.pk, prepared, snap)
        payload = [(c.number, c.indices) for c in chunks]
        transaction.on_commit(lambda: send_chunks(run_id, payload))
    return "dispatched"
