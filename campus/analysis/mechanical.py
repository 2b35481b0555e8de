"""The electrical load of the mechanical plant (cooling unit fans and pumps, plant compressors and fans) on
the power chain.

A cooling unit or plant draws from its supplies (``power_device_id`` and, when dual-fed,
``power_device_b_id``). The power roll-up carries each such load like a rack with an A and a B feed: split
evenly over the live supplies, all of it on the survivor when one supply dies, stopped when every supply
is dead. The loads follow the heat of ``campus.analysis.cooling``: at full IT load by default, and at the
rack loads given to the roll-up (power capping, shed racks) when it is given some, as fan and pump speed
and the chillers' work follow the heat they move.

``mechanical_sensitivity`` gives the same loads per kW of IT added to a hall, so the failover headroom
counts the cooling power that added IT brings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from campus.analysis.cooling import cooling_balance, unit_electrical_fraction
from campus.analysis.heat import heat_sensitivity
from campus.analysis.snapshot import CampusSnapshot

# Sides given to a mechanical load's first and second supply (as a rack's A and B feeds).
SUPPLY_SIDES = ("A", "B")


@dataclass(frozen=True)
class MechanicalLoad:
    kind: str  # "unit" | "plant"
    id: int
    name: str
    load_kw: float
    supplies: tuple[int, ...]  # power device ids, at most one per side


def cooling_figures(
    snap: CampusSnapshot, rack_load_kw: Mapping[int, float] | None = None
) -> tuple[dict[tuple[str, int], float], dict[int, float]]:
    """The one call into the cooling analysis: the electrical load of every unit ``("unit", id)`` and plant
    ``("plant", id)`` (as ``cooling.mechanical_loads_kw``), and the heat every unit carries, kW, at
    ``rack_load_kw`` (racks it names; the others at full IT load).

    A change of how heat is allocated to units and plants reaches the power chain and the failure analysis
    from here without touching either.
    """
    bal = cooling_balance(snap, rack_load_kw=rack_load_kw)
    kw: dict[tuple[str, int], float] = {("unit", u.id): u.electrical_kw for u in bal.units}
    kw.update({("plant", p.id): p.electrical_kw for p in bal.plants})
    return kw, {u.id: u.heat_kw for u in bal.units}


def mechanical_loads(
    snap: CampusSnapshot, kw: dict[tuple[str, int], float] | None = None
) -> list[MechanicalLoad]:
    """Every cooling unit and plant that names a supply, with its electrical load, kW (``kw``: the loads of
    ``cooling_figures``, computed when not given)."""
    if kw is None:
        kw, _ = cooling_figures(snap)
    out: list[MechanicalLoad] = []
    for u in snap.cooling_units:
        if u.supply_ids:
            out.append(MechanicalLoad("unit", u.id, u.name, kw.get(("unit", u.id), 0.0), u.supply_ids))
    for p in snap.cooling_plants:
        if p.supply_ids:
            out.append(MechanicalLoad("plant", p.id, p.name, kw.get(("plant", p.id), 0.0), p.supply_ids))
    return out


def mechanical_sensitivity(
    snap: CampusSnapshot, rack_weight: Mapping[int, float], other_per_server: float | None = None
) -> dict[tuple[str, int], dict[int, float]]:
    """Electrical kW of every unit and plant per kW of IT added to a hall: ``(kind, id) -> {hall: kW/kW}``.

    The added heat lands where ``heat.heat_sensitivity`` puts it; a unit draws its fan or pump fraction of
    it, a plant takes its units' added heat and their fan and pump power (both end up in the water) and
    draws that over its COP: the rules of ``cooling.cooling_balance``, per added kW.
    ``other_per_server``: ``heat.other_it_per_server_kw(snap)`` when the caller has it.
    """
    units = {u.id: u for u in snap.cooling_units}
    plants = {p.id: p for p in snap.cooling_plants}
    out: dict[tuple[str, int], dict[int, float]] = {}
    plant_heat: dict[int, dict[int, float]] = {}
    for uid, vec in heat_sensitivity(snap, rack_weight, other_per_server).items():
        u = units[uid]
        frac = unit_electrical_fraction(u.kind) if u.capacity_kw > 0 else 0.0
        out[("unit", uid)] = {h: kw * frac for h, kw in vec.items()}
        if u.plant_id in plants:
            row = plant_heat.setdefault(u.plant_id, {})
            for h, kw in vec.items():
                row[h] = row.get(h, 0.0) + kw * (1.0 + frac)
    for pid, vec in plant_heat.items():
        cop = plants[pid].cop
        out[("plant", pid)] = {h: kw / cop for h, kw in vec.items()} if cop > 0 else {}
    return out
