"""Failover headroom's numbers: each scenario's changed rows, and the ratios per scope."""

from __future__ import annotations

import heapq

import numpy as np

from campus.analysis.headroom.probe import Coefs, _add_into, _Probe
from campus.analysis.headroom.results import MIN_SENSITIVITY, TIE_RELATIVE, Failure
from campus.analysis.headroom.scenarios import _split_factors
from campus.analysis.power_solve import failure_seeds, liveness_changes


def _scenario_rows(
    probe: _Probe,
    scenario: tuple[Failure, set[int], set[int], frozenset[int]],
) -> tuple[list[tuple[int, Coefs]], dict[int, Coefs]]:
    """The changed input rows of one scenario's live devices and utility feeds, as source combinations
    added to their healthy rows: ([(device, coefs)], {utility: coefs})."""
    g, base = probe.g, probe.base
    _failure, dead_devices, dead_feeds, failed_utilities = scenario
    utility_hit = {d for u in failed_utilities for d in g.by_utility.get(u, ())}
    seeds = failure_seeds(g, dead_devices, dead_feeds, utility_hit)
    if not seeds and not dead_feeds:
        return [], {}
    base_live = base.live
    changed = liveness_changes(g, base, seeds, dead_devices, dead_feeds, failed_utilities)

    def live(d: int) -> bool:
        return base_live[d] != (d in changed)

    # devices whose sources may split differently: the changed ones, the seeds and the children of the
    # changed ones
    resplit = seeds | changed
    for x in changed:
        resplit.update(child for _, child in probe.children[x])
    delta: dict[int, Coefs] = {}  # device -> change of its output row
    heap = [(-g.pos[d], d) for d in resplit]
    heapq.heapify(heap)
    queued = set(resplit)

    def add(d: int, coefs: Coefs, factor: float) -> None:
        _add_into(delta.setdefault(d, {}), coefs, factor)
        if d not in queued:
            queued.add(d)
            heapq.heappush(heap, (-g.pos[d], d))

    # loads that move to their surviving sides: per lost device alone a cached shift, else re-split here
    resolve_loads: set[int] = set()
    shifted: set[int] = set()
    for x in changed:
        if not probe.dev_loads[x]:
            continue
        if not live(x):
            shift, other_feeds, other_devices = probe.shift_of(x)
            if other_feeds.isdisjoint(dead_feeds) and other_devices.isdisjoint(changed):
                shifted.add(x)
                for y, src in shift:
                    if live(y):
                        add(y, {src: 1.0}, 1.0)
                continue
        resolve_loads.update(lid for _, lid, _ in probe.dev_loads[x])
    for fid in dead_feeds:
        f = g.feeds[fid]
        if f.downstream_device_id is None and f.rack_id is not None and f.upstream_id not in shifted:
            resolve_loads.add(f.rack_id)
    if resolve_loads:
        acc: dict[int, tuple[list[int], list[float]]] = {}
        for lid in resolve_loads:
            info = g.load_feed_info.get(lid, ())
            groups: dict[str, list[int]] = {}
            for fid, side, up in info:
                if fid not in dead_feeds and live(up):
                    groups.setdefault(side, []).append(fid)
            new = _split_factors(groups)
            for fid, _side, up in info:
                change = new.get(fid, 0.0) - probe.load_fac.get(fid, 0.0)
                if change and live(up):
                    rows, coefs = acc.setdefault(up, ([], []))
                    rows.append(probe.load_row[lid])
                    coefs.append(change)
        for y, src in probe.load_shift(acc):
            add(y, {src: 1.0}, 1.0)

    # bottom up: a device's input change, then its sources' shares of it
    devices, pos = g.devices, g.pos
    rows: list[tuple[int, Coefs]] = []
    util_delta: dict[int, Coefs] = {}
    while heap:
        _, d = heapq.heappop(heap)
        row = probe.dev_row[d]
        base_fac, base_util = probe.up_fac[d], probe.util_fac[d]
        if not live(d):
            if not base_live[d]:
                continue
            din: Coefs = {row: -1.0}  # the healthy row taken off: nothing flows
            fac: dict[int, float] = {}
            util_fac = 0.0
        else:
            dout = delta.get(d)
            eff = devices[d].efficiency
            if not dout:
                din = {}
            elif eff > 0:
                din = {k: v / eff for k, v in dout.items()}
            else:
                din = dict(dout)
            if d in resplit:
                fac = probe.factors(d, live, dead_feeds, failed_utilities)
                util_fac = fac.pop(-1, 0.0)
            else:
                fac, util_fac = base_fac, base_util
            if din:
                rows.append((d, din))
        if fac is not base_fac:
            for fid, parent in probe.sources[d]:
                new_f, old_f = fac.get(fid, 0.0), base_fac.get(fid, 0.0)
                if (new_f == old_f and not din) or (new_f == 0.0 and old_f == 0.0):
                    continue
                if base_live[parent] == (parent in changed):  # dead now
                    continue
                change = {row: new_f - old_f} if new_f != old_f else {}
                if new_f:
                    _add_into(change, din, new_f)
                add(parent, change, 1.0)
        elif din:  # the same shares: each source takes its share of the change
            for parent, share in probe.shares[d]:
                if base_live[parent] == (parent in changed):
                    continue
                out = delta.get(parent)
                if out is None:
                    out = delta[parent] = {}
                    if parent not in queued:
                        queued.add(parent)
                        heapq.heappush(heap, (-pos[parent], parent))
                for k, v in din.items():
                    out[k] = out.get(k, 0.0) + v * share
        util = devices[d].utility_feed_id
        if util is not None and util not in failed_utilities and (util_fac != base_util or din):
            out = util_delta.setdefault(util, {})
            if util_fac != base_util:
                out[row] = out.get(row, 0.0) + util_fac - base_util
            if util_fac:
                _add_into(out, din, util_fac)
    return rows, util_delta


def _lowers(coefs: Coefs, n_healthy: int) -> bool:
    """The change only subtracts healthy rows (each >= 0 in every column), so no column rises."""
    return all(k < n_healthy and v <= 0 for k, v in coefs.items())


class _Rows:
    """The offers of every scenario as rows: a healthy row (device or utility) plus a source combination."""

    def __init__(self) -> None:
        self.base: list[int] = []
        self.element: list[int] = []
        self.failure: list[int] = []
        self.coef_row: list[int] = []
        self.coef_src: list[int] = []
        self.coef: list[float] = []

    def add(self, base: int, element: int, failure: int, coefs: Coefs | None = None) -> None:
        if coefs:
            self.coef_row.extend([len(self.base)] * len(coefs))
            self.coef_src.extend(coefs)
            self.coef.extend(coefs.values())
        self.base.append(base)
        self.element.append(element)
        self.failure.append(failure)


class _ScopeMins:
    """Per column (a hall, building or the campus) the lowest value offered and the row offering it; a
    later row replaces it only when lower by more than float rounding (``TIE_RELATIVE``)."""

    def __init__(self, n: int) -> None:
        self.value = np.full(n, np.inf)
        self.row = np.full(n, -1)

    def offer(self, values: np.ndarray, row_ids: np.ndarray) -> None:
        if not len(values):
            return
        low = values.min(axis=0)
        better = low < _beyond(self.value, -1.0)
        if not better.any():
            return
        cols = np.flatnonzero(better)
        sub = values[:, cols]
        first = (sub <= low[cols] + TIE_RELATIVE * np.abs(low[cols])).argmax(axis=0)
        self.value[cols] = sub[first, np.arange(len(cols))]
        self.row[cols] = row_ids[first]


def _beyond(values: np.ndarray, sign: float) -> np.ndarray:
    """``values`` moved by the tie tolerance in the direction of ``sign`` (infinities stay)."""
    out = values.copy()
    finite = np.isfinite(values)
    out[finite] += sign * TIE_RELATIVE * np.abs(values[finite])
    return out


def _raw_ratios(margin: np.ndarray, sens: np.ndarray) -> np.ndarray:
    """margin / sensitivity where the sensitivity counts (> ``MIN_SENSITIVITY``), else inf."""
    out = np.full(sens.shape, np.inf)
    np.divide(margin[:, None], sens, out=out, where=sens > MIN_SENSITIVITY)
    return out


def _by_scope(
    sens: np.ndarray, hall_cols: np.ndarray, to_building: np.ndarray, to_campus: np.ndarray
) -> np.ndarray:
    """Rows' sensitivities per hall (probe columns) as the scopes' columns: halls, buildings, the campus."""
    return np.hstack([sens[:, hall_cols], sens @ to_building, sens @ to_campus])


def _ratios(margin: np.ndarray, sens: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """margin / sensitivity where the sensitivity counts (> ``MIN_SENSITIVITY``), else inf.

    ``floor`` is minus each column's IT load today. An element already over its limit gives a negative
    figure: the IT the scope would have to shed. Where even shedding all of the scope's load would leave
    the element over its limit (the figure below ``floor``: a scope loading the element only through a
    small share, such as the campus-wide other IT), the scope cannot bring it back, and its figure is 0:
    nothing can be added without adding to an element already over its limit."""
    out = _raw_ratios(margin, sens)
    out[out < floor] = 0.0
    return out


def _scope_value(value: float, it_kw: float) -> float:
    """One scope's figure by the rule of ``_ratios``: below minus its IT load, 0."""
    return 0.0 if value < -it_kw else value
