"""The calibrated model parameters in the model (docs/model.md, "Calibrated parameters"): a campus's GPU power
fraction and server overhead scale move every figure built on a server's power, and a cooling plant's
fitted coefficients replace its kind's equations. Figures against hand calculations."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.energy import it_breakdown
from campus.analysis.facility import facility_year
from campus.analysis.heat import node_kw_at
from campus.analysis.snapshot import CampusSnapshot
from campus.interchange.generator.document import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot
from tests.analysis.builders import campus, rack


def test_a_calibrated_server_draws_its_gpus_fraction_of_tdp_and_its_scaled_overhead() -> None:
    # toy8: 8 GPUs of 100 W and 200 W of overhead (tests.analysis.builders)
    snap = replace(campus(racks=(rack(1, nodes=10),)), gpu_power_fraction=0.8, server_overhead_scale=1.25)
    assert snap.node_power_w("toy8") == pytest.approx(8 * 100 * 0.8 + 200 * 1.25)  # 890 W
    assert snap.rack_it_kw(snap.racks[0]) == pytest.approx(10 * 0.890)
    # a query's fraction scales the calibrated GPU draw, never the overhead
    assert node_kw_at(snap, "toy8", 0.5) == pytest.approx((8 * 100 * 0.8 * 0.5 + 200 * 1.25) / 1000)
    it = it_breakdown(snap, 0.5)
    assert it.gpu_kw == pytest.approx(10 * 8 * 100 * 0.8 * 0.5 / 1000)
    assert it.server_overhead_kw == pytest.approx(10 * 200 * 1.25 / 1000)


def test_the_default_parameters_are_the_design_load() -> None:
    snap = campus(racks=(rack(1, nodes=3),))
    assert (snap.gpu_power_fraction, snap.server_overhead_scale) == (1.0, 1.0)
    assert snap.rack_it_kw(snap.racks[0]) == pytest.approx(3 * 1.0)


@cache
def generated() -> CampusSnapshot:
    return spec_snapshot(generate_spec("fitted plant", gpus=1024, cooling="liquid", climate="dublin-ie"))


@settings(max_examples=15, deadline=None)
@given(
    fixed=st.floats(0, 500),
    eir=st.floats(0.01, 1.0),
    slope=st.floats(-0.02, 0.02),
    temps=st.lists(st.floats(-20, 45), min_size=1, max_size=24),
)
def test_a_fitted_plant_draws_its_regression_at_the_hours_weather(fixed, eir, slope, temps) -> None:
    snap = generated()
    plants = tuple(replace(p, fixed_kw=fixed, eir_ref=eir, eir_per_k=slope) for p in snap.cooling_plants)
    fitted = replace(snap, cooling_plants=plants)
    db = np.array(temps)
    fy, before = facility_year(fitted, db, db - 4.0), facility_year(snap, db, db - 4.0)
    for p in fy.plants:
        by_hand = np.maximum(fixed + p.heat_kw * (eir + slope * (db - 20.0)), 0.0)
        np.testing.assert_allclose(p.power_kw, by_hand, rtol=1e-9, atol=1e-9)
    # only the plant's power changes: the heat it takes and the margin it keeps are its kind's
    for a, b in zip(fy.plants, before.plants, strict=True):
        assert a.heat_kw == pytest.approx(b.heat_kw)
        np.testing.assert_allclose(a.margin_kw, b.margin_kw)


def test_the_scenarios_servers_carry_the_calibrated_overhead_and_model_their_gpus_themselves() -> None:
    from simulations.engine.loads import campus_load

    snap = replace(campus(racks=(rack(1, nodes=10),)), gpu_power_fraction=0.8, server_overhead_scale=1.25)
    (group,) = campus_load(snap, "bf16", 0.4).groups
    assert group.fixed_kw == pytest.approx(10 * 200 * 1.25 / 1000)  # 2.5 kW by hand
    assert group.gpu_tdp_kw == pytest.approx(10 * 8 * 100 / 1000)  # the scenario sets the GPUs' draw
