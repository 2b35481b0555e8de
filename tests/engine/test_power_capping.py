"""power_capping: energy as the integral of power, cap curves, stragglers and scope."""

from __future__ import annotations

import numpy as np
import pytest

from simulations.engine.job import cap_throughput_fraction
from simulations.engine.params import ParamsError
from simulations.engine.runner import run_replica
from tests.engine.builders import campus


def _servers_kw(snap, cap_fraction: float) -> float:
    servers_w = 0.0
    for r in snap.racks:
        for slug, n in r.nodes:
            spec = snap.node_models[slug]
            gpu = snap.gpus[spec.gpu]
            servers_w += n * (
                spec.gpus_per_node * gpu.tdp_w * cap_fraction + spec.overhead_w + spec.nics * spec.nic_extra_w
            )
    return servers_w / 1000


def _facility_kw(snap, cap_fraction: float) -> float:
    """Facility power with every GPU at ``cap_fraction`` of TDP, from the snapshot's own fields. The test
    campus has no switches, so its other IT is f / (1 - f) of the servers at full TDP, and it stays at
    that figure under a cap (storage and CPU nodes do not draw less when the GPUs are capped)."""
    f = snap.other_it_fraction
    other_kw = _servers_kw(snap, 1.0) * f / (1 - f)
    return (_servers_kw(snap, cap_fraction) + other_kw) * snap.design_pue


def test_scheduled_caps_energy_equals_the_integral_of_power():
    snap = campus()
    params = {
        "duration_hours": 10,
        "caps": [{"cap_fraction": 0.9}],
        "schedule": [{"start_hours": 2, "caps": [{"cap_fraction": 0.6}]}, {"start_hours": 7, "caps": []}],
    }
    r = run_replica("power_capping", snap, params, seed=0)
    expected_kwh = 2 * _facility_kw(snap, 0.9) + 5 * _facility_kw(snap, 0.6) + 3 * _facility_kw(snap, 1.0)
    assert r.metrics["energy_facility_mwh"] * 1000 == pytest.approx(expected_kwh)
    integral = np.trapezoid(r.series["facility_kw"], r.series["t_hours"])
    assert integral == pytest.approx(expected_kwh)
    assert r.metrics["cost_usd"] == pytest.approx(expected_kwh * snap.price_usd_per_kwh)


def test_throughput_follows_the_gpu_models_cap_curve():
    snap = campus()
    r = run_replica("power_capping", snap, {"caps": [{"cap_fraction": 0.7}]}, seed=0)
    h100 = snap.gpus["h100-sxm"]
    assert r.metrics["throughput_fraction"] == pytest.approx(cap_throughput_fraction(h100, 0.7))
    saving = 1 - _facility_kw(snap, 0.7) / _facility_kw(snap, 1.0)
    assert r.metrics["energy_saving_fraction"] == pytest.approx(saving)
    assert r.metrics["perf_per_w_gain"] > 0  # capping pays in perf/W on the Hopper curve


def test_a_cap_in_watts_equals_the_same_fraction_of_tdp():
    snap = campus()
    by_w = run_replica("power_capping", snap, {"caps": [{"cap_w": 560}]}, seed=0)
    by_fraction = run_replica("power_capping", snap, {"caps": [{"cap_fraction": 0.8}]}, seed=0)
    assert by_w.metrics == pytest.approx(by_fraction.metrics)


def test_a_capped_pod_is_a_straggler_only_for_a_campus_wide_job():
    snap = campus(pods=2)
    caps = [{"pod_id": 10, "cap_fraction": 0.6}]
    per_pod = run_replica("power_capping", snap, {"caps": caps, "job_scope": "pod"}, seed=0)
    campus_job = run_replica("power_capping", snap, {"caps": caps, "job_scope": "campus"}, seed=0)
    slow = cap_throughput_fraction(snap.gpus["h100-sxm"], 0.6)
    assert per_pod.metrics["throughput_fraction"] == pytest.approx((1 + slow) / 2)
    assert campus_job.metrics["throughput_fraction"] == pytest.approx(slow)


def test_caps_below_the_parts_minimum_are_raised_to_it():
    snap = campus()
    low = run_replica("power_capping", snap, {"caps": [{"cap_fraction": 0.05}]}, seed=0)
    h100 = snap.gpus["h100-sxm"]
    assert low.metrics["energy_facility_mwh"] * 1000 == pytest.approx(
        24 * _facility_kw(snap, h100.min_cap_fraction)
    )


def test_rules_naming_unknown_models_or_pods_are_rejected_by_field():
    with pytest.raises(ParamsError) as exc:
        run_replica(
            "power_capping",
            campus(),
            {"schedule": [{"start_hours": 1, "caps": [{"gpu_model": "tpu", "cap_fraction": 0.5}]}]},
            0,
        )
    assert exc.value.errors[0]["field"] == "schedule[0].caps[0].gpu_model"


def test_a_failed_rack_draws_nothing_and_the_other_it_follows_the_racks_that_run():
    # 7 of the 8 racks run: 28 HGX H100 x (8 x 700 W + 4,600 W) = 285.6 kW of servers; no switches, so the
    # other IT is 10 % of IT: IT = 285.6 / 0.9 = 317.33 kW, facility x 1.2 = 380.8 kW.
    from dataclasses import replace

    snap = campus()
    racks = (replace(snap.racks[0], status="failed"), *snap.racks[1:])
    r = run_replica("power_capping", replace(snap, racks=racks), {"caps": [], "duration_hours": 1}, seed=0)
    assert r.metrics["mean_it_mw"] * 1000 == pytest.approx(28 * (8 * 700 + 4600) / 1000 / 0.9)
    assert r.metrics["mean_facility_mw"] * 1000 == pytest.approx(28 * 10.2 / 0.9 * 1.2)
