"""The parameters of failure_cascade: the job, its recovery, and the failure rate sets with their
overrides."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from simulations.engine.fields import (
    ADVANCED,
    HOURS_A_YEAR,
    MAX_CHECKPOINT_MINUTES,
    MAX_FAILURE_DAYS,
    MINUTES_A_WEEK,
    SECONDS_A_DAY,
    ParamsBase,
    Precision,
    key_picker,
    picker,
)


class ServerPool(ParamsBase):
    """The job's servers one by one (the standard case of AI-cluster failure simulators such as AIReSim,
    Kokolis et al. 2024): bad servers, warm standbys, a spare pool and a repair pipeline."""

    warm_standbys: int = Field(0, ge=0, le=1_000_000, title="Warm standby nodes")
    """Nodes assigned to the job beside its own: a failed node is swapped for one after the recovery, with
    no new host selection."""
    spare_pool_nodes: int = Field(0, ge=0, le=1_000_000, title="Spare pool nodes")
    """Nodes running preemptible work, drawn one by one when the working pool cannot staff the job; it can
    run dry."""
    preemption_minutes: float = Field(20.0, ge=0, le=MINUTES_A_WEEK, title="Preemption (min)")
    """Time to take one node from the spare pool's work."""
    host_selection_minutes: float = Field(3.0, ge=0, le=MINUTES_A_WEEK, title="Host selection (min)")
    """Time to choose the job's nodes again once the warm standbys are used up."""
    bad_server_fraction: float = Field(0.0, ge=0, le=1, title="Bad servers (0–1)")
    """Share of every node (job, standbys, working pool, spare pool) that is bad at the start."""
    bad_server_rate_multiple: float = Field(1.0, ge=1, le=1000, title="Bad server failure rate (× base)")
    """A bad node fails at this multiple of the base rate until a repair that works makes it good."""
    auto_repair_hours: float = Field(2.0, ge=0, le=10 * HOURS_A_YEAR, title="Automatic repair (h)")
    """Mean time of the automatic repair every failed node goes through (exponential)."""
    manual_repair_hours: float = Field(48.0, ge=0, le=10 * HOURS_A_YEAR, title="Manual repair (h)")
    """Mean time of the manual repair an escalated node goes through (exponential)."""
    escalation_probability: float = Field(0.8, ge=0, le=1, title="Escalated to manual (0–1)")
    """Chance the automatic repair cannot fix the node and hands it to a technician."""
    auto_repair_fail_probability: float = Field(0.4, ge=0, le=1, title="Automatic repair misses (0–1)")
    """Chance an automatic repair reports success and leaves the fault (a bad node stays bad)."""
    manual_repair_fail_probability: float = Field(0.2, ge=0, le=1, title="Manual repair misses (0–1)")
    """Chance a manual repair reports success and leaves the fault."""
    node_mtbf_hours: float | None = Field(None, gt=0, le=1e12, title="Node MTBF (h)")
    """Base mean time between job-interrupting failures of one good node; empty: the job's classes of the
    rate set divided over its nodes."""


class FailureCascadeParams(ParamsBase):
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
    # Empty: the checkpoint model on the inventory's storage and front end (campus.analysis.job_compute);
    # without a storage system the catalog's 5 and 10 min (Kokolis et al. 2024, Meta RSC).
    checkpoint_write_minutes: float | None = Field(None, ge=0, le=MINUTES_A_WEEK)
    """Time the job spends writing one checkpoint, minutes; empty: from the hardware (the job's state over
    the storage and front-end bandwidth). A number overrides it."""
    restart_minutes: float | None = Field(None, ge=0, le=MINUTES_A_WEEK)
    """Time from the GPUs being back to the job training again, minutes; empty: from the hardware (launch
    + restore from the storage). A number overrides it."""
    # OPT-175B kept 12 spares for 124 nodes.
    hot_spares: int | None = Field(None, ge=0, title="Hot spare nodes")
    """Spare nodes held outside the job: the job's pool is its nodes and these, never the rest of the campus
    (with a server pool: the working pool's idle nodes beside the standbys). Empty: 10 % of the job's nodes
    with hot-spare recovery, else 0; with ``job_gpus`` given, every other eligible node."""
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
    failures_during_recovery: bool = Field(True, title="Failures strike during recovery")
    """True: the job's parts keep failing while it restarts or waits (Daly 2006's model; such a failure
    starts the recovery again). False: the failure clock runs only while the job trains (AIReSim's model)."""
    failure_distribution: Literal["exponential", "weibull"] = Field(
        "exponential", title="Failure times", json_schema_extra=ADVANCED
    )
    """Distribution of a node's time to failure, mean-matched to its MTBF; the nodes' ages start afresh at
    every interruption (the class walk: the renewal walk, ``renewal``)."""
    weibull_shape: float = Field(1.0, gt=0, le=20, title="Weibull shape", json_schema_extra=ADVANCED)
    """Weibull k: 1 is exponential, above 1 wear-out, below 1 infant mortality."""
    work_days: float | None = Field(None, gt=0, le=MAX_FAILURE_DAYS, title="Work to do (d)")
    """Failure-free training time of the job: the run ends when it is done (time to train), at most
    ``duration_days``; empty: the run lasts ``duration_days``."""
    server_pool: ServerPool | None = Field(None, title="Server pool")
    """Walk the job's servers one by one (warm standbys, spare pool, bad servers, repair pipeline) instead
    of the failure classes; facility failures are not drawn in this walk."""
    precision: Precision = "bf16"
    """Number format the job trains in; sets the GPUs' peak throughput."""
    mfu: float | None = Field(None, gt=0, le=1, title="Model FLOPs utilisation (0–1)")
    """Share of the peak throughput the job achieves; empty: from the hardware (the step-time model of a
    preset workload on the job's GPUs). A number overrides it."""
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
