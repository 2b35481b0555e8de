"""The answer to one OpenADR event: grid_limit run on the campus's inventory of the day, the decision, the
record (``DemandResponseEvent``)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from campus.models import Campus
from campus.state import in_service_snapshot
from simulations.engine.runner import run_replica
from simulations.models import DemandResponseEvent
from simulations.openadr.signals import UnsupportedEvent, decide, event_params


def answer_event(
    campus_id: int,
    vtn_url: str,
    ven_id: str,
    event: dict,
    *,
    received: datetime | None = None,
    dispatch_unit: str = "MW",
    base_params: dict | None = None,
) -> DemandResponseEvent:
    """Evaluate ``event`` for the campus and store the answer (a repeated event and modification number is
    answered again and its record replaced)."""
    received = received or timezone.now()
    campus = Campus.objects.get(pk=campus_id)
    try:
        params, record = event_params(event, received, dispatch_unit, base_params)
    except (UnsupportedEvent, KeyError, TypeError, ValueError) as exc:
        descriptor = event.get("event_descriptor") or {}
        active = event.get("active_period") or {}
        params, record, opt, reason, impact = (
            {},
            {
                "event_id": str(descriptor.get("event_id", "")),
                "modification_number": int(descriptor.get("modification_number") or 0),
                "signal_name": "",
                "signal_type": "",
                "starts_at": active.get("dtstart") or received,
                "duration_s": 0.0,
                "notice_minutes": 0.0,
                "intervals": [],
            },
            "optOut",
            f"not evaluated: {exc}",
            {},
        )
    else:
        snap = in_service_snapshot(campus, received.date())
        impact = run_replica("grid_limit", snap, params, seed=1).metrics
        opt, reason = decide(impact, bool(params["events"]))
    with transaction.atomic():
        row, _ = DemandResponseEvent.objects.update_or_create(
            campus=campus,
            vtn_url=vtn_url,
            event_id=record.pop("event_id"),
            modification_number=record.pop("modification_number"),
            defaults={
                **record,
                "ven_id": ven_id,
                "params": params,
                "opt": opt,
                "reason": reason,
                "impact": impact,
            },
        )
    return row
