"""Where the IT power goes, facility power (IT x PUE), annual energy and its cost.

IT = servers + what the inventory itemises (the network's switches and transceivers, the racks'
``extra_it_kw``: storage, CPU nodes) + an allowance for what it does not. Inventoried equipment always adds
its own draw: 48 more leaf switches raise IT by 48 switches' catalog power.

``other_it_fraction`` is that allowance, the share of IT outside the servers that is *not* inventoried:
allowance = servers x fraction / (1 - fraction), worked out with the GPUs at full power and held. With
nothing else inventoried IT = servers / (1 - fraction), so the default 0.10 reproduces the published
budget (SemiAnalysis, 100k H100 clusters, 2024-06: storage servers, switches, CPU nodes and optics add
roughly 10% of IT power); a campus that inventories part of it lowers the fraction (the generator writes
the share it does not inventory). The storage systems of the inventory (``StorageSystem.power_kw``) are
taken out of the allowance they were part of, down to nothing: allowance = max(servers x f / (1 - f) -
storage, 0), so inventorying the storage of a campus whose fraction still counts it moves its watts from
the allowance to where the storage is, without counting them twice; storage beyond the allowance adds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from campus.analysis.fabric import fabric_from_inventory
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.storage_power import storage_kw

HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True)
class ItBreakdown:
    gpu_kw: float
    server_overhead_kw: float  # CPUs, NICs (incl. DPU extra), fans, PSU losses
    network_kw: float  # switches and transceivers counted from the inventory
    rack_extra_kw: float  # racks' itemised extra IT (storage, CPU nodes)
    other_it_kw: float  # the allowance for IT not in the inventory (other_it_fraction)
    it_kw: float
    storage_kw: float = 0.0  # storage systems of the inventory (storage_power), in it_kw

    def as_dict(self) -> dict:
        return asdict(self)


def _check_fraction(name: str, value: float, upper: float = 1.0) -> None:
    if not 0.0 <= value <= upper:
        raise ValueError(f"{name}: must be between 0 and {upper:g}")


def allowance_kw(servers_kw: float, other_it_fraction: float, storage_kw: float = 0.0) -> float:
    """The allowance for IT outside the servers that the inventory does not hold, kW: servers x f / (1 - f)
    less the inventory's storage systems (``storage_kw``), never below 0 (the rule above)."""
    _check_fraction("other_it_fraction", other_it_fraction, 0.99)
    return max(servers_kw * other_it_fraction / (1.0 - other_it_fraction) - storage_kw, 0.0)


def it_total_kw(
    servers_kw: float, itemised_kw: float, other_it_fraction: float, storage_kw: float = 0.0
) -> float:
    """IT power from the servers, the itemised rest (network, racks' extras, storage systems: ``storage_kw``
    of ``itemised_kw``) and the allowance: the rule above."""
    return servers_kw + itemised_kw + allowance_kw(servers_kw, other_it_fraction, storage_kw)


def it_breakdown(
    snap: CampusSnapshot,
    gpu_power_fraction: float = 1.0,
    network_kw: float | None = None,
) -> ItBreakdown:
    """IT power of the campus with every GPU drawing ``gpu_power_fraction`` of its modelled draw (1.0 = the
    campus's own ``gpu_power_fraction`` of TDP, full TDP unless the campus is calibrated).

    Only the GPUs draw less: the servers' other parts, the network, the racks' extras and the allowance
    (storage, CPU nodes, management, worked out at full GPU power by the rule above and held) do not idle
    with the GPUs, as the scenarios hold them. ``network_kw`` overrides the fabric power (default:
    ``fabric_from_inventory`` over all networks).
    """
    _check_fraction("gpu_power_fraction", gpu_power_fraction, 1.5)
    gpu_w = gpu_full_w = overhead_w = 0.0
    extra_kw = 0.0
    for r in snap.racks:
        extra_kw += r.extra_it_kw
        for slug, count in r.nodes:
            full_w = count * snap.node_gpu_w(slug)
            gpu_full_w += full_w
            gpu_w += full_w * gpu_power_fraction
            overhead_w += count * snap.node_overhead_w(slug)
    if network_kw is None:
        networks = {s.network for s in snap.switches} | {x.network for x in snap.links}
        network_kw = sum(fabric_from_inventory(snap, n).fabric_power_kw for n in sorted(networks))
    servers_kw = (gpu_w + overhead_w) / 1000.0
    full_servers_kw = (gpu_full_w + overhead_w) / 1000.0
    storage = storage_kw(snap)
    itemised_kw = network_kw + extra_kw + storage
    # the allowance at full GPU power, held whatever the GPUs draw; the storage systems come out of it
    other_kw = allowance_kw(full_servers_kw, snap.other_it_fraction, storage)
    return ItBreakdown(
        gpu_kw=gpu_w / 1000.0,
        server_overhead_kw=overhead_w / 1000.0,
        network_kw=network_kw,
        rack_extra_kw=extra_kw,
        other_it_kw=other_kw,
        it_kw=servers_kw + itemised_kw + other_kw,
        storage_kw=storage,
    )


@dataclass(frozen=True)
class EnergyFigures:
    it_kw: float
    pue: float
    facility_kw: float
    annual_energy_mwh: float
    annual_cost_usd: float

    def as_dict(self) -> dict:
        return asdict(self)


def facility_energy(it_kw: float, pue: float, price_usd_per_kwh: float) -> EnergyFigures:
    """Facility power = IT x PUE; annual energy = average facility power x 8,760 h; cost = energy x price.

    ``it_kw`` is the *average* IT power over the year (scale GPU power with ``gpu_power_fraction``).
    """
    if it_kw < 0:
        raise ValueError("it_kw: must be >= 0")
    if pue < 1.0:
        raise ValueError("pue: must be >= 1")
    if price_usd_per_kwh < 0:
        raise ValueError("price_usd_per_kwh: must be >= 0")
    facility_kw = it_kw * pue
    energy_kwh = facility_kw * HOURS_PER_YEAR
    return EnergyFigures(it_kw, pue, facility_kw, energy_kwh / 1000.0, energy_kwh * price_usd_per_kwh)


def year_energy(it_kw: float, year, price_usd_per_kwh: float) -> EnergyFigures:
    """Energy and cost as the integral of the hours of a ``facility.FacilityYear``: energy = the sum of
    the hourly facility power (one hour each), scaled to a year of 8,760 h; facility power = the mean
    hour; PUE = the energy-weighted PUE."""
    if price_usd_per_kwh < 0:
        raise ValueError("price_usd_per_kwh: must be >= 0")
    hours = year.hours
    energy_mwh = year.annual_energy_mwh * (HOURS_PER_YEAR / hours) if hours else 0.0
    pue = year.energy_weighted_pue if year.annual_it_energy_mwh > 0 else 1.0
    facility_kw = energy_mwh * 1000.0 / HOURS_PER_YEAR
    return EnergyFigures(it_kw, pue, facility_kw, energy_mwh, energy_mwh * 1000.0 * price_usd_per_kwh)


@dataclass(frozen=True)
class GridSupply:
    """Who serves the facility's energy over a year: the grid up to its connection, the generators above it.

    A connection below the facility's peak is a shortfall: in every hour the facility needs more than
    ``capacity_kw`` the generators serve the rest (or, without generators, it is not served), and that
    energy costs the generators' fuel per MWh generated, their conversion losses included (the catalog's
    ``generator_fuel_usd_per_mwh_*``: fuel price x fuel per kWh at the set's heat rate), never the grid
    tariff. The facility's own power does not change: the same chain carries the same load."""

    capacity_kw: float  # 0: no grid limit modelled
    peak_facility_kw: float
    shortfall_kw: float  # the peak above the connection (0 when it fits)
    hours_short: int  # hours of the year above the connection (in the series given)
    grid_energy_mwh: float
    generator_energy_mwh: float  # energy above the connection, per year
    grid_cost_usd: float
    generator_fuel_usd_per_mwh: float
    generator_cost_usd: float

    @property
    def annual_cost_usd(self) -> float:
        return self.grid_cost_usd + self.generator_cost_usd

    def as_dict(self) -> dict:
        return {**asdict(self), "annual_cost_usd": self.annual_cost_usd}


def grid_supply(
    facility_kw_by_hour,
    capacity_kw: float,
    price_usd_per_kwh: float,
    generator_fuel_usd_per_mwh: float,
) -> GridSupply:
    """Split the hours' facility power (kW, one value per hour, scaled to 8,760 h) between the grid (up to
    ``capacity_kw``; 0 = no limit) and the generators (the rest), each at its own price."""
    if capacity_kw < 0:
        raise ValueError("capacity_kw: must be >= 0")
    if price_usd_per_kwh < 0:
        raise ValueError("price_usd_per_kwh: must be >= 0")
    if generator_fuel_usd_per_mwh < 0:
        raise ValueError("generator_fuel_usd_per_mwh: must be >= 0")
    hours = np.asarray(facility_kw_by_hour, dtype=float).ravel()
    if hours.size == 0:
        return GridSupply(capacity_kw, 0.0, 0.0, 0, 0.0, 0.0, 0.0, generator_fuel_usd_per_mwh, 0.0)
    scale = HOURS_PER_YEAR / hours.size
    above = np.maximum(hours - capacity_kw, 0.0) if capacity_kw > 0 else np.zeros_like(hours)
    generator_mwh = float(above.sum()) * scale / 1000.0
    grid_mwh = float(hours.sum()) * scale / 1000.0 - generator_mwh
    peak = float(hours.max())
    return GridSupply(
        capacity_kw=capacity_kw,
        peak_facility_kw=peak,
        shortfall_kw=max(peak - capacity_kw, 0.0) if capacity_kw > 0 else 0.0,
        hours_short=int((above > 0).sum()),
        grid_energy_mwh=grid_mwh,
        generator_energy_mwh=generator_mwh,
        grid_cost_usd=grid_mwh * 1000.0 * price_usd_per_kwh,
        generator_fuel_usd_per_mwh=generator_fuel_usd_per_mwh,
        generator_cost_usd=generator_mwh * generator_fuel_usd_per_mwh,
    )
