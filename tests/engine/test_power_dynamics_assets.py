"""power_dynamics uses the campus's own batteries and prime-rated generators when the scenario leaves
``bess`` / ``generation`` out, and the scenario's when it gives them (zero included)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campus.analysis.snapshot import EnergyStorageSnap
from simulations.engine.runner import prepare
from tests.engine.builders import campus, prime_generator

BASE = {
    "events": [],
    "search": False,
    "duration_seconds": 180.0,
    "jobs": [{"iteration_seconds": 2.0, "comm_fraction": 0.3, "comm_power_fraction": 0.3}],
}


def _owned(storage=((60.0, 30.0, 0.81, 0.0), (40.0, 20.0, 0.9, 0.0)), prime=()):
    snap = campus()
    systems = tuple(
        EnergyStorageSnap(i + 1, f"BESS-{i}", kw, kwh, eff, ms, 1, None)
        for i, (kw, kwh, eff, ms) in enumerate(storage)
    )
    gens = tuple(
        prime_generator(90 + i, f"GT-{i}", kw, ramp_kw_per_s=ramp) for i, (kw, ramp) in enumerate(prime)
    )
    return replace(snap, energy_storage=systems, power_devices=snap.power_devices + gens)


def _run(snap, **params):
    return prepare(snap, "power_dynamics", {**BASE, **params}).run(0)


def test_left_out_the_battery_is_the_campus_pool():
    snap = _owned()
    plan = prepare(snap, "power_dynamics", BASE).plan
    bess = plan.params.bess
    # Σ 60 + 40 kW, Σ 30 + 20 kWh, efficiency weighted by energy: (0.81 x 30 + 0.9 x 20) / 50 = 0.846
    assert (bess.power_mw, bess.energy_mwh) == pytest.approx((0.1, 0.05))
    assert bess.round_trip_efficiency == pytest.approx(0.846)
    owned = _run(snap)
    given = _run(
        snap,
        bess={"power_mw": 0.1, "energy_mwh": 0.05, "round_trip_efficiency": 0.846, "response_ms": 0.0},
    )
    assert owned.metrics == given.metrics
    assert owned.details["assets"]["bess"]["source"] == "campus"
    assert given.details["assets"]["bess"]["source"] == "params"


def test_a_given_battery_replaces_the_campus_one_and_zero_means_none():
    without = _run(campus())
    zero = _run(_owned(), bess={"power_mw": 0.0, "energy_mwh": 0.0})
    assert zero.metrics == without.metrics
    # the owned battery holds the grid to its trailing mean: the swing at the connection falls
    assert _run(_owned()).metrics["swing_mw"] < without.metrics["swing_mw"]
    assert without.metrics["bess_throughput_mwh"] == 0


def test_left_out_generation_is_the_campus_prime_sets_above_the_interconnect():
    snap = _owned(storage=(), prime=((300.0, 20.0), (200.0, 10.0)))
    gen = prepare(snap, "power_dynamics", BASE).plan.params.generation
    assert (gen.rating_mw, gen.ramp_mw_per_s) == pytest.approx((0.5, 0.03))
    assert gen.grid_import_mw == pytest.approx(snap.grid_capacity_kw / 1000.0)
    # a campus drawing less than its interconnect leaves its generation idle
    assert _run(snap).metrics["generation_mwh"] == 0
    # standby sets are not on-site generation
    assert prepare(campus(), "power_dynamics", BASE).plan.params.generation.rating_mw == 0
    # an interconnect below the load: the generation carries the rest
    tight = replace(snap, grid_capacity_kw=100.0)
    assert _run(tight).metrics["generation_mwh"] > 0
