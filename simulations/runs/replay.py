"""A measured load source read from the twin's measurements (docs/live.md, "Replay").

The engine never reads the database: a scenario whose ``load_source`` is ``measured`` names an object and a
window, and this module fills in the series (``values_kw``, ``step_seconds``, ``filled_steps``) from the
stored 5-minute means when the scenario is checked and when a run is launched; the run stores the resolved
parameters, so it keeps the very series it replayed. A window the rollups do not cover (no data, unknown
object) is a ``ParamsError`` naming the field.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from campus import measurements_store as store
from campus.analysis.measurements import BUCKET_S, bucket_start
from campus.analysis.replay import regular
from campus.models import Building
from simulations.engine.params import ParamsError, validate_params
from simulations.engine.replay import MAX_REPLAY_VALUES


def _error(field: str, message: str) -> ParamsError:
    return ParamsError([{"field": f"load_source.{field}", "message": message}])


def last_window(last_hours: float, now: datetime) -> tuple[datetime, datetime]:
    """The window of ``last_hours`` before ``now``, ending on the start of the 5-minute bucket ``now`` falls
    in (that bucket is still filling: its mean would be read again whole by the next sync)."""
    end = bucket_start(now)
    return end - timedelta(hours=last_hours), end


def resolve(
    kind: str, params: dict | None, campus_id: int, campus_name: str, now: datetime | None = None
) -> dict:
    """``params`` with a measured load source's series filled in; any other parameters unchanged. A window
    given as ``last_hours`` is the one before ``now`` (default: this instant, a run's launch or a schedule's
    firing)."""
    src = params.get("load_source") if isinstance(params, dict) else None
    if not isinstance(src, dict) or src.get("kind") != "measured":
        return params or {}
    ls: Any = validate_params(kind, params).load_source  # the window's own fields first
    if ls.last_hours is not None:
        start, end = last_window(ls.last_hours, now or datetime.now(UTC))
        ls = ls.model_copy(update={"start": start, "end": end})
    if ls.object_kind == "campus":
        name = ls.object_name or campus_name
        if name != campus_name:
            raise _error("object_name", f"the campus is named {campus_name!r} (or leave it empty)")
    else:
        name = ls.object_name
        if not name:
            raise _error("object_name", "give the building's name")
        if not Building.objects.filter(campus_id=campus_id, name=name).exists():
            raise _error("object_name", f"no building named {name!r} in the campus")
    if (ls.end - ls.start).total_seconds() / BUCKET_S > MAX_REPLAY_VALUES:
        raise _error("end", f"at most {MAX_REPLAY_VALUES:,} 5-minute means (about a year) in one window")
    points = store.object_points(campus_id, ls.object_kind, name, ls.start, ls.end)
    if not points:
        raise _error(
            "start" if ls.last_hours is None else "last_hours",
            f"no measured power of {ls.object_kind} {name!r} between {ls.start.isoformat()} and "
            f"{ls.end.isoformat()}",
        )
    series = regular([(t, mean) for t, mean, _ in points], float(BUCKET_S))
    resolved = {
        **src,
        "object_name": name,
        "step_seconds": float(BUCKET_S),
        "values_kw": [float(v) for v in series.values],
        "filled_steps": series.filled,
        # the window replayed: from the first mean held to the end of the last one
        "start": series.start.isoformat(),
        "end": (series.start + timedelta(seconds=BUCKET_S * len(series.values))).isoformat(),
    }
    return {**params, "load_source": resolved}
