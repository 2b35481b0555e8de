"""The campus at a glance (dashboard and ``/summary`` API); the building cards and rack metrics are in ``cards``.

Everything returned is JSON-serialisable (plain dicts, lists, numbers, strings, None).
"""

from __future__ import annotations

import math
from typing import Any

from campus.analysis.bom import DEFAULT_DISCOUNT_RATE, DEFAULT_HORIZON_YEARS, capex_summary
from campus.analysis.cards import building_cards, running_at_design
from campus.analysis.compute import gpus_by_model, pace_model, peak_pflops
from campus.analysis.cooling import AIR_COOLING_LIMIT_KW, cooling_balance, pools_failing_redundancy
from campus.analysis.distribution import distribution
from campus.analysis.energy import facility_energy, grid_supply, it_breakdown, year_energy
from campus.analysis.fabric import fabric_from_inventory
from campus.analysis.facility import (
    PLANT_MODEL,
    campus_facility_year,
    campus_pue,
    design_facility,
    heat_rejection_risks,
)
from campus.analysis.grid_rules import grid_block
from campus.analysis.headroom import failover_headroom
from campus.analysis.job_compute import effective_compute
from campus.analysis.job_reliability import CAMPUS, ISLANDS, declared_jobs, jobs_reliability, recovery_for_job
from campus.analysis.onsite import shortfall_fuel_usd_per_mwh, standby_generators
from campus.analysis.phases import in_service_devices, in_service_feeds
from campus.analysis.power import PowerRollup, baseline_rollup, power_graph
from campus.analysis.redundancy import (
    down_at_design,
    redundancy_check,
    redundancy_declaration_checks,
    single_points_by_domain,
)
from campus.analysis.redundancy_levels import domain_level
from campus.analysis.reliability import PER_MODEL, campus_job_reliability, failure_table
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.stranded import stranded_capacity
from campus.analysis.training.campus_jobs import declared_job_models
from campus.analysis.units import kw_to_mw
from campus.analysis.weather import weather_of

# A typed PUE this far below the plant model's is reported as below it (rounding of a typed figure aside).
PUE_TOLERANCE = 0.005

# Redundancy findings listed in a summary (the count is always complete).
MAX_FINDINGS = 50


def finite_json(value: Any) -> Any:
    """Replace non-finite floats (JSON has no inf/NaN) with None, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


def campus_it(snap: CampusSnapshot, gpu_power_fraction: float = 1.0, fabric=None):
    """The campus IT load (servers, every network's fabric, rack extras and other IT): the one figure the
    summary's ``power.it_mw`` and the floor map's ``campus.it_mw`` both give."""
    fabric = fabric if fabric is not None else fabric_from_inventory(snap)
    other_networks = {s.network for s in snap.switches} | {x.network for x in snap.links}
    other_networks.discard("backend")
    network_kw = fabric.fabric_power_kw + sum(
        fabric_from_inventory(snap, n).fabric_power_kw for n in sorted(other_networks)
    )
    return it_breakdown(snap, gpu_power_fraction, network_kw=network_kw)


def campus_summary(
    snap: CampusSnapshot,
    pue: float | None = None,
    mfu: float | None = None,
    gpu_power_fraction: float = 1.0,
    dataset: str = PER_MODEL,
    checkpoint_minutes: float | None = None,
    restart_minutes: float | None = None,
    air_limit_kw: float = AIR_COOLING_LIMIT_KW,
    include_redundancy: bool = True,
    horizon_years: int = DEFAULT_HORIZON_YEARS,
    discount_rate: float = DEFAULT_DISCOUNT_RATE,
    jobs: str = ISLANDS,
) -> dict:
    """Inventory, power, cooling, network, compute, reliability and capex figures of a campus.

    ``pue`` overrides the campus's PUE (``facility.campus_pue``: the typed ``design_pue``, else the plant
    model's annual energy-weighted PUE in the campus's weather, hour by hour); ``mfu`` (one value for every
    precision) overrides the step-time model's MFU of each declared job (``job_compute``);
    ``checkpoint_minutes`` and ``restart_minutes`` override each job's checkpoint model from the inventory
    (``training.campus_jobs``); ``gpu_power_fraction`` is the average GPU draw as a fraction of TDP for the energy
    figures (1.0: every GPU at TDP all year, an upper bound).
    """
    if mfu is not None and not 0.0 < mfu <= 1.0:
        raise ValueError("mfu: must be > 0 and <= 1")
    by_model = gpus_by_model(snap)
    nodes = sum(c for r in snap.racks for _, c in r.nodes)
    gpus = sum(by_model.values())

    fabric = fabric_from_inventory(snap)
    it = campus_it(snap, gpu_power_fraction, fabric)
    # The plant and the weather, hour by hour (the water and the hours short whatever the PUE's source)
    year = campus_facility_year(snap, gpu_power_fraction)
    resolved = campus_pue(snap, pue, gpu_power_fraction)
    pue = resolved.pue
    if resolved.source == PLANT_MODEL:
        energy = year_energy(it.it_kw, year, snap.price_usd_per_kwh)
        peak_facility_kw = year.peak_facility_mw * 1000.0
        hours_kw = year.facility_mw * 1000.0
    else:
        energy = facility_energy(it.it_kw, pue, snap.price_usd_per_kwh)
        peak_facility_kw = energy.facility_kw
        hours_kw = [energy.facility_kw]
    # The grid up to its connection, the generators above it at their fuel (``energy.grid_supply``)
    supply = grid_supply(
        hours_kw, snap.grid_capacity_kw, snap.price_usd_per_kwh, shortfall_fuel_usd_per_mwh(snap)
    )
    # At the site's design conditions (design_weather): the plant sized for them, the grid checked on them
    design = design_facility(snap, gpu_power_fraction)
    design_peak_kw = (
        max(peak_facility_kw, design.peak_facility_mw * 1000.0)
        if resolved.source == PLANT_MODEL
        else peak_facility_kw
    )
    risks = heat_rejection_risks(snap, gpu_power_fraction)
    # a grid below the typical peak is grid_risks' shortfall; below the design peak alone, a warning
    if snap.grid_capacity_kw and peak_facility_kw <= snap.grid_capacity_kw < design_peak_kw:
        risks.append(
            {
                "kind": "grid_short_at_design",
                "severity": "warning",
                "message": (
                    f"the grid connection ({snap.grid_capacity_kw / 1000.0:,.1f} MW) is below the facility "
                    f"peak at design conditions ({design_peak_kw / 1000.0:,.1f} MW)"
                ),
            }
        )
    # What the plant draws in this weather, whatever PUE was typed: an override below it understates the
    # facility power, energy and cost, and the summary says so.
    plant_pue = year.energy_weighted_pue if year.annual_it_energy_mwh > 0 else 1.0
    chain = baseline_rollup(snap)
    stranded = stranded_capacity(snap)
    findings = redundancy_check(snap) if include_redundancy else []
    cooling = cooling_balance(snap, air_limit_kw=air_limit_kw, gpu_power_fraction=gpu_power_fraction)
    failing_pools = pools_failing_redundancy(snap, cooling)
    down = down_at_design(snap)
    # the level the cooling achieves, by the redundancy endpoint's rule (its single points and these pools)
    achieved = (
        redundancy_declaration_checks(
            {"cooling": snap.cooling_redundancy},
            single_points_by_domain(findings),
            {"cooling": [p.as_dict() for p in failing_pools]},
            gpu_power_fraction,
            down_at_design=down,
            heat_rejection_short=heat_rejection_risks(snap, gpu_power_fraction),
            verified={"cooling": domain_level(snap, "cooling").as_dict()},
        )[1]["achieved"]
        if include_redundancy
        else None
    )
    # What runs at design: racks down with nothing failed (without power, or powered and without cooling,
    # ``redundancy.down_at_design``) draw no IT power and compute nothing. ``running`` is the share of the
    # racks' fed IT (their own plus the network and other IT placed on them, which adds up to the IT
    # load) on racks that run; 1.0 when none is down, so a healthy campus's figures are its design ones.
    g = power_graph(snap)
    down_racks, running = running_at_design(snap)
    running_by_model: dict[str, int] = {}
    for r in snap.racks:
        if r.id not in down_racks:
            for slug, n in g.rack_gpus[r.id].items():
                running_by_model[slug] = running_by_model.get(slug, 0) + n

    # ``reliability``'s own figures: one job over every GPU (``campus_wide``); effective compute (model.md
    # §5) takes the declared ``jobs``' GPU-weighted ETTR (``job_reliability``; 1.0 without failure rates).
    # Each job's recovery and MFU from its training model (``training.campus_jobs``: a preset workload, its
    # checkpoint against the inventory's storage and front end); typed values override.
    declared = declared_jobs(snap, jobs)
    models = declared_job_models(snap, declared)
    # the campus-wide job's checkpoint (only a storage system gives it one)
    if jobs == CAMPUS:
        whole = models
    elif snap.storage_systems:
        whole = declared_job_models(snap, declared_jobs(snap, CAMPUS))
    else:
        whole = []
    campus_costs = whole[0]["checkpoint"] if whole else None
    campus_rec = recovery_for_job(gpus, checkpoint_minutes, restart_minutes, costs=campus_costs)
    rel = campus_job_reliability(
        snap, dataset, campus_rec["checkpoint_minutes"], campus_rec["restart_minutes"]
    )
    rel["checkpoint_minutes_source"] = campus_rec["checkpoint_minutes_source"]
    rel["restart_minutes_source"] = campus_rec["restart_minutes_source"]
    rel["failure_table"] = failure_table(snap, dataset) if snap.failure_rates else []
    rel["campus_wide"] = "expected_ettr and the figures beside it: one synchronous job over every GPU"
    rel["headline"] = jobs_reliability(
        snap, dataset, checkpoint_minutes, restart_minutes, jobs, models=models
    )
    ettr = rel["headline"]["ettr"]
    job_figures = effective_compute(snap, declared, models, rel["headline"], mfu, down_racks)
    design_peak = peak_pflops(by_model, snap.gpus)
    peak = peak_pflops(running_by_model, snap.gpus) if down_racks else design_peak
    pace = {p: pace_model(by_model, snap.gpus, p)[0] if gpus else None for p in ("fp8", "bf16", "fp16")}

    failover = failover_headroom(snap)
    over_planning = [d for d, h in chain.device_headroom_kw.items() if h < 0 and d not in chain.dead_devices]
    tightest = min(
        ((h, d) for d, h in chain.device_headroom_kw.items() if d not in chain.dead_devices),
        default=None,
    )
    summary = {
        "campus": {"id": snap.id, "name": snap.name},
        "inventory": {
            "buildings": len(snap.buildings),
            "halls": len(snap.halls),
            "racks": len(snap.racks),
            "nodes": nodes,
            "gpus": gpus,
            "gpus_by_model": by_model,
            "power_devices": len(in_service_devices(snap)),
            "power_feeds": len(in_service_feeds(snap)),
            "cooling_units": len(snap.cooling_units),
            "cooling_plants": len(snap.cooling_plants),
            "pods": len(snap.pods),
        },
        "power": {
            "gpu_mw": kw_to_mw(it.gpu_kw),
            "server_overhead_mw": kw_to_mw(it.server_overhead_kw),
            "network_mw": kw_to_mw(it.network_kw),
            "storage_mw": kw_to_mw(it.storage_kw),  # the inventory's storage systems (storage_power)
            "rack_extra_mw": kw_to_mw(it.rack_extra_kw),
            "other_it_mw": kw_to_mw(it.other_it_kw),
            # running at design (racks down at design draw nothing); the design figures beside them
            "it_mw": kw_to_mw(it.it_kw * running),
            "design_it_mw": kw_to_mw(it.it_kw),
            "racks_down_at_design": len(down_racks),
            "gpus_down_at_design": down["power"]["gpus"] + down["cooling"]["gpus"],
            "pue": pue,
            "pue_source": resolved.source,
            "plant_model_pue": plant_pue,
            "plant_model_facility_mw": kw_to_mw(
                year_energy(it.it_kw, year, snap.price_usd_per_kwh).facility_kw * running
            )
            if resolved.source != PLANT_MODEL
            else kw_to_mw(energy.facility_kw * running),
            "pue_below_plant_model": resolved.source != PLANT_MODEL and pue < plant_pue - PUE_TOLERANCE,
            "facility_mw": kw_to_mw(energy.facility_kw * running),
            "design_facility_mw": kw_to_mw(energy.facility_kw),
            "peak_facility_mw": kw_to_mw(peak_facility_kw),
            "grid_capacity_mw": kw_to_mw(snap.grid_capacity_kw),
            "grid_headroom_mw": kw_to_mw(snap.grid_capacity_kw - peak_facility_kw),
            # the same at the site's design conditions (0.4 %/1 % dry bulb, 0.4 % wet bulb, 20-year extreme)
            "design_peak_facility_mw": kw_to_mw(design_peak_kw),
            "design_grid_headroom_mw": kw_to_mw(snap.grid_capacity_kw - design_peak_kw),
            "annual_energy_twh": energy.annual_energy_mwh * running / 1e6,
            "annual_cost_usd": supply.annual_cost_usd * running,
            "design_annual_energy_twh": energy.annual_energy_mwh / 1e6,
            "design_annual_cost_usd": supply.annual_cost_usd,
            # the energy the grid connection cannot deliver, served by the standby generators at their fuel
            "grid_supply": supply.as_dict(),
            "price_usd_per_kwh": snap.price_usd_per_kwh,
            "gpu_power_fraction": gpu_power_fraction,
            "chain_input_mw": kw_to_mw(chain.total_input_kw),
            # AC, 800 VDC or ±400 VDC, with the chain's losses, copper and capex (campus.analysis.distribution)
            "distribution": distribution(snap, chain).as_dict(),
            "utility_load_mw": {str(k): kw_to_mw(v) for k, v in chain.utility_load_kw.items()},
            "devices_over_planning_limit": [
                {"id": d, "name": g.devices[d].name, "headroom_kw": chain.device_headroom_kw[d]}
                for d in sorted(over_planning)
            ],
            "tightest_device": (
                {"id": tightest[1], "name": g.devices[tightest[1]].name, "headroom_kw": tightest[0]}
                if tightest is not None
                else None
            ),
            "headroom_after_failover_mw": (
                kw_to_mw(failover.campus.headroom_kw) if failover.campus.headroom_kw is not None else None
            ),
            "headroom_binding": failover.campus.binding_dict(),
            "utility_headroom_after_failover_mw": {
                str(u): kw_to_mw(row.headroom_kw) for u, row in failover.utilities.items()
            },
            "tripped_at_design_load": [{"kind": k, "id": i, "reason": r} for k, i, r in chain.tripped],
            "racks_without_power": len(chain.racks_without_power),
            "unfed_racks": len(chain.unfed_racks),  # of racks_without_power: a load and no feed at all
            "stranded_mw": kw_to_mw(stranded.campus.stranded_kw),
            "stranded_by_constraint_mw": {
                k: kw_to_mw(v) for k, v in stranded.campus.stranded_by_constraint_kw.items()
            },
            "stranded_binding": stranded.campus.binding,
            "design_margin_mw": kw_to_mw(stranded.campus.design_margin_kw),
            "redundancy_findings_count": len(findings),
            "redundancy_findings_by_effect": {
                e: sum(1 for f in findings if f.effect == e) for e in ("power", "cooling", "cascade")
            },
            "redundancy_findings": [f.as_dict() for f in findings[:MAX_FINDINGS]],
        },
        "cooling": {
            "heat_load_mw": kw_to_mw(cooling.heat_load_kw),
            # the units' capacity with the declared redundancy intact; nameplates (spares included) apart
            "capacity_mw": kw_to_mw(cooling.capacity_kw),
            "capacity_by_path_mw": {k: kw_to_mw(v) for k, v in cooling.capacity_by_path_kw.items()},
            "capacity_redundancy": cooling.redundancy,
            "achieved_redundancy": achieved,
            # the load the pools (groups_failing_redundancy, achieved_redundancy) were checked at: GPUs at
            # this fraction of TDP (the redundancy endpoint always checks at design load, 1.0)
            "checked_at_gpu_power_fraction": gpu_power_fraction,
            # the whole chain's spare (0 while a pool or a plant loop is short); units and plants apart
            "spare_mw": kw_to_mw(cooling.spare_kw),
            "unit_spare_mw": kw_to_mw(cooling.unit_spare_kw),
            "plant_spare_mw": kw_to_mw(cooling.plant_spare_kw),
            "unit_capacity_mw": kw_to_mw(cooling.unit_capacity_kw),
            "plant_capacity_mw": kw_to_mw(cooling.plant_capacity_kw),
            "plant_usable_capacity_mw": kw_to_mw(cooling.plant_usable_capacity_kw),
            "plant_electrical_mw": kw_to_mw(cooling.plant_electrical_kw),
            "unit_electrical_mw": kw_to_mw(cooling.unit_electrical_kw),
            "liquid_heat_mw": kw_to_mw(cooling.liquid_heat_kw),
            "air_heat_mw": kw_to_mw(cooling.air_heat_kw),
            "heat_sources_mw": {k: kw_to_mw(v) for k, v in cooling.heat_sources_kw.items()},
            "unassigned_heat_mw": kw_to_mw(cooling.unassigned_heat_kw),
            "unassigned_by_reason_mw": {k: kw_to_mw(v) for k, v in cooling.unassigned_by_reason_kw.items()},
            "heat_without_plant_mw": kw_to_mw(cooling.heat_without_plant_kw),
            "racks_over_air_limit": len(cooling.racks_over_air_limit),
            "air_limit_kw": air_limit_kw,
            "units_overloaded": [u.id for u in cooling.units if u.overloaded],
            "plants_overloaded": [p.id for p in cooling.plants if p.overloaded],
            # pools whose heat exceeds their usable capacity with the declared cooling redundancy (N every
            # unit, N+1 the largest out, 2N the larger half out): named groups and halls' ungrouped air
            # units (cooling.pools_failing_redundancy, the redundancy endpoint's declared check too), by
            # name; groups_failing_n_plus_1 is the earlier name of the same list, kept for clients
            "groups_failing_redundancy": [p.name for p in failing_pools],
            "groups_failing_n_plus_1": [p.name for p in failing_pools],
            "pools_failing_redundancy": [p.as_dict() for p in failing_pools],
            "wue_l_per_kwh": year.wue_l_per_kwh,
            "water_m3": float(year.water_l.sum()) / 1000.0,
            "hours_short": year.hours_short,
            "design_hours_short": design.hours_short,
            "design_conditions": design.as_dict(),
            "climate": snap.climate,
            "weather_source": weather_of(snap).source,
        },
        "network": {
            "tiers": fabric.tiers,
            "switches": fabric.switches,
            "transceivers": fabric.transceivers,
            "links": fabric.links,
            "links_by_medium": fabric.links_by_medium,
            "copper_share": fabric.copper_share,
            "fabric_power_kw": fabric.fabric_power_kw,
            "pods": [
                {
                    "id": p.pod_id,
                    "name": p.name,
                    "gpus": p.gpus,
                    "tiers": p.tiers,
                    "switches": p.switches,
                    "links_by_medium": p.links_by_medium,
                    "copper_share": p.copper_share,
                    "fabric_power_kw": p.fabric_power_kw,
                    "oversubscription": p.oversubscription,
                    "bisection_tbps": p.bisection_tbps,
                }
                for p in fabric.pods
            ],
        },
        "compute": {
            "peak_pflops": peak,
            # the declared jobs' step-time MFU, peak-weighted (job_compute), or the typed one
            "mfu": job_figures["mfu"],
            "mfu_source": job_figures["mfu_source"],
            "ettr": ettr,  # the declared jobs' (reliability.headline), else 1.0
            "ettr_source": "reliability.headline" if snap.failure_rates else "none",
            "effective_pflops": job_figures["effective_pflops"],
            "effective_pflops_synchronous": job_figures["effective_pflops_synchronous"],
            "design_peak_pflops": design_peak,
            "design_effective_pflops": job_figures["design_effective_pflops"],
            "design_effective_pflops_synchronous": job_figures["design_effective_pflops_synchronous"],
            "pace_gpu_model": pace,
        },
        "reliability": rel,
        "grid": grid_block(snap, peak_facility_kw, supply),  # the site's grid, its rules and its CO2
        "capex": capex_summary(snap, kw_to_mw(it.it_kw), supply, horizon_years, discount_rate),
        "buildings": building_cards(snap, chain, pue),
        # what the design cannot do: the grid below the peak (typical or design), plants short of heat rejection
        "risks": grid_risks(snap, supply, chain) + risks,
    }
    return finite_json(summary)


def grid_risks(snap: CampusSnapshot, supply, chain: PowerRollup) -> list[dict]:
    """The summary's grid risks: a connection below the facility's peak (``energy.grid_supply``), with the
    energy the generators serve and what it costs over the grid tariff, or that nothing serves it; a
    utility feed tripping at design load (``power.rollup``: the chain then runs on its generators)."""
    risks: list[dict] = []
    if supply.shortfall_kw > 0:
        generators = standby_generators(snap)
        extra_usd = supply.generator_energy_mwh * (
            supply.generator_fuel_usd_per_mwh - 1000.0 * snap.price_usd_per_kwh
        )
        risks.append(
            {
                "kind": "grid_shortfall",
                "severity": "error" if not generators else "warning",
                "shortfall_mw": kw_to_mw(supply.shortfall_kw),
                "hours": supply.hours_short,
                "generator_energy_mwh": supply.generator_energy_mwh,
                "generator_fuel_usd_per_mwh": supply.generator_fuel_usd_per_mwh,
                "generator_cost_usd": supply.generator_cost_usd,
                "message": (
                    f"the grid connection of {kw_to_mw(snap.grid_capacity_kw):.3f} MW is "
                    f"{kw_to_mw(supply.shortfall_kw):.3f} MW below the peak facility power; "
                    + (
                        f"{len(generators)} standby generators serve {supply.generator_energy_mwh:,.1f} MWh/yr "
                        f"at ${supply.generator_fuel_usd_per_mwh:,.0f}/MWh of fuel "
                        f"(${extra_usd:,.0f}/yr over the grid tariff)"
                        if generators
                        else f"no live generator serves the {supply.generator_energy_mwh:,.1f} MWh/yr above it"
                    )
                ),
            }
        )
    for kind, ident, reason in chain.tripped:
        if kind == "utility":
            risks.append(
                {
                    "kind": "utility_trips_at_design_load",
                    "severity": "error",
                    "utility_feed_id": ident,
                    "message": f"utility feed {ident} trips at design load: {reason}",
                }
            )
    return risks
