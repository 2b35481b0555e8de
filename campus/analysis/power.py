"""Power roll-up through the electrical chain, failover cascades, redundancy and stranded capacity.

The chain is a directed acyclic graph: utility feeds -> devices (substation, transformer, switchgear,
UPS, PDU, ...) -> racks, joined by ``PowerFeedSnap`` edges. Loads flow upward from the racks:

* a rack's load splits evenly over its live sides (A/B 50/50), and within a side evenly over that
  side's live feeds; when one side is dead the other carries the whole rack;
* the IT beside the racks (the network where its switches are, the allowance for IT the inventory does not
  hold) is a labelled load per hall, shared out by its racks' IT over the devices feeding them and split
  like a rack's A/B (``power_graph.PowerGraph._it_beside_racks``); a rack's own feeds carry only the rack;
* cooling units and plants are loads too (``campus.analysis.mechanical``): each draws its fan, pump or
  compressor power from its one or two supplies, split like a rack's A/B, so a mechanical overload trips;
* a device's input is the sum of its downstream feed loads divided by its efficiency; the input splits
  the same way (evenly over live sides, then over live feeds of a side) over its live non-generator
  sources; a device's own ``utility_feed_id`` counts as one more non-generator source. Generators are
  standby: they carry a device only when none of its non-generator sources is alive. Several same-side
  feeds from different devices share evenly, which is how N+1 is written down;
* a device is dead when failed, tripped, in a dead status, or when all its sources are dead;
* a device whose input exceeds ``rated_kw`` (the hard limit) or a feed whose load exceeds ``rating_kw``
  trips; the roll-up repeats until nothing more trips (the cascade). When several elements are overloaded
  at once the most downstream ones trip first (breaker selectivity), which may relieve those above.

Everything after the first solve is incremental: a failure only re-solves its *affected closure* (the
devices whose liveness flips, their children, the racks they feed, and every ancestor of those racks'
feeds), so a single-device what-if on a 100k-GPU campus touches a few hundred elements instead of the
whole graph.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field

from campus.analysis.heat import it_beyond_at
from campus.analysis.mechanical import cooling_figures
from campus.analysis.power_graph import DEAD_STATUSES, PowerGraph, power_graph
from campus.analysis.power_solve import _Outcome, _run, baseline_state
from campus.analysis.snapshot import CampusSnapshot

# ---------------------------------------------------------------- public API


@dataclass
class PowerRollup:
    device_load_kw: dict[int, float]  # input power of each device, kW
    device_output_kw: dict[int, float]
    feed_load_kw: dict[int, float]
    device_utilization: dict[int, float]  # input / rated_kw (the hard limit)
    device_headroom_kw: dict[int, float]  # rated_kw * max_utilization - input (planning headroom)
    dead_devices: set[int]
    dead_feeds: set[int]
    tripped: list[tuple[str, int, str]]  # (kind "device" | "feed", id, reason) in cascade order
    rack_sides_lost: dict[int, set[str]]  # racks that lost at least one side
    racks_without_power: set[int]  # every side dead, or a load and no feed at all (``unfed_racks``)
    utility_load_kw: dict[int, float]
    total_input_kw: float  # drawn from utilities plus generator output
    # electrical load carried for each cooling unit ("unit", id) and plant ("plant", id) with a supply, kW;
    # 0.0 when every supply is dead (the load stopped)
    mechanical_load_kw: dict[tuple[str, int], float] = field(default_factory=dict)
    unfed_racks: frozenset[int] = frozenset()  # racks with a load and no power feed (dark whatever fails)
    # the IT beside the racks (network, allowance) carried per hall, ("hall", id) -> kW (0.0 when every
    # device carrying it is dead); and the load of each pseudo feed of the loads beside the racks (the IT's
    # and the mechanical loads': a device's share, power_graph), kW
    it_beside_racks_kw: dict[tuple[str, int], float] = field(default_factory=dict)
    beside_feed_load_kw: dict[int, float] = field(default_factory=dict)

    def rack_side_load_kw(self, snap: CampusSnapshot, rack_id: int) -> dict[str, float]:
        """Load carried per side of a rack, kW."""
        g = power_graph(snap)
        out: dict[str, float] = {}
        for fid in g.rack_feeds.get(rack_id, ()):
            side = g.feeds[fid].side
            out[side] = out.get(side, 0.0) + self.feed_load_kw.get(fid, 0.0)
        return out


def rollup(
    snap: CampusSnapshot,
    failed: frozenset[int] = frozenset(),
    rack_load_kw: Mapping[int, float] | None = None,
    failed_feeds: frozenset[int] = frozenset(),
    failed_power_feeds: frozenset[int] = frozenset(),
) -> PowerRollup:
    """Roll rack loads up the chain with ``failed`` devices (ids) and ``failed_feeds`` (utility feed ids) out.

    ``failed_power_feeds`` takes ``PowerFeedSnap`` ids (a cut cable or an open breaker).
    ``rack_load_kw`` overrides the load of the racks it names (default: ``snap.rack_it_kw``); the cooling
    units' and plants' loads then follow the heat of those racks.
    """
    g = power_graph(snap)
    unknown_feeds = set(failed_power_feeds) - (g.feeds.keys() - g.mechanical_feeds - g.it_feeds)
    if unknown_feeds:
        raise ValueError(f"failed_power_feeds: unknown power feed ids {sorted(unknown_feeds)}")
    unknown_utilities = set(failed_feeds) - g.utility_ids
    if unknown_utilities:
        raise ValueError(f"failed_feeds: unknown utility feed ids {sorted(unknown_utilities)}")
    loads: dict[int, float] | None = None
    if rack_load_kw is not None:
        # the network and the allowance beside the racks, and the fans, pumps and chillers, follow the
        # racks' loads
        loads = dict(g.default_rack_load_kw)
        loads.update(rack_load_kw)
        by_hall = g.beside_by_hall_kw(g.it_beside_kw(it_beyond_at(snap, rack_load_kw)))
        loads.update(
            {lid: by_hall.get(hall, 0.0) * g.it_share[lid] for lid, (_, hall) in g.it_places.items()}
        )
        if g.mechanical:
            kw, _ = cooling_figures(snap, rack_load_kw)
            loads.update({lid: kw.get(key, 0.0) for lid, key in g.mechanical.items()})
    res = _run(g, failed, frozenset(failed_feeds), failed_power_feeds, loads)
    if loads is None:
        unfed = g.unfed_racks
    else:
        unfed = frozenset(
            rid for rid, kw in loads.items() if rid in g.racks and kw > 0 and rid not in g.rack_feeds
        )
    return _materialise(g, res, unfed)


def outage(
    snap: CampusSnapshot, failed: frozenset[int] = frozenset(), failed_feeds: frozenset[int] = frozenset()
) -> tuple[set[int], set[int]]:
    """(racks without power, dead devices) of ``rollup(snap, failed, failed_feeds=failed_feeds)``, without
    materialising the rest of the roll-up (every device's load, utilization and headroom): the same
    incremental solve and cascade, then only the racks whose feeds it re-solved are looked at again. What a
    failure simulation asks of each unit it fails, at a fraction of a full roll-up's cost."""
    g = power_graph(snap)
    unknown_utilities = set(failed_feeds) - g.utility_ids
    if unknown_utilities:
        raise ValueError(f"failed_feeds: unknown utility feed ids {sorted(unknown_utilities)}")
    res = _run(g, failed, frozenset(failed_feeds), frozenset(), None)
    st, base = res.state, res.base
    memo = g.memo.get("outage_base")
    if memo is None or memo[0] is not base:
        base_dark = _dark_racks(g, base.feed_live, g.rack_feeds) | g.unfed_racks
        base_dead = {d for d, ok in base.live.items() if not ok}
        feed_rack = {fid: rid for rid, fids in g.rack_feeds.items() for fid in fids}
        memo = g.memo["outage_base"] = (base, base_dark, base_dead, feed_rack)
    _, base_dark, base_dead, feed_rack = memo
    touched = {feed_rack[fid] for fid in st.feed_live if fid in feed_rack}
    feed_live = ChainMap(st.feed_live, base.feed_live)
    dark = (base_dark - touched) | _dark_racks(g, feed_live, {rid: g.rack_feeds[rid] for rid in touched})
    dead = set(base_dead)
    for d, ok in st.live.items():
        if ok:
            dead.discard(d)
        else:
            dead.add(d)
    return dark, dead


def _dark_racks(
    g: PowerGraph, feed_live: Mapping[int, bool], rack_feeds: Mapping[int, list[int]]
) -> set[int]:
    """Racks of ``rack_feeds`` every side of which is dead (with ``PowerGraph.unfed_racks``, the loaded racks
    without any feed, the roll-up's ``racks_without_power``)."""
    dark: set[int] = set()
    for rid, fids in rack_feeds.items():
        by_side: dict[str, bool] = {}
        for fid in fids:
            side = g.feeds[fid].side
            by_side[side] = by_side.get(side, False) or feed_live.get(fid, False)
        if by_side and not any(by_side.values()):
            dark.add(rid)
    return dark


def baseline_rollup(snap: CampusSnapshot) -> PowerRollup:
    """``rollup(snap)`` computed once per snapshot and shared: callers must not modify it."""
    g = power_graph(snap)
    if "rollup" not in g.memo:
        g.memo["rollup"] = rollup(snap)
    return g.memo["rollup"]  # type: ignore[return-value]


def design_load_rollup(snap: CampusSnapshot) -> PowerRollup:
    """The healthy roll-up with no utility feed tripping on its capacity: every device carrying what the
    design puts on it, whatever the grid connection allows. The conversion losses of the facility year
    (``facility.year.chain_losses``) are this chain's: a connection below the peak does not make the
    chain lighter (the generators that would serve the shortfall feed the same switchgear, UPSs and PDUs),
    and the energy the grid cannot deliver is priced at the generators' fuel (``energy.grid_supply``).
    Computed once per snapshot and shared: callers must not modify it."""
    g = power_graph(snap)
    if "design_load_rollup" not in g.memo:
        if not g.utility_capacity_kw:
            g.memo["design_load_rollup"] = baseline_rollup(snap)
        else:
            res = _run(g, frozenset(), frozenset(), frozenset(), None, grid_limits=False)
            g.memo["design_load_rollup"] = _materialise(g, res, g.unfed_racks)
    return g.memo["design_load_rollup"]  # type: ignore[return-value]


def _merged(base: dict, over: dict) -> dict:
    out = dict(base)
    out.update(over)
    return out


def _materialise(g: PowerGraph, res: _Outcome, unfed: frozenset[int]) -> PowerRollup:
    st, base = res.state, res.base
    live = _merged(base.live, st.live)
    feed_live = _merged(base.feed_live, st.feed_live)
    in_kw = _merged(base.in_kw, st.in_kw)
    out_kw = _merged(base.out_kw, st.out_kw)
    feed_load = _merged(base.feed_load_kw, st.feed_load_kw)
    # the pseudo feeds of the loads beside the racks (mechanical, IT) leave ``feed_load_kw`` for their own
    beside_feed: dict[int, float] = {}
    for fid in (*g.mechanical_feeds, *g.it_feeds):
        beside_feed[fid] = feed_load.pop(fid, 0.0)
        feed_live.pop(fid, None)
    mechanical: dict[tuple[str, int], float] = {}
    for lid, key in g.mechanical.items():
        mechanical[key] = sum(beside_feed[fid] for fid in g.load_feeds[lid])
    it_beside: dict[tuple[str, int], float] = {}
    for lid, place in g.it_places.items():
        it_beside[place] = it_beside.get(place, 0.0) + sum(beside_feed[fid] for fid in g.load_feeds[lid])
    util_share = _merged(base.utility_share_kw, st.utility_share_kw)
    utilization: dict[int, float] = {}
    headroom: dict[int, float] = {}
    for d, dev in g.devices.items():
        load = in_kw.get(d, 0.0)
        utilization[d] = load / dev.rated_kw if dev.rated_kw > 0 else 0.0
        headroom[d] = dev.rated_kw * dev.max_utilization - load
    sides_lost: dict[int, set[str]] = {}
    dark: set[int] = set()
    for rid, fids in g.rack_feeds.items():
        by_side: dict[str, bool] = {}
        for fid in fids:
            side = g.feeds[fid].side
            by_side[side] = by_side.get(side, False) or feed_live.get(fid, False)
        lost = {s for s, ok in by_side.items() if not ok}
        if lost:
            sides_lost[rid] = lost
            if len(lost) == len(by_side):
                dark.add(rid)
    dark |= unfed  # a loaded rack without a feed: nothing carries it
    utility: dict[int, float] = {}
    for d, share in util_share.items():
        u = g.devices[d].utility_feed_id
        if u is not None:
            utility[u] = utility.get(u, 0.0) + share
    for u in g.snap.utility_feeds:
        utility.setdefault(u.id, 0.0)
    generator_kw = sum(in_kw.get(d, 0.0) for d in g.generators)
    return PowerRollup(
        device_load_kw=in_kw,
        device_output_kw=out_kw,
        feed_load_kw=feed_load,
        device_utilization=utilization,
        device_headroom_kw=headroom,
        dead_devices={d for d, ok in live.items() if not ok},
        dead_feeds={f for f, ok in feed_live.items() if not ok},
        tripped=list(res.tripped),
        rack_sides_lost=sides_lost,
        racks_without_power=dark,
        utility_load_kw=utility,
        total_input_kw=sum(utility.values()) + generator_kw,
        mechanical_load_kw=mechanical,
        unfed_racks=unfed,
        it_beside_racks_kw=it_beside,
        beside_feed_load_kw=beside_feed,
    )


__all__ = [
    "DEAD_STATUSES",
    "baseline_state",
    "PowerGraph",
    "PowerRollup",
    "baseline_rollup",
    "design_load_rollup",
    "outage",
    "power_graph",
    "rollup",
]
