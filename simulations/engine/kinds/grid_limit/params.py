"""The parameters of grid_limit: the interconnect capacity and its schedule, demand-response events, the
policy and the on-site sources."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, model_validator

from campus.catalog_data import default_value
from simulations.engine.fields import (
    ADVANCED,
    HOURS_A_YEAR,
    MAX_GRID_STEPS,
    MAX_KW,
    MAX_KWH,
    MAX_MW,
    MAX_PUE,
    MINUTES_A_WEEK,
    SECONDS_A_DAY,
    FieldError,
    ParamsBase,
    ThroughputParams,
    is_stored,
    key_picker,
    starts_within,
)
from simulations.engine.replay import LoadSource

# Any price or penalty per MWh: ~100 times a scarcity price cap (ERCOT's $5,000/MWh).
MAX_USD_PER_MWH = 1e6


class CapacityStep(ParamsBase):
    """From ``start_hours`` on, the interconnect capacity is ``capacity_kw``."""

    start_hours: float = Field(0.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when this capacity applies (before the run ends)."""
    capacity_kw: float = Field(..., ge=0, le=MAX_KW, title="Capacity (kW)")
    """Grid capacity from this step on, kW (0: the grid gives nothing)."""


# The ways an event states what it asks, in the utility's terms (one per event).
EVENT_FORMS = ("share_of_load", "shed_mw", "target_mw", "cut_fraction")
# The campus's flexibility resources, in the order they are dispatched by default (docs/grid.md).
RESOURCES = ("battery_storage", "prime_generation", "power_capping", "job_pause")
Resource = Literal["battery_storage", "prime_generation", "power_capping", "job_pause"]


class GridEvent(ParamsBase):
    """A demand-response event as a utility states it: a share of the campus's load to shed
    (``share_of_load``), MW to shed (``shed_mw``) or a level to stay under (``target_mw``), with its notice,
    duration and price. ``cut_fraction`` (a share of the interconnect capacity) is the one older form."""

    start_hours: float = Field(14.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when the event begins (before the run ends)."""
    duration_hours: float = Field(3.0, gt=0, le=HOURS_A_YEAR, title="Duration (h)")
    """How long the event lasts, hours."""
    # Emerald AI's Phoenix field test (Colangelo et al., arXiv 2507.00909, 2025): 25 % of the cluster's
    # power for 3 h at peak grid demand.
    share_of_load: float | None = Field(None, ge=0, le=1, title="Share of load to shed (0–1)")
    """Share of the campus's load (its full demand, the event's baseline) to shed (0.25 = a quarter). When
    the event gives none of share_of_load, shed_mw, target_mw and cut_fraction: 0.25."""
    shed_mw: float | None = Field(None, ge=0, le=MAX_MW, title="Load to shed (MW)")
    """MW to take off the campus's load (its full demand) for the event."""
    target_mw: float | None = Field(None, ge=0, le=MAX_MW, title="Target draw (MW)")
    """Grid draw the campus must stay at or under during the event, MW."""
    cut_fraction: float | None = Field(None, ge=0, le=1, title="Cut (fraction of capacity)")
    """Share of the interconnect capacity taken away (not of the load: a campus well under its connection
    may not feel it)."""
    # ERCOT Emergency Response Service, 30-minute product: load must be shed within 30 min of the call
    # (ERCOT Nodal Protocols §3.14.3).
    notice_minutes: float = Field(30.0, ge=0, le=MINUTES_A_WEEK, title="Notice (min)")
    """Time between the utility's call and the event's start, minutes (a day-ahead call: 1,440). A resource
    slower to start than the notice (prime units, a job that must checkpoint before pausing) cannot be
    committed for the event's start."""
    price_usd_per_mwh: float = Field(0.0, ge=0, le=MAX_USD_PER_MWH, title="Price paid (USD/MWh)")
    """What the utility pays per MWh the campus sheds below its baseline during the event."""
    penalty_usd_per_mwh: float = Field(0.0, ge=0, le=MAX_USD_PER_MWH, title="Penalty (USD/MWh)")
    """What the campus pays per MWh it draws above the event's level during the event."""

    @model_validator(mode="before")
    @classmethod
    def _one_form(cls, data: Any) -> Any:
        if isinstance(data, dict):
            given = [f for f in EVENT_FORMS if data.get(f) is not None]
            if not given:
                data = {**data, "share_of_load": 0.25}
            elif len(given) > 1:
                raise FieldError(given[1], f"give one of {', '.join(EVENT_FORMS)}, not {' and '.join(given)}")
        return data

    def level_kw(self, demand_kw: float, capacity_kw: float) -> float:
        """The grid draw the event allows, kW, for a campus wanting ``demand_kw`` under ``capacity_kw``."""
        if self.cut_fraction is not None:
            return capacity_kw * (1.0 - self.cut_fraction)
        if self.target_mw is not None:
            return min(capacity_kw, self.target_mw * 1000.0)
        if self.shed_mw is not None:
            return min(capacity_kw, max(0.0, demand_kw - self.shed_mw * 1000.0))
        return min(capacity_kw, demand_kw * (1.0 - (self.share_of_load or 0.0)))


class FlexResource(ParamsBase):
    """One of the campus's flexibility resources and what a MWh of it costs."""

    resource: Resource = Field(..., title="Resource")
    """battery_storage (the campus's battery energy storage), prime_generation (its prime-rated on-site
    units), power_capping (a uniform GPU power cap), job_pause (pausing pods; the paused work is shifted)."""
    cost_usd_per_mwh: float | None = Field(
        None, ge=0, le=MAX_USD_PER_MWH, title="Cost (USD/MWh)", json_schema_extra=ADVANCED
    )
    """Cost of a MWh this resource gives or sheds; empty: battery wear (catalog bess_cycle_usd_per_mwh),
    each prime unit's fuel, or for capping and pausing the work lost at gpu_hour_value_usd."""


def _default_flexibility() -> list[FlexResource]:
    return [FlexResource(resource=r) for r in RESOURCES]


class GridLimitParams(ParamsBase):
    duration_hours: float = Field(24.0, gt=0, le=HOURS_A_YEAR, title="Duration (h)")
    """Simulated time, hours (at most a year, 8,760 h; a replayed load: its series' span instead)."""
    load_source: LoadSource = Field(default_factory=LoadSource, title="Load source")
    """The campus's full demand (every GPU at TDP x utilisation, x PUE), or a measured power series replayed as
    the demand step by step; capping and pausing then scale the modelled draw to the measured one
    (docs/live.md, "Replay")."""
    step_minutes: float = Field(1.0, gt=0, le=60, title="Time step (min)", json_schema_extra=ADVANCED)
    """Resolution of the simulation, minutes; the run has at most 1,000,000 steps (duration / step)."""
    capacity_kw: float | None = Field(None, ge=0, le=MAX_KW, title="Grid capacity (kW)")
    """Interconnect capacity before any event; empty: the campus grid capacity; 0: the grid gives nothing
    (the campus runs on what its policy finds elsewhere)."""
    capacity_schedule: list[CapacityStep] = Field(default_factory=list, title="Capacity schedule")
    """Capacity changes over time (sorted by start)."""
    events: list[GridEvent] = Field(default_factory=lambda: [GridEvent()], title="Demand-response events")
    """Cuts of the grid capacity for a while."""
    policy: Literal["flexibility", "cap", "pause", "ride_through", "generators"] = Field(
        "flexibility", title="Policy"
    )
    """What the campus does when its draw exceeds the grid: dispatch its flexibility resources in order
    (``flexibility``), cap GPU power, pause pods, ride through on the UPS batteries above their reserve (then
    cap), or start the standby generators."""
    flexibility: list[FlexResource] = Field(
        default_factory=_default_flexibility, title="Flexibility resources (in order)"
    )
    """Under the flexibility policy: the resources dispatched, first to last, each with its cost; a resource
    left out is not used. The UPS batteries are never among them: they keep their ride-through reserve."""
    ups_reserve_s: float | None = Field(
        None, ge=0, le=SECONDS_A_DAY, title="UPS reserve (s)", json_schema_extra=ADVANCED
    )
    """Ride-through time the UPS batteries always keep at the campus's load, seconds; never dispatched for a
    grid limit. Empty: the generators' start delay and ramp plus the catalog's ups_reserve_margin_s."""
    prime_mover: Literal["gas_turbine", "recip_engine"] = Field("gas_turbine", title="Prime units' mover")
    """What the campus's prime-rated units are: aeroderivative gas turbines or gas reciprocating engines (their
    start time when a unit gives none, minimum load, heat rate against load and CO2; docs/grid.md)."""
    # Estimate: an air permit's operating-hour limit is the site's; unlimited unless given.
    permitted_hours_per_year: float = Field(
        HOURS_A_YEAR, gt=0, le=HOURS_A_YEAR, title="Prime units' permitted hours (h/yr)"
    )
    """Hours a year the air permit lets each prime unit run (the run reports the hours it used)."""
    grid_co2_t_per_mwh: list[Annotated[float, Field(ge=0, le=5)]] | None = Field(
        None, min_length=24, max_length=24, title="Grid carbon intensity by hour (t CO₂/MWh)"
    )
    """24 figures, hour 0 to 23 of the day, t CO2 per MWh drawn; empty: the site's grid annual average
    (docs/grid.md), flat."""
    gpu_hour_value_usd: float = Field(
        default_value("gpu_hour_value_usd"), ge=0, le=1e4, title="Value of a GPU-hour (USD)"
    )
    """What an hour of one GPU's work is worth: the cost of capped or paused work (an estimate near H100
    rental prices)."""
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
        if steps > MAX_GRID_STEPS and not is_stored(info) and not self.load_source.replayed:
            least = self.duration_hours * 60.0 / MAX_GRID_STEPS
            raise FieldError(
                "step_minutes",
                f"{self.duration_hours:g} h at {self.step_minutes:g} min is {steps:,} steps; at most "
                f"{MAX_GRID_STEPS:,}: a step of at least {least:.3g} min",
            )
        starts = [s.start_hours for s in self.capacity_schedule]
        if starts != sorted(starts):
            raise FieldError("capacity_schedule", "must be sorted by start_hours")
        if not is_stored(info) and not self.load_source.replayed:  # a replay: its span, checked in prepare
            starts_within(
                self.capacity_schedule, "start_hours", "capacity_schedule", self.duration_hours, "h"
            )
            starts_within(self.events, "start_hours", "events", self.duration_hours, "h")
        return self
