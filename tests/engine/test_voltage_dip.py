"""voltage_dip: which loads leave the grid, read off the published ride-through curves, and the MW by hand.

By hand (tests.engine.builders, 320 racks): the IT load and the PUE come from the campus
(``loads.campus_load``); the overhead is facility - IT, split 50 % chillers and 30 % drives (the defaults).
A dip to 0.6 pu for 150 ms: below the UPSs' 0.85 pu limit, so the IT leaves; inside SEMI F47 (50 % for
0.2 s), so drives and chillers ride through. A dip to 0.5 pu for 0.3 s is outside SEMI F47: all three drop.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulations.engine.loads import campus_load
from simulations.engine.runner import run_replica
from tests.engine.builders import campus


def _loads():
    load = campus_load(campus(racks=320), "bf16", 0.4)
    fr = [1.0] * len(load.groups)
    it = load.it_kw(fr)
    return it, load.peak_facility_kw(fr) - it


def _run(**params):
    return run_replica("voltage_dip", campus(racks=320), params, seed=1)


def test_a_shallow_short_dip_sends_the_it_to_the_ups_and_the_cooling_rides_through():
    it, overhead = _loads()
    m = _run().metrics
    assert m["it_transferred_mw"] == pytest.approx(it / 1000)
    assert m["drives_dropped_mw"] == 0 and m["chillers_dropped_mw"] == 0
    assert m["mw_lost_within_1s"] == pytest.approx(it / 1000)
    assert m["load_mw"] == pytest.approx((it + overhead) / 1000)
    # back after 5 min plus the 60 s walk-in
    assert m["back_to_grid_minutes"] == pytest.approx(6.0)
    assert m["grid_energy_not_drawn_mwh"] == pytest.approx(it * (300 + 30) / 3600 / 1000)


def test_a_deep_long_dip_drops_drives_and_chillers_too():
    it, overhead = _loads()
    m = _run(residual_pu=0.5, duration_s=0.3).metrics
    assert m["drives_dropped_mw"] == pytest.approx(0.3 * overhead / 1000)
    assert m["chillers_dropped_mw"] == pytest.approx(0.5 * overhead / 1000)
    assert m["mw_lost_within_1s"] == pytest.approx((it + 0.8 * overhead) / 1000)
    assert m["cooling_restart_minutes"] > 0


def test_a_dip_the_ups_tolerates_loses_nothing():
    m = _run(residual_pu=0.9, duration_s=0.5).metrics
    assert m["mw_lost_within_1s"] == 0 and m["back_to_grid_minutes"] == 0


def test_the_series_shows_the_load_leave_at_the_dip_and_come_back():
    r = _run()
    t, grid = r.series["t_hours"] * 3600, r.series["grid_mw"]
    m = r.metrics
    assert grid[t < 0] == pytest.approx(m["load_mw"])
    assert grid[(t >= 0) & (t < 300)] == pytest.approx(m["load_mw"] - m["it_transferred_mw"])
    assert grid[t >= 360] == pytest.approx(m["load_mw"])


@settings(max_examples=40, deadline=None)
@given(v=st.floats(0.0, 1.0), d=st.floats(0.01, 5.0), deeper=st.floats(0.0, 1.0), longer=st.floats(0.0, 5.0))
def test_a_deeper_or_longer_dip_never_loses_less(v, d, deeper, longer):
    a = _run(residual_pu=v, duration_s=d).metrics["mw_lost_within_1s"]
    b = _run(residual_pu=max(0.0, v - deeper), duration_s=min(60.0, d + longer)).metrics["mw_lost_within_1s"]
    assert b >= a - 1e-9
