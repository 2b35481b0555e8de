"""The demo campus's default run of each kind shows an effect: a headline figure moves against the same run
without its event, so the first run a planner starts teaches something. Real runs through the engine on the
demo campus's snapshot, built in memory from its spec (the catalog's defaults, as the database is seeded)."""

from __future__ import annotations

import pytest

from campus.analysis.heat import heat_map
from campus.interchange.demo import demo_spec
from campus.interchange.generator.common import Catalog
from campus.interchange.spec_snapshot import spec_snapshot
from simulations.engine.catalogue import explain
from simulations.engine.runner import run_replica


@pytest.fixture(scope="module")
def demo():
    return spec_snapshot(demo_spec(Catalog.defaults()))


def _pair(snap, kind: str, without: dict):
    return run_replica(kind, snap, {}, seed=1), run_replica(kind, snap, without, seed=1)


def test_the_demo_cdu_groups_each_carry_one_lost_unit(demo):
    # Why the default fails a set: every CDU group of the demo has the spare for any one unit (2,000 kW
    # units carrying 31-673 kW each), so a single CDU loss changes nothing there.
    load = heat_map(demo).unit_kw
    for unit in (u for u in demo.cooling_units if u.kind == "cdu" and load.get(u.id, 0.0) > 0):
        peers = [u for u in demo.cooling_units if (u.hall_id, u.group) == (unit.hall_id, unit.group)]
        spare = sum(u.capacity_kw - load.get(u.id, 0.0) for u in peers if u.id != unit.id)
        assert load[unit.id] <= spare


def test_the_demo_liquid_cooling_default_loses_cooling_and_names_the_cdus(demo):
    default, without = _pair(demo, "liquid_cooling", {"events": []})
    # Hall B2-H2 has two 2,000 kW CDUs carrying 508.8 kW each: one lost leaves 1,491 kW of spare for 509 kW
    # (covered), both lost leave none; no other group is uncovered with fewer than three units lost.
    assert [f["name"] for f in default.details["failed"]] == ["B2-H2-CDU-01", "B2-H2-CDU-02"]
    assert default.details["default_set"] is True
    assert without.metrics["shutdown_gpu_hours"] == 0.0
    assert default.metrics["shutdown_gpu_hours"] > 0.0
    assert default.metrics["job_throughput_fraction"] < without.metrics["job_throughput_fraction"]
    assert default.metrics["max_gpu_temp_c"] > without.metrics["max_gpu_temp_c"]
    words = explain("liquid_cooling", {"metrics": default.metrics, "details": default.details}, {})
    assert "B2-H2-CDU-01 and B2-H2-CDU-02" in words[0]


def test_the_demo_heat_wave_default_raises_the_peak_and_the_pue(demo):
    default, without = _pair(demo, "heat_wave", {"temperature_rise_k": 0})
    assert default.metrics["peak_facility_mw"] > without.metrics["peak_facility_mw"] * 1.001
    assert default.metrics["max_pue"] > without.metrics["max_pue"]
    assert default.metrics["water_m3"] > without.metrics["water_m3"]
    # the run measures its own effect against the same days without the wave (68 kW on the demo)
    assert default.metrics["peak_facility_rise_mw"] == pytest.approx(
        default.metrics["peak_facility_mw"] - without.metrics["peak_facility_mw"]
    )


def test_the_demo_power_capping_default_saves_energy_and_costs_throughput(demo):
    default, without = _pair(demo, "power_capping", {"caps": []})
    # no cap saves nothing (to the rounding of summing the segments' energy against the uncapped draw)
    assert without.metrics["energy_saving_fraction"] == pytest.approx(0.0, abs=1e-12)
    assert default.metrics["energy_saving_fraction"] > 0.05
    assert default.metrics["throughput_fraction"] < without.metrics["throughput_fraction"]
    assert default.metrics["mean_it_mw"] < without.metrics["mean_it_mw"] * 0.95


def test_the_demo_failure_cascade_default_interrupts_the_job(demo):
    # Without failures the job is never interrupted; the demo's default month interrupts it.
    default = run_replica("failure_cascade", demo, {}, seed=1)
    assert default.metrics["interruptions"] >= 1
    assert default.metrics["lost_gpu_hours"] > 0
    assert default.metrics["ettr"] < 1.0
