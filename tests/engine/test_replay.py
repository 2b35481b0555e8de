"""A replayed power series as the load of power_dynamics and grid_limit: the grid figures of the run equal a
hand calculation on the series itself (each value held over its step: energy = Σ v × step, peak = max v,
the largest change in a second or a minute = the largest jump between neighbours, shortfall under a cap C =
Σ max(0, v − C) × step)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulations.engine.kinds import grid_limit, power_dynamics
from simulations.engine.params import ParamsError, validate_params
from simulations.engine.runner import prepare, run_replica
from simulations.engine.words import Summary
from tests.engine.builders import campus

# A recorded campus draw, 5-minute means, kW (a morning ramp, a dip for a checkpoint, a job restart).
RECORDED_KW = [
    5200.0, 5210.0, 5350.0, 5900.0, 6400.0, 6420.0, 6380.0, 4100.0, 4150.0, 6390.0,
    6450.0, 6500.0, 6480.0, 6300.0, 5800.0, 5600.0, 5650.0, 5700.0, 6100.0, 6200.0,
    6250.0, 6240.0, 6230.0, 6100.0,
]  # fmt: skip
STEP_S = 300.0
SERIES = {"kind": "series", "step_seconds": STEP_S, "values_kw": RECORDED_KW}


def _dynamics(source, **params):
    base = {
        "events": [],
        "search": False,
        "resolution_ms": 1000.0,
        "load_source": source,
        "rule_set": "custom",
        "requirements": {},
    }
    return run_replica("power_dynamics", campus(), {**base, **params}, seed=0)


def _hand(values: list[float], step_s: float) -> dict[str, float]:
    v = np.asarray(values)
    jumps = np.abs(np.diff(v))
    return {
        "peak_mw": v.max() / 1000.0,
        "min_mw": v.min() / 1000.0,
        "energy_mwh": v.sum() * step_s / 3600.0 / 1000.0,
        "ramp_mw": jumps.max() / 1000.0 if jumps.size else 0.0,
    }


def test_a_replayed_series_gives_its_own_peak_energy_and_ramps():
    hand = _hand(RECORDED_KW, STEP_S)
    m = _dynamics(SERIES).metrics
    assert m["peak_grid_mw"] == pytest.approx(hand["peak_mw"], rel=1e-12)
    assert m["min_grid_mw"] == pytest.approx(hand["min_mw"], rel=1e-12)
    assert m["energy_grid_mwh"] == pytest.approx(hand["energy_mwh"], rel=1e-9)
    assert m["energy_natural_mwh"] == pytest.approx(hand["energy_mwh"], rel=1e-9)
    # the checkpoint dip: 6,380 -> 4,100 kW between two means is the largest jump
    assert hand["ramp_mw"] == pytest.approx(2.28)
    assert m["max_ramp_mw_per_s"] == pytest.approx(hand["ramp_mw"], rel=1e-9)
    assert m["max_ramp_mw_per_min"] == pytest.approx(hand["ramp_mw"], rel=1e-9)
    # the run lasts the series' span, whatever duration_seconds says
    assert len(RECORDED_KW) * STEP_S == pytest.approx(m["energy_grid_mwh"] / m["mean_grid_mw"] * 3600.0)


def test_a_battery_flattens_the_replayed_draw_and_closes_the_energy_balance():
    m = _dynamics(SERIES, bess={"power_mw": 3.0, "energy_mwh": 2.0, "window_seconds": 900.0}).metrics
    hand = _hand(RECORDED_KW, STEP_S)
    assert m["max_ramp_mw_per_s"] < hand["ramp_mw"]
    balance = m["energy_natural_mwh"] + m["bess_loss_mwh"] + m["bess_soc_gain_mwh"]
    assert m["energy_grid_mwh"] == pytest.approx(balance, rel=1e-9)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.floats(min_value=0.0, max_value=50_000.0), min_size=2, max_size=30),
    st.sampled_from([60.0, 300.0, 900.0]),
)
def test_any_replayed_series_gives_the_hand_figures(values, step_s):
    hand = _hand(values, step_s)
    m = _dynamics({"kind": "series", "step_seconds": step_s, "values_kw": values}).metrics
    assert m["peak_grid_mw"] == pytest.approx(hand["peak_mw"], rel=1e-9, abs=1e-12)
    assert m["energy_grid_mwh"] == pytest.approx(hand["energy_mwh"], rel=1e-9, abs=1e-12)
    assert m["max_ramp_mw_per_s"] == pytest.approx(hand["ramp_mw"], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("step_minutes", [1.0, 5.0])
def test_the_shortfall_under_a_cap_is_the_series_above_it(step_minutes):
    cap_kw = 6000.0
    r = run_replica(
        "grid_limit",
        campus(),
        {
            "load_source": SERIES,
            "capacity_kw": cap_kw,
            "events": [],
            "policy": "cap",
            "step_minutes": step_minutes,
        },
        seed=0,
    )
    over = [max(0.0, v - cap_kw) for v in RECORDED_KW]
    hand_mwh = sum(over) * STEP_S / 3600.0 / 1000.0
    assert r.metrics["shortfall_mwh"] == pytest.approx(hand_mwh, rel=1e-9)
    assert r.metrics["max_shortfall_kw"] == pytest.approx(max(over))
    # runs of steps above the cap: 6,400..6,380 (means 4-6), 6,390..6,300 (9-13), 6,100..6,100 (18-23)
    assert r.metrics["shortfall_events"] == 3
    # capping holds the draw under the cap where the GPUs' minimum caps allow, and the draw follows the series
    assert np.all(r.series["grid_kw"] <= cap_kw * (1 + 1e-6))
    held = np.asarray(RECORDED_KW)[np.floor(r.series["t_hours"] * 3600.0 / STEP_S + 1e-9).astype(int)]
    np.testing.assert_allclose(r.series["demand_kw"], held)
    below = held <= cap_kw
    np.testing.assert_allclose(r.series["grid_kw"][below], held[below])


def test_an_event_baseline_is_the_replayed_demand():
    # shed a quarter of the load for the first hour: the level is 0.75 x the measured mean in force
    event = {"start_hours": 0.0, "duration_hours": 1.0, "share_of_load": 0.25}
    r = run_replica(
        "grid_limit",
        campus(),
        {"load_source": SERIES, "capacity_kw": 1e6, "events": [event], "policy": "cap", "step_minutes": 5.0},
        seed=0,
    )
    first_hour = np.asarray(RECORDED_KW[:12])
    assert r.metrics["event_asked_mwh"] == pytest.approx(0.25 * first_hour.sum() * STEP_S / 3600.0 / 1000.0)
    np.testing.assert_allclose(r.series["limit_kw"][:12], 0.75 * first_hour)


def test_a_measured_source_names_its_missing_window():
    with pytest.raises(ParamsError) as exc:
        validate_params("grid_limit", {"load_source": {"kind": "measured", "end": "2026-11-29T00:00:00Z"}})
    assert exc.value.errors[0]["field"] == "load_source.start"
    with pytest.raises(ParamsError) as exc:
        validate_params(
            "power_dynamics",
            {"load_source": {"kind": "measured", "start": "2026-11-29T01:00Z", "end": "2026-11-29T00:00Z"}},
        )
    assert exc.value.errors[0]["field"] == "load_source.end"
    with pytest.raises(ParamsError) as exc:
        validate_params(
            "power_dynamics", {"load_source": {"kind": "series", "step_seconds": 60, "values_kw": [1, -2]}}
        )
    assert exc.value.errors[0]["field"] == "load_source.values_kw[1]"


def test_an_unresolved_measured_source_is_refused_by_the_engine():
    source = {"kind": "measured", "start": "2026-11-28T00:00:00Z", "end": "2026-11-29T00:00:00Z"}
    for kind in ("power_dynamics", "grid_limit"):
        with pytest.raises(ParamsError) as exc:
            prepare(campus(), kind, {"load_source": source})
        assert exc.value.errors[0]["field"] == "load_source.values_kw"


def test_smoothing_is_refused_with_a_replayed_load():
    with pytest.raises(ParamsError) as exc:
        prepare(campus(), "power_dynamics", {"load_source": SERIES, "smoothing": {"floor_fraction": 0.5}})
    assert exc.value.errors[0]["field"] == "smoothing"


def test_an_event_after_the_replay_ends_is_named():
    late = {"start_hours": 3.0, "duration_hours": 1.0}  # the series spans 2 h
    with pytest.raises(ParamsError) as exc:
        prepare(campus(), "grid_limit", {"load_source": SERIES, "events": [late]})
    assert exc.value.errors[0]["field"] == "events[0].start_hours"


def test_the_words_say_where_the_load_came_from():
    p = validate_params(
        "grid_limit",
        {
            "events": [],
            "load_source": {
                **SERIES,
                "kind": "measured",
                "object_kind": "building",
                "object_name": "B1",
                "start": "2026-11-28T06:00:00Z",
                "end": "2026-11-28T08:00:00Z",
            },
        },
    )
    words = grid_limit.explain(Summary({"metrics": {"shortfall_mwh": {"mean": 0.0}}}), p)
    assert words[0].startswith(
        "The load was replayed from the measured power of building B1 from 2026-11-28 06:00"
    )


@pytest.mark.parametrize("policy", ["flexibility", "cap", "pause", "ride_through", "generators"])
def test_every_policy_keeps_a_replayed_draw_under_the_limit(policy):
    event = {"start_hours": 0.5, "duration_hours": 1.0, "share_of_load": 0.1}
    params = {
        "load_source": SERIES,
        "capacity_kw": 6000.0,
        "policy": policy,
        "events": [event],
        "generator_fail_to_start_probability": 0.0,
    }
    r = run_replica("grid_limit", campus(), params, seed=0)
    assert np.all(r.series["grid_kw"] <= r.series["limit_kw"] * (1 + 1e-6))
    assert r.metrics["overload_events"] == 0
    # where the replayed demand fits, the campus draws it: the grid follows the measured series
    fits = r.series["demand_kw"] <= r.series["limit_kw"]
    np.testing.assert_allclose(
        r.series["grid_kw"][fits & (r.series["t_hours"] > 1.6)],
        r.series["demand_kw"][fits & (r.series["t_hours"] > 1.6)],
    )


def test_a_replay_longer_than_duration_hours_takes_its_events_and_too_many_steps_are_named():
    day = {"kind": "series", "step_seconds": 3600.0, "values_kw": [5000.0] * 48}  # two days
    late = {"start_hours": 30.0, "duration_hours": 2.0, "share_of_load": 0.5}
    r = run_replica(
        "grid_limit",
        campus(),
        {"load_source": day, "events": [late], "step_minutes": 60.0, "capacity_kw": 1e6},
        seed=0,
    )
    assert r.series["t_hours"].size == 48
    np.testing.assert_allclose(r.series["limit_kw"][30:32], 2500.0)
    long = {"kind": "series", "step_seconds": 86_400.0, "values_kw": [5000.0] * 800}
    with pytest.raises(ParamsError) as exc:
        prepare(campus(), "grid_limit", {"load_source": long, "events": []})
    assert exc.value.errors[0]["field"] == "step_minutes"
    with pytest.raises(ParamsError) as exc:
        prepare(campus(), "power_dynamics", {"load_source": {**long, "values_kw": [1.0] * 30}})
    assert exc.value.errors[0]["field"] == "resolution_ms"


def test_a_replay_has_no_steady_training_swing_and_says_so_in_words():
    r = _dynamics(SERIES, events=[{"kind": "job_crash", "at_seconds": 1800.0}])
    assert "iteration_swing_mw" not in r.metrics
    p = validate_params("power_dynamics", {"load_source": SERIES, "events": [], "search": False})
    summary = Summary({"metrics": {k: {"mean": v} for k, v in r.metrics.items()}})
    words = power_dynamics.explain(summary, p)
    assert words[0] == "The load was replayed from a given series of 24 values, one every 300 s."
    assert words[1].startswith("The replayed draw moved by up to 2.28 MW within 2 s")
    assert not any("iteration" in w or "power floor" in w for w in words)
