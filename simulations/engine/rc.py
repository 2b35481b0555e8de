"""The lumped RC thermal model in closed form: c dT/dt = 1000 p - g (T - (a + b t)).

Between events the coolant temperature is constant or a linear ramp, so the temperature has an exact
solution and threshold crossings are found in closed form (constant coolant) or by bisection on it (ramp).
"""

from __future__ import annotations

import math

import numpy as np


def rc_temperature(t_s: np.ndarray | float, t0_c: float, p: float, g: float, c: float, a: float, b: float):
    """Exact solution of c dT/dt = 1000 p - g (T - (a + b t)) with T(0) = t0_c (t in s, g W/K, c J/K per kW)."""
    tau = c / g
    t = np.asarray(t_s, dtype=float)
    particular = a + b * t + 1000.0 * p / g - b * tau
    return particular + (t0_c - (a + 1000.0 * p / g - b * tau)) * np.exp(-t / tau)


def crossing(
    t0_c: float, p: float, g: float, c: float, a: float, b: float, target: float, horizon_s: float
) -> float:
    """First time in (0, horizon] at which the RC temperature reaches ``target`` from below; inf if never."""
    tau = c / g
    t_inf = a + 1000.0 * p / g  # the asymptote for a constant coolant
    if t0_c >= target:
        slope = 1000.0 * p - g * (t0_c - a)
        if slope > 0 or (b == 0.0 and t_inf >= target):
            return 0.0
    if b == 0.0:
        if t_inf <= target or t0_c >= target:
            return math.inf
        t = -tau * math.log((target - t_inf) / (t0_c - t_inf))
        return t if t <= horizon_s else math.inf
    # with a rising coolant: scan the closed form for the first upward crossing, then bisect it
    n = 256
    ts = np.linspace(0.0, horizon_s, n + 1)
    below = rc_temperature(ts, t0_c, p, g, c, a, b) < target
    up = np.nonzero(below[:-1] & ~below[1:])[0]
    if up.size == 0:
        return math.inf
    lo, hi = float(ts[up[0]]), float(ts[up[0] + 1])
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if float(rc_temperature(mid, t0_c, p, g, c, a, b)) >= target:
            hi = mid
        else:
            lo = mid
    return hi
