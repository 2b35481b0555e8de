"""What an OpenADR 2.0b event asks, as grid_limit parameters (pure Python: the event as openleadr parses it,
a dict of ``event_descriptor``, ``active_period`` and ``event_signals``).

Signals read (OpenADR 2.0b Profile Specification, §8.2 signal types; the first signal of the event the twin
understands is the one it answers):
- ``LOAD_DISPATCH`` ``delta``: MW to shed (``shed_mw``); ``setpoint``: the level to stay under
  (``target_mw``); ``multiplier``: the share of the baseline to keep (``share_of_load`` = 1 - payload).
  Without an itemBase the payload is read in ``dispatch_unit`` (MW by default: an assumption for a campus).
- ``SIMPLE`` ``level``: levels 1, 2, 3 (moderate, high, special; 0 normal) have no MW meaning in the
  specification; the twin reads them as ``SIMPLE_LEVELS`` shares of load (a setting, an assumption).
Each interval is one grid_limit event; the run starts at the call and ends an hour after the last interval.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

# SIMPLE levels as shares of the campus's load (an assumption: the specification leaves them to the program).
SIMPLE_LEVELS = {1: 0.10, 2: 0.25, 3: 0.50}
UNIT_MW = {"MW": 1.0, "kW": 1e-3, "W": 1e-6}
RECOVERY_HOURS = 1.0


class UnsupportedEvent(ValueError):
    """No signal of the event is one the twin reads."""


def _seconds(value: Any) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value or 0.0)


def _form(name: str, kind: str, payload: float, unit: float) -> dict[str, float] | None:
    if name == "LOAD_DISPATCH":
        if kind == "delta":
            return {"shed_mw": max(0.0, payload * unit)}
        if kind == "setpoint":
            return {"target_mw": max(0.0, payload * unit)}
        if kind == "multiplier":
            return {"share_of_load": min(1.0, max(0.0, 1.0 - payload))}
    if name == "SIMPLE" and kind == "level":
        share = SIMPLE_LEVELS.get(round(payload), 0.0)
        return {"share_of_load": share} if share > 0 else None
    return None


def event_params(
    event: dict, received: datetime, dispatch_unit: str = "MW", base: dict | None = None
) -> tuple[dict, dict]:
    """(grid_limit parameters, the record's fields) for ``event`` received at ``received``."""
    unit = UNIT_MW[dispatch_unit]
    active = event.get("active_period") or {}
    start: datetime = active["dtstart"]
    lead_h = max(0.0, (start - received).total_seconds() / 3600.0)
    for signal in event.get("event_signals") or []:
        name = str(signal.get("signal_name", "")).upper()
        kind = str(signal.get("signal_type", ""))
        events, intervals, at = [], [], start
        for iv in signal.get("intervals") or []:
            begins = iv.get("dtstart") or at
            seconds = _seconds(iv.get("duration"))
            at = begins + timedelta(seconds=seconds)
            offset_s = (begins - start).total_seconds()
            intervals.append(
                {"start_s": offset_s, "duration_s": seconds, "payload": iv.get("signal_payload")}
            )
            form = _form(name, kind, float(iv.get("signal_payload") or 0.0), unit)
            if form is None or seconds <= 0:
                continue
            events.append(
                {
                    "start_hours": lead_h + offset_s / 3600.0,
                    "duration_hours": seconds / 3600.0,
                    "notice_minutes": lead_h * 60.0 + offset_s / 60.0,
                    **form,
                }
            )
        if not intervals or (name, kind) not in {
            ("LOAD_DISPATCH", "delta"),
            ("LOAD_DISPATCH", "setpoint"),
            ("LOAD_DISPATCH", "multiplier"),
            ("SIMPLE", "level"),
        }:
            continue
        end_h = max((e["start_hours"] + e["duration_hours"] for e in events), default=lead_h)
        params = {
            **(base or {}),
            "duration_hours": end_h + RECOVERY_HOURS,
            "step_minutes": 1.0,
            "events": events,
        }
        params.setdefault("policy", "flexibility")
        descriptor = event.get("event_descriptor") or {}
        record = {
            "event_id": str(descriptor.get("event_id", "")),
            "modification_number": int(descriptor.get("modification_number") or 0),
            "market_context": str(descriptor.get("market_context") or ""),
            "signal_name": name,
            "signal_type": kind,
            "starts_at": start,
            "duration_s": _seconds(active.get("duration")) or sum(i["duration_s"] for i in intervals),
            "notice_minutes": lead_h * 60.0,
            "intervals": intervals,
        }
        return params, record
    raise UnsupportedEvent("no LOAD_DISPATCH (delta, setpoint, multiplier) or SIMPLE level signal")


def decide(metrics: dict[str, float], has_events: bool) -> tuple[str, str]:
    """Opt in when the campus held every interval's level from start to end; say why either way."""
    if not has_events:
        return "optIn", "the event asks nothing of the campus (normal level)"
    if metrics.get("can_commit", 0.0) >= 1.0:
        return "optIn", (
            f"the campus holds the level throughout: {metrics.get('event_shed_mwh', 0.0):,.2f} MWh shed, "
            f"{metrics.get('throughput_lost_fraction', 0.0):.2%} of the run's throughput lost, "
            f"${metrics.get('flex_cost_usd', 0.0):,.0f} of flexibility cost"
        )
    return "optOut", (
        f"the campus would draw {metrics.get('event_over_mwh', 0.0):,.2f} MWh above the level "
        "(its resources cannot hold it from the start to the end)"
    )
