"""Speed of the step-time model (a table, not a test): one 100k-GPU job and a 200-point parallelism sweep.

Usage: .venv/bin/python bench/bench_step_time.py
Targets (issue 31): a 100k-GPU job answers in <= 100 ms, a 200-point sweep in <= 5 s. docs/training.md
records the table.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.catalog import catalog_specs  # noqa: E402
from campus.analysis.job_compute import campus_mfu, job_figures  # noqa: E402
from campus.analysis.job_reliability import declared_jobs  # noqa: E402
from campus.analysis.training.campus_jobs import declared_job_models  # noqa: E402
from campus.analysis.training.cluster import reference_pool  # noqa: E402
from campus.analysis.training.presets import run_workload  # noqa: E402
from campus.analysis.training.scaling import scaling_curve, sweep  # noqa: E402
from campus.analysis.training.steptime import step_time  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.interchange.spec_snapshot import spec_snapshot  # noqa: E402


def _best_of(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    h100 = catalog_specs()["gpus"]["h100-sxm"]
    w = run_workload("llama3-405b-16k")
    w100k = replace(w, global_batch=12_288, parallel=replace(w.parallel, dp=768))  # 98,304 GPUs
    pool = reference_pool(h100, 98_304, island_gpus=24_576, oversubscription=2.0)
    one = _best_of(lambda: step_time(w100k, [pool]))
    points = [
        {"tp": tp, "pp": pp, "dp": 98_304 // (tp * pp)}
        for tp in (1, 2, 4, 8, 16)
        for pp in (1, 2, 4, 8, 16, 32, 64, 128)
    ] * 5
    points = points[:200]
    sw = _best_of(lambda: sweep(w100k, pool, points), repeat=3)
    counts = [128 * 2**k for k in range(10)]
    curve = _best_of(lambda: scaling_curve(w, replace(pool, gpus=counts[-1]), counts), repeat=3)
    out = step_time(w100k, [pool])
    snap = spec_snapshot(generate_spec("Bench", gpus=100_000))
    jobs = declared_jobs(snap)
    models = _best_of(lambda: declared_job_models(snap, jobs), repeat=3)
    # what a scenario with no MFU or checkpoint typed adds to its prepare: the campus's jobs (the load kinds)
    # and one job over every GPU (failure_cascade, liquid_cooling)
    load_mfu = _best_of(lambda: campus_mfu(snap, "bf16"), repeat=3)
    one_job = _best_of(lambda: job_figures(snap, None, "bf16"), repeat=3)
    print("| what | time | target |")
    print("|---|---:|---:|")
    print(f"| step time, Llama 3 405B on 98,304 H100 (MFU {out.mfu:.3f}) | {one * 1e3:.3f} ms | <= 100 ms |")
    print(f"| sweep of {len(points)} points (TP x PP) | {sw * 1e3:.1f} ms | <= 5 s |")
    print(f"| scaling curve, {len(counts)} GPU counts | {curve * 1e3:.2f} ms | |")
    print(
        f"| the summary's job models, 100k-GPU generated campus ({len(jobs)} islands) | {models * 1e3:.1f} ms | |"
    )
    print(
        f"| a load scenario's MFU from the hardware (campus_mfu), same campus | {load_mfu * 1e3:.1f} ms | |"
    )
    print(
        f"| one job's MFU and checkpoint from the hardware (job_figures), every GPU | {one_job * 1e3:.1f} ms | |"
    )


if __name__ == "__main__":
    main()
