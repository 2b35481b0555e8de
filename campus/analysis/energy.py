"""Where the IT power goes, facility power (IT x PUE), annual energy and its cost.

``other_it_fraction`` is the share of IT power outside the GPU servers (SemiAnalysis, 100k H100 clusters,
2024-06, power budget: storage servers, switches, CPU nodes and optics add roughly 10% of IT power). The
back-end fabric and the racks' ``extra_it_kw`` that the inventory itemises are part of that share, so
``other_it_kw`` is only the remainder: IT = servers / (1 - fraction) unless the itemised part alone is
larger, in which case IT = servers + itemised and nothing is added.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from campus.analysis.fabric import fabric_from_inventory
from campus.analysis.snapshot import CampusSnapshot

HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True)
class ItBreakdown:
    gpu_kw: float
    server_overhead_kw: float  # CPUs, NICs (incl. DPU extra), fans, PSU losses
    network_kw: float  # switches and transceivers counted from the inventory
    rack_extra_kw: float  # racks' itemised extra IT (storage, CPU nodes)
    other_it_kw: float  # the rest of other_it_fraction
    it_kw: float

    def as_dict(self) -> dict:
        return asdict(self)


def _check_fraction(name: str, value: float, upper: float = 1.0) -> None:
    if not 0.0 <= value <= upper:
        raise ValueError(f"{name}: must be between 0 and {upper:g}")


def it_total_kw(servers_kw: float, itemised_kw: float, other_it_fraction: float) -> float:
    """IT power from the servers and the itemised rest (network, racks' extras): the rule above."""
    _check_fraction("other_it_fraction", other_it_fraction, 0.99)
    return max(servers_kw / (1.0 - other_it_fraction), servers_kw + itemised_kw)


def it_breakdown(
    snap: CampusSnapshot,
    gpu_power_fraction: float = 1.0,
    network_kw: float | None = None,
) -> ItBreakdown:
    """IT power of the campus with every GPU drawing ``gpu_power_fraction`` of its TDP (1.0 = full TDP).

    Only the GPUs draw less: the servers' other parts, the network, the racks' extras and the other IT
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
            spec = snap.node_models[slug]
            full_w = count * spec.gpus_per_node * snap.gpus[spec.gpu].tdp_w
            gpu_full_w += full_w
            gpu_w += full_w * gpu_power_fraction
            overhead_w += count * (spec.overhead_w + spec.nics * spec.nic_extra_w)
    if network_kw is None:
        networks = {s.network for s in snap.switches} | {x.network for x in snap.links}
        network_kw = sum(fabric_from_inventory(snap, n).fabric_power_kw for n in sorted(networks))
    servers_kw = (gpu_w + overhead_w) / 1000.0
    full_servers_kw = (gpu_full_w + overhead_w) / 1000.0
    itemised_kw = network_kw + extra_kw
    # the other IT at full GPU power (it_total_kw never gives less than servers + itemised: a difference
    # below 0 is rounding alone), held whatever the GPUs draw
    other_kw = max(
        0.0, it_total_kw(full_servers_kw, itemised_kw, snap.other_it_fraction) - full_servers_kw - itemised_kw
    )
    return ItBreakdown(
        gpu_kw=gpu_w / 1000.0,
        server_overhead_kw=overhead_w / 1000.0,
        network_kw=network_kw,
        rack_extra_kw=extra_kw,
        other_it_kw=other_kw,
        it_kw=servers_kw + itemised_kw + other_kw,
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
