"""Pods → buildings → halls → rows on the floor, with every rack's position."""

from __future__ import annotations

import math
from collections.abc import Sequence

from campus.interchange.generator.builder import Builder, HallRow
from campus.interchange.generator.common import (
    BUILDING_GAP_M,
    BUILDING_MARGIN_M,
    ELECTRICAL_GALLERY_M,
    HALL_GAP_M,
    HALL_MARGIN_M,
    RACK_WIDTH_M,
    ROW_PITCH_M,
    SERVICE_ZONE_M,
    SITE_ROW_MAX_SINGLE,
    Row,
    r3,
    rack_cooling_type,
)
from campus.interchange.generator.plan import PodPlan, RackPlan


def buildings_per_row(count: int, mean_width_m: float, mean_length_m: float) -> int:
    """Buildings in one row of the site plan: up to ``SITE_ROW_MAX_SINGLE`` in a single row, more in rows
    that make the site about as deep as it is wide (so a campus of 21 buildings is a block of 5 rows,
    not a strip 5 km long)."""
    if count <= SITE_ROW_MAX_SINGLE:
        return max(count, 1)
    pitch_x = mean_width_m + BUILDING_GAP_M
    pitch_y = mean_length_m + BUILDING_GAP_M
    return max(1, min(count, math.ceil(math.sqrt(count * pitch_y / pitch_x))))


def _site_plan(buildings: list[dict]) -> None:
    """Each building's corner on the campus plan: rows of ``buildings_per_row`` buildings in order,
    ``BUILDING_GAP_M`` apart both ways (a row as deep as its longest building)."""
    if not buildings:
        return
    per_row = buildings_per_row(
        len(buildings),
        sum(x["width_m"] for x in buildings) / len(buildings),
        sum(x["length_m"] for x in buildings) / len(buildings),
    )
    y = 0.0
    for start in range(0, len(buildings), per_row):
        row = buildings[start : start + per_row]
        x = 0.0
        for building in row:
            building["x_m"], building["y_m"] = r3(x), r3(y)
            x += building["width_m"] + BUILDING_GAP_M
        y += max(building["length_m"] for building in row) + BUILDING_GAP_M


def lay_out(
    b: Builder,
    pods: list[PodPlan],
    building_max_kw: float | Sequence[float],
    hall_max_kw: float,
    phased: bool = False,
) -> None:
    """Buildings and halls filled with servers up to ``building_max_kw`` and ``hall_max_kw`` of server
    power (budgets: ``limits.fit_layout`` starts them at the IT limits less the rest of
    ``other_it_fraction`` and lowers them until the IT the design counts is within the limits).
    ``phased``: each mix entry (a phase) starts a building of its own. ``building_max_kw`` may be one
    budget per mix entry (phase)."""
    width = max(2, len(str(len(pods))))
    b.pod_names = [f"POD-{p.index + 1:0{width}d}" for p in pods]
    # Each building: (pod, the pod's racks in it). An island stays in one building when it fits one; with
    # ``b.span_buildings`` an island larger than the building budget continues in the next building.
    buildings: list[list[tuple[PodPlan, list[RackPlan]]]] = []
    load = 0.0
    for pod in pods:
        budget = building_max_kw if isinstance(building_max_kw, (int, float)) else building_max_kw[pod.entry]
        new_phase = (
            phased and bool(buildings) and bool(buildings[-1]) and buildings[-1][-1][0].entry != pod.entry
        )
        if not buildings or (load + pod.kw > budget and buildings[-1]) or new_phase:
            buildings.append([])
            load = 0.0
        if not b.span_buildings or pod.kw <= budget:
            buildings[-1].append((pod, list(pod.racks)))
            load += pod.kw
            continue
        part: list[RackPlan] = []
        buildings[-1].append((pod, part))
        for rack in pod.racks:
            if part and load + rack.kw > budget:
                part = []
                buildings.append([(pod, part)])
                load = 0.0
            part.append(rack)
            load += rack.kw
    b.pod_building = [-1] * len(pods)
    b.pod_spans = [[] for _ in pods]
    for bi, members in enumerate(buildings):
        bname = f"B{bi + 1}"
        halls: list[list[RackPlan]] = [[]]
        hall_kw = 0.0
        for pod, racks in members:
            part_kw = sum(r.kw for r in racks)
            # Keep a pod inside one hall when it fits in a hall at all.
            if halls[-1] and hall_kw + part_kw > hall_max_kw and part_kw <= hall_max_kw:
                halls.append([])
                hall_kw = 0.0
            for rack in racks:
                if halls[-1] and hall_kw + rack.kw > hall_max_kw:
                    halls.append([])
                    hall_kw = 0.0
                halls[-1].append(rack)
                hall_kw += rack.kw
            position = pod.index
            if b.pod_building[position] < 0:
                b.pod_building[position] = bi
            b.pod_spans[position].append(bi)
        hall_specs = []
        hall_layouts = []
        hx = BUILDING_MARGIN_M
        max_len = 0.0
        for hi, racks in enumerate(halls):
            hall_spec, rows = _hall(b, bname, hi, racks)
            hall_spec["x_m"] = r3(hx)
            hall_spec["y_m"] = BUILDING_MARGIN_M
            hx += hall_spec["width_m"] + HALL_GAP_M
            max_len = max(max_len, hall_spec["length_m"])
            hall_specs.append(hall_spec)
            hall_layouts.append(rows)
        b_width = r3(hx - HALL_GAP_M + BUILDING_MARGIN_M)
        b_length = r3(max_len + 2 * BUILDING_MARGIN_M + ELECTRICAL_GALLERY_M)
        it_kw = sum(r.kw for racks in halls for r in racks)
        b.buildings.append(
            {
                "name": bname,
                "x_m": 0.0,
                "y_m": 0.0,
                "width_m": b_width,
                "length_m": b_length,
                "design_it_mw": r3(it_kw / 1000.0),
                "halls": hall_specs,
            }
        )
        b.layout.append(hall_layouts)
    _site_plan(b.buildings)
    for pod, bi in zip(pods, b.pod_building, strict=True):
        b.pods.append(
            {
                "name": b.pod_names[pod.index],
                "building": b.buildings[bi]["name"],
                "fabric": b.fabric_name,
                "topology": b.topology,
                "oversubscription": float(b.oversubscription if len(pods) > 1 else 1.0),
                "switch_model": b.switch_row["slug"],
            }
        )


def _hall(b: Builder, bname: str, hi: int, racks: list[RackPlan]) -> tuple[Row, list[HallRow]]:
    hname = f"H{hi + 1}"
    rows: list[HallRow] = []
    current_pod = None
    for rack in racks:
        # A new pod starts a new row, so rows (and their PDUs and leaves) belong to one pod.
        if not rows or rack.pod != current_pod or len(rows[-1][1]) >= b.racks_per_row:
            r = len(rows)
            rows.append(
                (
                    {
                        "name": f"R{r + 1:02d}",
                        "x_m": HALL_MARGIN_M,
                        "y_m": r3(HALL_MARGIN_M + r * ROW_PITCH_M),
                    },
                    [],
                )
            )
            current_pod = rack.pod
        row_spec, members = rows[-1]
        k = len(members)
        rack_spec: Row = {
            "name": f"{bname}-{hname}-{row_spec['name']}-{k + 1:02d}",
            "x_m": r3(HALL_MARGIN_M + k * RACK_WIDTH_M),
            "y_m": row_spec["y_m"],
            "cooling_type": rack_cooling_type(b.catalog.node_models[rack.node_model], b.cooling),
            "design_kw": rack.kw,
            "pod": b.pod_names[rack.pod],
            "nodes": [{"model": rack.node_model, "count": rack.nodes}],
        }
        members.append((rack_spec, rack))
    # Spare positions at the end of every row for the planning margin.
    positions = math.ceil(b.racks_per_row * b.margin_factor - 1e-9)
    width = r3(2 * HALL_MARGIN_M + positions * RACK_WIDTH_M)
    length = r3(2 * HALL_MARGIN_M + len(rows) * ROW_PITCH_M + SERVICE_ZONE_M)
    for row_spec, members in rows:
        row_spec["racks"] = [spec for spec, _ in members]
    hall = {
        "name": hname,
        "width_m": width,
        "length_m": length,
        "design_it_mw": r3(sum(r.kw for r in racks) / 1000.0),
        "rows": [row_spec for row_spec, _ in rows],
    }
    return hall, rows
