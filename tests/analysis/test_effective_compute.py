"""Effective compute = peak x MFU x ETTR (docs/model.md §5): the summary's ``compute.effective_pflops``
and the training-time calculator's default ETTR on a campus."""

from __future__ import annotations

import math

import pytest

from campus.analysis.calculators import training_time
from campus.analysis.summary import campus_summary
from tests.analysis.builders import FailureRate, campus, rack, two_n

# A job MTTF of 2 h: 240 toy GPUs, each failing once in 480 h (240 / 480 = 0.5 failures an hour), in the
# default job set (the toy GPU has none of its own and borrows it).
RATES = (FailureRate("gpu", "gpu", 480.0, True, 48.0, "llama3-2024"),)
# By hand, checkpoints of δ = 5 min = 1/12 h, restarts of R = 10 min = 1/6 h, M = 2 h:
# Daly's interval τ = √(2δM)[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ = 0.57735 x 1.0504273 − 0.083333 = 0.523131 h;
# ETTR = τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)) = 0.523131 / (2 x 1.0869040 x (e^{0.3032323} − 1 = 0.3542290))
#      = 0.523131 / 0.7700238 = 0.679368.
ETTR = 0.679368


def _campus():
    # three racks of 10 toy servers (80 GPUs each), fed 2N: every rack runs at design
    return two_n((10, 10, 10), failure_rates=RATES)


def test_the_hand_ettr_is_daly_exact():
    d, m, r = 1 / 12, 2.0, 1 / 6
    x = d / (2 * m)
    tau = math.sqrt(2 * d * m) * (1 + math.sqrt(x) / 3 + x / 9) - d
    assert tau / (m * math.exp(r / m) * (math.exp((tau + d) / m) - 1)) == pytest.approx(ETTR, abs=1e-6)


def test_summary_effective_pflops_counts_the_campus_ettr():
    s = campus_summary(_campus())
    c, rel = s["compute"], s["reliability"]
    assert rel["job_mttf_hours"] == pytest.approx(2.0)
    assert rel["expected_ettr"] == pytest.approx(ETTR, abs=1e-6)
    # 240 GPUs x 100 TFLOPS = 24 PFLOPS peak BF16; x 0.40 MFU x 0.679368 = 6.52193 PFLOPS (was 9.6: no ETTR)
    assert c["peak_pflops"]["bf16"] == pytest.approx(24.0)
    assert c["effective_pflops"]["bf16"] == pytest.approx(24.0 * 0.4 * ETTR, abs=1e-4)
    assert c["effective_pflops_synchronous"]["bf16"] == pytest.approx(24.0 * 0.4 * ETTR, abs=1e-4)
    assert c["design_effective_pflops"]["bf16"] == pytest.approx(6.52193, abs=1e-4)
    assert c["design_effective_pflops_synchronous"]["bf16"] == pytest.approx(6.52193, abs=1e-4)
    # the campus is one island (its racks in no pod): its one declared job is the campus-wide one
    assert [j["gpus"] for j in rel["headline"]["jobs"]] == [240]
    assert (c["ettr"], c["ettr_source"]) == (pytest.approx(ETTR, abs=1e-6), "reliability.headline")
    # an MFU given applies alike: 24 x 0.5 x 0.679368 = 8.15242
    assert campus_summary(_campus(), mfu=0.5)["compute"]["effective_pflops"]["bf16"] == (
        pytest.approx(8.15242, abs=1e-4)
    )


def test_a_campus_without_failure_rates_loses_nothing_to_failures():
    c = campus_summary(two_n((10,)))["compute"]
    # 80 GPUs x 100 TFLOPS x 0.4 = 3.2 PFLOPS; no failure data, ETTR 1.0
    assert c["effective_pflops"]["bf16"] == pytest.approx(3.2)
    assert (c["ettr"], c["ettr_source"]) == (1.0, "none")


def test_training_time_on_a_campus_defaults_to_its_expected_ettr():
    snap = _campus()
    out = training_time(flops=1e21, snapshot=snap)
    # 1e21 FLOPs over 24 PFLOPS x 0.4 x 0.679368 = 6.52193e15 FLOP/s: 153,329 s = 1.774645 days
    assert out["ettr_source"] == "campus"
    assert out["ettr"] == pytest.approx(ETTR, abs=1e-6)
    assert out["effective_pflops"] == pytest.approx(6.52193, abs=1e-4)
    assert out["days"] == pytest.approx(1e21 / 6.52193e15 / 86_400, rel=1e-5)
    given = training_time(flops=1e21, snapshot=snap, ettr=0.9)
    assert (given["ettr"], given["ettr_source"]) == (0.9, "given")
    alone = training_time(flops=1e21, gpus=240, gpu_model="toy", specs={"toy": snap.gpus["toy"]})
    assert (alone["ettr"], alone["ettr_source"]) == (1.0, "default")
    bare = training_time(flops=1e21, snapshot=campus(racks=(rack(1, 10),)))
    assert (bare["ettr"], bare["ettr_source"]) == (1.0, "default")
