"""Step time of a training job on pools of GPUs, and what it gives: MFU, tokens/s, days for the budget.

    step = m t_mb + (p - 1)/v t_mb + 2 (p - 1) t_p2p + exposed DP + exposed I/O
    t_mb = compute + exposed TP + CP + EP communication of one microbatch on one pipeline stage

m microbatches per step, p pipeline stages, v interleaved chunks per stage (the 1F1B bubble (p-1)/(v m);
Narayanan et al., SC21, arXiv 2104.04473, §2.2). Compute runs at the GPU's dense peak times its sustained
fraction (``SUSTAINED_FRACTION``). Per layer and microbatch, tensor parallelism moves four all-reduces (or
reduce-scatter/all-gather pairs with sequence parallelism, the same bytes) of b s h activations (six with full
recomputation; Megatron-LM, Shoeybi et al., arXiv 1909.08053, §3); context parallelism all-gathers K and V
forward and reduce-scatters their gradients backward (Llama 3 §3.3.2); expert parallelism sends each token to
its top-k experts and back, forward and backward (four all-to-alls; Lepikhin et al., GShard, arXiv
2006.16668). Data parallelism reduces the gradients once per step (all-reduce without ZeRO; reduce-scatter of
the gradients and all-gather of the weights with a distributed optimizer or FSDP), hidden behind the last
microbatch's compute up to ``dp_overlap``. Data loading reads the step's token ids over the front-end network,
prefetched during the step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from campus.analysis.training.cluster import Pool, levels, outer_tier
from campus.analysis.training.collectives import all_reduce_s, all_to_all_levels_s, gather_or_scatter_s, p2p_s
from campus.analysis.training.workload import (
    Workload,
    check_memory,
    hardware_flops_per_token,
    model_flops_per_token,
    parameters_per_gpu,
    validate,
)

SECONDS_PER_DAY = 86_400.0
PARTITIONS = ("synchronous", "by_speed")
# Fraction of the dense peak the transformer's math sustains on one GPU with no communication or bubble
# (GEMM efficiency with the non-GEMM kernels folded in). Calibrated, one figure per GPU generation: A100 on
# Megatron-LM's 1T-parameter run (Narayanan et al., SC21, table 1: 163 TFLOP/s per GPU, 52 % of peak, on
# 3,072 A100), H100 on Llama 3 405B on 8,192 H100 (Llama 3 paper table 4: 43 % MFU); every other published
# run in docs/training.md is a check, not a calibration. Other GPUs take the H100 figure (an estimate).
SUSTAINED_FRACTION = {"a100-sxm": 0.585, "h100-sxm": 0.50, "h200": 0.50}
DEFAULT_SUSTAINED_FRACTION = 0.50
TOKEN_BYTES = 4  # int32 token ids read by the data loader


@dataclass
class Collective:
    name: str
    time_s: float  # per step, whole
    exposed_s: float  # per step, on the critical path
    tier: str  # the outermost tier it crosses
    by_tier: dict[str, float] = field(default_factory=dict)  # per step, s

    def as_dict(self) -> dict:
        return {
            "time_s": self.time_s,
            "exposed_s": self.exposed_s,
            "tier": self.tier,
            "by_tier_s": dict(self.by_tier),
        }


@dataclass
class StepTime:
    step_s: float
    compute_s: float
    bubble_s: float
    collectives: dict[str, Collective]
    exposed_io_s: float
    io_s: float
    mfu: float
    hfu: float
    tokens_per_s: float
    tflops_per_gpu: float  # model FLOPs
    hw_tflops_per_gpu: float  # executed FLOPs (recomputation counted)
    days: float | None
    gpus: int
    pace_gpu: str
    memory: dict
    limiter: str  # the largest cost beyond compute: a collective's name, "bubble" or "io"

    def as_dict(self) -> dict:
        return {
            "step_s": self.step_s,
            "breakdown_s": self.breakdown(),
            "collectives": {k: c.as_dict() for k, c in self.collectives.items()},
            "io_s": self.io_s,
            "mfu": self.mfu,
            "hfu": self.hfu,
            "tokens_per_s": self.tokens_per_s,
            "tflops_per_gpu": self.tflops_per_gpu,
            "hw_tflops_per_gpu": self.hw_tflops_per_gpu,
            "days": self.days,
            "gpus": self.gpus,
            "pace_gpu": self.pace_gpu,
            "memory_gb_per_gpu": self.memory,
            "limiter": self.limiter,
        }

    def breakdown(self) -> dict[str, float]:
        out = {"compute": self.compute_s, "bubble": self.bubble_s}
        out.update({k: c.exposed_s for k, c in self.collectives.items()})
        out["io"] = self.exposed_io_s
        return out


def _sustained(slug: str, overrides: dict[str, float] | None) -> float:
    if overrides and slug in overrides:
        return overrides[slug]
    return SUSTAINED_FRACTION.get(slug, DEFAULT_SUSTAINED_FRACTION)


def _worst_network(pools: Sequence[Pool]) -> Pool:
    """The pool whose links pace a job spanning several: smallest domain, slowest NIC, most oversubscribed."""
    base = min(pools, key=lambda p: (p.nic_gbps_per_gpu / max(p.oversubscription, 1.0), p.domain_gpus))
    return Pool(
        gpu=min(pools, key=lambda p: p.gpu.scaleup_gbps).gpu,
        gpus=sum(p.gpus for p in pools),
        domain_gpus=min(p.domain_gpus for p in pools),
        gpus_per_node=min(p.gpus_per_node for p in pools),
        nic_gbps_per_gpu=min(p.nic_gbps_per_gpu for p in pools),
        island_gpus=min(p.island_gpus for p in pools),
        oversubscription=max(p.oversubscription for p in pools),
        fabric=base.fabric if all(p.fabric == base.fabric for p in pools) else "mixed",
        fabric_tiers=max(p.fabric_tiers for p in pools),
        frontend_gbps_per_node=min(p.frontend_gbps_per_node for p in pools),
        name="+".join(p.name for p in pools),
    )


def step_time(
    w: Workload,
    pools: Sequence[Pool],
    *,
    partition: str = "synchronous",
    algorithm: str = "best",
    sustained: dict[str, float] | None = None,
    check: bool = True,
) -> StepTime:
    """The step time of ``w`` on ``pools`` (one pool: a homogeneous job). ``partition`` with several pools:
    ``synchronous`` (every GPU at the slowest pool's pace) or ``by_speed`` (each pool's share of the work in
    proportion to its sustained FLOP/s: uneven micro-batches or stages). The network of a mixed job is the
    worst of its pools' (smallest domain, slowest NIC, most oversubscription)."""
    if not pools:
        raise ValueError("pools: no GPUs")
    if partition not in PARTITIONS:
        raise ValueError(f"partition: must be one of {', '.join(PARTITIONS)}")
    p, m = w.parallel, w.model
    total = sum(pl.gpus for pl in pools)
    if check:
        validate(w, total)
    prec = w.precision
    rates = []
    for pl in pools:
        peak = pl.gpu.peak_tflops.get(prec, 0.0)
        if peak <= 0:
            raise ValueError(f"precision: {pl.gpu.slug} has no {prec}")
        rates.append((pl, peak * 1e12, peak * 1e12 * _sustained(pl.gpu.slug, sustained)))
    pace_pool, pace_peak, pace_rate = min(rates, key=lambda r: r[2])
    if partition == "by_speed" and len(pools) > 1:
        rate = sum(pl.gpus * r for pl, _, r in rates) / total
        peak_sum = sum(pl.gpus * pk for pl, pk, _ in rates)
    else:
        rate = pace_rate
        peak_sum = sum(pl.gpus * pk for pl, pk, _ in rates)
    net = pools[0] if len(pools) == 1 else _worst_network(pools)
    memory = check_memory(w, min(pl.gpu.memory_gb for pl in pools)) if check else None

    mb = w.microbatches
    layers_stage = math.ceil(m.layers / p.pp)
    tokens_mb = p.microbatch * m.seq_len  # one microbatch, whole sequences
    hw_per_token = hardware_flops_per_token(m, p.recompute)
    flops_mb_gpu = hw_per_token * tokens_mb / (p.tp * p.cp * m.layers) * layers_stage
    t_compute_mb = flops_mb_gpu / rate

    s_tp, s_cp, s_ep, s_pp = 1, p.tp, p.tp * p.cp, p.tp * p.cp * p.ep
    s_dp = s_pp * p.pp
    act_bytes = 2.0  # bf16 activations (FP8 recipes keep the communicated activations in bf16)
    colls: dict[str, Collective] = {}
    fwd_passes = 3 if p.recompute == "full" else 2  # forward, (recomputed forward), backward

    # tensor parallel: 2 collectives per layer per pass of b (s / cp) h activations
    tp_lv = levels(net, [(p.tp, s_tp)])
    t, by = all_reduce_s(tp_lv, p.microbatch * (m.seq_len / p.cp) * m.hidden * act_bytes, algorithm)
    n_tp = 2 * fwd_passes * layers_stage
    tp_mb = n_tp * t
    colls["tp"] = Collective("tp", 0.0, 0.0, outer_tier(tp_lv), {k: v * n_tp for k, v in by.items()})
    tp_mb_exposed = tp_mb * (1.0 - p.tp_overlap)

    # context parallel: all-gather K, V (forward, and the recomputed forward), reduce-scatter dK, dV
    cp_lv = levels(net, [(p.cp, s_cp)])
    kv = p.microbatch * m.seq_len * 2 * max(m.kv_dim / p.tp, m.hidden / m.heads) * act_bytes
    t, by = gather_or_scatter_s(cp_lv, kv)
    cp_mb = fwd_passes * layers_stage * t
    colls["cp"] = Collective(
        "cp", 0.0, 0.0, outer_tier(cp_lv), {k: v * fwd_passes * layers_stage for k, v in by.items()}
    )

    # expert parallel: dispatch and combine, forward and backward
    ep_lv = levels(net, [(p.ep, s_ep)])
    ep_mb = 0.0
    if m.experts > 1 and p.ep > 1:
        routed = p.microbatch * m.seq_len / (p.cp * p.tp) * m.top_k * m.hidden * act_bytes
        t, by = all_to_all_levels_s(ep_lv, routed)
        n_ep = 2 * fwd_passes * layers_stage
        ep_mb = n_ep * t
        colls["ep"] = Collective("ep", 0.0, 0.0, outer_tier(ep_lv), {k: v * n_ep for k, v in by.items()})

    # DualPipe-style overlap hides the all-to-all behind the compute of the other chunk, never more than it
    ep_mb_exposed = ep_mb - min(p.ep_overlap * ep_mb, t_compute_mb)
    t_mb = t_compute_mb + tp_mb_exposed + cp_mb + ep_mb_exposed
    compute_s = mb * t_compute_mb
    bubble_s = (p.pp - 1) / p.virtual_stages * t_mb

    # pipeline: activations (b s h / (tp cp), sequence-parallel) between neighbouring stages, exposed in the
    # fill and drain (the steady state overlaps them)
    pp_lv = levels(net, [(2, s_pp)]) if p.pp > 1 else []
    pp_s = 0.0
    if pp_lv:
        lv = pp_lv[-1]
        one = p2p_s(
            p.microbatch * m.seq_len / p.cp * m.hidden * act_bytes / p.tp, lv.bandwidth_bytes_s, lv.alpha_s
        )
        pp_s = 2 * (p.pp - 1) * one
        colls["pp"] = Collective("pp", pp_s, pp_s, lv.name, {lv.name: pp_s})

    # data parallel (dense weights over CP x EP x outer DP; expert weights over the outer DP only)
    n_gpu = parameters_per_gpu(w)
    expert_share = (m.expert_parameters / (p.tp * p.pp * p.ep)) / n_gpu if n_gpu else 0.0
    dense_lv = levels(net, [(p.cp, s_cp), (p.ep, s_ep), (p.dp // p.ep, s_dp)])
    exp_lv = levels(net, [(p.dp // p.ep, s_dp)])
    dp_by: dict[str, float] = {}
    dp_s = 0.0
    for share, lv in ((1.0 - expert_share, dense_lv), (expert_share, exp_lv)):
        if share <= 0 or not lv:
            continue
        n = n_gpu * share
        if p.zero_stage == 0:
            t, by = all_reduce_s(lv, n * w.grad_reduce_bytes, algorithm)
        else:
            t1, by1 = gather_or_scatter_s(lv, n * w.grad_reduce_bytes)
            t2, by2 = gather_or_scatter_s(lv, n * 2.0)
            t, by = t1 + t2, {k: by1.get(k, 0.0) + by2.get(k, 0.0) for k in by1.keys() | by2.keys()}
        dp_s += t
        for k, v in by.items():
            dp_by[k] = dp_by.get(k, 0.0) + v
    dp_exposed = max(0.0, dp_s - p.dp_overlap * t_compute_mb)
    if dp_s > 0:
        colls["dp"] = Collective("dp", dp_s, dp_exposed, outer_tier(dense_lv), dp_by)

    colls["tp"].time_s, colls["tp"].exposed_s = (
        mb * tp_mb,
        (mb + (p.pp - 1) / p.virtual_stages) * tp_mb_exposed,
    )
    colls["cp"].time_s = colls["cp"].exposed_s = (mb + (p.pp - 1) / p.virtual_stages) * cp_mb
    if "ep" in colls:
        colls["ep"].time_s = (mb + (p.pp - 1) / p.virtual_stages) * ep_mb
        colls["ep"].exposed_s = (mb + (p.pp - 1) / p.virtual_stages) * ep_mb_exposed
    for name in ("tp", "cp", "ep"):
        c = colls.get(name)
        if c is not None:
            c.by_tier = {k: v * (mb + (p.pp - 1) / p.virtual_stages) for k, v in c.by_tier.items()}
    colls = {k: c for k, c in colls.items() if c.time_s > 0}

    pipeline_s = mb * t_mb + bubble_s + pp_s + dp_exposed
    nodes = max(1, math.ceil(total / net.gpus_per_node))
    io_s = w.tokens_per_step * TOKEN_BYTES / (nodes * net.frontend_gbps_per_node / 8.0 * 1e9)
    exposed_io = max(0.0, io_s - pipeline_s)
    step = pipeline_s + exposed_io

    model_flops = model_flops_per_token(m) * w.tokens_per_step
    hw_flops = hw_per_token * w.tokens_per_step
    tokens_s = w.tokens_per_step / step
    costs = {k: c.exposed_s for k, c in colls.items()}
    costs.update(bubble=bubble_s, io=exposed_io)
    limiter = max(costs, key=costs.get) if any(costs.values()) else "compute"
    return StepTime(
        step_s=step,
        compute_s=compute_s,
        bubble_s=bubble_s,
        collectives=colls,
        exposed_io_s=exposed_io,
        io_s=io_s,
        mfu=model_flops / (step * peak_sum),
        hfu=hw_flops / (step * peak_sum),
        tokens_per_s=tokens_s,
        tflops_per_gpu=model_flops / step / total / 1e12,
        hw_tflops_per_gpu=hw_flops / step / total / 1e12,
        days=(w.tokens / tokens_s / SECONDS_PER_DAY) if w.tokens > 0 else None,
        gpus=total,
        pace_gpu=pace_pool.gpu.slug,
        memory=memory.as_dict() if memory else {},
        limiter=limiter,
    )
