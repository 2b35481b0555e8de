"""The what-if scenarios' loads agree with the summary of the same campus: the IT load (servers, network,
racks' extras and other IT, one rule), the facility power at the grid connection's hour, and a typed PUE.

Campuses come from the generator through the API; the scenario engines run on the same campus's snapshot.
"""

from __future__ import annotations

import pytest

from campus.models import Campus
from campus.snapshot_adapter import build_snapshot
from simulations.engine import catalogue
from simulations.engine.aggregate import aggregate
from simulations.engine.loads import campus_load
from simulations.engine.runner import run_replica

GENERATE_URL = "/api/campuses/generate/"


def generated(client, name: str, other_it_fraction: float | None = None, **spec) -> Campus:
    body = {"name": name, **spec}
    res = client.post(GENERATE_URL, body, format="json")
    assert res.status_code == 201, res.content
    campus = Campus.objects.get(pk=res.json()["id"])
    if other_it_fraction is not None:
        res = client.patch(
            f"/api/campuses/{campus.pk}/", {"other_it_fraction": other_it_fraction}, format="json"
        )
        assert res.status_code == 200, res.content
        campus.refresh_from_db()
    return campus


def summary_power(client, campus: Campus) -> dict:
    res = client.get(f"/api/campuses/{campus.pk}/summary/")
    assert res.status_code == 200, res.content
    return res.json()["power"]


# 64 H100 in 8 HGX servers, N power and cooling, a typed PUE of 1.2, other IT 0.
N64 = {"gpus": 64, "gpu_model": "h100-sxm", "pue": 1.2, "power_redundancy": "N", "cooling_redundancy": "N"}
# Servers: 8 x (8 GPUs x 700 W + 4,600 W overhead) = 81.6 kW. Network (the generator's one-pod fabric):
# 64 NIC ports fit one radix-64 Quantum-2 QM9700 switch: 1 x 1,500 W with optics (every port on SR), and
# the 64 node-side SR modules x 10 W = 0.64 kW: 2.14 kW. IT = 81.6 + 2.14 = 83.74 kW; facility x 1.2 =
# 100.488 kW.
SERVERS_KW = 8 * (8 * 700 + 4600) / 1000
NETWORK_KW = 1 * 1500 / 1000 + 64 * 10 / 1000
IT_KW = SERVERS_KW + NETWORK_KW
FACILITY_KW = IT_KW * 1.2


@pytest.mark.django_db
def test_the_scenarios_carry_the_network_the_summary_counts(planner_client):
    campus = generated(planner_client, "n64", other_it_fraction=0.0, **N64)
    power = summary_power(planner_client, campus)
    assert power["network_mw"] * 1000 == pytest.approx(NETWORK_KW)
    assert power["it_mw"] * 1000 == pytest.approx(IT_KW)  # 83.74 kW
    assert power["facility_mw"] * 1000 == pytest.approx(FACILITY_KW)  # 100.488 kW
    snap = build_snapshot(campus)

    # power capping, uncapped: the summary's IT and facility power (not 81.6 kW / 97.92 kW)
    r = run_replica("power_capping", snap, {"caps": [], "duration_hours": 1}, seed=0)
    assert r.metrics["mean_it_mw"] * 1000 == pytest.approx(IT_KW)
    assert r.metrics["mean_facility_mw"] * 1000 == pytest.approx(FACILITY_KW)
    assert r.metrics["peak_facility_mw"] * 1000 == pytest.approx(FACILITY_KW)
    # capped at half TDP: the GPUs draw half (64 x 350 W = 22.4 kW less), the network stays
    r = run_replica("power_capping", snap, {"caps": [{"cap_fraction": 0.5}], "duration_hours": 1}, seed=0)
    assert r.metrics["mean_it_mw"] * 1000 == pytest.approx(IT_KW - 64 * 350 / 1000)  # 61.34 kW

    # grid limit at 90 kW: the campus draws 100.488 kW, 10.488 kW over, in every step
    params = {"capacity_kw": 90.0, "events": [], "duration_hours": 1, "step_minutes": 5}
    r = run_replica("grid_limit", snap, params, seed=0)
    assert r.series["demand_kw"] == pytest.approx([FACILITY_KW] * 12)
    assert r.metrics["max_shortfall_kw"] == pytest.approx(FACILITY_KW - 90.0)
    summary = {
        "metrics": {k: v for k, v in aggregate([r]).items() if k not in ("by_cause", "replicas", "events")}
    }
    words = " ".join(catalogue.explain("grid_limit", summary, params))
    assert "stayed within the grid limit" not in words

    # power dynamics, a steady whole-campus job (no communication dip): the grid draws the facility power
    job = {"iteration_seconds": 2.0, "comm_fraction": 0.0}
    r = run_replica(
        "power_dynamics",
        snap,
        {"jobs": [job], "events": [], "search": False, "duration_seconds": 20.0},
        seed=0,
    )
    assert r.metrics["peak_grid_mw"] * 1000 == pytest.approx(FACILITY_KW)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("spec", "other_it_fraction"),
    [
        (N64, 0.0),
        (N64, 0.3),  # other IT above the network: the fraction rules
        ({"gpus": 256}, None),
        ({"gpus": 512, "gpu_model": "b200"}, 0.15),
        ({"gpus": 1024, "pue": 1.3}, 0.05),
    ],
)
def test_the_uncapped_scenario_it_is_the_summarys_it(planner_client, spec, other_it_fraction):
    campus = generated(planner_client, "prop", other_it_fraction=other_it_fraction, **spec)
    power = summary_power(planner_client, campus)
    snap = build_snapshot(campus)
    load = campus_load(snap, "bf16", 0.4)
    assert load.it_kw([1.0] * len(load.groups)) / 1000 == pytest.approx(power["it_mw"], rel=1e-9)
    assert load.peak_facility_kw([1.0] * len(load.groups)) / 1000 == pytest.approx(
        power["peak_facility_mw"], rel=1e-9
    )


@pytest.mark.django_db
def test_a_heat_wave_on_a_typed_pue_draws_it_times_the_pue(planner_client):
    # The n64 campus with its typed PUE of 1.2: the summary's facility power is 83.74 kW x 1.2 = 100.488 kW
    # every hour; a heat wave with no rise draws the same, at a PUE of 1.2 in every hour (not the plant
    # model's), while its plant physics stay: the shortfall hours are the plant model's.
    campus = generated(planner_client, "n64-wave", other_it_fraction=0.0, **N64)
    power = summary_power(planner_client, campus)
    assert power["pue"] == 1.2 and power["facility_mw"] * 1000 == pytest.approx(FACILITY_KW)
    snap = build_snapshot(campus)
    r = run_replica("heat_wave", snap, {"temperature_rise_k": 0.0}, seed=0)
    assert r.metrics["cooling_shortfall_hours"] == 0
    assert r.metrics["peak_facility_mw"] * 1000 == pytest.approx(FACILITY_KW)
    assert r.metrics["max_pue"] == pytest.approx(1.2)


@pytest.mark.django_db
def test_the_demo_campus_grid_limit_sees_the_summarys_peak_hour():
    # The demo campus has no typed PUE: the plant model gives a mean hour below 11.5 MW and a peak hour of
    # 11.925 MW. An 11,500 kW limit lies between: grid_limit must be short 11,925 - 11,500 = 425 kW, and
    # power_capping's peak is the summary's peak, its mean the summary's mean. (The pinned figure moves with
    # the demo's design: 434.5 kW before its 2N chain became 2(N+1) and storage left the IT allowance.)
    from campus.analysis.summary import campus_summary
    from campus.interchange.demo import load_demo_campus

    campus, _ = load_demo_campus()
    snap = build_snapshot(campus)
    power = campus_summary(snap, include_redundancy=False)["power"]
    assert power["pue_source"] == "plant-model"
    assert power["facility_mw"] * 1000 < 11_500 < power["peak_facility_mw"] * 1000
    peak_kw = power["peak_facility_mw"] * 1000
    params = {"capacity_kw": 11_500.0, "events": [], "duration_hours": 1, "step_minutes": 10}
    r = run_replica("grid_limit", snap, params, seed=0)
    assert r.series["demand_kw"] == pytest.approx([peak_kw] * 6)
    assert r.metrics["max_shortfall_kw"] == pytest.approx(peak_kw - 11_500.0)
    assert r.metrics["max_shortfall_kw"] == pytest.approx(425.1, abs=0.1)
    r = run_replica("power_capping", snap, {"caps": [], "duration_hours": 1}, seed=0)
    assert r.metrics["mean_it_mw"] == pytest.approx(power["it_mw"])
    assert r.metrics["peak_facility_mw"] == pytest.approx(power["peak_facility_mw"])
    assert r.metrics["mean_facility_mw"] == pytest.approx(power["facility_mw"])
