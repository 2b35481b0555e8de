"""What grid_limit's metrics mean (``METRICS``) and what a finished run showed, in sentences (``explain``),
read off the run's summary (the means over the replicas) and its parameters."""

from __future__ import annotations

from simulations.engine.kinds.grid_limit.params import GridLimitParams
from simulations.engine.replay import replay_sentence
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
    # the flexibility plan, per resource
    **{
        f"{r}_mwh": M(label, "MWh", what, None, bounds=NON_NEGATIVE)
        for r, label, what in (
            ("battery_storage", "Battery storage given", "Energy the campus batteries gave for the plan."),
            (
                "prime_generation",
                "Prime units given",
                "Energy the prime-rated on-site units gave for the plan.",
            ),
            ("power_capping", "Shed by capping", "Load shed by capping GPU power."),
            ("job_pause", "Shed by pausing", "Load shed by pausing pods (their work shifted)."),
        )
    },
    **{
        f"{r}_cost_usd": M(label, "USD", what, False, bounds=NON_NEGATIVE)
        for r, label, what in (
            ("battery_storage", "Battery storage cost", "Battery wear for the energy it gave."),
            ("prime_generation", "Prime units' cost", "Fuel of the prime-rated units for the plan."),
            ("power_capping", "Capping cost", "Work lost to capping, at the value of a GPU-hour."),
            ("job_pause", "Pausing cost", "Work lost to pausing, at the value of a GPU-hour."),
        )
    },
    "flex_cost_usd": M(
        "Flexibility cost",
        "USD",
        "What the flexibility resources cost, all together.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "event_asked_mwh": M(
        "Asked to shed", "MWh", "Load the events asked off the campus's baseline.", None, bounds=NON_NEGATIVE
    ),
    "event_shed_mwh": M(
        "Shed", "MWh", "Grid draw below the campus's baseline during the events.", True, bounds=NON_NEGATIVE
    ),
    "event_over_mwh": M(
        "Above the event level",
        "MWh",
        "Grid energy drawn above the level an event allows.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "event_revenue_usd": M(
        "Event payment",
        "USD",
        "What the utility pays for the load shed, up to what it asked.",
        True,
        bounds=NON_NEGATIVE,
    ),
    "event_penalty_usd": M(
        "Event penalty",
        "USD",
        "What the campus owes for drawing above an event's level.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "event_net_usd": M("Event net", "USD", "Payment less penalty less the flexibility cost.", True),
    "events_met": M(
        "Events met", "", "Events whose level the campus held throughout.", True, bounds=NON_NEGATIVE
    ),
    "can_commit": M(
        "Can commit",
        "1 = yes",
        "Whether the campus held every event's level from its start to its end (1) or not (0).",
        True,
        bounds=SHARE,
    ),
    "emissions_tco2": M(
        "CO₂ emitted",
        "t",
        "The grid's energy at the site's carbon intensity plus on-site fuel.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "grid_emissions_tco2": M(
        "CO₂ of grid energy",
        "t",
        "Grid energy at the site's hourly carbon intensity.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "onsite_emissions_tco2": M(
        "CO₂ of on-site fuel", "t", "Prime units' gas and standby sets' diesel.", False, bounds=NON_NEGATIVE
    ),
    "prime_fuel_mmbtu": M(
        "Prime units' fuel",
        "MMBtu",
        "Gas burned, with the heat rate against load.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "prime_unit_hours_max": M(
        "Prime unit hours",
        "h",
        "Hours the busiest prime unit ran (against its permit).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "ups_reserve_kwh": M(
        "UPS reserve",
        "kWh",
        "Energy the UPS batteries keep for a generator start; never dispatched.",
        None,
        bounds=NON_NEGATIVE,
    ),
    # series
    "battery_storage_kw": M("Battery storage", "kW", "Power the campus batteries gave for the plan.", None),
    "prime_generation_kw": M("Prime units", "kW", "Power the prime-rated units gave for the plan.", None),
    "power_capping_kw": M("Capping", "kW", "Load shed by capping GPU power.", None),
    "job_pause_kw": M("Pausing", "kW", "Load shed by pausing pods.", None),
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
    "flexibility": "dispatching its flexibility resources in order",
    "cap": "capping GPU power",
    "pause": "pausing pods",
    "ride_through": "riding through on the UPS batteries, then capping",
    "generators": "running its on-site generation",
}


def _ups_used(s: Summary, p: GridLimitParams) -> bool:
    """Whether the UPS batteries gave energy: their lowest charge fell below the charge they started with."""
    low = s.mean("battery_min_fraction")
    return low is not None and low < p.battery_initial_fraction - 1e-9


def _policy_words(s: Summary, p: GridLimitParams, shortfall_mwh: float) -> str:
    """How the campus answered. Under ride_through the campus battery storage discharges before the UPS
    batteries: when it gave energy it is named, with its share of the shortfall energy. Under generators,
    the prime units and the standby generators are named by which of them gave energy."""
    if p.policy == "generators":
        prime = s.mean("prime_generator_mwh") or 0.0
        standby = max(0.0, (s.mean("generator_mwh") or 0.0) - prime)
        named = [
            w
            for w, e in (("running its prime units", prime), ("starting the standby generators", standby))
            if e > 0
        ]
        return " and ".join(named) if named else "calling its generators (which gave nothing)"
    bess = s.mean("bess_discharge_mwh") or 0.0
    if p.policy != "ride_through" or bess <= 0:
        return _POLICY[p.policy]
    share = f"{num(bess)} MWh, {pct(min(bess / shortfall_mwh, 1.0))} of the shortfall"
    if _ups_used(s, p):
        return (
            f"riding through on the campus battery storage ({share}) and then the UPS batteries, then capping"
        )
    return f"riding through on the campus battery storage ({share}), then capping"


_RESOURCE_WORDS = {
    "battery_storage": "battery storage",
    "prime_generation": "prime units",
    "power_capping": "GPU power capping",
    "job_pause": "pausing pods",
}


def _plan_words(s: Summary, p: GridLimitParams) -> list[str]:
    """The flexibility plan, resource by resource in its order, and whether the campus can commit."""
    parts = []
    for f in p.flexibility:
        mwh = s.mean(f"{f.resource}_mwh") or 0.0
        if mwh > 0:
            cost = s.mean(f"{f.resource}_cost_usd") or 0.0
            parts.append(f"{_RESOURCE_WORDS[f.resource]} {num(mwh)} MWh (${num(cost)})")
    out = [f"The plan, in order: {'; '.join(parts)}." if parts else "No resource was dispatched."]
    if not p.events:
        return out
    commit = s.mean("can_commit")
    over = s.mean("event_over_mwh") or 0.0
    if commit is not None and commit >= 1.0:
        out.append("The campus held every event's level from start to end: it can commit to the event.")
    else:
        out.append(
            f"The campus cannot commit: it drew {num(over)} MWh above the events' level"
            + (" in some replicas" if commit else "")
            + "."
        )
    revenue = s.mean("event_revenue_usd") or 0.0
    penalty = s.mean("event_penalty_usd") or 0.0
    if revenue or penalty:
        out.append(
            f"The utility pays ${num(revenue)}"
            + (f", less a ${num(penalty)} penalty" if penalty else "")
            + f"; net of the resources' cost ${num(s.mean('event_net_usd') or 0.0)}."
        )
    return out


def explain(s: Summary, p: GridLimitParams) -> list[str]:
    short = s.mean("shortfall_mwh") or 0.0
    lost = s.mean("throughput_lost_fraction") or 0.0
    replayed = replay_sentence(p.load_source)
    out = [replayed] if replayed else []
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
    if p.policy == "flexibility":
        out.extend(_plan_words(s, p))
    cap = s.mean("min_cap_fraction")
    if cap is not None and cap < 1.0 and p.policy != "pause":
        out.append(f"The deepest GPU cap was {pct(cap)} of TDP.")
    if p.policy == "pause" and (s.mean("paused_pod_hours") or 0.0) > 0:
        out.append(f"Pods were paused for {num(s.mean('paused_pod_hours') or 0.0)} pod-hours.")
    if p.policy in ("ride_through", "generators"):
        low = s.mean("battery_min_fraction")
        reserve = s.mean("ups_reserve_kwh") or 0.0
        if reserve > 0 and _ups_used(s, p):
            out.append(
                f"The UPS batteries kept their {num(reserve / 1000.0)} MWh reserve for a generator start."
            )
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
    hours = s.mean("prime_unit_hours_max") or 0.0
    if hours > 0:
        out.append(
            f"The prime units ran up to {num(hours)} h ({pct(hours / p.permitted_hours_per_year)} of the "
            f"{num(p.permitted_hours_per_year)} h a year their permit allows) and burned "
            f"{num(s.mean('prime_fuel_mmbtu') or 0.0)} MMBtu of gas."
        )
    co2 = s.mean("emissions_tco2")
    if co2:
        out.append(
            f"The run emitted {num(co2)} t of CO₂ ({num(s.mean('onsite_emissions_tco2') or 0.0)} t of it from "
            "on-site fuel)."
        )
    overload = s.mean("overload_mwh") or 0.0
    if overload > 0:
        out.append(f"The campus still drew {num(overload)} MWh above the limit.")
    return out
