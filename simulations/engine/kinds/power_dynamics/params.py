"""The parameters of power_dynamics: the synchronous jobs, events, smoothing, storage, on-site generation and
the interconnect's requirements."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from campus.analysis.grid_rules import DEFAULT_RULE_SET, RULE_SETS
from campus.catalog_data import default_value
from simulations.engine.fields import (
    ADVANCED,
    MAX_MW,
    MAX_MWH,
    MAX_PUE,
    MIN_BAND_HZ,
    SECONDS_A_DAY,
    SECONDS_A_WEEK,
    FieldError,
    ParamsBase,
    picker,
)
from simulations.engine.replay import LoadSource


class DynamicsJob(ParamsBase):
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
    checkpoint_seconds: float | None = Field(None, ge=0, le=SECONDS_A_DAY, title="Checkpoint duration (s)")
    """How long writing one checkpoint takes, seconds; empty: from the hardware (the checkpoint model of a
    preset job on the job's GPUs against the campus's storage; the catalog's 5 min without one). A number
    overrides it."""


class DynamicsEvent(ParamsBase):
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


class SmoothingParams(ParamsBase):
    """GPU power smoothing as the driver controls define it (NVIDIA GB300 power smoothing): a power floor
    held while the job runs, and limits on how fast the GPU power may rise and fall."""

    floor_fraction: float = Field(0.0, ge=0, le=1, title="Power floor (fraction of TDP)")
    """Power each GPU holds at least while its job runs, as a fraction of TDP (0: no floor)."""
    ramp_up_w_per_s: float | None = Field(None, gt=0, le=1e9, title="Ramp-up limit (W/s per GPU)")
    """How fast a GPU's power may rise, W per second; empty: no limit."""
    ramp_down_w_per_s: float | None = Field(None, gt=0, le=1e9, title="Ramp-down limit (W/s per GPU)")
    """How fast a GPU's power may fall, W per second; empty: no limit."""


class BessParams(ParamsBase):
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


class GenerationParams(ParamsBase):
    """On-site generation following the load: it carries what the load draws above ``grid_import_mw``, up
    to its rating, at a limited ramp rate."""

    rating_mw: float = Field(0.0, ge=0, le=MAX_MW, title="Rating (MW)")
    """On-site generation capacity, MW; 0: none."""
    ramp_mw_per_s: float = Field(0.5, gt=0, title="Ramp rate (MW/s)")
    """How fast the generation can follow the load, MW per second."""
    grid_import_mw: float = Field(0.0, ge=0, le=MAX_MW, title="Grid import (MW)")
    """Load the grid carries before the on-site generation takes the rest, MW."""
    prime_mover: Literal["gas_turbine", "recip_engine"] = Field("gas_turbine", title="Prime mover")
    """The units' mover: its heat rate against load sets the fuel and the CO2 (grid_limit's model, docs/grid.md)."""
    fuel_usd_per_mwh: float = Field(
        default_value("generator_fuel_usd_per_mwh_gas"), ge=0, le=1e5, title="Fuel at full load (USD/MWh)"
    )
    """Fuel per MWh generated at full load (catalog generator_fuel_usd_per_mwh_gas)."""


class RequirementsParams(ParamsBase):
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


def rule_set_requirements(rule_set: str) -> RequirementsParams:
    r = RULE_SETS[rule_set]
    return RequirementsParams(
        max_ramp_mw_per_s=r.max_ramp_mw_per_s,
        max_ramp_mw_per_min=r.max_ramp_mw_per_min,
        max_swing_mw=r.max_swing_mw,
        band_hz=r.band_hz,
        max_band_mw=r.max_band_mw,
    )


class PowerDynamicsParams(ParamsBase):
    resolution_ms: float = Field(100.0, ge=1, le=60_000, title="Time step (ms)", json_schema_extra=ADVANCED)
    """Resolution of the simulated power, milliseconds."""
    duration_seconds: float = Field(3600.0, gt=0, le=7 * 86_400, title="Duration (s)")
    """Simulated time, seconds (a replayed load: its series' span instead)."""
    load_source: LoadSource = Field(default_factory=LoadSource, title="Load source")
    """The synthetic training waveform of the jobs below, or a measured power series replayed at the grid
    connection (the jobs, their events and the GPUs' smoothing then do not apply; grid dips, the battery and
    the generation do; docs/live.md, "Replay")."""
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
    rule_set: Literal[tuple(RULE_SETS) + ("custom",)] = Field(  # type: ignore[valid-type]
        DEFAULT_RULE_SET, title="Interconnection rule set"
    )
    """Whose limits the run is checked against: a rule set of the catalog (docs/grid.md, "Large-load
    rules"), or custom (the requirements given)."""
    requirements: RequirementsParams = Field(
        default_factory=lambda: rule_set_requirements(DEFAULT_RULE_SET), title="Interconnect requirements"
    )
    """The grid operator's limits on ramps, swings and oscillation the run is checked against: the rule
    set's; given, they are the custom set's."""
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

    @model_validator(mode="before")
    @classmethod
    def _rules(cls, data: Any) -> Any:
        """Requirements given without a rule set are a custom set. A named rule set brings its own
        requirements: requirements given beside it that are some rule set's (a form's untouched defaults, a
        stored run's) give way to it; edited ones need rule_set 'custom'."""
        if not isinstance(data, dict):
            return data
        given, named = data.get("requirements"), data.get("rule_set")
        if given is not None and named is None:
            return {**data, "rule_set": "custom"}
        if named in RULE_SETS:
            if given is not None:
                try:
                    req = RequirementsParams.model_validate(given)
                except ValidationError:
                    return data  # the field's own validation names what is wrong
                if all(req != rule_set_requirements(r) for r in RULE_SETS):
                    raise FieldError(
                        "requirements", f"differ from rule set {named!r}: give rule_set 'custom' with them"
                    )
            return {**data, "requirements": rule_set_requirements(named).model_dump()}
        return data
        given, named = data.get("requirements"), data.get("rule_set")
        if given is not None and named is None:
            return {**data, "rule_set": "custom"}
        if named in RULE_SETS:
            own = rule_set_requirements(named)
            if given is None:
                return {**data, "requirements": own.model_dump()}
            try:
                same = RequirementsParams.model_validate(given) == own
            except ValidationError:
                return data  # the field's own validation names what is wrong
            if not same:
                raise FieldError(
                    "requirements", f"differ from rule set {named!r}: give rule_set 'custom' with them"
                )
        return data
