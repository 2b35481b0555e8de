"""The electrical load of the mechanical plant (cooling unit fans and pumps, plant compressors and fans) on
the power chain.

A cooling unit or plant draws from its supplies (``power_device_id`` and, when dual-fed,
``power_device_b_id``). The power roll-up carries each such load like a rack with an A and a B feed: split
evenly over the live supplies, all of it on the survivor when one supply dies, stopped when every supply
is dead. The loads are the design values of ``campus.analysis.cooling`` (heat moved at full IT load); a
rack override in the roll-up (power capping, shed racks) leaves them unchanged, as fans and pumps keep
running while the servers are throttled.
"""

from __future__ import annotations

from dataclasses import dataclass

from campus.analysis.cooling import cooling_balance
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


def cooling_figures(snap: CampusSnapshot) -> tuple[dict[tuple[str, int], float], dict[int, float]]:
    """The one call into the cooling analysis: the electrical load of every unit ``("unit", id)`` and plant
    ``("plant", id)`` (as ``cooling.mechanical_loads_kw``), and the heat every unit carries, kW.

    A change of how heat is allocated to units and plants reaches the power chain and the failure analysis
    from here without touching either.
    """
    bal = cooling_balance(snap)
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
