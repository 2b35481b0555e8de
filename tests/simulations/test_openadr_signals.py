"""What an OpenADR event asks, as grid_limit's events (pure: the event as openleadr parses it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from simulations.engine.params import validate_params
from simulations.openadr.signals import UnsupportedEvent, decide, event_params

NOW = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)


def _event(name, kind, payloads, lead_min=60, minutes=60):
    start = NOW + timedelta(minutes=lead_min)
    return {
        "event_descriptor": {"event_id": "e1", "modification_number": 2, "market_context": "oadr://x"},
        "active_period": {"dtstart": start, "duration": timedelta(minutes=minutes * len(payloads))},
        "event_signals": [
            {
                "signal_name": name,
                "signal_type": kind,
                "intervals": [
                    {
                        "dtstart": start + timedelta(minutes=minutes * i),
                        "duration": timedelta(minutes=minutes),
                        "signal_payload": p,
                    }
                    for i, p in enumerate(payloads)
                ],
            }
        ],
    }


@pytest.mark.parametrize(
    ("name", "kind", "payload", "unit", "form"),
    [
        ("LOAD_DISPATCH", "delta", 20.0, "MW", {"shed_mw": 20.0}),
        ("LOAD_DISPATCH", "delta", 500.0, "kW", {"shed_mw": 0.5}),
        ("LOAD_DISPATCH", "setpoint", 68.0, "MW", {"target_mw": 68.0}),
        ("LOAD_DISPATCH", "multiplier", 0.75, "MW", {"share_of_load": 0.25}),
        ("SIMPLE", "level", 2, "MW", {"share_of_load": 0.25}),
    ],
)
def test_each_signal_becomes_a_grid_limit_event(name, kind, payload, unit, form):
    params, record = event_params(_event(name, kind, [payload]), NOW, unit)
    (ev,) = params["events"]
    assert {k: ev[k] for k in form} == pytest.approx(form)
    assert ev["start_hours"] == pytest.approx(1.0) and ev["duration_hours"] == pytest.approx(1.0)
    assert ev["notice_minutes"] == pytest.approx(60.0)
    assert params["duration_hours"] == pytest.approx(3.0)  # the call, the event, an hour after
    assert record["modification_number"] == 2 and record["notice_minutes"] == pytest.approx(60.0)
    validate_params("grid_limit", params)  # the engine takes them as they are


def test_intervals_are_events_in_turn_and_a_normal_level_asks_nothing():
    params, _ = event_params(_event("SIMPLE", "level", [1, 0, 3]), NOW)
    assert [e["share_of_load"] for e in params["events"]] == [0.10, 0.50]
    assert [e["start_hours"] for e in params["events"]] == pytest.approx([1.0, 3.0])
    assert decide({}, has_events=False)[0] == "optIn"


def test_an_event_without_a_signal_the_twin_reads_is_refused():
    with pytest.raises(UnsupportedEvent):
        event_params(_event("ELECTRICITY_PRICE", "price", [0.3]), NOW)


def test_the_decision_follows_whether_the_campus_held_the_level():
    assert decide({"can_commit": 1.0}, True)[0] == "optIn"
    opt, reason = decide({"can_commit": 0.0, "event_over_mwh": 3.0}, True)
    assert opt == "optOut" and "3.00 MWh above the level" in reason
