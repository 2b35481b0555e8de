"""The per-building cards and the per-rack floor-map metrics that the summary, the floor map and the building
pages share, with the share of the IT load running at design.

Everything returned is JSON-serialisable (plain dicts, lists, numbers, strings, None).
"""

from __future__ import annotations

from campus.analysis.facility import campus_pue
from campus.analysis.feeds import rack_side_ratings_kw
from campus.analysis.headroom import both_sides_headroom_kw, failover_headroom
from campus.analysis.power import PowerRollup, baseline_rollup, power_graph
from campus.analysis.redundancy import down_at_design
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.units import kw_to_mw


def running_at_design(snap: CampusSnapshot) -> tuple[frozenset[int], float]:
    """(the racks down at design, the share of the racks' fed IT that runs): racks down with nothing failed
    (without power, or powered and without cooling, ``redundancy.down_at_design``) draw no IT power and
    compute nothing. The share is of the IT load (the racks' own and the network and allowance beside
    them, which keep running); 1.0 when none is down. The summary's, the building cards' and the
    floor map's running figures all read it."""
    g = power_graph(snap)
    hit = g.memo.get("running_at_design")
    if hit is None:
        down = down_at_design(snap)
        racks = frozenset(down["power"]["racks"]) | frozenset(down["cooling"]["racks"])
        beside = sum(g.load_kw[lid] for lid in g.it_places) + sum(g.it_unplaced_kw.values())
        fed_total = sum(g.load_kw[r.id] for r in snap.racks) + beside
        fed_down = sum(g.load_kw[r.id] for r in snap.racks if r.id in racks)
        running = (fed_total - fed_down) / fed_total if racks and fed_total > 0 else (0.0 if racks else 1.0)
        hit = g.memo["running_at_design"] = (racks, running)
    return hit  # type: ignore[return-value]


def rack_it_mw_by(snap: CampusSnapshot, level: str) -> dict[int, float]:
    """The IT load that runs in each hall or building (``level`` "hall_id" or "building_id"), MW: its
    racks' own IT (racks down at design left out, ``running_at_design``) and the network and allowance
    carried beside them (``beside_racks_mw_by``). The building cards' and the floor map's ``it_mw``; over
    all buildings it adds up to the campus's ``power.it_mw``."""
    g = power_graph(snap)
    down, _ = running_at_design(snap)
    out = {k: mw * 1000.0 for k, mw in beside_racks_mw_by(snap, level).items()}
    for r in snap.racks:
        key = getattr(r, level)
        out.setdefault(key, 0.0)
        if r.id not in down:
            out[key] += g.load_kw[r.id]
    return {k: kw_to_mw(v) for k, v in out.items()}


def beside_racks_mw_by(snap: CampusSnapshot, level: str) -> dict[int, float]:
    """The network and allowance in each hall or building (``level`` "hall_id" or "building_id"), MW: the
    IT the chain carries beside the racks (``power_graph``, by hall) and what no fed rack carries
    (``it_unplaced_kw``: a building's or the campus's share to its halls, and the campus's to the
    buildings, in proportion to their racks' IT). They keep running when racks are down at design."""
    g = power_graph(snap)
    hit = g.memo.get(f"beside_racks_mw_by:{level}")
    if hit is None:
        hit = g.memo[f"beside_racks_mw_by:{level}"] = _beside_racks_mw_by(snap, g, level)
    return dict(hit)  # type: ignore[call-overload]


def _beside_racks_mw_by(snap: CampusSnapshot, g, level: str) -> dict[int, float]:
    nominal: dict[tuple[str, int], dict[int, float]] = {}
    out: dict[int, float] = {}
    for r in snap.racks:
        key = getattr(r, level)
        out.setdefault(key, 0.0)
        for place in (("hall", r.hall_id), ("building", r.building_id), ("campus", 0)):
            by_key = nominal.setdefault(place, {})
            by_key[key] = by_key.get(key, 0.0) + g.load_kw[r.id]
    beside: dict[tuple[str, int], float] = {}
    for lid, place in g.it_places.items():
        beside[place] = beside.get(place, 0.0) + g.load_kw[lid]
    for place, kw in g.it_unplaced_kw.items():
        beside[place] = beside.get(place, 0.0) + kw
    for place, kw in beside.items():
        by_key = nominal.get(place, {})
        total = sum(by_key.values())
        for key, own in by_key.items():
            out[key] = out.get(key, 0.0) + kw * (own / total if total > 0 else 1.0 / len(by_key))
    return {k: kw_to_mw(v) for k, v in out.items()}


def building_cards(
    snap: CampusSnapshot, chain: PowerRollup | None = None, pue: float | None = None
) -> list[dict]:
    """Per building: racks, GPUs by model, IT load (MW: its racks' and the network and other IT placed on
    them, ``rack_it_mw_by``), facility MW (x the campus PUE,
    ``facility.campus_pue``) and its headroom.

    ``headroom_mw``: IT load that can be added with the design redundancy intact (after the worst single
    failure or side loss, ``headroom.failover_headroom``; None when the building has no fed racks), with
    ``headroom_binding`` naming the device and failure that bind it. ``headroom_both_sides_mw``: the
    healthy planning headroom of its grid-connected devices added up, both sides of a 2N chain counted
    (None when it has no grid-connected device) - not a load that can be added safely."""
    chain = chain if chain is not None else baseline_rollup(snap)
    pue = campus_pue(snap, pue).pue
    cards: dict[int, dict] = {
        b.id: {"id": b.id, "name": b.name, "racks": 0, "gpus": 0, "it_mw": 0.0, "gpus_by_model": {}}
        for b in snap.buildings
    }
    g = power_graph(snap)
    for r in snap.racks:
        card = cards.get(r.building_id)
        if card is None:
            continue
        card["racks"] += 1
        for slug, n in g.rack_gpus[r.id].items():
            card["gpus"] += n
            card["gpus_by_model"][slug] = card["gpus_by_model"].get(slug, 0) + n
    failover = failover_headroom(snap)
    both_sides = both_sides_headroom_kw(snap)
    it_mw = rack_it_mw_by(snap, "building_id")
    for bid, card in cards.items():
        card["it_mw"] = it_mw.get(bid, 0.0)
        card["facility_mw"] = card["it_mw"] * pue
        row = failover.buildings.get(bid)
        kw = row.headroom_kw if row is not None else None
        card["headroom_mw"] = kw / 1000.0 if kw is not None else None
        card["headroom_binding"] = row.binding_dict() if row is not None else None
        card["headroom_both_sides_mw"] = both_sides[bid] / 1000.0 if bid in both_sides else None
    return list(cards.values())


def rack_metrics(
    snap: CampusSnapshot, hall_id: int | None = None, chain: PowerRollup | None = None
) -> list[dict]:
    """Floor-map figures per rack (optionally one hall).

    feed_a_pct / feed_b_pct: load carried by the side / that side's total feed rating x 100 (None if the
    rack has no such side). density_kw_per_m2: rack load over its share of the hall floor (hall area /
    racks in the hall), i.e. white-space density.
    """
    chain = chain if chain is not None else baseline_rollup(snap)
    down, _ = running_at_design(snap)
    g = power_graph(snap)
    halls = {h.id: h for h in snap.halls}
    per_hall: dict[int, int] = {}
    for r in snap.racks:
        per_hall[r.hall_id] = per_hall.get(r.hall_id, 0) + 1
    out = []
    for r in snap.racks:
        if hall_id is not None and r.hall_id != hall_id:
            continue
        load = g.default_rack_load_kw[r.id]
        side_load: dict[str, float] = {}
        rack_feeds = [g.feeds[fid] for fid in g.rack_feeds.get(r.id, ())]
        for f in rack_feeds:
            side_load[f.side] = side_load.get(f.side, 0.0) + chain.feed_load_kw.get(f.id, 0.0)
        side_rating = rack_side_ratings_kw((f.side, f.rating_kw) for f in rack_feeds)

        def pct(side: str, side_load=side_load, side_rating=side_rating) -> float | None:
            rating = side_rating.get(side)
            return 100.0 * side_load.get(side, 0.0) / rating if rating else None

        hall = halls.get(r.hall_id)
        floor = hall.width_m * hall.length_m / per_hall[r.hall_id] if hall is not None else 0.0
        by_model = dict(g.rack_gpus[r.id])
        out.append(
            {
                "id": r.id,
                "name": r.name,
                "hall_id": r.hall_id,
                "building_id": r.building_id,
                "x_m": r.x_m,
                "y_m": r.y_m,
                "load_kw": load,
                # what the rack's feeds carry: its own IT (the network and allowance are beside the racks);
                # 0 for a rack down at design (it draws nothing: the hall's it_mw leaves it out)
                "fed_kw": 0.0 if r.id in down else g.load_kw[r.id],
                "design_kw": r.design_kw,
                "load_pct_of_design": 100.0 * load / r.design_kw if r.design_kw > 0 else None,
                "feed_a_pct": pct("A"),
                "feed_b_pct": pct("B"),
                "feed_n_pct": pct("N"),
                "density_kw_per_m2": load / floor if floor > 0 else None,
                "cooling_type": r.cooling_type,
                "gpus": sum(by_model.values()),
                "gpus_by_model": by_model,
                "status": r.status,
                "pod_id": r.pod_id,
                "cooling_unit_id": r.cooling_unit_id,
                "sides_lost": sorted(chain.rack_sides_lost.get(r.id, ())),
                "powered": r.id not in chain.racks_without_power,
            }
        )
    return out  # every float above is a finite quotient with a guarded denominator
