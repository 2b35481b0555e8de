"""The power distribution architecture of a campus (AC, 800 VDC, ±400 VDC) and what it costs in losses, copper
and equipment: the figures a planner compares two designs by (docs/model.md, "DC power architectures").

The architecture is read from the chain's stage kinds, not declared: a solid-state transformer makes a hall
800 VDC, a sidecar rectifier (power rack) ±400 VDC, anything else AC. The same graph, roll-up, redundancy and
impact analyses run on every architecture; only the stages and their efficiencies differ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from campus.analysis.capex import infrastructure_capex, installed_capacity
from campus.analysis.power import PowerRollup
from campus.analysis.snapshot import CampusSnapshot

AC, DC_800, DC_400 = "ac", "dc-800", "dc-400"
ARCHITECTURE_OF_KIND = {"sst": DC_800, "rectifier": DC_400}
# Stage kinds of the DC architectures (docs/catalog.md, "Power defaults")
DC_KINDS = frozenset({"sst", "rectifier", "dc-busway"})


@dataclass(frozen=True)
class Conductors:
    """The conductors that carry power to the racks: ``amps_per_kw`` in each of ``count`` current-carrying
    conductors. Copper at equal current density is proportional to ``count × amps_per_kw``."""

    volts: float
    count: int
    amps_per_kw: float

    @property
    def amp_conductors_per_kw(self) -> float:
        return self.count * self.amps_per_kw


# 415 V three-phase (line to line), balanced: I = P / (√3·V) in each of 3 phase conductors, the neutral
# carrying none. 800 VDC: I = P / V in 2 conductors. ±400 VDC: 800 V pole to pole, the same 2 conductors
# (the mid-point conductor carries only the imbalance, as the AC neutral).
CONDUCTORS = {
    AC: Conductors(415.0, 3, 1000.0 / (math.sqrt(3.0) * 415.0)),
    DC_800: Conductors(800.0, 2, 1000.0 / 800.0),
    DC_400: Conductors(800.0, 2, 1000.0 / 800.0),
}


def copper_relative_to_ac(architecture: str) -> float:
    """Conductor copper per kW delivered relative to 415 VAC at the same current density (0.60 for 800 VDC:
    2 × 1.25 A against 3 × 1.39 A per kW)."""
    return CONDUCTORS[architecture].amp_conductors_per_kw / CONDUCTORS[AC].amp_conductors_per_kw


def power_architecture(snap: CampusSnapshot) -> str:
    """ "dc-800" when a solid-state transformer feeds any rack path, "dc-400" for a sidecar rectifier, "mixed"
    when both appear, else "ac"."""
    found = {ARCHITECTURE_OF_KIND[d.kind] for d in snap.power_devices if d.kind in ARCHITECTURE_OF_KIND}
    if not found:
        return AC
    return found.pop() if len(found) == 1 else "mixed"


@dataclass(frozen=True)
class Distribution:
    architecture: str
    chain_loss_kw: float  # what the chain's devices lose at design load
    copper_relative_to_ac: float | None  # None for a mixed campus
    power_capex_usd: float  # the power chain's equipment (capex.UNIT_COST_USD_PER_KW)
    dc_capacity_kw: float  # installed rating of the DC stages

    def as_dict(self) -> dict:
        return {
            "architecture": self.architecture,
            "chain_loss_mw": self.chain_loss_kw / 1000.0,
            "copper_relative_to_ac": self.copper_relative_to_ac,
            "power_capex_usd": self.power_capex_usd,
            "dc_capacity_mw": self.dc_capacity_kw / 1000.0,
        }


def distribution(snap: CampusSnapshot, chain: PowerRollup) -> Distribution:
    """The campus's architecture with its chain losses (from the healthy roll-up ``chain``), relative copper
    and power-chain capex."""
    arch = power_architecture(snap)
    loss_kw = sum(
        chain.device_load_kw.get(d, 0.0) - out
        for d, out in chain.device_output_kw.items()
        if d not in chain.dead_devices
    )
    capacity = installed_capacity(snap).power_kw
    return Distribution(
        architecture=arch,
        chain_loss_kw=loss_kw,
        copper_relative_to_ac=copper_relative_to_ac(arch) if arch in CONDUCTORS else None,
        power_capex_usd=infrastructure_capex(snap).power_usd,
        dc_capacity_kw=sum(kw for kind, kw in capacity.items() if kind in DC_KINDS),
    )
