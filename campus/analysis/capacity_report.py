"""Capacity per hall and per row, as a DCIM capacity report gives it: space, power, cooling and ports, each as
capacity, used, reserved and available.

- **Space** (rack units, U): capacity is the racks' own height (``Rack.rack_units``); used is the height of
  the servers in service (active, hot spare, maintenance, failed: they hold their slots); reserved is the
  height of the planned servers; available is what is left.
- **Power** (kW): capacity is the racks' power budget (``Rack.design_kw``); used is the IT load of the racks
  in service (the same ``rack_it_kw`` as the summary's); reserved is the budget of the planned racks;
  available is the budget of the racks in service less their load (the headroom left in the racks placed).
- **Cooling** (kW of heat): capacity is the cooling units placed in the hall (``capacity_kw``, before any
  N+1 spare is set aside); used is the heat of the racks in service (their IT load: all of it becomes heat);
  reserved is the planned racks' budget. Units serve a hall, not a row: a row shows its used and reserved
  heat only.
- **Ports**: capacity is the ports of the switches placed in the hall (``count × radix``); used is the
  cable ends of the links on them. A row counts the links leaving its racks (used only).

Available is never below zero: a hall over its capacity shows ``over`` (how far), not a negative amount.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RackRow:
    """One rack as the report reads it (plain values; the API's adapter builds these from the inventory)."""

    hall_id: int
    row_id: int | None
    in_service: bool  # False: planned
    rack_units: int
    design_kw: float
    it_kw: float  # IT load now (0 for a planned rack)
    used_u: int  # U of the servers holding their slots
    reserved_u: int  # U of the planned servers
    link_ends: int  # cable ends of the links that leave the rack


@dataclass
class Measure:
    capacity: float | None = 0.0
    used: float = 0.0
    reserved: float = 0.0
    available_raw: float | None = None  # set where available is not capacity - used - reserved

    def as_dict(self) -> dict:
        if self.capacity is None:
            return {
                "capacity": None,
                "used": self.used,
                "reserved": self.reserved,
                "available": None,
                "over": 0,
            }
        left = (
            self.available_raw
            if self.available_raw is not None
            else self.capacity - self.used - self.reserved
        )
        return {
            "capacity": self.capacity,
            "used": self.used,
            "reserved": self.reserved,
            "available": left if left > 0 else 0.0,
            "over": -left if left < 0 else 0.0,
        }


@dataclass
class Scope:
    racks: int = 0
    racks_planned: int = 0
    space_u: Measure = field(default_factory=Measure)
    power_kw: Measure = field(default_factory=Measure)
    cooling_kw: Measure = field(default_factory=Measure)
    ports: Measure = field(default_factory=Measure)

    def add(self, r: RackRow) -> None:
        self.racks += 1
        self.racks_planned += 0 if r.in_service else 1
        self.space_u.capacity = (self.space_u.capacity or 0.0) + r.rack_units
        self.space_u.used += r.used_u
        self.space_u.reserved += r.reserved_u
        self.power_kw.capacity = (self.power_kw.capacity or 0.0) + r.design_kw
        if r.in_service:
            self.power_kw.used += r.it_kw
            self.power_kw.available_raw = (self.power_kw.available_raw or 0.0) + (r.design_kw - r.it_kw)
            self.cooling_kw.used += r.it_kw
        else:
            self.power_kw.reserved += r.design_kw
            self.cooling_kw.reserved += r.design_kw
        self.ports.used += r.link_ends

    def as_dict(self) -> dict:
        if self.power_kw.available_raw is None:
            self.power_kw.available_raw = 0.0
        return {
            "racks": self.racks,
            "racks_planned": self.racks_planned,
            "space_u": self.space_u.as_dict(),
            "power_kw": self.power_kw.as_dict(),
            "cooling_kw": self.cooling_kw.as_dict(),
            "ports": self.ports.as_dict(),
        }


def capacity_report(
    halls: Iterable[tuple[int, str]],
    rows: Iterable[tuple[int, int, str]],
    racks: Iterable[RackRow],
    cooling_kw_by_hall: dict[int, float],
    switch_ports_by_hall: dict[int, tuple[int, int]],
) -> list[dict]:
    """One entry per hall ``(id, name)`` with its rows ``(id, hall_id, name)``, in the order given.
    ``switch_ports_by_hall``: hall id -> (ports of its switches, cable ends on them)."""
    halls = list(halls)
    names = dict(halls)
    hall_scope = {hid: Scope() for hid, _ in halls}
    row_scope: dict[int, Scope] = {}
    row_meta: dict[int, tuple[int, str]] = {}
    for rid, hid, name in rows:
        row_scope[rid] = Scope()
        row_meta[rid] = (hid, name)
    for r in racks:
        if r.hall_id in hall_scope:
            hall_scope[r.hall_id].add(r)
        if r.row_id is not None and r.row_id in row_scope:
            row_scope[r.row_id].add(r)
    for scope in row_scope.values():
        scope.cooling_kw.capacity = None
        scope.ports.capacity = None
    out = []
    for hid, scope in hall_scope.items():
        scope.cooling_kw.capacity = cooling_kw_by_hall.get(hid, 0.0)
        ports, ends = switch_ports_by_hall.get(hid, (0, 0))
        scope.ports.capacity = float(ports)
        scope.ports.used = float(ends)
        out.append(
            {
                "id": hid,
                "name": names.get(hid, ""),
                **scope.as_dict(),
                "rows": [
                    {"id": rid, "name": row_meta[rid][1], **s.as_dict()}
                    for rid, s in row_scope.items()
                    if row_meta[rid][0] == hid
                ],
            }
        )
    return out
