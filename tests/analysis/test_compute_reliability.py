"""Peak compute of mixed GPUs, training time, failure maths, checkpoint intervals and ETTR."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis import reliability as rel
from campus.analysis.compute import peak_pflops, training_days
from tests.analysis.builders import A100, H100, FailureRate, replace, two_n


def test_peak_sums_models_and_counts_unsupported_precision_as_zero():
    peak = peak_pflops({"h100": 8, "a100": 8}, {"h100": H100, "a100": A100})
    assert peak["fp8"] == pytest.approx(8 * 1979 / 1000)  # the A100 adds nothing at FP8
    assert peak["bf16"] == pytest.approx(8 * (989 + 312) / 1000)


def test_training_days_divides_flops_by_effective_rate():
    days = training_days(1e24, gpus=1000, gpu=H100, precision="bf16", mfu=0.4, ettr=0.9)
    assert days == pytest.approx(1e24 / (1000 * 989e12 * 0.4 * 0.9) / 86400)
    mixed = training_days(1e24, {"h100": 1000}, specs={"h100": H100}, mfu=0.4, ettr=0.9)
    assert mixed == pytest.approx(days)
    with pytest.raises(ValueError, match="^precision:"):
        training_days(1e24, gpus=10, gpu=A100, precision="fp8")
    with pytest.raises(ValueError, match="^mfu:"):
        training_days(1e24, gpus=10, gpu=H100, mfu=1.5)


def test_job_mttf_falls_as_one_over_nodes_times_rate():
    assert rel.job_mttf_hours(nodes=1000, failures_per_1000_node_days=6.5) == pytest.approx(24.0 / 6.5)
    assert rel.job_mttf_hours(nodes=2000, failures_per_1000_node_days=6.5) == pytest.approx(12.0 / 6.5)


def test_job_mttf_from_component_rates_skips_non_interrupting_classes():
    rates = [
        FailureRate("gpu", "gpu", 100_000.0, True, 48.0, "set"),
        FailureRate("node", "node", 50_000.0, True, 4.0, "set"),
        FailureRate("pdu", "device", 10.0, False, 4.0, "set"),
    ]
    mttf = rel.job_mttf_hours(rates=rates, counts={"gpu": 1000, "node": 125, "device": 5})
    assert mttf == pytest.approx(1 / (1000 / 100_000 + 125 / 50_000))


def test_first_failure_of_100k_five_year_links_comes_within_half_an_hour():
    minutes = rel.first_failure_minutes([(100_000, 5 * 8760)])
    assert minutes == pytest.approx(5 * 8760 * 60 / 100_000)
    assert minutes < 30


def test_young_and_daly_intervals_by_hand():
    d, m = 5 / 60, 2.0
    assert rel.young_interval_hours(d, m) == pytest.approx(math.sqrt(2 * d * m))
    # √(2δM) = 0.57735; x = δ/2M = 0.0208333; [1 + 0.0481125 + 0.0023148] - δ = 0.523132
    assert rel.daly_interval_hours(d, m) == pytest.approx(0.523132, abs=1e-5)
    assert rel.daly_interval_hours(5.0, 2.0) == 2.0  # δ >= 2M -> M


@settings(max_examples=200, deadline=None)
@given(st.floats(0.01, 2.0), st.floats(0.5, 500.0), st.floats(0.0, 1.0))
def test_daly_interval_beats_nearby_intervals_in_exact_ettr(d, m, r):
    tau = rel.daly_interval_hours(d, m)
    best = rel.ettr_checkpoint(tau, d, r, m)
    assert 0 < best <= 1
    if d < 0.1 * m:  # the higher-order estimate is near the optimum when δ << M
        assert best >= rel.ettr_checkpoint(tau * 0.7, d, r, m) - 1e-12
        assert best >= rel.ettr_checkpoint(tau * 1.4, d, r, m) - 1e-12


def test_exact_and_first_order_ettr_agree_when_failures_are_rare():
    # the first-order form drops terms of order (δ/τ)² and (τ/M)²
    exact = rel.ettr_checkpoint(1.0, 0.01, 0.1, 1000.0)
    first = rel.ettr_checkpoint(1.0, 0.01, 0.1, 1000.0, exact=False)
    assert exact == pytest.approx(first, abs=3e-4)
    assert rel.ettr_checkpoint(1.0, 0.05, 0.1, 1e12) == pytest.approx(1 / 1.05)


def test_in_memory_reconstruction_beats_checkpoint_restart():
    m = 2.0
    ckpt = rel.ettr_checkpoint(rel.daly_interval_hours(5 / 60, m), 5 / 60, 10 / 60, m)
    copy_s = rel.reconstruction_seconds(80.0, 400.0)
    assert copy_s == pytest.approx(1.6)
    mem = rel.ettr_in_memory(m, step_seconds=10.0, reconstruction_seconds=copy_s, restart_hours=10 / 60)
    assert mem == pytest.approx(m / (m + (10 + 1.6) / 3600 + 10 / 60))
    assert mem > ckpt


def test_spares_run_out_with_the_poisson_tail():
    assert rel.spare_shortfall_probability(0.1, 10.0, 0) == pytest.approx(1 - math.exp(-1))
    assert rel.spare_shortfall_probability(0.1, 10.0, 1) == pytest.approx(1 - 2 * math.exp(-1))
    assert rel.effective_restart_hours(0.2, 10.0, 50, 0.1) == pytest.approx(0.2)
    assert rel.effective_restart_hours(0.2, 10.0, 0, 0.1) == pytest.approx(0.2 + 10 * (1 - math.exp(-1)))


def test_lost_gpu_hours_per_failure():
    assert rel.lost_gpu_hours_per_failure(1000, 2.0, 0.1, 0.2) == pytest.approx(1000 * (1.05 + 0.2))
    assert rel.lost_gpu_hours_per_failure(1000, 2.0, 0.1, 0.2, in_memory_loss_hours=0.01) == pytest.approx(
        210
    )


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: rel.young_interval_hours(0.1, 0), "mtbf_hours"),
        (lambda: rel.daly_interval_hours(-1, 5), "checkpoint_hours"),
        (lambda: rel.ettr_checkpoint(0, 0.1, 0.1, 5), "interval_hours"),
        (lambda: rel.first_failure_minutes([(10, -1)]), "mtbf_hours"),
        (lambda: rel.first_failure_minutes([]), "components"),
        (lambda: rel.job_mttf_hours(nodes=0, failures_per_1000_node_days=1), "nodes"),
        (lambda: rel.spare_shortfall_probability(0.1, 1, -1), "spares"),
    ],
)
def test_invalid_inputs_raise_naming_the_parameter(call, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        call()


def test_job_sets_take_facility_classes_but_never_the_component_set():
    rows = [
        FailureRate("gpu", "gpu", 1e5, True, 48, "llama3-2024"),
        FailureRate("optics_link", "link", 43800, True, 4, "optics-component"),
        FailureRate("ups", "device", 2.5e5, False, 8, "infrastructure-estimates"),
    ]
    assert {r.dataset for r in rel.select_rates(rows)} == {"llama3-2024", "infrastructure-estimates"}
    assert {r.dataset for r in rel.select_rates(rows, "optics-component")} == {"optics-component"}
    with pytest.raises(ValueError, match="^dataset:"):
        rel.select_rates(rows, "nope")


def test_failure_table_counts_units_of_each_class():
    rows = [
        FailureRate("gpu", "gpu", 1000.0, True, 48, "llama3-2024"),
        FailureRate("pdu", "device", 2400.0, False, 4, "infrastructure-estimates"),
        FailureRate("optics_link", "link", 10.0, True, 4, "optics-component"),
    ]
    snap = replace(two_n((10, 30)), failure_rates=tuple(rows))
    table = {r["component"]: r for r in rel.failure_table(snap)}
    assert set(table) == {"gpu", "pdu"}
    assert table["gpu"]["count"] == 320
    assert table["gpu"]["failures_per_day"] == pytest.approx(320 / 1000 * 24)
    assert table["pdu"]["count"] == 2
    assert table["pdu"]["failures_per_day"] == pytest.approx(2 / 2400 * 24)


def test_the_lost_fraction_is_the_first_order_loss_when_failures_are_rare():
    # τ = 0.5 h, δ = 0.01 h, R = 0.1 h, M = 1,000 h: ((τ+δ)/2 + R)/M = 0.355/1,000
    assert rel.lost_fraction_checkpoint(0.5, 0.01, 0.1, 1000.0) == pytest.approx(0.355e-3, rel=1e-3)
    assert rel.lost_gpu_hours_per_failure(1000, 0.5, 0.01, 0.1, mtbf_hours=1000.0) == pytest.approx(
        1000 * 0.355, rel=1e-3
    )


def test_daly_interval_is_the_mttf_when_the_checkpoint_takes_twice_as_long():
    # Daly (2006), eq. 37: τ_opt = M for δ ≥ 2M
    assert rel.daly_interval_hours(0.2, 0.1) == 0.1
    assert rel.daly_interval_hours(1.0, 0.1) == 0.1
    assert rel.checkpoint_regime(0.2, 0.1) == "interval-equals-mttf"
    assert rel.checkpoint_regime(0.19, 0.1) == "daly"


def test_ettr_underflows_to_zero_instead_of_overflowing():
    # M = 3.6 s against a 10-min restart: e^{R/M} = e^{166.7}, e^{(τ+δ)/M} overflows a float
    assert rel.ettr_checkpoint(2.0, 1.0, 10 / 60, 0.001) == 0.0
    assert rel.lost_fraction_checkpoint(2.0, 1.0, 10 / 60, 0.001) == 1.0


def _job(gpus: int, checkpoint_min: float, restart_min: float, gpu_mtbf_h: float) -> dict:
    m = gpu_mtbf_h / gpus
    d, r = checkpoint_min / 60, restart_min / 60
    tau = rel.daly_interval_hours(d, m)
    return {
        "tau": tau,
        "ettr": rel.ettr_checkpoint(tau, d, r, m),
        "lost_per_day": gpus * 24 * rel.lost_fraction_checkpoint(tau, d, r, m),
        "failures_per_day": 24 / m,
        "lost_per_failure": rel.lost_gpu_hours_per_failure(gpus, tau, d, r, mtbf_hours=m),
    }


@settings(max_examples=300, deadline=None)
@given(
    gpus=st.integers(1, 5_000_000),
    more=st.integers(1, 5_000_000),
    checkpoint_min=st.floats(0.01, 120.0),
    restart_min=st.floats(0.0, 240.0),
    gpu_mtbf_h=st.floats(1e3, 1e7),
)
def test_checkpoint_restart_stays_within_physical_bounds(gpus, more, checkpoint_min, restart_min, gpu_mtbf_h):
    job = _job(gpus, checkpoint_min, restart_min, gpu_mtbf_h)
    assert job["tau"] >= 0
    assert 0.0 <= job["ettr"] <= 1.0
    assert 0.0 <= job["lost_per_day"] <= gpus * 24 * (1 + 1e-12)
    assert job["lost_per_failure"] * job["failures_per_day"] == pytest.approx(job["lost_per_day"], rel=1e-9)
    # more GPUs fail more often: never fewer GPU-hours lost, never a better ETTR
    bigger = _job(gpus + more, checkpoint_min, restart_min, gpu_mtbf_h)
    assert bigger["lost_per_day"] >= job["lost_per_day"] * (1 - 1e-9)
    assert bigger["ettr"] <= job["ettr"] * (1 + 1e-9) + 1e-300


def _simulated_lost_fraction(tau: float, d: float, r: float, m: float, hours: float, seed: int) -> tuple:
    """An independent Monte Carlo of checkpoint/restart: exponential failures of mean m; a segment of tau of
    work and d of writing commits only if no failure strikes it; a failure loses the segment so far and
    starts a restart of r, itself started over by a failure during it. (useful, lost) shares of wall time."""
    rng = random.Random(seed)
    wall = useful = lost = 0.0
    while wall < hours:
        f = rng.expovariate(1.0 / m)
        if f >= tau + d:
            wall += tau + d
            useful += tau
            continue
        wall += f
        lost += f
        while True:
            g = rng.expovariate(1.0 / m)
            if g >= r:
                wall += r
                lost += r
                break
            wall += g
            lost += g
    return useful / wall, lost / wall


@pytest.mark.parametrize(
    "m_hours, hours",
    [
        (1296 * 16384 / (419 * 1_000_000), 20_000.0),  # 1M H100s at the Llama 3 rate: M = 3.04 min
        (3.0, 200_000.0),  # 16k GPUs: M = 3 h
    ],
)
def test_the_lost_fraction_matches_a_monte_carlo_of_checkpoint_restart(m_hours, hours):
    d, r = 5 / 60, 10 / 60
    tau = rel.daly_interval_hours(d, m_hours)
    useful, lost = _simulated_lost_fraction(tau, d, r, m_hours, hours, seed=7)
    assert rel.ettr_checkpoint(tau, d, r, m_hours) == pytest.approx(useful, rel=0.05)
    assert rel.lost_fraction_checkpoint(tau, d, r, m_hours) == pytest.approx(lost, abs=0.003)
