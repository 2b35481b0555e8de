"""Build a CampusSnapshot from the database in a handful of queries (one per table, values() only).

Each snapshot dataclass has one declarative table (``TABLES``): which model it comes from, how the
rows are scoped to a campus, and for every dataclass field either the ORM column it copies
(``Column``, with a unit conversion where the database keeps another unit; a column of a related row
such as ``medium__slug`` is read through a join) or a value derived from the row's columns and what
was read before (``Derived``). ``_read`` turns a table into dataclasses: the table's rules become one
positional constructor per read (``_converter``), so a row costs one call, not a loop over its rules
(a 1M-GPU campus has a quarter of a million link bundles).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import date
from itertools import starmap
from typing import Any

from django.db import models
from django.db.models import Count

from campus import catalog_data
from campus.analysis.phases import DATED_COLLECTIONS, interval, operating, snapshot_as_of
from campus.analysis.snapshot import (
    BuildingSnap,
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
    EnergyStorageSnap,
    GpuSpec,
    HallSnap,
    LinkSnap,
    MediumSpec,
    NodeSpec,
    PodSnap,
    PowerDeviceSnap,
    PowerFeedSnap,
    RackSnap,
    StorageSnap,
    SwitchSnap,
    SwitchSpec,
    UtilityFeedSnap,
)
from campus.analysis.snapshot import (
    FailureRate as FailureRateSnap,
)
from campus.analysis.units import mw_to_kw, mwh_to_kwh
from campus.analysis.weather import WeatherYear
from campus.choices import NodeStatus
from campus.collector import collector_paused
from campus.in_service import in_service_q
from campus.models import (
    Building,
    Campus,
    CampusWeather,
    CoolingPlant,
    CoolingUnit,
    DataHall,
    EnergyStorage,
    FailureRate,
    GPUModel,
    Link,
    LinkMedium,
    Node,
    NodeModel,
    Pod,
    PowerDevice,
    PowerFeed,
    Rack,
    StorageSystem,
    Switch,
    SwitchModel,
    UtilityFeed,
)

Row = Mapping[str, Any]


Context = Mapping[str, Any]


@dataclass(frozen=True)
class Column:
    """The dataclass field copies ORM column ``orm``, through ``convert`` when the units differ."""

    orm: str
    convert: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Derived:
    """The dataclass field is ``compute(ctx, *values)``: the context and the row's ``reads`` columns, in
    that order."""

    compute: Callable[..., Any]
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    target: type
    model: type[models.Model]
    fields: Mapping[str, str | Column | Derived]  # dataclass field -> ORM column (str) or a rule
    scope: str | None = None  # lookup that ties a row to the campus id; None: catalog (every row)
    # empty: the model's default ordering, less a leading "campus" (one campus is read: ordering by what
    # follows gives the same order without joining the campus table to sort on its name)
    order_by: tuple[str, ...] = ()

    def columns(self) -> list[str]:
        out: list[str] = []
        for rule in self.fields.values():
            names = rule.reads if isinstance(rule, Derived) else (_column(rule).orm,)
            out.extend(n for n in names if n not in out)
        return out


def _column(rule: str | Column) -> Column:
    return Column(rule) if isinstance(rule, str) else rule


def _same(*names: str) -> dict[str, str]:
    return {n: n for n in names}


def _row_to_snap(table: Table, row: Row, ctx: Context) -> Any:
    values = {}
    for name, rule in table.fields.items():
        if isinstance(rule, Derived):
            values[name] = rule.compute(ctx, *(row[c] for c in rule.reads))
        else:
            col = _column(rule)
            value = row[col.orm]
            values[name] = col.convert(value) if col.convert else value
    return table.target(**values)


def _converter(table: Table, ctx: Context) -> Callable[[tuple], Any] | None:
    """``_row_to_snap`` for rows read as tuples in ``table.columns()`` order, resolved once per read: the
    rules become the source of one function calling the dataclass with positional arguments (as
    ``dataclasses`` writes ``__init__``), e.g. ``_target(v[0], v[1], _f2(_ctx, v[2]), _c3(v[4]))``.
    None where every field is a plain column in the dataclass's order: the row is the arguments."""
    at = {name: i for i, name in enumerate(table.columns())}
    env: dict[str, Any] = {"_target": table.target, "_ctx": ctx}
    args: list[str] = []
    for k, fld in enumerate(fields(table.target)):
        rule = table.fields[fld.name]
        if isinstance(rule, Derived):
            env[f"_f{k}"] = rule.compute
            args.append(f"_f{k}(_ctx{''.join(f', v[{at[c]}]' for c in rule.reads)})")
        else:
            col = _column(rule)
            if col.convert is None:
                args.append(f"v[{at[col.orm]}]")
            else:
                env[f"_c{k}"] = col.convert
                args.append(f"_c{k}(v[{at[col.orm]}])")
    if args == [f"v[{i}]" for i in range(len(at))]:
        return None
    exec(f"def convert(v):\n    return _target({', '.join(args)})\n", env)  # noqa: S102 (source made above)
    return env["convert"]


def _read(table: Table, ctx: Context, campus_id: int | None = None) -> tuple:
    """Every row of ``table`` (of one campus unless it is a catalog table) as dataclasses, one query."""
    qs = table.model.objects.all()
    if table.scope is not None:
        qs = qs.filter(**{table.scope: campus_id})
    if table.order_by:
        qs = qs.order_by(*table.order_by)
    elif table.scope == "campus_id" and tuple(table.model._meta.ordering[:1]) == ("campus",):
        qs = qs.order_by(*table.model._meta.ordering[1:])
    rows = qs.values_list(*table.columns())
    convert = _converter(table, ctx)
    with collector_paused():  # rows make no reference cycles
        if convert is None:
            return tuple(starmap(table.target, rows))
        return tuple(map(convert, rows))


# ---------------------------------------------------------------- catalog


def _gpu_peaks(
    ctx: Context, bf16: float, fp16: float, fp8: float | None, tf32: float | None, fp8_support: bool
) -> dict[str, float]:
    peaks = {"bf16": bf16, "fp16": fp16}
    if fp8 is not None and fp8_support:
        peaks["fp8"] = fp8
    if tf32 is not None:
        peaks["tf32"] = tf32
    return peaks


def _cap_curve(ctx: Context, curve: list | None) -> tuple[tuple[float, float], ...]:
    return tuple((float(c), float(t)) for c, t in (curve or [[0.5, 0.7], [1.0, 1.0]]))


def _nic_extra_w(ctx: Context, nic_kind: str) -> float:
    return float(catalog_data.NIC_KINDS.get(nic_kind, {}).get("extra_w_per_nic", 0.0))


GPU_TABLE = Table(
    GpuSpec,
    GPUModel,
    {
        **_same("slug", "name", "vendor", "tdp_w", "memory_gb", "fp8_support", "scaleup_gbps"),
        "peak_tflops": Derived(
            _gpu_peaks,
            ("peak_bf16_tflops", "peak_fp16_tflops", "peak_fp8_tflops", "peak_tf32_tflops", "fp8_support"),
        ),
        **_same("slowdown_temp_c", "shutdown_temp_c"),
        "cap_curve": Derived(_cap_curve, ("cap_curve",)),
        "min_cap_fraction": "min_cap_fraction",
        "failure_rate_set": Column("slug", catalog_data.gpu_failure_rate_set),
    },
)
NODE_MODEL_TABLE = Table(
    NodeSpec,
    NodeModel,
    {
        **_same("slug", "name"),
        "gpu": "gpu_model__slug",
        **_same("gpus_per_node", "overhead_w", "nics", "nic_kind"),
        "nic_extra_w": Derived(_nic_extra_w, ("nic_kind",)),
        **_same("nic_speed_gbps", "rack_units", "liquid_heat_fraction"),
    },
)
SWITCH_MODEL_TABLE = Table(
    SwitchSpec,
    SwitchModel,
    _same("slug", "name", "fabric", "radix", "port_speed_gbps", "power_w_copper", "power_w_optics"),
)
MEDIUM_TABLE = Table(
    MediumSpec,
    LinkMedium,
    _same("slug", "name", "max_reach_m", "power_w_per_end", "relative_cost", "mtbf_hours", "is_optical"),
)
FAILURE_RATE_TABLE = Table(
    FailureRateSnap,
    FailureRate,
    _same("component", "per", "mtbf_hours", "interrupts_job", "repair_hours", "dataset", "source"),
)

# ---------------------------------------------------------------- the campus


_RACK_DATE_COLUMNS = ("in_service_date", "retire_date", "row__in_service_date", "row__retire_date")


def _rack_start(
    ctx: Context, start: date | None, end: date | None, row_start: date | None, row_end: date | None
):
    if row_start is None and row_end is None:
        return start  # the row is in service whenever the rack is (most racks)
    return interval([(start, end), (row_start, row_end)])[0]


def _rack_end(
    ctx: Context, start: date | None, end: date | None, row_start: date | None, row_end: date | None
):
    if row_start is None and row_end is None:
        return end
    return interval([(start, end), (row_start, row_end)])[1]


def _instance_row(obj: models.Model, table: Table) -> dict[str, Any]:
    return {c: getattr(obj, c) for c in table.columns()}


CAMPUS_TABLE = Table(
    CampusSnapshot,
    Campus,
    {
        "id": "id",
        "name": "name",
        "grid_capacity_kw": Column("grid_capacity_mw", mw_to_kw),
        **_same(
            "price_usd_per_kwh",
            "design_pue",
            "ambient_temp_c",
            "other_it_fraction",
            "climate",
            "power_redundancy",
            "cooling_redundancy",
            "gpu_power_fraction",
            "server_overhead_scale",
        ),
        # the catalog and the campus's contents: read by their own tables
        **{
            name: Derived(lambda ctx, name=name: ctx[name])
            for name in (
                "gpus",
                "node_models",
                "switch_models",
                "media",
                "failure_rates",
                *DATED_COLLECTIONS,
                "weather",
            )
        },
        "as_of": Derived(lambda ctx: None),  # as designed (campus.analysis.phases.snapshot_as_of cuts it)
        "price_overrides": Column("price_overrides", lambda v: tuple(sorted((v or {}).items()))),
    },
)
DATES = _same("in_service_date", "retire_date")

BUILDING_TABLE = Table(
    BuildingSnap,
    Building,
    {**_same("id", "name", "x_m", "y_m", "width_m", "length_m"), **DATES},
    scope="campus_id",
)
HALL_TABLE = Table(
    HallSnap,
    DataHall,
    {**_same("id", "building_id", "name", "width_m", "length_m"), **DATES},
    scope="building__campus_id",
)
RACK_TABLE = Table(
    RackSnap,
    Rack,
    {
        **_same("id", "name", "hall_id"),
        "building_id": "hall__building_id",
        **_same("x_m", "y_m", "cooling_type", "design_kw", "cooling_unit_id", "pod_id", "status"),
        "nodes": Derived(lambda ctx, rack_id: ctx["nodes_by_rack"].get(rack_id, ()), ("id",)),
        "extra_it_kw": "extra_it_kw",
        # a rack is in service only while its row is (the row's dates folded into the rack's)
        "in_service_date": Derived(_rack_start, _RACK_DATE_COLUMNS),
        "retire_date": Derived(_rack_end, _RACK_DATE_COLUMNS),
    },
    scope="campus_id",
    order_by=("id",),
)
UTILITY_FEED_TABLE = Table(
    UtilityFeedSnap,
    UtilityFeed,
    {"id": "id", "name": "name", "capacity_kw": Column("capacity_mw", mw_to_kw), "status": "status", **DATES},
    scope="campus_id",
)
POWER_DEVICE_TABLE = Table(
    PowerDeviceSnap,
    PowerDevice,
    _same(
        "id",
        "name",
        "kind",
        "rated_kw",
        "efficiency",
        "max_utilization",
        "building_id",
        "utility_feed_id",
        "battery_minutes",
        "start_delay_s",
        "ramp_s",
        "status",
        "prime_rating_kw",
        "ramp_kw_per_s",
        "fuel_usd_per_mwh",
        "in_service_date",
        "retire_date",
        "hall_id",
    ),
    scope="campus_id",
    order_by=("id",),
)
ENERGY_STORAGE_TABLE = Table(
    EnergyStorageSnap,
    EnergyStorage,
    {
        **_same("id", "name"),
        "power_kw": Column("power_mw", mw_to_kw),
        "energy_kwh": Column("energy_mwh", mwh_to_kwh),
        **_same("round_trip_efficiency", "response_ms", "building_id", "power_device_id", "status"),
        **DATES,
    },
    scope="campus_id",
    order_by=("id",),
)
POWER_FEED_TABLE = Table(
    PowerFeedSnap,
    PowerFeed,
    {**_same("id", "upstream_id", "downstream_device_id", "rack_id", "side", "rating_kw"), **DATES},
    scope="campus_id",
    order_by=("id",),
)
COOLING_PLANT_TABLE = Table(
    CoolingPlantSnap,
    CoolingPlant,
    _same(
        "id",
        "name",
        "kind",
        "capacity_kw",
        "cop",
        "building_id",
        "power_device_id",
        "restart_minutes",
        "power_device_b_id",
        "status",
        "in_service_date",
        "retire_date",
        "fixed_kw",
        "eir_ref",
        "eir_per_k",
    ),
    scope="campus_id",
)
COOLING_UNIT_TABLE = Table(
    CoolingUnitSnap,
    CoolingUnit,
    _same(
        "id",
        "name",
        "kind",
        "capacity_kw",
        "supply_temp_c",
        "return_temp_c",
        "flow_lpm",
        "plant_id",
        "power_device_id",
        "hall_id",
        "group",
        "power_device_b_id",
        "x_m",
        "y_m",
        "status",
        "in_service_date",
        "retire_date",
    ),
    scope="campus_id",
)
POD_TABLE = Table(
    PodSnap,
    Pod,
    {
        **_same("id", "name", "fabric", "topology", "oversubscription"),
        "switch_model": "switch_model__slug",
        "building_id": "building_id",
        **DATES,
    },
    scope="campus_id",
)
SWITCH_TABLE = Table(
    SwitchSnap,
    Switch,
    {
        **_same("id", "name", "pod_id", "tier"),
        "model": "model__slug",
        **_same("count", "hall_id", "rack_id", "network"),
        **DATES,
    },
    scope="campus_id",
)
LINK_TABLE = Table(
    LinkSnap,
    Link,
    {
        **_same("id", "pod_id", "network"),
        "medium": "medium__slug",
        **_same("count", "length_m", "speed_gbps", "a_rack_id", "a_switch_id", "b_switch_id"),
        **DATES,
    },
    scope="campus_id",
)

STORAGE_SYSTEM_TABLE = Table(
    StorageSnap,
    StorageSystem,
    {
        **_same(
            "id",
            "name",
            "kind",
            "capacity_pb",
            "read_gb_s",
            "write_gb_s",
            "power_kw",
            "racks",
            "frontend_gbps_per_node",
            "building_id",
            "status",
        ),
        **DATES,
    },
    scope="campus_id",
    order_by=("id",),
)

TABLES: tuple[Table, ...] = (
    GPU_TABLE,
    NODE_MODEL_TABLE,
    SWITCH_MODEL_TABLE,
    MEDIUM_TABLE,
    FAILURE_RATE_TABLE,
    CAMPUS_TABLE,
    BUILDING_TABLE,
    HALL_TABLE,
    RACK_TABLE,
    UTILITY_FEED_TABLE,
    POWER_DEVICE_TABLE,
    POWER_FEED_TABLE,
    ENERGY_STORAGE_TABLE,
    COOLING_PLANT_TABLE,
    COOLING_UNIT_TABLE,
    POD_TABLE,
    SWITCH_TABLE,
    LINK_TABLE,
    STORAGE_SYSTEM_TABLE,
)


def gpu_spec(row: GPUModel) -> GpuSpec:
    return _row_to_snap(GPU_TABLE, _instance_row(row, GPU_TABLE), {})


def catalog_snapshot_parts() -> dict:
    """The catalog as snapshot specs (shared by every campus)."""
    return {
        "gpus": {g.slug: g for g in _read(GPU_TABLE, {})},
        "node_models": {n.slug: n for n in _read(NODE_MODEL_TABLE, {})},
        "switch_models": {s.slug: s for s in _read(SWITCH_MODEL_TABLE, {})},
        "media": {m.slug: m for m in _read(MEDIUM_TABLE, {})},
        "failure_rates": _read(FAILURE_RATE_TABLE, {}),
    }


def _active_nodes_by_rack(
    campus_id: int, as_of: date | None = None
) -> dict[int, tuple[tuple[str, int], ...]]:
    """The active servers of each rack (with ``as_of``: those in service that day), by node model."""
    nodes_by_rack: dict[int, list[tuple[str, int]]] = defaultdict(list)
    nodes = Node.objects.filter(rack__campus_id=campus_id, status=NodeStatus.ACTIVE)
    if as_of is not None:
        nodes = nodes.filter(in_service_q(as_of))
    counts = (
        nodes.values("rack_id", "node_model__slug", "node_model_id")
        .annotate(n=Count("id"))
        .order_by("rack_id", "node_model_id")
        .values_list("rack_id", "node_model__slug", "n")
    )
    for rack_id, slug, n in counts:
        nodes_by_rack[rack_id].append((slug, n))
    return {rack_id: tuple(nodes) for rack_id, nodes in nodes_by_rack.items()}


def uploaded_weather(campus: Campus) -> WeatherYear | None:
    """The campus's uploaded hourly year (``CampusWeather``), if any."""
    row = CampusWeather.objects.filter(campus_id=campus.pk).first()
    if row is None:
        return None
    return WeatherYear(climate=campus.climate, **row.year_fields())


_CAMPUS_PARTS: tuple[tuple[str, Table], ...] = (
    ("utility_feeds", UTILITY_FEED_TABLE),
    ("power_devices", POWER_DEVICE_TABLE),
    ("power_feeds", POWER_FEED_TABLE),
    ("energy_storage", ENERGY_STORAGE_TABLE),
    ("cooling_plants", COOLING_PLANT_TABLE),
    ("cooling_units", COOLING_UNIT_TABLE),
    ("pods", POD_TABLE),
    ("switches", SWITCH_TABLE),
    ("links", LINK_TABLE),
    ("storage_systems", STORAGE_SYSTEM_TABLE),
)


def build_snapshot(campus: Campus | int, as_of: date | None = None) -> CampusSnapshot:
    """The campus as designed (every object, whatever its dates), or with ``as_of`` what is in service on
    that day (``campus.analysis.phases``), one query per table. ``campus.state`` keeps it per campus
    revision."""
    campus = campus if isinstance(campus, Campus) else Campus.objects.get(pk=campus)
    cid = campus.pk
    ctx: dict[str, Any] = {}
    ctx.update(catalog_snapshot_parts())
    ctx["buildings"] = _read(BUILDING_TABLE, ctx, cid)
    ctx["halls"] = _read(HALL_TABLE, ctx, cid)
    ctx["racks"] = _read(RACK_TABLE, {"nodes_by_rack": _active_nodes_by_rack(cid, as_of)}, cid)
    for name, table in _CAMPUS_PARTS:
        ctx[name] = _read(table, ctx, cid)
    ctx["weather"] = uploaded_weather(campus)
    snap = operating(_row_to_snap(CAMPUS_TABLE, _instance_row(campus, CAMPUS_TABLE), ctx))
    return snap if as_of is None else snapshot_as_of(snap, as_of)
