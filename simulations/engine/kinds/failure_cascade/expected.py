"""The closed form beside the server-pool walk: the expected ETTR with bad servers and spares, and the
chance the spares run dry.

Daly's renewal formula (Daly, "A higher order estimate of the optimum checkpoint interval for restart
dumps", FGCS 22(3), 2006, eq. 12; ``job.expected_ettr``) at the job's failure rate λ, the checkpoint
interval τ the walk uses (Daly's optimum by default), the write time δ, and the restart R, integrated
over the run as λ falls while the bad servers are found (a two-class renewal), with what the spares
cost on top.

Bad servers (a share failing at m times the base rate λ₀ until a repair that works makes them good, as
AIReSim models them) make λ fall over the run. The working pool's n = J + W + H nodes circulate (a
failed node goes to repair and back to the standbys, the standbys refill the job), so its B bad nodes
split between the job (b) and the rest in proportion to the time each class spends in the job between
two failures. A failure of a bad node finds its fault with probability q = 1 − (1 − e) p_auto_miss −
e p_manual_miss (e the escalation probability), and a failed node spends d = (W + H) / λ out of the job
(Little's law), so B = b (1 + (1 − q) m λ₀ d), with g = J − b good nodes in the job, and

    dB/ds = −q m λ₀ b(B),   λ(s) = λ₀ (J + (m − 1) b(B(s)))

in failure-clock hours s (wall hours when failures strike during recovery; training hours otherwise,
with 1 + λ R_eff wall hours per clock hour). A bad node fails (m − 1)/(q m) times more than a good one
before it is found. The useful work is Daly's ETTR at λ(s) over the wall time (quasi-static: the rate
changes slowly against a checkpoint segment), integrated with RK4 until the run ends or the work is done:
ETTR = useful / wall. With no bad server it is Daly's closed form exactly.

Spares. N, the nodes in repair, is Poisson of mean r · E[repair] (an M/G/∞ queue; r the failures per wall
hour, λ or λ / (1 + λ R_eff); E[repair] = automatic + escalation × manual repair time). A node taken from
the spare pool stays in the working pool (the walk never hands it back), so preemptions ratchet the
working pool up to the most nodes ever in repair at once: expected preemptions = Σ over the levels
n = W + H … W + H + P − 1 of P(max N > n), with P(max N > n) = 1 − exp(−U_n) and U_n = ∫ r P(N = n) dt
the expected up-crossings of n over the run (arrivals see time averages; Aldous's Poisson clumping
heuristic for the maximum). Each preemption costs a preemption and a host selection, once. Without warm
standbys every failure pays a host selection (R_eff = R + host selection); past every spare (S = W + H +
P) the job waits for a repair: R_eff adds P(N > S) · E[repair].

Left out: host selections when a run of failures drains the standbys while idle nodes wait (at most one
per W failures), the first host selection, the spare pool's bad nodes. When P(N > S) is material the
spares run dry and the job's stalls are correlated (a burst of failures empties the pool for a repair
time): the closed form is flagged (``spares_run_dry_probability``, at the initial mix: the peak rate)
and the simulated ETTR is the figure to read. ``working_pool_short_probability``, P(N > W + H), says how
often the job needs nodes beyond its working pool.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from campus.analysis.reliability import spare_shortfall_probability
from simulations.engine.job import expected_ettr
from simulations.engine.kinds.failure_cascade.servers import PoolSetup

# P(N > S) above which the closed form says the spares run dry (words.explain says so)
DRY_FLAG = 0.01
# RK4 steps over the run (finer when the bad servers are found faster), and the rates at which R_eff is
# solved between the initial and the final one (interpolated linearly between them)
_STEPS = 2000
_RATE_POINTS = 17


def pool_expected(s: PoolSetup) -> dict[str, float]:
    """{"ettr_expected", "spares_run_dry_probability", "working_pool_short_probability",
    "nodes_in_repair_expected", "preemptions_expected", "bad_server_failures_expected"} for the walk's
    setup; the ETTR is left out for in-memory recovery (no checkpoint roll-back to model) and for Weibull
    times of shape other than 1 (the formula is for memoryless failures), and the bad-server failures
    without bad servers."""
    return dict(_expected(s))


def found_probability(s: PoolSetup) -> float:
    """q: the chance a repair finds a bad node's fault (automatic, or manual after an escalation)."""
    return 1.0 - (1.0 - s.p_escalate) * s.p_auto_miss - s.p_escalate * s.p_manual_miss


def bad_in_job(s: PoolSetup, bad: float) -> float:
    """b: the bad nodes among the job's J when ``bad`` of the working pool's J + W + H are, a failed node
    out of the job for d = (W + H) / λ and still bad after it with probability 1 − q: the root in [0, B]
    of (m − 1) b² + (J + (1 − q) m x − (m − 1) B) b − B J = 0, x = W + H."""
    j, m = float(s.job_nodes), s.bad_multiple
    x = (1.0 - found_probability(s)) * m * (s.warm_standbys + s.headroom)
    if bad <= 0:
        return 0.0
    c1 = j + x - (m - 1.0) * bad
    disc = c1 * c1 + 4.0 * (m - 1.0) * bad * j
    # the root's two forms, each free of cancellation on its side of c1 = 0
    return 2.0 * bad * j / (c1 + math.sqrt(disc)) if c1 >= 0 else (math.sqrt(disc) - c1) / (2.0 * (m - 1.0))


def _restart(s: PoolSetup, lam: float) -> tuple[float, float, float]:
    """R_eff at a job rate ``lam`` (failures per clock hour), P(N > W + H) and P(N > S)."""
    repair_h = s.auto_h + s.p_escalate * s.manual_h
    w, h = s.warm_standbys, s.headroom
    total = w + h + s.spare_pool
    base = s.restart_h + (s.host_h if w == 0 else 0.0)

    def wall_rate(restart_h: float) -> float:
        return lam if s.during_recovery else lam / (1.0 + lam * restart_h)

    def lengthened(restart_h: float) -> float:
        return base + spare_shortfall_probability(wall_rate(restart_h), repair_h, total) * repair_h

    # R_eff = g(R_eff) with g falling in R_eff (a longer restart, fewer failures an hour when the clock
    # stops outside training, fewer nodes in repair): one root, between R and g(R); bisection
    lo, hi = base, lengthened(base)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if lengthened(mid) > mid:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(hi, 1.0):
            break
    restart = 0.5 * (lo + hi)
    r = wall_rate(restart)
    short = spare_shortfall_probability(r, repair_h, w + h)
    dry = spare_shortfall_probability(r, repair_h, total)
    return restart, short, dry


@lru_cache(maxsize=16)
def _expected(s: PoolSetup) -> dict[str, float]:
    n_all = s.job_nodes + s.warm_standbys + s.headroom + s.spare_pool
    n_work = s.job_nodes + s.warm_standbys + s.headroom
    # the walk draws round(f n) bad nodes among all n at random: the working pool's expected share of them
    bad0 = round(s.bad_fraction * n_all) * n_work / n_all if n_all else 0.0
    lam_start = s.base_rate_per_hour * (s.job_nodes + (s.bad_multiple - 1.0) * bad_in_job(s, bad0))
    restart, short, dry = _restart(s, lam_start)
    repair_h = s.auto_h + s.p_escalate * s.manual_h
    wall_rate = lam_start if s.during_recovery else lam_start / (1.0 + lam_start * restart)
    out = {
        "spares_run_dry_probability": dry,
        "working_pool_short_probability": short,
        "nodes_in_repair_expected": wall_rate * repair_h,
    }
    run = _run(s, bad0)
    out["preemptions_expected"] = run["preemptions"]
    if bad0 > 0 and s.bad_multiple > 1.0:
        out["bad_server_failures_expected"] = run["bad_failures"]
    if not s.in_memory and s.weibull_shape in (None, 1.0):
        out["ettr_expected"] = run["ettr"]
    return out


def _run(s: PoolSetup, bad0: float) -> dict[str, float]:
    """The ETTR, the bad nodes' failures and the preemptions over the run as the bad servers are found
    (the module's docstring)."""
    lam0, j, m = s.base_rate_per_hour, s.job_nodes, s.bad_multiple
    q = found_probability(s)
    repair_h = s.auto_h + s.p_escalate * s.manual_h
    lam_hi = lam0 * (j + (m - 1.0) * bad_in_job(s, bad0))
    lam_lo = lam0 * j
    restarts = [
        _restart(s, lam_lo + (lam_hi - lam_lo) * i / (_RATE_POINTS - 1))[0] for i in range(_RATE_POINTS)
    ]

    def restart_at(lam: float) -> float:
        if lam_hi <= lam_lo:
            return restarts[0]
        x = (lam - lam_lo) / (lam_hi - lam_lo) * (_RATE_POINTS - 1)
        i = min(max(int(x), 0), _RATE_POINTS - 2)
        return restarts[i] + (restarts[i + 1] - restarts[i]) * min(max(x - i, 0.0), 1.0)

    def rates(bad: float) -> tuple[float, float, float, float, float]:
        """Per clock hour at ``bad`` bad nodes in the working pool: dB/ds, wall hours, useful hours,
        bad-node failures; and the failures per wall hour."""
        b = bad_in_job(s, bad)
        lam = lam0 * (j + (m - 1.0) * b)
        r = restart_at(lam)
        wall = 1.0 if s.during_recovery else 1.0 + lam * r
        useful = expected_ettr(lam, s.interval_h, s.write_h, r, s.during_recovery) * wall
        return -q * m * lam0 * b, wall, useful, m * lam0 * b, lam / wall

    # the levels of nodes in repair past the working pool's spares; each the spare pool may fill once
    first = s.warm_standbys + s.headroom
    mean_hi = lam_hi * repair_h
    top = min(first + s.spare_pool, int(mean_hi + 12.0 * math.sqrt(mean_hi) + 20.0))
    levels = np.arange(first, max(top, first), dtype=float)
    log_fact = np.array([math.lgamma(n + 1.0) for n in levels.tolist()])
    crossings = np.zeros_like(levels)

    def cross(r_wall: float, dt_wall: float) -> None:
        """Up-crossings of each level over ``dt_wall`` wall hours at r_wall failures per wall hour."""
        mu = r_wall * repair_h
        if levels.size and mu > 0 and dt_wall > 0:
            crossings[:] += r_wall * dt_wall * np.exp(levels * math.log(mu) - mu - log_fact)

    start = rates(bad0)
    e_start = start[2] / start[1]
    horizon = s.duration_h if s.work_h is None or e_start <= 0 else min(s.duration_h, s.work_h / e_start)
    k = q * m * lam0  # a bad node in the job is found at this rate, per clock hour
    h = horizon / _STEPS
    if k > 0 and bad0 > 0:
        # B falls at k b/B per clock hour: fastest at the start, slowest at the end (b/B falls with B,
        # to J / (J + (1 - q) m (W + H))); steps of at most 0.05 of the slowest and 0.5 of the fastest
        slowest = k * j / (j + (1.0 - q) * m * (s.warm_standbys + s.headroom))
        fastest = k * bad_in_job(s, bad0) / bad0
        h = min(h, 0.05 / slowest, 0.5 / fastest)
    target = s.work_h if s.work_h is not None else math.inf
    bad, t, u, nb = bad0, 0.0, 0.0, 0.0
    while True:
        if k <= 0 or bad_in_job(s, bad) * (m - 1.0) <= 1e-10 * j:
            # every bad server found, or none ever will be: a constant rate to the end
            _, wall, useful, fb, r_wall = rates(bad)
            e = useful / wall
            t_end = s.duration_h
            if target < math.inf and e > 0:
                t_end = min(t_end, t + (target - u) / e)
            cross(r_wall, t_end - t)
            u, nb, t = u + e * (t_end - t), nb + fb / wall * (t_end - t), t_end
            break
        k1 = rates(bad)
        k2 = rates(bad + 0.5 * h * k1[0])
        k3 = rates(bad + 0.5 * h * k2[0])
        k4 = rates(bad + h * k3[0])
        step = [h / 6.0 * (a + 2.0 * b + 2.0 * c + d) for a, b, c, d in zip(k1, k2, k3, k4, strict=True)]
        frac = 1.0
        if t + step[1] >= s.duration_h:
            frac = (s.duration_h - t) / step[1]
        if u + step[2] >= target and step[2] > 0:
            frac = min(frac, (target - u) / step[2])
        cross(k1[4], frac * step[1])
        bad, t, u, nb = bad + frac * step[0], t + frac * step[1], u + frac * step[2], nb + frac * step[3]
        if frac < 1.0:
            break
    # the working pool grows by a spare-pool node the first time the nodes in repair pass each level
    preemptions = float(np.sum(-np.expm1(-crossings)))
    once = preemptions * (s.preempt_h + s.host_h)
    if s.work_h is None:
        # the one-off downtime comes out of the run's useful time at the end rate
        u = max(u - once * (u / t if t > 0 else 1.0), 0.0)
    else:
        t += once
    return {"ettr": u / t if t > 0 else 1.0, "bad_failures": nb, "preemptions": preemptions}
