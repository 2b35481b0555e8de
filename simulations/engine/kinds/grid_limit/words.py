"""What grid_limit's metrics mean (``METRICS``) and what a finished run showed, in sentences (``explain``),
read off the run's summary (the means over the replicas) and its parameters."""

from __future__ import annotations

from simulations.engine.kinds.grid_limit.params import GridLimitParams
from simulations.engine.words import NON_NEGATIVE, SHARE, Metric, Summary, num, pct, times

M = Metric


METRICS: dict[str, Metric] = {
    "shortfall_mwh": M(
        "Shortfall energy",
        "MWh",
        "Demand above the grid limit, before any action.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "max_shortfall_kw": M(
        "Largest shortfall", "kW", "The most the demand exceeded the grid limit.", False, bounds=NON_NEGATIVE
    ),
    "shortfall_events": M(
        "Shortfall episodes", "", "Times the demand rose above the grid limit.", False, bounds=NON_NEGATIVE
    ),
    "overload_events": M(
        "Overload episodes",
        "",
        "Times the campus drew more than the limit anyway.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "overload_mwh": M(
        "Overload energy", "MWh", "Energy drawn above the grid limit.", False, bounds=NON_NEGATIVE
    ),
    "throughput_lost_fraction": M(
        "Throughput lost", "fraction", "Share of the run's throughput lost.", False, bounds=SHARE
    ),
    "lost_eflop": M(
        "Lost work", "EFLOP", "Floating-point operations the job did not do.", False, bounds=NON_NEGATIVE
    ),
    "min_cap_fraction": M(
        "Lowest cap", "fraction of TDP", "The deepest GPU power cap applied.", True, bounds=SHARE
    ),
    "paused_pod_hours": M(
        "Paused pod-hours",
        "pod-h",
        "Pods paused times the hours they were paused.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "battery_min_kwh": M(
        "Lowest battery energy",
        "kWh",
        "The least energy left in the UPS batteries.",
        True,
        bounds=NON_NEGATIVE,
    ),
    "battery_min_fraction": M(
        "Lowest battery charge", "fraction", "The least state of charge.", True, bounds=SHARE
    ),
    "generator_mwh": M(
        "Generator energy", "MWh", "Energy the standby generators delivered.", None, bounds=NON_NEGATIVE
    ),
    "generator_starts": M(
        "Generator starts", "", "Times the generators were called.", None, bounds=NON_NEGATIVE
    ),
    "generator_failed_starts": M(
        "Failed generator starts", "", "Calls of the generators that failed.", False, bounds=NON_NEGATIVE
    ),
    "grid_energy_mwh": M("Grid energy", "MWh", "Energy drawn from the grid.", None),
    "cost_usd": M("Energy cost", "USD", "Grid energy at the electricity price plus generator fuel.", False),
    "grid_cost_usd": M("Grid energy cost", "USD", "Grid energy times the electricity price.", False),
    "fuel_cost_usd": M("Fuel cost", "USD", "Fuel of the prime-rated generators.", False, bounds=NON_NEGATIVE),
    "prime_generator_mwh": M(
        "Prime generation", "MWh", "Energy the prime-rated generators delivered.", None, bounds=NON_NEGATIVE
    ),
    "bess_discharge_mwh": M(
        "Battery storage discharged", "MWh", "Energy the campus batteries gave.", None, bounds=NON_NEGATIVE
    ),
    "bess_charge_mwh": M(
        "Battery storage charged", "MWh", "Energy put into the campus batteries.", None, bounds=NON_NEGATIVE
    ),
    "bess_min_fraction": M(
        "Lowest battery storage charge", "fraction", "The least state of charge.", True, bounds=SHARE
    ),
    # series
    "bess_kwh": M("Battery storage energy", "kWh", "Energy left in the campus batteries.", True),
    "limit_kw": M("Grid limit", "kW", "The interconnect capacity in force.", None),
    "demand_kw": M(
        "Demand", "kW", "What the campus would draw uncapped, in its hour of peak facility power.", None
    ),
    "grid_kw": M("Grid draw", "kW", "What the campus drew from the grid.", None),
    "battery_kwh": M("Battery energy", "kWh", "Energy left in the UPS batteries.", True),
    "generator_kw": M("Generator power", "kW", "Power from the standby generators.", None),
    "shortfall_kw": M("Shortfall", "kW", "Demand above the grid limit.", False),
    "cap_fraction": M("GPU cap", "fraction of TDP", "The GPU power cap in force.", True),
    "throughput_fraction": M(
        "Throughput", "fraction of nominal", "Throughput against the uncapped campus.", True
    ),
    "paused_pods": M("Paused pods", "", "Pods paused at the time.", False),
}

_POLICY = {
    "cap": "capping GPU power",
    "pause": "pausing pods",
    "ride_through": "riding through on the UPS batteries, then capping",
    "generators": "starting the standby generators",
}


def _ups_used(s: Summary, p: GridLimitParams) -> bool:
    """Whether the UPS batteries gave energy: their lowest charge fell below the charge they started with."""
    low = s.mean("battery_min_fraction")
    return low is not None and low < p.battery_initial_fraction - 1e-9


def _policy_words(s: Summary, p: GridLimitParams, shortfall_mwh: float) -> str:
    """How the campus answered. Under ride_through the campus battery storage discharges before the UPS
    batteries: when it gave energy it is named, with its share of the shortfall energy."""
    bess = s.mean("bess_discharge_mwh") or 0.0
    if p.policy != "ride_through" or bess <= 0:
        return _POLICY[p.policy]
    share = f"{num(bess)} MWh, {pct(min(bess / shortfall_mwh, 1.0))} of the shortfall"
    if _ups_used(s, p):
        return (
            f"riding through on the campus battery storage ({share}) and then the UPS batteries, then capping"
        )
    return f"riding through on the campus battery storage ({share}), then capping"


def explain(s: Summary, p: GridLimitParams) -> list[str]:
    short = s.mean("shortfall_mwh") or 0.0
    lost = s.mean("throughput_lost_fraction") or 0.0
    out = []
    if short <= 0:
        out.append("The campus's demand stayed within the grid limit throughout; nothing had to give.")
        return out
    peak_kw = s.mean("max_shortfall_kw") or 0.0
    out.append(
        f"The demand exceeded the grid limit by up to {num(peak_kw / 1000.0)} MW "
        f"({num(short)} MWh in all); the campus answered by {_policy_words(s, p, short)}."
    )
    if lost <= 1e-6:
        out.append("No throughput was lost.")
    else:
        out.append(
            f"That cost {pct(lost)} of the run's throughput ({num(s.mean('lost_eflop') or 0.0)} EFLOP)."
        )
    cap = s.mean("min_cap_fraction")
    if cap is not None and cap < 1.0 and p.policy != "pause":
        out.append(f"The deepest GPU cap was {pct(cap)} of TDP.")
    if p.policy == "pause" and (s.mean("paused_pod_hours") or 0.0) > 0:
        out.append(f"Pods were paused for {num(s.mean('paused_pod_hours') or 0.0)} pod-hours.")
    if p.policy in ("ride_through", "generators"):
        low = s.mean("battery_min_fraction")
        if low is not None and _ups_used(s, p):
            out.append(f"The UPS batteries fell to {pct(low)} of their charge.")
        bess_low = s.mean("bess_min_fraction")
        if (s.mean("bess_discharge_mwh") or 0.0) > 0 and bess_low is not None:
            out.append(f"The campus battery storage fell to {pct(bess_low)} of its charge.")
    if p.policy == "generators":
        failed = s.mean("generator_failed_starts") or 0.0
        starts = s.mean("generator_starts") or 0.0
        if starts:
            out.append(
                f"The generators were called {times(starts)} per replica on average"
                + (f"; {num(failed)} of the calls failed." if failed else "; every call succeeded.")
            )
    overload = s.mean("overload_mwh") or 0.0
    if overload > 0:
        out.append(f"The campus still drew {num(overload)} MWh above the limit.")
    return out
