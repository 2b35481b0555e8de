"""Failover headroom's results: the failures, the figures per device, utility feed and scope."""

from __future__ import annotations

from dataclasses import dataclass

# Sensitivities below this (kW per added kW) mean the scope does not load the device.
MIN_SENSITIVITY = 1e-9
# Values closer than this (relative) are a tie: float rounding, not a difference. The first in scenario
# order keeps the worst load or the binding; see the module doc.
TIE_RELATIVE = 1e-12
SIDES_2N = ("A", "B")
# Rows and source terms per numeric chunk (memory: a row is one float per hall).
_ROW_CHUNK = 4096
_COEF_CHUNK = 32768


@dataclass(frozen=True)
class Failure:
    """One scenario: ``kind`` is "none" (healthy), "power" (a device), "utility" (a feed) or "side"."""

    kind: str
    id: int | str | None = None
    name: str = ""

    def as_dict(self) -> dict:
        return {"kind": self.kind, "id": self.id, "name": self.name}


HEALTHY = Failure("none", None, "no failure")


@dataclass
class ElementHeadroom:
    """A power device or utility feed: limit, healthy load and worst load over the scenarios, kW."""

    kind: str  # device kind, or "utility"
    id: int
    name: str
    limit_kw: float
    load_kw: float
    worst_load_kw: float
    worst_failure: Failure

    @property
    def headroom_kw(self) -> float:
        return self.limit_kw - self.worst_load_kw

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "id": self.id,
            "name": self.name,
            "limit_kw": self.limit_kw,
            "load_kw": self.load_kw,
            "worst_load_kw": self.worst_load_kw,
            "headroom_after_failover_kw": self.headroom_kw,
            "worst_failure": self.worst_failure.as_dict(),
        }


@dataclass
class ScopeHeadroom:
    """Added IT load a hall, building or the campus takes with the design redundancy intact, kW."""

    scope: str  # "hall" | "building" | "campus"
    id: int | None
    it_kw: float  # today's rack IT load
    headroom_kw: float | None  # None: no fed racks to place load on
    binding_kind: str = ""  # device kind or "utility"
    binding_id: int | None = None
    binding_name: str = ""
    binding_failure: Failure | None = None
    placement: str = "load"  # "load" | "design" | "racks": how added load is spread
    # the devices' and utility feeds' own figure and binding, before the rack feeds' and the grid's bounds
    # (``_feed_bound``, ``_grid_bound``); stranded capacity counts feeds and grid apart, as constraints of
    # their own
    chain_headroom_kw: float | None = None
    chain_binding: dict | None = None
    # the chain's figure over the elements within their limit only (None: none bounds the scope); where
    # no element is over its limit, the chain's own. Stranded capacity caps a building and the campus by
    # it: an element already over its limit strands capacity in the halls loading it, not in the others
    # (``stranded._upstream``)
    within_headroom_kw: float | None = None
    within_binding: dict | None = None
    # a building or the campus: its halls all at their own headroom at once keep every element within its
    # limit in every scenario (stranded capacity then adds its halls up)
    members_fit: bool = False

    def binding_dict(self) -> dict | None:
        if self.binding_id is None:
            return None
        return {
            "kind": self.binding_kind,
            "id": self.binding_id,
            "name": self.binding_name,
            "failure": self.binding_failure.as_dict() if self.binding_failure else None,
        }

    def as_dict(self) -> dict:
        return {
            "scope": self.scope,
            "id": self.id,
            "it_kw": self.it_kw,
            "headroom_after_failover_kw": self.headroom_kw,
            "binding": self.binding_dict(),
            "placement": self.placement,
        }


@dataclass
class GridHeadroom:
    """The campus's grid connection: its capacity against the facility load of the peak hour, kW at the
    grid, and the rack IT that fits before it is reached (``_grid_bound``)."""

    capacity_kw: float
    facility_kw: float  # what the racks' feeds carry today x the peak hour's PUE
    peak_pue: float
    it_headroom_kw: float  # rack IT (kW at the racks, as the scopes' headroom) the grid still takes

    @property
    def headroom_kw(self) -> float:
        return self.capacity_kw - self.facility_kw

    def as_dict(self) -> dict:
        return {
            "capacity_kw": self.capacity_kw,
            "facility_kw": self.facility_kw,
            "peak_pue": self.peak_pue,
            "headroom_kw": self.headroom_kw,
            "it_headroom_kw": self.it_headroom_kw,
        }


@dataclass
class Headroom:
    devices: dict[int, ElementHeadroom]
    utilities: dict[int, ElementHeadroom]
    halls: dict[int, ScopeHeadroom]
    buildings: dict[int, ScopeHeadroom]
    campus: ScopeHeadroom
    scenarios: int = 0
    grid: GridHeadroom | None = None  # None: no grid limit modelled (``grid_capacity_kw`` 0)

    def as_dict(self) -> dict:
        return {
            "campus": self.campus.as_dict(),
            "grid": self.grid.as_dict() if self.grid is not None else None,
            "buildings": [b.as_dict() for b in self.buildings.values()],
            "halls": [h.as_dict() for h in self.halls.values()],
            "utilities": [u.as_dict() for u in self.utilities.values()],
            "devices": [d.as_dict() for d in self.devices.values()],
            "scenarios": self.scenarios,
        }
