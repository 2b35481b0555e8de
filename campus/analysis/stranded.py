"""Stranded capacity: power provisioned to racks that another constraint keeps from being used."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from campus.analysis.power import power_graph
from campus.analysis.snapshot import CampusSnapshot


@dataclass
class StrandedRow:
    scope: str  # "rack" | "hall" | "building" | "campus"
    id: int | None
    provisioned_kw: float
    usable_kw: float
    stranded_kw: float
    binding: str  # "" when nothing is stranded; else "feed" | "design" | "cooling" | "grid"
    stranded_by_constraint_kw: dict[str, float]

    def as_dict(self) -> dict:
        return {
            "scope": self.scope,
            "id": self.id,
            "provisioned_kw": self.provisioned_kw,
            "usable_kw": self.usable_kw,
            "stranded_kw": self.stranded_kw,
            "binding": self.binding,
            "stranded_by_constraint_kw": self.stranded_by_constraint_kw,
        }


@dataclass
class StrandedCapacity:
    racks: dict[int, StrandedRow]
    halls: dict[int, StrandedRow]
    buildings: dict[int, StrandedRow]
    campus: StrandedRow

    def as_dict(self) -> dict:
        return {
            "campus": self.campus.as_dict(),
            "buildings": [r.as_dict() for r in self.buildings.values()],
            "halls": [r.as_dict() for r in self.halls.values()],
        }


def stranded_capacity(snap: CampusSnapshot) -> StrandedCapacity:
    """Power provisioned to racks that another constraint keeps from being used.

    Per rack, provisioned = the strongest side's feed rating (what the chain reserves for it). The usable
    power is the minimum of: the weakest side's rating (in 2N one side must carry the rack alone), the
    rack's ``design_kw``, its share of its cooling unit's capacity (split over the unit's racks in
    proportion to design_kw) and its share of the grid (grid capacity / design PUE, split over all racks
    in proportion to provisioned power). Stranded = provisioned - usable, attributed to the binding one.
    """
    g = power_graph(snap)
    provisioned: dict[int, float] = {}
    weakest: dict[int, float] = {}
    for r in snap.racks:
        side_kw: dict[str, float] = {}
        for fid in g.rack_feeds.get(r.id, ()):
            f = g.feeds[fid]
            side_kw[f.side] = side_kw.get(f.side, 0.0) + f.rating_kw
        if side_kw:
            provisioned[r.id] = max(side_kw.values())
            weakest[r.id] = min(side_kw.values())
    design_by_unit: dict[int, float] = {}
    for r in snap.racks:
        if r.cooling_unit_id is not None:
            design_by_unit[r.cooling_unit_id] = design_by_unit.get(r.cooling_unit_id, 0.0) + r.design_kw
    unit_capacity = {u.id: u.capacity_kw for u in snap.cooling_units}
    total_provisioned = sum(provisioned.values())
    grid_it_kw = snap.grid_capacity_kw / snap.design_pue if snap.design_pue > 0 else snap.grid_capacity_kw
    rows: dict[int, StrandedRow] = {}
    for r in snap.racks:
        prov = provisioned.get(r.id)
        if prov is None:
            continue
        limits = {"feed": weakest[r.id], "design": r.design_kw if r.design_kw > 0 else prov}
        if r.cooling_unit_id in unit_capacity and design_by_unit.get(r.cooling_unit_id, 0.0) > 0:
            limits["cooling"] = (
                unit_capacity[r.cooling_unit_id] * r.design_kw / design_by_unit[r.cooling_unit_id]
            )
        if snap.grid_capacity_kw > 0 and total_provisioned > 0:
            limits["grid"] = grid_it_kw * prov / total_provisioned
        binding = min(limits, key=limits.__getitem__)
        usable = min(prov, limits[binding])
        stranded = prov - usable
        rows[r.id] = StrandedRow(
            "rack",
            r.id,
            prov,
            usable,
            stranded,
            binding if stranded > 0 else "",
            {binding: stranded} if stranded > 0 else {},
        )

    def aggregate(scope: str, ident: int | None, members: Iterable[StrandedRow]) -> StrandedRow:
        prov = usable = 0.0
        by: dict[str, float] = {}
        for m in members:
            prov += m.provisioned_kw
            usable += m.usable_kw
            for k, v in m.stranded_by_constraint_kw.items():
                by[k] = by.get(k, 0.0) + v
        binding = max(by, key=by.__getitem__) if by else ""
        return StrandedRow(scope, ident, prov, usable, prov - usable, binding, by)

    by_hall: dict[int, list[StrandedRow]] = {}
    by_building: dict[int, list[StrandedRow]] = {}
    for r in snap.racks:
        row = rows.get(r.id)
        if row is not None:
            by_hall.setdefault(r.hall_id, []).append(row)
            by_building.setdefault(r.building_id, []).append(row)
    return StrandedCapacity(
        racks=rows,
        halls={h: aggregate("hall", h, m) for h, m in by_hall.items()},
        buildings={b: aggregate("building", b, m) for b, m in by_building.items()},
        campus=aggregate("campus", None, rows.values()),
    )
