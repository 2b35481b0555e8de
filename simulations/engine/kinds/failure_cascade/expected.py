"""The closed form beside the server-pool walk: the expected ETTR with spares, and the chance they run dry.

Daly's renewal formula (Daly, "A higher order estimate of the optimum checkpoint interval for restart
dumps", FGCS 22(3), 2006, eq. 12; ``job.expected_ettr``) at the job's failure rate λ, the checkpoint
interval τ the walk uses (Daly's optimum by default), the write time δ, and a restart R_eff that adds
what the spares cost:

    R_eff = R + P(N > W) · host selection + P(N > W + H) · preemption + P(N > S) · E[repair]

N, the nodes in repair, is the steady state of an M/G/∞ queue: Poisson of mean r · E[repair], r the
failures per wall hour (λ when failures strike during recovery; λ / (1 + λ R_eff) when the clock stops
outside training, solved by fixed point) and E[repair] = automatic + escalation × manual repair time. W
the warm standbys, H the working pool's idle nodes, S = W + H + the spare pool: past W every failure
pays a host selection, past W + H a preemption, past S the job waits for a repair (charged, as the class
walk does, the mean repair time times the chance: ``reliability.spare_shortfall_probability``).

With spares ample (P(N > W) ≈ 0) R_eff = R and this is Daly's closed form exactly. Bad servers are
counted at their initial share (an upper bound on the rate: repairs make them good over the run, so the
closed form is then a lower bound of the ETTR). When P(N > S) is material the spares run dry and the
job's stalls are correlated (a burst of failures empties the pool for a repair time): the closed form
is flagged (``spares_run_dry_probability``) and the simulated ETTR is the figure to read.
``working_pool_short_probability``, P(N > W + H), says how often the job needs nodes from the spare
pool (a preemption each).
"""

from __future__ import annotations

from functools import lru_cache

from campus.analysis.reliability import spare_shortfall_probability
from simulations.engine.job import expected_ettr
from simulations.engine.kinds.failure_cascade.servers import PoolSetup

# P(N > S) above which the closed form says the spares run dry (words.explain says so)
DRY_FLAG = 0.01


def pool_expected(s: PoolSetup) -> dict[str, float]:
    """{"ettr_expected", "spares_run_dry_probability", "working_pool_short_probability",
    "nodes_in_repair_expected"} for the walk's setup;
    the ETTR is left out for in-memory recovery (no checkpoint roll-back to model) and for Weibull times
    of shape other than 1 (the formula is for memoryless failures)."""
    return dict(_expected(s))


@lru_cache(maxsize=16)
def _expected(s: PoolSetup) -> dict[str, float]:
    lam = s.base_rate_per_hour * s.job_nodes * (1.0 + s.bad_fraction * (s.bad_multiple - 1.0))
    repair_h = s.auto_h + s.p_escalate * s.manual_h
    w, h = s.warm_standbys, s.headroom
    total = w + h + s.spare_pool

    def rate(restart_h: float) -> float:
        return lam if s.during_recovery else lam / (1.0 + lam * restart_h)

    def lengthened(restart_h: float) -> tuple[float, float, float]:
        """R_eff for the failures per hour a restart of ``restart_h`` gives, P(N > W + H) and P(N > S)."""
        r = rate(restart_h)
        dry = spare_shortfall_probability(r, repair_h, total)
        short = spare_shortfall_probability(r, repair_h, w + h)
        extra = spare_shortfall_probability(r, repair_h, w) * s.host_h + short * s.preempt_h + dry * repair_h
        return s.restart_h + extra, short, dry

    # R_eff = g(R_eff) with g falling in R_eff (a longer restart, fewer failures an hour when the clock
    # stops outside training, fewer nodes in repair): one root, between R and g(R); bisection
    lo, hi = s.restart_h, lengthened(s.restart_h)[0]
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if lengthened(mid)[0] > mid:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(hi, 1.0):
            break
    restart = 0.5 * (lo + hi)
    _, short, dry = lengthened(restart)
    mean_n = rate(restart) * repair_h
    out = {
        "spares_run_dry_probability": dry,
        "working_pool_short_probability": short,
        "nodes_in_repair_expected": mean_n,
    }
    if not s.in_memory and s.weibull_shape in (None, 1.0):
        out["ettr_expected"] = expected_ettr(lam, s.interval_h, s.write_h, restart, s.during_recovery)
    return out
