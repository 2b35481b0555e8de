"""A rack's feed ratings: one rule for every view (rack API, floor map, stranded capacity)."""

from __future__ import annotations

from collections.abc import Iterable

REDUNDANT_SIDES = ("A", "B")


def rack_side_ratings_kw(feeds: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Total feed rating per side ("A", "B", "N") of one rack, from its feeds' (side, rating_kw), kW.

    Feeds of one side share the rack's load (``power.rollup``), so their ratings add up."""
    out: dict[str, float] = {}
    for side, rating_kw in feeds:
        out[side] = out.get(side, 0.0) + rating_kw
    return out


def redundant_rating_kw(side_ratings_kw: dict[str, float]) -> float:
    """What the rack may draw with the design redundancy intact, kW (0 without feeds).

    A rack with A and/or B sides must run on either one alone (2N), so it gets its weakest rated A/B side;
    a rack on "N" feeds only gets their total."""
    sides = [side_ratings_kw[s] for s in REDUNDANT_SIDES if side_ratings_kw.get(s, 0.0) > 0]
    if sides:
        return min(sides)
    return max(side_ratings_kw.get("N", 0.0), 0.0)
