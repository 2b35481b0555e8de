"""Where the plant sits on the floor map: power devices, cooling units and cooling plants, with the links
between them and to the racks they serve.

Only cooling units record a floor position (``CoolingUnit.x_m``/``y_m``, the unit's corner in its hall). Every
other element is laid out by a fixed rule, so the map can draw the whole chain (docs/dashboard.md, "The plant
on the floor map"):

* a device feeding racks directly (PDU, RPP, busway) stands at the end of the row it feeds: side A (and N) at
  the left end, side B at the right end;
* a device whose racks and cooling units all lie in one hall (that hall's UPS, switchgear, transformers,
  generators, mechanical PDUs) stands in the building's electrical gallery, in the strip under its hall, one
  line per kind (UPS, switchgear, transformers, PDUs, generators);
* a device serving several halls (substation, main switchgear, campus generators) and the cooling plants stand
  in the yard below their building, one line per kind;
* a cooling unit without a recorded position stands along the far end of its hall (the service zone).

Footprints are indicative (a rack-sized PDU, a 12 m chiller container, a generator set's own skid); the map
draws them to scale so a planner sees the plant where it serves, not a survey drawing. Sources in
docs/dashboard.md, "Footprints".

Positions are relative to a *frame*: ``"hall"`` (the hall's corner), ``"building"`` (the building's corner)
or ``"campus"`` (a strip the map puts below every building), so a map that lays halls or buildings out itself
carries the plant along.
"""

from __future__ import annotations

from collections.abc import Mapping

from campus.analysis.power_graph import PowerGraph
from campus.analysis.snapshot import CampusSnapshot

# Indicative footprints, width (x) by depth (y), m.
POWER_FOOTPRINT_M = {
    "pdu": (0.8, 1.2),
    "rpp": (0.8, 1.2),
    "busway": (0.6, 1.2),
    "ups": (3.0, 1.5),
    "switchgear": (4.0, 1.5),
    "transformer": (3.0, 3.0),
    # a 2.6 MW diesel set, compact version (KOHLER SDMO KD3300-E data sheet: 5,319 x 1,960 mm), the size of
    # the catalogue's 2.5 MW standby set
    "generator": (5.3, 2.0),
    "substation": (10.0, 10.0),
}
COOLING_FOOTPRINT_M = {
    "cdu": (1.2, 1.2),
    "crah": (2.4, 1.0),
    "rear-door": (0.6, 1.2),
    "immersion": (2.4, 1.2),
}
PLANT_FOOTPRINT_M = {
    "chiller": (12.0, 3.0),
    "dry-cooler": (12.0, 2.4),
    "cooling-tower": (8.0, 8.0),
    "air-chiller": (12.0, 2.4),  # a packaged air-cooled chiller block
    "adiabatic-cooler": (12.0, 2.4),  # a dry cooler with its pads
}
DEFAULT_FOOTPRINT_M = (2.0, 2.0)

ROW_END_KINDS = ("pdu", "rpp", "busway")
# Lines of the gallery and the yard, in order; kinds not listed go last.
GALLERY_ORDER = ("ups", "switchgear", "transformer", "pdu", "rpp", "busway", "generator", "substation")
YARD_ORDER = ("substation", "transformer", "switchgear", "ups", "pdu", "rpp", "busway", "generator")
GAP_M = 1.0  # between elements on a line
LINE_GAP_M = 2.0  # between lines
GALLERY_OFFSET_M = 3.0  # from the lowest hall to the gallery
YARD_OFFSET_M = 6.0  # from the building (or its gallery) to the yard
SERVICE_ZONE_OFFSET_M = 3.0  # from the hall's far wall to the units along it


class _Shelf:
    """Elements set left to right on lines that wrap at a width, one line per kind."""

    def __init__(self, x0: float, y0: float, width: float) -> None:
        self.x0, self.width = x0, max(width, 12.0)
        self.x, self.y, self.line_depth = x0, y0, 0.0

    def new_line(self) -> None:
        if self.x > self.x0:
            self.y += self.line_depth + LINE_GAP_M
            self.x, self.line_depth = self.x0, 0.0

    def place(self, w: float, d: float) -> tuple[float, float]:
        if self.x > self.x0 and self.x + w > self.x0 + self.width:
            self.new_line()
        at = (self.x, self.y)
        self.x += w + GAP_M
        self.line_depth = max(self.line_depth, d)
        return at

    @property
    def bottom(self) -> float:
        return self.y + self.line_depth


def _order(kind: str, order: tuple[str, ...]) -> int:
    return order.index(kind) if kind in order else len(order)


def plant_layout(snap: CampusSnapshot, g: PowerGraph, hall_geometry: Mapping[int, dict]) -> dict:
    """``plant``: one dict per power device, cooling unit and cooling plant (type, id, name, kind, building,
    hall, frame, position and footprint, whether the position is recorded or laid out, its supplies);
    ``power_links``: ``[upstream device, downstream device, side]`` for every feed between two devices."""
    halls = {h.id: h for h in snap.halls}
    units = {u.id: u for u in snap.cooling_units}
    hall_at = {hid: hall_geometry.get(hid, {"x_m": 0.0, "y_m": 0.0}) for hid in halls}
    rack_by_id = {r.id: r for r in snap.racks}

    # The halls each device serves: its racks and cooling units, directly or through the devices below it.
    unit_supplies: dict[int, list[int]] = {}
    for u in snap.cooling_units:
        for d in u.supply_ids:
            unit_supplies.setdefault(d, []).append(u.id)
    served: dict[int, frozenset[int]] = {}
    for d in reversed(g.order):  # children before parents
        found: set[int] = set()
        for fid in g.down_feeds[d]:
            f = g.feeds[fid]
            if f.downstream_device_id is not None:
                found |= served[f.downstream_device_id]
            elif f.rack_id in rack_by_id:
                found.add(rack_by_id[f.rack_id].hall_id)
        for uid in unit_supplies.get(d, ()):
            if units[uid].hall_id is not None:
                found.add(units[uid].hall_id)
        served[d] = frozenset(found)

    items: list[dict] = []

    def item(
        kind_type: str, el, kind: str, building_id, hall_id, frame: str, xy, size, recorded: bool, **more
    ):
        items.append(
            {
                "type": kind_type,
                "id": el.id,
                "name": el.name,
                "kind": kind,
                "building_id": building_id,
                "hall_id": hall_id,
                "frame": frame,
                "x_m": round(xy[0], 3),
                "y_m": round(xy[1], 3),
                "width_m": size[0],
                "depth_m": size[1],
                "position": "recorded" if recorded else "laid out",
                **more,
            }
        )

    # Row ends: the racks a device feeds directly, by side.
    direct: dict[int, list[tuple[int, str]]] = {}
    for rid, feeds in g.rack_feed_info.items():
        for _fid, side, up in feeds:
            direct.setdefault(up, []).append((rid, side))
    row_end_count: dict[tuple[int, float, str], int] = {}
    gallery: dict[int, list] = {}  # hall id -> devices
    yard: dict[int | None, list] = {}  # building id (None: campus) -> devices and plants
    for d in snap.power_devices:
        size = POWER_FOOTPRINT_M.get(d.kind, DEFAULT_FOOTPRINT_M)
        fed = [(rack_by_id[rid], side) for rid, side in direct.get(d.id, ()) if rid in rack_by_id]
        one_hall = next(iter(served[d.id])) if len(served[d.id]) == 1 else None
        supplies = sorted(g.feeds[f].upstream_id for f in g.up_feeds[d.id])
        if d.kind in ROW_END_KINDS and fed and one_hall is not None:
            racks = [r for r, _ in fed]
            side = "B" if all(s == "B" for _, s in fed) else "A"
            y = min(r.y_m for r in racks)
            end = (one_hall, round(y, 1), side)
            k = row_end_count.get(end, 0)
            row_end_count[end] = k + 1
            if side == "B":
                x = max(r.x_m + 0.6 for r in racks) + 0.2 + k * (size[0] + 0.2)
            else:
                x = min(r.x_m for r in racks) - 0.2 - size[0] - k * (size[0] + 0.2)
            building = halls[one_hall].building_id if one_hall in halls else d.building_id
            item("power", d, d.kind, building, one_hall, "hall", (x, y), size, False, supply_ids=supplies)
        elif one_hall is not None and one_hall in halls:
            gallery.setdefault(one_hall, []).append((d, size, supplies))
        else:
            yard.setdefault(d.building_id, []).append(("power", d, size, supplies))
    for p in snap.cooling_plants:
        size = PLANT_FOOTPRINT_M.get(p.kind, DEFAULT_FOOTPRINT_M)
        yard.setdefault(p.building_id, []).append(("plant", p, size, list(p.supply_ids)))

    # Cooling units: their recorded position, else along the far end of the hall.
    service_x: dict[int, float] = {}
    service_y: dict[int, float] = {}  # hall id -> the line's offset back from the far wall
    for u in snap.cooling_units:
        size = COOLING_FOOTPRINT_M.get(u.kind, DEFAULT_FOOTPRINT_M)
        more = {"supply_ids": list(u.supply_ids), "plant_id": u.plant_id}
        hall = halls.get(u.hall_id) if u.hall_id is not None else None
        building = hall.building_id if hall is not None else None
        recorded = u.x_m is not None and u.y_m is not None and hall is not None
        if recorded:
            item("cooling", u, u.kind, building, u.hall_id, "hall", (u.x_m, u.y_m), size, True, **more)
        elif hall is not None:
            x = service_x.get(hall.id, 2.0)
            back = service_y.get(hall.id, 0.0)
            if x > 2.0 and x + size[0] > hall.width_m - 1.0:
                # the line is full: the next one in front of it, so no unit stands past the hall's side wall
                x, back = 2.0, back + size[1] + GAP_M
                service_y[hall.id] = back
            service_x[hall.id] = x + size[0] + GAP_M
            y = hall.length_m - SERVICE_ZONE_OFFSET_M - back
            item("cooling", u, u.kind, building, hall.id, "hall", (x, y), size, False, **more)
        else:
            yard.setdefault(None, []).append(("cooling", u, size, list(u.supply_ids)))

    # The gallery under each hall (building frame), then the yard under each building.
    by_building: dict[int, list[int]] = {}
    for h in snap.halls:
        by_building.setdefault(h.building_id, []).append(h.id)
    buildings = {b.id: b for b in snap.buildings}
    building_bottom: dict[int, float] = {}
    for bid, hall_ids in by_building.items():
        halls_bottom = max(hall_at[h]["y_m"] + halls[h].length_m for h in hall_ids)
        bottom = max(halls_bottom, buildings[bid].length_m if bid in buildings else 0.0)
        for hid in hall_ids:
            hall = halls[hid]
            shelf = _Shelf(hall_at[hid]["x_m"], halls_bottom + GALLERY_OFFSET_M, hall.width_m)
            kind = None
            for d, size, supplies in sorted(
                gallery.get(hid, []), key=lambda e: (_order(e[0].kind, GALLERY_ORDER), e[0].name)
            ):
                if kind is not None and d.kind != kind:
                    shelf.new_line()
                kind = d.kind
                xy = shelf.place(*size)
                item("power", d, d.kind, bid, hid, "building", xy, size, False, supply_ids=supplies)
            if kind is not None:
                bottom = max(bottom, shelf.bottom)
        building_bottom[bid] = bottom
    for bid, members in yard.items():
        if bid is None:
            shelf = _Shelf(0.0, 0.0, 200.0)
            frame = "campus"
        else:
            width = buildings[bid].width_m if bid in buildings else 60.0
            shelf = _Shelf(0.0, building_bottom.get(bid, 0.0) + YARD_OFFSET_M, width)
            frame = "building"
        kind = None
        members.sort(
            key=lambda e: (
                e[0] != "power",
                _order(e[1].kind, YARD_ORDER) if e[0] == "power" else 0,
                e[1].name,
            )
        )
        for kind_type, el, size, supplies in members:
            key = (kind_type, el.kind)
            if kind is not None and key != kind:
                shelf.new_line()
            kind = key
            xy = shelf.place(*size)
            more = {"supply_ids": supplies}
            if kind_type == "cooling":
                more["plant_id"] = el.plant_id
            item(kind_type, el, el.kind, bid, None, frame, xy, size, False, **more)

    links = [
        [f.upstream_id, f.downstream_device_id, f.side]
        for f in snap.power_feeds
        if f.downstream_device_id is not None
    ]
    return {"plant": items, "power_links": links}


def rack_feed_devices(g: PowerGraph) -> dict[int, list[list]]:
    """rack id -> ``[[device id, side], ...]``: the devices feeding the rack directly."""
    return {rid: [[up, side] for _fid, side, up in feeds] for rid, feeds in g.rack_feed_info.items()}
