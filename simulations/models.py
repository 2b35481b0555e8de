"""Scenarios, their runs and results, and the schedules that run them.

Run state lives on our own ``Run`` row (as NetBox's ``Job`` does), never in a Celery result backend: a task is
keyed by run id and reads what is left to do from the database, so running it twice does no harm.
Replica results are rows of their own, written as each replica finishes, so the work of a worker that dies
mid-run survives it; time series are float32 little-endian bytes at full resolution plus a small JSON copy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from celery.schedules import crontab
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, URLValidator
from django.db import models
from django.db.models import Q

from simulations.engine.params import ParamsError, validate_params

from .choices import THRESHOLD_STATS, RunStatus, ScenarioKind, ThresholdOp

MAX_REPLICAS = 1000
# Replicas of one run in all: a sweep runs its replicas at every point of its grid (the API's own, lower and
# configurable bound is TWIN_SWEEP_MAX_REPLICAS, simulations.runs.sweeps); this is the database's ceiling.
MAX_RUN_REPLICAS = 100_000
# Seeds stay below 2**53 so that a browser's JSON numbers hold them exactly.
MAX_SEED = 2**53 - 1
# Points kept in the display copy of a series (the chart never needs more).
DISPLAY_POINTS = 2000


def pack_floats(values: Any) -> bytes:
    """A sequence of numbers as float32 little-endian bytes."""
    return np.asarray(values, dtype="<f4").tobytes()


def unpack_floats(data: bytes | memoryview | None) -> np.ndarray:
    if data is None:
        return np.zeros(0, dtype="<f4")
    return np.frombuffer(bytes(data), dtype="<f4")


def params_errors(kind: str, params: Any) -> dict[str, list[str]]:
    """{"<dotted path>": [message]} for each bad parameter of ``kind`` (empty when valid)."""
    try:
        validate_params(kind, params)
    except ParamsError as exc:
        out: dict[str, list[str]] = {}
        for err in exc.errors:
            out.setdefault(err["field"] or "params", []).append(err["message"])
        return out
    return {}


class Scenario(models.Model):
    """A what-if question about one campus: a kind of simulation and its parameters."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="scenarios")
    kind = models.CharField(max_length=32, choices=ScenarioKind.choices)
    name = models.CharField(max_length=128)
    description = models.TextField(blank=True)
    # As the user gave them: anything left out takes the engine's default at run time.
    params = models.JSONField(default=dict, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="scenarios"
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="scenario_unique_name_per_campus")
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors = params_errors(self.kind, self.params)
        if errors:
            raise ValidationError({"params": [f"{path}: {'; '.join(msgs)}" for path, msgs in errors.items()]})


class Run(models.Model):
    """One execution of a scenario: ``replicas`` independent seeded replicas, then their aggregate.

    A sweep (``sweep`` set) runs the scenario at every point of a grid of one or two parameters: its
    ``replicas`` are ``len(points) x replicas_per_point``, replica ``i`` belonging to point
    ``i // replicas_per_point`` (``simulations.runs.sweeps``), and its summary has one entry per point."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    # What the run ran, as the scenario was when the run was queued: later edits of the scenario (its kind,
    # its campus, its name or parameters) neither change a run in flight nor relabel a finished one.
    kind = models.CharField(max_length=32, choices=ScenarioKind.choices, db_index=True)
    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="simulation_runs")
    scenario_name = models.CharField(max_length=128, blank=True)
    status = models.CharField(
        max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True
    )
    progress = models.FloatField(default=0.0, validators=[MinValueValidator(0), MaxValueValidator(1)])
    seed = models.BigIntegerField(validators=[MinValueValidator(0), MaxValueValidator(MAX_SEED)])
    replicas = models.PositiveIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(MAX_RUN_REPLICAS)]
    )
    replicas_done = models.PositiveIntegerField(default=0)
    chunk_size = models.PositiveIntegerField(default=1)
    # The full parameter set the run used (the scenario's, defaults filled in), frozen at launch.
    params = models.JSONField(default=dict)
    # A sweep: {"parameters": [{"name", "values"}], "points": [{name: value}], "replicas_per_point": n},
    # frozen at launch; None for a plain run.
    sweep = models.JSONField(null=True, blank=True)
    # The day whose in-service campus the run reads (campus.analysis.phases), fixed at launch (default: that
    # day); None on runs from before runs had a day: they read the campus as designed.
    as_of = models.DateField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # Heartbeat: touched while a worker is busy with the run; the reaper reads it.
    updated = models.DateTimeField(auto_now=True, db_index=True)
    summary = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    flagged = models.BooleanField(default=False, db_index=True)
    flag_reasons = models.JSONField(default=list, blank=True)
    schedule = models.ForeignKey(
        "simulations.Schedule", on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    celery_task_id = models.CharField(max_length=64, blank=True)
    # Times the run was (re)dispatched: 1 at the first start, +1 per recovery by the reaper.
    attempts = models.PositiveIntegerField(default=0)
    # The campus snapshot the replicas share, built once at start (zlib-compressed pickle of plain
    # dataclasses, written and read only by our own workers).
    snapshot = models.BinaryField(null=True, blank=True, editable=False)
    # The campus state the run computed on, recorded when its snapshot is built (``runs.campus_state``): the
    # campus's revision (``Campus.revision``), the day, and key figures (IT MW,
    # the PUE used). None: not started yet, or a run from before runs recorded it.
    campus_state = models.JSONField(null=True, blank=True)
    # A confidence target (``runs.confidence``): {metric, relative_half_width, confidence, min_replicas,
    # max_replicas} from the request, then the stopping rule's state and what it reached so far (replicas,
    # mean, half_width, converged). None: the run runs ``replicas`` replicas.
    confidence = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ("-created", "-id")
        constraints = [
            models.CheckConstraint(
                condition=Q(progress__gte=0) & Q(progress__lte=1), name="run_progress_0_1"
            ),
            models.CheckConstraint(
                condition=Q(replicas__gte=1) & Q(replicas__lte=MAX_RUN_REPLICAS),
                name="run_replicas_in_range",
            ),
            models.CheckConstraint(
                condition=Q(replicas_done__lte=models.F("replicas")), name="run_done_le_total"
            ),
        ]
        indexes = [models.Index(fields=("status", "updated"), name="run_status_heartbeat")]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.scenario_id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


class ReplicaResult(models.Model):
    """The outcome of one replica; at most one row per (run, index), whatever happens to the workers."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="replica_results")
    index = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    metrics = models.JSONField(default=dict)
    by_cause = models.JSONField(default=dict, blank=True)
    # Simulation events the replica processed (a measure of its work, for the benchmark and the admin).
    events = models.PositiveBigIntegerField(default=0)
    # The replica's own series (npz of float32 arrays, "t_hours" included) for the run's fan-in.
    series = models.BinaryField(null=True, blank=True, editable=False)
    # What the kind reports beside its numbers (violations, a spectrum, sizing sweeps), JSON-ready.
    details = models.JSONField(default=dict, blank=True)
    duration_s = models.FloatField(default=0.0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("run", "index")
        constraints = [models.UniqueConstraint(fields=("run", "index"), name="replica_unique_index_per_run")]

    def __str__(self) -> str:
        return f"replica {self.index} of run {self.run_id}"


class RunChunk(models.Model):
    """A slice of a run's replicas handed to one Celery task; its heartbeat tells a live worker from a dead one."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    indices = models.JSONField(default=list)
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    # Times the chunk's task was sent to the broker (the reaper re-sends a chunk whose worker died).
    attempts = models.PositiveIntegerField(default=0)
    dispatched = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=128, blank=True)

    class Meta:
        ordering = ("run", "number")
        constraints = [models.UniqueConstraint(fields=("run", "number"), name="runchunk_unique_number")]

    def __str__(self) -> str:
        return f"chunk {self.number} of run {self.run_id}"


class RunSeries(models.Model):
    """One metric's series of a run across its replicas: mean and 5th/95th percentile bands."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="series")
    metric = models.CharField(max_length=64)
    points = models.PositiveIntegerField(default=0)
    t_hours = models.BinaryField()
    values = models.BinaryField()  # mean across replicas
    p5 = models.BinaryField(null=True, blank=True)
    p95 = models.BinaryField(null=True, blank=True)
    # At most DISPLAY_POINTS points: {"t_hours": [...], "values": [...], "p5": [...], "p95": [...]}.
    display = models.JSONField(default=dict)

    class Meta:
        ordering = ("run", "metric")
        verbose_name_plural = "run series"
        constraints = [models.UniqueConstraint(fields=("run", "metric"), name="runseries_unique_metric")]

    def __str__(self) -> str:
        return f"{self.metric} of run {self.run_id}"

    def full(self) -> dict[str, list[float | None]]:
        """Every point; gaps (NaN, infinities) become None, since strict JSON has neither."""

        def plain(data) -> list[float | None]:
            values = unpack_floats(data).astype(float)
            return [v if math.isfinite(v) else None for v in values.tolist()]

        out = {"t_hours": plain(self.t_hours), "values": plain(self.values)}
        if self.p5 is not None:
            out["p5"] = plain(self.p5)
        if self.p95 is not None:
            out["p95"] = plain(self.p95)
        return out


def threshold_errors(rules: Any) -> dict[str, list[str]]:
    """{"thresholds[i].field": [message]} for each malformed threshold rule."""
    if not isinstance(rules, list):
        return {"thresholds": ["must be a list of rules"]}
    errors: dict[str, list[str]] = {}
    ops = set(ThresholdOp.values)
    for i, rule in enumerate(rules):
        where = f"thresholds[{i}]"
        if not isinstance(rule, dict):
            errors[where] = ["must be an object with metric, op and value"]
            continue
        unknown = set(rule) - {"metric", "op", "value", "stat"}
        if unknown:
            errors[where] = [f"unknown keys: {', '.join(sorted(unknown))}"]
        metric = rule.get("metric")
        if not isinstance(metric, str) or not metric.strip():
            errors[f"{where}.metric"] = ["a metric name is required"]
        if rule.get("op") not in ops:
            errors[f"{where}.op"] = [f"must be one of {', '.join(sorted(ops))}"]
        value = rule.get("value")
        if isinstance(value, bool) or not isinstance(value, int | float):
            errors[f"{where}.value"] = ["must be a number"]
        if "stat" in rule and rule["stat"] not in THRESHOLD_STATS:
            errors[f"{where}.stat"] = [f"must be one of {', '.join(THRESHOLD_STATS)}"]
    return errors


def crontab_errors(expr: str) -> list[str]:
    """Problems with a five-field crontab expression ("minute hour day-of-month month day-of-week")."""
    fields = expr.split()
    if len(fields) != 5:
        return ["must have five fields: minute hour day-of-month month day-of-week"]
    try:
        crontab(*fields)
    except (ValueError, TypeError) as exc:
        return [f"invalid crontab: {exc}"]
    return []


class Schedule(models.Model):
    """A scenario run on a timetable, flagged when its results cross a threshold.

    Kept in sync with a django-celery-beat ``PeriodicTask`` on save and delete by the receivers in
    ``simulations.schedules``, connected in ``SimulationsConfig.ready()``.
    """

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="schedules")
    name = models.CharField(max_length=128, unique=True)
    # Exactly one of a crontab expression ("0 2 * * *") or an interval.
    crontab = models.CharField(max_length=128, blank=True)
    interval_seconds = models.PositiveIntegerField(null=True, blank=True, validators=[MinValueValidator(60)])
    replicas = models.PositiveIntegerField(
        default=20, validators=[MinValueValidator(1), MaxValueValidator(MAX_REPLICAS)]
    )
    # None: a fresh seed each time (independent samples night after night).
    seed = models.BigIntegerField(
        null=True, blank=True, validators=[MinValueValidator(0), MaxValueValidator(MAX_SEED)]
    )
    # [{"metric": "ettr", "op": "<", "value": 0.9, "stat": "mean"}]; "campus.<name>" tests the campus summary.
    thresholds = models.JSONField(default=list, blank=True)
    # A confidence target each run carries (``runs.confidence``: {relative_half_width, metric, confidence,
    # min_replicas}), ``replicas`` being the cap; None: every run runs ``replicas`` replicas.
    confidence_target = models.JSONField(null=True, blank=True)
    # Where a flagged run is announced: an HTTP(S) URL that receives a JSON POST (simulations.runs.notify).
    webhook_url = models.URLField(
        max_length=512,
        blank=True,
        validators=[URLValidator(schemes=["http", "https"])],
        help_text="POSTed a JSON note when a run of this schedule crosses a threshold (blank: none).",
    )
    enabled = models.BooleanField(default=True)
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="schedules"
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("name",)
        constraints = [
            models.CheckConstraint(
                condition=(Q(crontab="") & Q(interval_seconds__isnull=False))
                | (~Q(crontab="") & Q(interval_seconds__isnull=True)),
                name="schedule_crontab_xor_interval",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.crontab = " ".join(self.crontab.split())
        super().save(*args, **kwargs)

    def clean(self) -> None:
        errors: dict[str, list[str]] = {}
        if bool(self.crontab.strip()) == (self.interval_seconds is not None):
            errors["crontab"] = ["give exactly one of crontab or interval_seconds"]
        elif self.crontab.strip():
            problems = crontab_errors(self.crontab)
            if problems:
                errors["crontab"] = problems
        errors.update(threshold_errors(self.thresholds))
        if errors:
            raise ValidationError(errors)


class DemandResponseEvent(models.Model):
    """An OpenADR 2.0b event a utility or aggregator's VTN sent the campus's VEN, and the answer: evaluated by
    the grid_limit scenario against the inventory of the day, opted in when the campus can hold the event's
    level (``simulations.openadr``; docs/grid.md, "OpenADR")."""

    OPT_CHOICES = (("optIn", "Opted in"), ("optOut", "Opted out"))

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="dr_events")
    vtn_url = models.CharField(max_length=512)
    ven_id = models.CharField(max_length=128)
    event_id = models.CharField(max_length=256)
    modification_number = models.PositiveIntegerField(default=0)
    market_context = models.CharField(max_length=512, blank=True)
    signal_name = models.CharField(max_length=64)
    signal_type = models.CharField(max_length=64)
    starts_at = models.DateTimeField()
    duration_s = models.FloatField()
    notice_minutes = models.FloatField(help_text="From receipt to the event's start, minutes.")
    # [{"start_s": .., "duration_s": .., "payload": ..}] relative to starts_at, as the VTN sent them
    intervals = models.JSONField(default=list)
    params = models.JSONField(
        default=dict, help_text="The grid_limit parameters the event was evaluated with."
    )
    opt = models.CharField(max_length=8, choices=OPT_CHOICES)
    reason = models.TextField(blank=True)
    impact = models.JSONField(default=dict, help_text="The predicted impact: the grid_limit run's metrics.")
    received = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-received", "-id")
        constraints = [
            models.UniqueConstraint(
                fields=("campus", "vtn_url", "event_id", "modification_number"), name="dr_event_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.event_id} ({self.opt})"
