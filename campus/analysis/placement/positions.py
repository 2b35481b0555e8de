"""Capacity placement's floor space: free rack positions on a hall's row lines."""

from __future__ import annotations

from campus.analysis.placement.request import AISLE_CLEARANCE_M, PERIMETER_CLEARANCE_M, TOL

# ---------------------------------------------------------------- floor space


def _overlaps(x: float, y: float, w: float, d: float, boxes: list[tuple[float, float, float, float]]) -> bool:
    for bx, by, bw, bd in boxes:
        if x < bx + bw - TOL and bx < x + w - TOL and y < by + bd - TOL and by < y + d - TOL:
            return True
    return False


def free_positions(
    hall_width_m: float,
    hall_length_m: float,
    racks: list[tuple[float, float, float, float]],
    size: tuple[float, float],
    wanted: int,
    prefer_lines: frozenset[float] = frozenset(),
    obstacles: list[tuple[float, float, float, float]] = (),
) -> list[tuple[float, float, bool]]:
    """Up to ``wanted`` free rack corners (x, y, on a new row line) in a hall, existing row lines first
    (``prefer_lines`` before the others).

    ``racks`` are the hall's footprints (x, y, width, depth). On an existing row line (racks sharing a
    ``y``) a position fills a gap or extends the row, within the span of the hall's rows (the walkways
    at their ends stay free), on no footprint. New row lines go behind the last rack, at
    ``AISLE_CLEARANCE_M`` from every rack's and ``obstacles``' (cooling units) front and back, across the
    hall less ``PERIMETER_CLEARANCE_M`` (or the rows' span where it is wider: a hall of one short row
    is not as narrow as that row)."""
    w, d = size
    if racks:
        lo_x = min(x for x, _, _, _ in racks)
        hi_x = max(x + rw for x, _, rw, _ in racks) - w
    else:
        lo_x, hi_x = PERIMETER_CLEARANCE_M, hall_width_m - PERIMETER_CLEARANCE_M - w
    hi_x = min(hi_x, hall_width_m - w)
    hi_y = hall_length_m - PERIMETER_CLEARANCE_M - d
    out: list[tuple[float, float, bool]] = []
    taken: list[tuple[float, float, float, float]] = list(racks)
    lines = sorted({round(y, 6) for _, y, _, _ in racks}, key=lambda y: (y not in prefer_lines, y))
    reach = 5.0 + 2 * AISLE_CLEARANCE_M  # racks are at most 5 m deep: nothing further away can touch
    for y in lines:
        if y + d > hall_length_m + TOL:
            continue
        near = [box for box in taken if abs(box[1] - y) < reach]
        x = lo_x
        while x <= hi_x + TOL and len(out) < wanted:
            if not _overlaps(x, y, w, d, near):
                out.append((round(x, 4), y, False))
                taken.append((x, y, w, d))
                near.append((x, y, w, d))
            x += w
        if len(out) >= wanted:
            return out
    blocked = list(racks) + list(obstacles)
    new_lo = min(lo_x, PERIMETER_CLEARANCE_M)
    new_hi = max(hi_x, min(hall_width_m - PERIMETER_CLEARANCE_M, hall_width_m) - w)
    y = max((ry + rd for _, ry, _, rd in racks), default=PERIMETER_CLEARANCE_M - AISLE_CLEARANCE_M)
    y += AISLE_CLEARANCE_M
    # along a new line: in step with the rows, from their first x to the far wall, then back to the near one
    xs = [lo_x + k * w for k in range(int((new_hi - lo_x + TOL) // w) + 1)]
    xs += [lo_x - k * w for k in range(1, int((lo_x - new_lo + TOL) // w) + 1)]
    while y <= hi_y + TOL and len(out) < wanted:
        placed = False
        near = [box for box in blocked if abs(box[1] - y) < reach]
        for x in xs:
            if len(out) >= wanted:
                break
            if not _overlaps(x, y - AISLE_CLEARANCE_M, w, d + 2 * AISLE_CLEARANCE_M, near):
                out.append((round(x, 4), round(y, 4), True))
                placed = True
        y += d + AISLE_CLEARANCE_M if placed else w
    return out


UNIT_FOOTPRINT_M = (1.2, 1.2)  # a cooling unit with a recorded position: about two rack widths square
