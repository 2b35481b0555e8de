"""Launching, cancelling and failing runs, and one firing of a schedule."""

from __future__ import annotations

import logging
import math
import secrets
import uuid
from datetime import date

from django.db import transaction
from django.utils import timezone

from simulations.choices import FINISHED_RUN_STATUSES, RunStatus
from simulations.engine.params import ParamsError
from simulations.engine.registry import model
from simulations.models import MAX_REPLICAS, MAX_SEED, Run, Scenario, Schedule

from . import confidence as confidence_spec
from . import replay
from . import sweeps as sweep_spec
from .config import (
    MAX_CHUNK_REPLICAS,
    MIN_CHUNKS,
    TARGET_CHUNKS,
    RunFinishedError,
    default_replicas,
    stochastic,
    validated_params,
)
from .dispatch import send_start

log = logging.getLogger(__name__)


def chunk_size_for(replicas: int, kind: str | None = None) -> int:
    """Replicas per chunk: about TARGET_CHUNKS chunks of at most MAX_CHUNK_REPLICAS. A kind whose replicas
    take milliseconds names a larger ``MIN_CHUNK_REPLICAS``: its chunks then hold up to that many, so the
    per-chunk cost (a message, a transaction, a heartbeat thread) is shared by many replicas, while a run
    still has at least MIN_CHUNKS chunks to spread over the workers."""
    floor = 1
    if kind is not None:
        floor = max(1, int(getattr(model(kind), "MIN_CHUNK_REPLICAS", 1)))
    size = max(math.ceil(replicas / TARGET_CHUNKS), min(floor, replicas // MIN_CHUNKS))
    return max(1, min(size, max(MAX_CHUNK_REPLICAS, floor)))


def new_seed() -> int:
    return secrets.randbelow(2**31)


@transaction.atomic
def launch_run(
    scenario: Scenario,
    replicas: int | None = None,
    seed: int | None = None,
    user=None,
    schedule: Schedule | None = None,
    sweep: dict | None = None,
    as_of: date | None = None,
    confidence_target: dict | None = None,
) -> Run:
    """Store a queued run of ``scenario`` and send ``start_run`` once the transaction commits.

    ``replicas`` None: the kind's default for a kind whose replicas can differ with these parameters, else 1. A
    deterministic run is always one replica (more would repeat it exactly): a larger count is capped to 1.

    ``sweep`` (the request's ``{"parameters": [...]}``): run every point of the grid with ``replicas`` replicas
    each (``runs.sweeps``; SweepError names what is wrong). A point whose parameters are deterministic runs
    one replica only when every point is.

    ``as_of``: the day whose in-service campus the run reads (``campus.analysis.phases``: retired equipment
    and equipment not yet in service do not count), default today; stored on the run, so that running it
    again reads the same day. A scheduled run reads the day it fires.

    ``confidence_target`` ({"relative_half_width", "metric", "confidence", "min_replicas"}): ``replicas`` is
    the cap, and the run stops once the confidence interval of the metric's mean is that narrow
    (``runs.confidence``; ConfidenceTargetError names what is wrong)."""
    validated = validated_params(scenario.kind, scenario.params)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and {MAX_SEED}")
    # Freeze the full parameter set now: later edits of the scenario do not change a run in flight; a
    # measured load is read now, so the run keeps the series it replays.
    failure = None
    try:
        params = replay.resolve(
            scenario.kind, validated.model_dump(mode="json"), scenario.campus_id, scenario.campus.name
        )
    except ParamsError as exc:
        if schedule is None:
            raise
        # a schedule fires unattended: its run is kept, failed with the reason (the window's rollups pruned)
        failure = f"could not read the measured load: {exc}"
        params = validated.model_dump(mode="json")
    spec = None
    if sweep is not None:
        per_point = replicas if replicas is not None else default_replicas(scenario.kind, validated)
        if not 1 <= per_point <= MAX_REPLICAS:
            raise ValueError(f"replicas must be between 1 and {MAX_REPLICAS}")
        spec = sweep_spec.normalise(scenario.kind, params, sweep, per_point)
        random = any(
            stochastic(
                scenario.kind,
                validated_params(scenario.kind, sweep_spec.point_params(scenario.kind, params, spec, k)),
            )
            for k in range(len(spec["points"]))
        )
        if not random:
            spec["replicas_per_point"] = 1
        replicas = len(spec["points"]) * spec["replicas_per_point"]
        size = min(chunk_size_for(replicas, scenario.kind), spec["replicas_per_point"])
    else:
        if replicas is None:
            replicas = default_replicas(scenario.kind, validated)
        if not 1 <= replicas <= MAX_REPLICAS:
            raise ValueError(f"replicas must be between 1 and {MAX_REPLICAS}")
        random = stochastic(scenario.kind, validated)
        if not random:
            replicas = 1
        size = chunk_size_for(replicas, scenario.kind)
    confidence = None
    if confidence_target is not None:
        try:
            confidence = confidence_spec.normalise(
                scenario.kind, confidence_target, replicas, random, sweep is not None
            )
        except confidence_spec.ConfidenceTargetError as exc:
            if schedule is None:
                raise
            # the scenario changed since the schedule was saved: its run is kept, failed with the reason
            failure = failure or f"the schedule's confidence target does not fit the scenario: {exc}"
    run = Run.objects.create(
        scenario=scenario,
        # What the run runs, as the scenario is now (a later edit of the scenario changes neither).
        kind=scenario.kind,
        campus_id=scenario.campus_id,
        scenario_name=scenario.name,
        replicas=replicas,
        seed=new_seed() if seed is None else seed,
        params=params,
        sweep=spec,
        confidence=confidence,
        as_of=as_of or timezone.localdate(),
        chunk_size=size,
        schedule=schedule,
        created_by=user if getattr(user, "is_authenticated", False) else None,
        celery_task_id=str(uuid.uuid4()),
    )
    if failure is not None:
        fail_locked(run, failure)
        return run
    transaction.on_commit(lambda: send_start(run.pk, run.celery_task_id))
    return run


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


def fail_run(run_id: int, error: str) -> bool:
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


def fail_locked(run: Run, error: str) -> None:
    """Mark ``run`` failed; the caller holds its row lock and has checked that it is running."""
    run.status = RunStatus.FAILED
    run.error = error
    run.finished = timezone.now()
    run.snapshot = None
    run.save(update_fields=["status", "error", "finished", "snapshot", "updated"])


def run_schedule(schedule_id: int) -> Run | None:
    """One firing of a schedule: a new run (every run is kept); flags are set when it finishes."""
    schedule = Schedule.objects.select_related("scenario").filter(pk=schedule_id).first()
    if schedule is None or not schedule.enabled:
        return None
    return launch_run(
        schedule.scenario,
        replicas=schedule.replicas,
        seed=schedule.seed,
        schedule=schedule,
        confidence_target=schedule.confidence_target,
    )
