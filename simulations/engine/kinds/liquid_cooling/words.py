"""What liquid_cooling's metrics mean (``METRICS``) and what a finished run showed, in sentences
(``explain``), read off the run's summary (the means over the replicas) and its parameters."""

from __future__ import annotations

from simulations.engine.kinds.liquid_cooling.params import LiquidCoolingParams
from simulations.engine.words import NON_NEGATIVE, SHARE, Metric, Summary, duration_h, num, pct, times

M = Metric


METRICS: dict[str, Metric] = {
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


_NAMED_EVENT = {
    "cdu_loss": ("the loss of CDU {names}", "the loss of CDUs {names}"),
    "pump_loss": ("the loss of a pump on {names}", "the loss of pumps on {names}"),
    "chiller_loss": ("the loss of chiller plant {names}", "the loss of chiller plants {names}"),
    "supply_temp_excursion": (
        "a coolant supply excursion on {names}",
        "coolant supply excursions on {names}",
    ),
}


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _named_events(failed: list) -> str:
    """What the run failed, by name (the run's details: ``CoolingPlan.failed``)."""
    by_kind: dict[str, list[str]] = {}
    for f in failed:
        names = by_kind.setdefault(str(f.get("kind")), [])
        if f.get("name") not in names:
            names.append(str(f.get("name")))
    return ", ".join(
        _NAMED_EVENT[k][len(names) > 1].format(names=_and(names))
        for k, names in by_kind.items()
        if k in _NAMED_EVENT
    )


def explain(s: Summary, p: LiquidCoolingParams) -> list[str]:
    out = []
    kinds = {e.kind for e in p.events}
    failed = s.details.get("failed") if isinstance(s.details, dict) else None
    if p.events:
        what = _named_events(failed) if failed else _cooling_events(p)
        first = min(e.at_minutes for e in p.events)
        out.append(f"The run simulated {what}, starting {num(first)} min in.")
    if failed and s.details.get("default_set"):
        out.append(
            "No single CDU loss goes beyond its redundancy group's N+1 on this campus (the group's spare "
            "carries any one unit), so the default fails the smallest set of one group that it cannot cover."
        )
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
                f"The training job was interrupted {times(interruptions)} per replica on average and lost "
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
