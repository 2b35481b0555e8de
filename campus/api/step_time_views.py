"""``POST /api/calculators/step-time/``: a training job's step time on a campus or a reference pool.

The body names a published run (``preset``) or gives the model, batch and parallelism; the hardware is a
campus's GPUs (``campus``, optionally ``pods``) or ``gpus`` of ``gpu_model`` in a reference pool. The answer
is ``campus.analysis.training``'s: the step-time breakdown, MFU, tokens/s, days for the token budget, the
checkpoint cost, and on request a scaling curve and a sweep over parallelism. An error the model finds
(``ValueError("parallel.tp: ...")``) is a 400 naming that field.
"""

from __future__ import annotations

from dataclasses import replace

from django.urls import path
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import JSONParser
from rest_framework.response import Response

from campus.analysis.phases import in_service
from campus.analysis.training.campus_jobs import frontend_fabric_gb_s
from campus.analysis.training.cluster import Pool, pools_from_snapshot, reference_pool
from campus.analysis.training.collectives import ALGORITHMS
from campus.analysis.training.presets import MODELS, RUNS, run_gpu, run_workload
from campus.analysis.training.recovery import TECTONIC_LLAMA3, StorageSystem, checkpoint_costs
from campus.analysis.training.scaling import BATCH_MODES, scaling_curve, sweep
from campus.analysis.training.steptime import PARTITIONS, step_time
from campus.analysis.training.workload import PRECISIONS, RECOMPUTE, ModelSpec, Parallelism, Workload
from campus.choices import Fabric
from campus.models import Campus, GPUModel
from campus.models import StorageSystem as StorageSystemRow
from campus.snapshot_adapter import gpu_spec
from campus.state import in_service_snapshot
from twin.api.exceptions import error_paths
from twin.api.serializers.base import BoundedPrimaryKeyRelatedField, DayField, StrictFieldsMixin

MAX_SWEEP_POINTS = 200
MAX_CURVE_POINTS = 64


class ModelInput(StrictFieldsMixin, serializers.Serializer):
    name = serializers.CharField(max_length=128, default="custom")
    parameters = serializers.FloatField(min_value=1e6, max_value=1e14)
    layers = serializers.IntegerField(min_value=1, max_value=10_000)
    hidden = serializers.IntegerField(min_value=1, max_value=1_000_000)
    heads = serializers.IntegerField(min_value=1, max_value=100_000)
    seq_len = serializers.IntegerField(min_value=1, max_value=100_000_000)
    vocab = serializers.IntegerField(min_value=1, max_value=10_000_000, default=128_256)
    kv_heads = serializers.IntegerField(min_value=0, max_value=100_000, default=0)
    experts = serializers.IntegerField(min_value=1, max_value=100_000, default=1)
    active_parameters = serializers.FloatField(min_value=0, max_value=1e14, default=0.0)
    expert_parameters = serializers.FloatField(min_value=0, max_value=1e14, default=0.0)
    top_k = serializers.IntegerField(min_value=1, max_value=1024, default=1)


class ParallelInput(StrictFieldsMixin, serializers.Serializer):
    tp = serializers.IntegerField(min_value=1, max_value=1024, required=False)
    pp = serializers.IntegerField(min_value=1, max_value=4096, required=False)
    dp = serializers.IntegerField(min_value=1, max_value=10_000_000, required=False)
    cp = serializers.IntegerField(min_value=1, max_value=4096, required=False)
    ep = serializers.IntegerField(min_value=1, max_value=100_000, required=False)
    zero_stage = serializers.IntegerField(min_value=0, max_value=3, required=False)
    microbatch = serializers.IntegerField(min_value=1, max_value=100_000, required=False)
    virtual_stages = serializers.IntegerField(min_value=1, max_value=1024, required=False)
    recompute = serializers.ChoiceField(choices=RECOMPUTE, required=False)
    tp_overlap = serializers.FloatField(min_value=0, max_value=1, required=False)
    ep_overlap = serializers.FloatField(min_value=0, max_value=1, required=False)
    dp_overlap = serializers.FloatField(min_value=0, max_value=1, required=False)


class StorageInput(StrictFieldsMixin, serializers.Serializer):
    name = serializers.CharField(max_length=128, default="storage")
    read_gb_s = serializers.FloatField(min_value=0.001, max_value=1e9, help_text="Aggregate read, GB/s.")
    write_gb_s = serializers.FloatField(min_value=0.001, max_value=1e9, help_text="Aggregate write, GB/s.")


class PoolInput(StrictFieldsMixin, serializers.Serializer):
    domain_gpus = serializers.IntegerField(min_value=1, max_value=100_000, required=False)
    gpus_per_node = serializers.IntegerField(min_value=1, max_value=1024, required=False)
    nic_gbps_per_gpu = serializers.FloatField(min_value=1, max_value=1e6, required=False)
    island_gpus = serializers.IntegerField(min_value=1, max_value=100_000_000, required=False)
    oversubscription = serializers.FloatField(min_value=1, max_value=1000, required=False)
    fabric = serializers.ChoiceField(choices=Fabric.choices, required=False)
    frontend_gbps_per_node = serializers.FloatField(min_value=1, max_value=1e6, required=False)

    def validate(self, attrs):
        # A server's GPUs share its NVLink domain: a domain is whole servers (8 of an HGX, 72 = 18 x 4 of an NVL72).
        domain, node = attrs.get("domain_gpus", 8), attrs.get("gpus_per_node", 8)
        if domain % node:
            raise serializers.ValidationError(
                {
                    "domain_gpus": [
                        f"{domain} GPUs is not a whole number of {node}-GPU servers (gpus_per_node)"
                    ]
                }
            )
        return attrs


class SweepPointInput(ParallelInput):
    gpus = serializers.IntegerField(min_value=1, max_value=10_000_000, required=False)


class ScalingInput(StrictFieldsMixin, serializers.Serializer):
    gpu_counts = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=10_000_000),
        min_length=1,
        max_length=MAX_CURVE_POINTS,
    )
    batch = serializers.ChoiceField(choices=BATCH_MODES, default="fixed")


class StepTimeInput(StrictFieldsMixin, serializers.Serializer):
    preset = serializers.ChoiceField(
        choices=sorted(RUNS),
        required=False,
        help_text="A published run: its model, batch, parallelism, GPUs.",
    )
    model_preset = serializers.ChoiceField(choices=sorted(MODELS), required=False)
    model = ModelInput(required=False)
    parallel = ParallelInput(required=False)
    global_batch = serializers.IntegerField(min_value=1, max_value=100_000_000, required=False)
    tokens = serializers.FloatField(min_value=0, max_value=1e18, required=False, help_text="Token budget.")
    precision = serializers.ChoiceField(choices=PRECISIONS, required=False)
    campus = BoundedPrimaryKeyRelatedField(queryset=Campus.objects.all(), required=False)
    pods = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), required=False, max_length=10_000
    )
    as_of = DayField(required=False)
    gpu_model = serializers.SlugRelatedField(
        slug_field="slug", queryset=GPUModel.objects.all(), required=False
    )
    gpus = serializers.IntegerField(
        min_value=1,
        max_value=10_000_000,
        required=False,
        help_text="GPUs of the job: of `gpu_model` in a reference pool, or the first of the campus's.",
    )
    pool = PoolInput(required=False, help_text="Reference-pool settings (without `campus`).")
    partition = serializers.ChoiceField(choices=PARTITIONS, default="synchronous")
    algorithm = serializers.ChoiceField(choices=ALGORITHMS, default="best")
    storage = StorageInput(
        required=False,
        help_text="Default: the campus's storage system (`storage_system`, else its fastest in service), "
        "else Llama 3's Tectonic, 2 TB/s.",
    )
    storage_system = BoundedPrimaryKeyRelatedField(
        queryset=StorageSystemRow.objects.all(),
        required=False,
        help_text="A storage system of `campus` the job checkpoints to (its bandwidth and front end).",
    )
    scaling = ScalingInput(required=False)
    sweep = serializers.ListField(
        child=SweepPointInput(),
        required=False,
        max_length=MAX_SWEEP_POINTS,
        help_text="Points of parallelism (fields of `parallel`, and `gpus`), at most 200.",
    )

    def validate(self, attrs):
        if attrs.get("campus") is None:
            for name in ("pods", "as_of", "storage_system"):
                if attrs.get(name) is not None:
                    raise serializers.ValidationError(
                        {name: [f"{name} picks GPUs of a campus: give campus too."]}
                    )
        elif (
            attrs.get("storage_system") is not None
            and attrs["storage_system"].campus_id != attrs["campus"].pk
        ):
            raise serializers.ValidationError(
                {"storage_system": ["the storage system belongs to another campus."]}
            )
        elif attrs.get("gpu_model") is not None or attrs.get("pool") is not None:
            raise serializers.ValidationError({"campus": ["give campus or gpu_model/pool, not both."]})
        if not attrs.get("preset") and not (attrs.get("model") or attrs.get("model_preset")):
            raise serializers.ValidationError({"model": ["give preset, model_preset or model."]})
        if attrs.get("model") and attrs.get("model_preset"):
            raise serializers.ValidationError({"model": ["give model or model_preset, not both."]})
        return attrs


class StepTimeOutput(serializers.Serializer):
    step_s = serializers.FloatField()
    breakdown_s = serializers.DictField(
        child=serializers.FloatField(), help_text="compute, bubble, tp, cp, ep, pp, dp, io."
    )
    collectives = serializers.DictField(child=serializers.DictField())
    mfu = serializers.FloatField()
    hfu = serializers.FloatField()
    tokens_per_s = serializers.FloatField()
    tflops_per_gpu = serializers.FloatField()
    hw_tflops_per_gpu = serializers.FloatField()
    days = serializers.FloatField(allow_null=True)
    gpus = serializers.IntegerField()
    pace_gpu = serializers.CharField()
    limiter = serializers.CharField()
    memory_gb_per_gpu = serializers.DictField(child=serializers.FloatField())
    checkpoint = serializers.DictField()
    workload = serializers.DictField()
    scaling = serializers.ListField(child=serializers.DictField(), required=False)
    sweep = serializers.ListField(child=serializers.DictField(), required=False)


def _raise_named(exc: ValueError, prefix: str = ""):
    text = str(exc)
    field, sep, message = text.partition(": ")
    if not sep or " " in field:
        field, message = "non_field_errors", text
    raise serializers.ValidationError({f"{prefix}{field}": [message]})


def _workload(data: dict) -> tuple[Workload, dict | None]:
    run = RUNS.get(data.get("preset") or "")
    w = run_workload(data["preset"]) if run else None
    if data.get("model"):
        model = ModelSpec(**data["model"])
    elif data.get("model_preset"):
        model = MODELS[data["model_preset"]]
    else:
        model = w.model
    par = replace(w.parallel if w else Parallelism(), **(data.get("parallel") or {}))
    batch = data.get("global_batch") or (w.global_batch if w else None)
    if batch is None:
        raise serializers.ValidationError({"global_batch": ["required without a preset."]})
    return (
        Workload(
            model=model,
            parallel=par,
            global_batch=batch,
            tokens=data.get("tokens", w.tokens if w else 0.0),
            precision=data.get("precision") or (w.precision if w else "bf16"),
        ),
        run,
    )


def _pools(data: dict, run: dict | None, w: Workload) -> list[Pool]:
    if data.get("campus") is not None:
        day = data.get("as_of") or timezone.localdate()
        snap = in_service_snapshot(data["campus"], day)
        try:
            pools = pools_from_snapshot(snap, data.get("pods"))
        except ValueError as exc:
            _raise_named(exc)
        n = data.get("gpus")
        if n is not None:
            if len(pools) > 1:
                raise serializers.ValidationError({"gpus": ["the GPUs span several models: name the pods."]})
            if n > pools[0].gpus:
                raise serializers.ValidationError(
                    {"gpus": [f"the campus has {pools[0].gpus} GPUs of this model."]}
                )
            pools = [replace(pools[0], gpus=n)]
        return pools
    if data.get("gpu_model") is not None:
        gpu = gpu_spec(data["gpu_model"])
    elif run is not None:
        gpu = run_gpu(data["preset"], gpu_spec(GPUModel.objects.get(slug=run["gpu"])))
    else:
        raise serializers.ValidationError({"gpu_model": ["give campus, gpu_model or a preset."]})
    gpus = data.get("gpus") or (run["gpus"] if run else w.parallel.gpus)
    return [reference_pool(gpu, gpus, **(data.get("pool") or {}))]


def _storage_row(data: dict) -> StorageSystemRow | None:
    if data.get("storage_system") is not None:
        return data["storage_system"]
    if data.get("campus") is None:
        return None
    day = data.get("as_of") or timezone.localdate()
    rows = StorageSystemRow.objects.filter(campus=data["campus"], status="active").order_by(
        "-write_gb_s", "name"
    )
    return next((r for r in rows if in_service(r, day)), None)


def _frontend_fabric(data: dict, job_gpus: int) -> float | None:
    """The front-end links of the campus job's racks (``campus_jobs.frontend_fabric_gb_s``), GB/s; a job on
    part of the racks' GPUs has its share."""
    if data.get("campus") is None:
        return None
    snap = in_service_snapshot(data["campus"], data.get("as_of") or timezone.localdate())
    pods = set(data["pods"]) if data.get("pods") else None
    racks = [r for r in snap.racks if pods is None or r.pod_id in pods]
    fabric = frontend_fabric_gb_s(snap, {r.id for r in racks})
    gpus = sum(sum(snap.rack_gpus(r).values()) for r in racks)
    return fabric * min(1.0, job_gpus / gpus) if fabric is not None and gpus else fabric


def _storage(data: dict) -> StorageSystem:
    """The inline ``storage``, else the campus's storage system, else Tectonic."""
    if data.get("storage"):
        return StorageSystem(**data["storage"])
    row = _storage_row(data)
    if row is None:
        return TECTONIC_LLAMA3
    return StorageSystem(
        row.name,
        row.kind,
        capacity_pb=row.capacity_pb,
        read_gb_s=row.read_gb_s,
        write_gb_s=row.write_gb_s,
        power_kw=row.power_kw,
        racks=row.racks,
    )


@extend_schema(
    summary="Step time, MFU, tokens/s and checkpoint cost of a training job on the campus's hardware",
    request=StepTimeInput,
    responses={200: StepTimeOutput},
    examples=[
        OpenApiExample("Llama 3 405B on 16,384 H100", value={"preset": "llama3-405b-16k"}, request_only=True),
        OpenApiExample(
            "A campus's pods, a sweep",
            value={
                "model_preset": "llama3-70b",
                "campus": 1,
                "global_batch": 1024,
                "parallel": {"tp": 8, "pp": 4, "dp": 32},
                "sweep": [{"tp": 8, "pp": 2, "dp": 64}, {"tp": 4, "pp": 4, "dp": 64}],
            },
            request_only=True,
        ),
    ],
)
class StepTimeView(GenericAPIView):
    """Any role may run calculators."""

    write_role = "viewer"
    filter_backends: list = []
    pagination_class = None
    serializer_class = StepTimeInput
    parser_classes = [JSONParser]  # nested objects: a JSON body only

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            raise serializers.ValidationError(error_paths(serializer.errors))
        data = dict(serializer.validated_data)
        w, run = _workload(data)
        pools = _pools(data, run, w)
        total = sum(p.gpus for p in pools)
        if not data.get("parallel", {}).get("dp"):
            w = w.with_dp_filling(total)
        kw = {"partition": data["partition"], "algorithm": data["algorithm"]}
        try:
            out = step_time(w, pools, **kw).as_dict()
        except ValueError as exc:
            _raise_named(exc)
        storage = _storage(data)
        if data.get("campus") is not None and storage is not TECTONIC_LLAMA3 and not data.get("storage"):
            fe = _storage_row(data).frontend_gbps_per_node
            pools = [replace(p, frontend_gbps_per_node=fe) for p in pools]
        fabric = _frontend_fabric(data, w.parallel.gpus)
        out["checkpoint"] = {
            **checkpoint_costs(w, pools, storage, frontend_fabric_gb_s=fabric),
            "storage": storage.name,
            "frontend_fabric_gb_s": fabric,
        }
        out["workload"] = {
            "model": w.model.name,
            "parameters": w.model.parameters,
            "global_batch": w.global_batch,
            "tokens_per_step": w.tokens_per_step,
            "microbatches": w.microbatches,
            "parallel": dict(w.parallel.__dict__),
            "precision": w.precision,
        }
        if data.get("scaling"):
            if len(pools) > 1:
                raise serializers.ValidationError({"scaling": ["a scaling curve takes one GPU model."]})
            try:
                out["scaling"] = scaling_curve(
                    w, pools[0], data["scaling"]["gpu_counts"], batch=data["scaling"]["batch"], **kw
                )
            except ValueError as exc:
                _raise_named(exc, "scaling.")
        if data.get("sweep"):
            if len(pools) > 1:
                raise serializers.ValidationError({"sweep": ["a sweep takes one GPU model."]})
            out["sweep"] = sweep(w, pools[0], [dict(p) for p in data["sweep"]], **kw)
        return Response(out)


urlpatterns = [path("calculators/step-time/", StepTimeView.as_view(), name="calculator-step-time")]
