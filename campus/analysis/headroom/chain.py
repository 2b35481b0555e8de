"""Failover headroom of the chain: devices and utility feeds (see the package doc)."""

from __future__ import annotations

import numpy as np

from campus.analysis.headroom.probe import _Probe
from campus.analysis.headroom.results import (
    _COEF_CHUNK,
    _ROW_CHUNK,
    HEALTHY,
    TIE_RELATIVE,
    ElementHeadroom,
    Headroom,
    ScopeHeadroom,
)
from campus.analysis.headroom.rows import (
    _beyond,
    _by_scope,
    _lowers,
    _raw_ratios,
    _Rows,
    _scenario_rows,
    _ScopeMins,
)
from campus.analysis.headroom.scenarios import _placement, failure_scenarios
from campus.analysis.power import PowerGraph, baseline_state


def _compute(g: PowerGraph, context: dict | None = None) -> Headroom:
    """The chain's headroom (devices and utility feeds); ``context`` receives the probe and the scopes'
    columns for the bounds ``failover_headroom`` adds (``_feed_bound``)."""
    snap = g.snap
    base = baseline_state(g)
    place = _placement(g)
    probe = _Probe(g, place.rack_weight)
    n_halls = probe.n_halls
    hall_building = {h.id: h.building_id for h in snap.halls}
    hall_building.update({r.hall_id: r.building_id for r in snap.racks if r.hall_id not in hall_building})
    utilities = {u.id: u for u in snap.utility_feeds}
    util_devices: dict[int, list[int]] = {}
    for d, dev in g.devices.items():
        if dev.utility_feed_id is not None:
            util_devices.setdefault(dev.utility_feed_id, []).append(d)

    devices: dict[int, ElementHeadroom] = {}
    for d, dev in g.devices.items():
        if dev.rated_kw > 0:
            load = base.in_kw.get(d, 0.0)
            devices[d] = ElementHeadroom(
                dev.kind, d, dev.name, dev.rated_kw * dev.max_utilization, load, load, HEALTHY
            )
    util_rows: dict[int, ElementHeadroom] = {}
    base_util_load = {u: sum(base.utility_share_kw.get(d, 0.0) for d in ds) for u, ds in util_devices.items()}
    for u, feed in utilities.items():
        if feed.capacity_kw > 0:
            load = base_util_load.get(u, 0.0)
            util_rows[u] = ElementHeadroom("utility", u, feed.name, feed.capacity_kw, load, load, HEALTHY)

    # healthy rows: the devices' inputs, then the utility feeds' (their devices' shares added up)
    n_dev = len(probe.dev_row)
    util_index = {u: i for i, u in enumerate(util_rows)}
    base_util = np.zeros((len(util_rows), n_halls + 1))
    for u, i in util_index.items():
        for d in util_devices.get(u, ()):
            if probe.util_fac[d]:
                base_util[i] += probe.util_fac[d] * probe.base_in[probe.dev_row[d]]
        base_util[i, n_halls] = base_util_load.get(u, 0.0)
    elements: list[ElementHeadroom] = [*devices.values(), *util_rows.values()]
    element_of = {("device", d): i for i, d in enumerate(devices)}
    element_of.update({("utility", u): len(devices) + i for u, i in util_index.items()})

    # elements within their limit today: a scenario that only takes healthy rows off them (sensitivities and
    # load never above the healthy ones) offers nothing the healthy row did not, and is not evaluated
    within: dict = {d: row.load_kw <= row.limit_kw for d, row in devices.items()}
    within.update({("utility", u): row.load_kw <= row.limit_kw for u, row in util_rows.items()})
    rows = _Rows()
    failures = [HEALTHY]
    for d in devices:
        rows.add(probe.dev_row[d], element_of[("device", d)], 0)
    for u, i in util_index.items():
        rows.add(n_dev + i, element_of[("utility", u)], 0)
    scenarios = failure_scenarios(g)
    for scenario in scenarios:
        dev_rows, util_delta = _scenario_rows(probe, scenario)
        if not dev_rows and not util_delta:
            continue
        failures.append(scenario[0])
        f = len(failures) - 1
        for d, coefs in sorted(dev_rows):
            if d in devices and not (within[d] and _lowers(coefs, n_dev)):
                rows.add(probe.dev_row[d], element_of[("device", d)], f, coefs)
        for u in sorted(util_delta):
            coefs = util_delta[u]
            if u in util_index and coefs and not (within[("utility", u)] and _lowers(coefs, n_dev)):
                rows.add(n_dev + util_index[u], element_of[("utility", u)], f, coefs)

    # every row's numbers, in chunks: healthy row + its sources; then the worst loads and the scope minima
    sources = np.vstack([probe.base_in, *probe.extra]) if probe.extra else probe.base_in
    healthy = np.vstack([probe.base_in, base_util])
    row_base = np.asarray(rows.base, dtype=np.intp)
    row_element = np.asarray(rows.element, dtype=np.intp)
    coef_row = np.asarray(rows.coef_row, dtype=np.intp)
    coef_src = np.asarray(rows.coef_src, dtype=np.intp)
    coef = np.asarray(rows.coef, dtype=float)
    limit = np.array([e.limit_kw for e in elements])
    hall_ids = [h for h in probe.halls if h in place.hall_mode]
    hall_cols = np.array([probe.col[h] for h in hall_ids], dtype=np.intp)
    hall_col_of = {h: i for i, h in enumerate(hall_ids)}
    building_ids = list(place.building_share)
    to_building = np.zeros((n_halls, len(building_ids)))
    for j, b in enumerate(building_ids):
        for h, share in place.building_share[b].items():
            if h in probe.col:
                to_building[probe.col[h], j] = share
    to_campus = np.zeros((n_halls, 1))
    for h, share in place.campus_share.items():
        if h in probe.col:
            to_campus[probe.col[h], 0] = share
    it_by_hall: dict[int, float] = {}
    for r in snap.racks:
        it_by_hall[r.hall_id] = it_by_hall.get(r.hall_id, 0.0) + g.default_rack_load_kw[r.id]
    building_it = {b: 0.0 for b in building_ids}
    for h, kw in it_by_hall.items():
        if hall_building.get(h) in building_it:
            building_it[hall_building[h]] += kw
    # minus each column's IT today (halls, buildings, campus): the rule of ``_ratios``
    floor = -np.array(
        [*(it_by_hall.get(h, 0.0) for h in hall_ids), *building_it.values(), sum(it_by_hall.values())]
    )
    scope_min = _ScopeMins(len(hall_ids) + len(building_ids) + 1)
    within_min = _ScopeMins(len(hall_ids) + len(building_ids) + 1)  # elements within their limit only
    worst = np.full(len(elements), -np.inf)
    worst_row = np.full(len(elements), -1)
    worst_load = np.zeros(len(row_base))
    n_rows = len(row_base)

    # (element, column) pairs where the scope cannot bring the element back within its limit in some
    # scenario (``_ratios``): the element gives that scope 0 in every scenario, not the smaller shedding of
    # another scenario that would leave it over in this one
    unfixable = np.zeros((len(elements), len(floor)), dtype=bool)
    fixed_min = _ScopeMins(len(floor))

    n_parents = len(building_ids) + 1
    members_fit = np.ones(n_parents, dtype=bool)

    def sweep(over: np.ndarray | None, joint: np.ndarray | None = None) -> None:
        """Every row's numbers, chunk by chunk, offered to ``scope_min`` (noting ``unfixable`` and the worst
        loads); with ``over`` (the elements over their limit in some scenario) a second time, to
        ``fixed_min`` with the unfixable pairs at 0 and to ``within_min`` without the elements over."""
        start = 0
        while start < n_rows:
            stop = min(n_rows, start + _ROW_CHUNK)
            c0, c1 = np.searchsorted(coef_row, (start, stop))
            if c1 - c0 > _COEF_CHUNK:  # many sources in few rows (a whole side lost): fewer rows
                stop = max(start + 1, int(coef_row[c0 + _COEF_CHUNK]))
                c1 = int(np.searchsorted(coef_row, stop))
            new = healthy[row_base[start:stop]]
            # A row no higher than its element's healthy row in every column (load and sensitivities), with a
            # healthy margin >= 0, offers nothing lower than the healthy row did: it is left out of the minima.
            offered = np.ones(stop - start, dtype=bool)
            if c1 > c0:
                r = coef_row[c0:c1]
                heads = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
                terms = coef[c0:c1, None] * sources[coef_src[c0:c1]]
                counts = np.diff(np.r_[heads, len(r)])
                summed = terms[heads]  # most rows have one term; the others add theirs up
                more = np.flatnonzero(counts > 1)
                if len(more):
                    many = counts[more]
                    summed[more] = np.add.reduceat(
                        terms[np.repeat(counts > 1, counts)], np.r_[0, np.cumsum(many)[:-1]], axis=0
                    )
                changed = r[heads] - start
                offered[changed] = (summed > 0).any(axis=1) | (
                    limit[row_element[start:stop][changed]] < new[changed, n_halls]
                )
                new[changed] += summed
            load = new[:, n_halls]
            element = row_element[start:stop]
            keep = np.flatnonzero(offered)
            if joint is not None:
                # every hall at its own headroom at once: does any element within its limit go over?
                k = keep if over is None else keep[~over[element[keep]]]
                lim = limit[element[k]]
                added = new[k, :n_halls] @ joint
                members_fit[:] &= ~(added > (lim - load[k] + 1e-9 * np.abs(lim) + 1e-9)[:, None]).any(axis=0)
                start = stop
                continue
            sens = new[keep, :n_halls]
            values = _raw_ratios(
                limit[element[keep]] - load[keep], _by_scope(sens, hall_cols, to_building, to_campus)
            )
            if over is not None:
                pairs = unfixable[element[keep]]
                if pairs.any():
                    # the failures the scope cannot fix give it 0 and name the binding failure; the ones it
                    # could fix (a smaller shedding) offer nothing
                    values = values.copy()
                    values[pairs & (values < floor)] = 0.0
                    values[pairs & (values < 0.0)] = np.inf
                fixed_min.offer(values, start + keep)
                within = ~over[element[keep]]
                within_min.offer(values[within], (start + keep)[within])
                start = stop
                continue
            worst_load[start:stop] = load
            # worst load per element: the first row within rounding of the chunk's highest
            high = np.full(len(elements), -np.inf)
            np.maximum.at(high, element, load)
            better = high > _beyond(worst, 1.0)
            if better.any():
                near = load >= high[element] - TIE_RELATIVE * np.abs(high[element])
                near &= better[element]
                firsts, at = np.unique(element[near], return_index=True)
                picked = np.flatnonzero(near)[at]
                worst[firsts] = load[picked]
                worst_row[firsts] = start + picked
            bad = values < floor
            if bad.any():
                at, cols = np.nonzero(bad)
                unfixable[element[keep][at], cols] = True
                values[bad] = 0.0
            scope_min.offer(values, start + keep)
            start = stop

    sweep(None)
    # An element over its limit in some scenario: a second sweep gives every scope that cannot bring it back
    # 0 from it in every scenario, and the minima over the elements within their limit in every scenario
    # (``ScopeHeadroom.within_headroom_kw``); with none over, both are the first sweep's.
    over = worst > limit
    if over.any():
        sweep(over)
        scope_min = fixed_min
    else:
        within_min = scope_min
    # Each building's and the campus's halls all at their own headroom at once (``ScopeHeadroom.members_fit``):
    # when no element within its limit goes over, no element binds the parent beyond its halls, and stranded
    # capacity adds the halls up instead of placing the parent's load like today's (which held a parent at
    # a PDU of one hall while the other hall had room).
    own = np.clip(
        np.where(np.isfinite(scope_min.value[: len(hall_ids)]), scope_min.value[: len(hall_ids)], 0.0),
        0.0,
        None,
    )
    if len(hall_ids):
        joint = np.zeros((n_halls, n_parents))
        for j, b in enumerate(building_ids):
            for h in place.building_share[b]:
                if h in hall_col_of:
                    joint[probe.col[h], j] = own[hall_col_of[h]]
        joint[hall_cols, n_parents - 1] = own
        sweep(over if over.any() else None, joint)

    for i, e in enumerate(elements):
        if worst_row[i] >= 0:
            e.worst_load_kw = float(worst_load[worst_row[i]])
            e.worst_failure = failures[rows.failure[worst_row[i]]]

    def scope_row(scope: str, ident: int | None, it_kw: float, col: int | None, mode: str) -> ScopeHeadroom:
        if col is None or scope_min.row[col] < 0:
            return ScopeHeadroom(scope, ident, it_kw, None, placement=mode)
        row = int(scope_min.row[col])
        e = elements[rows.element[row]]
        out = ScopeHeadroom(
            scope,
            ident,
            it_kw,
            float(scope_min.value[col]),
            e.kind,
            e.id,
            e.name,
            failures[rows.failure[row]],
            mode,
        )
        if col >= len(hall_ids):
            out.members_fit = bool(members_fit[col - len(hall_ids)])
        if within_min.row[col] >= 0:
            row = int(within_min.row[col])
            e = elements[rows.element[row]]
            out.within_headroom_kw = float(within_min.value[col])
            out.within_binding = {
                "kind": e.kind,
                "id": e.id,
                "name": e.name,
                "failure": failures[rows.failure[row]].as_dict(),
            }
        return out

    hall_col = {h: i for i, h in enumerate(hall_ids)}
    halls = {
        h.id: scope_row(
            "hall", h.id, it_by_hall.get(h.id, 0.0), hall_col.get(h.id), place.hall_mode.get(h.id, "")
        )
        for h in snap.halls
    }
    building_col = {b: len(hall_ids) + j for j, b in enumerate(building_ids)}
    buildings = {}
    for b in snap.buildings:
        it_kw = sum(v for h, v in it_by_hall.items() if hall_building.get(h) == b.id)
        buildings[b.id] = scope_row(
            "building", b.id, it_kw, building_col.get(b.id), place.building_mode.get(b.id, "")
        )
    campus = scope_row(
        "campus", None, sum(it_by_hall.values()), len(hall_ids) + len(building_ids), place.campus_mode
    )
    if context is not None:
        context.update(
            probe=probe,
            scenarios=scenarios,
            columns=(hall_cols, to_building, to_campus),
            floor=floor,
            scope_cols=(hall_col, building_col, len(hall_ids) + len(building_ids)),
        )
    return Headroom(devices, util_rows, halls, buildings, campus, scenarios=len(scenarios) + 1)
