"""Jobs over several GPU models: the synchronous pace, the by-speed split, each model's own failure rates.

Expected values are hand calculations: training compute 6·N·D FLOPs (Kaplan et al. 2020, arXiv 2001.08361
§2.1) for Chinchilla 70B on 1.4T tokens (Hoffmann et al. 2022, arXiv 2203.15556), dense BF16 peaks from
the vendor datasheets (H100 SXM 989 TFLOPS, A100 312, MI300X 1,307.4, Ascend 910B 320).
"""

from __future__ import annotations

import dataclasses
import math

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


# ---------------------------------------------------------------- failure rates per generation

from campus import catalog_data as cat  # noqa: E402
from campus.analysis import reliability as rel  # noqa: E402
from campus.analysis.snapshot import CampusSnapshot, RackSnap  # noqa: E402


def _campus_of(servers: dict[str, int]) -> CampusSnapshot:
    """Racks of 4 servers of each model, catalog specs and the catalog's failure-rate sets."""
    specs = catalog_specs()
    racks = []
    for slug, count in servers.items():
        for i in range(count // 4):
            racks.append(
                RackSnap(
                    len(racks) + 1,
                    f"{slug}-{i}",
                    1,
                    1,
                    float(i),
                    0.0,
                    "direct-to-chip",
                    60.0,
                    None,
                    None,
                    "active",
                    ((slug, 4),),
                )
            )
    return CampusSnapshot(
        id=1,
        name="mixed",
        grid_capacity_kw=0.0,
        price_usd_per_kwh=0.078,
        design_pue=1.2,
        ambient_temp_c=25.0,
        other_it_fraction=0.0,
        gpus=specs["gpus"],
        node_models=specs["node_models"],
        failure_rates=specs["failure_rates"],
        racks=tuple(racks),
    )


def test_each_model_of_a_mixed_campus_is_charged_its_own_generations_rates():
    # 128 H100 servers (1,024 GPUs), 64 A100 servers, 32 MI300X servers (256 GPUs), over 30 days.
    snap = _campus_of({"hgx-h100-8": 128, "dgx-a100": 64, "mi300x-8": 32})
    # H100, Llama 3 Table 5: 419 interruptions in 1,296 h on 16,384 GPUs / 2,048 servers; 1,024 GPUs in
    # 128 servers are 1/16 of that job -> 419 / 16 / 1,296 per hour.
    h100 = 419 / 16 / 1296
    # A100, Kokolis et al. RSC-1: 6.50 failures per 1,000 node-days -> 64 x 6.5 / 1,000 / 24 per hour.
    a100 = 64 * 6.5 / 1000 / 24
    # MI300X: the flagged parity estimate of the H100 log -> 1/64 of the Llama 3 job.
    mi300x = 419 / 64 / 1296
    hours = 30 * 24
    assert rel.expected_job_interruptions(snap, hours) == pytest.approx(
        hours * (h100 + a100 + mi300x), rel=1e-4
    )
    out = rel.campus_job_reliability(snap)
    assert out["job_failures_per_day"] == pytest.approx(24 * (h100 + a100 + mi300x), rel=1e-4)
    by_model = out["datasets_by_model"]
    assert by_model["h100-sxm"]["dataset"] == "llama3-2024"
    assert by_model["a100-sxm"]["dataset"] == "meta-rsc1-2024"
    assert by_model["mi300x"]["dataset"] == "amd-instinct-estimate"
    assert by_model["a100-sxm"]["failures_per_day"] == pytest.approx(64 * 6.5 / 1000, rel=1e-4)
    # naming one set applies it to every GPU (what the twin did for every campus before)
    everyone_h100 = 419 * (1792 / 16384) / 1296
    assert rel.expected_job_interruptions(snap, hours, "llama3-2024") == pytest.approx(
        hours * everyone_h100, rel=1e-4
    )


def test_the_failure_table_charges_each_set_to_its_own_models():
    snap = _campus_of({"hgx-h100-8": 128, "dgx-a100": 64})
    table = rel.failure_table(snap)
    node_row = next(r for r in table if r["dataset"] == "meta-rsc1-2024")
    assert node_row["count"] == 64 and node_row["gpu_models"] == ["a100-sxm"]
    gpu_row = next(r for r in table if r["dataset"] == "llama3-2024" and r["component"] == "gpu")
    assert gpu_row["count"] == 1024 and gpu_row["gpu_models"] == ["h100-sxm"]


def test_every_catalog_gpu_has_a_rate_set_and_unmeasured_ones_are_flagged_estimates():
    assert set(cat.GPU_FAILURE_RATE_SETS) == {g["slug"] for g in cat.GPU_MODELS}
    measured = {"h100-sxm": "llama3-2024", "a100-sxm": "meta-rsc1-2024"}
    for slug, row in cat.GPU_FAILURE_RATE_SETS.items():
        assert row["dataset"] in cat.datasets()
        assert row["estimate"] == (slug not in measured)
        if slug in measured:
            assert row["dataset"] == measured[slug]
    for name in cat.ESTIMATED_RATE_SETS:
        rows = cat.rates(name)
        assert rows and all(r["estimate"] and r["source"].startswith("ESTIMATE") for r in rows)


def test_a_model_without_a_set_of_its_own_says_it_borrows_the_default():
    snap = _campus_of({"hgx-h100-8": 8})
    gpus = dict(snap.gpus)
    gpus["h100-sxm"] = dataclasses.replace(gpus["h100-sxm"], failure_rate_set="")
    snap = dataclasses.replace(snap, gpus=gpus)
    chosen = rel.model_rate_sets(snap)["h100-sxm"]
    assert chosen == {"dataset": "llama3-2024", "fallback": True}
    with pytest.raises(ValueError, match="^dataset:"):
        rel.model_rate_sets(snap, "no-such-set")


def test_the_summary_shows_the_synchronous_pace_beside_the_split_by_speed():
    from campus.analysis.summary import campus_summary

    snap = _campus_of({"hgx-h100-8": 8, "dgx-a100": 8})  # 64 H100 + 64 A100
    summary = campus_summary(snap, mfu=0.4, include_redundancy=False)  # a typed MFU overrides the model
    compute = summary["compute"]
    assert compute["mfu_source"] == "typed"
    # by speed: 64 x 989 + 64 x 312 TFLOPS at 40%; synchronous: 128 x 312 TFLOPS at 40%; both x the ETTR of
    # a job over the whole campus, the summary's reliability.expected_ettr (the design figures: this sketch
    # has no power chain, so none of its racks runs at design and the running figures are 0)
    ettr = summary["reliability"]["expected_ettr"]
    assert 0 < ettr < 1
    assert compute["ettr"] == ettr
    assert compute["design_effective_pflops"]["bf16"] == pytest.approx(
        (64 * 989 + 64 * 312) * 0.4 / 1000 * ettr
    )
    assert compute["design_effective_pflops_synchronous"]["bf16"] == pytest.approx(
        128 * 312 * 0.4 / 1000 * ettr
    )
    assert compute["pace_gpu_model"]["bf16"] == "a100-sxm"
    assert compute["pace_gpu_model"]["fp8"] == "a100-sxm"  # no FP8 at all: a synchronous FP8 job cannot run
    assert compute["design_effective_pflops_synchronous"]["fp8"] == 0.0
    assert summary["power"]["gpus_down_at_design"] == 128
    assert compute["effective_pflops"]["bf16"] == 0.0


def test_a_million_h100_job_cannot_lose_more_gpu_hours_than_exist():
    # 125,000 H100 servers = 1,000,000 GPUs. Llama 3 log: 419 interruptions in 1,296 h on 16,384 GPUs,
    # so M = 1,296 x 16,384 / (419 x 1,000,000) h = 3.04 min, shorter than a 5-min checkpoint plus a
    # 10-min restart. Daly (2006) for δ = 5 min < 2M: τ = √(2δM)[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ;
    # ETTR = τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)) ~ 0.003: the job all but makes no progress, so
    # nearly all of the 24,000,000 GPU-hours a day are lost (the failure-cascade scenario simulated
    # 23.8 M a day on this campus). The first-order loss ((τ+δ)/2 + R per failure) gave 109 M.
    snap = _campus_of({"hgx-h100-8": 125_000})
    out = rel.campus_job_reliability(snap, checkpoint_minutes=5.0, restart_minutes=10.0)
    m = 1296 * 16384 / (419 * 1_000_000)  # hours
    assert out["job_mttf_hours"] == pytest.approx(m, rel=1e-4)
    d, r = 5 / 60, 10 / 60
    x = d / (2 * m)
    tau = math.sqrt(2 * d * m) * (1 + math.sqrt(x) / 3 + x / 9) - d
    assert out["optimal_checkpoint_minutes"] == pytest.approx(tau * 60, rel=1e-4)
    segment = m * math.exp(r / m) * (math.exp((tau + d) / m) - 1)  # wall time per committed segment
    assert out["expected_ettr"] == pytest.approx(tau / segment, rel=1e-4)
    assert 0 < out["expected_ettr"] < 0.01
    lost_fraction = 1 - (tau + d) / segment
    assert out["lost_gpu_hours_per_day"] == pytest.approx(24e6 * lost_fraction, rel=1e-4)
    assert 23.5e6 < out["lost_gpu_hours_per_day"] <= 24e6
    assert out["lost_gpu_hours_per_failure"] * out["job_failures_per_day"] == pytest.approx(
        out["lost_gpu_hours_per_day"]
    )
    assert out["checkpoint_regime"] == "daly"
