"""power_dynamics against hand calculations (the swing is the GPU power that drops in communication, with the
facility overhead that follows it; the network and other IT stay), the Fourier series of a square wave, brute-force loops for the streamed pieces, and
properties (a higher floor never raises the swing, a bigger battery never raises the ramp, energy balances)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import signal

from simulations.engine.kinds.power_dynamics import model as pd
from simulations.engine.kinds.power_dynamics import plan as pd_plan
from simulations.engine.kinds.power_dynamics import stream
from simulations.engine.params import ParamsError
from simulations.engine.runner import prepare
from tests.engine.builders import campus

# The builder's campus: 8 racks x 4 HGX H100 servers x 8 GPUs = 256 H100 at 700 W TDP (catalog), design PUE
# 1.2, other IT 10 % of IT. The other IT (storage, CPU nodes) is held at its full-load figure: it does not
# swing with the GPUs, so a GPU watt reaches the grid as 1.2 W (the PUE), not 1.2 / 0.9 W.
GPUS = 256
TDP_W = 700.0
FACTOR = 1.2


def _run(params, snap=None):
    base = {"events": [], "search": False, "duration_seconds": 120.0}
    return prepare(snap or campus(), "power_dynamics", {**base, **params}).run(0)


def test_the_swing_is_the_gpu_power_that_drops_in_communication():
    r = _run({"jobs": [{"iteration_seconds": 2.0, "comm_fraction": 0.3, "comm_power_fraction": 0.3}]})
    hand_mw = GPUS * TDP_W * (1 - 0.3) * FACTOR / 1e6
    assert r.metrics["swing_mw"] == pytest.approx(hand_mw, rel=1e-9)
    # a compute/communication edge is one step: the whole swing within a second
    assert r.metrics["max_ramp_mw_per_s"] == pytest.approx(hand_mw, rel=1e-9)
    assert r.metrics["peak_grid_mw"] - r.metrics["min_grid_mw"] == pytest.approx(hand_mw, rel=1e-9)


def test_a_crash_loses_the_jobs_power_within_a_second():
    # steady load (no communication phase), crash at 60 s: the GPUs drop from TDP to idle in one step
    r = _run(
        {
            "jobs": [{"comm_fraction": 0.0}],
            "events": [{"kind": "job_crash", "at_seconds": 60.0}],
            "idle_gpu_fraction": 0.1,
        }
    )
    lost_mw = GPUS * TDP_W * (1 - 0.1) * FACTOR / 1e6
    assert r.metrics["max_ramp_mw_per_s"] == pytest.approx(lost_mw, rel=1e-9)
    wave = r.details["waveform"]
    t = np.asarray(wave["t_s"])
    g = np.asarray(wave["grid_mw"])
    before = g[(t >= 59.0) & (t < 60.0)]
    after = g[(t >= 60.0) & (t < 61.0)]
    assert before.min() - after.max() == pytest.approx(lost_mw, rel=1e-9)


@pytest.mark.parametrize("floor", [0.4, 0.6, 0.9])
def test_a_floor_cuts_the_swing_to_one_minus_f_over_one_minus_c(floor):
    job = {"comm_fraction": 0.3, "comm_power_fraction": 0.3}
    free = _run({"jobs": [job]}).metrics["swing_mw"]
    held = _run({"jobs": [job], "smoothing": {"floor_fraction": floor}}).metrics
    assert held["swing_mw"] == pytest.approx(free * (1 - floor) / (1 - 0.3), rel=1e-9)
    # the burn: (floor - c) x TDP for every GPU during the communication share of the time, with the overhead
    burn_mwh = GPUS * TDP_W * (floor - 0.3) * 0.3 * FACTOR * 120.0 / 3600.0 / 1e6
    assert held["smoothing_energy_mwh"] == pytest.approx(burn_mwh, rel=1e-6)


def test_the_band_amplitude_is_the_square_waves_fundamental():
    # Fourier series of a pulse train of height S and duty D: fundamental amplitude (2 S / pi) sin(pi D)
    r = _run(
        {
            "duration_seconds": 1800.0,
            "jobs": [{"iteration_seconds": 2.0, "comm_fraction": 0.3, "comm_power_fraction": 0.3}],
            "requirements": {"band_hz": [0.3, 0.7]},
        }
    )
    swing = r.metrics["swing_mw"]
    assert r.metrics["band_amplitude_mw"] == pytest.approx(
        2 * swing / math.pi * math.sin(math.pi * 0.3), rel=0.01
    )
    spectrum = r.details["spectrum"]
    peak = int(np.argmax(spectrum["amplitude_mw"]))
    assert spectrum["f_hz"][peak] == pytest.approx(0.5, abs=0.02)


def test_two_jobs_half_a_period_apart_cancel_their_fundamental():
    snap = campus(pods=2)
    jobs = [
        {"pods": [10], "iteration_seconds": 2.0, "comm_fraction": 0.5},
        {"pods": [11], "iteration_seconds": 2.0, "comm_fraction": 0.5, "phase_offset_seconds": 1.0},
    ]
    r = _run({"jobs": jobs}, snap)
    assert r.metrics["swing_mw"] == pytest.approx(0.0, abs=1e-9)


def test_unknown_pods_and_jobs_are_params_errors_naming_the_field():
    with pytest.raises(ParamsError) as info:
        _run({"jobs": [{"pods": [10, 999]}]})
    assert info.value.errors[0]["field"] == "jobs[0].pods[1]"
    with pytest.raises(ParamsError) as info:
        _run({"events": [{"kind": "job_crash", "job": 3}]})
    assert info.value.errors[0]["field"] == "events[0].job"
    with pytest.raises(ParamsError) as info:
        _run({"jobs": [{"pods": [10]}, {"pods": [10]}]})
    assert info.value.errors[0]["field"] == "jobs[1].pods[0]"
    with pytest.raises(ParamsError) as info:
        _run({"jobs": [{"iteration_seconds": 0.1}]})
    assert info.value.errors[0]["field"] == "jobs[0].iteration_seconds"


def test_violations_name_requirement_limit_and_value():
    r = _run({"requirements": {"max_swing_mw": 0.01, "max_ramp_mw_per_s": 100.0}})
    assert r.metrics["compliant"] == 0.0
    (v,) = r.details["violations"]
    assert v["requirement"] == "max_swing_mw" and v["limit"] == 0.01
    assert v["value"] == pytest.approx(r.metrics["swing_mw"])


def test_the_searched_floor_and_battery_comply_and_a_little_less_does_not():
    params = {
        "duration_seconds": 300.0,
        "search": True,
        "jobs": [{"comm_fraction": 0.3, "comm_power_fraction": 0.3}],
        "requirements": {"max_swing_mw": 0.05},
    }
    r = _run(params)
    floor = r.metrics["min_floor_to_comply"]
    # hand: the swing (1 - f) x N x TDP x factor must be at most the limit
    assert floor == pytest.approx(1 - 0.05e6 / (GPUS * TDP_W * FACTOR), abs=2e-3)
    assert (
        _run({**params, "search": False, "smoothing": {"floor_fraction": floor}}).metrics["compliant"] == 1.0
    )
    below = _run({**params, "search": False, "smoothing": {"floor_fraction": floor - 0.01}})
    assert below.metrics["compliant"] == 0.0
    bess = r.metrics["min_bess_mw_to_comply"]
    assert bess > 0
    sized = {**params, "search": False, "bess": {"power_mw": bess, "energy_mwh": bess, "response_ms": 0}}
    assert _run(sized).metrics["compliant"] == 1.0
    assert r.details["sizing"]["floor"]["swing_mw"][0] == pytest.approx(r.metrics["swing_mw"])


def test_the_stream_does_not_depend_on_the_chunk_size(monkeypatch):
    params = {
        "duration_seconds": 400.0,
        "jobs": [{"checkpoint_every_seconds": 100.0, "checkpoint_seconds": 10.0}],
        "events": [
            {"kind": "job_crash", "at_seconds": 150.0, "restart_after_seconds": 40.0, "ramp_seconds": 20.0},
            {"kind": "grid_dip", "at_seconds": 300.0, "trip_fraction": 0.3, "return_seconds": 5.0},
        ],
        "smoothing": {"floor_fraction": 0.5, "ramp_up_w_per_s": 2000.0, "ramp_down_w_per_s": 500.0},
        "rack_storage_j_per_gpu": 200.0,
        "bess": {"power_mw": 0.05, "energy_mwh": 0.0005, "response_ms": 200},
        "generation": {"rating_mw": 0.2, "ramp_mw_per_s": 0.01, "grid_import_mw": 0.2},
    }
    whole = _run(params)
    monkeypatch.setattr(pd_plan, "CHUNK_SECONDS", 7.3)
    pieces = _run(params)
    for name, value in whole.metrics.items():
        assert pieces.metrics[name] == pytest.approx(value, rel=1e-7, abs=1e-12), name


def test_rate_limit_and_sliding_extremes_match_brute_force():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 500)).cumsum(axis=-1)
    up, down = 0.3, 0.2
    y, _, _ = stream.rate_limit(x, None, up, down)
    brute = np.empty_like(x)
    for v in range(3):
        last_down = last = x[v, 0]
        for i in range(500):
            last_down = max(x[v, i], last_down - down)
            last = min(last_down, last + up)
            brute[v, i] = last
    assert np.allclose(y, brute)
    d = np.diff(y, axis=-1)
    assert d.max() <= up + 1e-9 and d.min() >= -down - 1e-9
    hi, lo = stream.sliding_extremes(x, 17)
    for i in range(0, 500 - 16, 37):
        assert hi[0, i] == x[0, i : i + 17].max() and lo[0, i] == x[0, i : i + 17].min()


def test_the_window_and_the_welch_sums_are_scipys():
    # scipy.signal: the periodic flat-top window, and Welch's method on the whole buffer (half-overlapping
    # segments, each segment's mean removed, "spectrum" scaling: |X|^2 / (sum w)^2, doubled off DC and
    # Nyquist) from the streamed frame sums
    for n in (8, 255, 256, 4096):
        np.testing.assert_allclose(stream.flattop(n), signal.windows.flattop(n, sym=False), atol=1e-14)
    rng = np.random.default_rng(2)
    n = 64
    buf = rng.normal(size=(3, 1000)).cumsum(axis=-1) + np.sin(2 * np.pi * 0.1 * np.arange(1000))
    sums, used = stream._welch_frames(buf, n)
    frames = 1 + (buf.shape[-1] - n) // (n // 2)
    assert used == frames * (n // 2)
    _, expected = signal.welch(
        buf, window=signal.windows.flattop(n, sym=False), nperseg=n, noverlap=n // 2, scaling="spectrum"
    )
    ours = sums / frames / stream.flattop(n).sum() ** 2
    ours[..., 1:-1] *= 2.0
    np.testing.assert_allclose(ours, expected, rtol=1e-9)


def _balance(m):
    return (
        m["energy_natural_mwh"]
        + m["smoothing_energy_mwh"]
        - m["smoothing_throttled_mwh"]
        - m["rack_storage_held_mwh"]
        - m["tripped_mwh"]
        - m["generation_mwh"]
        + m["bess_loss_mwh"]
        + m["bess_soc_gain_mwh"]
    )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    floor=st.floats(0.0, 0.95),
    bess_mw=st.floats(0.0, 0.3),
    hours=st.floats(0.0005, 0.05),
    storage_j=st.floats(0.0, 400.0),
    down=st.one_of(st.none(), st.floats(100.0, 5000.0)),
)
def test_energy_is_conserved(floor, bess_mw, hours, storage_j, down):
    r = _run(
        {
            "duration_seconds": 90.0,
            "jobs": [{"checkpoint_every_seconds": 40.0, "checkpoint_seconds": 5.0}],
            "events": [{"kind": "job_crash", "at_seconds": 50.0, "restart_after_seconds": 20.0}],
            "smoothing": {"floor_fraction": floor, "ramp_down_w_per_s": down},
            "rack_storage_j_per_gpu": storage_j,
            "bess": {"power_mw": bess_mw, "energy_mwh": bess_mw * hours, "round_trip_efficiency": 0.8},
            "generation": {"rating_mw": 0.1, "grid_import_mw": 0.25},
        }
    )
    m = r.metrics
    assert m["energy_grid_mwh"] == pytest.approx(_balance(m), rel=1e-9, abs=1e-12)
    # the chart series carry the same energy: bucket means x bucket length
    step_h = 0.1 / 3600.0
    counts = np.diff(np.append(np.round(r.series["t_hours"] / step_h), 900))
    assert float((r.series["grid_mw"] * counts).sum() * step_h) == pytest.approx(
        m["energy_grid_mwh"], rel=1e-9
    )
    assert m["bess_loss_mwh"] >= -1e-12


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f1=st.floats(0.0, 1.0), f2=st.floats(0.0, 1.0), c=st.floats(0.05, 0.9), cpf=st.floats(0.0, 0.9))
def test_a_higher_floor_never_increases_the_swing(f1, f2, c, cpf):
    lo, hi = sorted((f1, f2))
    job = {
        "comm_fraction": c,
        "comm_power_fraction": cpf,
        "checkpoint_every_seconds": 30.0,
        "checkpoint_seconds": 4.0,
    }
    plan = prepare(campus(), "power_dynamics", {"events": [], "duration_seconds": 60.0, "jobs": [job]}).plan
    r = pd.simulate(plan, pd._variants(plan, floors=[lo, hi, 1.0]))
    assert r.swing_mw[1] <= r.swing_mw[0] + 1e-12
    # A floor of the whole TDP holds the GPUs flat while the job runs: no swing and nothing in the band.
    assert r.swing_mw[2] == pytest.approx(0.0, abs=1e-9)
    assert r.band_amplitude_mw[2] == pytest.approx(0.0, abs=1e-9)


def test_a_higher_floor_can_raise_the_in_band_amplitude_while_it_lowers_the_swing():
    """The in-band amplitude is not monotone in the floor: lifting the communication troughs (here from 0 to
    10 % of TDP, the checkpoints' idle draw left where it is) lowers the peak-to-trough swing but changes the
    waveform's mix of harmonics, and the largest one inside 0.1-3 Hz can grow. The floor search takes
    compliance as monotone only inside the bracket it refines (docs/scenarios.md)."""
    job = {
        "comm_fraction": 0.1,
        "comm_power_fraction": 0.0,
        "checkpoint_every_seconds": 30.0,
        "checkpoint_seconds": 4.0,
    }
    plan = prepare(campus(), "power_dynamics", {"events": [], "duration_seconds": 60.0, "jobs": [job]}).plan
    r = pd.simulate(plan, pd._variants(plan, floors=[0.0, 0.1]))
    assert r.swing_mw[1] < r.swing_mw[0]
    assert r.band_amplitude_mw[1] > r.band_amplitude_mw[0]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(b1=st.floats(0.0, 0.5), b2=st.floats(0.0, 0.5), crash=st.floats(10.0, 50.0))
def test_a_bigger_battery_never_increases_the_max_ramp(b1, b2, crash):
    lo, hi = sorted((b1, b2))
    params = {
        "duration_seconds": 60.0,
        "events": [{"kind": "job_crash", "at_seconds": crash}],
        "bess": {"power_mw": 0.1, "energy_mwh": 0.1, "response_ms": 0},
    }
    plan = prepare(campus(), "power_dynamics", params).plan
    r = pd.simulate(plan, pd._variants(plan, bess_mw=[lo, hi]))
    assert r.max_ramp_mw_per_s[1] <= r.max_ramp_mw_per_s[0] + 1e-9


def _steady_mw(idle: float = 0.12) -> float:
    """The builder campus with every GPU at TDP: GPUs plus the servers' fixed power, with the overhead."""
    plan = prepare(campus(), "power_dynamics", {"events": [], "search": False}).plan
    return (GPUS * TDP_W / 1000.0 + float(plan.const_kw_by_building.sum())) * FACTOR / 1000.0


def test_rack_storage_for_two_iterations_holds_the_draw_at_the_iteration_mean():
    # window = 2 E / (TDP (1 - c)) = 4 s = two iterations when E = 4 s x 490 W / 2 = 980 J per GPU
    job = {"iteration_seconds": 2.0, "comm_fraction": 0.5, "comm_power_fraction": 0.3}
    r = _run({"jobs": [job], "rack_storage_j_per_gpu": 980.0})
    assert r.metrics["swing_mw"] == pytest.approx(0.0, abs=1e-9)
    mean_mw = _steady_mw() - GPUS * TDP_W * (1 - 0.3) * 0.5 * FACTOR / 1e6
    assert r.metrics["peak_grid_mw"] == pytest.approx(mean_mw, rel=1e-9)


def test_a_voltage_dip_trips_its_share_and_brings_it_back():
    r = _run(
        {
            "jobs": [{"comm_fraction": 0.0}],
            "events": [
                {
                    "kind": "grid_dip",
                    "at_seconds": 30.0,
                    "trip_fraction": 0.5,
                    "return_seconds": 10.0,
                    "return_ramp_seconds": 0.0,
                }
            ],
        }
    )
    load = _steady_mw()
    assert r.metrics["min_grid_mw"] == pytest.approx(0.5 * load, rel=1e-9)
    assert r.metrics["max_ramp_mw_per_s"] == pytest.approx(0.5 * load, rel=1e-9)
    assert r.metrics["tripped_mwh"] == pytest.approx(0.5 * load * 10.0 / 3600.0, rel=1e-9)


def test_generation_carries_the_load_above_the_grid_import():
    load = _steady_mw()
    r = _run(
        {
            "jobs": [{"comm_fraction": 0.0}],
            "generation": {"rating_mw": 0.1, "ramp_mw_per_s": 10.0, "grid_import_mw": 0.2},
        }
    )
    assert load - 0.2 > 0.1  # the generation runs at its rating
    assert r.metrics["mean_grid_mw"] == pytest.approx(load - 0.1, rel=1e-9)
    assert r.metrics["generation_mwh"] == pytest.approx(0.1 * 120.0 / 3600.0, rel=1e-9)


def test_the_battery_charge_series_ends_at_the_charge_the_energy_balance_gives():
    r = _run(
        {
            "duration_seconds": 300.0,
            "events": [{"kind": "job_crash", "at_seconds": 100.0, "restart_after_seconds": 60.0}],
            "bess": {"power_mw": 0.1, "energy_mwh": 0.002, "round_trip_efficiency": 0.81},
        }
    )
    start_mwh = 0.002 / 2  # it starts half full
    assert r.series["bess_soc_mwh"][-1] == pytest.approx(start_mwh + r.metrics["bess_soc_gain_mwh"], abs=1e-9)
    assert r.series["bess_soc_mwh"].min() >= -1e-12 and r.series["bess_soc_mwh"].max() <= 0.002 + 1e-12


def test_a_campus_without_a_typed_pue_takes_the_plant_models_peak_hour_ratio():
    from dataclasses import replace

    from campus.analysis.facility import campus_facility_year

    snap = replace(campus(), design_pue=None)
    year = campus_facility_year(snap)
    peak_ratio = float(year.facility_mw[year.peak_hour] / year.it_mw[year.peak_hour])
    assert 1.0 < peak_ratio < 2.0
    r = _run({"jobs": [{"iteration_seconds": 2.0, "comm_fraction": 0.3, "comm_power_fraction": 0.3}]}, snap)
    hand_mw = GPUS * TDP_W * (1 - 0.3) * peak_ratio / 1e6
    assert r.metrics["swing_mw"] == pytest.approx(hand_mw, rel=1e-9)
