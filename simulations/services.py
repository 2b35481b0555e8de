"""What the API and the Celery tasks do with scenarios and runs. Views and tasks stay thin and call in here.

A run's life: ``launch_run`` stores it *queued* and sends ``start_run`` once the transaction commits;
``start_run`` builds the campus snapshot once, stores it on the run, cuts the replicas into chunks and fans the
chunks out (one ``run_chunk`` task each). A chunk stores every replica it finishes in its own transaction,
with the Run row locked (``select_for_update``), so counting what is stored and deciding "that was the last
one" is never racy: the transaction that stores the last replica aggregates, writes the summary and series and
marks the run succeeded. Every step reads what is left to do from the database, so a redelivered or
re-sent task repeats nothing that is already stored. ``reap_stale_runs`` re-sends the chunks of a worker that
died and fails a run that keeps losing its workers, so no run stays *running* for ever.
"""

from __future__ import annotations

import io
import logging
import math
import os
import pickle
import secrets
import socket
import threading
import time
import uuid
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Greatest, Least
from django.utils import timezone

from .choices import FINISHED_RUN_STATUSES, THRESHOLD_STATS, RunStatus
from .models import (
    DISPLAY_POINTS,
    MAX_REPLICAS,
    MAX_SEED,
    ReplicaResult,
    Run,
    RunChunk,
    RunSeries,
    Scenario,
    Schedule,
    pack_floats,
)

log = logging.getLogger(__name__)


def _env_int(name: str, default: int) -> int:
    return int(getattr(settings, name, os.environ.get(name, default)))


# Chunks per run to aim for: enough to keep many workers busy, few enough that the per-task cost (a message,
# the snapshot load) stays small next to the replicas.
TARGET_CHUNKS = _env_int("TWIN_RUN_TARGET_CHUNKS", 32)
MAX_CHUNK_REPLICAS = _env_int("TWIN_RUN_MAX_CHUNK_REPLICAS", 25)
# A busy chunk touches its heartbeat this often, s.
HEARTBEAT_S = float(_env_int("TWIN_RUN_HEARTBEAT_SECONDS", 5))
# A running chunk whose heartbeat is older than this lost its worker, s.
STALE_S = _env_int("TWIN_RUN_STALE_SECONDS", 120)
# A chunk sent this long ago and never picked up while the broker queue is empty lost its message, s.
QUEUED_STALE_S = _env_int("TWIN_RUN_QUEUED_STALE_SECONDS", 900)
# Sends of one chunk before the run is failed (a replica that kills its worker must not loop for ever).
MAX_ATTEMPTS = _env_int("TWIN_RUN_MAX_ATTEMPTS", 3)
# Intra-replica progress is written at most this often, s.
PROGRESS_EVERY_S = 2.0


class RunFinishedError(Exception):
    """The run already finished (succeeded, failed or cancelled)."""


class RunStopped(Exception):
    """The run was cancelled, failed or deleted while a chunk was busy with it."""


# ---------------------------------------------------------------- the engine boundary


def _runner():
    from simulations.engine import runner

    return runner


def validated_params(kind: str, params: dict | None):
    from simulations.engine.params import validate_params

    return validate_params(kind, params or {})


def kinds() -> list[dict[str, Any]]:
    """Every scenario kind with its JSON schema and defaults (the dashboard builds its forms from them)."""
    from simulations.engine.params import KINDS, default_params, params_json_schema

    from .choices import ScenarioKind

    labels = dict(ScenarioKind.choices)
    return [
        {"kind": k, "label": labels.get(k, k), "schema": params_json_schema(k), "defaults": default_params(k)}
        for k in KINDS
    ]


def pack_snapshot(snap: Any) -> bytes:
    return zlib.compress(pickle.dumps(snap, protocol=pickle.HIGHEST_PROTOCOL), 3)


def unpack_snapshot(blob: bytes | memoryview) -> Any:
    # Written only by start_run from our own dataclasses (never user input).
    return pickle.loads(zlib.decompress(bytes(blob)))  # noqa: S301


def pack_series(series: dict[str, Any]) -> bytes:
    buf = io.BytesIO()
    np.savez_compressed(buf, **{name: np.asarray(v, dtype="<f4") for name, v in series.items()})
    return buf.getvalue()


def unpack_series(blob: bytes | memoryview | None) -> dict[str, np.ndarray]:
    if not blob:
        return {}
    with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


@dataclass
class _Prepared:
    kind: str
    params: Any
    snap: Any
    plan: Any


# Per worker process: the prepared inputs of the last few runs, so the chunks of one run that land on the same
# process pay for unpickling the snapshot and preparing the plan once.
_PREPARED: OrderedDict[int, _Prepared] = OrderedDict()
_PREPARED_MAX = 4


def _prepare(kind: str, snap: Any, params: Any) -> Any:
    """The engine's per-snapshot precomputation (job placement, failure classes...), shared by the replicas."""
    return _runner().prepare(snap, kind, params)


def _prepared(run: Run) -> _Prepared:
    hit = _PREPARED.get(run.pk)
    if hit is not None:
        _PREPARED.move_to_end(run.pk)
        return hit
    blob = Run.objects.filter(pk=run.pk).values_list("snapshot", flat=True).first()
    if blob:
        snap = unpack_snapshot(blob)
    else:
        from campus.snapshot_adapter import build_snapshot

        snap = build_snapshot(run.scenario.campus_id)
    params = validated_params(run.scenario.kind, run.params)
    prepared = _Prepared(run.scenario.kind, params, snap, _prepare(run.scenario.kind, snap, params))
    _PREPARED[run.pk] = prepared
    while len(_PREPARED) > _PREPARED_MAX:
        _PREPARED.popitem(last=False)
    return prepared


def _run_replica(prep: _Prepared, seed: int, progress) -> Any:
    return prep.plan.run(seed, progress)


# ---------------------------------------------------------------- launching and cancelling


def chunk_size_for(replicas: int) -> int:
    return max(1, min(MAX_CHUNK_REPLICAS, math.ceil(replicas / TARGET_CHUNKS)))


def new_seed() -> int:
    return secrets.randbelow(2**31)


@transaction.atomic
def launch_run(
    scenario: Scenario,
    replicas: int = 10,
    seed: int | None = None,
    user=None,
    schedule: Schedule | None = None,
) -> Run:
    """Store a queued run of ``scenario`` and send ``start_run`` once the transaction commits."""
    if not 1 <= replicas <= MAX_REPLICAS:
        raise ValueError(f"replicas must be between 1 and {MAX_REPLICAS}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and {MAX_SEED}")
    # Freeze the full parameter set now: later edits of the scenario do not change a run in flight.
    params = validated_params(scenario.kind, scenario.params).model_dump(mode="json")
    run = Run.objects.create(
        scenario=scenario,
        replicas=replicas,
        seed=new_seed() if seed is None else seed,
        params=params,
        chunk_size=chunk_size_for(replicas),
        schedule=schedule,
        created_by=user if getattr(user, "is_authenticated", False) else None,
        celery_task_id=str(uuid.uuid4()),
    )
    transaction.on_commit(lambda: _send_start(run.pk, run.celery_task_id))
    return run


def _send_start(run_id: int, task_id: str | None = None) -> None:
    from .tasks import start_run

    start_run.apply_async(args=[run_id], task_id=task_id)


@transaction.atomic
def cancel_run(run_id: int) -> Run:
    """Mark the run cancelled; its chunks stop before their next replica. RunFinishedError if it had finished."""
    run = Run.objects.select_for_update().get(pk=run_id)
    if run.status in FINISHED_RUN_STATUSES:
        raise RunFinishedError(f"run {run.pk} already {run.status}")
    now = timezone.now()
    run.status = RunStatus.CANCELLED
    run.finished = now
    run.snapshot = None
    run.save(update_fields=["status", "finished", "updated", "snapshot"])
    return run


def _fail(run_id: int, error: str) -> bool:
    """Mark the run failed with ``error`` unless it already finished; True when this call failed it."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status in FINISHED_RUN_STATUSES:
            return False
        run.status = RunStatus.FAILED
        run.error = error[:10_000]
        run.finished = timezone.now()
        run.snapshot = None
        run.save(update_fields=["status", "error", "finished", "updated", "snapshot"])
    log.warning("run %s failed: %s", run_id, error)
    return True


# ---------------------------------------------------------------- start_run: snapshot once, fan out


def start(run_id: int) -> str:
    """Build the snapshot, cut the replicas into chunks and send them. Does nothing twice."""
    with transaction.atomic():
        run = Run.objects.select_for_update().select_related("scenario").filter(pk=run_id).first()
        if run is None:
            return "missing"
        if run.status in FINISHED_RUN_STATUSES:
            return "finished"
        if run.chunks.exists():
            # A redelivered start: the fan-out happened; the reaper owns whatever was lost since.
            return "started"
        try:
            from campus.snapshot_adapter import build_snapshot

            snap = build_snapshot(run.scenario.campus_id)
            params = validated_params(run.scenario.kind, run.params)
            plan = _prepare(run.scenario.kind, snap, params)
        except Exception as exc:  # the campus cannot run this scenario: a clear failure, not a retry loop
            run.status = RunStatus.FAILED
            run.error = f"could not prepare the scenario: {exc}"
            run.finished = timezone.now()
            run.save(update_fields=["status", "error", "finished", "updated"])
            return "failed"
        now = timezone.now()
        run.snapshot = pack_snapshot(snap)
        run.status = RunStatus.RUNNING
        run.started = now
        run.attempts += 1
        run.save(update_fields=["snapshot", "status", "started", "attempts", "updated"])
        size = run.chunk_size
        chunks = RunChunk.objects.bulk_create(
            RunChunk(
                run=run,
                number=n,
                indices=list(range(lo, min(lo + size, run.replicas))),
                attempts=1,
                dispatched=now,
            )
            for n, lo in enumerate(range(0, run.replicas, size))
        )
        # This process will likely run some chunks itself: keep what it just built.
        _PREPARED[run.pk] = _Prepared(run.scenario.kind, params, snap, plan)
        payload = [(c.number, c.indices) for c in chunks]
        transaction.on_commit(lambda: _send_chunks(run_id, payload))
    return "dispatched"


def _send_chunks(run_id: int, chunks: list[tuple[int, list[int]]]) -> None:
    from celery import group

    from .tasks import run_chunk

    group(run_chunk.si(run_id, indices, number) for number, indices in chunks).apply_async()


# ---------------------------------------------------------------- run_chunk: replicas, fan-in


class _Heartbeat:
    """Touch the chunk and run heartbeat while the chunk works; notice a cancel from another process."""

    def __init__(self, run_id: int, chunk_id: int | None) -> None:
        self.run_id = run_id
        self.chunk_id = chunk_id
        self.stop_event = threading.Event()
        self.stopped_run = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True, name=f"run-{run_id}-heartbeat")

    def __enter__(self) -> _Heartbeat:
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


def sweep_now_and_then() -> None:
    """Reap from the workers themselves, at most once per half stale period per process: beat's reaper task
    waits in the same queue as the chunks, behind however many of them are queued."""
    now = time.monotonic()
    if now - _last_sweep[0] < STALE_S / 2:
        return
    _last_sweep[0] = now
    try:
        report = reap_stale_runs()
    except Exception:
        log.exception("reaper sweep")
        return
    if any(report.values()):
        log.warning("reaper: %s", report)


def execute_chunk(run_id: int, indices: list[int], number: int | None = None) -> str:
    """Run the replicas ``indices`` of the run that are not stored yet. Safe to run twice, or concurrently."""
    sweep_now_and_then()
    with transaction.atomic():
        run = Run.objects.select_for_update().select_related("scenario").filter(pk=run_id).first()
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
    runner = _runner()
    prep = _prepared(run)
    with _Heartbeat(run_id, chunk.pk if chunk else None) as beat:
        for index in todo:
            if (
                beat.stopped_run.is_set()
                or not Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists()
            ):
                return "stopped"
            seed = int(runner.replica_seed(run.seed, index))
            started = time.monotonic()
            try:
                result = _run_replica(prep, seed, _progress_writer(run_id, run.replicas, beat))
            except RunStopped:
                return "stopped"
            outcome = store_replica(run_id, index, seed, result, time.monotonic() - started)
            if outcome == "stopped":
                return "stopped"
    if chunk is not None:
        RunChunk.objects.filter(pk=chunk.pk).update(state=RunChunk.State.DONE, heartbeat=timezone.now())
    return "done"


def _progress_writer(run_id: int, replicas: int, beat: _Heartbeat):
    last = [0.0]

    def progress(fraction: float) -> None:
        if beat.stopped_run.is_set():
            # Raised inside the engine's loop: a cancelled replica stops now, not at its end.
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


def store_replica(run_id: int, index: int, seed: int, result: Any, duration_s: float = 0.0) -> str:
    """Store one replica's result (once) and, if it was the last one, finish the run in the same transaction."""
    with transaction.atomic():
        run = Run.objects.select_for_update().select_related("scenario").filter(pk=run_id).first()
        if run is None or run.status != RunStatus.RUNNING:
            return "stopped"
        _, created = ReplicaResult.objects.get_or_create(
            run=run,
            index=index,
            defaults={
                "seed": seed,
                "metrics": _plain(result.metrics),
                "by_cause": _plain(result.by_cause),
                "events": int(getattr(result, "events", 0) or 0),
                "series": pack_series(result.series) if result.series else None,
                "duration_s": duration_s,
            },
        )
        if not created:
            return "duplicate"
        run.replicas_done = ReplicaResult.objects.filter(run=run).count()
        run.progress = min(1.0, run.replicas_done / run.replicas)
        run.save(update_fields=["replicas_done", "progress", "updated"])
        if run.replicas_done >= run.replicas:
            try:
                finalize(run)
            except Exception as exc:
                # Rolls back with the last replica: the run is failed by the caller, never half-finished.
                raise RuntimeError(f"aggregating the {run.replicas} replicas failed: {exc}") from exc
            return "finished"
    return "stored"


def _plain(data: dict) -> dict:
    """JSON-ready copy: numpy scalars become floats, NaN and infinities become None."""
    out = {}
    for key, value in (data or {}).items():
        if isinstance(value, dict):
            out[str(key)] = _plain(value)
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            out[str(key)] = value
            continue
        out[str(key)] = number if math.isfinite(number) else None
    return out


def _engine_results(rows: list[ReplicaResult]) -> list[Any]:
    # Without their series: aggregate() reads metrics, causes and event counts only.
    from simulations.engine.results import ReplicaResult as EngineResult

    return [
        EngineResult(
            metrics={k: (float("nan") if v is None else v) for k, v in r.metrics.items()},
            by_cause=dict(r.by_cause),
            events=r.events,
        )
        for r in rows
    ]


def _downsample(t: np.ndarray, columns: dict[str, np.ndarray], max_points: int) -> dict[str, list[float]]:
    """Keep at most ``max_points``: evenly spaced samples plus each bucket's extreme of the mean, so spikes
    a chart must show survive the thinning."""
    n = len(t)
    if n <= max_points:
        keep = np.arange(n)
    else:
        buckets = max(1, max_points // 2)
        edges = np.linspace(0, n, buckets + 1).astype(int)
        picks = [0, n - 1]
        values = columns["values"]
        for lo, hi in zip(edges[:-1], edges[1:], strict=False):
            if hi <= lo:
                continue
            seg = values[lo:hi]
            picks.extend(
                (
                    lo + int(np.nanargmin(seg)) if np.isfinite(seg).any() else lo,
                    lo + int(np.nanargmax(seg)) if np.isfinite(seg).any() else hi - 1,
                )
            )
        keep = np.unique(np.asarray(picks))[:max_points]
    out = {"t_hours": [round(float(x), 6) for x in t[keep]]}
    for name, col in columns.items():
        out[name] = [None if not np.isfinite(x) else float(x) for x in col[keep]]
    return out


# Above this many replica x point values per metric the percentile bands are taken on every k-th point
# (the mean stays at full resolution): 1,000 replicas of a 50k-point series would otherwise need GBs.
BAND_VALUES_MAX = 8_000_000


def _aggregate_series(rows: list[ReplicaResult]) -> dict[str, dict[str, np.ndarray]]:
    """Mean and 5th/95th percentile of each series across replicas, on a shared time axis.

    Reads one metric of one replica at a time (npz members load lazily), so memory stays near one metric's
    band matrix whatever the number of metrics.
    """
    files = []
    for r in rows:
        if r.series:
            f = np.load(io.BytesIO(bytes(r.series)), allow_pickle=False)
            if "t_hours" in f.files:
                files.append((f, f["t_hours"].astype(np.float64)))
    files = [(f, t) for f, t in files if len(t)]
    if not files:
        return {}
    # Replicas of a kind usually share one sampling grid; when they do not, resample on the longest one.
    grid = max((t for _, t in files), key=len)
    names = sorted({n for f, _ in files for n in f.files if n != "t_hours"})
    stride = max(1, math.ceil(len(files) * len(grid) / BAND_VALUES_MAX))
    band_grid = grid[::stride]
    out = {}
    for name in names:
        total = np.zeros(len(grid))
        count = np.zeros(len(grid))
        band = []
        for f, t in files:
            if name not in f.files:
                continue
            v = f[name].astype(np.float64)
            if len(v) != len(t):
                continue
            if not (len(t) == len(grid) and np.array_equal(t, grid)):
                v = np.interp(grid, t, v)
            finite = np.isfinite(v)
            total += np.where(finite, v, 0.0)
            count += finite
            band.append(v[::stride].astype(np.float32))
        if not band:
            continue
        m = np.vstack(band)
        # np.nanpercentile loops in Python over the columns (seconds for a 50k-point series): use it only
        # when there is a gap to skip.
        percentile = np.nanpercentile if np.isnan(m).any() else np.percentile
        with np.errstate(all="ignore"):
            p5, p95 = percentile(m, [5, 95], axis=0)
            mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
        if stride > 1:
            p5, p95 = np.interp(grid, band_grid, p5), np.interp(grid, band_grid, p95)
        out[name] = {"values": mean, "p5": p5, "p95": p95, "t_hours": grid}
    return out


def finalize(run: Run) -> None:
    """Aggregate the stored replicas, write summary and series, evaluate thresholds, mark succeeded.

    Called inside the transaction that holds the Run row lock and stored the last replica.
    """
    rows = list(ReplicaResult.objects.filter(run=run).order_by("index"))
    results = _engine_results(rows)
    aggregated = _runner().aggregate(results)
    totals = ("by_cause", "replicas", "events")
    summary = {
        "metrics": _plain({k: v for k, v in aggregated.items() if k not in totals}),
        "by_cause": _plain(aggregated.get("by_cause") or {}),
        "replicas": len(rows),
        "events": int(aggregated.get("events") or 0),
        # Engine time summed over the replicas (not wall time: chunks run in parallel).
        "compute_s": float(sum(r.duration_s for r in rows)),
    }
    RunSeries.objects.filter(run=run).delete()
    series_rows = []
    for name, cols in _aggregate_series(rows).items():
        t = cols["t_hours"]
        series_rows.append(
            RunSeries(
                run=run,
                metric=name,
                points=len(t),
                t_hours=pack_floats(t),
                values=pack_floats(cols["values"]),
                p5=pack_floats(cols["p5"]),
                p95=pack_floats(cols["p95"]),
                display=_downsample(t, {k: cols[k] for k in ("values", "p5", "p95")}, DISPLAY_POINTS),
            )
        )
    RunSeries.objects.bulk_create(series_rows)
    reasons: list[dict[str, Any]] = []
    if run.schedule_id:
        schedule = Schedule.objects.filter(pk=run.schedule_id).first()
        if schedule is not None and schedule.thresholds:
            reasons = evaluate_thresholds(schedule.thresholds, summary, lambda: _campus_values(run))
    run.summary = summary
    run.flagged = bool(reasons)
    run.flag_reasons = reasons
    run.status = RunStatus.SUCCEEDED
    run.progress = 1.0
    run.finished = timezone.now()
    run.snapshot = None
    run.save(
        update_fields=[
            "summary",
            "flagged",
            "flag_reasons",
            "status",
            "progress",
            "finished",
            "snapshot",
            "updated",
        ]
    )
    RunChunk.objects.filter(run=run).update(state=RunChunk.State.DONE)
    _PREPARED.pop(run.pk, None)


# ---------------------------------------------------------------- thresholds


_OPS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _campus_values(run: Run) -> dict[str, float]:
    """Numeric figures of the campus summary (power headroom and the like), flattened to dotted names."""
    try:
        from campus.analysis.summary import campus_summary
    except ImportError:
        return {}
    blob = run.snapshot
    if blob:
        snap = unpack_snapshot(blob)
    else:
        from campus.snapshot_adapter import build_snapshot

        snap = build_snapshot(run.scenario.campus_id)
    data = campus_summary(snap)
    if hasattr(data, "__dataclass_fields__"):
        from dataclasses import asdict

        data = asdict(data)
    flat: dict[str, float] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            flat[prefix] = float(value)

    walk("", data)
    return flat


def evaluate_thresholds(rules: list[dict], summary: dict, campus_values=None) -> list[dict[str, Any]]:
    """The rules a run's results break, each with the value found. A rule whose metric is missing is
    reported too: a typo must not pass silently. ``campus.<name>`` rules test the campus summary."""
    reasons = []
    campus: dict[str, float] | None = None
    for rule in rules:
        metric, op, limit = rule["metric"], rule["op"], float(rule["value"])
        stat = rule.get("stat", "mean")
        actual: float | None = None
        if metric.startswith("campus."):
            if campus is None:
                campus = campus_values() if callable(campus_values) else dict(campus_values or {})
            actual = campus.get(metric.removeprefix("campus."))
        else:
            entry = (summary.get("metrics") or {}).get(metric)
            if isinstance(entry, dict):
                actual = entry.get(stat)
            elif isinstance(entry, int | float):
                actual = entry
        where = metric if metric.startswith("campus.") else f"{metric} ({stat})"
        if actual is None:
            reasons.append(
                {**rule, "stat": stat, "actual": None, "message": f"{where} is not in the results"}
            )
        elif _OPS[op](float(actual), limit):
            reasons.append(
                {
                    **rule,
                    "stat": stat,
                    "actual": float(actual),
                    "message": f"{where} = {actual:.6g} {op} {limit:g}",
                }
            )
    return reasons


# ---------------------------------------------------------------- schedules


def run_schedule(schedule_id: int) -> Run | None:
    """One firing of a schedule: a new run (every run is kept); flags are set when it finishes."""
    schedule = Schedule.objects.select_related("scenario").filter(pk=schedule_id).first()
    if schedule is None or not schedule.enabled:
        return None
    return launch_run(schedule.scenario, replicas=schedule.replicas, seed=schedule.seed, schedule=schedule)


# ---------------------------------------------------------------- the reaper


def broker_backlog() -> int | None:
    """Messages waiting in the broker's default queue, or None when it cannot tell."""
    from twin.celery import app

    url = app.conf.broker_url or ""
    try:
        if url.startswith(("redis://", "rediss://")):
            import redis

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


def reap_stale_runs(now=None) -> dict[str, list[int]]:
    """Re-send the chunks of dead workers, re-send lost messages, fail runs that keep losing workers.

    A chunk is lost when its heartbeat is older than STALE_S while it was running (its worker died: SIGKILL,
    OOM, a hard time limit), or when it was sent QUEUED_STALE_S ago, never started and the broker queue is
    empty (the message itself was lost). Each chunk is sent at most MAX_ATTEMPTS times.
    """
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
            transaction.on_commit(lambda rid=run_id: _send_start(rid))
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
            lost = []
            _fail_locked(run, "the run lost its chunks before they were recorded")
            report["failed"].append(run.pk)
            return
        if not lost:
            return
        worn = [c for c in lost if c.attempts >= MAX_ATTEMPTS]
        if worn:
            c = worn[0]
            _fail_locked(
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
        transaction.on_commit(lambda: _send_chunks(run_id, payload))
        report["requeued"].append(run.pk)


def _fail_locked(run: Run, error: str) -> None:
    run.status = RunStatus.FAILED
    run.error = error
    run.finished = timezone.now()
    run.snapshot = None
    run.save(update_fields=["status", "error", "finished", "snapshot", "updated"])


# ---------------------------------------------------------------- reading results


def series_metrics(run: Run) -> list[str]:
    return list(run.series.order_by("metric").values_list("metric", flat=True))


def timeseries(run: Run, metric: str, full: bool = False) -> dict[str, Any] | None:
    """One metric's series: the display copy, or every point when ``full``. None if the run has no such metric."""
    row = run.series.filter(metric=metric).first()
    if row is None:
        return None
    data = row.full() if full else dict(row.display)
    return {
        "run": run.pk,
        "metric": metric,
        "full": full,
        "points_total": row.points,
        "points": len(data.get("t_hours", [])),
        **data,
    }


def compare_runs(runs: list[Run]) -> dict[str, Any]:
    """Summaries side by side; differences of each statistic against the first run (the baseline)."""
    base = runs[0]
    names = sorted({m for r in runs for m in ((r.summary or {}).get("metrics") or {})})
    metrics: dict[str, Any] = {}
    for name in names:
        entries = []
        base_entry = ((base.summary or {}).get("metrics") or {}).get(name) or {}
        for r in runs:
            entry = ((r.summary or {}).get("metrics") or {}).get(name)
            diff = None
            if isinstance(entry, dict) and r.pk != base.pk:
                mean, base_mean = entry.get("mean"), base_entry.get("mean")
                if mean is not None and base_mean is not None:
                    diff = {
                        "mean_delta": mean - base_mean,
                        "mean_delta_pct": (mean - base_mean) / abs(base_mean) * 100.0 if base_mean else None,
                        # Confidence intervals that do not overlap: a difference the replicas support.
                        "significant": _separated(entry, base_entry),
                    }
            entries.append({"run": r.pk, "stats": entry, "vs_baseline": diff})
        metrics[name] = entries
    return {
        "baseline": base.pk,
        "runs": [
            {
                "id": r.pk,
                "scenario": r.scenario_id,
                "scenario_name": r.scenario.name,
                "kind": r.scenario.kind,
                "status": r.status,
                "replicas": r.replicas,
                "seed": r.seed,
                "params": r.params,
            }
            for r in runs
        ],
        "metrics": metrics,
        "stats": list(THRESHOLD_STATS),
    }


def _separated(a: dict, b: dict) -> bool | None:
    keys = ("ci95_low", "ci95_high")
    if any(a.get(k) is None or b.get(k) is None for k in keys):
        return None
    return a["ci95_low"] > b["ci95_high"] or b["ci95_low"] > a["ci95_high"]
