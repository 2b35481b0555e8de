"""A training workload: the model, its batch and token budget, and how it is split over GPUs.

FLOPs follow the PaLM definition of model FLOPs (Chowdhery et al., arXiv 2204.02311, appendix B): per token
6 N (N the parameters a token passes through; for a mixture of experts the active ones) plus 12 L H S for the
attention scores and their use (L layers, H hidden size, S sequence length). Hardware FLOPs add the
recomputed forward pass under full activation recomputation (8 N + 16 L H S: Narayanan et al., SC21,
arXiv 2104.04473, §5.1). Memory per GPU: Rajbhandari et al., "ZeRO" (SC20, arXiv 1910.02054), 16 bytes per
parameter in mixed-precision Adam (2 weights, 2 gradients, 12 fp32 master weights and two moments), the
gradients and optimizer states sharded over data parallel by stage; activations per Korthikanti et al.,
"Reducing Activation Recomputation in Large Transformer Models" (arXiv 2205.05198, table 2): 34 S B H / t
bytes per layer with sequence parallelism and selective recomputation, 2 S B H / t with full recomputation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

PRECISIONS = ("fp8", "bf16", "fp16")
RECOMPUTE = ("none", "selective", "full")
ZERO_STAGES = (0, 1, 2, 3)
BYTES_PER_PARAM_STATES = {"weights": 2.0, "grads": 2.0, "optimizer": 12.0}  # ZeRO §3, mixed-precision Adam
CHECKPOINT_BYTES_PER_PARAM = 14.0  # weights (2) + fp32 master weights and Adam moments (12); no gradients
GB = 1e9


@dataclass(frozen=True)
class ModelSpec:
    name: str
    parameters: float  # all parameters
    layers: int
    hidden: int
    heads: int
    seq_len: int
    vocab: int
    kv_heads: int = 0  # grouped-query attention (0: as many as heads)
    experts: int = 1  # routed experts per MoE layer (1: dense)
    active_parameters: float = 0.0  # parameters one token passes through (0: all of them)
    expert_parameters: float = 0.0  # parameters inside the routed experts (sharded by EP)
    top_k: int = 1  # experts a token is routed to
    source: str = ""

    @property
    def active(self) -> float:
        return self.active_parameters or self.parameters

    @property
    def kv_dim(self) -> int:
        return self.hidden * (self.kv_heads or self.heads) // self.heads


@dataclass(frozen=True)
class Parallelism:
    tp: int = 1  # tensor parallel
    pp: int = 1  # pipeline parallel
    dp: int = 1  # data parallel (replicas, or FSDP/ZeRO shards)
    cp: int = 1  # context (sequence) parallel
    ep: int = 1  # expert parallel (inside the data-parallel ranks, as Megatron-LM places it)
    zero_stage: int = 1  # 0: all-reduce; 1/2: distributed optimizer; 3: FSDP (weights sharded too)
    microbatch: int = 1  # sequences per microbatch
    virtual_stages: int = 1  # interleaved 1F1B: model chunks per pipeline rank
    recompute: str = "selective"
    tp_overlap: float = 0.0  # fraction of tensor-parallel communication hidden behind compute
    dp_overlap: float = 1.0  # fraction of the data-parallel communication that may hide behind backward
    # fraction of the expert-parallel all-to-all hidden behind another microbatch's compute (DeepSeek's
    # DualPipe), at most that compute
    ep_overlap: float = 0.0

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp * self.cp


@dataclass(frozen=True)
class Workload:
    model: ModelSpec
    parallel: Parallelism
    global_batch: int  # sequences per step
    tokens: float = 0.0  # training budget, tokens (0: not given)
    precision: str = "bf16"
    grad_reduce_bytes: float = 4.0  # bytes per gradient element reduced (fp32 main grads: Megatron-LM)
    source: str = ""
    published: dict = field(default_factory=dict, compare=False)  # figures the run published, for checks

    @property
    def tokens_per_step(self) -> int:
        return self.global_batch * self.model.seq_len

    @property
    def microbatches(self) -> int:
        """Microbatches per pipeline per step (gradient accumulation)."""
        return self.global_batch // (self.parallel.dp * self.parallel.microbatch)

    def with_parallel(self, **changes) -> Workload:
        return replace(self, parallel=replace(self.parallel, **changes))

    def with_dp_filling(self, gpus: int) -> Workload:
        """DP as what ``gpus`` leave after TP x PP x CP (unchanged when they do not split evenly: the
        validation then names the mismatch)."""
        split = self.parallel.tp * self.parallel.pp * self.parallel.cp
        return self.with_parallel(dp=gpus // split) if gpus % split == 0 else self


def model_flops_per_token(model: ModelSpec) -> float:
    """Model FLOPs per trained token (PaLM appendix B): 6 N_active + 12 L H S."""
    return 6.0 * model.active + 12.0 * model.layers * model.hidden * model.seq_len


def hardware_flops_per_token(model: ModelSpec, recompute: str) -> float:
    """FLOPs the GPUs execute per token: full recomputation runs the forward twice (8 N + 16 L H S)."""
    base = model_flops_per_token(model)
    return base * 4.0 / 3.0 if recompute == "full" else base


def _divides(name: str, a: int, b: int, what: str) -> None:
    if b % a:
        raise ValueError(f"{name}: {a} does not divide {what} ({b})")


def validate(w: Workload, gpus: int | None = None) -> None:
    """Raise ValueError("<field>: why") when the parallelism cannot run the model on ``gpus`` GPUs."""
    p, m = w.parallel, w.model
    for name in ("tp", "pp", "dp", "cp", "ep", "microbatch", "virtual_stages"):
        if getattr(p, name) < 1:
            raise ValueError(f"parallel.{name}: must be >= 1")
    if p.zero_stage not in ZERO_STAGES:
        raise ValueError("parallel.zero_stage: must be 0, 1, 2 or 3")
    if p.recompute not in RECOMPUTE:
        raise ValueError(f"parallel.recompute: must be one of {', '.join(RECOMPUTE)}")
    for name in ("tp_overlap", "dp_overlap", "ep_overlap"):
        if not 0.0 <= getattr(p, name) <= 1.0:
            raise ValueError(f"parallel.{name}: must be between 0 and 1")
    if w.precision not in PRECISIONS:
        raise ValueError(f"precision: must be one of {', '.join(PRECISIONS)}")
    if m.parameters <= 0 or m.layers < 1 or m.hidden < 1 or m.heads < 1 or m.seq_len < 1:
        raise ValueError("model: parameters, layers, hidden, heads and seq_len must be positive")
    if m.active > m.parameters:
        raise ValueError("model.active_parameters: more than the parameters")
    if m.expert_parameters > m.parameters:
        raise ValueError("model.expert_parameters: more than the parameters")
    if m.top_k > m.experts:
        raise ValueError(f"model.top_k: a token cannot go to {m.top_k} of {m.experts} experts")
    if m.kv_heads and (m.kv_heads > m.heads or m.heads % m.kv_heads):
        # grouped-query attention shares each key/value head among heads / kv_heads query heads
        raise ValueError(f"model.kv_heads: {m.kv_heads} does not divide the attention heads ({m.heads})")
    _divides("parallel.tp", p.tp, m.heads, "the attention heads")
    _divides("parallel.cp", p.cp, m.seq_len, "the sequence length")
    if p.pp * p.virtual_stages > m.layers:
        raise ValueError(
            f"parallel.pp: {p.pp} x {p.virtual_stages} virtual stages exceed the {m.layers} layers"
        )
    if p.ep > 1:
        if m.experts <= 1:
            raise ValueError("parallel.ep: the model has no experts")
        _divides("parallel.ep", p.ep, m.experts, "the experts")
        _divides(
            "parallel.ep", p.ep, p.dp * p.cp, "dp x cp (experts are spread over the data-parallel ranks)"
        )
    if w.global_batch < 1:
        raise ValueError("global_batch: must be >= 1")
    if w.global_batch % (p.dp * p.microbatch):
        raise ValueError(
            f"global_batch: {w.global_batch} sequences do not split over dp x microbatch = {p.dp * p.microbatch}"
        )
    if gpus is not None and p.gpus != gpus:
        raise ValueError(f"parallel: tp x pp x dp x cp = {p.gpus}, the job has {gpus} GPUs")


@dataclass(frozen=True)
class Memory:
    weights_gb: float
    grads_gb: float
    optimizer_gb: float
    activations_gb: float  # one microbatch through the stage's layers
    activations_in_flight_gb: float  # every microbatch the first 1F1B stage holds at once
    total_gb: float  # states + one microbatch's activations: what must fit
    total_in_flight_gb: float  # states + the 1F1B peak, without offloading or extra recomputation

    def as_dict(self) -> dict:
        return {k: round(v, 3) for k, v in self.__dict__.items()}


def parameters_per_gpu(w: Workload) -> float:
    """Parameters one GPU holds before ZeRO sharding: the dense part over TP x PP, the experts over TP x PP x EP."""
    p, m = w.parallel, w.model
    dense = m.parameters - m.expert_parameters
    return dense / (p.tp * p.pp) + m.expert_parameters / (p.tp * p.pp * p.ep)


def memory_per_gpu(w: Workload) -> Memory:
    p, m = w.parallel, w.model
    n = parameters_per_gpu(w)
    shard = p.dp * p.cp  # ZeRO shards over every data-parallel rank (context-parallel ranks included)
    weights = n * BYTES_PER_PARAM_STATES["weights"] / (shard if p.zero_stage >= 3 else 1)
    grads = n * BYTES_PER_PARAM_STATES["grads"] / (shard if p.zero_stage >= 2 else 1)
    opt = n * BYTES_PER_PARAM_STATES["optimizer"] / (shard if p.zero_stage >= 1 else 1)
    sbh = (m.seq_len / p.cp) * p.microbatch * m.hidden
    per_layer = {"none": 34.0 + 5.0 * m.heads * m.seq_len / m.hidden, "selective": 34.0, "full": 2.0}[
        p.recompute
    ]
    layers_per_stage = math.ceil(m.layers / p.pp)
    act = per_layer * sbh / p.tp * layers_per_stage
    if p.recompute == "full":
        act += 34.0 * sbh / p.tp  # the layer being recomputed holds its full working set
    in_flight = min(p.pp, max(1, w.microbatches))
    if p.virtual_stages > 1 and p.pp > 1:
        in_flight *= 1.0 + (p.pp - 1) / (p.pp * p.virtual_stages)  # interleaving keeps more in flight
    states = weights + grads + opt
    return Memory(
        weights / GB,
        grads / GB,
        opt / GB,
        act / GB,
        act * in_flight / GB,
        (states + act) / GB,
        (states + act * in_flight) / GB,
    )


def check_memory(w: Workload, memory_gb: float) -> Memory:
    mem = memory_per_gpu(w)
    if mem.total_gb > memory_gb:
        raise ValueError(
            f"parallel: needs {mem.total_gb:.1f} GB per GPU (weights {mem.weights_gb:.1f}, gradients "
            f"{mem.grads_gb:.1f}, optimizer {mem.optimizer_gb:.1f}, activations {mem.activations_gb:.1f}); "
            f"the GPU has {memory_gb:g} GB: raise tp, pp or the ZeRO stage, or recompute activations"
        )
    return mem


def checkpoint_bytes(model: ModelSpec) -> float:
    """Bytes of one full checkpoint: bf16 weights and the fp32 optimizer state (master weights, two Adam
    moments), 14 bytes per parameter; gradients are not saved."""
    return model.parameters * CHECKPOINT_BYTES_PER_PARAM
