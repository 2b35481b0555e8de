"""Failover headroom's probe: per-hall unit loads pushed through the healthy chain's splits."""

from __future__ import annotations

import numpy as np

from campus.analysis.headroom.scenarios import _side_groups, _split_factors
from campus.analysis.heat import other_it_per_server_kw, server_share
from campus.analysis.mechanical import mechanical_sensitivity
from campus.analysis.power import PowerGraph, baseline_state

Coefs = dict[int, float]  # source row -> coefficient: a vector as a combination of the solver's sources


def _add_into(out: Coefs, coefs: Coefs, factor: float) -> None:
    for k, v in coefs.items():
        out[k] = out.get(k, 0.0) + v * factor


class _Probe:
    """Per-hall unit probe loads pushed through the baseline's splits (the rules of ``power._solve``), and
    the change a scenario makes to them, solved incrementally.

    A vector is a row over the probe halls plus one last column, the load in kW, so one propagation gives a
    device's sensitivities and its load. ``base_in`` holds every device's healthy input row. A scenario only
    changes the rows of the devices above a change (a device that dies, a re-split of its sources, racks
    moving to their surviving side); each change is carried up the chain as a short combination of
    *sources* (rows of ``base_in`` and of precomputed rack-shift vectors), so a scenario costs a few
    dictionary operations per changed device. ``rows`` turns the combinations into numbers at the end, all
    scenarios at once."""

    def __init__(self, g: PowerGraph, weights: dict[int, float]) -> None:
        self.g = g
        snap = g.snap
        base = self.base = baseline_state(g)
        per_server = other_it_per_server_kw(snap)
        mech = mechanical_sensitivity(snap, weights, per_server)
        halls = {h.id for h in snap.halls} | {r.hall_id for r in snap.racks}
        for vec in mech.values():
            halls.update(vec)
        self.halls = sorted(halls)
        col = self.col = {h: i for i, h in enumerate(self.halls)}
        n_halls = self.n_halls = len(self.halls)
        # every load's row: kW per kW added to a hall (racks by their placement weight, the mechanical loads
        # by the cooling power the added heat brings) and, last, its kW today
        self.load_row = {lid: i for i, lid in enumerate(g.load_feed_info)}
        loads = self.loads = np.zeros((len(self.load_row), n_halls + 1))
        for lid, i in self.load_row.items():
            loads[i, n_halls] = g.load_kw.get(lid, 0.0)
        # The allowance the added servers bring (``heat.other_it_per_server_kw`` per server kW, rule 5 of
        # ``heat``: k·S_h in each hall) is on their hall's load beside the racks, not on the racks' feeds.
        hall_servers = np.zeros(n_halls)
        weighted = []
        server_shares: dict[tuple, float] = {}  # by rack make-up
        for r in snap.racks:
            w = weights.get(r.id, 0.0)
            if w > 0 and r.id in self.load_row:
                weighted.append((r, w))
                if per_server:
                    key = (r.nodes, r.extra_it_kw)
                    if key not in server_shares:
                        server_shares[key] = server_share(snap, r)
                    hall_servers[col[r.hall_id]] += w * server_shares[key]
        if weighted:
            rows = np.array([self.load_row[r.id] for r, _ in weighted], dtype=np.intp)
            w = np.array([w for _, w in weighted])
            cols = np.array([col[r.hall_id] for r, _ in weighted], dtype=np.intp)
            loads[rows, cols] += w  # a rack's row once: no repeats
        if per_server:
            for lid, (kind, hall) in g.it_places.items():
                if kind == "hall" and hall in col:
                    share = per_server * hall_servers[col[hall]] * g.it_share[lid]
                    loads[self.load_row[lid], col[hall]] += share
        for lid, key in g.mechanical.items():
            vec = mech.get(key)
            if vec:
                kw = np.fromiter(vec.values(), float, len(vec))
                cols = np.fromiter(map(col.__getitem__, vec), np.intp, len(vec))
                loads[self.load_row[lid], cols[kw > 0]] = kw[kw > 0]

        # the baseline's splits: each load feed's and each device source's share
        self.load_fac: dict[int, float] = {}
        for info in g.load_feed_info.values():
            groups: dict[str, list[int]] = {}
            for fid, side, up in info:
                if base.live[up]:
                    groups.setdefault(side, []).append(fid)
            self.load_fac.update(_split_factors(groups))
        self.dev_row = {d: i for i, d in enumerate(g.devices)}
        self.up_fac: dict[int, dict[int, float]] = {}
        self.util_fac: dict[int, float] = {}
        for d in g.devices:
            fac = self.factors(d, base.live.__getitem__, frozenset(), frozenset()) if base.live[d] else {}
            self.util_fac[d] = fac.pop(-1, 0.0)
            self.up_fac[d] = fac
        self.dev_loads: dict[int, list[tuple[int, int, int]]] = {d: [] for d in g.devices}
        for lid, info in g.load_feed_info.items():
            for fid, _side, up in info:
                self.dev_loads[up].append((fid, lid, self.load_row[lid]))
        # a device's sources (feed, device), and the devices taking a share of its input in the baseline
        self.sources = {d: [(fid, g.feeds[fid].upstream_id) for fid in g.up_feeds[d]] for d in g.devices}
        self.shares = {
            d: [(up, self.up_fac[d][fid]) for fid, up in self.sources[d] if self.up_fac[d].get(fid)]
            for d in g.devices
        }
        self.children: dict[int, list[tuple[int, int]]] = {d: [] for d in g.devices}
        for fid, f in g.feeds.items():
            if f.downstream_device_id is not None:
                self.children[f.upstream_id].append((fid, f.downstream_device_id))

        # the healthy solve, bottom up; the load column is the power solve's own figure
        base_in = self.base_in = np.zeros((len(self.dev_row), n_halls + 1))
        for d in reversed(g.order):
            if not base.live[d]:
                continue
            out = np.zeros(n_halls + 1)
            fed = self.dev_loads[d]
            if fed:
                fac = np.array([self.load_fac.get(fid, 0.0) for fid, _, _ in fed])
                out += fac @ loads[[i for _, _, i in fed]]
            for fid, child in self.children[d]:
                fac = self.up_fac[child].get(fid, 0.0)
                if fac:
                    out += fac * base_in[self.dev_row[child]]
            eff = g.devices[d].efficiency
            row = base_in[self.dev_row[d]]
            row[:] = out / eff if eff > 0 else out
            row[n_halls] = base.in_kw.get(d, 0.0)
        self.extra: list[np.ndarray] = []  # sources beyond ``base_in``: rack shifts
        self._shift: dict[int, tuple[list[tuple[int, int]], frozenset[int], frozenset[int]]] = {}

    def factors(self, d: int, live, dead_feeds, failed_utilities) -> dict[int, float]:
        """Shares of a live device's input over its sources (feed id -> share, -1: its utility)."""
        g = self.g
        feeds = g.feeds
        ups = g.up_feeds[d]
        members = []
        util = g.devices[d].utility_feed_id
        if util is not None and util not in failed_utilities:
            members.append(("utility", -1))
        for fid in ups:
            up = feeds[fid].upstream_id
            if fid not in dead_feeds and live(up) and up not in g.generators:
                members.append((feeds[fid].side, fid))
        if not members:
            members = [
                (feeds[fid].side, fid)
                for fid in ups
                if fid not in dead_feeds and live(feeds[fid].upstream_id)
            ]
        return _split_factors(_side_groups(members))

    def source(self, vec: np.ndarray) -> int:
        self.extra.append(vec)
        return len(self.dev_row) + len(self.extra) - 1

    def load_shift(self, rows_by_device: dict[int, tuple[list[int], list[float]]]) -> list[tuple[int, int]]:
        """(device, source) of the rack shifts: per device, its changed load-feed shares times the loads."""
        out = []
        for d, (rows, coefs) in rows_by_device.items():
            out.append((d, self.source(np.asarray(coefs) @ self.loads[rows])))
        return out

    def shift_of(self, x: int) -> tuple[list[tuple[int, int]], frozenset[int], frozenset[int]]:
        """What the loss of device ``x`` alone does to the loads it feeds: (device, source) per other
        feeder, and the other feeds of those loads and their devices (the shift holds while none of them
        changes too)."""
        hit = self._shift.get(x)
        if hit is not None:
            return hit
        g, base = self.g, self.base
        acc: dict[int, tuple[list[int], list[float]]] = {}
        other_feeds: set[int] = set()
        other_devices: set[int] = set()
        for lid in dict.fromkeys(lid for _, lid, _ in self.dev_loads[x]):
            info = g.load_feed_info[lid]
            groups: dict[str, list[int]] = {}
            for fid, side, up in info:
                if up != x:
                    other_feeds.add(fid)
                    other_devices.add(up)
                    if base.live[up]:
                        groups.setdefault(side, []).append(fid)
            new = _split_factors(groups)
            for fid, _side, up in info:
                if up == x:
                    continue
                delta = new.get(fid, 0.0) - self.load_fac.get(fid, 0.0)
                if delta:
                    rows, coefs = acc.setdefault(up, ([], []))
                    rows.append(self.load_row[lid])
                    coefs.append(delta)
        hit = self._shift[x] = (self.load_shift(acc), frozenset(other_feeds), frozenset(other_devices))
        return hit
