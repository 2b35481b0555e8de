"""Validated parameters of every scenario kind.

One pydantic model per kind. Every field has a default, so ``{}`` is a valid parameter set; unknown keys are
rejected so that a typo never silently falls back to a default. Units are in the field names. Where each
default comes from is documented in docs/scenarios.md.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from campus.catalog_data import default_value
from simulations.engine.contract import ScenarioKind

KINDS: tuple[str, ...] = tuple(k.value for k in ScenarioKind)


class FieldError(ValueError):
    """A check across fields (a model validator) that belongs to one field: ``field`` is its path from the
    model checked ("events[1].start_hours"), so the error is keyed on it and not on the model."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


# Bounds of the durations, steps and sizes (docs/scenarios.md, "Bounds"): beyond them a run means nothing a
# planner asks (a year of grid steps, a week of seconds of coolant) and the engine's arrays or figures blow up.
HOURS_A_YEAR = 8760.0
MINUTES_A_WEEK = 7 * 24 * 60.0
MINUTES_A_YEAR = 365 * 24 * 60.0
# A checkpoint interval longer than any run (never a checkpoint within it) is a use: up to ten years.
MAX_CHECKPOINT_MINUTES = 10 * MINUTES_A_YEAR
SECONDS_A_DAY = 86_400.0
SECONDS_A_WEEK = 7 * 86_400.0
MAX_FAILURE_DAYS = 3650.0  # ten years of failures (long runs make tight statistics)
MAX_GRID_STEPS = 1_000_000  # grid_limit: duration / step (a year at 1 min is 525,600)
MAX_KW = 1e8  # any power of the campus, kW (100 GW)
MAX_KWH = 1e9  # any stored energy, kWh (1 TWh)
MAX_MW = MAX_KW / 1000.0
MAX_MWH = MAX_KWH / 1000.0
MIN_BAND_HZ = 0.001  # power_dynamics: lowest frequency of the oscillation band
MAX_PUE = 10.0  # the worst facilities measure 2-3; past 10 a figure is a typo
MAX_PRICE_USD_PER_KWH = 100.0  # ~1,000 times an industrial rate


def _stored(info: ValidationInfo) -> bool:
    """Whether the parameters are read back from a run already made (``validate_params(..., stored=True)``):
    the checks of a new run's window and steps, added after such runs were stored, are not applied to them,
    so their explanation still reads them."""
    return bool(info.context and info.context.get("stored"))


def _starts_within(items: list[Any], attr: str, name: str, end: float, unit: str) -> None:
    """Each item of the list ``name`` starts (``attr``) before the run's end ``end``: an event after the end
    would change nothing, silently."""
    for i, item in enumerate(items):
        start = getattr(item, attr)
        if start >= end:
            raise FieldError(
                f"{name}[{i}].{attr}",
                f"starts at {start:g} {unit}, not before the run ends ({end:g} {unit}): it would change nothing",
            )


class ParamsError(ValueError):
    """Invalid scenario parameters; ``errors`` is a list of {"field": "a.b[0].c", "message": ...}."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e['field']}: {e['message']}" for e in errors))


# Unit suffixes of parameter names as a label shows them ("generator_start_delay_s" -> "Generator start delay
# (s)"); the longest suffix that matches wins.
_UNITS: dict[str, str] = {
    "j_per_k_per_kw": "J/K per kW",
    "mw_per_min": "MW/min",
    "mw_per_s": "MW/s",
    "w_per_s": "W/s",
    "j_per_gpu": "J per GPU",
    "seconds": "s",
    "ms": "ms",
    "hz": "Hz",
    "w_per_k_per_kw": "W/K per kW",
    "l_per_kw": "L per kW",
    "usd_per_kwh": "USD/kWh",
    "gb_per_gpu": "GB per GPU",
    "minutes": "min",
    "hours": "h",
    "days": "d",
    "s": "s",
    "kwh": "kWh",
    "mwh": "MWh",
    "kw": "kW",
    "mw": "MW",
    "w": "W",
    "c": "°C",
    "k": "K",
    "gbps": "Gbit/s",
    "fraction": "0–1",
    "probability": "0–1",
}
# Words kept as written: acronyms and names.
_WORDS: dict[str, str] = {
    w.lower(): w
    for w in (
        "GPU",
        "GPUs",
        "CPU",
        "PUE",
        "MFU",
        "TDP",
        "UPS",
        "PDU",
        "CDU",
        "HBM",
        "NCCL",
        "SDC",
        "NIC",
        "IT",
        "ID",
        "MW",
        "kW",
        "FP8",
        "BF16",
        "FP16",
        "TF32",
        "FP32",
        "MTBF",
    )
}


def title_of(name: str, _field: Any = None) -> str:
    """A parameter's label with its unit: "generator_start_delay_s" -> "Generator start delay (s)"."""
    words = name.split("_")
    unit = None
    for size in (5, 4, 3, 2, 1):
        key = "_".join(words[-size:])
        if len(words) > size and key in _UNITS:
            unit = _UNITS[key]
            if key not in ("fraction", "probability"):
                words = words[:-size]
            break
    text = " ".join(_WORDS.get(w, w) for w in words)
    text = text[0].upper() + text[1:] if text else text
    return f"{text} ({unit})" if unit else text


class _Strict(BaseModel):
    """Every Params model's base: unknown keys rejected, field docstrings become the descriptions the form
    shows as help, and every title carries the unit of its name (``title_of``)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, field_title_generator=title_of
    )


ParamsBase = _Strict


def picker(kind: str, **extra: Any) -> dict[str, Any]:
    """``json_schema_extra`` of a field whose value is one of the campus's things: the form offers a list of
    them (kind: "gpu_model", "pod", "cooling_unit", "cooling_target", "power_device", "failure_component")."""
    return {"x-picker": kind, **extra}


# ``json_schema_extra`` of a model constant or a resolution setting: the form shows it folded away, under
# "Model constants and resolution", so the parameters a planner changes come first.
ADVANCED: dict[str, Any] = {"x-advanced": True}


def key_picker(kind: str) -> dict[str, Any]:
    """``json_schema_extra`` of a mapping whose keys are the campus's things (see ``picker``)."""
    return {"x-key-picker": kind}


# ---------------------------------------------------------------- shared pieces

Precision = Literal["fp8", "bf16", "fp16", "tf32", "fp32"]


class ThroughputParams(_Strict):
    """How fast the GPUs train: the peak at ``precision`` times the model FLOPs utilisation."""

    precision: Precision = "bf16"
    """Number format the job trains in; sets the GPUs' peak throughput (dense TFLOPS of the part)."""
    # Model FLOPs utilisation at full power: ~40 % BF16 on H100 (SemiAnalysis, 100k H100 clusters, 2024-06),
    # 38-43 % for Llama 3 405B (The Llama 3 Herd of Models, arXiv 2407.21783, §3.3.2, Table 4).
    mfu: float = Field(default_value("mfu_bf16"), gt=0, le=1, title="Model FLOPs utilisation (0–1)")
    """Share of the peak throughput the job achieves at full power (about 0.4 for large BF16 training)."""


class JobParams(ThroughputParams):
    """A synchronous job that checkpoints and restarts after an interruption."""

    # BLOOM 176B checkpointed every 3 h (catalog TRAINING_DEFAULTS).
    checkpoint_interval_minutes: float = Field(
        default_value("checkpoint_interval_minutes"), gt=0, le=MAX_CHECKPOINT_MINUTES
    )
    """Time between two checkpoints, minutes; work since the last one is lost when the job is interrupted."""
    # Kokolis et al. 2024 (Meta RSC): checkpoint write ~5 min, restart overhead 5-20 min.
    checkpoint_write_minutes: float = Field(
        default_value("checkpoint_write_minutes"), ge=0, le=MINUTES_A_WEEK
    )
    """Time the job spends writing one checkpoint, minutes."""
    restart_minutes: float = Field(default_value("restart_minutes"), ge=0, le=MINUTES_A_WEEK)
    """Time from the GPUs being back to the job training again (reload, re-initialise), minutes."""


class CapRule(_Strict):
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


class CapStep(_Strict):
    """From ``start_hours`` on, these caps replace the ones in force."""

    start_hours: float = Field(0.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when this step's caps take over (before the run ends)."""
    caps: list[CapRule] = Field(default_factory=list, title="Caps")
    """The caps in force from this step on; later rules win when several match one GPU group."""


# ---------------------------------------------------------------- power_capping


class PowerCappingParams(_Strict):
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
        if not _stored(info):
            _starts_within(self.schedule, "start_hours", "schedule", self.duration_hours, "h")
        return self


# ---------------------------------------------------------------- grid_limit


class CapacityStep(_Strict):
    """From ``start_hours`` on, the interconnect capacity is ``capacity_kw``."""

    start_hours: float = Field(0.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when this capacity applies (before the run ends)."""
    capacity_kw: float = Field(..., ge=0, le=MAX_KW, title="Capacity (kW)")
    """Grid capacity from this step on, kW (0: the grid gives nothing)."""


class GridEvent(_Strict):
    """A demand-response event: the interconnect capacity is cut by ``cut_fraction`` for a while."""

    start_hours: float = Field(14.0, ge=0, le=HOURS_A_YEAR, title="Starts at (h)")
    """Hours from the start of the run when the cut begins (before the run ends)."""
    duration_hours: float = Field(3.0, gt=0, le=HOURS_A_YEAR, title="Duration (h)")
    """How long the cut lasts, hours."""
    # Emerald AI's Phoenix field test (Colangelo et al., arXiv 2507.00909, 2025): 25 % for 3 h at peak grid demand.
    cut_fraction: float = Field(0.25, ge=0, le=1, title="Cut (fraction of capacity)")
    """Share of the grid capacity taken away during the event (0.25 = a quarter)."""


class GridLimitParams(_Strict):
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
        if steps > MAX_GRID_STEPS and not _stored(info):
            least = self.duration_hours * 60.0 / MAX_GRID_STEPS
            raise FieldError(
                "step_minutes",
                f"{self.duration_hours:g} h at {self.step_minutes:g} min is {steps:,} steps; at most "
                f"{MAX_GRID_STEPS:,}: a step of at least {least:.3g} min",
            )
        starts = [s.start_hours for s in self.capacity_schedule]
        if starts != sorted(starts):
            raise FieldError("capacity_schedule", "must be sorted by start_hours")
        if not _stored(info):
            _starts_within(
                self.capacity_schedule, "start_hours", "capacity_schedule", self.duration_hours, "h"
            )
            _starts_within(self.events, "start_hours", "events", self.duration_hours, "h")
        return self


# ---------------------------------------------------------------- liquid_cooling


class _CoolingEventBase(_Strict):
    target_id: int | None = Field(None, title="Unit or plant", json_schema_extra=picker("cooling_target"))
    """The cooling unit (or, for a chiller loss, the plant) that fails; empty: the one carrying the most GPUs."""
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


class LiquidCoolingParams(_Strict):
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
        if not _stored(info):
            _starts_within(self.events, "at_minutes", "events", self.duration_minutes, "min")
        return self


# ---------------------------------------------------------------- failure_cascade


class FailureCascadeParams(_Strict):
    duration_days: float = Field(30.0, gt=0, le=MAX_FAILURE_DAYS, title="Duration (d)")
    """Simulated time, days (at most ten years, 3,650 days)."""
    job_gpus: int | None = Field(None, gt=0, title="Job size (GPUs)")
    """GPUs in the training job; empty: every GPU of the campus less the hot spares."""
    gpu_models: list[str] | None = Field(None, title="GPU models", json_schema_extra=picker("gpu_model"))
    """Restrict the job to these GPU models; empty: every model."""
    recovery: Literal["checkpoint_restart", "in_memory", "hot_spares"] = Field(
        "checkpoint_restart", title="Recovery"
    )
    """How the job recovers: restart from the last checkpoint, copy the state from the peers' memory, or
    swap in a hot spare node."""
    checkpoint_interval_minutes: float | Literal["optimal"] = Field(
        "optimal", title="Checkpoint interval (min)"
    )
    """Time between checkpoints, minutes, or "optimal" (Young/Daly: the square root of 2 x write time x MTBF)."""
    # Kokolis et al. 2024 (Meta RSC): checkpoint write ~5 min, restart overhead 5-20 min.
    checkpoint_write_minutes: float = Field(
        default_value("checkpoint_write_minutes"), ge=0, le=MINUTES_A_WEEK
    )
    """Time the job spends writing one checkpoint, minutes."""
    restart_minutes: float = Field(default_value("restart_minutes"), ge=0, le=MINUTES_A_WEEK)
    """Time from the GPUs being back to the job training again, minutes."""
    # OPT-175B kept 12 spares for 124 nodes.
    hot_spares: int | None = Field(None, ge=0, title="Hot spare nodes")
    """Spare nodes held outside the job; empty: 10 % of the job's nodes with hot-spare recovery, 0 otherwise."""
    state_gb_per_gpu: float = Field(80.0, ge=0, le=10_000, title="State to copy (GB per GPU)")
    """In-memory recovery: training state copied from the peers' HBM to the replacement GPU."""
    fabric_gbps: float | None = Field(None, gt=0, le=100_000, title="Recovery bandwidth (Gbit/s per GPU)")
    """Back-end bandwidth that carries the copied state; empty: the node's NIC speed."""
    step_seconds: float = Field(
        10.0, gt=0, le=SECONDS_A_DAY, title="Training step (s)", json_schema_extra=ADVANCED
    )
    """Duration of one training step; in-memory recovery loses at most one step."""
    rate_set: str = Field("per-model", title="GPU failure rate set", json_schema_extra=ADVANCED)
    """"per-model": each GPU model's own generation set; otherwise the name of one set for every GPU."""
    include_infrastructure: bool = Field(True, title="Include facility failures")
    """Count utility, UPS, PDU, CDU, chiller and generator failures that take racks down."""
    infrastructure_set: str = Field(
        "infrastructure-estimates", title="Facility failure rate set", json_schema_extra=ADVANCED
    )
    """Name of the rate set for the facility equipment."""
    rate_overrides: dict[str, Annotated[float, Field(ge=1.0, le=1e12)]] = Field(
        default_factory=dict, title="MTBF overrides (h)", json_schema_extra=key_picker("failure_component")
    )
    """Mean time between failures per component, hours (1 h to 1e12 h), replacing the rate set's value."""
    repair_hours_overrides: dict[str, Annotated[float, Field(ge=0, le=10 * HOURS_A_YEAR)]] = Field(
        default_factory=dict,
        title="Repair time overrides (h)",
        json_schema_extra=key_picker("failure_component"),
    )
    """Repair time per component, hours, replacing the rate set's value."""
    precision: Precision = "bf16"
    """Number format the job trains in; sets the GPUs' peak throughput."""
    mfu: float = Field(default_value("mfu_bf16"), gt=0, le=1, title="Model FLOPs utilisation (0–1)")
    """Share of the peak throughput the job achieves."""
    series_points: int = Field(200, ge=2, le=20000, title="Chart points", json_schema_extra=ADVANCED)
    """Samples of each time series."""

    @field_validator("checkpoint_interval_minutes")
    @classmethod
    def _interval(cls, value: float | str) -> float | str:
        if value != "optimal" and not 0 < value <= MAX_CHECKPOINT_MINUTES:
            raise ValueError(
                f"must be > 0 and at most {MAX_CHECKPOINT_MINUTES:,.0f} min (ten years), or 'optimal'"
            )
        return value


# ---------------------------------------------------------------- power_dynamics


class DynamicsJob(_Strict):
    """A synchronous training job: every GPU of it computes, then communicates, in lock-step."""

    pods: list[int] | None = Field(None, title="Pods", json_schema_extra=picker("pod"))
    """Pods the job runs on; none ticked: every GPU of the campus."""
    iteration_seconds: float = Field(2.0, gt=0, le=3600, title="Iteration (s)")
    """One training step, seconds: the period of the power swing."""
    comm_fraction: float = Field(0.3, ge=0, lt=1, title="Communication share of an iteration (0–1)")
    """Share of each iteration the GPUs spend waiting on the network."""
    comm_power_fraction: float = Field(0.3, ge=0, le=1, title="Power while communicating (fraction of TDP)")
    """GPU power during the communication phase, as a fraction of TDP."""
    phase_offset_seconds: float = Field(0.0, ge=-SECONDS_A_WEEK, le=SECONDS_A_WEEK, title="Phase offset (s)")
    """Shift of this job's iterations against the others, seconds (two equal jobs half a period apart cancel)."""
    start_seconds: float | None = Field(0.0, ge=0, le=SECONDS_A_WEEK, title="Starts at (s)")
    """When the job starts training (a step, no ramp), seconds; empty: only a job start event starts it."""
    checkpoint_every_seconds: float | None = Field(
        None, gt=0, le=SECONDS_A_WEEK, title="Checkpoint every (s)"
    )
    """A checkpoint every so many seconds of training; the GPUs idle while it is written. Empty: none."""
    checkpoint_seconds: float = Field(30.0, ge=0, le=SECONDS_A_DAY, title="Checkpoint duration (s)")
    """How long writing one checkpoint takes, seconds."""


class DynamicsEvent(_Strict):
    """Something that happens at ``at_seconds``: a job crash, a job start (with a ramp), an extra checkpoint
    of a job, or a voltage dip on the grid."""

    kind: Literal["job_crash", "job_start", "checkpoint", "grid_dip"] = Field(
        "job_crash", title="What happens"
    )
    """Job crash, job start (with a ramp), an extra checkpoint of a job, or a grid voltage dip."""
    at_seconds: float = Field(600.0, ge=0, le=SECONDS_A_WEEK, title="At (s)")
    """Seconds from the start of the run when the event happens (before the run ends)."""
    job: int = Field(0, ge=0, title="Job (number in the list, from 0)")
    """Job crash, job start, checkpoint: the job it concerns, by its place in the job list (0 = the first)."""
    restart_after_seconds: float | None = Field(None, ge=0, le=SECONDS_A_WEEK, title="Restart after (s)")
    """Job crash: the job starts again this long after the crash, seconds; empty: it stays down."""
    ramp_seconds: float = Field(0.0, ge=0, le=SECONDS_A_WEEK, title="Ramp (s)")
    """Job start, and the restart after a crash: the job's power ramps linearly from idle over this time."""
    duration_seconds: float | None = Field(None, ge=0, le=SECONDS_A_DAY, title="Checkpoint duration (s)")
    """Checkpoint: how long it lasts, seconds; empty: the job's checkpoint duration."""
    trip_fraction: float = Field(0.5, ge=0, le=1, title="Load tripped (fraction, grid dip)")
    """Grid dip: the share of the campus load that trips off the grid (the rest rides through)."""
    return_seconds: float = Field(60.0, ge=0, le=SECONDS_A_WEEK, title="Off for (s, grid dip)")
    """Grid dip: how long the tripped load stays off, seconds."""
    return_ramp_seconds: float = Field(30.0, ge=0, le=SECONDS_A_WEEK, title="Return ramp (s, grid dip)")
    """Grid dip: the ramp over which the tripped load comes back, seconds."""


class SmoothingParams(_Strict):
    """GPU power smoothing as the driver controls define it (NVIDIA GB300 power smoothing): a power floor
    held while the job runs, and limits on how fast the GPU power may rise and fall."""

    floor_fraction: float = Field(0.0, ge=0, le=1, title="Power floor (fraction of TDP)")
    """Power each GPU holds at least while its job runs, as a fraction of TDP (0: no floor)."""
    ramp_up_w_per_s: float | None = Field(None, gt=0, le=1e9, title="Ramp-up limit (W/s per GPU)")
    """How fast a GPU's power may rise, W per second; empty: no limit."""
    ramp_down_w_per_s: float | None = Field(None, gt=0, le=1e9, title="Ramp-down limit (W/s per GPU)")
    """How fast a GPU's power may fall, W per second; empty: no limit."""


class BessParams(_Strict):
    """A battery at the grid connection that holds the grid draw to the load's trailing mean."""

    power_mw: float = Field(0.0, ge=0, le=MAX_MW, title="Battery power (MW)")
    """Rated charge and discharge power, MW; 0: no battery."""
    energy_mwh: float = Field(0.0, ge=0, le=MAX_MWH, title="Battery energy (MWh)")
    """Usable stored energy, MWh."""
    response_ms: float = Field(20.0, ge=0, le=60_000, title="Response time (ms)")
    """Delay before the battery answers a change of the load, milliseconds."""
    round_trip_efficiency: float = Field(0.85, gt=0, le=1, title="Round-trip efficiency (0–1)")
    """Energy out over energy in across one charge and discharge."""
    window_seconds: float = Field(60.0, gt=0, le=SECONDS_A_DAY, title="Averaging window (s)")
    """The grid draw the battery aims for: the load's mean over this trailing window, seconds."""


class GenerationParams(_Strict):
    """On-site generation following the load: it carries what the load draws above ``grid_import_mw``, up
    to its rating, at a limited ramp rate."""

    rating_mw: float = Field(0.0, ge=0, le=MAX_MW, title="Rating (MW)")
    """On-site generation capacity, MW; 0: none."""
    ramp_mw_per_s: float = Field(0.5, gt=0, title="Ramp rate (MW/s)")
    """How fast the generation can follow the load, MW per second."""
    grid_import_mw: float = Field(0.0, ge=0, le=MAX_MW, title="Grid import (MW)")
    """Load the grid carries before the on-site generation takes the rest, MW."""


class RequirementsParams(_Strict):
    """The interconnect's rules for the load (empty: no such rule)."""

    max_ramp_mw_per_s: float | None = Field(None, gt=0, title="Largest ramp (MW/s)")
    """The fastest change of the grid draw allowed, MW per second; empty: no rule."""
    max_ramp_mw_per_min: float | None = Field(None, gt=0, title="Largest ramp (MW/min)")
    """The largest change of the grid draw allowed within a minute, MW; empty: no rule."""
    max_swing_mw: float | None = Field(None, gt=0, title="Largest swing (MW)")
    """The largest peak-to-trough swing of the grid draw allowed, MW; empty: no rule."""
    band_hz: tuple[float, float] = Field((0.1, 3.0), title="Oscillation band (Hz)")
    """Lowest and highest frequency of the band whose oscillation is limited, Hz."""
    max_band_mw: float | None = Field(None, gt=0, title="Largest oscillation in the band (MW)")
    """The largest oscillation amplitude allowed within the band, MW; empty: no rule."""

    @model_validator(mode="after")
    def _band(self) -> RequirementsParams:
        lo, hi = self.band_hz
        if not 0 < lo < hi:
            raise FieldError("band_hz", "must be [lo, hi] with 0 < lo < hi")
        if lo < MIN_BAND_HZ:
            # The spectrum is taken on segments of 8 periods of the band's lowest frequency.
            raise FieldError(
                "band_hz", f"must start at {MIN_BAND_HZ:g} Hz or above (a period of 1,000 s at most)"
            )
        return self


class PowerDynamicsParams(_Strict):
    resolution_ms: float = Field(100.0, ge=1, le=60_000, title="Time step (ms)", json_schema_extra=ADVANCED)
    """Resolution of the simulated power, milliseconds."""
    duration_seconds: float = Field(3600.0, gt=0, le=7 * 86_400, title="Duration (s)")
    """Simulated time, seconds."""
    jobs: list[DynamicsJob] = Field(
        default_factory=lambda: [DynamicsJob()], min_length=1, title="Training jobs"
    )
    """The synchronous jobs whose iterations make the power swing (at least one)."""
    events: list[DynamicsEvent] = Field(
        default_factory=lambda: [
            DynamicsEvent(kind="job_crash", at_seconds=1800.0, restart_after_seconds=600.0, ramp_seconds=60.0)
        ],
        title="Events",
    )
    """Job crashes and starts, extra checkpoints and grid voltage dips, each at its own time."""
    # A GPU in no job (or a job that is down) idles at this fraction of TDP (H100: ~70-100 W of 700 W).
    idle_gpu_fraction: float = Field(0.12, ge=0, le=1, title="Idle GPU power (fraction of TDP)")
    """Power of a GPU in no job, or in a job that is down, as a fraction of TDP (H100: about 70-100 W of 700 W)."""
    pue: float | None = Field(None, ge=1, le=MAX_PUE, title="PUE")
    """Facility power / IT power; empty: the campus PUE (typed, or the plant model's in its weather)."""
    smoothing: SmoothingParams = Field(default_factory=SmoothingParams, title="GPU power smoothing")
    """A power floor and ramp limits set in the GPUs' driver."""
    rack_storage_j_per_gpu: float = Field(0.0, ge=0, le=1e9, title="Rack energy storage (J per GPU)")
    """Energy stored in the power supplies or rack per GPU, joules; 0: none."""
    # None (or left out): the campus's own energy storage and prime-rated generators (power_dynamics
    # .campus_assets); given (power_mw / rating_mw 0 for none), they replace the campus's.
    bess: BessParams | None = Field(None, title="Battery at the grid connection")
    """A battery that holds the grid draw near the load's trailing mean; empty: the campus's own energy
    storage. Given (power 0 for none), it replaces the campus's."""
    generation: GenerationParams | None = Field(None, title="On-site generation")
    """Generation that follows the load above a grid import level; empty: the campus's own prime-rated
    generators. Given (rating 0 for none), it replaces the campus's."""
    requirements: RequirementsParams = Field(
        default_factory=lambda: RequirementsParams(
            max_ramp_mw_per_s=20.0, max_ramp_mw_per_min=100.0, max_swing_mw=75.0, max_band_mw=10.0
        ),
        title="Interconnect requirements",
    )
    """The grid operator's limits on ramps, swings and oscillation the run is checked against."""
    series_points: int = Field(2000, ge=10, le=2000, title="Chart points", json_schema_extra=ADVANCED)
    """Points of the chart series (min/max envelopes keep the swings visible)."""
    search: bool = Field(True, title="Search the smallest compliant battery and floor")
    """Search the smallest battery and power floor that comply, and sweep both for the sizing chart."""
    sizing_points: int = Field(9, ge=2, le=33, title="Sizing chart points", json_schema_extra=ADVANCED)
    """Points of each sweep of the sizing chart."""
    waveform_start_seconds: float | None = Field(
        None, ge=0, le=SECONDS_A_WEEK, title="Waveform window start (s)"
    )
    """Start of the full-resolution window kept for the zoomable waveform; empty: 10 s before the first event."""
    waveform_seconds: float = Field(60.0, gt=0, le=600, title="Waveform window length (s)")
    """Length of the full-resolution window kept for the zoomable waveform, seconds."""


# Tags pydantic puts in an error location for the member of a union that failed, not a field name.
_UNION_TAGS = frozenset({"float", "int", "str", "bool", "literal['optimal']", "none"})
# Tags of the tagged unions (the kinds of cooling event): also left out of a path, named in the message.
_EVENT_TAGS = frozenset({"cdu_loss", "pump_loss", "chiller_loss", "supply_temp_excursion"})


def _path(loc: tuple[Any, ...]) -> str:
    """("caps", 0, "cap_w") -> "caps[0].cap_w"."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _model(kind: str) -> type[BaseModel]:
    # Each kind's module names its Params in the registry (imported here: the modules import this one).
    from simulations.engine.registry import model

    try:
        return model(kind).Params
    except KeyError:
        raise ParamsError(
            [{"field": "kind", "message": f"unknown kind {kind!r}; one of {', '.join(KINDS)}"}]
        ) from None


def validate_params(kind: str, data: dict[str, Any] | None, *, stored: bool = False) -> BaseModel:
    """Validate ``data`` for ``kind``; raise ParamsError naming each bad field as ``a.b[0].c``. ``stored``:
    the parameters of a run already made, read back (for its explanation): an event outside the run's window
    or too many steps, refused for a new run, are let through."""
    model = _model(kind)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ParamsError([{"field": "", "message": "parameters must be an object"}])
    try:
        return model.model_validate(data, context={"stored": True} if stored else None)
    except ValidationError as exc:
        # Union members report one error each under the same field: merge them into one message.
        by_field: dict[str, list[str]] = {}
        for err in exc.errors():
            tags = [p for p in err["loc"] if isinstance(p, str) and p in _EVENT_TAGS]
            parts = [
                p for p in err["loc"] if not (isinstance(p, str) and (p in _UNION_TAGS or p in _EVENT_TAGS))
            ]
            msg = err["msg"].removeprefix("Value error, ")
            cause = (err.get("ctx") or {}).get("error")
            if isinstance(cause, FieldError):
                parts = [*parts, cause.field]
                msg = str(cause)
            if tags and err["type"] == "extra_forbidden":
                msg = f"does not apply to a {tags[-1]} event"
            if "[key]" in parts:
                parts.remove("[key]")
                msg = f"invalid key: {msg}"
            messages = by_field.setdefault(_path(tuple(parts)), [])
            if msg not in messages:
                messages.append(msg)
        raise ParamsError([{"field": f, "message": " or ".join(m)} for f, m in by_field.items()]) from None


def params_json_schema(kind: str) -> dict[str, Any]:
    """JSON schema of one kind's parameters (for the API and the form)."""
    return _model(kind).model_json_schema()


def default_params(kind: str) -> dict[str, Any]:
    """Every parameter of ``kind`` at its default, as JSON-ready data."""
    return _model(kind)().model_dump(mode="json")


# ---------------------------------------------------------------- heat_wave


class HeatWaveParams(_Strict):
    """A heat wave over the campus's weather year (docs/scenarios.md, heat_wave)."""

    # Day of the year the wave starts, 1 = 1 January; 196 = 15 July (northern summer).
    start_day: int = Field(196, ge=1, le=365, title="First day (day of the year)")
    """Day of the year the wave starts: 1 = 1 January, 196 = 15 July (northern summer)."""
    days: int = Field(5, ge=1, le=365, title="Length (days)")
    """How many days the wave lasts; it must end by day 365."""
    # Added to the dry bulb of every hour of the wave; the air keeps its moisture (dew point).
    temperature_rise_k: float = Field(5.0, ge=0, le=25, title="Temperature rise (K)")
    """Added to the dry-bulb temperature of every hour of the wave, K; the air keeps its moisture (dew point)."""

    @field_validator("days")
    @classmethod
    def _ends_in_the_year(cls, days: int, info: ValidationInfo) -> int:
        start = info.data.get("start_day")
        if start is not None and start + days - 1 > 365:
            raise ValueError(f"the wave must end by day 365: at most {366 - start} days from day {start}")
        return days
