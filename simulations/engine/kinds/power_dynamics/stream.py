"""The load of power_dynamics and one streamed pass over it: the jobs' power signals, grid dips, the
GPUs' ramp limits, rack storage, the battery and on-site generation, and the figures the requirements are
checked on (ramps, swings, the oscillation spectrum), chunk by chunk."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from simulations.engine.kinds.power_dynamics.plan import DynamicsPlan, JobTimeline
from simulations.engine.replay import held_kw
from simulations.engine.results import Progress

# Flat-top window (the coefficients of scipy.signal.windows.flattop / ISO 18431-1): amplitudes are read
# within 0.1 dB wherever the frequency falls between bins. ``flattop(n)`` equals
# ``scipy.signal.windows.flattop(n, sym=False)`` to 1e-15 and the streamed Welch sums equal
# ``scipy.signal.welch`` on the whole buffer (tests/engine/test_power_dynamics.py); importing scipy.signal would
# add seconds to the start of every process that loads the registry.
FLATTOP = (0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368)
# The battery pulls its charge back towards half full, re-set every RECHARGE_EVERY_S, at the gap over
# RECHARGE_H hours and at most a tenth of its power.
RECHARGE_EVERY_S = 60.0
RECHARGE_H = 0.25
_EPS = 1e-9


# ---------------------------------------------------------------- the load


def job_signal(job: JobTimeline, t_s: np.ndarray, idle: float) -> tuple[np.ndarray, np.ndarray]:
    """(GPU power as a fraction of TDP, running flag) of one job at the times ``t_s``."""
    f = np.full(t_s.shape, idle)
    up = np.zeros(t_s.shape, dtype=bool)
    t0, t1 = float(t_s[0]), float(t_s[-1])
    period = job.iteration_s
    compute_s = (1.0 - job.comm_fraction) * period
    for start, end, ramp in job.runs:
        if end <= t0 or start > t1:
            continue
        mask = (t_s >= start - _EPS) & (t_s < end - _EPS)
        tau = t_s[mask] - start
        phase = np.mod(tau + job.phase_offset_s, period)
        val = np.where(phase < compute_s - _EPS, 1.0, job.comm_power_fraction)
        if job.checkpoint_every_s is not None and job.checkpoint_s > 0:
            every = job.checkpoint_every_s
            in_ck = np.mod(tau, every) >= every - job.checkpoint_s - _EPS
            in_ck &= tau >= every - job.checkpoint_s - _EPS
            val = np.where(in_ck, idle, val)
        if ramp > 0:
            val = idle + (val - idle) * np.clip(tau / ramp, 0.0, 1.0)
        f[mask] = val
        up |= mask
    for start, end in job.checkpoints:
        if end <= t0 or start > t1:
            continue
        mask = (t_s >= start - _EPS) & (t_s < end - _EPS) & up
        f[mask] = idle
    return f, up


def dip_factor(dips: list[tuple[float, float, float, float]], t_s: np.ndarray) -> np.ndarray:
    """Share of the load on the grid: 1 less what the voltage dips tripped off and not yet brought back."""
    out = np.ones(t_s.shape)
    for at, trip, back_s, ramp_s in dips:
        since = t_s - at
        off = np.where(since < -_EPS, 0.0, trip)
        if ramp_s > 0:
            back = np.clip((since - back_s) / ramp_s, 0.0, 1.0)
        else:
            back = (since >= back_s - _EPS).astype(float)
        out *= 1.0 - off * (1.0 - back)
    return out


def rate_limit(
    x: np.ndarray, last: np.ndarray | None, up: float | None, down: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Limit the change per step of ``x`` (last axis) to ``up`` rising and ``down`` falling, starting from
    ``last`` (None: from x's first value). The fall limit is met by staying higher (y >= x), then the rise
    limit by staying lower; the result meets both (a cumulative max, then a cumulative min, both exact).
    Returns (y, y's last value, the fall-limited signal's last value) for the next chunk."""
    if last is None:
        last = np.stack([x[..., 0], x[..., 0]], axis=0)
    k = np.arange(1, x.shape[-1] + 1, dtype=float)
    y = x
    last_down, last_up = last[0], last[1]
    if down is not None:
        z = np.concatenate([last_down[..., None], y + down * k], axis=-1)
        y = np.maximum.accumulate(z, axis=-1)[..., 1:] - down * k
    new_down = y[..., -1].copy()
    if up is not None:
        z = np.concatenate([last_up[..., None], y - up * k], axis=-1)
        y = np.minimum.accumulate(z, axis=-1)[..., 1:] + up * k
    return y, y[..., -1].copy(), new_down


def trailing_mean(x: np.ndarray, history: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the last ``w`` samples at each sample of ``x`` (last axis), continuing ``history`` (the w - 1
    samples before x). Returns (the means, the history for the next chunk)."""
    if w <= 1:
        return x, history
    ext = np.concatenate([history, x], axis=-1)
    cs = np.cumsum(ext, axis=-1)
    cs = np.concatenate([np.zeros(cs.shape[:-1] + (1,)), cs], axis=-1)
    mean = (cs[..., w:] - cs[..., :-w]) / w
    return mean, ext[..., -(w - 1) :].copy()


def sliding_extremes(a: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Max and min of every window of ``w`` consecutive samples along the last axis (van Herk / Gil-Werman:
    prefix and suffix extremes within blocks of w, O(n))."""
    n = a.shape[-1]
    if n < w:
        return a.max(axis=-1, keepdims=True), a.min(axis=-1, keepdims=True)
    nb = math.ceil(n / w)
    pad = nb * w - n
    out = []
    for op, fill in ((np.maximum, -np.inf), (np.minimum, np.inf)):
        padded = np.concatenate([a, np.full(a.shape[:-1] + (pad,), fill)], axis=-1)
        blocks = padded.reshape(a.shape[:-1] + (nb, w))
        g = op.accumulate(blocks, axis=-1).reshape(padded.shape)
        h = op.accumulate(blocks[..., ::-1], axis=-1)[..., ::-1].reshape(padded.shape)
        out.append(op(h[..., : n - w + 1], g[..., w - 1 : n]))
    return out[0], out[1]


@lru_cache(maxsize=8)
def flattop(n: int) -> np.ndarray:
    x = 2.0 * np.pi * np.arange(n) / n  # periodic (DFT-even) window
    w = sum(((-1) ** i) * a * np.cos(i * x) for i, a in enumerate(FLATTOP))
    w.flags.writeable = False
    return w


@lru_cache(maxsize=8)
def _flattop_spectrum(n: int) -> np.ndarray:
    out = np.fft.rfft(flattop(n))
    out.flags.writeable = False
    return out


# ---------------------------------------------------------------- one streamed pass


@dataclass
class Variant:
    """Mitigation settings that differ between the variants of one pass."""

    floor_fraction: np.ndarray  # (V,)
    bess_mw: np.ndarray  # (V,)
    bess_mwh: np.ndarray  # (V,)


@dataclass
class PassResult:
    swing_mw: np.ndarray  # any window one iteration long, events (a job crash's step) included
    max_ramp_mw_per_s: np.ndarray
    max_ramp_mw_per_min: np.ndarray
    band_amplitude_mw: np.ndarray
    freq_hz: np.ndarray
    amplitude_mw: np.ndarray  # (V, F)
    energy: dict[str, np.ndarray]  # MWh per variant
    extremes: dict[str, np.ndarray]
    iteration_swing_mw: np.ndarray | None = None  # windows ending before the first event (nan: none did)
    series: dict[str, np.ndarray] = field(default_factory=dict)
    waveform: dict[str, np.ndarray] = field(default_factory=dict)


def _battery(pw: np.ndarray, soc: np.ndarray, kwh: np.ndarray, eta: float, dt_h: float) -> np.ndarray:
    """Charge after the battery powers ``pw`` (kW, > 0 discharging; (V, n), trimmed in place where the charge
    runs out or fills up) starting from ``soc`` (kWh); charging and discharging each at efficiency ``eta``."""
    d_soc = np.where(pw > 0, -pw / eta, -pw * eta) * dt_h
    path = soc[:, None] + np.cumsum(d_soc, axis=-1)
    out = path[:, -1].copy()
    bad = np.any((path < -_EPS) | (path > kwh[:, None] + _EPS), axis=-1)
    for v in np.flatnonzero(bad):  # step by step where a bound is met
        s = soc[v]
        row = pw[v]
        for i in range(row.shape[0]):
            q = row[i]
            if q > 0:
                q = min(q, s * eta / dt_h)
                s -= q / eta * dt_h
            else:
                q = max(q, -(kwh[v] - s) / eta / dt_h)
                s -= q * eta * dt_h
            row[i] = q
        out[v] = s
    return out


def _welch_frames(buf: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Flat-top power sums of the half-overlapping frames of n samples in ``buf`` and the samples used."""
    hop = n // 2
    frames = 1 + (buf.shape[-1] - n) // hop
    view = sliding_window_view(buf, n, axis=-1)[..., : frames * hop : hop, :]
    # the segment's mean removed after the transform: rfft((x - m) w) = rfft(x w) - m rfft(w)
    spec = np.fft.rfft(view * flattop(n), axis=-1) - view.mean(axis=-1, keepdims=True) * _flattop_spectrum(n)
    return (spec.real**2 + spec.imag**2).sum(axis=-2), frames * hop


def simulate(
    plan: DynamicsPlan, variant: Variant, collect: bool = False, progress: Progress | None = None
) -> PassResult:
    """Stream the whole duration once for every variant side by side (a leading axis of V)."""
    p = plan.params
    dt = plan.dt_s
    dt_h = dt / 3600.0
    v_n = variant.floor_fraction.shape[0]
    idle = p.idle_gpu_fraction
    sm = p.smoothing
    gen = p.generation
    bess = p.bess
    factor = plan.facility_factor
    const_kw = float(plan.const_kw_by_building.sum())
    unit_kw_per_w = np.array([u.gpus / 1000.0 for u in plan.units])  # (U,)
    tdp = np.array([u.tdp_w for u in plan.units])
    # every variant with the same floor (a battery search): the GPUs' side is computed once
    same_floor = bool(np.all(variant.floor_fraction == variant.floor_fraction[0]))
    floors = variant.floor_fraction[:1] if same_floor else variant.floor_fraction
    floor_w = floors[:, None] * tdp[None, :]  # (V or 1, U)
    up_step = sm.ramp_up_w_per_s * dt if sm.ramp_up_w_per_s is not None else None
    down_step = sm.ramp_down_w_per_s * dt if sm.ramp_down_w_per_s is not None else None
    limit_last: np.ndarray | None = None
    storage_hist: list[np.ndarray | None] = [None] * len(plan.units)
    gen_on = gen.rating_mw > 0
    gen_step_kw = gen.ramp_mw_per_s * 1000.0 * dt
    gen_last: np.ndarray | None = None
    bess_on = bool(np.any(variant.bess_mw > 0))
    bess_kw = variant.bess_mw * 1000.0
    bess_kwh = variant.bess_mwh * 1000.0
    eta = math.sqrt(bess.round_trip_efficiency)
    soc = bess_kwh / 2.0
    soc0 = soc.copy()
    bess_w = max(1, round(bess.window_seconds / dt))
    bess_hist: np.ndarray | None = None
    recharge_steps = max(1, round(RECHARGE_EVERY_S / dt))
    rec = np.zeros(v_n)
    delay = round(bess.response_ms / p.resolution_ms)
    delay_hist = np.zeros((v_n, delay))
    # metric state
    hist_n = max(plan.lag_s_steps, 2 * plan.lag_min_steps, plan.swing_steps)
    grid_hist = np.zeros((v_n, 0))
    mean_hist: np.ndarray | None = None
    swing = np.zeros(v_n)
    steady = np.full(v_n, np.nan)
    first_event_s = min((ev.at_seconds for ev in p.events), default=math.inf)
    ramp_s = np.zeros(v_n)
    ramp_min = np.zeros(v_n)
    nseg = plan.nperseg
    welch_buf = np.zeros((v_n, 0))
    welch_sum = np.zeros((v_n, nseg // 2 + 1))
    welch_frames = 0
    e = {
        k: np.zeros(v_n)
        for k in (
            "natural",
            "burn",
            "throttle",
            "rack_held",
            "tripped",
            "generation",
            "bess_discharge",
            "bess_charge",
            "grid",
        )
    }
    ext = {k: np.full(v_n, np.nan) for k in ("grid_peak_mw", "grid_min_mw")}
    ext["grid_peak_mw"][:] = -np.inf
    ext["grid_min_mw"][:] = np.inf
    series: dict[str, list[np.ndarray]] = {}
    wave: dict[str, list[np.ndarray]] = {}
    w_start, w_end = plan.waveform

    def keep(name: str, values: np.ndarray) -> None:
        series.setdefault(name, []).append(values)

    # The first chunk holds at least the longest trailing window, so the windows start with the first
    # window's span repeated before t = 0 (the campus in steady state) whatever the chunk length.
    longest = max([u.storage_steps for u in plan.units] + [bess_w if bess_on else 1])
    bucket = plan.bucket_steps
    first = bucket * math.ceil(max(plan.chunk_steps, longest) / bucket)
    chunk_starts = [0, *range(first, plan.steps, plan.chunk_steps)]
    for ci, n0 in enumerate(chunk_starts):
        n1 = chunk_starts[ci + 1] if ci + 1 < len(chunk_starts) else plan.steps
        n = n1 - n0
        t = (n0 + np.arange(n)) * dt
        if plan.replay is not None:
            # a replayed draw at the grid connection: no GPU side to smooth or store
            natural_kw = held_kw(plan.replay, t)
            load_kw = np.broadcast_to(natural_kw, (v_n, n))
            z = None
            burn_w = throttle_w = held_w = np.zeros(v_n)
        else:
            # the jobs' GPU power, W per GPU of each unit
            sig = [job_signal(job, t, idle) for job in plan.jobs]
            x = np.stack([sig[u.job][0] * u.tdp_w for u in plan.units])  # (U, n)
            up = np.stack([sig[u.job][1] for u in plan.units])
            natural_kw = (unit_kw_per_w @ x + const_kw) * factor  # (n,)
            # smoothing: the floor while the job runs, then the ramp limits
            y = np.where(up[None], np.maximum(x[None], floor_w[:, :, None]), x[None])  # (V, U, n)
            if up_step is not None or down_step is not None:
                y, last_up, last_down = rate_limit(y, limit_last, up_step, down_step)
                limit_last = np.stack([last_down, last_up], axis=0)
            diff = y - x[None]
            burn_w = np.clip(diff, 0.0, None).sum(axis=-1) @ unit_kw_per_w  # (V,) kW-steps
            throttle_w = np.clip(-diff, 0.0, None).sum(axis=-1) @ unit_kw_per_w
            # rack storage: the trailing mean over the window it can buffer
            z = np.empty_like(y)
            for ui, u in enumerate(plan.units):
                if u.storage_steps <= 1:
                    z[:, ui] = y[:, ui]
                    continue
                hist = storage_hist[ui]
                if hist is None:
                    # before t = 0 the first window repeats: a periodic load whose period divides it is steady
                    hist = y[:, ui, 1 : u.storage_steps].copy()
                z[:, ui], storage_hist[ui] = trailing_mean(y[:, ui], hist, u.storage_steps)
            held_w = (y - z).sum(axis=-1) @ unit_kw_per_w
            load_kw = (np.einsum("vun,u->vn", z, unit_kw_per_w) + const_kw) * factor  # (V, n)
        # voltage dips
        phi = dip_factor(plan.dips, t) if plan.dips else None
        if phi is not None:
            on_grid = load_kw * phi
            e["tripped"] += (load_kw - on_grid).sum(axis=-1) * dt_h
        else:
            on_grid = load_kw
        # on-site generation following the load
        if gen_on:
            target = np.clip(on_grid - gen.grid_import_mw * 1000.0, 0.0, gen.rating_mw * 1000.0)
            last = None if gen_last is None else np.stack([gen_last[0], gen_last[1]])
            g_kw, g_up, g_down = rate_limit(target, last, gen_step_kw, gen_step_kw)
            g_kw = np.clip(g_kw, 0.0, gen.rating_mw * 1000.0)
            gen_last = np.stack([g_down, g_up])
            e["generation"] += g_kw.sum(axis=-1) * dt_h
            g1 = on_grid - g_kw
        else:
            g_kw = None
            g1 = on_grid
        # the battery: hold the grid to the trailing mean
        if bess_on:
            g1 = np.broadcast_to(g1, (v_n, n))
            if bess_hist is None:
                bess_hist = g1[:, 1:bess_w].copy()
            mean, bess_hist = trailing_mean(g1, bess_hist, bess_w)
            want = g1 - mean
            if delay:
                want = np.concatenate([delay_hist, want], axis=-1)
                delay_hist = want[:, -delay:].copy()
                want = want[:, :n]
            pw = np.empty_like(want)
            soc_at_start = soc.copy()
            # the pull towards half charge is set at each whole RECHARGE_EVERY_S of the run (whatever the chunks)
            cuts = [i - n0 for i in range(n0, n1) if i % recharge_steps == 0]
            bounds = sorted({0, n, *cuts})
            for a, b in zip(bounds[:-1], bounds[1:], strict=False):
                if a in cuts:
                    rec = np.clip((bess_kwh / 2.0 - soc) / RECHARGE_H, -0.1 * bess_kw, 0.1 * bess_kw)
                pw[:, a:b] = np.clip(want[:, a:b] - rec[:, None], -bess_kw[:, None], bess_kw[:, None])
                soc = _battery(pw[:, a:b], soc, bess_kwh, eta, dt_h)
            e["bess_discharge"] += np.clip(pw, 0.0, None).sum(axis=-1) * dt_h
            e["bess_charge"] += np.clip(-pw, 0.0, None).sum(axis=-1) * dt_h
            grid = g1 - pw
        else:
            pw = None
            grid = np.broadcast_to(g1, (v_n, n))
        e["natural"] += natural_kw.sum() * dt_h
        e["burn"] += burn_w * factor * dt_h
        e["throttle"] += throttle_w * factor * dt_h
        e["rack_held"] += held_w * factor * dt_h
        e["grid"] += grid.sum(axis=-1) * dt_h
        grid_mw = grid / 1000.0
        ext["grid_peak_mw"] = np.maximum(ext["grid_peak_mw"], grid_mw.max(axis=-1))
        ext["grid_min_mw"] = np.minimum(ext["grid_min_mw"], grid_mw.min(axis=-1))
        # ramps and swing over the chunk and the samples before it
        full = np.concatenate([grid_hist, grid_mw], axis=-1)
        h = grid_hist.shape[-1]
        lag = plan.lag_s_steps
        if full.shape[-1] > lag:
            d1 = np.abs(full[:, lag:] - full[:, :-lag])[:, max(0, h - lag) :]
            ramp_s = np.maximum(ramp_s, d1.max(axis=-1))
        w = plan.swing_steps
        seg = full[:, max(0, h - w + 1) :]
        hi_w, lo_w = sliding_extremes(seg, min(w, seg.shape[-1]))
        spans = hi_w - lo_w
        swing = np.maximum(swing, spans.max(axis=-1))
        # the iteration swing alone: windows that end before the first event (window j ends at chunk
        # sample j + w' - 1 - (len(seg) - n))
        ends = np.arange(spans.shape[-1]) + min(w, seg.shape[-1]) - 1 - (seg.shape[-1] - n)
        before = (ends >= 0) & (t[np.clip(ends, 0, n - 1)] < first_event_s)
        if before.any():
            steady = np.fmax(steady, spans[:, before].max(axis=-1))
        m = plan.lag_min_steps
        if mean_hist is None:
            mean_hist = np.zeros((v_n, 0))
        if full.shape[-1] >= m:
            cs = np.concatenate([np.zeros((v_n, 1)), np.cumsum(full, axis=-1)], axis=-1)
            means = (cs[:, m:] - cs[:, :-m]) / m  # means[i]: window ending at full[i + m - 1]
            first_new = max(0, h - m + 1)  # windows ending in this chunk
            means_new = means[:, first_new:]
            mfull = np.concatenate([mean_hist, means_new], axis=-1)
            if mfull.shape[-1] > m:
                dm = np.abs(mfull[:, m:] - mfull[:, :-m])[:, max(0, mean_hist.shape[-1] - m) :]
                if dm.size:
                    ramp_min = np.maximum(ramp_min, dm.max(axis=-1))
            mean_hist = mfull[:, -m:].copy()
        grid_hist = full[:, -hist_n:].copy()
        # spectrum
        welch_buf = np.concatenate([welch_buf, grid_mw], axis=-1)
        if welch_buf.shape[-1] >= nseg:
            power, used = _welch_frames(welch_buf, nseg)
            welch_sum += power
            welch_frames += 1 + (welch_buf.shape[-1] - nseg) // (nseg // 2)
            welch_buf = welch_buf[:, used:].copy()
        if collect:
            starts = np.arange(0, n, plan.bucket_steps)
            keep("t_hours", t[starts] / 3600.0)
            for name, arr in (("grid", grid_mw[0]), ("load", natural_kw / 1000.0)):
                keep(f"{name}_mw", np.add.reduceat(arr, starts) / np.diff(np.append(starts, n)))
                keep(f"{name}_min_mw", np.minimum.reduceat(arr, starts))
                keep(f"{name}_max_mw", np.maximum.reduceat(arr, starts))
            counts = np.diff(np.append(starts, n))
            keep(
                "bess_mw", np.add.reduceat(pw[0], starts) / counts / 1000.0 if pw is not None else 0 * counts
            )
            ends = np.append(starts[1:], n) - 1
            if pw is not None:  # the charge at the end of each bucket
                d_soc = np.where(pw[0] > 0, -pw[0] / eta, -pw[0] * eta) * dt_h
                keep("bess_soc_mwh", (soc_at_start[0] + np.cumsum(d_soc))[ends] / 1000.0)
            else:
                keep("bess_soc_mwh", np.zeros(starts.shape))
            keep(
                "generation_mw",
                np.add.reduceat(g_kw[0], starts) / counts / 1000.0 if g_kw is not None else 0.0 * counts,
            )
            # a replayed total is not split over the buildings
            buildings = plan.buildings if z is not None else []
            if z is not None:
                bkw = (plan.weights_kw @ z[0] + plan.const_kw_by_building[:, None]) * factor
                if phi is not None:
                    bkw = bkw * phi[None]
            for bi, b in enumerate(buildings):
                row = bkw[bi] / 1000.0
                keep(f"building.{b}.mw", np.add.reduceat(row, starts) / counts)
                keep(f"building.{b}.min_mw", np.minimum.reduceat(row, starts))
                keep(f"building.{b}.max_mw", np.maximum.reduceat(row, starts))
            lo_i, hi_i = max(w_start, n0), min(w_end, n1)
            if lo_i < hi_i:
                wave.setdefault("t_s", []).append(t[lo_i - n0 : hi_i - n0])
                wave.setdefault("grid_mw", []).append(grid_mw[0, lo_i - n0 : hi_i - n0])
                wave.setdefault("load_mw", []).append(natural_kw[lo_i - n0 : hi_i - n0] / 1000.0)
        if progress is not None:
            progress(n1 / plan.steps)
    # spectrum: the averaged frames (or the one short frame there is)
    if welch_frames == 0:
        nlen = welch_buf.shape[-1]
        if nlen >= 4:
            power, _ = _welch_frames(welch_buf, nlen)
            welch_sum, welch_frames, nseg = power, 1, nlen
        else:
            welch_sum, welch_frames, nseg = np.zeros((v_n, 1)), 1, 1
    win_sum = float(flattop(nseg).sum()) if nseg > 1 else 1.0
    amplitude = 2.0 * np.sqrt(welch_sum / welch_frames) / win_sum
    freq = np.fft.rfftfreq(nseg, dt) if nseg > 1 else np.zeros(1)
    lo, hi = p.requirements.band_hz
    in_band = (freq >= lo - _EPS) & (freq <= hi + _EPS)
    band = amplitude[:, in_band].max(axis=-1) if in_band.any() else np.zeros(v_n)
    energy = {k: v / 1000.0 for k, v in e.items()}
    energy["bess_soc_gain"] = (soc - soc0) / 1000.0
    energy["bess_loss"] = energy["bess_charge"] - energy["bess_discharge"] - energy["bess_soc_gain"]
    return PassResult(
        swing_mw=swing,
        max_ramp_mw_per_s=ramp_s,
        max_ramp_mw_per_min=ramp_min,
        band_amplitude_mw=band,
        freq_hz=freq,
        amplitude_mw=amplitude,
        energy=energy,
        extremes=ext,
        iteration_swing_mw=steady,
        series={k: np.concatenate(v) for k, v in series.items()},
        waveform={k: np.concatenate(v) for k, v in wave.items()},
    )
