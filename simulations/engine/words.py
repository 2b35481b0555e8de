"""The catalogue entries (``METRICS``) and the sentences (``explain``) of the built-in kinds; each kind's
module takes its own from here (see ``simulations.engine.catalogue``).

Every sentence is read off the run's summary, the means over the replicas, and the run's parameters; none
states more than the figures carry.
"""

from __future__ import annotations

from simulations.engine.catalogue import (
    NON_NEGATIVE,
    SHARE,
    Metric,
    Summary,
    cause_label,
    duration_h,
    num,
    pct,
)
from simulations.engine.params import (
    FailureCascadeParams,
    GridLimitParams,
    HeatWaveParams,
    LiquidCoolingParams,
    PowerCappingParams,
    PowerDynamicsParams,
)

M = Metric


def _times(n: float) -> str:
    return "once" if n == 1 else f"{num(n)} times"


# ---------------------------------------------------------------- power_capping

POWER_CAPPING_METRICS: dict[str, Metric] = {
    "energy_it_mwh": M("IT energy", "MWh", "Energy drawn by the IT equipment over the run.", False),
    "energy_facility_mwh": M("Facility energy", "MWh", "IT energy times the annual PUE.", False),
    "cost_usd": M("Energy cost", "USD", "Facility energy times the electricity price.", False),
    "mean_it_mw": M("Mean IT power", "MW", "IT energy over the run's duration.", None),
    "mean_facility_mw": M("Mean facility power", "MW", "Facility energy over the run's duration.", None),
    "peak_facility_mw": M(
        "Peak facility power",
        "MW",
        "The highest IT draw times the PUE of the campus's hour of peak facility power.",
        False,
    ),
    "mean_throughput_pflops": M(
        "Mean throughput", "PFLOPS", "Training throughput at the chosen precision and MFU, averaged.", True
    ),
    "useful_eflop": M("Useful work", "EFLOP", "Floating-point operations done for the job.", True),
    "perf_per_w_tflops_per_kw": M(
        "Throughput per power", "TFLOPS per kW", "Throughput per kW of facility power.", True
    ),
    "energy_saving_fraction": M(
        "Energy saved", "fraction", "Facility energy saved against the same campus uncapped.", True
    ),
    "throughput_fraction": M(
        "Throughput kept", "fraction", "Throughput as a fraction of the same campus uncapped.", True
    ),
    "perf_per_w_gain": M(
        "Throughput-per-power gain",
        "fraction",
        "Change in throughput per kW against the uncapped campus.",
        True,
    ),
    # series
    "it_kw": M("IT power", "kW", "Power drawn by the IT equipment.", None),
    "facility_kw": M("Facility power", "kW", "IT power times the annual PUE.", None),
    "throughput_pflops": M("Throughput", "PFLOPS", "Training throughput.", True),
    "mean_cap_fraction": M("Mean cap", "fraction of TDP", "The GPUs' power cap, averaged over GPUs.", None),
}


def explain_power_capping(s: Summary, p: PowerCappingParams) -> list[str]:
    kept = s.mean("throughput_fraction")
    saved = s.mean("energy_saving_fraction")
    out = []
    if kept is not None:
        lost = 1.0 - kept
        if lost <= 1e-4:
            out.append("The caps cost no throughput: the GPUs' cap curves keep full speed at these limits.")
        else:
            out.append(
                f"The caps cost {pct(lost)} of the throughput against the same campus uncapped "
                f"(mean {num(s.mean('mean_throughput_pflops') or 0.0)} PFLOPS)."
            )
    if saved is not None:
        energy = s.mean("energy_facility_mwh")
        cost = s.mean("cost_usd")
        out.append(
            f"They saved {pct(saved)} of the facility energy"
            + (f"; the run used {num(energy)} MWh" if energy is not None else "")
            + (f", costing {num(cost)} USD" if cost is not None else "")
            + f" over {duration_h(p.duration_hours)}."
        )
    gain = s.mean("perf_per_w_gain")
    if gain is not None and abs(gain) > 1e-4:
        word = "rose" if gain > 0 else "fell"
        out.append(f"Throughput per kW of facility power {word} by {pct(abs(gain))}.")
    peak = s.mean("peak_facility_mw")
    if peak is not None:
        out.append(f"The facility drew at most {num(peak)} MW.")
    return out


# ---------------------------------------------------------------- grid_limit

GRID_LIMIT_METRICS: dict[str, Metric] = {
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


def explain_grid_limit(s: Summary, p: GridLimitParams) -> list[str]:
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
                f"The generators were called {_times(starts)} per replica on average"
                + (f"; {num(failed)} of the calls failed." if failed else "; every call succeeded.")
            )
    overload = s.mean("overload_mwh") or 0.0
    if overload > 0:
        out.append(f"The campus still drew {num(overload)} MWh above the limit.")
    return out


# ---------------------------------------------------------------- liquid_cooling

LIQUID_COOLING_METRICS: dict[str, Metric] = {
    "max_gpu_temp_c": M("Peak GPU temperature", "°C", "The hottest any GPU got.", False),
    "max_coolant_temp_c": M(
        "Peak coolant temperature", "°C", "The hottest coolant supply any GPU saw.", False
    ),
    "throttled_gpu_hours": M(
        "Throttled GPU-hours", "GPU-h", "GPUs slowed to hold their temperature.", False, bounds=NON_NEGATIVE
    ),
    "shutdown_gpu_hours": M(
        "Shut-down GPU-hours", "GPU-h", "GPUs off after reaching shutdown.", False, bounds=NON_NEGATIVE
    ),
    "job_interruptions": M(
        "Job interruptions", "", "Times a shutdown stopped the training job.", False, bounds=NON_NEGATIVE
    ),
    "job_slowdown_fraction": M(
        "Job slowdown", "fraction", "Pace lost while the job ran.", False, bounds=SHARE
    ),
    "job_throughput_fraction": M(
        "Job goodput",
        "fraction",
        "Training kept over the run: the job's pace, less downtime and work later rolled back.",
        True,
        bounds=SHARE,
    ),
    "lost_work_hours": M(
        "Lost work",
        "h",
        "Training done in the run and rolled back to a checkpoint at interruptions.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "downtime_hours": M(
        "Job downtime",
        "h",
        "The job stopped: from a shutdown until it had restarted.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "slowdown_hours": M(
        "Throttling loss", "h", "Pace lost to throttled GPUs while the job ran.", False, bounds=NON_NEGATIVE
    ),
    "lost_gpu_hours": M(
        "Lost GPU-hours",
        "GPU-h",
        "GPUs x run x (1 - goodput): downtime, work rolled back and throttling; at most GPUs x run.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "redone_gpu_hours_before_window": M(
        "Redone work from before the run",
        "GPU-h",
        "Training done before the run began, rolled back at the first interruption (not in the lost GPU-hours).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "time_to_throttle_s": M(
        "Time to throttle", "s", "From the first event to the first slowed GPU.", True, bounds=NON_NEGATIVE
    ),
    "time_to_shutdown_s": M(
        "Time to shutdown", "s", "From the first event to the first shut-down GPU.", True, bounds=NON_NEGATIVE
    ),
    "min_cooling_fraction": M(
        "Cooling kept",
        "fraction",
        "Lowest cooling conductance of any group hit, against nominal; 1: the group's spare carried it.",
        True,
        bounds=SHARE,
    ),
    # series
    "coolant_temp_c": M("Coolant temperature", "°C", "The hottest coolant supply at the time.", False),
    "gpu_temp_c": M("GPU temperature", "°C", "Temperature of the GPUs of one group or rack.", False),
    "job_pace": M("Job pace", "fraction", "The training job's speed against full speed.", True),
    "throttled_gpus": M("Throttled GPUs", "", "GPUs slowed at the time.", False),
    "shutdown_gpus": M("Shut-down GPUs", "", "GPUs off at the time.", False),
}

_COOLING_EVENT = {
    "cdu_loss": "the loss of a CDU",
    "pump_loss": "the loss of a CDU pump",
    "chiller_loss": "the loss of a chiller plant",
    "supply_temp_excursion": "a coolant supply temperature excursion",
}


_COOLING_EVENTS = {
    "cdu_loss": "the loss of {n} CDUs",
    "pump_loss": "the loss of CDU pumps on {n} units",
    "chiller_loss": "the loss of {n} chiller plants",
    "supply_temp_excursion": "coolant supply temperature excursions on {n} units",
}


def _units_hit(p: LiquidCoolingParams, kind: str) -> int:
    """How many units (or plants) the events of ``kind`` hit: distinct targets, an empty target (the unit
    carrying the most GPUs) counting as one."""
    return len({e.target_id for e in p.events if e.kind == kind})


def _cooling_events(p: LiquidCoolingParams) -> str:
    parts = []
    for kind in dict.fromkeys(e.kind for e in p.events):
        n = _units_hit(p, kind)
        parts.append(_COOLING_EVENT[kind] if n == 1 else _COOLING_EVENTS[kind].format(n=_count_word(n)))
    return ", ".join(parts)


def _count_word(n: int) -> str:
    return {2: "two", 3: "three", 4: "four", 5: "five"}.get(n, f"{n:,}")


def explain_liquid_cooling(s: Summary, p: LiquidCoolingParams) -> list[str]:
    out = []
    kinds = {e.kind for e in p.events}
    if p.events:
        what = _cooling_events(p)
        first = min(e.at_minutes for e in p.events)
        out.append(f"The run simulated {what}, starting {num(first)} min in.")
    kept = s.mean("min_cooling_fraction")
    throttled = s.mean("throttled_gpu_hours") or 0.0
    shut = s.mean("shutdown_gpu_hours") or 0.0
    peak = s.mean("max_gpu_temp_c")
    if kept is not None and kept >= 0.999 and kinds <= {"cdu_loss"}:
        if _units_hit(p, "cdu_loss") > 1:
            out.append(
                "The live CDUs of the lost units' redundancy groups (N+1) had the spare capacity to carry "
                "their heat, so the GPUs kept their full cooling."
            )
        else:
            out.append(
                "The live CDUs of the lost unit's redundancy group (N+1) had the spare capacity to carry its "
                "heat, so the GPUs kept their full cooling."
            )
    elif kept is not None and kept < 0.999:
        out.append(f"The worst-hit GPUs kept {pct(kept)} of their cooling while the event lasted.")
    if throttled <= 0 and shut <= 0:
        out.append(
            "No GPU throttled or shut down"
            + (f"; the hottest GPU reached {num(peak)} °C." if peak is not None else ".")
        )
    else:
        parts = []
        if throttled > 0:
            t = s.mean("time_to_throttle_s")
            parts.append(
                f"GPUs throttled for {num(throttled)} GPU-hours"
                + (f", the first {duration_h(t / 3600.0)} after the event" if t is not None else "")
            )
        if shut > 0:
            t = s.mean("time_to_shutdown_s")
            parts.append(
                f"{num(shut)} GPU-hours were lost to shutdowns"
                + (f", the first {duration_h(t / 3600.0)} after the event" if t is not None else "")
            )
        out.append(
            "; ".join(parts) + (f"; the hottest GPU reached {num(peak)} °C." if peak is not None else ".")
        )
        interruptions = s.mean("job_interruptions") or 0.0
        if interruptions > 0:
            out.append(
                f"The training job was interrupted {_times(interruptions)} per replica on average and lost "
                f"{num(s.mean('lost_gpu_hours') or 0.0)} GPU-hours in the run"
                + (
                    f", and redid {num(redone)} GPU-hours of work done before it."
                    if (redone := s.mean("redone_gpu_hours_before_window") or 0.0) > 0
                    else "."
                )
            )
        else:
            slow = s.mean("job_slowdown_fraction") or 0.0
            out.append(f"The training job kept running, {pct(slow)} slower on average.")
    return out


# ---------------------------------------------------------------- failure_cascade

FAILURE_CASCADE_METRICS: dict[str, Metric] = {
    "ettr": M(
        "Goodput (ETTR)",
        "fraction",
        "Effective training time ratio: useful time over the run.",
        True,
        bounds=SHARE,
    ),
    "ettr_expected_job_classes": M(
        "Expected ETTR",
        "fraction",
        "The closed-form ETTR for the job's failure rate (Young/Daly).",
        True,
        bounds=SHARE,
    ),
    "interruptions": M("Interruptions", "", "Times the job stopped.", False, bounds=NON_NEGATIVE),
    "interruptions_per_day": M(
        "Interruptions per day", "", "Interruptions over the run's days.", False, bounds=NON_NEGATIVE
    ),
    "lost_gpu_hours": M(
        "Lost GPU-hours",
        "GPU-h",
        "Job GPUs times the hours of lost work and downtime.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "mean_lost_hours_per_interruption": M(
        "Lost time per interruption",
        "h",
        "Lost work and downtime per interruption.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "lost_work_hours": M(
        "Lost work",
        "h",
        "Training since the last checkpoint, lost at interruptions.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "downtime_hours": M(
        "Downtime",
        "h",
        "Time the job was down: restarts and recovery, and the waiting for capacity within it.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "waiting_for_capacity_hours": M(
        "Waiting for capacity",
        "h",
        "Time the job waited for enough healthy GPUs (part of the downtime, not on top of it).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "checkpoint_overhead_hours": M(
        "Checkpoint writing", "h", "Time spent writing checkpoints.", False, bounds=NON_NEGATIVE
    ),
    "useful_gpu_hours": M(
        "Useful GPU-hours", "GPU-h", "Job GPUs times the useful hours.", True, bounds=NON_NEGATIVE
    ),
    "useful_eflop": M(
        "Useful work", "EFLOP", "Floating-point operations done for the job.", True, bounds=NON_NEGATIVE
    ),
    "job_gpus": M("Job GPUs", "", "GPUs in the training job.", None, bounds=NON_NEGATIVE),
    "job_nodes": M("Job nodes", "", "Nodes in the training job.", None, bounds=NON_NEGATIVE),
    "spare_nodes": M("Spare nodes", "", "Hot spare nodes held outside the job.", None, bounds=NON_NEGATIVE),
    "job_mtbf_hours_expected": M(
        "Job MTBF", "h", "Expected hours between interruptions of the job.", True, bounds=NON_NEGATIVE
    ),
    "checkpoint_interval_minutes": M(
        "Checkpoint interval", "min", "Time between checkpoints.", None, bounds=NON_NEGATIVE
    ),
    "facility_outages": M(
        "Facility outages", "", "Facility failures that took job racks down.", False, bounds=NON_NEGATIVE
    ),
    # series
    "useful_hours": M("Useful hours", "h", "Useful training time so far.", True),
}


def explain_failure_cascade(s: Summary, p: FailureCascadeParams) -> list[str]:
    out = []
    ettr = s.mean("ettr")
    days = p.duration_days
    if ettr is not None:
        out.append(
            f"Goodput: the job did useful training for {pct(ettr)} of the {num(days)} days "
            "(effective training time ratio)."
        )
    n = s.mean("interruptions")
    causes = s.cause_means()
    if n is not None:
        if n <= 0:
            out.append("No failure interrupted the job.")
        else:
            sentence = f"It was interrupted {_times(n)} per replica on average ({num(n / days)} per day)"
            if causes:
                top = ", ".join(f"{cause_label(c)} ({num(v)})" for c, v in causes[:3])
                sentence += f"; the most frequent causes: {top}"
            out.append(sentence + ".")
    # The time not spent training, in parts that do not overlap: the run's hours are useful training plus
    # lost work plus checkpoint writing plus downtime, and the downtime holds the waiting for capacity, so
    # restarts and recovery are the downtime less the waiting.
    down = s.mean("downtime_hours") or 0.0
    waiting = min(s.mean("waiting_for_capacity_hours") or 0.0, down)
    lost = {
        "lost work since the last checkpoint": s.mean("lost_work_hours") or 0.0,
        "restarts and recovery": max(down - waiting, 0.0),
        "waiting for healthy capacity": waiting,
        "writing checkpoints": s.mean("checkpoint_overhead_hours") or 0.0,
    }
    ranked = sorted(((v, k) for k, v in lost.items() if v > 0), reverse=True)
    if ranked:
        total = sum(v for v, _ in ranked)
        v, k = ranked[0]
        out.append(
            f"Most of the {duration_h(total)} not spent training went to {k} ({duration_h(v)}, {pct(v / total)})"
            + (
                f", then {ranked[1][1]} ({duration_h(ranked[1][0])}, {pct(ranked[1][0] / total)})."
                if len(ranked) > 1
                else "."
            )
        )
    return out


# ---------------------------------------------------------------- power_dynamics

POWER_DYNAMICS_METRICS: dict[str, Metric] = {
    "swing_mw": M(
        "Swing at the grid connection", "MW", "Peak-to-trough of the grid draw within an iteration.", False
    ),
    "max_ramp_mw_per_s": M(
        "Fastest ramp (per second)", "MW/s", "Largest change of the grid draw in 1 s.", False
    ),
    "max_ramp_mw_per_min": M(
        "Fastest ramp (per minute)", "MW/min", "Largest change of the grid draw within a minute.", False
    ),
    "band_amplitude_mw": M(
        "Oscillation in the band",
        "MW",
        "Spectral amplitude of the grid draw in the requirement's band.",
        False,
    ),
    "compliant": M("Meets every requirement", "", "1: the grid draw meets every interconnect rule.", True),
    "violation_count": M("Requirements broken", "", "Interconnect rules the grid draw breaks.", False),
    "smoothing_energy_mwh": M(
        "Energy burned holding the floor",
        "MWh",
        "GPU energy spent above the job's need by the power floor.",
        False,
    ),
    "smoothing_throttled_mwh": M(
        "Energy held back by the ramp limits",
        "MWh",
        "GPU energy the rise limit kept the job from drawing.",
        False,
    ),
    "bess_throughput_mwh": M(
        "Battery throughput", "MWh", "Energy the battery discharged plus charged.", None
    ),
    "bess_loss_mwh": M("Battery losses", "MWh", "The battery's round-trip losses.", False),
    "bess_soc_gain_mwh": M(
        "Battery charge gained", "MWh", "Charge at the end less charge at the start.", None
    ),
    "generation_mwh": M("On-site generation", "MWh", "Energy from on-site generation.", None),
    "tripped_mwh": M(
        "Load tripped by voltage dips", "MWh", "Energy not drawn while tripped load was off.", False
    ),
    "rack_storage_held_mwh": M(
        "Energy shifted by rack storage", "MWh", "Energy the power supplies' storage moved in time.", None
    ),
    "energy_natural_mwh": M("Campus load energy", "MWh", "What the load drew before the mitigations.", None),
    "energy_grid_mwh": M("Grid energy", "MWh", "Energy drawn at the grid connection.", None),
    "peak_grid_mw": M("Peak grid draw", "MW", "The highest draw at the grid connection.", False),
    "min_grid_mw": M("Lowest grid draw", "MW", "The lowest draw at the grid connection.", None),
    "mean_grid_mw": M("Mean grid draw", "MW", "Grid energy over the run's duration.", None),
    "min_floor_to_comply": M(
        "Smallest compliant power floor",
        "fraction",
        "The least GPU power floor (of TDP) meeting every rule.",
        None,
    ),
    "min_bess_mw_to_comply": M(
        "Smallest compliant battery", "MW", "The least battery power meeting every rule.", None
    ),
    # series
    "grid_mw": M("Grid draw", "MW", "Power at the grid connection.", None),
    "grid_min_mw": M("Grid draw, lowest in the interval", "MW", "The envelope's bottom at the grid.", None),
    "grid_max_mw": M("Grid draw, highest in the interval", "MW", "The envelope's top at the grid.", None),
    "load_mw": M("Campus load", "MW", "The campus's draw before the battery and on-site generation.", None),
    "load_min_mw": M("Campus load, lowest in the interval", "MW", "The envelope's bottom of the load.", None),
    "load_max_mw": M("Campus load, highest in the interval", "MW", "The envelope's top of the load.", None),
    "building": M(
        "Building draw", "MW", "One building's draw (mean, lowest and highest in the interval).", None
    ),
    "bess_mw": M("Battery power", "MW", "What the battery delivers (negative: charging).", None),
    "bess_soc_mwh": M("Battery charge", "MWh", "Energy stored in the battery.", None),
    "generation_mw": M("On-site generation", "MW", "What on-site generation delivers.", None),
}


def explain_power_dynamics(s: Summary, p: PowerDynamicsParams) -> list[str]:
    out = []
    swing, ramp_s, ramp_min = s.mean("swing_mw"), s.mean("max_ramp_mw_per_s"), s.mean("max_ramp_mw_per_min")
    if swing is not None:
        text = f"Training swung the grid draw by {num(swing)} MW within an iteration"
        if ramp_s is not None and ramp_min is not None:
            text += f", ramping at most {num(ramp_s)} MW in a second and {num(ramp_min)} MW in a minute"
        out.append(text + ".")
    band = s.mean("band_amplitude_mw")
    if band is not None:
        lo, hi = p.requirements.band_hz
        out.append(f"Its oscillation between {num(lo)} and {num(hi)} Hz was {num(band)} MW.")
    rules = [
        v
        for v in (
            p.requirements.max_ramp_mw_per_s,
            p.requirements.max_ramp_mw_per_min,
            p.requirements.max_swing_mw,
            p.requirements.max_band_mw,
        )
        if v is not None
    ]
    broken = s.mean("violation_count")
    if not rules:
        out.append("No interconnect requirement was set, so nothing was checked against one.")
    elif broken is not None and broken <= 0:
        out.append(f"It meets all {len(rules)} of the interconnect's requirements.")
    elif broken is not None:
        out.append(f"It breaks {num(broken)} of the interconnect's {len(rules)} requirements.")
    if p.search and rules and broken:
        floor, bess = s.mean("min_floor_to_comply"), s.mean("min_bess_mw_to_comply")
        out.append(
            f"A GPU power floor of {pct(floor)} of TDP would meet them."
            if floor is not None
            else "No GPU power floor up to full TDP meets them."
        )
        out.append(
            f"A battery of {num(bess)} MW would meet them."
            if bess is not None
            else "No battery up to twice the campus's peak draw meets them."
        )
    burned = s.mean("smoothing_energy_mwh") or 0.0
    if burned > 0:
        out.append(f"Holding the power floor burned {num(burned)} MWh.")
    cycled = s.mean("bess_throughput_mwh") or 0.0
    if cycled > 0:
        out.append(
            f"The battery cycled {num(cycled)} MWh and lost {num(s.mean('bess_loss_mwh') or 0.0)} MWh."
        )
    return out


# ---------------------------------------------------------------- heat_wave

HEAT_WAVE_METRICS: dict[str, Metric] = {
    "cooling_shortfall_hours": M(
        "Hours short of cooling", "h", "Hours in which the plants could not reject the heat.", False
    ),
    "throughput_lost_fraction": M(
        "Throughput lost", "fraction", "Share of the job's work lost to throttled and shut-down GPUs.", False
    ),
    "peak_facility_mw": M("Peak facility power", "MW", "The highest hourly facility draw.", False),
    "shutdown_hours": M(
        "Hours shut down",
        "h",
        "Hours in which even the GPUs' minimum power cap left heat unrejected: they shut down, no work done.",
        False,
    ),
    "max_pue": M("Highest hourly PUE", "", "Facility power over IT power in the worst hour.", False),
    "water_m3": M("Water", "m³", "Make-up water of the evaporative plant over the wave.", False),
    # series
    "dry_bulb_c": M("Dry-bulb temperature", "°C", "Outdoor air temperature with the wave added.", None),
    "wet_bulb_c": M("Wet-bulb temperature", "°C", "Outdoor wet-bulb temperature with the wave added.", None),
    "facility_mw": M("Facility power", "MW", "IT, conversion losses and cooling.", False),
    "pue": M("PUE", "", "Facility power over IT power, hour by hour.", False),
    "water_l": M("Water", "L", "Make-up water per hour.", False),
    "cooling_margin_mw": M(
        "Cooling margin", "MW", "Heat the plants could still reject (negative: heat they cannot).", True
    ),
    "gpu_power_fraction": M("GPU power", "fraction", "GPU power against full, after throttling.", True),
    "throughput_fraction": M("Job pace", "fraction", "The training job's speed against full speed.", True),
}


def explain_heat_wave(s: Summary, p: HeatWaveParams) -> list[str]:
    out = [
        f"The run warmed {num(p.days)} day{'s' if p.days != 1 else ''} from day {num(p.start_day)} of the "
        f"campus's weather year by {num(p.temperature_rise_k)} K."
    ]
    short = s.mean("cooling_shortfall_hours") or 0.0
    lost = s.mean("throughput_lost_fraction") or 0.0
    if short <= 0:
        out.append("The plants rejected all the heat in every hour; no GPU throttled.")
    else:
        off = s.mean("shutdown_hours")
        if off is None:  # a run from before shut-down hours were counted
            what = "GPUs throttled or shut down"
        elif off >= short - 1e-9:
            what = (
                "the GPUs shut down in every one of them (even their minimum power cap left heat unrejected)"
            )
        elif off > 0:
            what = f"GPUs throttled, and for {num(off)} of those hours shut down"
        else:
            what = "GPUs throttled"
        out.append(
            f"The plants could not reject all the heat for {num(short)} hours, so {what}; the job "
            f"lost {pct(lost)} of its throughput over the wave."
        )
    peak, max_pue, water = s.mean("peak_facility_mw"), s.mean("max_pue"), s.mean("water_m3")
    if peak is not None and max_pue is not None:
        out.append(f"Facility power peaked at {num(peak)} MW; the worst hour's PUE was {num(max_pue)}.")
    if water:
        out.append(f"The plants used {num(water)} m³ of water.")
    return out
