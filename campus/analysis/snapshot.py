"""A plain, immutable picture of one campus: the input of every analysis and of the scenario engine.

Nothing here imports Django. ``campus.snapshot_adapter.build_snapshot(campus_id)`` fills these
dataclasses from the database in a handful of queries; tests and notebooks may build them by hand.

Units are in the field names (kW, W, m, °C, hours). Identifiers are the database primary keys
(ints); when a snapshot is built by hand any unique ints will do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from campus.analysis.units import w_to_kw
from campus.analysis.weather import DEFAULT_CLIMATE, WeatherYear

# ---------------------------------------------------------------- catalog


@dataclass(frozen=True)
class GpuSpec:
    slug: str
    name: str
    vendor: str
    tdp_w: float
    memory_gb: float
    # dense peak TFLOPS per precision ("fp8", "bf16", "fp16", "tf32", "fp32"); a precision the part
    # does not support is absent (A100 has no "fp8").
    peak_tflops: dict[str, float]
    fp8_support: bool
    scaleup_gbps: float  # scale-up (NVLink / Infinity Fabric / HCCS) bandwidth per GPU, GB/s
    slowdown_temp_c: float
    shutdown_temp_c: float
    # power cap -> throughput: points (cap as a fraction of TDP, throughput as a fraction of
    # throughput at TDP), sorted by cap; interpolate linearly, clamp at the ends.
    cap_curve: tuple[tuple[float, float], ...] = ((0.5, 0.7), (1.0, 1.0))
    min_cap_fraction: float = 0.5
    # the job-interruption failure-rate data set of this model's generation/vendor ("" = none known)
    failure_rate_set: str = ""


@dataclass(frozen=True)
class NodeSpec:
    slug: str
    name: str
    gpu: str  # GpuSpec.slug
    gpus_per_node: int
    overhead_w: float  # everything in the server beyond the GPUs (CPUs, NICs, fans, PSU losses), W
    nics: int
    nic_kind: str  # "connectx7" | "bluefield3" | "dual-port"
    nic_extra_w: float  # extra power per NIC over a ConnectX-7 (BlueField-3: ~50 W), W
    nic_speed_gbps: float
    rack_units: int
    # share of the server's heat its cold plates take to the liquid loop in a direct-to-chip rack
    liquid_heat_fraction: float = 0.0


@dataclass(frozen=True)
class SwitchSpec:
    slug: str
    name: str
    fabric: str
    radix: int
    port_speed_gbps: float
    power_w_copper: float
    power_w_optics: float


@dataclass(frozen=True)
class MediumSpec:
    slug: str  # "dac" | "aec" | "sr" | "dr" | "fr" | "zr" | "nvlink"
    name: str
    max_reach_m: float
    power_w_per_end: float
    relative_cost: float  # cost of one cable with its ends, relative to a multimode SR link = 1.0
    mtbf_hours: float
    is_optical: bool


@dataclass(frozen=True)
class FailureRate:
    """A failure rate of one component class, from one published data set."""

    component: str  # "gpu", "hbm", "nic", "optics", "switch", "node", "psu", "pdu", "ups", "cdu", "utility_feed", ...
    per: str  # what one unit is: "gpu", "node", "link", "switch", "device", "job-gpu"
    mtbf_hours: float  # mean time between failures of ONE unit
    interrupts_job: bool
    repair_hours: float
    dataset: str  # e.g. "llama3-2024", "infrastructure-estimates"
    source: str = ""


# ---------------------------------------------------------------- the campus


@dataclass(frozen=True)
class BuildingSnap:
    id: int
    name: str
    x_m: float
    y_m: float
    width_m: float
    length_m: float
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class HallSnap:
    id: int
    building_id: int
    name: str
    width_m: float
    length_m: float
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class RackSnap:
    id: int
    name: str
    hall_id: int
    building_id: int
    x_m: float
    y_m: float
    cooling_type: str  # "air" | "rear-door" | "direct-to-chip" | "immersion"
    design_kw: float
    cooling_unit_id: int | None
    pod_id: int | None
    status: str
    # (NodeSpec.slug, count) of the active servers in the rack
    nodes: tuple[tuple[str, int], ...] = ()
    extra_it_kw: float = 0.0  # storage, CPU nodes, switches housed in the rack, kW
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class UtilityFeedSnap:
    id: int
    name: str
    capacity_kw: float
    status: str = "active"  # "failed" / "offline": out (campus.analysis.phases.operating)
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class PowerDeviceSnap:
    id: int
    name: str
    kind: str  # "substation" | "transformer" | "switchgear" | "generator" | "ups" | "pdu" | "busway" | "rpp"
    rated_kw: float
    efficiency: float  # output / input, 0..1
    max_utilization: float  # usable fraction of rated_kw, 0..1
    building_id: int | None
    utility_feed_id: int | None  # grid connection the device draws from (top of the chain)
    battery_minutes: float = 0.0  # UPS ride-through at rated load
    start_delay_s: float = 0.0  # generator start
    ramp_s: float = 0.0  # generator ramp to full load
    status: str = "active"
    # On-site generation (generators only): a prime rating makes the set load-following generation;
    # None is a standby set. None ramp/fuel take the catalog defaults (campus.analysis.onsite).
    prime_rating_kw: float | None = None
    ramp_kw_per_s: float | None = None
    fuel_usd_per_mwh: float | None = None
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None
    hall_id: int | None = None  # the hall it stands in (None: a building's or the campus's)


@dataclass(frozen=True)
class PowerFeedSnap:
    id: int
    upstream_id: int  # PowerDeviceSnap.id
    downstream_device_id: int | None
    rack_id: int | None
    side: str  # "A" | "B" | "N"
    rating_kw: float
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class EnergyStorageSnap:
    """A battery energy storage system (database MW/MWh, kW/kWh here)."""

    id: int
    name: str
    power_kw: float  # inverter rating
    energy_kwh: float  # usable energy
    round_trip_efficiency: float  # AC out / AC in, (0, 1]
    response_ms: float
    building_id: int | None
    power_device_id: int | None  # where it connects on the power chain
    status: str = "active"
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


def _supplies(a: int | None, b: int | None) -> tuple[int, ...]:
    if a is None:
        return () if b is None else (b,)
    return (a,) if b is None or b == a else (a, b)


@dataclass(frozen=True)
class CoolingPlantSnap:
    id: int
    name: str
    kind: str  # "chiller" | "dry-cooler" | "cooling-tower"
    capacity_kw: float
    cop: float
    building_id: int | None
    power_device_id: int | None
    restart_minutes: float = 6.0
    # second supply (dual-fed or transfer switch): the plant runs while any of its supplies is live
    power_device_b_id: int | None = None
    status: str = "active"  # "failed" / "offline": no capacity (campus.analysis.phases.operating)
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None
    # fitted coefficients (campus.analysis.calibration_facility): all three, or None for the kind's equations
    fixed_kw: float | None = None
    eir_ref: float | None = None
    eir_per_k: float | None = None

    @property
    def supply_ids(self) -> tuple[int, ...]:
        """The power devices feeding the plant (none: not modelled on the electrical chain)."""
        return _supplies(self.power_device_id, self.power_device_b_id)

    @property
    def fitted(self) -> tuple[float, float, float] | None:
        """(fixed_kw, eir_ref, eir_per_k) when the plant holds a fit, else None."""
        if self.fixed_kw is None or self.eir_ref is None or self.eir_per_k is None:
            return None
        return (self.fixed_kw, self.eir_ref, self.eir_per_k)


@dataclass(frozen=True)
class CoolingUnitSnap:
    id: int
    name: str
    kind: str  # "crah" | "cdu" | "rear-door" | "immersion"
    capacity_kw: float
    supply_temp_c: float
    return_temp_c: float
    flow_lpm: float
    plant_id: int | None
    power_device_id: int | None
    hall_id: int | None
    group: str = ""  # units that back each other up (N+1 checked per group)
    # second supply (dual power supplies or transfer switch): the unit runs while any supply is live
    power_device_b_id: int | None = None
    # the unit's corner in its hall, m (None: not recorded; the floor map lays it out)
    x_m: float | None = None
    y_m: float | None = None
    status: str = "active"  # "failed" / "offline": no capacity (campus.analysis.phases.operating)
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None

    @property
    def supply_ids(self) -> tuple[int, ...]:
        """The power devices feeding the unit (none: not modelled on the electrical chain)."""
        return _supplies(self.power_device_id, self.power_device_b_id)


@dataclass(frozen=True)
class PodSnap:
    id: int
    name: str
    fabric: str  # "infiniband-ndr" | "spectrum-x" | "tomahawk5" | "roce-200ge"
    topology: str  # "rail-optimized" | "middle-of-rack"
    oversubscription: float  # above the island (1.0 = non-blocking)
    switch_model: str | None  # SwitchSpec.slug
    building_id: int | None
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class SwitchSnap:
    id: int
    name: str
    pod_id: int | None  # None: campus level (inter-island)
    tier: str  # "leaf" | "spine" | "core"
    model: str  # SwitchSpec.slug
    count: int  # identical switches in this group
    hall_id: int | None
    rack_id: int | None
    network: str = "backend"  # "backend" | "frontend"
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class LinkSnap:
    """A bundle of ``count`` identical cables between two end points."""

    id: int
    pod_id: int | None
    network: str
    medium: str  # MediumSpec.slug
    count: int
    length_m: float
    speed_gbps: float
    a_rack_id: int | None
    a_switch_id: int | None
    b_switch_id: int
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class StorageSnap:
    """A storage system (``campus.models.StorageSystem``): its sustained aggregate bandwidth, its power and the
    building it stands in (None: the campus's). ``frontend_gbps_per_node`` is the front-end port bandwidth of
    each compute node that reaches it."""

    id: int
    name: str
    kind: str  # "parallel-fs" | "object-store"
    capacity_pb: float
    read_gb_s: float
    write_gb_s: float
    power_kw: float
    racks: int
    frontend_gbps_per_node: float
    building_id: int | None
    status: str = "active"
    # service dates (models.InventoryModel); campus.analysis.phases keeps what is in service on a day
    in_service_date: date | None = None
    retire_date: date | None = None


@dataclass(frozen=True)
class CampusSnapshot:
    id: int
    name: str
    grid_capacity_kw: float
    price_usd_per_kwh: float
    design_pue: float | None  # a typed PUE (an override); None: the plant model's (campus.analysis.facility)
    ambient_temp_c: float
    other_it_fraction: float  # storage, CPU nodes and misc IT as a fraction of IT power
    gpus: dict[str, GpuSpec] = field(default_factory=dict)
    node_models: dict[str, NodeSpec] = field(default_factory=dict)
    switch_models: dict[str, SwitchSpec] = field(default_factory=dict)
    media: dict[str, MediumSpec] = field(default_factory=dict)
    failure_rates: tuple[FailureRate, ...] = ()
    buildings: tuple[BuildingSnap, ...] = ()
    halls: tuple[HallSnap, ...] = ()
    racks: tuple[RackSnap, ...] = ()
    utility_feeds: tuple[UtilityFeedSnap, ...] = ()
    power_devices: tuple[PowerDeviceSnap, ...] = ()
    power_feeds: tuple[PowerFeedSnap, ...] = ()
    energy_storage: tuple[EnergyStorageSnap, ...] = ()
    cooling_plants: tuple[CoolingPlantSnap, ...] = ()
    cooling_units: tuple[CoolingUnitSnap, ...] = ()
    pods: tuple[PodSnap, ...] = ()
    switches: tuple[SwitchSnap, ...] = ()
    links: tuple[LinkSnap, ...] = ()
    # parallel file systems and object stores (checkpoints, data); their power is IT load (heat.it_beyond_racks)
    storage_systems: tuple[StorageSnap, ...] = ()
    # the campus's climate (one of campus.analysis.weather.CLIMATES) and its uploaded hourly year, if any;
    # campus.analysis.weather.weather_of(snap) is the year the campus uses
    climate: str = DEFAULT_CLIMATE
    weather: WeatherYear | None = None
    # declared redundancy ("N", "N+1", "2N"; "" when not declared), checked against the topology by
    # campus.analysis.redundancy.design_redundancy
    power_redundancy: str = ""
    cooling_redundancy: str = ""
    # the day this snapshot is of (campus.analysis.phases.snapshot_as_of); None: the campus as designed
    as_of: date | None = None
    # the campus's own unit prices, ("kind/item", USD) sorted by key (Campus.price_overrides; campus.analysis.capex)
    price_overrides: tuple[tuple[str, float], ...] = ()
    # the modelled server power (Campus.gpu_power_fraction, Campus.server_overhead_scale; 1, 1: the GPUs at
    # TDP and the catalog's overhead, the design load): a calibration from measured rack power sets them
    gpu_power_fraction: float = 1.0
    server_overhead_scale: float = 1.0

    def __post_init__(self) -> None:
        # Figures worked out from this snapshot, kept with it (``campus.analysis.memo``). Not a field: never
        # compared, never carried over by ``dataclasses.replace`` (a new snapshot starts empty), never pickled.
        object.__setattr__(self, "_memo", {})

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_memo", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_memo", {})

    def node_gpu_w(self, node_slug: str) -> float:
        """The GPUs' modelled draw in one server: their TDP × the campus's ``gpu_power_fraction``, W."""
        spec = self.node_models[node_slug]
        return spec.gpus_per_node * self.gpus[spec.gpu].tdp_w * self.gpu_power_fraction

    def node_overhead_w(self, node_slug: str) -> float:
        """One server's modelled power beyond its GPUs (CPUs, NICs, fans, PSU losses; the catalog's × the
        campus's ``server_overhead_scale``), W."""
        spec = self.node_models[node_slug]
        return (spec.overhead_w + spec.nics * spec.nic_extra_w) * self.server_overhead_scale

    def node_power_w(self, node_slug: str) -> float:
        """Modelled electrical power of one server (at full GPU TDP and the catalog's overhead unless the
        campus is calibrated), W."""
        return self.node_gpu_w(node_slug) + self.node_overhead_w(node_slug)

    def rack_gpus(self, rack: RackSnap) -> dict[str, int]:
        out: dict[str, int] = {}
        for slug, count in rack.nodes:
            spec = self.node_models[slug]
            out[spec.gpu] = out.get(spec.gpu, 0) + count * spec.gpus_per_node
        return out

    def rack_it_kw(self, rack: RackSnap) -> float:
        """Modelled IT load of a rack (servers, ``node_power_w``, plus in-rack extras), kW."""
        servers_w = sum(self.node_power_w(slug) * count for slug, count in rack.nodes)
        return w_to_kw(servers_w) + rack.extra_it_kw
