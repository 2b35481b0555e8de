"""The parameters of power_capping: caps by GPU model or pod, a schedule of cap steps, utilisation, PUE and
price."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, model_validator

from simulations.engine.fields import (
    HOURS_A_YEAR,
    MAX_PRICE_USD_PER_KWH,
    MAX_PUE,
    FieldError,
    ParamsBase,
    ThroughputParams,
    is_stored,
    picker,
    starts_within,
)


class CapRule(ParamsBase):
    """A power cap for the GPUs of one model and/or one pod (both empty: every GPU)."""

    gpu_model: str | None = Field(None, title="GPU model", json_schema_extra=picker("gpu_model"))
    """Cap only the GPUs of this model; empty: every model."""
    pod_id: int | None = Field(None, title="Pod", json_schema_extra=picker("pod"))
    """Cap only the GPUs of this pod; empty: every pod."""
    cap_fraction: float | None = Field(None, gt=0, le=1.5, title="Cap (fraction of TDP)")
    """The power limit as a fraction of each GPU's TDP (0.8 = 80 %); give this or the cap in W."""
    cap_w: float | None = Field(None, gt=0, title="Cap (W per GPU)")
    """The power limit per GPU in watts; give this or the fraction of TDP."""

    @model_validator(mode="after")
    def _one_cap(self) -> CapRule:
        if (self.cap_fraction is None) == (self.cap_w is None):
            raise ValueError("give exactly one cap: a fraction of TDP (cap_fraction) or W per GPU (cap_w)")
        return self


class CapStep(ParamsBase):
    """From ``start_hours`` on, these caps replace the ones in force."""

    start_hours: float = Field(0.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when this step's caps take over (before the run ends)."""
    caps: list[CapRule] = Field(default_factory=list, title="Caps")
    """The caps in force from this step on; later rules win when several match one GPU group."""


class PowerCappingParams(ParamsBase):
    duration_hours: float = Field(24.0, gt=0, le=HOURS_A_YEAR, title="Duration (h)")
    """Simulated time, hours (at most a year, 8,760 h)."""
    caps: list[CapRule] = Field(default_factory=lambda: [CapRule(cap_fraction=0.8)], title="Caps")
    """Caps applied from the start; later rules win when several match one GPU group."""
    schedule: list[CapStep] = Field(default_factory=list, title="Cap schedule")
    """Cap changes over time; each step replaces the caps in force from its start on (sorted by start)."""
    utilization: float = Field(1.0, ge=0, le=1, title="Utilisation (0–1)")
    """Share of the GPUs' time spent computing; the rest they idle."""
    pue: float | None = Field(None, ge=1, le=MAX_PUE, title="PUE")
    """Facility power / IT power; empty: the campus PUE (typed, or the plant model's in its weather)."""
    price_usd_per_kwh: float | None = Field(
        None, ge=0, le=MAX_PRICE_USD_PER_KWH, title="Electricity price (USD/kWh)"
    )
    """Price of facility energy; empty: the campus price."""
    job: ThroughputParams = Field(default_factory=ThroughputParams, title="Training job")
    """The workload the throughput is counted for."""
    job_scope: Literal["campus", "pod"] = Field("pod", title="Job scope")
    """Campus: one synchronous job over every GPU (the slowest GPU sets the pace); pod: one job per pod."""

    @model_validator(mode="after")
    def _sorted_schedule(self, info: ValidationInfo) -> PowerCappingParams:
        starts = [s.start_hours for s in self.schedule]
        if starts != sorted(starts):
            raise FieldError("schedule", "must be sorted by start_hours")
        if not is_stored(info):
            starts_within(self.schedule, "start_hours", "schedule", self.duration_hours, "h")
        return self
