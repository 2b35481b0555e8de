"""``POST /api/calculators/<name>/``: the calculators of campus.analysis.calculators behind DRF validation.

Input and output field names are the calculators' own. Errors the calculators find themselves
(``ValueError("<field>: message")``) become a 400 naming that field.
"""

from __future__ import annotations

import math

from django.urls import path
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from campus.analysis import calculators
from campus.analysis.compute import PARTITIONS, PRECISIONS
from campus.models import Campus, GPUModel
from campus.snapshot_adapter import catalog_snapshot_parts, gpu_spec
from campus.state import in_service_snapshot
from twin.api.exceptions import error_paths, field_error
from twin.api.serializers.base import BoundedPrimaryKeyRelatedField, DayField, StrictFieldsMixin

# ---------------------------------------------------------------- inputs


class TrainingTimeInput(StrictFieldsMixin, serializers.Serializer):
    flops = serializers.FloatField(min_value=1, help_text="Training compute, FLOPs (e.g. 3.8e25).")
    gpus = serializers.IntegerField(required=False, min_value=1, max_value=10_000_000)
    gpu_model = serializers.SlugRelatedField(
        slug_field="slug", queryset=GPUModel.objects.all(), required=False, help_text="GPU model slug."
    )
    gpus_by_model = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=10_000_000),
        required=False,
        help_text="A mixed fleet: {gpu model slug: count}.",
    )
    campus = BoundedPrimaryKeyRelatedField(
        queryset=Campus.objects.all(),
        required=False,
        help_text="Every GPU of this campus in service on `as_of`.",
    )
    as_of = DayField(
        required=False,
        help_text="With `campus`: count the GPUs in service on this day, YYYY-MM-DD (default: today), as the "
        "analytics' `?as_of=` (retired racks and servers, and those not yet in service, do not count).",
    )
    precision = serializers.ChoiceField(choices=PRECISIONS, default="bf16")
    mfu = serializers.FloatField(default=0.4, min_value=0.0001, max_value=1)
    ettr = serializers.FloatField(
        required=False,
        min_value=0.0001,
        max_value=1,
        help_text="Effective training time ratio, 0-1. Default: with `campus`, the campus's headline ETTR (its "
        "summary's `compute.ettr`: one job per island; 1.0 when it has no failure rates); otherwise 1.0.",
    )
    partition = serializers.ChoiceField(
        choices=PARTITIONS,
        default="synchronous",
        help_text="With several GPU models: `synchronous` (every GPU at the slowest model's pace) or "
        "`by_speed` (work split in proportion to each model's speed).",
    )

    def validate(self, attrs):
        if attrs.get("as_of") is not None and attrs.get("campus") is None:
            raise serializers.ValidationError({"as_of": ["as_of picks a day of a campus: give campus too."]})
        return attrs

    def validate_gpus_by_model(self, value):
        known = set(GPUModel.objects.filter(slug__in=list(value)).values_list("slug", flat=True))
        unknown = sorted(set(value) - known)
        if unknown:
            raise serializers.ValidationError(f"Unknown GPU model(s): {', '.join(unknown)}.")
        if not any(value.values()):
            raise serializers.ValidationError("no GPUs given: every count is 0 (or no model is named).")
        return value


class RateInput(StrictFieldsMixin, serializers.Serializer):
    per = serializers.ChoiceField(choices=["gpu", "node"], default="node")
    mtbf_hours = serializers.FloatField(min_value=0.001)
    interrupts_job = serializers.BooleanField(default=True)


class JobMttfInput(StrictFieldsMixin, serializers.Serializer):
    nodes = serializers.IntegerField(required=False, min_value=1, max_value=10_000_000)
    gpus = serializers.IntegerField(required=False, min_value=1, max_value=100_000_000)
    gpus_per_node = serializers.IntegerField(required=False, min_value=1, max_value=72)
    failures_per_1000_node_days = serializers.FloatField(required=False, min_value=0.0001, max_value=1e6)
    rates = RateInput(many=True, required=False)


class ComponentInput(StrictFieldsMixin, serializers.Serializer):
    count = serializers.FloatField(min_value=0, max_value=1e9)
    mtbf_hours = serializers.FloatField(min_value=0.001, max_value=1e12)


class FirstFailureInput(StrictFieldsMixin, serializers.Serializer):
    components = ComponentInput(many=True, allow_empty=False)


class CheckpointIntervalInput(StrictFieldsMixin, serializers.Serializer):
    mtbf_hours = serializers.FloatField(min_value=0.001, max_value=1e9)
    checkpoint_minutes = serializers.FloatField(min_value=0.001, max_value=1e6)
    restart_minutes = serializers.FloatField(default=0.0, min_value=0, max_value=1e6)
    failures_during_recovery = serializers.BooleanField(
        default=True,
        help_text="true: failures strike during a restart too and start it again (Daly 2006); false: the "
        "failure clock stops while the job restarts.",
    )


class RecoveryOptionsInput(StrictFieldsMixin, serializers.Serializer):
    mtbf_hours = serializers.FloatField(min_value=0.001, max_value=1e9, help_text="Job MTBF, hours.")
    checkpoint_minutes = serializers.FloatField(
        min_value=0.001, max_value=1e6, help_text="Time to write one checkpoint, minutes."
    )
    restart_minutes = serializers.FloatField(
        default=10.0, min_value=0, max_value=1e6, help_text="Restart after a failure, minutes."
    )
    step_seconds = serializers.FloatField(min_value=0.001, max_value=1e6, help_text="One training step, s.")
    gpus = serializers.IntegerField(min_value=1, max_value=100_000_000)
    memory_gb = serializers.FloatField(
        default=80.0, min_value=0, max_value=1e6, help_text="State copied per GPU on reconstruction, GB."
    )
    link_gbps = serializers.FloatField(
        default=400.0, min_value=0.001, max_value=1e6, help_text="Link the state is copied over, Gb/s."
    )
    spares = serializers.IntegerField(default=0, min_value=0, max_value=1_000_000)
    repair_hours = serializers.FloatField(default=48.0, min_value=0, max_value=1e6)
    node_failures_per_hour = serializers.FloatField(default=0.0, min_value=0, max_value=1e6)


# ---------------------------------------------------------------- outputs


class TrainingTimeOutput(serializers.Serializer):
    days = serializers.FloatField(help_text="Days in the chosen `partition` mode.")
    hours = serializers.FloatField()
    partition = serializers.ChoiceField(choices=PARTITIONS)
    days_synchronous = serializers.FloatField(
        allow_null=True,
        help_text="Every GPU at the pace of `pace_gpu_model`; null when it lacks the precision.",
    )
    days_by_speed = serializers.FloatField(help_text="Work split in proportion to each model's speed.")
    pace_gpu_model = serializers.CharField(help_text="The slowest GPU model at the precision.")
    pace_tflops = serializers.FloatField(help_text="Its dense peak TFLOPS at the precision.")
    gpus = serializers.IntegerField()
    gpus_by_model = serializers.DictField(child=serializers.IntegerField())
    precision = serializers.CharField()
    peak_pflops = serializers.FloatField()
    effective_pflops = serializers.FloatField()
    mfu = serializers.FloatField()
    ettr = serializers.FloatField()
    ettr_source = serializers.ChoiceField(
        choices=["given", "campus", "default"],
        help_text="`given` (the request's), `campus` (the campus's expected ETTR) or `default` (1.0).",
    )
    as_of = serializers.DateField(required=False, help_text="With `campus`: the day whose GPUs were counted.")


class JobMttfOutput(serializers.Serializer):
    hours = serializers.FloatField()
    minutes = serializers.FloatField()
    nodes = serializers.IntegerField()
    gpus = serializers.IntegerField()


class FirstFailureOutput(serializers.Serializer):
    minutes = serializers.FloatField()
    hours = serializers.FloatField()
    failures_per_day = serializers.FloatField()


class CheckpointIntervalOutput(serializers.Serializer):
    young_minutes = serializers.FloatField()
    daly_minutes = serializers.FloatField()
    expected_ettr = serializers.FloatField()
    expected_ettr_young = serializers.FloatField()
    expected_ettr_first_order = serializers.FloatField()
    regime = serializers.ChoiceField(
        choices=["daly", "interval-equals-mttf"],
        help_text="Daly (2006): the higher-order formula for δ < 2M; τ = M for δ ≥ 2M.",
    )
    lost_fraction = serializers.FloatField(
        help_text="Fraction of wall time lost to failures (work redone + restarts) at the Daly interval, 0-1."
    )


class CheckpointRestartOutput(serializers.Serializer):
    interval_minutes = serializers.FloatField(help_text="Daly (2006) optimum checkpoint interval, minutes.")
    expected_ettr = serializers.FloatField()
    lost_gpu_hours_per_failure = serializers.FloatField(
        help_text="gpus x M x the lost fraction (Daly's exponential model); never more than the GPU-hours "
        "between failures."
    )
    lost_gpu_hours_per_day = serializers.FloatField(help_text="At most gpus x 24.")
    regime = serializers.ChoiceField(choices=["daly", "interval-equals-mttf"])


class InMemoryOutput(serializers.Serializer):
    reconstruction_seconds = serializers.FloatField(help_text="memory_gb x 8 / link_gbps, s.")
    expected_ettr = serializers.FloatField()
    lost_gpu_hours_per_failure = serializers.FloatField()
    lost_gpu_hours_per_day = serializers.FloatField(help_text="gpus x 24 x (1 − ETTR); at most gpus x 24.")


class RecoveryOptionsOutput(serializers.Serializer):
    effective_restart_minutes = serializers.FloatField(
        help_text="Restart plus the repair wait when the spares have run out, minutes."
    )
    checkpoint_restart = CheckpointRestartOutput()
    in_memory = InMemoryOutput()


# ---------------------------------------------------------------- views


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


class CalculatorView(GenericAPIView):
    """Validate the body, run the calculator, return its result. Any role may run calculators."""

    write_role = "viewer"
    filter_backends: list = []
    pagination_class = None
    output_serializer: type[serializers.Serializer]

    def compute(self, data: dict) -> dict:
        raise NotImplementedError

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            # An item of a list (``rates``, ``components``) is named by its path: ``rates[0].foo``.
            raise serializers.ValidationError(error_paths(serializer.errors))
        try:
            result = self.compute(dict(serializer.validated_data))
        except (ValueError, ZeroDivisionError, OverflowError) as exc:
            raise field_error(exc) from None
        if not _finite(result):
            raise serializers.ValidationError(
                {"non_field_errors": ["These inputs give no finite result (e.g. every count is 0)."]}
            )
        return Response(result)


def calculator_schema(
    input_serializer, output_serializer, summary: str, request_example: dict, response: dict
):
    return extend_schema(
        summary=summary,
        request=input_serializer,
        responses={200: output_serializer},
        examples=[
            OpenApiExample("Request", value=request_example, request_only=True),
            OpenApiExample("Response", value=response, response_only=True),
        ],
    )


@calculator_schema(
    TrainingTimeInput,
    TrainingTimeOutput,
    "Days to train a model of `flops` FLOPs",
    {"flops": 3.8e25, "gpus": 16384, "gpu_model": "h100-sxm", "precision": "bf16", "mfu": 0.4, "ettr": 0.9},
    {
        "days": 75.8,
        "hours": 1819.0,
        "partition": "synchronous",
        "days_synchronous": 75.8,
        "days_by_speed": 75.8,
        "pace_gpu_model": "h100-sxm",
        "pace_tflops": 989.0,
        "gpus": 16384,
        "gpus_by_model": {"h100-sxm": 16384},
        "precision": "bf16",
        "peak_pflops": 16204.0,
        "effective_pflops": 5833.4,
        "mfu": 0.4,
        "ettr": 0.9,
        "ettr_source": "given",
    },
)
class TrainingTimeView(CalculatorView):
    serializer_class = TrainingTimeInput
    output_serializer = TrainingTimeOutput

    def compute(self, data):
        kwargs = {k: data[k] for k in ("flops", "precision", "mfu", "partition")}
        kwargs["ettr"] = data.get("ettr")
        if data.get("campus") is not None:
            day = data.get("as_of") or timezone.localdate()
            snap = in_service_snapshot(data["campus"], day)
            if not any(calculators.gpus_by_model(snap).values()):
                raise ValueError(f"campus: no GPU of this campus is in service on {day.isoformat()}")
            result = calculators.training_time(snapshot=snap, **kwargs)
            return {**result, "as_of": day.isoformat()}
        elif data.get("gpus_by_model"):
            kwargs["gpus_by_model_"] = data["gpus_by_model"]
            kwargs["specs"] = catalog_snapshot_parts()["gpus"]
        else:
            if data.get("gpu_model") is not None:
                kwargs["gpu_model"] = gpu_spec(data["gpu_model"])
            kwargs["gpus"] = data.get("gpus")
        return calculators.training_time(**kwargs)


@calculator_schema(
    JobMttfInput,
    JobMttfOutput,
    "Mean time to failure of a job spanning `nodes`",
    {"nodes": 2048, "failures_per_1000_node_days": 6.5},
    {"hours": 1.8, "minutes": 108.2, "nodes": 2048, "gpus": 16384},
)
class JobMttfView(CalculatorView):
    serializer_class = JobMttfInput
    output_serializer = JobMttfOutput

    def compute(self, data):
        return calculators.job_mttf(**data)


@calculator_schema(
    FirstFailureInput,
    FirstFailureOutput,
    "Minutes to the first failure among many components",
    {"components": [{"count": 100000, "mtbf_hours": 43800}, {"count": 16384, "mtbf_hours": 50000}]},
    {"minutes": 22.6, "hours": 0.38, "failures_per_day": 63.7},
)
class FirstFailureView(CalculatorView):
    serializer_class = FirstFailureInput
    output_serializer = FirstFailureOutput

    def compute(self, data):
        return calculators.first_failure([dict(row) for row in data["components"]])


@calculator_schema(
    CheckpointIntervalInput,
    CheckpointIntervalOutput,
    "Optimum checkpoint interval (Young and Daly) and the ETTR it gives",
    {"mtbf_hours": 3.0, "checkpoint_minutes": 5, "restart_minutes": 10},
    {
        "young_minutes": 42.4,
        "daly_minutes": 39.2,
        "expected_ettr": 0.740,
        "expected_ettr_young": 0.740,
        "expected_ettr_first_order": 0.708,
        "regime": "daly",
        "lost_fraction": 0.165,
    },
)
class CheckpointIntervalView(CalculatorView):
    serializer_class = CheckpointIntervalInput
    output_serializer = CheckpointIntervalOutput

    def compute(self, data):
        return calculators.checkpoint_interval(**data)


@calculator_schema(
    RecoveryOptionsInput,
    RecoveryOptionsOutput,
    "Checkpoint/restart at the Daly interval against in-memory reconstruction",
    {"mtbf_hours": 3.0, "checkpoint_minutes": 5, "restart_minutes": 10, "step_seconds": 10, "gpus": 16384},
    {
        "effective_restart_minutes": 10.0,
        "checkpoint_restart": {
            "interval_minutes": 39.16,
            "expected_ettr": 0.740,
            "lost_gpu_hours_per_failure": 8126.5,
            "lost_gpu_hours_per_day": 65012.3,
            "regime": "daly",
        },
        "in_memory": {
            "reconstruction_seconds": 1.6,
            "expected_ettr": 0.946,
            "lost_gpu_hours_per_failure": 2783.5,
            "lost_gpu_hours_per_day": 21074.2,
        },
    },
)
class RecoveryOptionsView(CalculatorView):
    serializer_class = RecoveryOptionsInput
    output_serializer = RecoveryOptionsOutput

    def compute(self, data):
        return calculators.recovery_options(**data)


urlpatterns = [
    path("calculators/training-time/", TrainingTimeView.as_view(), name="calculator-training-time"),
    path("calculators/job-mttf/", JobMttfView.as_view(), name="calculator-job-mttf"),
    path("calculators/first-failure/", FirstFailureView.as_view(), name="calculator-first-failure"),
    path(
        "calculators/checkpoint-interval/",
        CheckpointIntervalView.as_view(),
        name="calculator-checkpoint-interval",
    ),
    path("calculators/recovery-options/", RecoveryOptionsView.as_view(), name="calculator-recovery-options"),
]
