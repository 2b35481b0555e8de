from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campus.state import designed_snapshot
from simulations import runs
from simulations.choices import ScenarioKind
from simulations.models import (
    MAX_REPLICAS,
    MAX_SEED,
    ReplicaResult,
    Run,
    Scenario,
    Schedule,
    crontab_errors,
    params_errors,
    threshold_errors,
)
from simulations.runs import DEFAULT_REPLICAS, campus_params_errors
from twin.api.serializers import BoundedPrimaryKeyRelatedField, TwinModelSerializer
from twin.api.serializers.base import DayField, StrictFieldsMixin


class SimulationSerializer(TwinModelSerializer):
    """The shared base (``url``, ``?brief=1``, the model's own validation), with related objects read as plain
    ids as the scenario and schedule endpoints have always answered."""

    serializer_related_field = BoundedPrimaryKeyRelatedField


class ScenarioSerializer(SimulationSerializer):
    kind = serializers.ChoiceField(choices=ScenarioKind.choices)
    params = serializers.JSONField(
        required=False,
        help_text="Parameters of the kind (see /api/scenarios/kinds/); anything left out takes its default.",
    )
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)
    runs_url = serializers.SerializerMethodField()

    class Meta:
        model = Scenario
        fields = (
            "id",
            "url",
            "campus",
            "kind",
            "name",
            "description",
            "params",
            "owner",
            "created",
            "updated",
            "runs_url",
        )
        read_only_fields = ("owner", "created", "updated")
        brief_fields = ("id", "url", "name")

    def get_runs_url(self, obj: Scenario) -> str:
        return f"/api/runs/?scenario={obj.pk}"

    def validate(self, attrs: dict) -> dict:
        kind = attrs.get("kind", getattr(self.instance, "kind", None))
        params = attrs.get("params", getattr(self.instance, "params", None))
        if params is None:
            params = {}
            attrs["params"] = params
        errors = params_errors(kind, params)
        campus = attrs.get("campus", getattr(self.instance, "campus", None))
        if not errors and campus is not None:
            # Against the campus it will run on: a GPU model, pod, cooling unit or plant it does not have.
            errors = campus_params_errors(kind, params, designed_snapshot(campus))
        if errors:
            # {"params": {"caps[0].cap_w": ["..."]}}: the dashboard marks the form field by its path.
            raise serializers.ValidationError({"params": errors})
        return super().validate(attrs)


class RunSerializer(serializers.ModelSerializer):
    scenario_name = serializers.CharField(
        read_only=True, help_text="The scenario's name when the run was queued (a later rename leaves it)."
    )
    kind = serializers.CharField(
        read_only=True,
        help_text="The kind the run ran: the scenario's when the run was queued (a later edit leaves it).",
    )
    campus = serializers.IntegerField(
        source="campus_id",
        read_only=True,
        help_text="The campus the run ran on: the scenario's when the run was queued (moving the scenario "
        "to another campus leaves it).",
    )
    campus_state = serializers.JSONField(
        read_only=True,
        allow_null=True,
        help_text="The campus state the run computed on, recorded when it started: the inventory `version` "
        "(the analytics' campus version digest), `as_of`, and key figures `it_mw`, `gpus`, `pue` (the PUE "
        "used) with `pue_source`, `design_pue`, `price_usd_per_kwh`, `grid_capacity_mw`. Null: not started, "
        "or a run from before runs recorded it (docs/runs.md).",
    )
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    duration_s = serializers.SerializerMethodField()
    as_of = serializers.DateField(
        read_only=True,
        allow_null=True,
        help_text="The day whose in-service campus the run read (null: a run from before runs had a day, "
        "which read every object whatever its dates).",
    )
    explanation = serializers.SerializerMethodField(
        help_text="What the finished run showed, in sentences, from its summary and parameters."
    )
    confidence = serializers.SerializerMethodField(
        help_text="A run with a confidence target: the target (metric, relative_half_width, confidence, "
        "min_replicas, max_replicas) and, as replicas are stored, the replicas counted in index order, their "
        "mean, the half-width reached (absolute and relative) and whether the target was met. Null: a run "
        "of a fixed number of replicas.",
    )

    @extend_schema_field({"type": "object", "nullable": True, "additionalProperties": True})
    def get_confidence(self, obj: Run) -> dict | None:
        # the rule's running state (its sums) stays inside
        return {k: v for k, v in obj.confidence.items() if k != "state"} if obj.confidence else None

    class Meta:
        model = Run
        fields = (
            "id",
            "scenario",
            "scenario_name",
            "kind",
            "campus",
            "status",
            "progress",
            "replicas",
            "replicas_done",
            "seed",
            "params",
            "sweep",
            "confidence",
            "as_of",
            "campus_state",
            "summary",
            "explanation",
            "error",
            "flagged",
            "flag_reasons",
            "schedule",
            "created_by",
            "attempts",
            "created",
            "started",
            "finished",
            "updated",
            "duration_s",
        )
        read_only_fields = fields

    def get_explanation(self, obj: Run) -> list[str]:
        return runs.explanation(obj)

    def get_duration_s(self, obj: Run) -> float | None:
        if obj.started is None:
            return None
        end = obj.finished or obj.updated
        return max(0.0, (end - obj.started).total_seconds())


class ConfidenceTargetSerializer(StrictFieldsMixin, serializers.Serializer):
    relative_half_width = serializers.FloatField(
        min_value=1e-6,
        max_value=1.0,
        help_text="Stop once the half-width of the confidence interval of the metric's mean is at most this "
        "share of the mean (0.01: ±1 %).",
    )
    metric = serializers.CharField(
        required=False, default="ettr", help_text="The metric whose mean must be that precise (default ettr)."
    )
    confidence = serializers.FloatField(
        required=False, default=0.95, min_value=0.5, max_value=0.999, help_text="Level of the interval."
    )
    min_replicas = serializers.IntegerField(
        required=False,
        default=10,
        min_value=2,
        max_value=MAX_REPLICAS,
        help_text="Replicas before the rule may stop the run.",
    )


class RunRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    replicas = serializers.IntegerField(
        min_value=1,
        max_value=MAX_REPLICAS,
        required=False,
        help_text=f"Omitted: {DEFAULT_REPLICAS} when the kind's replicas can differ with these parameters, else 1. "
        "A deterministic run (power capping; a grid limit without random generator starts) is always one replica. "
        "With a sweep: replicas at each point.",
    )
    sweep = serializers.JSONField(
        required=False,
        help_text='Run every point of a grid of one or two parameters: {"parameters": [{"name": '
        '"checkpoint_interval_minutes", "values": [30, 60, 120]}, {"name": "recovery", "values": '
        '["checkpoint_restart", "in_memory"]}]}; a numeric parameter may give {"name", "start", "stop", "num"} '
        "(num values, both ends included; steps is a synonym of num). Names are paths in the kind's parameters "
        '("caps[0].cap_fraction"). The result has one summary per point (docs/runs.md, Sweeps).',
    )
    seed = serializers.IntegerField(
        min_value=0,
        max_value=MAX_SEED,
        required=False,
        allow_null=True,
        help_text="Same seed, same scenario and inventory: same results. Omitted: a fresh random seed.",
    )
    as_of = DayField(
        required=False,
        help_text="Run on what is in service on this day, YYYY-MM-DD (default: today), as the analytics' "
        "`?as_of=`: equipment retired by then or not yet in service does not count. Stored on the run.",
    )
    confidence_target = ConfidenceTargetSerializer(
        required=False,
        help_text="Stop adding replicas once the confidence interval of a metric's mean is narrow enough "
        "(Law & Kelton's sequential procedure, replicas taken in index order): `replicas` is then the cap. "
        "The run reports the replicas used and the half-width reached under `confidence` and in its summary. "
        "Not with a sweep, nor for a scenario whose replicas never differ.",
    )


class ReplicaResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReplicaResult
        fields = ("index", "seed", "metrics", "by_cause", "events", "duration_s", "created")
        read_only_fields = fields


class ScheduleSerializer(SimulationSerializer):
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)
    thresholds = serializers.JSONField(
        required=False,
        help_text='Rules that flag a run, e.g. [{"metric": "ettr", "op": "<", "value": 0.9}]; "stat" (default '
        '"mean") picks p5/p50/p95/ci95_low/ci95_high; a "campus.<name>" metric tests the campus summary.',
    )
    confidence_target = ConfidenceTargetSerializer(
        required=False,
        allow_null=True,
        help_text="Each run of the schedule stops adding replicas once the confidence interval of the metric's "
        "mean is this narrow, `replicas` being the cap (as a run's `confidence_target`; docs/runs.md). Null: "
        "every run runs `replicas` replicas.",
    )
    last_run = serializers.SerializerMethodField()

    class Meta:
        model = Schedule
        fields = (
            "id",
            "url",
            "scenario",
            "name",
            "crontab",
            "interval_seconds",
            "replicas",
            "seed",
            "thresholds",
            "confidence_target",
            "webhook_url",
            "enabled",
            "periodic_task",
            "owner",
            "created",
            "updated",
            "last_run",
        )
        read_only_fields = ("periodic_task", "owner", "created", "updated")
        brief_fields = ("id", "url", "name")
        extra_kwargs = {
            "crontab": {"help_text": 'Five fields, "minute hour day-of-month month day-of-week" (UTC).'},
            "interval_seconds": {"help_text": "Instead of a crontab: every so many seconds (at least 60)."},
        }

    def get_last_run(self, obj: Schedule) -> dict | None:
        run = obj.runs.order_by("-created").values("id", "status", "flagged", "created").first()
        return run

    def validate(self, attrs: dict) -> dict:
        def current(name: str, default=None):
            return attrs[name] if name in attrs else getattr(self.instance, name, default)

        crontab = (current("crontab", "") or "").strip()
        interval = current("interval_seconds")
        errors: dict[str, list[str]] = {}
        if bool(crontab) == (interval is not None):
            errors["crontab"] = ["give exactly one of crontab or interval_seconds"]
        elif crontab:
            problems = crontab_errors(crontab)
            if problems:
                errors["crontab"] = problems
        errors.update(threshold_errors(current("thresholds", [])))
        scenario = current("scenario")
        if scenario is not None:
            target = current("confidence_target")
            replicas = current("replicas", Schedule._meta.get_field("replicas").default)
            errors.update(runs.schedule_target_errors(scenario.kind, scenario.params, target, replicas))
        if errors:
            raise serializers.ValidationError(errors)
        attrs["crontab"] = " ".join(crontab.split())
        if "thresholds" not in attrs and self.instance is None:
            attrs["thresholds"] = []
        return super().validate(attrs)
