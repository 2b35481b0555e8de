"""The power paths of one rack, side by side, from its feeds up to the utility feeds."""

from __future__ import annotations

from campus.analysis.floor_map import headroom_fields
from campus.analysis.headroom import failover_headroom
from campus.analysis.power import PowerRollup, baseline_rollup, power_graph
from campus.analysis.snapshot import CampusSnapshot


def power_chain(snap: CampusSnapshot, rack_id: int, chain: PowerRollup | None = None) -> dict:
    """Each side lists the feeds and devices reached going upstream (nearest first) with their load from the
    healthy roll-up and their headroom after the worst single failure, so a panel can show where each
    side's headroom runs out; the rack's hall and building carry their failover headroom too.

    Devices of one ``depth`` are alternatives on the path (several sources of the device below: N+1 modules
    in parallel); a ``standby`` device (a generator) is the alternate source of the devices it feeds
    (``feeds_device_ids``), carrying them only when their normal sources are dead."""
    rack = next((r for r in snap.racks if r.id == rack_id), None)
    if rack is None:
        raise ValueError(f"rack: no rack {rack_id} in this campus")
    g = power_graph(snap)
    chain = chain if chain is not None else baseline_rollup(snap)
    failover = failover_headroom(snap)
    utilities = {u.id: u for u in snap.utility_feeds}

    def feed_dict(fid: int) -> dict:
        f = g.feeds[fid]
        load = chain.feed_load_kw.get(fid, 0.0)
        return {
            "id": f.id,
            "side": f.side,
            "upstream_id": f.upstream_id,
            "downstream_device_id": f.downstream_device_id,
            "rating_kw": f.rating_kw,
            "load_kw": load,
            "load_pct": 100.0 * load / f.rating_kw if f.rating_kw else None,
            "live": fid not in chain.dead_feeds,
        }

    def device_dict(did: int, depth: int) -> dict:
        d = g.devices[did]
        after = failover.devices.get(did)
        return {
            "id": d.id,
            "name": d.name,
            "kind": d.kind,
            "depth": depth,
            "status": d.status,
            "rated_kw": d.rated_kw,
            "load_kw": chain.device_load_kw.get(did, 0.0),
            "utilization": chain.device_utilization.get(did, 0.0),
            "headroom_kw": chain.device_headroom_kw.get(did, 0.0),
            "headroom_after_failover_kw": after.headroom_kw if after is not None else None,
            "worst_failure": after.worst_failure.as_dict() if after is not None else None,
            "live": did not in chain.dead_devices,
            "utility_feed_id": d.utility_feed_id,
            "source_feed_ids": sorted(g.up_feeds.get(did, [])),
            # A generator is a standby source (the roll-up's rule): it carries the devices it feeds only when
            # their other sources are dead, so a path shows it beside them, not in series.
            "standby": did in g.generators,
            "feeds_device_ids": sorted(
                {g.feeds[fid].downstream_device_id for fid in g.down_feeds.get(did, [])} - {None}
            ),
        }

    sides = []
    by_side: dict[str, list[int]] = {}
    for fid in g.rack_feeds.get(rack_id, ()):
        by_side.setdefault(g.feeds[fid].side, []).append(fid)
    for side in sorted(by_side):
        feeds = list(by_side[side])
        devices: list[dict] = []
        seen: set[int] = set()
        frontier = [(g.feeds[fid].upstream_id, 1) for fid in feeds]
        utility_ids: set[int] = set()
        while frontier:
            nxt = []
            for did, depth in frontier:
                if did in seen:
                    continue
                seen.add(did)
                devices.append(device_dict(did, depth))
                if g.devices[did].utility_feed_id is not None:
                    utility_ids.add(g.devices[did].utility_feed_id)
                for fid in g.up_feeds.get(did, []):
                    feeds.append(fid)
                    nxt.append((g.feeds[fid].upstream_id, depth + 1))
            frontier = nxt
        sides.append(
            {
                "side": side,
                "feeds": [feed_dict(fid) for fid in feeds],
                "devices": devices,
                "utility_feeds": [
                    {
                        "id": u,
                        "name": utilities[u].name if u in utilities else "",
                        "capacity_kw": utilities[u].capacity_kw if u in utilities else None,
                        "load_kw": chain.utility_load_kw.get(u, 0.0),
                        "headroom_after_failover_kw": (
                            failover.utilities[u].headroom_kw if u in failover.utilities else None
                        ),
                    }
                    for u in sorted(utility_ids)
                ],
            }
        )
    return {
        "rack": {
            "id": rack.id,
            "name": rack.name,
            "load_kw": snap.rack_it_kw(rack),
            "design_kw": rack.design_kw,
            "sides_lost": sorted(chain.rack_sides_lost.get(rack.id, ())),
            "powered": rack.id not in chain.racks_without_power,
        },
        "hall": {"id": rack.hall_id, **headroom_fields(failover.halls.get(rack.hall_id))},
        "building": {"id": rack.building_id, **headroom_fields(failover.buildings.get(rack.building_id))},
        "sides": sides,
    }
