"""Capacity placement: where ``racks`` new racks of a node model fit, with the design redundancy intact.

Pure: the snapshot plus the geometry it does not carry (rack footprints, the halls' rows) in, a JSON-ready
answer out (docs/planning.md, "Capacity placement"). Per candidate hall:

* **floor space**: free positions on the hall's existing row lines (gaps and row ends), then new row lines
  behind the last one, inside the hall less ``PERIMETER_CLEARANCE_M``, never on another rack's footprint,
  a new row at least ``AISLE_CLEARANCE_M`` from every existing rack front or back;
* **rack density**: an air-cooled rack within ``cooling.AIR_COOLING_LIMIT_KW``;
* **fabric ports**: a pod with back-end leaf switches in the hall whose free ports (``count × radix`` less
  the cables already landed on them; a leaf cabled up to a spine of its pod takes node cables on at most
  ``count × radix // 2`` ports, non-blocking, however many of its uplinks are cabled) take the new nodes' NICs (rail-optimized: NIC ``r`` on the hall's
  ``r``-th leaf group, modulo the groups; middle-of-rack: all on one leaf group);
* **cooling**: the hall's units of the racks' kind take the added heat with each pool's (a named group, a
  hall's air units together: ``cooling.cooling_pools``) usable capacity under the declared
  ``cooling_redundancy`` (``cooling.usable_capacity_kw``: N+1 and undeclared the largest unit out, 2N the
  larger half out; N no pool check, every unit within its capacity), no unit
  above its capacity, the plants behind them within capacity and, where a loop has several plants, within
  the loop's usable capacity under the same declared redundancy. The cooling headroom left is rack IT like
  the power's: each element's heat margin over the heat a kW of the racks' IT brings it;
* **power**: a feed pair (A, B) already feeding racks of the hall, from distinct upstream paths (neither
  device upstream of the other), every device and utility feed above it within its planning limit
  (``rated_kw × max_utilization``) in every scenario of the failover headroom
  (``headroom.scenarios.failure_scenarios``: healthy, each live device lost, a generator only where it carries load in the
  healthy chain, each utility feed lost, each whole side lost), loads before any trip. Each side carries 100 % of the new racks when the other is lost. The
  headroom left is rack IT, as the failover headroom counts it: each element's margin after placing over
  its added kW per kW of the racks' IT in that scenario (``power_check``), so the element named is the one
  that limits IT (a fans-only PDU gains a few percent of the IT added, a rack PDU all of it over its
  efficiency);
* **grid**: the campus's grid connection at the peak hour (``headroom.grid_it_kw``, the bound of the
  failover headroom and stranded capacity): its capacity less today's and the new racks' feed load × the
  peak hour's PUE, kW at the grid: below 0 the hall fails on ``grid``; else the option's ``power_kw`` when
  lower than every device's.

The power check is exact for the scenarios' load arithmetic: a scenario's loads are linear in the added
loads for fixed liveness, so the added kW are pushed up through the scenario's own splits (the rules of
``power._solve``); a scenario that kills none of the devices above the new loads (nor a side or utility
feed) leaves those splits as in the healthy chain, so its worst existing load plus the healthy added load
is its worst case. The scenario loads are swept once per snapshot and kept with it.

**Layout.** ``request`` (the limits, the request, a hall's inputs, a failure), ``positions`` (floor space),
``power_fit``, ``cooling_fit`` (with what is short at design), ``fabric_fit``, ``hall`` (the checks of
one hall in order, its options); this module ranks the halls' options and names what binds.
"""

from __future__ import annotations

from collections.abc import Mapping

from campus.analysis.cooling import cooling_balance, cooling_pools
from campus.analysis.headroom import grid_it_kw
from campus.analysis.heat import other_it_per_server_kw
from campus.analysis.placement.cooling_fit import short_at_design
from campus.analysis.placement.fabric_fit import _rack_cables, _used_ports, uplinks
from campus.analysis.placement.hall import _Candidate, _evaluate_hall
from campus.analysis.placement.positions import free_positions
from campus.analysis.placement.power_fit import hall_network
from campus.analysis.placement.request import (
    AISLE_CLEARANCE_M,
    CONSTRAINTS,
    DEFAULT_RACK_SIZE_M,
    MAX_OPTIONS,
    MAX_RACKS,
    RACK_UNITS,
    PlacementRequest,
    RowGeo,
    _Fail,
    _HallInput,
    _memo,
    default_nodes_per_rack,
    node_kw,
)
from campus.analysis.power import power_graph
from campus.analysis.rackscale import whole_rack_nodes
from campus.analysis.snapshot import CampusSnapshot

# A new rack's fabric cable, both ends: the single-mode transceiver's draw, the most of the classes a cable
# in a hall takes (catalog_data.LINK_MEDIA: SR 10 W, DR/FR 12 W per end), an upper bound.
_CABLE_END_W = 12.0


def place(
    snap: CampusSnapshot,
    request: PlacementRequest,
    rack_size: Mapping[int, tuple[float, float]] | None = None,
    rows: Mapping[int, list[RowGeo]] | None = None,
) -> dict:
    """``{"feasible", "binding_constraint", "binding", "options", "short_at_design"}`` for ``request``
    (module doc): when nothing fits and an element is already short at design (``short_at_design``), the
    most short binds."""
    return place_with_failure(snap, request, rack_size, rows)[0]


def place_with_failure(
    snap: CampusSnapshot,
    request: PlacementRequest,
    rack_size: Mapping[int, tuple[float, float]] | None = None,
    rows: Mapping[int, list[RowGeo]] | None = None,
) -> tuple[dict, _Fail | None]:
    """``place``'s answer and, when nothing fits, the check the closest hall failed (before an element
    already short at design takes the ``binding``): what a proposal lifts (``placement.proposal``)."""
    if request.node_model not in snap.node_models:
        raise ValueError(f"node_model: no node model {request.node_model!r}")
    if not 1 <= request.racks <= MAX_RACKS:
        raise ValueError(f"racks: must be between 1 and {MAX_RACKS}")
    node = snap.node_models[request.node_model]
    npr = request.nodes_per_rack or default_nodes_per_rack(snap, request.node_model)
    if npr < 1:
        raise ValueError("nodes_per_rack: must be >= 1")
    whole = whole_rack_nodes(request.node_model, node.gpus_per_node)
    if whole is not None and npr != whole:
        raise ValueError(f"nodes_per_rack: a {request.node_model} rack is one NVLink domain of {whole} trays")
    if npr * node.rack_units > RACK_UNITS and whole is None:
        raise ValueError(f"nodes_per_rack: {npr} x {node.rack_units}U is more than a {RACK_UNITS}U rack")
    halls = list(snap.halls)
    if request.hall_id is not None:
        halls = [h for h in halls if h.id == request.hall_id]
        if not halls:
            raise ValueError(f"hall: no hall {request.hall_id} in this campus")
    g = power_graph(snap)
    inp = _HallInput(
        snap=snap,
        node=node,
        slug=request.node_model,
        nodes_per_rack=npr,
        racks=request.racks,
        rack_kw=node_kw(snap, request.node_model) * npr,
        rack_size=rack_size or {},
        rows=rows or {},
        used_ports=_memo(g, "placement_ports", lambda: _used_ports(snap)),
        balance=_memo(g, "placement_cooling", lambda: cooling_balance(snap)),
        per_server=_memo(g, "placement_other_it", lambda: other_it_per_server_kw(snap)),
        cables=_memo(g, "placement_cables", lambda: _rack_cables(snap)),
        grid=_memo(g, "placement_grid", lambda: grid_it_kw(snap)),
        pools=_memo(g, "placement_pools", lambda: cooling_pools(snap, hall_air=True)),
        network=_memo(g, "placement_network", lambda: hall_network(snap)),
        optics_kw_per_rack=npr * node.nics * 2 * _CABLE_END_W / 1000.0 if snap.switches else 0.0,
        cable_kw=2 * _CABLE_END_W / 1000.0 if snap.switches else 0.0,
        uplinks=_memo(g, "placement_uplinks", lambda: uplinks(snap)),
    )
    short = _memo(g, "placement_short", lambda: short_at_design(snap, inp.balance))
    candidates: list[_Candidate] = []
    fails: list[_Fail] = []
    for hall in halls:
        found, fail = _evaluate_hall(inp, hall)
        candidates.extend(found)
        if fail is not None:
            fails.append(fail.located(snap, hall))
    # Branch and bound over the feed pairs of every hall: by the bound, best first; once three options
    # are found, a pair whose bound is no better than the third cannot enter the list.
    candidates.sort(key=lambda c: (-c.bound_kw, c.hall, c.a, c.b if c.b is not None else -1))
    options: list[dict] = []
    power_fails: dict[int, _Fail] = {}  # by hall id: names repeat from building to building
    halls_by_id = {h.id: h for h in halls}
    for cand in candidates:
        if cand.spread and options:
            continue  # racks over several pairs only when no single pair takes them all
        if len(options) >= MAX_OPTIONS:
            third = sorted(o["headroom_after"]["power_kw"] for o in options)[-MAX_OPTIONS]
            if cand.bound_kw <= third + 1e-3:  # ties (to a watt): the earlier hall and pair stay
                break
        option, fail = cand.evaluate()
        if option is not None:
            options.append(option)
        elif fail is not None and (
            cand.hall_id not in power_fails or fail.margin > power_fails[cand.hall_id].margin
        ):
            power_fails[cand.hall_id] = fail.located(snap, halls_by_id[cand.hall_id])
    fails.extend(power_fails.values())
    options.sort(
        key=lambda o: (-o["headroom_after"]["power_kw"], -o["headroom_after"]["cooling_kw"], o["hall"])
    )
    options = options[:MAX_OPTIONS]
    if options:
        best = options[0]["headroom_after"]
        where = {k: options[0][k] for k in ("hall", "hall_id", "building", "building_id")}
        # what runs out first as more is added to the best option
        binding = {
            "constraint": "power",
            **where,
            "level": best["power_level"],
            "element": best["power_element"],
            "detail": f"{best['power_kw']:.1f} kW of rack IT left before {best['power_element']} reaches its "
            f"planning limit after {best['power_failure']['name']} ({best['power_element_headroom_kw']:.1f} kW "
            "at its input)",
        }
        if best["power_level"] == "grid":
            binding = {
                **binding,
                "constraint": "grid",
                "detail": f"{best['power_kw']:.1f} kW of rack IT left on the grid connection at the peak hour "
                f"({best['power_element_headroom_kw']:.1f} kW at the grid)",
            }
        if best["cooling_kw"] < best["power_kw"]:
            binding = {
                "constraint": "cooling",
                **where,
                "level": best["cooling_level"],
                "element": best["cooling_element"],
                "detail": f"{best['cooling_kw']:.1f} kW of rack IT left before {best['cooling_element']} runs "
                f"out of cooling with {snap.cooling_redundancy or 'N+1'} intact "
                f"({best['cooling_element_headroom_kw']:.1f} kW of heat left there)",
            }
        return {
            "feasible": True,
            "binding_constraint": binding["constraint"],
            "binding": binding,
            "options": options,
            "short_at_design": short,
        }, None
    if not fails:
        fail = _Fail("floor_space", "", "campus", "", "the campus has no hall")
    else:
        # the hall that came closest: the most checks passed, then the smallest shortfall
        fail = max(fails, key=lambda f: (CONSTRAINTS.index(f.constraint), f.margin))
    binding = fail.as_dict()
    if short:
        # the campus is already short at design: that binds, whatever else a hall fails on first
        worst = short[0]
        more = f" (and {len(short) - 1} more already short)" if len(short) > 1 else ""
        binding = {
            "constraint": worst["constraint"],
            **{k: worst[k] for k in ("hall", "hall_id", "building", "building_id")},
            "level": worst["level"],
            "element": worst["element"],
            "detail": f"already {worst['shortfall_kw']:.1f} kW short at design with nothing placed: "
            f"{worst['detail']}{more}",
        }
    return {
        "feasible": False,
        "binding_constraint": binding["constraint"],
        "binding": binding,
        "options": [],
        "short_at_design": short,
    }, fail


__all__ = [
    "AISLE_CLEARANCE_M",
    "CONSTRAINTS",
    "DEFAULT_RACK_SIZE_M",
    "MAX_RACKS",
    "PlacementRequest",
    "RowGeo",
    "free_positions",
    "place",
    "place_with_failure",
]
