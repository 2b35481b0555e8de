"""Background jobs that build a campus: generations, spec imports and branches too large to finish inside a
request.

Lifecycle (docs/operations.md, "Campus jobs")::

    queued --run_job--> running --written and committed--> running, campus set ("analysing") --> succeeded
                           └--bad spec / generator error / worker lost--> failed (nothing written)

- The request stores the job (an import's spec zlib-compressed on the row) and sends ``campus.tasks.run_job``
  when its transaction commits.
- The worker parses the spec as it reads it (ijson), validates it, and writes the campus in **one**
  transaction that also sets the job's campus and result: either both are there or neither is. A failure
  before the commit (a bad spec, a generator error, a time limit, a crash) rolls the writes back and records
  the cause on the job.
- Once committed, the worker computes the campus' default summary and whole-campus floor map into the shared
  analytics cache (``campus.state.warm``, stage "analysing"), so the campus' first reads do not
  compute them, and only then marks the job succeeded. A failure there is logged and the job still succeeds;
  a job with its campus set is never failed (the reaper finishes one whose worker died while analysing).
- Progress and the heartbeat are written by a thread with its own database connection, so readers see them
  while the big transaction is still open (a write inside it would stay invisible until the commit).
  Progress never goes down (``GREATEST`` in SQL).
- A branch job (``Job.Kind.BRANCH``, params ``parent`` and ``name``) copies its parent with
  ``campus.branching.create_branch`` in the same one transaction that sets the job's campus: a failure leaves
  no half branch.
- ``reap_stale_jobs`` fails a running job whose heartbeat stopped (its worker died; the database rolled its
  transaction back with the connection) and re-sends a job whose message was lost.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import zlib
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from celery import signature
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest, Least
from django.utils import timezone

from campus import branching, placement_job, state
from campus.interchange.catalog import db_catalog
from campus.interchange.formats import SpecFormatError, ZlibReader, parse_json_stream, parse_spec
from campus.interchange.generate import GeneratorError, generate
from campus.interchange.importer import SpecError, import_campus, spec_counts
from campus.models import Campus, Job
from campus.redundancy_guard import RedundancyGuard, RedundancyShortfall, spec_campus_id
from simulations.runs.reaper import broker_backlog

log = logging.getLogger(__name__)

RUN_JOB_TASK = "campus.tasks.run_job"

MB = 1024 * 1024


def _setting(name: str, default: int | float) -> float:
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name, default)
    return float(value)


# ---------------------------------------------------------------- limits (settings or environment)


def spec_max_bytes() -> int:
    """The largest spec imported inside the request (TWIN_SPEC_MAX_BYTES, 8 MiB); larger ones become jobs."""
    return int(_setting("TWIN_SPEC_MAX_BYTES", 8 * MB))


def job_spec_max_bytes() -> int:
    """The largest spec a job imports (TWIN_JOB_SPEC_MAX_BYTES, 256 MiB: a 1M-GPU spec is about 74 MB of JSON)."""
    return int(_setting("TWIN_JOB_SPEC_MAX_BYTES", 256 * MB))


def yaml_spec_max_bytes() -> int:
    """The largest YAML spec (TWIN_YAML_SPEC_MAX_BYTES, 50 MiB): YAML is parsed whole, not as a stream; above
    TWIN_SPEC_MAX_BYTES it is still a job."""
    return int(_setting("TWIN_YAML_SPEC_MAX_BYTES", 50 * MB))


def generate_max_gpus() -> int:
    """The most GPUs one generation may ask for (TWIN_GENERATE_MAX_GPUS, 2^20 = 1,048,576)."""
    return int(_setting("TWIN_GENERATE_MAX_GPUS", 1 << 20))


def job_threshold_gpus() -> int:
    """Generations above this many GPUs run as a job (TWIN_JOB_THRESHOLD_GPUS, 50,000); smaller ones inline."""
    return int(_setting("TWIN_JOB_THRESHOLD_GPUS", 50_000))


def heartbeat_s() -> float:
    return _setting("TWIN_JOB_HEARTBEAT_SECONDS", 2)


def stale_s() -> float:
    return _setting("TWIN_JOB_STALE_SECONDS", 120)


def queued_stale_s() -> float:
    return _setting("TWIN_JOB_QUEUED_STALE_SECONDS", 900)


def max_attempts() -> int:
    return int(_setting("TWIN_JOB_MAX_ATTEMPTS", 3))


# ---------------------------------------------------------------- creating


class CompressedSpool:
    """Collects an upload chunk by chunk, deflated as it comes (a 74 MB spec is held as a few MB)."""

    def __init__(self) -> None:
        self._deflate = zlib.compressobj(1)
        self._parts: list[bytes] = []
        self.size = 0

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if out := self._deflate.compress(chunk):
            self._parts.append(out)

    def getvalue(self) -> bytes:
        self._parts.append(self._deflate.flush())
        return b"".join(self._parts)


def send(job_id: int) -> None:
    signature(RUN_JOB_TASK, args=(job_id,)).apply_async()


def create_job(kind: str, params: dict, user=None, spec: bytes | None = None, spec_bytes: int = 0) -> Job:
    """Store a queued job and send it to the workers once the transaction commits."""
    owner = user if user is not None and user.is_authenticated else None
    job = Job.objects.create(
        kind=kind,
        params=params,
        input=spec,
        input_bytes=spec_bytes,
        created_by=owner,
        message="queued",
    )
    transaction.on_commit(lambda: send(job.pk))
    return job


# ---------------------------------------------------------------- progress


class JobProgress:
    """The job's progress and heartbeat, written every ``heartbeat_s`` by a thread with its own connection.

    The work calls ``set(fraction, message)``; the thread writes the latest value (never lower than what the
    row holds). On PostgreSQL the thread keeps writing while the work's big transaction is open. SQLite has
    one writer at a time, so there the thread pauses while the work writes (``writing()``) and the stale
    period of the reaper must exceed the longest write. Work that already runs inside a transaction (eager
    tasks in tests) gets no thread: its row would not be visible to it."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.fraction = 0.0
        self.message = "running"
        self.stop_event = threading.Event()
        self.lost = threading.Event()  # the row is no longer running (reaped): the work must not commit
        self.paused = threading.Event()
        self.pause_while_writing = connection.vendor != "postgresql"
        self._written: tuple[float, str] | None = None
        self.thread = threading.Thread(target=self._loop, daemon=True, name=f"job-{job_id}-progress")

    def __enter__(self) -> JobProgress:
        if not connection.in_atomic_block:
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop_event.set()
        if self.thread.is_alive():
            self.thread.join(timeout=heartbeat_s() + 10)

    def set(self, fraction: float, message: str | None = None) -> None:
        self.fraction = max(self.fraction, min(max(float(fraction), 0.0), 1.0))
        if message:
            self.message = message[:256]

    @contextmanager
    def writing(self):
        """Around the work's write transaction."""
        if self.pause_while_writing:
            if self.thread.is_alive():
                self.write()  # the stage it is at, before the writes hold the lock
            self.paused.set()
        try:
            yield
        finally:
            self.paused.clear()

    def write(self) -> None:
        now = timezone.now()
        fields: dict[str, Any] = {"heartbeat": now}
        if self._written != (self.fraction, self.message):
            fields["progress"] = Greatest(F("progress"), Least(Value(1.0), Value(self.fraction)))
            fields["message"] = self.message
        alive = Job.objects.filter(pk=self.job_id, status=Job.Status.RUNNING).update(**fields)
        self._written = (self.fraction, self.message)
        if not alive:
            self.lost.set()

    def _loop(self) -> None:
        try:
            while not self.stop_event.wait(heartbeat_s()):
                if not self.paused.is_set():
                    self.write()
        except Exception:  # a lost connection must not kill the work; the reaper sees the silence
            log.exception("progress of job %s", self.job_id)
        finally:
            connection.close()


# ---------------------------------------------------------------- running


class JobFailure(Exception):
    """A job failed for a reason its owner can act on: ``field`` (or None) and ``detail``."""

    def __init__(self, field: str | None, detail: str, errors: list | None = None) -> None:
        super().__init__(detail)
        self.field = field
        self.detail = detail
        self.errors = errors


def run_job(job_id: int) -> str:
    """Run a queued job to its end. A job that is not queued (running elsewhere, finished) is left alone,
    so a redelivered message does nothing."""
    with transaction.atomic():
        job = Job.objects.select_for_update().defer("input").filter(pk=job_id).first()
        if job is None:
            return "missing"
        if job.status != Job.Status.QUEUED:
            return job.status
        job.status = Job.Status.RUNNING
        job.started = job.heartbeat = timezone.now()
        job.attempts += 1
        job.message = "started"
        job.save(update_fields=["status", "started", "heartbeat", "attempts", "message"])
    try:
        with JobProgress(job_id) as progress:
            _work(job, progress)
    except JobFailure as exc:
        fail_job(job_id, exc.field, exc.detail, exc.errors)
        return "failed"
    except Exception as exc:
        log.exception("job %s failed", job_id)
        fail_job(job_id, None, f"{type(exc).__name__}: {exc}")
        return "failed"
    return "succeeded"


def fail_job(job_id: int, field: str | None, detail: str, errors: list | None = None) -> bool:
    """Mark an unfinished job failed with its cause; its input is dropped. False if it had finished, or if its
    campus is committed (it is then finishing its analysis: it succeeds)."""
    error: dict[str, Any] = {"field": field, "detail": detail}
    if errors:
        error["errors"] = errors[:100]
    return bool(
        Job.objects.filter(
            pk=job_id, status__in=(Job.Status.QUEUED, Job.Status.RUNNING), campus__isnull=True
        ).update(
            status=Job.Status.FAILED,
            error=error,
            message="failed",
            input=None,
            finished=timezone.now(),
            heartbeat=timezone.now(),
        )
    )


def _work(job: Job, progress: JobProgress) -> None:
    if job.kind == Job.Kind.BRANCH:
        _branch(job, progress)
        return
    if job.kind == Job.Kind.PLACEMENT:
        _placement(job, progress)
        return
    notes: list[str] = []
    replace = bool(job.params.get("replace", False))
    started = time.perf_counter()
    if job.kind == Job.Kind.GENERATE:
        options = {k: v for k, v in job.params.items() if k not in ("replace", "strict")}
        progress.set(0.02, "generating the design")
        try:
            design = generate(catalog=db_catalog(), **options)
        except GeneratorError as exc:
            raise JobFailure(exc.field, exc.message) from None
        spec, notes = design.spec, list(design.notes)
        progress.set(0.25, "generated")
        base = 0.25
    else:
        blob = Job.objects.filter(pk=job.pk).values_list("input", flat=True).first()
        if blob is None:
            raise JobFailure(None, "the job's spec is missing")
        reader = ZlibReader(bytes(blob))
        progress.set(0.01, "reading the spec")
        watcher = _ReadWatcher(reader, lambda share: progress.set(0.01 + 0.24 * share, "reading the spec"))
        try:
            if job.params.get("format") == "yaml":  # bounded by TWIN_YAML_SPEC_MAX_BYTES: parsed whole
                spec = parse_spec(watcher.read(), "yaml")
            else:
                spec = parse_json_stream(watcher)
        except SpecFormatError as exc:
            raise JobFailure("$", str(exc)) from None
        del blob, reader, watcher
        progress.set(0.25, "read")
        base = 0.25
    seconds = {
        "generate" if job.kind == Job.Kind.GENERATE else "read": round(time.perf_counter() - started, 2)
    }
    _store(job, spec, replace, notes, progress, base, seconds)


class _ReadWatcher:
    """A file wrapper that reports how much of the compressed input has been read."""

    def __init__(self, reader, report) -> None:
        self._reader = reader
        self._report = report

    def read(self, size: int = -1) -> bytes:
        out = self._reader.read(size)
        self._report(self._reader.consumed)
        return out


def _store(
    job: Job, spec: Any, replace: bool, notes: list[str], progress: JobProgress, base: float, seconds: dict
) -> None:
    """Validate and write the campus, and mark the job succeeded, in one transaction. ``seconds`` gets the
    time of each stage (the commit's is the job's run time less the stages)."""
    try:
        counts = spec_counts(spec) if isinstance(spec, dict) else {}
    except (TypeError, KeyError, AttributeError):
        counts = {}  # the validation below names what is wrong
    expected = max(
        1,
        counts.get("racks", 0) * 3 + counts.get("nodes", 0) + counts.get("link_bundles", 0) + 100,
    )
    written = [0]
    write_share = WRITTEN - (base + 0.1)

    started = [time.perf_counter()]

    def on_stage(stage: str, count: int) -> None:
        if stage == "validated":
            seconds["validate"] = round(time.perf_counter() - started[0], 2)
            started[0] = time.perf_counter()
            progress.set(base + 0.1, "validated; writing")
            return
        written[0] += count
        progress.set(base + 0.1 + write_share * min(1.0, written[0] / expected), f"writing {stage}")

    progress.set(base + 0.01, "validating")
    try:
        with progress.writing(), transaction.atomic():
            guard = RedundancyGuard(strict=bool(job.params.get("strict")))
            guard.watch([spec_campus_id(spec) if replace else None])
            campus = import_campus(spec, progress=on_stage, replace=replace)
            warnings = guard.finish()
            seconds["write"] = round(time.perf_counter() - started[0], 2)
            started[0] = time.perf_counter()
            progress.set(WRITTEN, "committing")
            result = {
                "id": campus.pk,
                "name": campus.name,
                "counts": counts,
                "notes": notes,
                "seconds": seconds,
                **({"warnings": warnings} if warnings else {}),
            }
            done = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
                progress=Greatest(F("progress"), Value(WRITTEN)),
                message="committing",
                campus=campus,
                result=result,
                input=None,
                heartbeat=timezone.now(),
            )
            if not done or progress.lost.is_set():
                # Reaped meanwhile (its heartbeat looked dead): the job reads failed, so nothing may stay.
                raise _Abandoned()
    except SpecError as exc:
        first = exc.errors[0] if exc.errors else {"path": None, "message": "invalid spec"}
        raise JobFailure(first.get("path"), first.get("message", ""), exc.errors) from None
    except RedundancyShortfall as exc:
        raise JobFailure("strict", _STRICT_DETAIL, exc.warnings) from None
    except _Abandoned:
        log.warning("job %s was reaped while it worked; its writes were rolled back", job.pk)
        return
    # The commit itself (PostgreSQL checks the deferred foreign keys there) is a stage of its own.
    seconds["commit"] = round(time.perf_counter() - started[0], 2)
    started[0] = time.perf_counter()
    _analyse(job.pk, campus, progress)
    seconds["analyse"] = round(time.perf_counter() - started[0], 2)
    succeed_job(job.pk, result)


def _branch(job: Job, progress: JobProgress) -> None:
    """Copy the parent into the branch and mark the job's campus, in one transaction."""
    started = time.perf_counter()
    parent_id, name = job.params.get("parent"), str(job.params.get("name", "")).strip()
    parent = Campus.objects.filter(pk=parent_id).first()
    if parent is None:
        raise JobFailure("parent", f"No campus {parent_id}: it was deleted before the branch was made.")
    if Campus.objects.filter(name=name).exists():
        raise JobFailure("name", f'A campus named "{name}" exists already.')
    progress.set(0.01, "reading the design")
    try:
        with progress.writing(), transaction.atomic():
            guard = RedundancyGuard(strict=bool(job.params.get("strict")))
            guard.watch([parent.pk])
            branch = branching.create_branch(
                parent,
                name,
                progress=lambda share, stage: progress.set(0.01 + (WRITTEN - 0.02) * share, stage),
            )
            guard.inherit(branch.pk, parent.pk)
            warnings = guard.finish()
            seconds = {"copy": round(time.perf_counter() - started, 2)}
            result = {
                "id": branch.pk,
                "name": branch.name,
                "parent": parent.pk,
                "branched_at": branch.branched_at.isoformat(),
                "seconds": seconds,
                **({"warnings": warnings} if warnings else {}),
            }
            progress.set(WRITTEN, "committing")
            done = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
                progress=Greatest(F("progress"), Value(WRITTEN)),
                message="committing",
                campus=branch,
                result=result,
                heartbeat=timezone.now(),
            )
            if not done or progress.lost.is_set():
                raise _Abandoned()
    except IntegrityError:  # the name was taken while the copy ran
        raise JobFailure("name", f'A campus named "{name}" exists already.') from None
    except RedundancyShortfall as exc:
        raise JobFailure("strict", _STRICT_DETAIL, exc.warnings) from None
    except _Abandoned:
        log.warning("job %s was reaped while it worked; its writes were rolled back", job.pk)
        return
    mark = time.perf_counter()
    seconds["commit"] = round(mark - started - seconds["copy"], 2)
    _analyse(job.pk, branch, progress)
    seconds["analyse"] = round(time.perf_counter() - mark, 2)
    succeed_job(job.pk, result)


def _placement(job: Job, progress: JobProgress) -> None:
    """A placement (``campus.placement_job``): its answer is the job's result, its campus the one it read."""
    try:
        result = placement_job.run(job.params, progress.set)
    except placement_job.PlacementJobError as exc:
        raise JobFailure(exc.field, exc.detail) from None
    campus = job.params["campus"]
    if not Campus.objects.filter(pk=campus).exists():
        raise JobFailure("campus", f"No campus {campus}: it was deleted while the job ran.")
    if Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(campus_id=campus, result=result):
        succeed_job(job.pk)


_STRICT_DETAIL = "The write would take a campus below its declared redundancy; nothing was written (strict)."
WRITTEN = 0.9  # the job's progress once its campus is written; the analysis takes it from there to 1


def _analyse(job_id: int, campus, progress: JobProgress) -> None:
    """Fill the shared analytics cache with the new campus' default summary and floor map. Never fails the
    job: the campus is committed, and a read that finds nothing cached computes it."""
    stages = {"summary": (0.92, "analysing: summary"), "floor-map": (0.97, "analysing: floor map")}
    progress.set(0.91, "analysing")
    try:
        state.warm(campus, report=lambda endpoint: progress.set(*stages[endpoint]))
    except Exception:
        log.exception("job %s: the analysis of campus %s was not stored", job_id, campus.pk)


def succeed_job(job_id: int, result: dict | None = None, message: str = "succeeded") -> bool:
    """Mark a running job whose campus is committed succeeded. False if it had finished."""
    fields: dict[str, Any] = {}
    if result is not None:
        fields["result"] = result
    now = timezone.now()
    return bool(
        Job.objects.filter(pk=job_id, status=Job.Status.RUNNING, campus__isnull=False).update(
            status=Job.Status.SUCCEEDED,
            progress=1.0,
            message=message,
            finished=now,
            heartbeat=now,
            **fields,
        )
    )


class _Abandoned(Exception):
    pass


# ---------------------------------------------------------------- the reaper


def reap_stale_jobs(now=None) -> dict[str, list[int]]:
    """Fail running jobs whose worker stopped beating; re-send (or fail) queued jobs whose message was lost."""
    now = now or timezone.now()
    report: dict[str, list[int]] = {"failed": [], "resent": [], "succeeded": []}
    stale = stale_s()
    dead = list(
        Job.objects.filter(
            status=Job.Status.RUNNING, heartbeat__lt=now - timedelta(seconds=stale)
        ).values_list("pk", "campus_id")
    )
    for job_id, campus_id in dead:
        if campus_id is not None:  # committed; its worker died while analysing
            if succeed_job(job_id, message="succeeded (the worker stopped while analysing the campus)"):
                report["succeeded"].append(job_id)
            continue
        if fail_job(
            job_id,
            None,
            f"the worker running this job stopped (no sign of life for {stale:g} s); nothing was written",
        ):
            report["failed"].append(job_id)
    old_queued = list(
        Job.objects.filter(
            status=Job.Status.QUEUED, created__lt=now - timedelta(seconds=queued_stale_s())
        ).values_list("pk", "attempts")
    )
    if old_queued and broker_backlog() in (0, None):
        for job_id, attempts in old_queued:
            if attempts >= max_attempts():
                if fail_job(job_id, None, f"the job's message was lost {attempts} times; submit it again"):
                    report["failed"].append(job_id)
                continue
            Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(attempts=F("attempts") + 1)
            transaction.on_commit(lambda jid=job_id: send(jid))
            report["resent"].append(job_id)
    return report


def reap_on_worker_ready(sender=None, **_kwargs) -> None:
    """celery's worker_ready: a starting worker (often the one replacing a dead one) fails what was left."""
    try:
        report = reap_stale_jobs()
        if any(report.values()):
            log.warning("job reaper at worker start: %s", report)
    except Exception:
        log.exception("job reaper at worker start")
    finally:
        connection.close()


_last_sweep = [0.0]


def sweep_now_and_then() -> None:
    """Reap from the job tasks themselves, at most once per half stale period per process."""
    now = time.monotonic()
    if now - _last_sweep[0] < stale_s() / 2:
        return
    _last_sweep[0] = now
    try:
        reap_stale_jobs()
    except Exception:
        log.exception("job reaper sweep")
