"""Failover headroom's two bounds beside the chain: the rack feeds and the grid connection."""

from __future__ import annotations

import numpy as np

from campus.analysis.facility import campus_pue
from campus.analysis.headroom.probe import _Probe
from campus.analysis.headroom.results import (
    _ROW_CHUNK,
    HEALTHY,
    TIE_RELATIVE,
    Failure,
    GridHeadroom,
    Headroom,
    ScopeHeadroom,
)
from campus.analysis.headroom.rows import _by_scope, _ratios, _scope_value, _ScopeMins
from campus.analysis.headroom.scenarios import _split_factors
from campus.analysis.power import PowerGraph, baseline_state, power_graph
from campus.analysis.power_solve import failure_seeds, liveness_changes
from campus.analysis.snapshot import CampusSnapshot

GRID_BINDING_NAME = "grid connection"


def _feed_shares(g: PowerGraph, rid: int, live, dead_feeds: set[int] | frozenset[int]) -> dict[int, float]:
    """Each live feed's share of rack ``rid``'s load (``power._split``: evenly over the live sides, then over
    a side's live feeds)."""
    groups: dict[str, list[int]] = {}
    for fid, side, up in g.rack_feed_info.get(rid, ()):
        if fid not in dead_feeds and live(up):
            groups.setdefault(side, []).append(fid)
    return _split_factors(groups)


def feed_name(g: PowerGraph, fid: int) -> str:
    """ "UPS-1 -> R3 (A)": a rack feed by its ends and side (as impact mode names a tripped feed)."""
    f = g.feeds[fid]
    rack = g.racks[f.rack_id].name if f.rack_id in g.racks else f"rack {f.rack_id}"
    return f"{g.devices[f.upstream_id].name} -> {rack} ({f.side})"


def _feed_bound(g: PowerGraph, result: Headroom, context: dict) -> Headroom:
    """Every scope's headroom bounded by its racks' feeds: a rack feed's planning limit is its
    ``rating_kw`` × the ``max_utilization`` of the device feeding it (stranded capacity's plannable rating);
    in a scenario it carries its share of the rack's load (``power._split``), so the share is the feed's
    sensitivity to the rack's load and, the rack's load row being linear in the added IT, the feed offers
    ``(limit − share × load) / (share × s_rack)`` like a device. That ratio only falls as the share grows,
    so each feed's worst scenario is the one giving it its largest share (the first in scenario order).
    Racks with no added load (weight 0) are not offered, as a device the scope does not load."""
    probe: _Probe = context["probe"]
    base = baseline_state(g)
    worst: dict[int, tuple[float, Failure]] = {}  # feed -> (largest share, first scenario giving it)

    def offer(rid: int, shares: dict[int, float], failure: Failure) -> None:
        for fid, share in shares.items():
            if share > worst.get(fid, (0.0, HEALTHY))[0] * (1 + TIE_RELATIVE):
                worst[fid] = (share, failure)

    rated = {
        rid for rid, info in g.rack_feed_info.items() if any(g.feeds[fid].rating_kw > 0 for fid, _, _ in info)
    }
    for rid in sorted(rated):
        offer(rid, _feed_shares(g, rid, base.live.__getitem__, ()), HEALTHY)
    for failure, dead_devices, dead_feeds, failed_utilities in context["scenarios"]:
        utility_hit = {d for u in failed_utilities for d in g.by_utility.get(u, ())}
        seeds = failure_seeds(g, dead_devices, dead_feeds, utility_hit)
        changed = liveness_changes(g, base, seeds, dead_devices, dead_feeds, failed_utilities)
        hit: set[int] = set()
        for d in changed:
            for fid in g.down_feeds[d]:
                rid = g.feeds[fid].rack_id
                if rid in rated and g.feeds[fid].downstream_device_id is None:
                    hit.add(rid)
        for fid in dead_feeds:
            rid = g.feeds[fid].rack_id
            if rid in rated and g.feeds[fid].downstream_device_id is None:
                hit.add(rid)

        def live(d: int, changed=changed) -> bool:
            return base.live[d] != (d in changed)

        for rid in sorted(hit):
            offer(rid, _feed_shares(g, rid, live, dead_feeds), failure)

    hall_cols, to_building, to_campus = context["columns"]
    hall_col, building_col, campus_col = context["scope_cols"]
    n_halls = probe.n_halls
    fids = [fid for fid in sorted(worst) if g.feeds[fid].rating_kw > 0 and worst[fid][0] > 0]
    scope_min = _ScopeMins(len(hall_cols) + to_building.shape[1] + 1)
    for start in range(0, len(fids), _ROW_CHUNK):
        chunk = fids[start : start + _ROW_CHUNK]
        share = np.array([worst[fid][0] for fid in chunk])
        limit = np.array(
            [g.feeds[fid].rating_kw * g.devices[g.feeds[fid].upstream_id].max_utilization for fid in chunk]
        )
        rows = probe.loads[[probe.load_row[g.feeds[fid].rack_id] for fid in chunk]]
        sens = share[:, None] * rows[:, :n_halls]
        margin = limit - share * rows[:, n_halls]
        values = _ratios(margin, _by_scope(sens, hall_cols, to_building, to_campus), context["floor"])
        scope_min.offer(values, np.arange(start, start + len(chunk)))

    def bound(row: ScopeHeadroom, col: int | None) -> None:
        if col is None or row.headroom_kw is None or scope_min.row[col] < 0:
            return
        value = float(scope_min.value[col])
        if value < row.headroom_kw - TIE_RELATIVE * abs(row.headroom_kw):
            fid = fids[int(scope_min.row[col])]
            row.headroom_kw = value
            row.binding_kind, row.binding_id, row.binding_name = "feed", fid, feed_name(g, fid)
            row.binding_failure = worst[fid][1]

    for hid, row in result.halls.items():
        bound(row, hall_col.get(hid))
    for bid, row in result.buildings.items():
        bound(row, building_col.get(bid))
    bound(result.campus, campus_col)
    return result


def grid_it_kw(snap: CampusSnapshot) -> tuple[float, float, float] | None:
    """(the rack-feed kW the grid allows, the rack-feed kW today, the peak hour's PUE), or None when no grid
    limit is modelled. The grid carries the peak hour: the racks' feeds and the network and allowance beside
    them may carry ``grid_capacity_kw / peak PUE`` (``facility.campus_pue``), the figure
    stranded capacity caps the campus by."""
    if snap.grid_capacity_kw <= 0:
        return None
    g = power_graph(snap)
    pue = campus_pue(snap).peak_pue
    pue = pue if pue > 0 else 1.0
    # the racks' own IT and the network and allowance beside them: what the chain carries of IT
    fed = sum(g.load_kw.get(r.id, 0.0) for r in snap.racks) + sum(g.load_kw[lid] for lid in g.it_places)
    fed += sum(g.it_unplaced_kw.values())
    return snap.grid_capacity_kw / pue, fed, pue


def _grid_bound(g: PowerGraph, result: Headroom) -> Headroom:
    """Every scope's headroom bounded by the campus grid connection: IT added anywhere on the campus draws
    on the one connection, so a hall, a building and the campus can each add at most the rack IT that keeps
    the peak hour's facility load within ``grid_capacity_kw``. Added rack IT brings the network and other
    IT share the campus's racks carry today (``fed / it``). The grid binds in every scenario alike (a
    failure moves load within the chain, not off the grid), so its failure is "no failure"."""
    grid = grid_it_kw(g.snap)
    if grid is None:
        return result
    allowed, fed, pue = grid
    it = sum(g.default_rack_load_kw.get(r.id, 0.0) for r in g.snap.racks)
    carried = fed / it if it > 0 else 1.0
    it_headroom = (allowed - fed) / carried
    result.grid = GridHeadroom(g.snap.grid_capacity_kw, fed * pue, pue, it_headroom)
    for row in (*result.halls.values(), *result.buildings.values(), result.campus):
        value = _scope_value(it_headroom, row.it_kw)
        if row.headroom_kw is not None and value < row.headroom_kw:
            row.headroom_kw = value
            row.binding_kind, row.binding_id, row.binding_name = "grid", g.snap.id, GRID_BINDING_NAME
            row.binding_failure = HEALTHY
    return result
