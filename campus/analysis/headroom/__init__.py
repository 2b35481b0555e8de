"""Failover-aware headroom: the load that can be added with the design redundancy intact.

The design redundancy is written into the chain itself, so it is checked by failing the chain:

* **scenarios**: the healthy chain; each live device lost alone (N+1 and block-redundant groups: any one
  unit lost); each utility feed lost alone; and, where racks have A and B sides from separate devices, each
  whole side lost (2N: either side carries everything; not in a distributed redundant design, where one
  block feeds A sides and B sides). Generators are standby sources: they carry load only where their
  switchboard's normal supply is cut. A generator is lost alone like any device when it carries load in the
  healthy chain (``_generator_carries``: a device of kind ``generator`` in the middle of the chain, such as
  a PDU given that kind, or the only live source of a bus), as the redundancy check and impact mode fail
  it; a standby generator beside a live normal supply carries nothing, so its loss alone changes no load
  and is no scenario (the redundancy check finds it costs nothing). Loads are the untripped roll-up of
  the scenario (the rules of ``power._solve``), so an element over its limit shows as negative headroom instead of
  vanishing in a trip. A failure that leaves racks without power takes their load off the chain: the
  headroom counts what the surviving chain can carry, not the racks lost (the redundancy check lists those).
* **device headroom** = planning limit − worst load over the scenarios, in kW at the device's input.
  The planning limit is ``rated_kw × max_utilization`` (a utility feed: its ``capacity_kw``). The scenario
  giving the worst load is the *binding failure*.
* **hall / building / campus headroom** = the IT load (kW at the racks) that can be added to the scope
  before the first device reaches its planning limit in any scenario. Added load is placed like today's
  load: over a hall's racks in proportion to their IT load, over a building's (campus') halls in
  proportion to theirs. A scope with no IT load yet places it by rack ``design_kw`` (failing that: evenly
  per rack). Within one scenario every device load is linear in the rack loads (fixed splits, fixed
  efficiencies), so with ``s`` the device's input kW per added IT kW in that scenario:
  ``headroom = min over (device, scenario) of (limit − load) / s``; the minimising pair names the binding
  device and failure. A scope without fed racks has no headroom (None): nothing can be placed in it.

Two bounds follow (``failover_headroom``): the **rack feeds** (``_feed_bound``: a feed's limit is its rating ×
the ``max_utilization`` of the device feeding it, its load its share of the rack's in the scenario giving
it the largest share) and the **grid connection** (``_grid_bound``: the rack IT the campus can add before
its peak hour's facility load reaches ``grid_capacity_kw``, the same for every scope). A scope keeps the
devices' own figure as ``chain_headroom_kw`` (stranded capacity's ``upstream``).

``s`` is found by pushing one unit of probe load per hall through the scenario's splits, so it includes
every efficiency on the way and the shift of the racks onto the surviving side. The probe also carries
the cooling power the added IT brings (``mechanical.mechanical_sensitivity``): its heat on the units
and plants that would take it, their fans, pumps and chillers' extra kW on their own supplies, so a
mechanical PDU, or the UPS, transformer or substation above it, can bind.

**Ties.** Scenarios are taken in order (healthy, the devices in topological order, the utility feeds, the
sides) and within a scenario the devices by id, then the utility feeds by id. The worst load keeps the first
scenario reaching it and the binding the first (device, scenario) pair reaching the minimum; values within
``TIE_RELATIVE`` (1e-12, relative) of each other are a tie, since two routes to the same figure may differ
in the last bits.

**Computation.** A scenario changes only the devices above what it touches (see ``_Probe``): each one's
probe vector and load are its healthy ones plus the change, carried up the chain as a short combination of
healthy vectors and rack shifts; the numbers of all scenarios are then evaluated together in arrays.

**Layout.** ``results`` (the figures), ``scenarios`` (the failures and where added load goes), ``probe``
(the unit loads), ``rows`` (the scenarios' numbers), ``chain`` (devices and utility feeds: ``_compute``),
``bounds`` (rack feeds and the grid); this module puts them together.
"""

from __future__ import annotations

from campus.analysis.headroom.bounds import _feed_bound, _grid_bound, grid_it_kw
from campus.analysis.headroom.chain import _compute
from campus.analysis.headroom.results import ElementHeadroom, Failure, GridHeadroom, Headroom, ScopeHeadroom
from campus.analysis.memo import snapshot_memo
from campus.analysis.power import baseline_state, power_graph
from campus.analysis.snapshot import CampusSnapshot


def failover_headroom(snap: CampusSnapshot) -> Headroom:
    """Headroom of every device, utility feed, hall, building and the campus (see the module doc).

    Computed once per snapshot and kept with it (``memo.snapshot_memo``): callers must not modify the
    result."""
    memo = snapshot_memo(snap)
    hit = memo.get("failover_headroom")
    if hit is not None:
        return hit  # type: ignore[return-value]
    g = power_graph(snap)
    context: dict = {}
    result = _compute(g, context)
    for row in (*result.halls.values(), *result.buildings.values(), result.campus):
        row.chain_headroom_kw, row.chain_binding = row.headroom_kw, row.binding_dict()
    result = memo["failover_headroom"] = _grid_bound(g, _feed_bound(g, result, context))
    return result


def both_sides_headroom_kw(snap: CampusSnapshot) -> dict[int, float]:
    """Per building: the planning headroom of its grid-connected devices added up, healthy chain, kW.

    Both sides of a 2N chain count, so this is NOT load that can be added with redundancy intact; it is
    kept for comparison with ``failover_headroom``."""
    g = power_graph(snap)
    base = baseline_state(g)
    out: dict[int, float] = {}
    for d in snap.power_devices:
        if d.utility_feed_id is not None and d.building_id is not None:
            out[d.building_id] = out.get(d.building_id, 0.0) + (
                d.rated_kw * d.max_utilization - base.in_kw.get(d.id, 0.0)
            )
    return out


__all__ = [
    "ElementHeadroom",
    "Failure",
    "GridHeadroom",
    "Headroom",
    "ScopeHeadroom",
    "both_sides_headroom_kw",
    "failover_headroom",
    "grid_it_kw",
]
