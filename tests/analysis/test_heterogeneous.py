"""Jobs over several GPU models: the synchronous pace, the by-speed split, each model's own failure rates.

Expected values are hand calculations: training compute 6·N·D FLOPs (Kaplan et al. 2020, arXiv 2001.08361
§2.1) for Chinchilla 70B on 1.4T tokens (Hoffmann et al. 2022, arXiv 2203.15556), dense BF16 peaks from
the vendor datasheets (H100 SXM 989 TFLOPS, A100 312, MI300X 1,307.4, Ascend 910B 320).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.calculators import run_calculator, training_time
from campus.analysis.catalog import catalog_specs
from campus.analysis.compute import training_days

SPECS = catalog_specs()["gpus"]
CHINCHILLA_FLOPS = 6 * 70e9 * 1.4e12  # 5.88e23


def test_a_synchronous_mixed_job_runs_at_the_slowest_chips_pace():
    out = training_time(
        flops=CHINCHILLA_FLOPS, gpus_by_model_={"h100-sxm": 1000, "a100-sxm": 1000}, specs=SPECS, mfu=0.4
    )
    # 2,000 GPUs x 312 TFLOPS x 0.4 = 2.496e17 FLOP/s -> 5.88e23 / 2.496e17 s = 27.27 days
    assert out["partition"] == "synchronous"
    assert out["pace_gpu_model"] == "a100-sxm"
    assert out["days_synchronous"] == pytest.approx(27.2658, rel=1e-4)
    assert out["days"] == out["days_synchronous"]
    # (1,000 x 989 + 1,000 x 312) TFLOPS x 0.4 = 5.204e17 FLOP/s -> 13.08 days
    assert out["days_by_speed"] == pytest.approx(13.0775, rel=1e-4)
    assert out["effective_pflops"] == pytest.approx(2000 * 312 * 0.4 / 1000)


def test_by_speed_is_an_explicit_choice():
    out = run_calculator(
        "training-time",
        {
            "flops": CHINCHILLA_FLOPS,
            "gpus_by_model": {"h100-sxm": 1000, "a100-sxm": 1000},
            "specs": SPECS,
            "partition": "by_speed",
        },
    )
    assert out["days"] == pytest.approx(13.0775, rel=1e-4)
    assert out["days_synchronous"] == pytest.approx(27.2658, rel=1e-4)
    with pytest.raises(ValueError, match="^partition:"):
        training_time(flops=1e24, gpus=8, gpu_model="h100-sxm", partition="evenly")


def test_the_issue_campus_mix_synchronous_is_three_times_by_speed():
    # 50k H100 + 30k MI300X + 20k Ascend 910B, 3.8e25 FLOPs at 40% MFU:
    # synchronous 100,000 x 320 TFLOPS; by speed 50,000 x 989 + 30,000 x 1,307.4 + 20,000 x 320 = 95,072 PFLOPS
    mix = {"h100-sxm": 50_000, "mi300x": 30_000, "ascend-910b": 20_000}
    out = training_time(flops=3.8e25, gpus_by_model_=mix, specs=SPECS)
    assert out["pace_gpu_model"] == "ascend-910b"
    assert out["days"] == pytest.approx(3.8e25 / (100_000 * 320e12 * 0.4) / 86_400)
    assert out["days_by_speed"] == pytest.approx(3.8e25 / (95_072e15 * 0.4) / 86_400)


def test_a_synchronous_fp8_job_cannot_include_a_chip_without_fp8():
    mix = {"h100-sxm": 8, "a100-sxm": 8}
    with pytest.raises(ValueError, match="^precision: a100-sxm has no fp8"):
        training_time(flops=1e24, gpus_by_model_=mix, specs=SPECS, precision="fp8")
    out = training_time(flops=1e24, gpus_by_model_=mix, specs=SPECS, precision="fp8", partition="by_speed")
    assert out["days_synchronous"] is None
    assert out["days"] == pytest.approx(1e24 / (8 * 1979e12 * 0.4) / 86_400)


def test_one_model_gives_the_same_time_both_ways():
    out = training_time(flops=CHINCHILLA_FLOPS, gpus=1024, gpu_model="h100-sxm", mfu=0.4)
    assert out["days_synchronous"] == out["days_by_speed"] == out["days"]
    assert out["days"] == pytest.approx(5.88e23 / (1024 * 989e12 * 0.4) / 86_400)


@settings(max_examples=60, deadline=None)
@given(
    counts=st.dictionaries(
        st.sampled_from(["h100-sxm", "a100-sxm", "mi300x", "ascend-910b", "b200"]),
        st.integers(min_value=1, max_value=100_000),
        min_size=1,
    )
)
def test_synchronous_never_beats_by_speed_and_equals_the_brute_force_minimum(counts):
    sync = training_days(1e24, counts, specs=SPECS)
    speed = training_days(1e24, counts, specs=SPECS, partition="by_speed")
    assert sync >= speed * (1 - 1e-12)
    slowest = min(SPECS[s].peak_tflops["bf16"] for s in counts)
    assert sync == pytest.approx(1e24 / (sum(counts.values()) * slowest * 1e12 * 0.4) / 86_400)
