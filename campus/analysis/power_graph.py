"""The power chain of one snapshot as a graph: adjacency, topological order, the loads it carries.

Built once per snapshot and cached (snapshots are immutable). The solver lives in ``campus.analysis.power``.
"""

from __future__ import annotations

from collections.abc import Iterable

from campus.analysis.heat import ItBeyondRacks, it_beyond_at, rack_it_kw_by_id
from campus.analysis.mechanical import SUPPLY_SIDES, cooling_figures, mechanical_loads
from campus.analysis.memo import snapshot_memo
from campus.analysis.snapshot import CampusSnapshot, PowerDeviceSnap, PowerFeedSnap

# Device statuses that carry no power. "planned" devices are part of the design and are analysed as built.
DEAD_STATUSES = frozenset({"failed", "offline"})
GENERATOR_KIND = "generator"


class PowerGraph:
    """Adjacency, topological order and the healthy baseline of one snapshot's power chain."""

    def __init__(self, snap: CampusSnapshot) -> None:
        self.snap = snap
        self.devices: dict[int, PowerDeviceSnap] = {d.id: d for d in snap.power_devices}
        self.feeds: dict[int, PowerFeedSnap] = {f.id: f for f in snap.power_feeds}
        self.up_feeds: dict[int, list[int]] = {d: [] for d in self.devices}
        self.down_feeds: dict[int, list[int]] = {d: [] for d in self.devices}
        self.rack_feeds: dict[int, list[int]] = {}
        for f in snap.power_feeds:
            if f.upstream_id not in self.devices:
                raise ValueError(f"power feed {f.id}: upstream device {f.upstream_id} is not in the snapshot")
            self.down_feeds[f.upstream_id].append(f.id)
            if f.downstream_device_id is not None:
                if f.downstream_device_id not in self.devices:
                    raise ValueError(
                        f"power feed {f.id}: downstream device {f.downstream_device_id} is not in the snapshot"
                    )
                self.up_feeds[f.downstream_device_id].append(f.id)
            elif f.rack_id is not None:
                self.rack_feeds.setdefault(f.rack_id, []).append(f.id)
        self.rack_feed_info: dict[int, tuple[tuple[int, str, int], ...]] = {
            rid: tuple((fid, self.feeds[fid].side, self.feeds[fid].upstream_id) for fid in fids)
            for rid, fids in self.rack_feeds.items()
        }
        self.default_rack_load_kw = dict(rack_it_kw_by_id(snap))
        # Every load the chain carries, by load id: the racks, then the mechanical loads under negative
        # ids (never a rack's) with pseudo feeds of no rating (ids below -1, never a feed's; -1 marks a
        # device's direct utility share in the solver).
        self.load_feeds: dict[int, list[int]] = {rid: list(fids) for rid, fids in self.rack_feeds.items()}
        self.load_feed_info = dict(self.rack_feed_info)
        # A rack's feeds carry the rack's own IT and nothing else.
        self.load_kw: dict[int, float] = dict(self.default_rack_load_kw)
        self.mechanical: dict[int, tuple[str, int]] = {}  # load id -> ("unit" | "plant", id)
        self.mechanical_feeds: set[int] = set()
        mechanical_kw, self.unit_heat_kw = cooling_figures(snap)  # heat: for the failure analysis
        for m in mechanical_loads(snap, mechanical_kw):
            lid = -1 - len(self.mechanical)
            self.mechanical[lid] = (m.kind, m.id)
            self.load_kw[lid] = m.load_kw
            info = []
            for side, up in zip(SUPPLY_SIDES, m.supplies, strict=False):
                if up not in self.devices:
                    continue
                fid = -2 - len(self.mechanical_feeds)
                self.mechanical_feeds.add(fid)
                self.feeds[fid] = PowerFeedSnap(fid, up, None, lid, side, 0.0)
                self.down_feeds[up].append(fid)
                info.append((fid, side, up))
            self.load_feeds[lid] = [fid for fid, _, _ in info]
            self.load_feed_info[lid] = tuple(info)
        self._it_beside_racks(snap)
        self.generators = frozenset(d.id for d in snap.power_devices if d.kind == GENERATOR_KIND)
        self.order, self.depth = self._topological_order()
        self.pos = {d: i for i, d in enumerate(self.order)}
        self.racks = {r.id: r for r in snap.racks}
        self.rack_gpus = {r.id: snap.rack_gpus(r) for r in snap.racks}
        self.rack_gpu_count = {rid: sum(by_model.values()) for rid, by_model in self.rack_gpus.items()}
        # Racks with a load and no power feed: nothing carries them, so they are dark in every solve (a
        # rack with neither load nor feed is an empty position, not a dark rack).
        self.unfed_racks = frozenset(
            rid for rid in self.racks if rid not in self.rack_feeds and self.load_kw.get(rid, 0.0) > 0
        )
        self.status_dead = frozenset(d.id for d in snap.power_devices if d.status in DEAD_STATUSES)
        # Results derived from this graph alone (the healthy solve, the baseline roll-up, the cooling
        # index of the failure analysis), computed once by their owners.
        self.memo: dict[str, object] = {}
        self.utility_ids = frozenset(u.id for u in snap.utility_feeds) | {
            d.utility_feed_id for d in snap.power_devices if d.utility_feed_id is not None
        }
        # a utility feed's capacity is the connection's protection: above it the feed trips (power._overloads)
        self.utility_capacity_kw = {u.id: u.capacity_kw for u in snap.utility_feeds if u.capacity_kw > 0}
        self.by_utility: dict[int, list[int]] = {}
        for d in snap.power_devices:
            if d.utility_feed_id is not None:
                self.by_utility.setdefault(d.utility_feed_id, []).append(d.id)

    def _it_beside_racks(self, snap: CampusSnapshot) -> None:
        """The IT outside the racks (``heat.it_beyond_at``: the network where its switches are, the
        allowance for what is not inventoried by hall) as labelled loads beside the racks, never on a
        rack's own feeds. A hall's part is shared out over its fed racks in proportion to their IT, and
        each share is carried by the devices feeding that rack (one load per set of such devices: a row's
        PDUs), on pseudo feeds split as a rack's, so it fails over with the rack's side and stays on the
        devices that carry the rack. A building's or the campus's part (a switch placed only there) goes to
        its halls with fed racks in proportion to their racks' IT. A place none of whose racks is fed has
        nothing to carry it: ``it_unplaced_kw``."""
        # per hall: the fed racks' IT by the set of (device, side) feeding them
        groups: dict[int, dict[tuple[tuple[int, str], ...], float]] = {}
        hall_rack_kw: dict[int, float] = {}
        scope_halls: dict[tuple[str, int], set[int]] = {}
        for r in snap.racks:
            for place in (("hall", r.hall_id), ("building", r.building_id), ("campus", 0)):
                scope_halls.setdefault(place, set()).add(r.hall_id)
            fids = self.rack_feeds.get(r.id)
            if not fids:
                continue
            key = tuple(sorted({(self.feeds[f].upstream_id, self.feeds[f].side) for f in fids}))
            kw = self.load_kw.get(r.id, 0.0)
            by_key = groups.setdefault(r.hall_id, {})
            by_key[key] = by_key.get(key, 0.0) + kw
            hall_rack_kw[r.hall_id] = hall_rack_kw.get(r.hall_id, 0.0) + kw
        self.it_unplaced_kw: dict[tuple[str, int], float] = {}
        # each place's halls with fed racks and their shares of it
        self.place_halls: dict[tuple[str, int], tuple[tuple[int, float], ...]] = {}
        beside = self.it_beside_kw(it_beyond_at(snap))
        for place, halls_of in scope_halls.items():
            halls = sorted(h for h in halls_of if h in groups)
            total = sum(hall_rack_kw[h] for h in halls)
            self.place_halls[place] = tuple(
                (h, hall_rack_kw[h] / total if total > 0 else 1.0 / len(halls)) for h in halls
            )
        for place, kw in sorted(beside.items()):
            if not self.place_halls.get(place) and kw > 0:
                self.it_unplaced_kw[place] = kw
        by_hall = self.beside_by_hall_kw(beside)
        self.it_places: dict[int, tuple[str, int]] = {}  # load id -> ("hall", id)
        self.it_share: dict[int, float] = {}  # load id -> its share of the hall's IT beside the racks
        self.it_feeds: set[int] = set()
        for hall, kw in sorted(by_hall.items()):
            members = groups[hall]
            total = sum(members.values())
            for key, rack_kw in sorted(members.items()):
                share = rack_kw / total if total > 0 else 1.0 / len(members)
                lid = -1 - len(self.mechanical) - len(self.it_places)
                self.it_places[lid] = ("hall", hall)
                self.it_share[lid] = share
                self.load_kw[lid] = kw * share
                info = []
                for up, side in key:
                    fid = -2 - len(self.mechanical_feeds) - len(self.it_feeds)
                    self.it_feeds.add(fid)
                    self.feeds[fid] = PowerFeedSnap(fid, up, None, lid, side, 0.0)
                    self.down_feeds[up].append(fid)
                    info.append((fid, side, up))
                self.load_feeds[lid] = [fid for fid, _, _ in info]
                self.load_feed_info[lid] = tuple(info)

    def beside_by_hall_kw(self, beside: dict[tuple[str, int], float]) -> dict[int, float]:
        """The IT beside the racks by place (``it_beside_kw``) on the halls that carry it, kW."""
        out: dict[int, float] = {}
        for place, kw in sorted(beside.items()):
            for hall, share in self.place_halls.get(place, ()):
                out[hall] = out.get(hall, 0.0) + kw * share
        return out

    @staticmethod
    def it_beside_kw(beyond: ItBeyondRacks) -> dict[tuple[str, int], float]:
        """The network, the storage systems and the allowance by place, kW (the loads ``_it_beside_racks`` puts on the chain)."""
        out = dict(beyond.network_kw_by_place)
        for place, kw in beyond.storage_kw_by_place.items():
            out[place] = out.get(place, 0.0) + kw
        for hall, kw in beyond.other_kw_by_hall.items():
            out[("hall", hall)] = out.get(("hall", hall), 0.0) + kw
        return out

    def _topological_order(self) -> tuple[list[int], dict[int, int]]:
        """Kahn's algorithm from the sources down; depth = longest path from a source."""
        indegree = {d: 0 for d in self.devices}
        for f in self.feeds.values():
            if f.downstream_device_id is not None:
                indegree[f.downstream_device_id] += 1
        ready = sorted(d for d, n in indegree.items() if n == 0)
        depth = dict.fromkeys(ready, 0)
        order: list[int] = []
        while ready:
            d = ready.pop()
            order.append(d)
            for fid in self.down_feeds[d]:
                child = self.feeds[fid].downstream_device_id
                if child is None:
                    continue
                depth[child] = max(depth.get(child, 0), depth[d] + 1)
                indegree[child] -= 1
                if indegree[child] == 0:
                    ready.append(child)
        if len(order) != len(self.devices):
            stuck = sorted(d for d, n in indegree.items() if n > 0)
            names = ", ".join(f"{self.devices[d].name} (#{d})" for d in stuck[:20])
            raise ValueError(f"power chain has a cycle through: {names}")
        return order, depth

    def ancestors(self, seeds: Iterable[int]) -> set[int]:
        seen: set[int] = set()
        stack = list(seeds)
        while stack:
            d = stack.pop()
            if d in seen:
                continue
            seen.add(d)
            for fid in self.up_feeds[d]:
                parent = self.feeds[fid].upstream_id
                if parent not in seen:
                    stack.append(parent)
        return seen


def power_graph(snap: CampusSnapshot) -> PowerGraph:
    """The power graph of a snapshot, built once and kept with it (``memo.snapshot_memo``): snapshots are
    immutable, so the graph never goes stale. The healthy solve is ``power.baseline_state(graph)``."""
    memo = snapshot_memo(snap)
    graph = memo.get("power_graph")
    if graph is None:
        graph = memo["power_graph"] = PowerGraph(snap)
    return graph  # type: ignore[return-value]
