"""``run_chunk``'s work: run a chunk's replicas, store each once, and let the last one finish the run."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from typing import Any

from django.db import connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest, Least
from django.utils import timezone

from simulations.choices import RunStatus
from simulations.engine import runner
from simulations.models import ReplicaResult, Run, RunChunk

from . import confidence, plans, reaper, sweeps
from .config import CHECK_EVERY_S, HEARTBEAT_S, PROGRESS_EVERY_S, STALE_S, STORE_EVERY_S, RunStopped
from .results import finalize, json_ready, pack_series, plain

log = logging.getLogger(__name__)


class Heartbeat:
    """Touch the chunk and run heartbeat while the chunk works; notice a cancel from another process."""

    def __init__(self, run_id: int, chunk_id: int | None) -> None:
        self.run_id = run_id
        self.chunk_id = chunk_id
        self.stop_event = threading.Event()
        self.stopped_run = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True, name=f"run-{run_id}-heartbeat")

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop_event.set()
        self.thread.join(timeout=HEARTBEAT_S + 5)

    def _loop(self) -> None:
        try:
            while not self.stop_event.wait(HEARTBEAT_S):
                now = timezone.now()
                alive = Run.objects.filter(pk=self.run_id, status=RunStatus.RUNNING).update(updated=now)
                if self.chunk_id is not None:
                    RunChunk.objects.filter(pk=self.chunk_id).update(heartbeat=now)
                if not alive:
                    self.stopped_run.set()
                    return
        except Exception:  # a lost database connection must not kill the worker; the reaper sees the silence
            log.exception("heartbeat of run %s", self.run_id)
        finally:
            connection.close()


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


_last_sweep = [0.0]


def sweep_now_and_then(force: bool = False) -> None:
    """Reap from the workers themselves, at most once per half stale period per process (unless ``force``):
    beat's reaper task waits in the same queue as the chunks, behind however many of them are queued."""
    now = time.monotonic()
    if not force and now - _last_sweep[0] < STALE_S / 2:
        return
    _last_sweep[0] = now
    try:
        report = reaper.reap_stale_runs()
    except Exception:
        log.exception("reaper sweep")
        return
    if any(report.values()):
        log.warning("reaper: %s", report)


def execute_chunk(run_id: int, indices: list[int], number: int | None = None) -> str:
    """Run the replicas ``indices`` of the run that are not stored yet. Safe to run twice, or concurrently."""
    sweep_now_and_then()
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return "missing"
        if run.status != RunStatus.RUNNING:
            return run.status
        chunk = None
        if number is not None:
            chunk = RunChunk.objects.select_for_update().filter(run=run, number=number).first()
            if chunk is not None and chunk.state == RunChunk.State.DONE:
                return "done"
            if chunk is not None:
                chunk.state = RunChunk.State.RUNNING
                chunk.heartbeat = timezone.now()
                chunk.worker = _worker_name()
                chunk.save(update_fields=["state", "heartbeat", "worker"])
        run.save(update_fields=["updated"])
    stored = set(
        ReplicaResult.objects.filter(run_id=run_id, index__in=indices).values_list("index", flat=True)
    )
    todo = [i for i in indices if i not in stored]
    keep_series = not run.sweep  # a sweep's result is its summary per point: no series, no details
    done: list[tuple[int, int, Any, float]] = []  # (index, seed, result, engine seconds) not stored yet
    with Heartbeat(run_id, chunk.pk if chunk else None) as beat:
        progress = progress_writer(run_id, run.replicas, beat)
        stored_at = checked_at = time.monotonic()
        for index in todo:
            now = time.monotonic()
            if beat.stopped_run.is_set():
                return "stopped"
            if now - checked_at >= CHECK_EVERY_S:
                checked_at = now
                if not Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
                    return "stopped"
            # A sweep's replica runs its point's parameters with the seed of its number within the point.
            point, number_in_point = sweeps.locate(run.sweep, index) if run.sweep else (0, index)
            prepared = plans.plan_for(run, point)
            seed = int(runner.replica_seed(run.seed, number_in_point))
            started = time.monotonic()
            try:
                result = prepared.run(seed, progress)
            except RunStopped:
                return "stopped"
            done.append((index, seed, result, time.monotonic() - started))
            if time.monotonic() - stored_at >= STORE_EVERY_S:
                # a long chunk stores what it has now and then: progress moves, a lost worker loses little
                outcome = store_replicas(run_id, done, keep_series)
                done, stored_at = [], time.monotonic()
                if outcome == "stopped":
                    return "stopped"
        if done and store_replicas(run_id, done, keep_series) == "stopped":
            return "stopped"
    if chunk is not None:
        RunChunk.objects.filter(pk=chunk.pk).update(state=RunChunk.State.DONE, heartbeat=timezone.now())
    if Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
        # This chunk is done but its run is not. A worker killed between two chunks takes the message it had
        # reserved with it while the chunk still reads "queued"; the sweep at a chunk's start cannot re-send it
        # while other chunks wait in the queue (the message may still be there). Once the queue has drained the
        # sweep can, so the last chunks to finish sweep without waiting for beat.
        sweep_now_and_then(force=True)
    return "done"


def progress_writer(run_id: int, replicas: int, beat: Heartbeat):
    """The engine's progress callback for the replicas of a chunk: writes the run's progress now and then
    (the stored replicas plus the share of the one in flight), and raises RunStopped inside the engine's
    loop once the heartbeat saw the run stop, so a cancelled replica stops now, not at its end."""
    last = [0.0]

    def progress(fraction: float) -> None:
        if beat.stopped_run.is_set():
            raise RunStopped()
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = now
        share = min(max(float(fraction), 0.0), 1.0)
        # Progress never goes backwards, whatever order concurrent chunks write in.
        Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
            progress=Greatest(
                F("progress"), Least(Value(1.0), (F("replicas_done") + share) / float(replicas))
            ),
            updated=timezone.now(),
        )

    return progress


def store_replica(
    run_id: int, index: int, seed: int, result: Any, duration_s: float = 0.0, keep_series: bool = True
) -> str:
    """Store one replica's result (once); see ``store_replicas``."""
    return store_replicas(run_id, [(index, seed, result, duration_s)], keep_series)


def store_replicas(run_id: int, done: list[tuple[int, int, Any, float]], keep_series: bool = True) -> str:
    """Store finished replicas, each (index, seed, result, engine seconds), those not stored yet, in one
    transaction with the Run row locked, and, if they were the last ones, finish the run in it too.

    One transaction and one insert for a chunk's replicas instead of one per replica: the fan-in's lock
    and its round trips are paid per chunk. Returns "stopped", "duplicate" (all were stored already),
    "stored" or "finished". Without ``keep_series`` (a sweep) the rows keep no series and no details."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status != RunStatus.RUNNING:
            return "stopped"
        indices = [index for index, _, _, _ in done]
        have = set(ReplicaResult.objects.filter(run=run, index__in=indices).values_list("index", flat=True))
        rows = [
            ReplicaResult(
                run=run,
                index=index,
                seed=seed,
                metrics=plain(result.metrics),
                by_cause=plain(result.by_cause),
                events=int(getattr(result, "events", 0) or 0),
                series=pack_series(result.series) if keep_series and result.series else None,
                details=json_ready(getattr(result, "details", None) or {}) if keep_series else {},
                duration_s=duration_s,
            )
            for index, seed, result, duration_s in done
            if index not in have
        ]
        if not rows:
            return "duplicate"
        ReplicaResult.objects.bulk_create(rows)
        run.replicas_done = ReplicaResult.objects.filter(run=run).count()
        run.progress = min(1.0, run.replicas_done / run.replicas)
        fields = ["replicas_done", "progress", "updated"]
        if run.confidence and confidence.advance(run):
            # the target is met on the first n replicas: the run is those n (runs.confidence)
            confidence.stop_at(run)
            fields.append("replicas")
        if run.confidence:
            fields.append("confidence")
        run.save(update_fields=fields)
        if run.replicas_done >= run.replicas:
            try:
                finalize(run)
            except Exception as exc:
                # Rolls back with the last replicas: the run is failed by the caller, never half-finished.
                raise RuntimeError(f"aggregating the {run.replicas} replicas failed: {exc}") from exc
            return "finished"
    return "stored"
