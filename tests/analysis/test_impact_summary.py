"""What-if impact of a device loss, the campus summary contract, floor-map metrics and calculators."""

from __future__ import annotations

import json

import pytest

from campus.analysis.calculators import (
    checkpoint_interval,
    first_failure,
    job_mttf,
    run_calculator,
    training_time,
)
from campus.analysis.cards import rack_metrics
from campus.analysis.impact import impact
from campus.analysis.reliability import daly_interval_hours
from campus.analysis.summary import campus_summary
from tests.analysis.builders import (
    H100,
    CoolingPlantSnap,
    CoolingUnitSnap,
    FailureRate,
    LinkSnap,
    PodSnap,
    SwitchSnap,
    replace,
    two_n,
)


def test_pdu_loss_in_healthy_2n_costs_one_side_and_no_gpus():
    im = impact(two_n((10, 30)), 11)
    assert im.racks_lost_a == [1, 2] and im.racks_lost_b == [] and im.racks_lost_both == []
    assert im.gpus_lost_a == 320
    assert im.usable_gpus_after == im.usable_gpus_before == 320
    assert not im.job_interrupted


def test_pdu_loss_that_overloads_the_other_side_interrupts_the_job():
    im = impact(two_n((10, 30), pdu_rated_kw=35.0), 11)
    assert im.racks_lost_both == [1, 2]
    assert [(k, i) for k, i, _ in im.tripped] == [("device", 12)]
    assert im.gpus_lost_power == 320
    assert im.job_interrupted and im.job_fraction_lost == 1.0
    d = im.as_dict()
    assert d["tripped"][0]["name"] == "PDU-12"
    json.dumps(d, allow_nan=False)


def test_utility_loss_without_generators_darkens_its_side():
    im = impact(two_n((10,)), 1, kind="utility")
    assert im.racks_lost_a == [1]
    assert im.dead_devices == [1, 11]


def _cooled(unit_kw: float):
    snap = two_n((10, 10))
    # rear doors take all of a rack's heat to its unit
    racks = tuple(replace(r, cooling_unit_id=r.id, cooling_type="rear-door") for r in snap.racks)
    units = tuple(
        CoolingUnitSnap(
            i, f"CDU-{i}", "cdu", unit_kw, 25.0, 45.0, 0.0, 1, 11 if i == 1 else None, 1, group="g"
        )
        for i in (1, 2)
    )
    plant = CoolingPlantSnap(1, "CH", "chiller", 100.0, 5.0, 1, None)
    return replace(snap, racks=racks, cooling_units=units, cooling_plants=(plant,))


def test_cooling_unit_loss_costs_its_group_unless_the_group_covers_it():
    # two 15 kW units, 10 kW on each: one lost leaves 15 kW for the group's 20 kW, so every rack of the
    # group loses cooling (the group shares its loop; the model does not shed racks, docs/model.md §7)
    im = impact(_cooled(unit_kw=15.0), 1, kind="cooling")
    assert im.racks_lost_cooling == [1, 2]
    assert im.gpus_lost_cooling == 160
    covered = impact(_cooled(unit_kw=25.0), 1, kind="cooling")
    assert covered.racks_lost_cooling == [] and not covered.job_interrupted


def test_power_loss_stops_the_cooling_unit_it_feeds():
    im = impact(_cooled(unit_kw=15.0), 11)
    assert im.cooling_units_stopped == [1]
    assert im.racks_lost_cooling == [1, 2]  # 15 kW left for the group's 20 kW


def test_a_dual_fed_unit_keeps_running_on_its_other_supply():
    snap = _cooled(unit_kw=15.0)
    dual = replace(snap.cooling_units[0], power_device_b_id=12)
    snap = replace(snap, cooling_units=(dual, snap.cooling_units[1]))
    assert impact(snap, 11).cooling_units_stopped == []
    assert impact(snap, 12).cooling_units_stopped == []
    # both supplies behind UPS 1: losing it darkens both and the unit stops
    same_side = replace(snap, cooling_units=(replace(dual, power_device_b_id=1), snap.cooling_units[1]))
    im = impact(same_side, 1)
    assert im.cooling_units_stopped == [1] and im.racks_lost_cooling == [1, 2]


def test_plant_loss_stops_its_units():
    im = impact(_cooled(unit_kw=15.0), 1, kind="plant")
    assert im.plants_stopped == [1]
    assert im.racks_lost_cooling == [1, 2]
    assert im.usable_gpus_after == 0


def test_impact_rejects_unknown_kind_and_id():
    with pytest.raises(ValueError, match="^kind:"):
        impact(two_n(), 11, kind="network")
    with pytest.raises(ValueError, match="^device_id:"):
        impact(two_n(), 999)


def _full_campus():
    snap = _cooled(unit_kw=15.0)
    racks = tuple(replace(r, pod_id=1) for r in snap.racks)
    rates = (
        FailureRate("gpu", "gpu", 1000.0, True, 48.0, "llama3-2024"),
        FailureRate("ups", "device", 1000.0, False, 8.0, "infrastructure-estimates"),
    )
    return replace(
        snap,
        racks=racks,
        pods=(PodSnap(1, "P1", "infiniband-ndr", "rail-optimized", 1.0, "qm9700", 1),),
        switches=(SwitchSnap(1, "leaf", 1, "leaf", "qm9700", 5, 1, None),),
        links=(LinkSnap(1, 1, "backend", "sr", 160, 20.0, 400.0, 1, None, 1),),
        failure_rates=rates,
    )


def test_summary_carries_the_api_contract_keys_and_is_json():
    s = campus_summary(_full_campus())
    json.dumps(s, allow_nan=False)
    contract = {
        "inventory": {"buildings", "halls", "racks", "nodes", "gpus", "gpus_by_model"},
        "power": {
            "gpu_mw",
            "server_overhead_mw",
            "network_mw",
            "other_it_mw",
            "it_mw",
            "pue",
            "facility_mw",
            "grid_capacity_mw",
            "grid_headroom_mw",
            "annual_energy_twh",
            "annual_cost_usd",
        },
        "cooling": {"heat_load_mw", "capacity_mw", "racks_over_air_limit"},
        "network": {
            "tiers",
            "switches",
            "transceivers",
            "links_by_medium",
            "copper_share",
            "fabric_power_kw",
        },
        "reliability": {
            "job_mttf_hours",
            "first_link_failure_minutes",
            "optimal_checkpoint_minutes",
            "expected_ettr",
        },
    }
    for section, keys in contract.items():
        assert keys <= set(s[section]), section
    assert {"fp8", "bf16", "fp16"} <= set(s["compute"]["peak_pflops"])
    card = s["buildings"][0]
    assert {"id", "name", "racks", "gpus", "it_mw", "facility_mw", "headroom_mw", "gpus_by_model"} <= set(
        card
    )
    assert "racks" not in s or isinstance(s.get("racks"), int)


def test_summary_figures_follow_the_inventory():
    s = campus_summary(_full_campus(), pue=1.5)
    assert s["inventory"]["gpus"] == 160
    assert s["power"]["gpu_mw"] == pytest.approx(0.016)
    assert s["power"]["facility_mw"] == pytest.approx(s["power"]["it_mw"] * 1.5)
    # 160 GPUs of MTBF 1,000 h: MTTF 6.25 h; the facility class does not interrupt the job
    assert s["reliability"]["job_mttf_hours"] == pytest.approx(1000 / 160)
    assert s["reliability"]["optimal_checkpoint_minutes"] == pytest.approx(
        daly_interval_hours(5 / 60, 6.25) * 60
    )
    assert s["network"]["switches"] == 5
    assert s["buildings"][0]["gpus"] == 160


def test_rack_metrics_report_feed_loading_against_rating():
    snap = two_n((10, 30), feed_rating_kw=50.0)
    rows = {r["id"]: r for r in rack_metrics(snap)}
    assert rows[2]["load_kw"] == pytest.approx(30.0)
    assert rows[2]["feed_a_pct"] == pytest.approx(30.0)  # 15 kW of 50
    assert rows[2]["feed_n_pct"] is None
    assert rows[1]["density_kw_per_m2"] == pytest.approx(10.0 / (50 * 50 / 2))
    assert rows[1]["gpus_by_model"] == {"toy": 80}
    assert rack_metrics(snap, hall_id=99) == []


def test_checkpoint_calculator_returns_both_intervals_and_ettr():
    out = checkpoint_interval(mtbf_hours=2.0, checkpoint_minutes=5.0, restart_minutes=10.0)
    assert out["daly_minutes"] == pytest.approx(daly_interval_hours(5 / 60, 2.0) * 60)
    assert out["young_minutes"] > out["daly_minutes"]
    assert 0 < out["expected_ettr"] < 1
    with pytest.raises(ValueError, match="^mtbf_hours:"):
        checkpoint_interval(mtbf_hours=0, checkpoint_minutes=5)
    with pytest.raises(ValueError, match="^checkpoint_minutes:"):
        checkpoint_interval(mtbf_hours=2, checkpoint_minutes="x")


def test_job_mttf_calculator_takes_gpus_or_nodes():
    assert job_mttf(nodes=1000, failures_per_1000_node_days=6.5)["hours"] == pytest.approx(24 / 6.5)
    assert job_mttf(gpus=8000, failures_per_1000_node_days=6.5)["hours"] == pytest.approx(24 / 6.5)
    by_rates = job_mttf(gpus=1000, rates=[{"per": "gpu", "mtbf_hours": 1e5}])
    assert by_rates["hours"] == pytest.approx(100.0)
    with pytest.raises(ValueError, match="^failures_per_1000_node_days:"):
        job_mttf(nodes=10)
    with pytest.raises(ValueError, match="^colour:"):
        job_mttf(nodes=10, failures_per_1000_node_days=1, colour="red")


def test_first_failure_and_training_time_calculators():
    assert first_failure([{"count": 100, "mtbf_hours": 1000}])["minutes"] == pytest.approx(600.0)
    with pytest.raises(ValueError, match="^mtbf_hours:"):
        first_failure([{"count": 100, "mtbf_hours": 0}])
    out = training_time(flops=1e24, gpus=1000, gpu_model=H100, mfu=0.4, ettr=0.9)
    assert out["days"] == pytest.approx(1e24 / (1000 * 989e12 * 0.36) / 86400)
    with pytest.raises(ValueError, match="^gpus:"):
        training_time(flops=1e24, gpus=0, gpu_model=H100)
    assert run_calculator("training-time", {"flops": 1e24, "gpus": 1000, "gpu_model": H100})["gpus"] == 1000
    with pytest.raises(ValueError, match="^name:"):
        run_calculator("nope", {})
    with pytest.raises(ValueError, match="^bogus:"):
        run_calculator("first-failure", {"components": [], "bogus": 1})


def test_training_time_calculator_resolves_a_catalog_slug():
    out = training_time(flops=1e24, gpus=1000, gpu_model="h100-sxm", mfu=0.4, ettr=0.9)
    assert out["days"] == pytest.approx(1e24 / (1000 * 989e12 * 0.36) / 86400)
    with pytest.raises(ValueError, match="^gpu_model:"):
        training_time(flops=1e24, gpus=10, gpu_model="no-such-gpu")


@pytest.mark.parametrize("device_id", [1, 2, 11, 12])
@pytest.mark.parametrize("pdu_rated_kw", [15.0, 35.0, 100.0])
def test_a_failure_never_adds_usable_gpus(device_id, pdu_rated_kw):
    im = impact(two_n((10, 30), pdu_rated_kw=pdu_rated_kw), device_id)
    assert im.usable_gpus_after <= im.usable_gpus_before
    assert im.job_interrupted == (im.usable_gpus_after < im.usable_gpus_before)


def test_recovery_options_compare_checkpoint_restart_with_in_memory():
    out = run_calculator(
        "recovery-options",
        {"mtbf_hours": 2.0, "checkpoint_minutes": 5, "restart_minutes": 10, "step_seconds": 10, "gpus": 1000},
    )
    assert out["in_memory"]["reconstruction_seconds"] == pytest.approx(1.6)
    assert out["in_memory"]["expected_ettr"] > out["checkpoint_restart"]["expected_ettr"]
    assert out["in_memory"]["lost_gpu_hours_per_failure"] == pytest.approx(
        1000 * ((10 + 1.6) / 3600 + 10 / 60)
    )
    # without spares a node repair adds to every restart
    no_spares = run_calculator(
        "recovery-options",
        {
            "mtbf_hours": 2.0,
            "checkpoint_minutes": 5,
            "step_seconds": 10,
            "gpus": 1000,
            "node_failures_per_hour": 0.5,
            "repair_hours": 24,
            "spares": 0,
        },
    )
    assert no_spares["effective_restart_minutes"] > 10.0
    with pytest.raises(ValueError, match="^step_seconds:"):
        run_calculator("recovery-options", {"mtbf_hours": 2.0, "checkpoint_minutes": 5, "gpus": 8})
