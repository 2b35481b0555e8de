"""The parameters of grid_limit: the interconnect capacity and its schedule, demand-response events, the
policy and the on-site sources."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, ValidationInfo, model_validator

from campus.catalog_data import default_value
from simulations.engine.fields import (
    ADVANCED,
    HOURS_A_YEAR,
    MAX_GRID_STEPS,
    MAX_KW,
    MAX_KWH,
    MAX_PUE,
    SECONDS_A_DAY,
    FieldError,
    ParamsBase,
    ThroughputParams,
    is_stored,
    key_picker,
    starts_within,
)


class CapacityStep(ParamsBase):
    """From ``start_hours`` on, the interconnect capacity is ``capacity_kw``."""

    start_hours: float = Field(0.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when this capacity applies (before the run ends)."""
    capacity_kw: float = Field(..., ge=0, le=MAX_KW, title="Capacity (kW)")
    """Grid capacity from this step on, kW (0: the grid gives nothing)."""


class GridEvent(ParamsBase):
    """A demand-response event: the interconnect capacity is cut by ``cut_fraction`` for a while."""

    start_hours: float = Field(14.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when the cut begins (before the run ends)."""
    duration_hours: float = Field(3.0, gt=0, le=HOURS_A_YEAR, title="Duration (h)")
    """How long the cut lasts, hours."""
    # Emerald AI's Phoenix field test (Colangelo et al., arXiv 2507.00909, 2025): the cluster's power cut by 25 %
    # for 3 h at peak grid demand. Empty, the event does the same to this campus: the limit is 75 % of its full
    # draw (DEFAULT_LOAD_SHARE), so it binds whatever the grid connection's size (a 25 % cut of an 18 MW
    # connection never touches an 11 MW campus).
    cut_fraction: float | None = Field(None, ge=0, le=1, title="Cut (fraction of capacity)")
    """Share of the grid capacity taken away during the event (0.25 = a quarter); empty: the limit is set to
    75 % of the campus's full draw, as the field test cut the cluster's own power by 25 %."""


class GridLimitParams(ParamsBase):
    duration_hours: float = Field(24.0, gt=0, le=HOURS_A_YEAR, title="Duration (h)")
    """Simulated time, hours (at most a year, 8,760 h)."""
    step_minutes: float = Field(1.0, gt=0, le=60, title="Time step (min)", json_schema_extra=ADVANCED)
    """Resolution of the simulation, minutes; the run has at most 1,000,000 steps (duration / step)."""
    capacity_kw: float | None = Field(None, ge=0, le=MAX_KW, title="Grid capacity (kW)")
    """Interconnect capacity before any event; empty: the campus grid capacity; 0: the grid gives nothing
    (the campus runs on what its policy finds elsewhere)."""
    capacity_schedule: list[CapacityStep] = Field(default_factory=list, title="Capacity schedule")
    """Capacity changes over time (sorted by start)."""
    events: list[GridEvent] = Field(default_factory=lambda: [GridEvent()], title="Demand-response events")
    """Cuts of the grid capacity for a while."""
    policy: Literal["cap", "pause", "ride_through", "generators"] = Field("cap", title="Policy")
    """What the campus does when its draw exceeds the grid: cap GPU power, pause pods, ride through on the
    UPS batteries (then cap), or start the standby generators."""
    pod_priorities: dict[int, int] = Field(
        default_factory=dict, title="Pod pause priorities", json_schema_extra=key_picker("pod")
    )
    """Under pause: pods with a lower number pause first; pods not listed come last, highest id first."""
    utilization: float = Field(1.0, ge=0, le=1, title="Utilisation (0–1)")
    """Share of the GPUs' time spent computing; the rest they idle."""
    pue: float | None = Field(None, ge=1, le=MAX_PUE, title="PUE")
    """Facility power / IT power; empty: the campus PUE (typed, or the plant model's in its weather)."""
    # A paused GPU idles at this fraction of its TDP (estimate: H100 idles near 70-100 W of 700 W).
    idle_gpu_fraction: float = Field(
        0.12, ge=0, le=1, title="Idle GPU power (fraction of TDP)", json_schema_extra=ADVANCED
    )
    """Power of a paused GPU as a fraction of its TDP (an H100 idles near 70-100 W of 700 W)."""
    battery_kwh: float | None = Field(None, ge=0, le=MAX_KWH, title="Battery energy (kWh)")
    """UPS battery energy; empty: derived from the campus's UPSs (rated kW x battery minutes)."""
    battery_initial_fraction: float = Field(1.0, ge=0, le=1, title="Battery charge at start (0–1)")
    """State of charge of the batteries at the start."""
    battery_recharge_kw: float | None = Field(
        None, ge=0, le=MAX_KW, title="Battery recharge power (kW)", json_schema_extra=ADVANCED
    )
    """Recharge power; empty: 10 % of the batteries' rated discharge."""
    generator_kw: float | None = Field(None, ge=0, le=MAX_KW, title="Generator capacity (kW)")
    """Standby generator capacity; empty: the campus's generator devices."""
    generator_start_delay_s: float | None = Field(
        None, ge=0, le=SECONDS_A_DAY, title="Generator start delay (s)"
    )
    """Time from the call to the generators delivering power; empty: the campus's generators."""
    generator_ramp_s: float | None = Field(
        None, ge=0, le=SECONDS_A_DAY, title="Generator ramp time (s)", json_schema_extra=ADVANCED
    )
    """Time from first power to full generator output; empty: the campus's generators."""
    # Chance that a generator call fails (IEEE 493 order of magnitude, catalog POWER_DEFAULTS).
    generator_fail_to_start_probability: float = Field(
        default_value("generator_fail_to_start_probability"),
        ge=0,
        le=1,
        title="Generator fail-to-start probability (0–1)",
    )
    """Chance that one call of the generators fails (IEEE 493 order of magnitude)."""
    job: ThroughputParams = Field(default_factory=ThroughputParams, title="Training job")
    """The workload the lost throughput is counted for."""

    @model_validator(mode="after")
    def _sorted_schedule(self, info: ValidationInfo) -> GridLimitParams:
        steps = math.ceil(self.duration_hours * 60.0 / self.step_minutes - 1e-9)
        if steps > MAX_GRID_STEPS and not is_stored(info):
            least = self.duration_hours * 60.0 / MAX_GRID_STEPS
            raise FieldError(
                "step_minutes",
                f"{self.duration_hours:g} h at {self.step_minutes:g} min is {steps:,} steps; at most "
                f"{MAX_GRID_STEPS:,}: a step of at least {least:.3g} min",
            )
        starts = [s.start_hours for s in self.capacity_schedule]
        if starts != sorted(starts):
            raise FieldError("capacity_schedule", "must be sorted by start_hours")
        if not is_stored(info):
            starts_within(
                self.capacity_schedule, "start_hours", "capacity_schedule", self.duration_hours, "h"
            )
            starts_within(self.events, "start_hours", "events", self.duration_hours, "h")
        return self
