"""Capacity placement's request and shared parts: the limits, the request, a hall's inputs, a failure."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from campus.analysis.power import PowerGraph
from campus.analysis.rackscale import whole_rack_nodes
from campus.analysis.snapshot import CampusSnapshot, NodeSpec

# Clearances (docs/planning.md): ANSI/TIA-942-B (2017) recommends cold aisles of at least 1.2 m
# (4 ft) and hot aisles of at least 0.9 m (3 ft); one figure, the larger, for both sides of a new row and
# for the walkway along the hall's walls.
AISLE_CLEARANCE_M = 1.2
PERIMETER_CLEARANCE_M = 1.2
DEFAULT_RACK_SIZE_M = (0.6, 1.2)  # width, depth: a 600 x 1200 mm AI rack (as the floor map)
USABLE_RACK_UNITS = 36  # a 48U rack less top-of-rack, PDU, cable management (the generator's figure)
RACK_UNITS = 48  # the rack itself (Rack.rack_units default): more servers than this do not fit at all
MAX_RACKS = 500
MAX_OPTIONS = 3
MAX_FREE_POSITIONS = 100_000  # free positions counted in a hall after placing (more: reported as this)
FEED_RATING_STEP_KW = 5.0  # rack feed breakers rounded up to 5 kW (as the generator)
TOL = 1e-9
# What can bind, in the order the checks run in a hall (a hall that fails early has passed fewer checks).
CONSTRAINTS = ("floor_space", "rack_density", "fabric_ports", "spine_ports", "cooling", "power", "grid")
TOP_K = 64  # worst scenario loads kept per element
# What a declared cooling redundancy takes out of a group (cooling.usable_capacity_kw)
REDUNDANCY_OUT = {"N": "nothing", "N+1": "largest unit", "2N": "larger half of the units"}


def _out(declared: str, plants: bool = False) -> str:
    """What the declared redundancy takes out, in words (of a plant loop: plants)."""
    text = REDUNDANCY_OUT.get(declared, declared)
    return text.replace("unit", "plant") if plants else text


@dataclass(frozen=True)
class RowGeo:
    """A row of a hall as the database holds it (the snapshot has no rows)."""

    id: int
    hall_id: int
    name: str
    x_m: float
    y_m: float


@dataclass(frozen=True)
class PlacementRequest:
    node_model: str
    racks: int
    nodes_per_rack: int | None = None
    hall_id: int | None = None


@dataclass
class _Fail:
    constraint: str
    hall: str
    level: str
    element: str
    detail: str
    margin: float = -math.inf  # how close it came (kW, positions or ports); larger is closer
    # where: a hall's name is not unique on a campus (every building may have an H1)
    hall_id: int | None = None
    building: str | None = None
    building_id: int | None = None
    # what a proposal extends to lift it (campus.analysis.placement.proposal): the element's id (a switch
    # group, a cooling unit of the pool, a plant, a power device, a utility feed) and how short it is in its
    # own unit (ports; kW of heat; kW at the element's input; kW at the grid)
    element_id: int | None = None
    short: float = 0.0
    also: tuple = ()  # (element id, shortfall) of the other elements short in the same way (leaf groups)

    def located(self, snap: CampusSnapshot, hall) -> _Fail:
        self.hall_id = hall.id
        self.building_id = hall.building_id
        self.building = _building_name(snap, hall.building_id)
        return self

    def as_dict(self) -> dict:
        return {
            "constraint": self.constraint,
            "hall": self.hall,
            "hall_id": self.hall_id,
            "building": self.building,
            "building_id": self.building_id,
            "level": self.level,
            "element": self.element,
            "detail": self.detail,
        }


def _building_name(snap: CampusSnapshot, building_id: int | None) -> str | None:
    return next((bd.name for bd in snap.buildings if bd.id == building_id), None)


# ---------------------------------------------------------------- request checks


def default_nodes_per_rack(snap: CampusSnapshot, node_slug: str) -> int:
    """The commonest count of this model in the campus's racks; else as many as fit the usable units."""
    counts: dict[int, int] = {}
    for r in snap.racks:
        for slug, n in r.nodes:
            if slug == node_slug and n > 0:
                counts[n] = counts.get(n, 0) + 1
    if counts:
        return max(sorted(counts), key=counts.__getitem__)
    spec = snap.node_models[node_slug]
    whole = whole_rack_nodes(node_slug, spec.gpus_per_node)
    if whole is not None:
        return whole
    return max(1, USABLE_RACK_UNITS // max(1, spec.rack_units))


def node_kw(snap: CampusSnapshot, slug: str) -> float:
    return snap.node_power_w(slug) / 1000.0


@dataclass
class _HallInput:
    snap: CampusSnapshot
    node: NodeSpec
    slug: str
    nodes_per_rack: int
    racks: int
    rack_kw: float  # IT at full TDP, kW
    rack_size: Mapping[int, tuple[float, float]]
    rows: Mapping[int, list[RowGeo]]
    used_ports: dict[int, int] = field(default_factory=dict)
    balance: object = None
    per_server: float = 0.0  # other IT per kW of servers added (heat.other_it_per_server_kw)
    cables: dict = field(default_factory=dict)  # switch id -> [(hall, x, y, length)] of its rack cables
    grid: tuple[float, float, float] | None = None  # headroom.grid_it_kw: (feed kW allowed, today, peak PUE)
    pools: list = field(default_factory=list)  # cooling.cooling_pools(snap, hall_air=True)
    # per hall: (the network beside its racks, kW; its fed racks' IT, kW) (``power_fit.hall_network``)
    network: dict = field(default_factory=dict)
    optics_kw_per_rack: float = 0.0  # the transceivers of a new rack's fabric cables, kW
    cable_kw: float = 0.0  # the transceivers of one fabric cable (both ends), kW: the racks' new uplinks
    uplinks: tuple | None = None  # fabric_fit.uplinks: node cables per group, cables up per upper group


def _memo(g: PowerGraph, key: str, compute):
    """``compute()`` worked out once per graph: the graph lives with its snapshot (``power_graph``)."""
    if key not in g.memo:
        g.memo[key] = compute()
    return g.memo[key]
