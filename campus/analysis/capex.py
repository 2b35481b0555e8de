"""Installed capacity and equipment capital cost of the power chain and the cooling.

What redundancy costs is what it installs: ``installed_capacity`` sums the rated power of every power
device by kind and the capacity of every cooling unit and plant by kind; ``infrastructure_capex`` prices
them at a cost per kW. The costs per kW are estimates for the installed equipment (supply, installation
and commissioning; not the building, land or interconnection), stated in ``UNIT_COST_USD_PER_KW`` with
their reasoning; docs/model.md ("Redundancy topologies") gives them and a published cross-check: the
Uptime Institute's whole-facility cost per kW roughly doubles from Tier I/II (N) to Tier III/IV
(Turner & Seader, "Dollars per kW plus dollars per square foot are a better data center cost model than
dollars per square foot alone", Uptime Institute white paper, 2006).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from campus.analysis.snapshot import CampusSnapshot

# USD per kW of rating (power devices) or of heat capacity (cooling units and plants). Estimates.
UNIT_COST_USD_PER_KW: dict[str, float] = {
    # power devices, per kW rated
    "substation": 60.0,  # MV/HV transformer and breakers of the campus substation
    "transformer": 50.0,  # MV/LV unit substation transformer
    "switchgear": 80.0,  # LV switchgear and paralleling gear
    "generator": 350.0,  # diesel standby set with fuel tank and enclosure
    "ups": 300.0,  # static double-conversion UPS with 5 min of batteries
    "pdu": 50.0,  # row power distribution / busway
    # DC distribution (docs/model.md, "DC power architectures"); estimates
    "sst": 350.0,  # solid-state transformer with storage on its 800 VDC bus: replaces transformer and UPS
    "rectifier": 250.0,  # sidecar power rack: rectifier shelves and battery backup units
    "dc-busway": 30.0,  # DC busway: ~40 % less copper than the AC busway per kW (power.distribution)
    # cooling, per kW of heat
    "cdu": 100.0,
    "crah": 150.0,
    "chiller": 300.0,  # with its tower or condenser and pumps
    "dry-cooler": 150.0,
    "cooling-tower": 100.0,  # open tower with its plate heat exchanger and pumps
    "air-chiller": 350.0,  # packaged air-cooled chiller with its free-cooling coil (more coil, no tower)
    "adiabatic-cooler": 200.0,  # a dry cooler with pads, spray and water treatment
}
# A kind without its own figure (e.g. a "breaker" device or an "in-row" unit) at this cost per kW.
OTHER_USD_PER_KW = 100.0


@dataclass
class InstalledCapacity:
    """Installed capacity by kind, kW: power devices by rating, cooling units and plants by capacity."""

    power_kw: dict[str, float] = field(default_factory=dict)
    cooling_units_kw: dict[str, float] = field(default_factory=dict)
    plants_kw: dict[str, float] = field(default_factory=dict)

    @property
    def critical_kw(self) -> float:
        """UPS capacity: the critical power the design installs."""
        return self.power_kw.get("ups", 0.0)

    def as_dict(self) -> dict:
        return {
            "power_kw": dict(sorted(self.power_kw.items())),
            "cooling_units_kw": dict(sorted(self.cooling_units_kw.items())),
            "plants_kw": dict(sorted(self.plants_kw.items())),
        }


def installed_capacity(snap: CampusSnapshot) -> InstalledCapacity:
    out = InstalledCapacity()
    for d in snap.power_devices:
        out.power_kw[d.kind] = out.power_kw.get(d.kind, 0.0) + d.rated_kw
    for u in snap.cooling_units:
        out.cooling_units_kw[u.kind] = out.cooling_units_kw.get(u.kind, 0.0) + u.capacity_kw
    for p in snap.cooling_plants:
        out.plants_kw[p.kind] = out.plants_kw.get(p.kind, 0.0) + p.capacity_kw
    return out


@dataclass
class Capex:
    power_usd: float
    cooling_usd: float
    by_kind_usd: dict[str, float]

    @property
    def total_usd(self) -> float:
        return self.power_usd + self.cooling_usd

    def as_dict(self) -> dict:
        return {
            "power_usd": self.power_usd,
            "cooling_usd": self.cooling_usd,
            "total_usd": self.total_usd,
            "by_kind_usd": dict(sorted(self.by_kind_usd.items())),
        }


def _cost(kind: str, kw: float) -> float:
    return kw * UNIT_COST_USD_PER_KW.get(kind, OTHER_USD_PER_KW)


def infrastructure_capex(snap: CampusSnapshot) -> Capex:
    """Equipment capital cost of the installed power chain and cooling (``UNIT_COST_USD_PER_KW``)."""
    cap = installed_capacity(snap)
    by_kind: dict[str, float] = {}
    for table in (cap.power_kw, cap.cooling_units_kw, cap.plants_kw):
        for kind, kw in table.items():
            by_kind[kind] = by_kind.get(kind, 0.0) + _cost(kind, kw)
    power = sum(_cost(k, kw) for k, kw in cap.power_kw.items())
    cooling = sum(_cost(k, kw) for t in (cap.cooling_units_kw, cap.plants_kw) for k, kw in t.items())
    return Capex(power_usd=power, cooling_usd=cooling, by_kind_usd=by_kind)
