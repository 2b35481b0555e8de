"""A campus's own sources besides the grid: battery energy storage and on-site (prime) generation.

Read by the scenario engines (``grid_limit``, ``power_dynamics``) so they use the assets the campus owns
when a scenario does not override them. Standby generators (no prime rating) are not on-site generation:
they start only when the grid falls short or fails, and every steady-state analysis (roll-up, redundancy,
headroom) keeps treating every generator as standby.

Defaults (docs/catalog.md, ``POWER_DEFAULTS``): fuel ``generator_fuel_usd_per_mwh_diesel`` for a standby
set and ``generator_fuel_usd_per_mwh_gas`` for a prime one; a prime set's load-following ramp is its
``ramp_kw_per_s``, else its prime rating over ``ramp_s``, else ``generator_prime_ramp_kw_per_s_per_mw``.
"""

from __future__ import annotations

from dataclasses import dataclass

from campus.analysis.power_graph import DEAD_STATUSES
from campus.analysis.snapshot import CampusSnapshot, PowerDeviceSnap
from campus.analysis.units import kw_to_mw
from campus.catalog_data import default_value


@dataclass(frozen=True)
class PrimeGenerator:
    """One on-site generator that follows the campus load."""

    id: int
    name: str
    prime_kw: float
    ramp_kw_per_s: float
    fuel_usd_per_mwh: float
    start_delay_s: float = 0.0  # from the call to first power (a unit started for an event)


@dataclass(frozen=True)
class StoragePool:
    """The campus's battery energy storage as one pool (the systems' sums; the efficiency and the
    response weighted by energy and by power)."""

    power_kw: float = 0.0
    energy_kwh: float = 0.0
    round_trip_efficiency: float = 1.0
    response_ms: float = 0.0
    systems: int = 0


def is_prime(device: PowerDeviceSnap) -> bool:
    return device.kind == "generator" and device.prime_rating_kw is not None and device.prime_rating_kw > 0


def fuel_usd_per_mwh(device: PowerDeviceSnap) -> float:
    """The generator's fuel cost per MWh generated (its own, else the catalog's by role)."""
    if device.fuel_usd_per_mwh is not None:
        return device.fuel_usd_per_mwh
    key = "generator_fuel_usd_per_mwh_gas" if is_prime(device) else "generator_fuel_usd_per_mwh_diesel"
    return default_value(key)


def prime_ramp_kw_per_s(device: PowerDeviceSnap) -> float:
    prime_kw = device.prime_rating_kw or 0.0
    if device.ramp_kw_per_s is not None:
        return device.ramp_kw_per_s
    if device.ramp_s > 0:
        return prime_kw / device.ramp_s
    return kw_to_mw(prime_kw) * default_value("generator_prime_ramp_kw_per_s_per_mw")


def prime_generators(snap: CampusSnapshot) -> list[PrimeGenerator]:
    """The live prime-rated generators, cheapest fuel first (the order they are loaded in)."""
    units = [
        PrimeGenerator(
            d.id,
            d.name,
            float(d.prime_rating_kw or 0.0),
            prime_ramp_kw_per_s(d),
            fuel_usd_per_mwh(d),
            d.start_delay_s,
        )
        for d in snap.power_devices
        if is_prime(d) and d.status not in DEAD_STATUSES
    ]
    return sorted(units, key=lambda u: (u.fuel_usd_per_mwh, u.id))


def standby_generators(snap: CampusSnapshot) -> list[PowerDeviceSnap]:
    """The live generators without a prime rating."""
    return [
        d
        for d in snap.power_devices
        if d.kind == "generator" and not is_prime(d) and d.status not in DEAD_STATUSES
    ]


def storage_pool(snap: CampusSnapshot) -> StoragePool:
    """The live energy storage systems of the campus as one pool."""
    live = [s for s in snap.energy_storage if s.status not in DEAD_STATUSES]
    if not live:
        return StoragePool()
    power = sum(s.power_kw for s in live)
    energy = sum(s.energy_kwh for s in live)
    return StoragePool(
        power_kw=power,
        energy_kwh=energy,
        # weighted by energy and by power; a pool of none of either: the plain mean
        round_trip_efficiency=sum(s.round_trip_efficiency * s.energy_kwh for s in live) / energy
        if energy > 0
        else sum(s.round_trip_efficiency for s in live) / len(live),
        response_ms=sum(s.response_ms * s.power_kw for s in live) / power
        if power > 0
        else sum(s.response_ms for s in live) / len(live),
        systems=len(live),
    )


def shortfall_fuel_usd_per_mwh(snap: CampusSnapshot) -> float:
    """What a MWh the grid cannot deliver costs: the live standby generators' fuel per MWh generated (they
    start when the grid falls short), weighted by their rating (each its own, else the catalog's diesel
    figure, ``fuel_usd_per_mwh``); the catalog's diesel figure on a campus without a live standby set (the
    energy is then not served at all, and the summary says so)."""
    live = standby_generators(snap)
    rated = sum(max(d.rated_kw, 0.0) for d in live)
    if not live or rated <= 0:
        return default_value("generator_fuel_usd_per_mwh_diesel")
    return sum(fuel_usd_per_mwh(d) * max(d.rated_kw, 0.0) for d in live) / rated
