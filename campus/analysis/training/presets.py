"""Published models and the training runs that published their parallelism and throughput.

``MODELS``: architectures as their papers give them. ``RUNS``: a model, its parallelism, batch and GPU count
as published, with the throughput the run reported (``published``: ``mfu`` for model-FLOPs utilization,
``hw_tflops_per_gpu`` for FLOP/s per GPU counting recomputation, as Megatron-LM and BLOOM report). Where a
paper leaves a setting out (interleaving, recomputation) the preset's ``assumed`` says what was taken.
"""

from __future__ import annotations

from dataclasses import replace

from campus.analysis.snapshot import GpuSpec
from campus.analysis.training.workload import ModelSpec, Parallelism, Workload

LLAMA3 = "Llama Team, 'The Llama 3 Herd of Models', arXiv 2407.21783 (2024), table 3 and table 4"
MEGATRON = "Narayanan et al., 'Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM', SC21, arXiv 2104.04473, table 1"
GPT3 = "Brown et al., 'Language Models are Few-Shot Learners', arXiv 2005.14165 (2020), table 2.1"
MEGASCALE = "Jiang et al., 'MegaScale: Scaling Large Language Model Training to More Than 10,000 GPUs', NSDI 2024, table 2"
OPT = "Zhang et al., 'OPT: Open Pre-trained Transformer Language Models', arXiv 2205.01068 (2022), §2.2-2.4"
BLOOM = "BigScience, 'BLOOM: A 176B-Parameter Open-Access Multilingual Language Model', arXiv 2211.05100 (2022), §3.4"
DEEPSEEK = "DeepSeek-AI, 'DeepSeek-V3 Technical Report', arXiv 2412.19437 (2024), §3-4"

MODELS: dict[str, ModelSpec] = {
    "llama3-8b": ModelSpec("Llama 3 8B", 8.03e9, 32, 4096, 32, 8192, 128_256, kv_heads=8, source=LLAMA3),
    "llama3-70b": ModelSpec("Llama 3 70B", 70.6e9, 80, 8192, 64, 8192, 128_256, kv_heads=8, source=LLAMA3),
    "llama3-405b": ModelSpec(
        "Llama 3 405B", 405e9, 126, 16384, 128, 8192, 128_256, kv_heads=8, source=LLAMA3
    ),
    "gpt3-175b": ModelSpec("GPT-3 175B", 175e9, 96, 12288, 96, 2048, 50_257, source=GPT3),
    "megatron-18b": ModelSpec("Megatron-LM 18.4B", 18.4e9, 40, 6144, 48, 2048, 51_200, source=MEGATRON),
    "megatron-39b": ModelSpec("Megatron-LM 39.1B", 39.1e9, 48, 8192, 64, 2048, 51_200, source=MEGATRON),
    "megatron-146b": ModelSpec("Megatron-LM 145.6B", 145.6e9, 80, 12288, 96, 2048, 51_200, source=MEGATRON),
    "megatron-310b": ModelSpec("Megatron-LM 310.1B", 310.1e9, 96, 16384, 128, 2048, 51_200, source=MEGATRON),
    "megatron-1t": ModelSpec("Megatron-LM 1T", 1008e9, 128, 25600, 160, 2048, 51_200, source=MEGATRON),
    "opt-175b": ModelSpec("OPT-175B", 175e9, 96, 12288, 96, 2048, 50_272, source=OPT),
    "bloom-176b": ModelSpec("BLOOM 176B", 176e9, 70, 14336, 112, 2048, 250_880, source=BLOOM),
    "deepseek-v3": ModelSpec(
        "DeepSeek-V3",
        671e9,
        61,
        7168,
        128,
        4096,
        129_280,
        experts=256,
        active_parameters=37e9,
        expert_parameters=654e9,  # 58 MoE layers x 256 experts x 3 x 7,168 x 2,048
        top_k=8,
        source=DEEPSEEK,
    ),
}


def _run(model: str, gpu: str, gpus: int, global_batch: int, par: Parallelism, published: dict, **kw) -> dict:
    return {
        "model": model,
        "gpu": gpu,
        "gpus": gpus,
        "global_batch": global_batch,
        "parallel": par,
        "published": published,
        **kw,
    }


RUNS: dict[str, dict] = {
    # Llama 3 405B, table 4: TP8, PP16, DP64/128, 16M tokens per step; BF16 MFU 43 % / 41 % / 38 %.
    "llama3-405b-8k": _run(
        "llama3-405b",
        "h100-sxm",
        8192,
        2048,
        Parallelism(tp=8, pp=16, dp=64, zero_stage=3, virtual_stages=7),
        {"mfu": 0.43},
        tokens=15.6e12,
        source=LLAMA3,
        assumed="interleaving v = 7 (126 layers over 16 x 7 chunks; the paper does not give v); FSDP "
        "gathers weights once per step (the paper: no resharding after forward)",
    ),
    "llama3-405b-16k": _run(
        "llama3-405b",
        "h100-sxm",
        16384,
        2048,
        Parallelism(tp=8, pp=16, dp=128, zero_stage=3, virtual_stages=7),
        {"mfu": 0.41},
        tokens=15.6e12,
        source=LLAMA3,
        assumed="as llama3-405b-8k",
    ),
    "llama3-405b-16k-long": _run(
        "llama3-405b",
        "h100-sxm",
        16384,
        128,
        Parallelism(tp=8, pp=16, dp=8, cp=16, zero_stage=3, virtual_stages=7),
        {"mfu": 0.38},
        source=LLAMA3,
        seq_len=131_072,
        assumed="as llama3-405b-8k",
    ),
    # Megatron-LM table 1 (A100, full recomputation, sequence 2,048; FLOP/s counted with recomputation).
    "megatron-1t": _run(
        "megatron-1t",
        "a100-sxm",
        3072,
        3072,
        Parallelism(tp=8, pp=64, dp=6, zero_stage=0, recompute="full", virtual_stages=2),
        {"hw_tflops_per_gpu": 163.0},
        source=MEGATRON,
        assumed="interleaving v = 2 (table 1 does not give v); gradients all-reduced (no ZeRO)",
    ),
    "megatron-310b": _run(
        "megatron-310b",
        "a100-sxm",
        1920,
        2160,
        Parallelism(tp=8, pp=16, dp=15, zero_stage=0, recompute="full", virtual_stages=2),
        {"hw_tflops_per_gpu": 155.0},
        source=MEGATRON,
        assumed="as megatron-1t",
    ),
    "megatron-146b": _run(
        "megatron-146b",
        "a100-sxm",
        1536,
        2304,
        Parallelism(tp=8, pp=8, dp=24, zero_stage=0, recompute="full", virtual_stages=2),
        {"hw_tflops_per_gpu": 148.0},
        source=MEGATRON,
        assumed="as megatron-1t",
    ),
    "megatron-39b": _run(
        "megatron-39b",
        "a100-sxm",
        512,
        1536,
        Parallelism(tp=8, pp=2, dp=32, zero_stage=0, recompute="full", virtual_stages=2),
        {"hw_tflops_per_gpu": 138.0},
        source=MEGATRON,
        assumed="as megatron-1t",
    ),
    # MegaScale: GPT-3 175B on 12,288 A100, batch 6,144, MFU 55.2 %.
    "megascale-175b-12k": _run(
        "gpt3-175b",
        "a100-sxm",
        12288,
        6144,
        Parallelism(tp=8, pp=8, dp=192, zero_stage=1, virtual_stages=4, tp_overlap=0.8),
        {"mfu": 0.552},
        source=MEGASCALE,
        assumed="TP8 x PP8 x DP192 and interleaving v = 4 (the paper does not give the split); 80 % of the "
        "tensor-parallel communication hidden (§3.2 fuses it with the GEMMs; the fraction is an estimate); "
        "selective recomputation",
    ),
    # OPT-175B: 992 80 GB A100, Megatron TP8 with FSDP, ~2M tokens per step, 147 TFLOP/s per GPU.
    "opt-175b": _run(
        "opt-175b",
        "a100-sxm",
        992,
        992,
        Parallelism(tp=8, dp=124, zero_stage=3, recompute="full", microbatch=1),
        {"hw_tflops_per_gpu": 147.0},
        source=OPT,
        assumed="global batch 992 sequences (2.03M tokens; the published 2M is not a multiple of DP 124); "
        "full recomputation, FLOP/s counted with it",
    ),
    # BLOOM: 384 80 GB A100, TP4 x PP12 x DP8, ZeRO-1, batch 2,048, micro-batch 2, 156 TFLOP/s per GPU.
    "bloom-176b": _run(
        "bloom-176b",
        "a100-sxm",
        384,
        2048,
        Parallelism(tp=4, pp=12, dp=8, zero_stage=1, microbatch=2, recompute="full"),
        {"hw_tflops_per_gpu": 156.0},
        tokens=366e9,
        source=BLOOM,
        assumed="full recomputation (Megatron-DeepSpeed's FLOP/s formula counts it)",
    ),
    # DeepSeek-V3: 2,048 H800, PP16 x EP64, ZeRO-1, FP8, DualPipe; 180K H800 GPU hours per trillion tokens
    # (2.664M for the 14.8T pre-training tokens; 2.788M with context extension and post-training, table 1).
    "deepseek-v3": _run(
        "deepseek-v3",
        "h100-sxm",
        2048,
        15360,
        Parallelism(tp=1, pp=16, dp=128, ep=64, zero_stage=1, recompute="selective", ep_overlap=1.0),
        {"gpu_hours_per_trillion_tokens": 180e3},
        tokens=14.8e12,
        precision="fp8",
        source=DEEPSEEK,
        # H800 SXM: the H100 SXM's compute and memory with NVLink cut to 400 GB/s (NVIDIA; DeepSeek-V3 §3.2.2
        # measures 160 GB/s intra-node per direction, as 400 / 2 x the 0.8 bus efficiency gives)
        gpu_overrides={"name": "NVIDIA H800 SXM", "scaleup_gbps": 400.0},
        assumed="H800 as the H100 SXM with NVLink at 400 GB/s; DualPipe hides the expert all-to-all behind "
        "the other chunk's compute (ep_overlap 1: §3.2.1's full overlap, at most that compute); its smaller "
        "bubble, node-limited routing (a token to at most 4 nodes), FP8 dispatch and the 20 of 132 SMs kept "
        "for communication are not modelled; global batch 15,360 sequences of 4,096 tokens (§4.2)",
    ),
}


def run_gpu(name: str, spec: GpuSpec) -> GpuSpec:
    """The GPU the run ``name`` ran on: the catalog's ``spec`` with the run's ``gpu_overrides`` (the H800 of
    DeepSeek-V3 is an H100 with less NVLink)."""
    changes = RUNS[name].get("gpu_overrides") if name in RUNS else None
    return replace(spec, **changes) if changes else spec


def run_workload(name: str) -> Workload:
    """The published run ``name`` as a ``Workload`` (its parallelism, batch and model as published)."""
    if name not in RUNS:
        raise ValueError(f"preset: unknown run {name!r}; one of {', '.join(sorted(RUNS))}")
    r = RUNS[name]
    model = MODELS[r["model"]]
    if "seq_len" in r:
        model = ModelSpec(**{**model.__dict__, "seq_len": r["seq_len"]})
    return Workload(
        model=model,
        parallel=r["parallel"],
        global_batch=r["global_batch"],
        tokens=r.get("tokens", 0.0),
        precision=r.get("precision", "bf16"),
        source=r["source"],
        published=r["published"],
    )
