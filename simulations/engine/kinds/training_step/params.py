"""The parameters of training_step: the model, its batch and split, and the sweep over split and scale."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from campus.analysis.training.presets import MODELS
from simulations.engine.fields import ADVANCED, ParamsBase, picker

ModelName = Literal[tuple(sorted(MODELS))]  # type: ignore[valid-type]
MAX_SWEEP_POINTS = 200


class TrainingStepParams(ParamsBase):
    """A training job on the campus's GPUs (docs/training.md; docs/scenarios.md, training_step)."""

    model: ModelName = Field("llama3-70b", title="Model")
    """A published model (campus.analysis.training.presets: Llama 3, GPT-3, Megatron-LM, OPT, BLOOM, DeepSeek-V3)."""
    pod_ids: list[int] | None = Field(None, title="Pods", json_schema_extra=picker("pod"))
    """The pods whose GPUs the job runs on (none: every GPU of the campus)."""
    global_batch: int = Field(1024, ge=1, le=10_000_000, title="Global batch (sequences)")
    """Sequences per step; data parallelism must divide it."""
    tokens: float = Field(15e12, ge=0, le=1e17, title="Token budget")
    """Tokens to train on: sets the days the job takes."""
    precision: Literal["fp8", "bf16", "fp16"] = "bf16"
    """Number format the job trains in; sets the GPUs' peak throughput."""
    tp: int = Field(8, ge=1, le=1024, title="Tensor parallel")
    """GPUs each layer is split over (inside the scale-up domain when it fits)."""
    pp: int = Field(4, ge=1, le=1024, title="Pipeline parallel")
    """Pipeline stages (inside an island when they fit)."""
    cp: int = Field(1, ge=1, le=1024, title="Context parallel")
    """GPUs one sequence is split over."""
    ep: int = Field(1, ge=1, le=1024, title="Expert parallel")
    """GPUs the experts of a mixture-of-experts model are spread over."""
    zero_stage: int = Field(1, ge=0, le=3, title="ZeRO stage")
    """0: gradients all-reduced; 1-2: distributed optimizer; 3: FSDP (weights sharded too)."""
    microbatch: int = Field(1, ge=1, le=1024, title="Micro-batch (sequences)")
    """Sequences per microbatch."""
    virtual_stages: int = Field(1, ge=1, le=64, title="Interleaved stages", json_schema_extra=ADVANCED)
    """Model chunks per pipeline rank (interleaved 1F1B shrinks the bubble by this factor)."""
    recompute: Literal["none", "selective", "full"] = Field("selective", title="Activation recomputation")
    """What the backward pass recomputes: full recomputation runs the forward twice."""
    partition: Literal["synchronous", "by_speed"] = "synchronous"
    """With several GPU models: every GPU at the slowest pace, or work split by speed."""
    tp_values: list[int] = Field(default_factory=list, max_length=16, title="Sweep: tensor parallel")
    """Tensor-parallel sizes to sweep (none: only ``tp``)."""
    pp_values: list[int] = Field(default_factory=list, max_length=16, title="Sweep: pipeline parallel")
    """Pipeline sizes to sweep (none: only ``pp``)."""
    gpu_counts: list[int] = Field(default_factory=list, max_length=64, title="Scaling: GPU counts")
    """GPU counts of the scaling curve (none: doublings up to the job's GPUs)."""
    batch_scaling: Literal["fixed", "per_replica"] = Field("fixed", title="Scaling: batch")
    """Keep the global batch as GPUs grow (strong scaling), or the batch per replica (weak scaling)."""
    storage_read_gb_s: float | None = Field(None, gt=0, le=1e7, title="Storage read (GB/s)")
    """Aggregate read bandwidth of the checkpoint store: an override (default: the campus's fastest storage
    system in operation, else Llama 3's Tectonic, 2 TB/s sustained)."""
    storage_write_gb_s: float | None = Field(None, gt=0, le=1e7, title="Storage write (GB/s)")
    """Aggregate write bandwidth of the checkpoint store: an override (default as the read)."""

    @field_validator("tp_values", "pp_values", "gpu_counts")
    @classmethod
    def _positive(cls, values: list[int]) -> list[int]:
        if any(v < 1 for v in values):
            raise ValueError("every value must be >= 1")
        return values

    @field_validator("pp_values")
    @classmethod
    def _bounded_sweep(cls, values: list[int], info) -> list[int]:
        tps = info.data.get("tp_values") or [1]
        if len(tps) * max(len(values), 1) > MAX_SWEEP_POINTS:
            raise ValueError(f"the sweep has more than {MAX_SWEEP_POINTS} points")
        return values
