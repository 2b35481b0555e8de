"""Validated parameters of every scenario kind.

One pydantic model per kind. Every field has a default, so ``{}`` is a valid parameter set; unknown keys are
rejected so that a typo never silently falls back to a default. Units are in the field names. Where each
default comes from is documented in docs/scenarios.md.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from campus.catalog_data import default_value
from simulations.engine.contract import ScenarioKind

KINDS: tuple[str, ...] = tuple(k.value for k in ScenarioKind)


class ParamsError(ValueError):
    """Invalid scenario parameters; ``errors`` is a list of {"field": "a.b[0].c", "message": ...}."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e['field']}: {e['message']}" for e in errors))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------- shared pieces


class ThroughputParams(_Strict):
    """How fast the GPUs train: the peak at ``precision`` times the model FLOPs utilisation."""

    precision: Literal["fp8", "bf16", "fp16", "tf32", "fp32"] = "bf16"
    # Model FLOPs utilisation at full power: ~40 % BF16 on H100 (SemiAnalysis, 100k H100 clusters, 2024-06),
    # 38-43 % for Llama 3 405B (The Llama 3 Herd of Models, arXiv 2407.21783, §3.3.2, Table 4).
    mfu: float = Field(default_value("mfu_bf16"), gt=0, le=1)


class JobParams(ThroughputParams):
    """A synchronous job that checkpoints and restarts after an interruption."""

    # BLOOM 176B checkpointed every 3 h (catalog TRAINING_DEFAULTS).
    checkpoint_interval_minutes: float = Field(default_value("checkpoint_interval_minutes"), gt=0)
    # Kokolis et al. 2024 (Meta RSC): checkpoint write ~5 min, restart overhead 5-20 min.
    checkpoint_write_minutes: float = Field(default_value("checkpoint_write_minutes"), ge=0)
    restart_minutes: float = Field(default_value("restart_minutes"), ge=0)


class CapRule(_Strict):
    """A power cap for the GPUs of one model and/or one pod (both None: every GPU)."""

    gpu_model: str | None = None
    pod_id: int | None = None
    cap_fraction: float | None = Field(None, gt=0, le=1.5)
    cap_w: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_cap(self) -> CapRule:
        if (self.cap_fraction is None) == (self.cap_w is None):
            raise ValueError("give exactly one of cap_fraction (of TDP) or cap_w")
        return self


class CapStep(_Strict):
    start_hours: float = Field(0.0, ge=0)
    caps: list[CapRule] = Field(default_factory=list)


# ---------------------------------------------------------------- power_capping


class PowerCappingParams(_Strict):
    duration_hours: float = Field(24.0, gt=0)
    # Static caps applied from t = 0 (later rules win when several match one GPU group).
    caps: list[CapRule] = Field(default_factory=lambda: [CapRule(cap_fraction=0.8)])
    # Cap changes over time; each step replaces the caps in force from start_hours on.
    schedule: list[CapStep] = Field(default_factory=list)
    utilization: float = Field(1.0, ge=0, le=1)
    pue: float | None = Field(None, ge=1)  # None: the campus design PUE
    price_usd_per_kwh: float | None = Field(None, ge=0)  # None: the campus price
    job: ThroughputParams = Field(default_factory=ThroughputParams)
    # "campus": one synchronous job over every GPU (slowest member sets the pace); "pod": one job per pod.
    job_scope: Literal["campus", "pod"] = "pod"

    @model_validator(mode="after")
    def _sorted_schedule(self) -> PowerCappingParams:
        starts = [s.start_hours for s in self.schedule]
        if starts != sorted(starts):
            raise ValueError("schedule must be sorted by start_hours")
        return self


# ---------------------------------------------------------------- grid_limit


class CapacityStep(_Strict):
    start_hours: float = Field(0.0, ge=0)
    capacity_kw: float = Field(..., ge=0)


class GridEvent(_Strict):
    """A demand-response event: the interconnect capacity is cut by ``cut_fraction`` for a while."""

    start_hours: float = Field(14.0, ge=0)
    duration_hours: float = Field(3.0, gt=0)
    # Emerald AI's Phoenix field test (Colangelo et al., arXiv 2507.00909, 2025): 25 % for 3 h at peak grid demand.
    cut_fraction: float = Field(0.25, ge=0, le=1)


class GridLimitParams(_Strict):
    duration_hours: float = Field(24.0, gt=0)
    step_minutes: float = Field(1.0, gt=0, le=60)
    capacity_kw: float | None = Field(None, ge=0)  # None: the campus grid capacity
    capacity_schedule: list[CapacityStep] = Field(default_factory=list)
    events: list[GridEvent] = Field(default_factory=lambda: [GridEvent()])
    policy: Literal["cap", "pause", "ride_through", "generators"] = "cap"
    # Pods paused first under "pause" (lower number first); pods not named come last, highest id first.
    pod_priorities: dict[int, int] = Field(default_factory=dict)
    utilization: float = Field(1.0, ge=0, le=1)
    pue: float | None = Field(None, ge=1)
    # A paused GPU idles at this fraction of its TDP (estimate: H100 idles near 70-100 W of 700 W).
    idle_gpu_fraction: float = Field(0.12, ge=0, le=1)
    # Battery energy: None derives it from the UPSs of the snapshot (rated_kw x battery_minutes).
    battery_kwh: float | None = Field(None, ge=0)
    battery_initial_fraction: float = Field(1.0, ge=0, le=1)
    battery_recharge_kw: float | None = Field(None, ge=0)  # None: 10 % of the battery's rated discharge
    # Generators: None derives capacity, start delay and ramp from the snapshot's generator devices.
    generator_kw: float | None = Field(None, ge=0)
    generator_start_delay_s: float | None = Field(None, ge=0)
    generator_ramp_s: float | None = Field(None, ge=0)
    # Chance that a generator call fails (IEEE 493 order of magnitude, catalog POWER_DEFAULTS).
    generator_fail_to_start_probability: float = Field(
        default_value("generator_fail_to_start_probability"), ge=0, le=1
    )
    job: ThroughputParams = Field(default_factory=ThroughputParams)

    @model_validator(mode="after")
    def _sorted_schedule(self) -> GridLimitParams:
        starts = [s.start_hours for s in self.capacity_schedule]
        if starts != sorted(starts):
            raise ValueError("capacity_schedule must be sorted by start_hours")
        return self


# ---------------------------------------------------------------- liquid_cooling


class _CoolingEventBase(_Strict):
    # The cooling unit (cdu_loss, pump_loss, supply_temp_excursion) or plant (chiller_loss) id;
    # None picks the unit or plant carrying the most GPUs.
    target_id: int | None = None
    at_minutes: float = Field(5.0, ge=0)
    # Time until flow / heat rejection is back (repair or failover), min.
    repair_minutes: float = Field(30.0, ge=0)


class CduLossEvent(_CoolingEventBase):
    """A coolant distribution unit stops: its racks lose their flow (its N+1 peers may take the load)."""

    kind: Literal["cdu_loss"] = "cdu_loss"


class PumpLossEvent(_CoolingEventBase):
    """A unit keeps running on its remaining pumps."""

    kind: Literal["pump_loss"] = "pump_loss"
    # The flow left with the remaining pumps, fraction of nominal (one of two pumps lost).
    remaining_flow_fraction: float = Field(0.5, ge=0, le=1)


class ChillerLossEvent(_CoolingEventBase):
    """A cooling plant stops rejecting heat; its loop warms until it is back."""

    kind: Literal["chiller_loss"] = "chiller_loss"


class SupplyTempExcursionEvent(_CoolingEventBase):
    """A unit's supply temperature rises."""

    kind: Literal["supply_temp_excursion"] = "supply_temp_excursion"
    # Supply temperature rise, K.
    supply_rise_k: float = Field(10.0, ge=0)


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
    duration_minutes: float = Field(120.0, gt=0)
    events: list[CoolingEvent] = Field(default_factory=lambda: [CduLossEvent()])
    # Chiller restart after the repair; None: the plant's restart_minutes (chillers take minutes to restart after
    # a power event: Schneider Electric White Paper 179, Data Center Temperature Rise During a Cooling System Outage).
    chiller_restart_minutes: float | None = Field(None, ge=0)
    # Lumped RC per kW of load, C dT/dt = P - G (T - T_coolant) (catalog COOLING_DEFAULTS, estimates fitted
    # to shutdown "in under a minute" at 10 kW+ per cabinet and in minutes at 5 kW: Opengate Data Systems' Data
    # Center Emergency Cooling Study for Active Power, 2007).
    liquid_heat_capacity_j_per_k_per_kw: float = Field(
        default_value("liquid_heat_capacity_j_per_k_per_kw"), gt=0
    )
    liquid_conductance_w_per_k_per_kw: float = Field(default_value("liquid_conductance_w_per_k_per_kw"), gt=0)
    air_heat_capacity_j_per_k_per_kw: float = Field(default_value("air_heat_capacity_j_per_k_per_kw"), gt=0)
    air_conductance_w_per_k_per_kw: float = Field(default_value("air_conductance_w_per_k_per_kw"), gt=0)
    # Conductance left without forced flow (natural convection, conduction to the frame), fraction of nominal.
    residual_conductance_fraction: float = Field(0.03, ge=0, le=1)
    # G ~ flow^0.8 (turbulent forced convection, Dittus-Boelter).
    flow_exponent: float = Field(0.8, ge=0)
    # Coolant loop water per kW of heat, L/kW: heats the loop while the chiller is down (estimate).
    loop_volume_l_per_kw: float = Field(3.0, gt=0)
    node_restart_minutes: float = Field(15.0, ge=0)
    # Time series sample points (the solution itself is exact between events).
    series_points: int = Field(600, ge=10, le=20000)
    # One "rack.<id>.gpu_temp_c" series per affected rack (at most 512), for replay on the floor map.
    rack_series: bool = True
    job: JobParams = Field(default_factory=JobParams)


# ---------------------------------------------------------------- failure_cascade


class FailureCascadeParams(_Strict):
    duration_days: float = Field(30.0, gt=0)
    job_gpus: int | None = Field(None, gt=0)  # None: every GPU of the campus (less the hot spares)
    gpu_models: list[str] | None = None  # restrict the job to these GPU models; None: all
    recovery: Literal["checkpoint_restart", "in_memory", "hot_spares"] = "checkpoint_restart"
    checkpoint_interval_minutes: float | Literal["optimal"] = "optimal"
    # Kokolis et al. 2024 (Meta RSC): checkpoint write ~5 min, restart overhead 5-20 min.
    checkpoint_write_minutes: float = Field(default_value("checkpoint_write_minutes"), ge=0)
    restart_minutes: float = Field(default_value("restart_minutes"), ge=0)
    # Spare nodes held outside the job; None: 10 % of the job's nodes under "hot_spares" (OPT-175B kept
    # 12 spares for 124 nodes), 0 otherwise.
    hot_spares: int | None = Field(None, ge=0)
    # In-memory recovery: state copied from the peers' HBM to the replacement GPU, GB per GPU, and the
    # back-end bandwidth per GPU that carries it (None: the node's NIC speed).
    state_gb_per_gpu: float = Field(80.0, ge=0)
    fabric_gbps: float | None = Field(None, gt=0)
    step_seconds: float = Field(10.0, gt=0)
    # "per-model": each GPU model's own generation set (campus.analysis.reliability); else one set for all
    rate_set: str = "per-model"
    include_infrastructure: bool = True
    infrastructure_set: str = "infrastructure-estimates"
    rate_overrides: dict[str, PositiveFloat] = Field(default_factory=dict)  # component -> mtbf_hours
    repair_hours_overrides: dict[str, NonNegativeFloat] = Field(
        default_factory=dict
    )  # component -> repair hours
    precision: Literal["fp8", "bf16", "fp16", "tf32", "fp32"] = "bf16"
    mfu: float = Field(default_value("mfu_bf16"), gt=0, le=1)
    series_points: int = Field(200, ge=2, le=20000)

    @model_validator(mode="after")
    def _checks(self) -> FailureCascadeParams:
        if self.checkpoint_interval_minutes != "optimal" and not self.checkpoint_interval_minutes > 0:
            raise ValueError("checkpoint_interval_minutes must be > 0 or 'optimal'")
        return self


# ---------------------------------------------------------------- power_dynamics


class DynamicsJob(_Strict):
    """A synchronous training job: every GPU of it computes, then communicates, in lock-step."""

    # Pod ids the job runs on; None: every GPU of the campus.
    pods: list[int] | None = None
    # One training step, s (seconds per iteration: the period of the power swing).
    iteration_seconds: float = Field(2.0, gt=0)
    # Share of an iteration spent communicating (the GPUs wait on the network), 0..1.
    comm_fraction: float = Field(0.3, ge=0, lt=1)
    # GPU power while communicating, fraction of TDP.
    comm_power_fraction: float = Field(0.3, ge=0, le=1)
    # Shift of the job's iterations against the others, s (two equal jobs half a period apart cancel).
    phase_offset_seconds: float = 0.0
    # When the job starts training (a step, no ramp), s; None: only a job_start event starts it.
    start_seconds: float | None = Field(0.0, ge=0)
    # A checkpoint every so many seconds of training (None: none); the GPUs idle while it is written.
    checkpoint_every_seconds: float | None = Field(None, gt=0)
    checkpoint_seconds: float = Field(30.0, ge=0)


class DynamicsEvent(_Strict):
    """Something that happens at ``at_seconds``: a job crash, a job start (with a ramp), an extra checkpoint
    of a job, or a voltage dip on the grid."""

    kind: Literal["job_crash", "job_start", "checkpoint", "grid_dip"] = "job_crash"
    at_seconds: float = Field(600.0, ge=0)
    # job_crash, job_start, checkpoint: the job, by its index in ``jobs``.
    job: int = Field(0, ge=0)
    # job_crash: the job starts again this long after the crash (None: it stays down).
    restart_after_seconds: float | None = Field(None, ge=0)
    # job_start, and the restart after a job_crash: the job's power ramps linearly from idle over this time, s.
    ramp_seconds: float = Field(0.0, ge=0)
    # checkpoint: how long it lasts, s (None: the job's checkpoint_seconds).
    duration_seconds: float | None = Field(None, ge=0)
    # grid_dip: the share of the campus load that trips off the grid (the rest rides through), 0..1 ...
    trip_fraction: float = Field(0.5, ge=0, le=1)
    # ... how long it stays off, s, and the ramp over which it comes back, s.
    return_seconds: float = Field(60.0, ge=0)
    return_ramp_seconds: float = Field(30.0, ge=0)


class SmoothingParams(_Strict):
    """GPU power smoothing as the driver controls define it (NVIDIA GB300 power smoothing): a power floor
    held while the job runs, and limits on how fast the GPU power may rise and fall."""

    floor_fraction: float = Field(0.0, ge=0, le=1)  # of TDP
    ramp_up_w_per_s: float | None = Field(None, gt=0)  # per GPU; None: no limit
    ramp_down_w_per_s: float | None = Field(None, gt=0)  # per GPU; None: no limit


class BessParams(_Strict):
    """A battery at the grid connection that holds the grid draw to the load's trailing mean."""

    power_mw: float = Field(0.0, ge=0)  # 0: no battery
    energy_mwh: float = Field(0.0, ge=0)
    # Delay before it answers a change of the load, ms.
    response_ms: float = Field(20.0, ge=0)
    round_trip_efficiency: float = Field(0.85, gt=0, le=1)
    # The grid draw it aims for: the load's mean over this trailing window, s.
    window_seconds: float = Field(60.0, gt=0)


class GenerationParams(_Strict):
    """On-site generation following the load: it carries what the load draws above ``grid_import_mw``, up
    to its rating, at a limited ramp rate."""

    rating_mw: float = Field(0.0, ge=0)  # 0: none
    ramp_mw_per_s: float = Field(0.5, gt=0)
    grid_import_mw: float = Field(0.0, ge=0)


class RequirementsParams(_Strict):
    """The interconnect's rules for the load (None: no such rule)."""

    max_ramp_mw_per_s: float | None = Field(None, gt=0)
    max_ramp_mw_per_min: float | None = Field(None, gt=0)
    max_swing_mw: float | None = Field(None, gt=0)
    band_hz: tuple[float, float] = (0.1, 3.0)
    max_band_mw: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _band(self) -> RequirementsParams:
        lo, hi = self.band_hz
        if not 0 < lo < hi:
            raise ValueError("band_hz must be [lo, hi] with 0 < lo < hi")
        return self


class PowerDynamicsParams(_Strict):
    resolution_ms: float = Field(100.0, ge=1, le=60_000)
    duration_seconds: float = Field(3600.0, gt=0, le=7 * 86_400)
    jobs: list[DynamicsJob] = Field(default_factory=lambda: [DynamicsJob()], min_length=1)
    events: list[DynamicsEvent] = Field(
        default_factory=lambda: [
            DynamicsEvent(kind="job_crash", at_seconds=1800.0, restart_after_seconds=600.0, ramp_seconds=60.0)
        ]
    )
    # A GPU in no job (or a job that is down) idles at this fraction of TDP (H100: ~70-100 W of 700 W).
    idle_gpu_fraction: float = Field(0.12, ge=0, le=1)
    pue: float | None = Field(None, ge=1)  # None: the campus design PUE
    smoothing: SmoothingParams = Field(default_factory=SmoothingParams)
    # Energy stored in the power supplies / rack per GPU, J (0: none).
    rack_storage_j_per_gpu: float = Field(0.0, ge=0)
    # None (or left out): the campus's own energy storage and prime-rated generators (power_dynamics
    # .campus_assets); given (power_mw / rating_mw 0 for none), they replace the campus's.
    bess: BessParams | None = None
    generation: GenerationParams | None = None
    requirements: RequirementsParams = Field(
        default_factory=lambda: RequirementsParams(
            max_ramp_mw_per_s=20.0, max_ramp_mw_per_min=100.0, max_swing_mw=75.0, max_band_mw=10.0
        )
    )
    # Points of the chart series (min/max envelopes keep the swings visible).
    series_points: int = Field(2000, ge=10, le=2000)
    # Search the smallest battery and power floor that comply, and sweep both for the sizing chart.
    search: bool = True
    sizing_points: int = Field(9, ge=2, le=33)
    # Full-resolution window kept for the zoomable waveform, s; None: 10 s before the first event (or 0).
    waveform_start_seconds: float | None = Field(None, ge=0)
    waveform_seconds: float = Field(60.0, gt=0, le=600)


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


def validate_params(kind: str, data: dict[str, Any] | None) -> BaseModel:
    """Validate ``data`` for ``kind``; raise ParamsError naming each bad field as ``a.b[0].c``."""
    model = _model(kind)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ParamsError([{"field": "", "message": "parameters must be an object"}])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        # Union members report one error each under the same field: merge them into one message.
        by_field: dict[str, list[str]] = {}
        for err in exc.errors():
            tags = [p for p in err["loc"] if isinstance(p, str) and p in _EVENT_TAGS]
            parts = [
                p for p in err["loc"] if not (isinstance(p, str) and (p in _UNION_TAGS or p in _EVENT_TAGS))
            ]
            msg = err["msg"].removeprefix("Value error, ")
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
    start_day: int = Field(196, ge=1, le=365)
    days: int = Field(5, ge=1, le=365)
    # Added to the dry bulb of every hour of the wave; the air keeps its moisture (dew point).
    temperature_rise_k: float = Field(5.0, ge=0, le=25)

    @field_validator("days")
    @classmethod
    def _ends_in_the_year(cls, days: int, info: ValidationInfo) -> int:
        start = info.data.get("start_day")
        if start is not None and start + days - 1 > 365:
            raise ValueError(f"the wave must end by day 365: at most {366 - start} days from day {start}")
        return days
