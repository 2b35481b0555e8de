"""The parameters of liquid_cooling: the cooling events (one model per kind of event) and the lumped thermal
model's constants."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, ValidationInfo, model_validator

from campus.catalog_data import default_value
from simulations.engine.fields import (
    ADVANCED,
    MINUTES_A_WEEK,
    MINUTES_A_YEAR,
    JobParams,
    ParamsBase,
    is_stored,
    picker,
    starts_within,
)


class _CoolingEventBase(ParamsBase):
    target_id: int | None = Field(None, title="Unit or plant", json_schema_extra=picker("cooling_target"))
    """The cooling unit (or, for a chiller loss, the plant) that fails; empty: for a CDU loss, the CDU whose
    loss its redundancy group cannot cover (or the smallest set of one group's CDUs that it cannot, when it
    covers any one), otherwise the one carrying the most GPUs."""
    at_minutes: float = Field(5.0, ge=0, le=MINUTES_A_WEEK, title="Starts at (min)")
    """Minutes from the start of the run when the event begins (before the run ends)."""
    repair_minutes: float = Field(30.0, ge=0, le=MINUTES_A_YEAR, title="Repair time (min)")
    """Time until flow or heat rejection is back (repair or failover), minutes."""


class CduLossEvent(_CoolingEventBase):
    """A coolant distribution unit stops: its racks lose their flow (its N+1 peers may take the load)."""

    kind: Literal["cdu_loss"] = Field("cdu_loss", title="What happens")
    """The kind of event; each kind takes only its own parameters."""


class PumpLossEvent(_CoolingEventBase):
    """A unit keeps running on its remaining pumps."""

    kind: Literal["pump_loss"] = Field("pump_loss", title="What happens")
    """The kind of event; each kind takes only its own parameters."""
    remaining_flow_fraction: float = Field(0.5, ge=0, le=1, title="Remaining flow (fraction of nominal)")
    """The flow left with the remaining pumps, fraction of nominal (0.5 = one of two pumps lost)."""


class ChillerLossEvent(_CoolingEventBase):
    """A cooling plant stops rejecting heat; its loop warms until it is back."""

    kind: Literal["chiller_loss"] = Field("chiller_loss", title="What happens")
    """The kind of event; each kind takes only its own parameters."""


class SupplyTempExcursionEvent(_CoolingEventBase):
    """A unit's supply temperature rises."""

    kind: Literal["supply_temp_excursion"] = Field("supply_temp_excursion", title="What happens")
    """The kind of event; each kind takes only its own parameters."""
    supply_rise_k: float = Field(10.0, ge=0, title="Supply temperature rise (K)")
    """How much the coolant supply temperature rises, K."""


def _cooling_event_kind(value: Any) -> str:
    """The event's kind, "cdu_loss" when it does not say: it picks which parameters the event takes."""
    if isinstance(value, dict):
        kind = value.get("kind", "cdu_loss")
        return kind if isinstance(kind, str) else ""
    return getattr(value, "kind", "")


# One model per kind of event, each with only the parameters that apply to it: a pump-loss flow on a CDU loss
# is an unknown field (a 400), not a value silently ignored.
CoolingEvent = Annotated[
    Annotated[CduLossEvent, Tag("cdu_loss")]
    | Annotated[PumpLossEvent, Tag("pump_loss")]
    | Annotated[ChillerLossEvent, Tag("chiller_loss")]
    | Annotated[SupplyTempExcursionEvent, Tag("supply_temp_excursion")],
    Discriminator(
        _cooling_event_kind,
        custom_error_type="event_kind",
        custom_error_message="kind must be one of cdu_loss, pump_loss, chiller_loss, supply_temp_excursion",
    ),
]


class LiquidCoolingParams(ParamsBase):
    duration_minutes: float = Field(120.0, gt=0, le=MINUTES_A_WEEK, title="Duration (min)")
    """Simulated time, minutes (at most a week, 10,080 min)."""
    events: list[CoolingEvent] = Field(default_factory=lambda: [CduLossEvent()], title="Cooling events")
    """The failures and excursions, each at its own time."""
    # Chillers take minutes to restart after a power event: Schneider Electric White Paper 179, Data Center
    # Temperature Rise During a Cooling System Outage.
    chiller_restart_minutes: float | None = Field(
        None, ge=0, le=MINUTES_A_WEEK, title="Chiller restart time (min)"
    )
    """Time a chiller needs to restart after the repair; empty: the plant's own restart time."""
    # Lumped RC per kW of load, C dT/dt = P - G (T - T_coolant) (catalog COOLING_DEFAULTS, estimates fitted
    # to shutdown "in under a minute" at 10 kW+ per cabinet and in minutes at 5 kW: Opengate Data Systems' Data
    # Center Emergency Cooling Study for Active Power, 2007).
    liquid_heat_capacity_j_per_k_per_kw: float = Field(
        default_value("liquid_heat_capacity_j_per_k_per_kw"),
        gt=0,
        title="Liquid-cooled heat capacity (J/K per kW)",
        json_schema_extra=ADVANCED,
    )
    """Thermal mass of a liquid-cooled rack per kW of load (cold plates, coolant in the rack)."""
    liquid_conductance_w_per_k_per_kw: float = Field(
        default_value("liquid_conductance_w_per_k_per_kw"),
        gt=0,
        title="Liquid-cooled conductance (W/K per kW)",
        json_schema_extra=ADVANCED,
    )
    """Heat carried to the coolant per kelvin of temperature difference, per kW of load, at nominal flow."""
    air_heat_capacity_j_per_k_per_kw: float = Field(
        default_value("air_heat_capacity_j_per_k_per_kw"),
        gt=0,
        title="Air-cooled heat capacity (J/K per kW)",
        json_schema_extra=ADVANCED,
    )
    """Thermal mass of an air-cooled rack per kW of load."""
    air_conductance_w_per_k_per_kw: float = Field(
        default_value("air_conductance_w_per_k_per_kw"),
        gt=0,
        title="Air-cooled conductance (W/K per kW)",
        json_schema_extra=ADVANCED,
    )
    """Heat carried to the air per kelvin of temperature difference, per kW of load, at nominal flow."""
    residual_conductance_fraction: float = Field(
        0.03, gt=0, le=1, title="Conductance without flow (fraction of nominal)", json_schema_extra=ADVANCED
    )
    """Cooling left with no forced flow (natural convection, conduction to the frame); above 0, as some heat
    always leaves."""
    flow_exponent: float = Field(0.8, ge=0, title="Flow exponent", json_schema_extra=ADVANCED)
    """Conductance scales as flow to this power (0.8: turbulent forced convection, Dittus-Boelter)."""
    loop_volume_l_per_kw: float = Field(
        3.0, gt=0, title="Coolant loop volume (L per kW)", json_schema_extra=ADVANCED
    )
    """Loop water per kW of heat; it heats while the chiller is down (estimate)."""
    node_restart_minutes: float = Field(
        15.0, ge=0, le=MINUTES_A_WEEK, title="Node restart time (min)", json_schema_extra=ADVANCED
    )
    """Time a shut-down node needs to come back once cooling is restored, minutes."""
    series_points: int = Field(600, ge=10, le=20000, title="Chart points", json_schema_extra=ADVANCED)
    """Samples of each time series (the solution itself is exact between events)."""
    rack_series: bool = Field(True, title="Per-rack series for the floor map")
    """Record one GPU temperature series per affected rack (at most 512) to replay on the floor map."""
    job: JobParams = Field(default_factory=JobParams, title="Training job")
    """The synchronous job over every GPU whose slowdown and lost work are counted."""

    @model_validator(mode="after")
    def _events_in_the_run(self, info: ValidationInfo) -> LiquidCoolingParams:
        if not is_stored(info):
            starts_within(self.events, "at_minutes", "events", self.duration_minutes, "min")
        return self


# The tags of the event union: left out of an error's path, named in its message (``params._EVENT_TAGS``).
UNION_TAGS = ("cdu_loss", "pump_loss", "chiller_loss", "supply_temp_excursion")
