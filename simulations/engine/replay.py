"""The load a grid scenario runs on: the synthetic training waveform of its kind, or a measured power series
replayed (docs/live.md, "Replay").

``LoadSource`` is a parameter of ``power_dynamics`` and ``grid_limit``. Its kinds:

- ``synthetic`` (the default): the kind's own model of the jobs' power;
- ``measured``: the 5-minute means the twin holds for one campus or building (``object_kind``,
  ``object_name``) over ``[start, end)``. The engine never reads the database: the run machinery fills
  ``values_kw`` and ``step_seconds`` from the stored rollups when a scenario is checked and when a run is
  launched (``simulations.runs.replay``), so a run keeps the very series it replayed;
- ``series``: a series the planner gives (``values_kw`` every ``step_seconds``), e.g. a meter export.

A replayed value holds over its step: value i is the draw over [i × step, (i + 1) × step). A 5-minute mean
held for its 5 minutes carries exactly the energy measured; the ramps a replay shows are the jumps between
consecutive means, a lower bound on the real ones (a mean hides the swings inside its bucket). The series is
the draw at the meter (the campus's utility feeds, a building's feed): no PUE is applied to it.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from simulations.engine.fields import MAX_KW, FieldError, ParamsBase

MAX_REPLAY_VALUES = 110_000  # a year of 5-minute means (105,120) and some
MEASURED_STEP_S = 300.0  # the twin's rollup bucket (campus.analysis.measurements.BUCKET_S)
MAX_LAST_HOURS = 8_784.0  # a leap year of hours (the daily rollups are kept 400 days)


class LoadSource(ParamsBase):
    """Where the run's load comes from: the kind's synthetic training waveform, a measured series the twin
    holds, or a series given here."""

    kind: Literal["synthetic", "measured", "series"] = Field("synthetic", title="Load")
    """synthetic: the scenario's own model of the jobs' power; measured: a campus's or building's measured
    power held by the twin, over a window; series: power values given here."""
    object_kind: Literal["campus", "building"] = Field("campus", title="Measured object")
    """Measured: the campus (its draw from the utility feeds) or one building."""
    object_name: str | None = Field(None, max_length=128, title="Object name")
    """Measured: the building's name (the campus: empty, or its own name)."""
    start: datetime | None = Field(None, title="Window start")
    """Measured: the first instant replayed (ISO 8601 with its zone)."""
    end: datetime | None = Field(None, title="Window end")
    """Measured: the end of the window replayed (not included)."""
    last_hours: float | None = Field(None, gt=0, le=MAX_LAST_HOURS, title="Last hours before the run (h)")
    """Measured: instead of start and end, the window of this many hours before the run is launched (a
    schedule's firing), ending on the last whole 5-minute bucket; start and end are filled in then."""
    step_seconds: float | None = Field(None, gt=0, le=86_400, title="Step (s)")
    """Series: seconds between two values (each holds over its step). Measured: 300, filled in."""
    values_kw: list[float] | None = Field(
        None,
        max_length=MAX_REPLAY_VALUES,
        title="Power values (kW)",
        json_schema_extra={"x-number-list": True},
    )
    """Series: the draw every step, kW. Measured: filled in from the stored 5-minute means when a run is
    launched."""
    filled_steps: int = Field(0, ge=0, title="Steps filled in", json_schema_extra={"readOnly": True})
    """Measured: buckets missing inside the window, filled by linear interpolation (set when resolved)."""

    @model_validator(mode="after")
    def _check(self) -> LoadSource:
        if self.kind == "measured" and self.last_hours is None:
            if self.start is None:
                raise FieldError("start", "give the window's start (ISO 8601 with its zone)")
            if self.end is None:
                raise FieldError("end", "give the window's end (ISO 8601 with its zone)")
            for name in ("start", "end"):
                if getattr(self, name).tzinfo is None:
                    raise FieldError(name, "give the time zone (e.g. Z or +00:00)")
            if self.end <= self.start:
                raise FieldError("end", "must be after start")
        if self.last_hours is not None and self.kind != "measured":
            raise FieldError("last_hours", "a window of a measured load only (kind: measured)")
        if self.kind == "series":
            if not self.values_kw:
                raise FieldError("values_kw", "give the power values, kW")
            if self.step_seconds is None:
                raise FieldError("step_seconds", "give the seconds between two values")
        for i, v in enumerate(self.values_kw or ()):
            if not (math.isfinite(v) and 0.0 <= v <= MAX_KW):
                raise FieldError(f"values_kw[{i}]", f"a power between 0 and {MAX_KW:g} kW")
        return self

    @property
    def replayed(self) -> bool:
        return self.kind != "synthetic"

    @property
    def resolved(self) -> bool:
        return bool(self.values_kw) and self.step_seconds is not None

    @property
    def span_s(self) -> float:
        return len(self.values_kw or ()) * (self.step_seconds or 0.0)

    def describe(self) -> dict:
        """What the run replayed, for its details and its words."""
        out: dict = {"kind": self.kind}
        if self.kind == "measured":
            out.update(
                object_kind=self.object_kind,
                object_name=self.object_name,
                start=self.start.isoformat() if self.start else None,
                end=self.end.isoformat() if self.end else None,
                last_hours=self.last_hours,
                filled_steps=self.filled_steps,
            )
        if self.replayed:
            out.update(step_seconds=self.step_seconds, values=len(self.values_kw or ()), span_s=self.span_s)
        return out


def held_kw(source: LoadSource, t_s: np.ndarray) -> np.ndarray:
    """The replayed draw at the times ``t_s`` (s from the start of the series), kW: each value holds over its
    step; past the end the last value holds."""
    values = np.asarray(source.values_kw, dtype=float)
    i = np.floor(np.asarray(t_s, dtype=float) / float(source.step_seconds) + 1e-9).astype(np.int64)
    return values[np.clip(i, 0, values.size - 1)]


def unresolved_error(field: str = "load_source") -> dict[str, str]:
    return {
        "field": f"{field}.values_kw",
        "message": "the measured series is not resolved: it is read from the twin's measurements when "
        "the scenario is saved or run",
    }


def replay_sentence(source: LoadSource) -> str | None:
    """What a run's words say of its load: None for the synthetic one."""
    if source.kind == "measured":
        name = source.object_name or "the campus"
        where = f"{source.object_kind} {name}" if source.object_kind == "building" else name
        filled = f"; {source.filled_steps} missing 5-minute means filled in" if source.filled_steps else ""
        last = f", the last {source.last_hours:g} h before the run" if source.last_hours is not None else ""
        return (
            f"The load was replayed from the measured power of {where} from {source.start:%Y-%m-%d %H:%M} "
            f"to {source.end:%Y-%m-%d %H:%M} UTC ({len(source.values_kw or ())} 5-minute means{filled}{last})."
        )
    if source.kind == "series":
        return (
            f"The load was replayed from a given series of {len(source.values_kw or ())} values, one every "
            f"{source.step_seconds:g} s."
        )
    return None
