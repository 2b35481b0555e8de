"""failure_cascade against closed forms (Poisson counts, renewal ETTR, lost work) and graph propagation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations.engine.job import (
    expected_ettr,
    expected_lost_hours_per_interruption,
    young_daly_interval_hours,
)
from simulations.engine.kinds.failure_cascade import model as failure_cascade
from simulations.engine.params import ParamsError, validate_params
from simulations.engine.runner import aggregate, prepare
from tests.engine.builders import campus, cascade_prep, cascade_runs, catalog_rates, single_rate

# 8 racks x 4 nodes x 8 GPUs = 256 GPUs in the default test campus.
GPUS = 256


def test_interruption_count_matches_the_poisson_rate():
    mtbf_h = 50_000.0  # per GPU -> job rate 256/50,000 per hour
    snap = campus(failure_rates=(single_rate("gpu", mtbf_h),))
    prepared = cascade_prep(snap, duration_days=200, checkpoint_interval_minutes=60)
    results = cascade_runs(prepared, 200)
    counts = np.array([r.metrics["interruptions"] for r in results])
    expected = GPUS / mtbf_h * 200 * 24.0
    # Poisson: the mean of n counts has standard error sqrt(expected / n) ...
    assert abs(counts.mean() - expected) < 4.0 * math.sqrt(expected / counts.size)
    # ... and the variance equals the mean (sample variance: relative s.d. ~ sqrt(2 / (n - 1)))
    assert counts.var(ddof=1) == pytest.approx(expected, rel=4.0 * math.sqrt(2.0 / (counts.size - 1)))


def test_mean_lost_time_per_interruption_is_half_the_checkpoint_period_plus_restart():
    mtbf_h = 256 * 200.0  # job MTBF 200 h, much longer than the 1 h checkpoint period
    snap = campus(failure_rates=(single_rate("gpu", mtbf_h),))
    prepared = cascade_prep(
        snap,
        duration_days=2000,
        checkpoint_interval_minutes=60,
        checkpoint_write_minutes=0,
        restart_minutes=12,
    )
    results = cascade_runs(prepared, 10)
    lost = np.array([r.metrics["mean_lost_hours_per_interruption"] for r in results])
    rate = 1 / 200.0
    expected = expected_lost_hours_per_interruption(rate, 1.0, 0.0) + 0.2
    assert expected == pytest.approx(0.5 + 0.2, rel=0.01)  # the closed form tends to tau/2 + R
    sem = lost.std(ddof=1) / math.sqrt(lost.size)
    assert abs(lost.mean() - expected) < 4 * sem + 0.01


def test_ettr_matches_the_renewal_expectation_within_the_monte_carlo_ci():
    mtbf_h = 256 * 5.0  # job MTBF 5 h: many failures, a strong effect
    snap = campus(failure_rates=(single_rate("gpu", mtbf_h),))
    prepared = cascade_prep(
        snap,
        duration_days=200,
        checkpoint_interval_minutes=60,
        checkpoint_write_minutes=6,
        restart_minutes=12,
    )
    agg = aggregate(cascade_runs(prepared, 30))
    expected = expected_ettr(1 / 5.0, 1.0, 0.1, 0.2)
    half = agg["ettr"]["ci95_high"] - agg["ettr"]["mean"]
    # 2x the 95 % half-width, plus the end effect of one unfinished segment in 4,800 h
    assert abs(agg["ettr"]["mean"] - expected) < 2 * half + 1.1 / (200 * 24)
    assert expected < 0.85  # the scenario really loses time


def test_optimal_checkpoint_interval_follows_young_daly_for_the_job_rate():
    snap = campus(failure_rates=(single_rate("gpu", 256 * 20.0),))
    plan = cascade_prep(snap, checkpoint_write_minutes=5).plan
    assert plan.job_rate_per_hour == pytest.approx(1 / 20.0)
    assert plan.interval_h == pytest.approx(young_daly_interval_hours(5 / 60, 20.0))
    # Young's first-order form is close when the write is short against the MTBF
    assert plan.interval_h == pytest.approx(math.sqrt(2 * (5 / 60) * 20.0), rel=0.1)


def test_in_memory_recovery_loses_about_one_step_instead_of_half_a_checkpoint_period():
    snap = campus(failure_rates=(single_rate("gpu", 256 * 10.0),))
    common = dict(duration_days=100, checkpoint_interval_minutes=120, restart_minutes=6, step_seconds=20)
    ckpt = cascade_prep(snap, recovery="checkpoint_restart", **common)
    mem = cascade_prep(snap, recovery="in_memory", state_gb_per_gpu=80, fabric_gbps=400, **common)
    assert mem.plan.copy_h == pytest.approx(80 * 8 / 400 / 3600)
    r_ckpt = aggregate(cascade_runs(ckpt, 5))
    r_mem = aggregate(cascade_runs(mem, 5))
    assert r_mem["ettr"]["mean"] > r_ckpt["ettr"]["mean"] + 0.05
    per_int = r_mem["mean_lost_hours_per_interruption"]["mean"]
    # half a 20 s step on average + the 1.6 s copy + the 6 min restart
    assert per_int == pytest.approx((10 + 1.6) / 3600 + 0.1, abs=0.01)


def test_hot_spare_pool_runs_dry_and_the_job_waits_for_repairs():
    rates = (single_rate("gpu", 256 * 2.0, repair_hours=100.0),)
    snap = campus(failure_rates=rates)
    few = aggregate(
        cascade_runs(cascade_prep(snap, recovery="hot_spares", hot_spares=1, duration_days=30), 3)
    )
    many = aggregate(
        cascade_runs(
            cascade_prep(snap, recovery="hot_spares", hot_spares=24, job_gpus=8 * 8, duration_days=30), 3
        )
    )
    assert few["waiting_for_capacity_hours"]["mean"] > 100
    # 64-GPU job on a 256-GPU campus with 24 of its free nodes as hot spares: they absorb failures every ~8 h repaired in 100 h
    assert many["waiting_for_capacity_hours"]["mean"] == 0.0
    assert few["ettr"]["mean"] < many["ettr"]["mean"]


def test_repairs_refill_the_hot_spare_pool():
    # one failure every 20 h per job, repaired in 10 h, one spare: the pool is always back in time
    snap = campus(failure_rates=(single_rate("gpu", 256 * 20.0, repair_hours=1.0),))
    agg = aggregate(
        cascade_runs(cascade_prep(snap, recovery="hot_spares", hot_spares=1, duration_days=60), 3)
    )
    assert agg["interruptions"]["mean"] > 50
    assert agg["waiting_for_capacity_hours"]["mean"] < 5.0


def _pdu_only_snapshot(**kwargs):
    pdu = [r for r in catalog_rates("infrastructure-estimates") if r.component == "pdu"]
    rates = (single_rate("gpu", 1e12), *[r.__class__(**{**r.__dict__, "mtbf_hours": 200.0}) for r in pdu])
    return campus(failure_rates=rates, **kwargs)


def test_pdu_failure_interrupts_the_job_only_when_the_other_side_trips():
    params = dict(rate_set="test-set", include_infrastructure=True, duration_days=100)
    redundant = aggregate(cascade_runs(prepare(_pdu_only_snapshot(), "failure_cascade", params), 3))
    # B-side feeds rated 30 kW for 40.8 kW racks: losing an A-side PDU trips the B feeds (a cascade)
    fragile = aggregate(
        cascade_runs(prepare(_pdu_only_snapshot(feed_rating_kw=30.0), "failure_cascade", params), 3)
    )
    assert "pdu" not in redundant["by_cause"]
    assert redundant["interruptions"]["mean"] == 0
    assert fragile["by_cause"]["pdu"]["mean"] > 5
    assert fragile["facility_outages"]["mean"] == fragile["by_cause"]["pdu"]["mean"]


def test_cdu_loss_is_covered_by_its_redundancy_group_but_not_alone():
    cdu = [r for r in catalog_rates("infrastructure-estimates") if r.component == "cdu"]
    rates = (single_rate("gpu", 1e12), *[r.__class__(**{**r.__dict__, "mtbf_hours": 100.0}) for r in cdu])
    params = dict(rate_set="test-set", duration_days=50)
    alone = prepare(campus(failure_rates=rates), "failure_cascade", params)
    grouped = prepare(campus(failure_rates=rates, cdu_groups=True), "failure_cascade", params)
    assert alone.plan.impact(1, 0)[1] is True
    assert grouped.plan.impact(1, 0) == ((), False)
    assert aggregate(cascade_runs(alone, 2))["by_cause"]["cdu"]["mean"] > 5
    # alone a unit's loss is carried by its group; only two units of a group down together darken racks
    # (facility failures combine), which repairs too short to overlap never allow
    brief = prepare(
        campus(failure_rates=rates, cdu_groups=True),
        "failure_cascade",
        {**params, "repair_hours_overrides": {"cdu": 1e-9}},
    )
    assert aggregate(cascade_runs(brief, 2))["interruptions"]["mean"] == 0
    assert (
        0
        < aggregate(cascade_runs(grouped, 2))["interruptions"]["mean"]
        < aggregate(cascade_runs(alone, 2))["interruptions"]["mean"]
    )


def test_only_one_job_dataset_is_used_plus_the_infrastructure_set():
    snap = campus(
        failure_rates=catalog_rates(
            "llama3-2024", "meta-rsc1-2024", "optics-component", "infrastructure-estimates"
        )
    )
    plan = prepare(snap, "failure_cascade", {}).plan
    components = {c.component for c in plan.classes}
    assert "gpu" in components and "pdu" in components
    assert "optics_link" not in components and "node" not in components
    rsc = prepare(snap, "failure_cascade", {"rate_set": "meta-rsc1-2024"}).plan
    assert {c.component for c in rsc.classes if c.target == failure_cascade.JOB} == {"node"}


def test_same_seed_gives_the_same_replica_and_another_seed_differs():
    snap = campus()
    prepared = prepare(snap, "failure_cascade", {"duration_days": 60})
    a, b, c = prepared.run(11), prepared.run(11), prepared.run(12)
    assert a.metrics == b.metrics and a.by_cause == b.by_cause
    assert all(np.array_equal(a.series[k], b.series[k]) for k in a.series)
    assert a.metrics != c.metrics


def test_unknown_components_in_overrides_are_rejected_by_name():
    with pytest.raises(ParamsError) as exc:
        prepare(campus(), "failure_cascade", {"rate_overrides": {"flux_capacitor": 10.0}})
    assert exc.value.errors[0]["field"] == "rate_overrides.flux_capacitor"


def test_rate_overrides_change_the_rate_of_the_named_component():
    snap = campus()
    base = prepare(snap, "failure_cascade", {}).plan
    faster = prepare(snap, "failure_cascade", {"rate_overrides": {"gpu": 1000.0}}).plan
    gpu_rate = {c.component: c.rate_per_hour for c in faster.classes}["gpu"]
    assert gpu_rate == pytest.approx(GPUS / 1000.0)
    assert faster.job_rate_per_hour > base.job_rate_per_hour


def test_superposed_sampling_draws_classes_in_proportion_to_their_rates():
    rng = np.random.default_rng(3)
    rates = np.array([1.0, 3.0, 6.0])
    times, classes = failure_cascade.sample_failures(rng, rates, 5000.0)
    assert np.all(np.diff(times) >= 0) and times[-1] < 5000.0
    share = np.bincount(classes, minlength=3) / classes.size
    assert share == pytest.approx(rates / rates.sum(), abs=0.01)
    assert times.size == pytest.approx(10 * 5000, rel=0.03)


def test_series_have_a_time_axis_and_end_at_the_reported_totals():
    snap = campus()
    r = prepare(snap, "failure_cascade", {"duration_days": 30, "series_points": 50}).run(5)
    assert r.series["t_hours"][0] == 0 and r.series["t_hours"][-1] == pytest.approx(720)
    assert all(v.shape == (50,) for v in r.series.values())
    assert r.series["interruptions"][-1] == r.metrics["interruptions"]
    assert r.series["useful_hours"][-1] == pytest.approx(r.metrics["ettr"] * 720)


def test_a_job_larger_than_the_campus_is_rejected():
    with pytest.raises(ParamsError) as exc:
        prepare(campus(), "failure_cascade", validate_params("failure_cascade", {"job_gpus": 10_000}))
    assert exc.value.errors[0]["field"] == "job_gpus"


def test_progress_is_reported_in_order_and_ends_at_one():
    seen = []
    params = {"duration_days": 200, "rate_overrides": {"gpu": 100.0}}  # ~12,000 events
    prepare(campus(), "failure_cascade", params).run(1, progress=seen.append)
    assert len(seen) > 1
    assert seen == sorted(seen) and seen[-1] == 1.0 and 0 <= seen[0] < 1


def test_a_dark_rack_makes_a_campus_wide_job_wait_for_the_repair_unless_free_nodes_cover_it():
    params = dict(rate_set="test-set", include_infrastructure=True, duration_days=100, restart_minutes=10)
    snap = _pdu_only_snapshot(feed_rating_kw=30.0)  # every PDU loss darkens its 4 racks (16 nodes)
    whole = prepare(snap, "failure_cascade", params).run(4)
    outages = whole.metrics["facility_outages"]
    assert outages > 5
    # each outage holds the job until the PDU is back (4 h), then the restart follows
    assert whole.metrics["waiting_for_capacity_hours"] == pytest.approx(4.0 * outages, rel=0.1)
    assert whole.metrics["downtime_hours"] == pytest.approx((4.0 + 10 / 60) * outages, rel=0.1)
    half = prepare(snap, "failure_cascade", {**params, "job_gpus": GPUS // 2}).run(4)
    # 16 free nodes cover one dark PDU; only two overlapping outages make the half-campus job wait
    assert half.metrics["waiting_for_capacity_hours"] < 0.2 * whole.metrics["waiting_for_capacity_hours"]
    assert half.metrics["interruptions"] < outages  # only the job's own racks interrupt it


def test_an_exception_from_progress_stops_the_replica():
    class Stop(Exception):
        pass

    def progress(fraction):
        if fraction < 1.0:
            raise Stop()

    params = {"duration_days": 200, "rate_overrides": {"gpu": 100.0}}
    with pytest.raises(Stop):
        prepare(campus(), "failure_cascade", params).run(1, progress=progress)


def test_on_the_synthetic_2n_campus_only_cooling_feeds_can_darken_racks():
    from campus.analysis.synthetic import synthetic_campus

    snap = synthetic_campus(4096)
    plan = prepare(snap, "failure_cascade", {"duration_days": 365}).plan
    assert plan.warm_impacts() > 10
    cooling_power = {u.power_device_id for u in snap.cooling_units} | {
        p.power_device_id for p in snap.cooling_plants
    }
    for (ci, ui), (racks, _) in plan._impact.items():
        cls = plan.classes[ci]
        if racks:
            # the A/B IT path rides through any single loss; only what powers cooling can stop racks
            assert cls.target == failure_cascade.POWER_DEVICE and cls.units[ui] in cooling_power
        if cls.component == "ups":
            assert racks == ()


def test_in_memory_recovery_checkpoints_only_for_durability():
    snap = campus(failure_rates=(single_rate("gpu", 256 * 2.0),))
    mem = cascade_prep(snap, recovery="in_memory").plan
    ckpt = cascade_prep(snap, recovery="checkpoint_restart").plan
    assert mem.interval_h == pytest.approx(3.0)  # catalog: every 3 h
    assert ckpt.interval_h < 1.0  # Young/Daly for a 2 h job MTBF


def test_useful_flops_count_every_gpu_model_of_a_mixed_job():
    snap = campus(node_models=("hgx-h100-8", "dgx-a100"), failure_rates=(single_rate("gpu", 256 * 50.0),))
    plan = cascade_prep(snap, precision="fp8", mfu=0.35).plan
    assert plan.job_gpus_by_model == {"h100-sxm": 128, "a100-sxm": 128}
    h100, a100 = snap.gpus["h100-sxm"], snap.gpus["a100-sxm"]
    # the A100 has no FP8: it counts at its BF16 peak
    expected_tflops = 128 * 0.35 * (h100.peak_tflops["fp8"] + a100.peak_tflops["bf16"])
    assert plan.job_tflops == pytest.approx(expected_tflops)
    r = prepare(
        snap,
        "failure_cascade",
        {"rate_set": "test-set", "include_infrastructure": False, "precision": "fp8", "mfu": 0.35},
    ).run(2)
    useful_h = r.metrics["useful_gpu_hours"] / 256
    assert r.metrics["useful_eflop"] == pytest.approx(useful_h * 3600 * expected_tflops * 1e12 / 1e18)


@pytest.mark.parametrize("recovery", ["checkpoint_restart", "in_memory", "hot_spares"])
def test_the_time_budget_of_a_replica_adds_up_to_its_duration(recovery):
    snap = _pdu_only_snapshot(feed_rating_kw=30.0)
    params = {
        "rate_set": "test-set",
        "duration_days": 60,
        "recovery": recovery,
        "rate_overrides": {"gpu": 256 * 3.0},
    }
    m = prepare(snap, "failure_cascade", params).run(8).metrics
    parts = m["ettr"] * 60 * 24 + m["checkpoint_overhead_hours"] + m["lost_work_hours"] + m["downtime_hours"]
    assert parts == pytest.approx(60 * 24)
    assert m["lost_gpu_hours"] == pytest.approx((m["lost_work_hours"] + m["downtime_hours"]) * m["job_gpus"])


def test_each_gpu_model_of_the_job_is_charged_its_own_generations_rates():
    # 8 racks x 4 servers alternating HGX H100 and DGX A100: 16 H100 servers (128 GPUs), 16 A100 servers.
    snap = campus(
        node_models=("hgx-h100-8", "dgx-a100"),
        failure_rates=catalog_rates("llama3-2024", "meta-rsc1-2024", "infrastructure-estimates"),
    )
    params = {"include_infrastructure": False, "recovery": "checkpoint_restart"}
    plan = prepare(snap, "failure_cascade", params).plan
    assert plan.job_gpus_by_model == {"h100-sxm": 128, "a100-sxm": 128}
    # H100, Llama 3 Table 5: 419 in 1,296 h on 2,048 servers -> 16 servers are 16/2,048 of it;
    # A100, Kokolis et al. RSC-1: 6.50 per 1,000 node-days on 16 servers.
    h100 = 419 * 16 / 2048 / 1296
    a100 = 16 * 6.5 / 1000 / 24
    assert plan.job_rate_per_hour == pytest.approx(h100 + a100, rel=1e-3)
    node_class = [c for c in plan.classes if c.component == "node"]
    assert len(node_class) == 1 and node_class[0].count == 16  # the RSC-1 row counts A100 servers only
    # one named set applies to every GPU (what the engine did for every campus before)
    one = prepare(snap, "failure_cascade", {**params, "rate_set": "llama3-2024"}).plan
    assert one.job_rate_per_hour == pytest.approx(419 * 32 / 2048 / 1296, rel=1e-3)
