"""Peak and effective compute of heterogeneous GPUs, and training time.

Peak = sum over GPU models of count x dense peak TFLOPS at the precision (a precision the part lacks
counts 0: an A100 adds nothing at FP8). Effective = peak x MFU x ETTR.

A job spanning several GPU models is timed two ways:
  synchronous (the default): every rank does the same work per step and waits for the slowest, so each
    GPU delivers the slowest model's rate: N_total x min(peak_i) x MFU x ETTR. A model that lacks the
    precision cannot take part, so no synchronous time exists at that precision.
  by_speed: the work is partitioned in proportion to each model's speed (uneven micro-batches or
    pipeline stages sized per chip), so the rates add: sum(N_i x peak_i) x MFU x ETTR.
"""

from __future__ import annotations

from collections.abc import Mapping

from campus.analysis.snapshot import CampusSnapshot, GpuSpec

PRECISIONS = ("fp8", "bf16", "fp16", "tf32", "fp32")
PARTITIONS = ("synchronous", "by_speed")
SECONDS_PER_DAY = 86_400.0


def gpus_by_model(snap: CampusSnapshot) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in snap.racks:
        for slug, count in r.nodes:
            spec = snap.node_models[slug]
            out[spec.gpu] = out.get(spec.gpu, 0) + count * spec.gpus_per_node
    return out


def peak_pflops(counts: Mapping[str, int], specs: Mapping[str, GpuSpec]) -> dict[str, float]:
    """Peak dense PFLOPS per precision for ``counts`` GPUs of each model slug."""
    out = dict.fromkeys(PRECISIONS, 0.0)
    for slug, n in counts.items():
        if n < 0:
            raise ValueError("gpus_by_model: counts must be >= 0")
        spec = specs.get(slug)
        if spec is None:
            raise ValueError(f"gpus_by_model: unknown GPU model {slug!r}")
        for precision, tflops in spec.peak_tflops.items():
            out[precision] = out.get(precision, 0.0) + n * tflops / 1000.0
    return out


def campus_peak_pflops(snap: CampusSnapshot) -> dict[str, float]:
    return peak_pflops(gpus_by_model(snap), snap.gpus)


def _check_unit_interval(name: str, value: float) -> None:
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name}: must be > 0 and <= 1")


def effective_pflops(peak: float, mfu: float, ettr: float = 1.0) -> float:
    _check_unit_interval("mfu", mfu)
    _check_unit_interval("ettr", ettr)
    if peak < 0:
        raise ValueError("peak: must be >= 0")
    return peak * mfu * ettr


def training_flops(parameters: float, tokens: float) -> float:
    """Training compute of a dense transformer: 6 FLOPs per parameter per token (2 forward, 4 backward;
    Kaplan et al., "Scaling Laws for Neural Language Models", arXiv 2001.08361, §2.1)."""
    if parameters <= 0:
        raise ValueError("parameters: must be > 0")
    if tokens <= 0:
        raise ValueError("tokens: must be > 0")
    return 6.0 * parameters * tokens


def pace_model(counts: Mapping[str, int], specs: Mapping[str, GpuSpec], precision: str) -> tuple[str, float]:
    """The slowest GPU model present (count > 0) at ``precision`` and its dense peak TFLOPS (0 when it
    lacks the precision); ties go to the first slug in sorted order so the answer is stable."""
    present = sorted(slug for slug, n in counts.items() if n > 0)
    if not present:
        raise ValueError("gpus: the set has no GPU")
    for slug in present:
        if slug not in specs:
            raise ValueError(f"gpus_by_model: unknown GPU model {slug!r}")
    slug = min(present, key=lambda s: specs[s].peak_tflops.get(precision, 0.0))
    return slug, specs[slug].peak_tflops.get(precision, 0.0)


def synchronous_pflops(counts: Mapping[str, int], specs: Mapping[str, GpuSpec], precision: str) -> float:
    """Peak PFLOPS of a synchronous job: every GPU at the slowest model's peak."""
    _, tflops = pace_model(counts, specs, precision)
    return sum(n for n in counts.values() if n > 0) * tflops / 1000.0


def training_days(
    flops: float,
    gpus_by_model: Mapping[str, int] | None = None,
    *,
    specs: Mapping[str, GpuSpec] | None = None,
    gpus: int | None = None,
    gpu: GpuSpec | None = None,
    precision: str = "bf16",
    mfu: float = 0.4,
    ettr: float = 1.0,
    partition: str = "synchronous",
) -> float:
    """Days to deliver ``flops`` total training FLOPs: flops / (peak FLOP/s x MFU x ETTR) / 86,400.

    Give either ``gpus_by_model`` with ``specs`` (slug -> GpuSpec), or ``gpus`` of one ``gpu``. With
    several models, ``partition`` picks the peak: "synchronous" (slowest model's pace) or "by_speed".
    """
    if flops <= 0:
        raise ValueError("flops: must be > 0")
    if precision not in PRECISIONS:
        raise ValueError(f"precision: must be one of {', '.join(PRECISIONS)}")
    if gpus_by_model is not None:
        if specs is None:
            raise ValueError("specs: required with gpus_by_model")
        if partition not in PARTITIONS:
            raise ValueError(f"partition: must be one of {', '.join(PARTITIONS)}")
        if partition == "by_speed":
            peak = peak_pflops(gpus_by_model, specs)[precision]
        else:
            peak_pflops(gpus_by_model, specs)  # validates counts and slugs
            slug, tflops = pace_model(gpus_by_model, specs, precision)
            if tflops <= 0:
                raise ValueError(
                    f"precision: {slug} has no {precision}, so a synchronous job cannot use it "
                    "(choose another precision or partition by_speed)"
                )
            peak = synchronous_pflops(gpus_by_model, specs, precision)
    else:
        if gpus is None or gpu is None:
            raise ValueError("gpus: give gpus and gpu, or gpus_by_model")
        if gpus <= 0:
            raise ValueError("gpus: must be > 0")
        peak = gpus * gpu.peak_tflops.get(precision, 0.0) / 1000.0
    if peak <= 0:
        raise ValueError(f"precision: no GPU in the set supports {precision}")
    rate = effective_pflops(peak, mfu, ettr) * 1e15
    return flops / rate / SECONDS_PER_DAY
