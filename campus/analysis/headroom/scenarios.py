"""Failover headroom's scenarios (the failures taken) and where added load goes (its placement)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from campus.analysis.headroom.results import SIDES_2N, Failure
from campus.analysis.power import PowerGraph, baseline_state


@dataclass
class _Placement:
    rack_weight: dict[int, float]  # rack -> share of its hall's added load
    hall_mode: dict[int, str]
    building_share: dict[int, dict[int, float]]  # building -> hall -> share
    building_mode: dict[int, str]
    campus_share: dict[int, float] = field(default_factory=dict)
    campus_mode: str = "load"


def _shares(weights: Mapping[int, tuple[float, float]]) -> tuple[dict[int, float], str]:
    """Normalise (load, design) weights: by load, else by design, else evenly."""
    for index, mode in ((0, "load"), (1, "design")):
        total = sum(w[index] for w in weights.values())
        if total > 0:
            return {k: w[index] / total for k, w in weights.items()}, mode
    n = len(weights)
    return ({k: 1.0 / n for k in weights} if n else {}), "racks"


def _placement(g: PowerGraph) -> _Placement:
    snap = g.snap
    hall_building = {h.id: h.building_id for h in snap.halls}
    per_hall: dict[int, dict[int, tuple[float, float]]] = {}
    live = baseline_state(g).live
    for r in snap.racks:
        # a rack takes added load only on a live path: a rack dark with nothing failed (its feeds' devices
        # offline) can take none, and the scope around it places all on the others
        fids = g.rack_feeds.get(r.id)
        if fids and any(live.get(g.feeds[f].upstream_id, False) for f in fids):
            per_hall.setdefault(r.hall_id, {})[r.id] = (g.default_rack_load_kw[r.id], max(r.design_kw, 0.0))
            hall_building.setdefault(r.hall_id, r.building_id)
    rack_weight: dict[int, float] = {}
    hall_mode: dict[int, str] = {}
    hall_totals: dict[int, tuple[float, float]] = {}
    for hid, racks in per_hall.items():
        shares, hall_mode[hid] = _shares(racks)
        rack_weight.update(shares)
        hall_totals[hid] = (sum(w[0] for w in racks.values()), sum(w[1] for w in racks.values()))
    by_building: dict[int, dict[int, tuple[float, float]]] = {}
    for hid, totals in hall_totals.items():
        by_building.setdefault(hall_building[hid], {})[hid] = totals
    building_share: dict[int, dict[int, float]] = {}
    building_mode: dict[int, str] = {}
    for bid, halls in by_building.items():
        building_share[bid], building_mode[bid] = _shares(halls)
    campus_share, campus_mode = _shares(hall_totals)
    return _Placement(rack_weight, hall_mode, building_share, building_mode, campus_share, campus_mode)


def _split_factors(groups: dict[str, list[int]]) -> dict[int, float]:
    """Each member's share: evenly over the sides, then over a side's members (``power._split``)."""
    out: dict[int, float] = {}
    for ids in groups.values():
        factor = 1.0 / len(groups) / len(ids)
        for i in ids:
            out[i] = factor
    return out


def _side_groups(members: list[tuple[str, int]]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for side, ident in members:
        groups.setdefault(side, []).append(ident)
    return groups


# ---------------------------------------------------------------- the failures taken


def _generator_carries(g: PowerGraph, base_live: Mapping[int, bool], d: int) -> bool:
    """Whether generator ``d`` carries anything in the healthy chain (the rules of ``power._solve``): it
    feeds a load itself (a rack, or a cooling unit's or plant's supply: a load splits over its live feeds
    whatever feeds them), or a live device with no live non-generator source (no utility feed of its own
    and every non-generator feed's device dead), which then draws on its generators. A standby generator
    beside a live normal supply carries nothing, so its loss alone changes no load and no liveness."""
    feeds = g.feeds
    for fid in g.down_feeds[d]:
        child = feeds[fid].downstream_device_id
        if child is None:
            return True
        if not base_live.get(child, False) or g.devices[child].utility_feed_id is not None:
            continue
        if not any(
            base_live.get(feeds[up].upstream_id, False) and feeds[up].upstream_id not in g.generators
            for up in g.up_feeds[child]
        ):
            return True
    return False


def failure_scenarios(g: PowerGraph) -> list[tuple[Failure, set[int], set[int], frozenset[int]]]:
    """(failure, dead devices, dead feeds, failed utilities) of every scenario after the healthy one.

    Every live device is lost alone, generators included where they carry load in the healthy chain
    (``_generator_carries``: a device of kind ``generator`` in the middle of the chain, or the only source
    of a bus): the redundancy check fails them too (``redundancy.redundancy_elements``). A standby
    generator beside a live normal supply is left out: its loss alone changes nothing, as the redundancy
    check finds."""
    base = baseline_state(g)
    out = []
    for d in g.order:
        if not base.live.get(d, False):
            continue
        if d in g.generators and not _generator_carries(g, base.live, d):
            continue
        out.append((Failure("power", d, g.devices[d].name), set(g.status_dead) | {d}, set(), frozenset()))
    for u in sorted(g.utility_ids):
        name = next((x.name for x in g.snap.utility_feeds if x.id == u), f"utility feed {u}")
        out.append((Failure("utility", u, name), set(g.status_dead), set(), frozenset({u})))
    rack_sides = {side for info in g.rack_feed_info.values() for _, side, _ in info}
    # A side is one system only when no device feeds racks on both sides (2N). In a distributed redundant
    # design (N+1 blocks, each rack on two of them) a block feeds A sides of some racks and B sides of
    # others, so "all of side A" is no single failure: its blocks' own losses are the scenarios.
    sides_of_feeder: dict[int, set[str]] = {}
    for info in g.rack_feed_info.values():
        for _, side, up in info:
            sides_of_feeder.setdefault(up, set()).add(side)
    separate = all(len(sides) == 1 for sides in sides_of_feeder.values())
    if set(SIDES_2N) <= rack_sides and separate:
        for side in SIDES_2N:
            dead = {fid for fid, f in g.feeds.items() if f.side == side}
            out.append((Failure("side", side, f"side {side}"), set(g.status_dead), dead, frozenset()))
    return out
