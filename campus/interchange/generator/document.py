"""``generate_spec``: checks the parameters, then runs the steps (plan, layout, power and cooling,
fabric) and returns the campus spec."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campus import catalog_data as cat
from campus.analysis.fabric import max_endpoints
from campus.analysis.weather import CLIMATES, DEFAULT_CLIMATE
from campus.interchange.generator.builder import Builder
from campus.interchange.generator.common import (
    COOLING,
    COOLING_REDUNDANCY,
    DEFAULT_COOLING_REDUNDANCY,
    DEFAULT_POWER_ARCHITECTURE,
    DEFAULT_POWER_REDUNDANCY,
    FABRIC_SWITCH,
    FACILITY_WATER_C,
    HEAT_REJECTION,
    POWER_ARCHITECTURES,
    POWER_REDUNDANCY,
    Catalog,
    GeneratorError,
)
from campus.interchange.generator.limits import fit_layout
from campus.interchange.generator.phases import check_phases, stamp_phases
from campus.interchange.generator.plan import plan_pods
from campus.interchange.generator.power import add_storage, power_and_cooling


@dataclass
class GeneratedDesign:
    """A generated campus spec and what the generator changed from the parameters (e.g. rounding)."""

    spec: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def generate_spec(*args: Any, **params: Any) -> dict[str, Any]:
    """A complete campus spec: ``generate``'s parameters, without the notes (also in the description)."""
    return generate(*args, **params).spec


def check_fabric(catalog: Catalog, gpu_models: Sequence[str], fabric: str) -> None:
    """Every GPU model's vendor must build its servers for the fabric (``catalog_data.VENDOR_FABRICS``)."""
    for slug in gpu_models:
        vendor = catalog.gpus[slug].get("vendor", "")
        offered = cat.fabrics_for_vendor(vendor)
        if fabric not in offered:
            raise GeneratorError(
                "fabric",
                f'"{fabric}" is not offered for {vendor} {slug} servers; use {" or ".join(offered)}',
            )


def generate(
    name: str,
    gpus: int | None = None,
    gpu_model: str = "h100-sxm",
    fabric: str = "infiniband-ndr",
    topology: str = "rail-optimized",
    nic: str | None = None,
    cooling: str = "liquid",
    pue: float | None = None,
    price_usd_per_kwh: float = 0.078,
    mix: Sequence[Mapping[str, Any]] | None = None,
    oversubscription: float = 7.0,
    pod_max_gpus: int = 8192,  # POD_MAX_GPUS_DEFAULT
    building_max_it_mw: float = 80.0,
    hall_max_it_mw: float = 20.0,
    racks_per_row: int = 32,
    location: str = "",
    climate: str = DEFAULT_CLIMATE,
    bess_mw_per_building: float = 0.0,
    bess_hours: float | None = None,
    power_redundancy: str = DEFAULT_POWER_REDUNDANCY,
    cooling_redundancy: str = DEFAULT_COOLING_REDUNDANCY,
    phases: Sequence[Mapping[str, Any]] | None = None,
    power_architecture: str = DEFAULT_POWER_ARCHITECTURE,
    island_gpus: int | None = None,
    planning_margin_pct: float = 0.0,
    island_spans_buildings: bool = False,
    heat_rejection: str = "auto",
    facility_water: str | None = None,
    catalog: Catalog | None = None,
) -> GeneratedDesign:
    """A complete campus spec for ``gpus`` GPUs of ``gpu_model`` (or a ``mix`` of models).

    ``mix`` is a list of ``{"gpu_model": slug, "gpus": n}`` (optionally ``"node_model"``); when given,
    ``gpus`` may be omitted and must otherwise equal the sum. ``nic`` picks the server model by NIC kind
    (default: the GPU model's first server). ``bess_mw_per_building`` adds battery energy storage to every
    building, half on each substation bus, holding ``bess_hours`` at full power (default: the catalog's
    ``bess_hours``). ``phases`` lays the build-out in phases, ``[{"date", "gpus", "gpu_model"}]`` in
    ascending date order (instead of ``gpu_model``/``mix``; ``gpus`` may be omitted and must otherwise equal
    the total): each phase gets buildings of its own, in service from its date (``generator.phases``).
    ``power_architecture`` is "ac" (default), "dc-800" (MV → solid-state transformer → 800 VDC busway) or
    "dc-400" (MV → transformer → sidecar power racks → ±400 VDC busway); docs/generator.md.
    ``island_gpus``: the size of a compute island (the newer name of ``pod_max_gpus``: islands of at most
    this many GPUs, each model's GPUs split evenly). ``planning_margin_pct``: leaf ports, rack positions,
    power and cooling sized that much above the design so racks can be added (docs/generator.md).
    ``island_spans_buildings``: an island larger than ``building_max_it_mw`` continues in the next building
    (its leaves per hall, its spines in its first hall) instead of being refused.
    ``heat_rejection`` picks the plants (``generator.cooling.HEAT_REJECTION``; ``auto`` chooses by the
    climate and says so in the notes) and ``facility_water`` the liquid loop's ASHRAE class (W32, W40,
    W45: the facility water supply, °C); every plant is sized for the climate's design conditions.
    Raises ``GeneratorError`` naming the parameter at fault.
    """
    catalog = catalog or Catalog.defaults()
    if not name or not name.strip():
        raise GeneratorError("name", "must not be blank")
    days = []
    if phases is not None:
        if mix:
            raise GeneratorError("phases", "give phases or a mix, not both")
        days = check_phases(phases, catalog.gpus)
        total = sum(int(p["gpus"]) for p in phases)
        if gpus is not None and gpus != total:
            raise GeneratorError("gpus", f"{gpus} differs from the phases' total {total}")
        mix = [{"gpu_model": p["gpu_model"], "gpus": int(p["gpus"])} for p in phases]
    if mix:
        total = sum(int(m["gpus"]) for m in mix)
        if gpus is not None and gpus != total:
            raise GeneratorError("gpus", f"{gpus} differs from the mix total {total}")
        for m in mix:
            unknown = sorted(set(m) - MIX_KEYS)
            if unknown:
                raise GeneratorError("mix", f'unknown parameter "{unknown[0]}" in a mix entry')
            if m["gpu_model"] not in catalog.gpus:
                raise GeneratorError("mix", f'unknown GPU model "{m["gpu_model"]}"')
        check_mix_node_models(mix, catalog)
    else:
        if gpus is None:
            raise GeneratorError("gpus", "give gpus or a mix")
        if gpu_model not in catalog.gpus:
            raise GeneratorError(
                "gpu_model", f'unknown GPU model "{gpu_model}"; known: {", ".join(sorted(catalog.gpus))}'
            )
        mix = [{"gpu_model": gpu_model, "gpus": gpus}]
    if fabric not in FABRIC_SWITCH:
        raise GeneratorError("fabric", f"must be one of {', '.join(FABRIC_SWITCH)}")
    check_fabric(catalog, [m["gpu_model"] for m in mix], fabric)
    if topology not in ("rail-optimized", "middle-of-rack"):
        raise GeneratorError("topology", "must be rail-optimized or middle-of-rack")
    if cooling not in COOLING:
        raise GeneratorError("cooling", "must be liquid or air")
    if nic is not None and nic not in cat.NIC_KINDS:
        raise GeneratorError("nic", f"must be one of {', '.join(cat.NIC_KINDS)}")
    # No pue: the campus's PUE comes from its plant and its weather (design_pue null); a pue is a typed
    # override.
    if pue is not None and not 1.0 <= pue <= 3.0:
        raise GeneratorError("pue", "must be between 1.0 and 3.0")
    if climate not in CLIMATES:
        raise GeneratorError("climate", f"must be one of {', '.join(CLIMATES)}")
    if heat_rejection not in HEAT_REJECTION:
        raise GeneratorError("heat_rejection", f"must be one of {', '.join(HEAT_REJECTION)}")
    if facility_water is not None and facility_water not in FACILITY_WATER_C:
        raise GeneratorError("facility_water", f"must be one of {', '.join(FACILITY_WATER_C)} or null")
    if not 0 <= price_usd_per_kwh <= 10:
        raise GeneratorError("price_usd_per_kwh", "must be between 0 and 10")
    if not 1.0 <= oversubscription <= 64:
        raise GeneratorError("oversubscription", "must be between 1 and 64")
    if not 1 <= racks_per_row <= 60:
        raise GeneratorError("racks_per_row", "must be between 1 and 60")
    if hall_max_it_mw <= 0 or building_max_it_mw < hall_max_it_mw:
        raise GeneratorError("hall_max_it_mw", "must be > 0 and at most building_max_it_mw")
    if not 0 <= bess_mw_per_building <= 10_000:
        raise GeneratorError("bess_mw_per_building", "must be between 0 and 10000")
    if power_redundancy not in POWER_REDUNDANCY:
        raise GeneratorError("power_redundancy", f"must be one of {', '.join(POWER_REDUNDANCY)}")
    if cooling_redundancy not in COOLING_REDUNDANCY:
        raise GeneratorError("cooling_redundancy", f"must be one of {', '.join(COOLING_REDUNDANCY)}")
    if power_architecture not in POWER_ARCHITECTURES:
        raise GeneratorError("power_architecture", f"must be one of {', '.join(POWER_ARCHITECTURES)}")
    if bess_hours is None:
        bess_hours = cat.default_value("bess_hours")
    if not 0 < bess_hours <= 100:
        raise GeneratorError("bess_hours", "must be above 0 and at most 100")
    switch_slug = FABRIC_SWITCH[fabric]
    if switch_slug not in catalog.switch_models:
        raise GeneratorError("fabric", f'switch model "{switch_slug}" is not in the catalog')
    switch_row = catalog.switch_models[switch_slug]
    radix = int(switch_row["radix"])
    if island_gpus is not None:
        if isinstance(island_gpus, bool) or not isinstance(island_gpus, int):
            raise GeneratorError("island_gpus", "must be a whole number of GPUs")
        if island_gpus < 8 or island_gpus > radix**3 // 4:
            raise GeneratorError(
                "island_gpus", f"must be between 8 and {radix**3 // 4} for a radix-{radix} switch"
            )
        if pod_max_gpus not in (POD_MAX_GPUS_DEFAULT, island_gpus):
            raise GeneratorError("island_gpus", f"differs from pod_max_gpus {pod_max_gpus}; give one of them")
        pod_max_gpus = island_gpus
    if not isinstance(island_spans_buildings, bool):
        raise GeneratorError("island_spans_buildings", "must be true or false")
    if isinstance(planning_margin_pct, bool) or not isinstance(planning_margin_pct, (int, float)):
        raise GeneratorError("planning_margin_pct", "must be a number between 0 and 100")
    if not 0 <= planning_margin_pct <= 100:
        raise GeneratorError("planning_margin_pct", "must be between 0 and 100")
    # Keep each island within a three-tier non-blocking fat tree (k³/4 end points).
    if pod_max_gpus < 8 or pod_max_gpus > radix**3 // 4:
        raise GeneratorError(
            "pod_max_gpus", f"must be between 8 and {radix**3 // 4} for a radix-{radix} switch"
        )

    notes: list[str] = []
    pods = plan_pods(catalog, mix, nic, cooling, pod_max_gpus, notes)

    def new_builder() -> Builder:
        return Builder(
            catalog,
            name,
            cooling,
            pue,
            topology,
            fabric,
            switch_row,
            oversubscription,
            racks_per_row,
            climate,
            power_redundancy,
            cooling_redundancy,
            power_architecture,
            planning_margin_pct,
            island_spans_buildings,
            heat_rejection,
            facility_water,
        )

    # Laid out with the fabric placed, every hall and building within its IT limit (or refused).
    phase_building_kw = None
    if days and any("building_max_it_mw" in p for p in phases):  # type: ignore[union-attr]
        phase_building_kw = [
            float(p.get("building_max_it_mw", building_max_it_mw)) * 1000.0
            for p in phases  # type: ignore[union-attr]
        ]
        for i, kw in enumerate(phase_building_kw):
            if kw < hall_max_it_mw * 1000.0:
                raise GeneratorError(
                    f"phases[{i}].building_max_it_mw", f"must be at least hall_max_it_mw ({hall_max_it_mw:g})"
                )
    builder, heat = fit_layout(
        new_builder,
        pods,
        building_max_it_mw * 1000.0,
        hall_max_it_mw * 1000.0,
        phased=bool(days),
        phase_building_kw=phase_building_kw,
    )
    # The cooling and the power it needs follow the heat, network and other IT included.
    power_and_cooling(builder, heat)
    if bess_mw_per_building > 0:
        add_storage(builder, bess_mw_per_building, bess_hours)
    if days:
        stamp_phases(builder, pods, days)
    total_gpus = sum(r.gpus for p in pods for r in p.racks)
    models = ", ".join(
        f"{sum(r.gpus for p in pods if p.gpu_model == m['gpu_model'] for r in p.racks):,} {m['gpu_model']}"
        for m in mix
    )
    nics = ", ".join(sorted({catalog.node_models[p.node_model]["nic_kind"] for p in pods}))
    built_cooling = cooling_built(builder, cooling, notes)
    description = (
        f"Reference design: {total_gpus:,} GPUs ({models}), {fabric} {topology}, {nics} NICs, "
        f"{built_cooling}, {power_redundancy} {ARCHITECTURE_WORDS[power_architecture]} power, "
        f"{cooling_redundancy} cooling redundancy, "
        + (
            f"PUE {pue:g}; {builder.it_kw / 1000.0:.1f} MW IT, {builder.it_kw * pue / 1000.0:.1f} MW facility."
            if pue is not None
            else f"PUE from the plant and the weather; {builder.it_kw / 1000.0:.1f} MW IT."
        )
    )
    if days:
        description += (
            " Phases: "
            + "; ".join(
                f"{day.isoformat()} {sum(r.gpus for p in pods if p.entry == i for r in p.racks):,} "
                f"{phases[i]['gpu_model']}"  # type: ignore[index]
                for i, day in enumerate(days)
            )
            + "."
        )
    if len(pods) > 1:
        notes.extend(fabric_notes(builder))
    if planning_margin_pct:
        description += f" Planning margin {planning_margin_pct:g} %."
    if notes:
        description += " " + "; ".join(notes) + "."
    # the plants chosen and why (``generator.cooling.plant_kinds``)
    description += "".join(f" {note[0].upper()}{note[1:]}." for note in builder.cooling_notes)
    spec: dict[str, Any] = {
        "spec_version": 1,
        "campus": {
            "name": name.strip(),
            "grid_capacity_mw": builder.grid_capacity_mw,
            "price_usd_per_kwh": float(price_usd_per_kwh),
            "design_pue": float(pue) if pue is not None else None,
            "other_it_fraction": builder.allowance_fraction,
            "climate": climate,
            "power_redundancy": power_redundancy,
            "cooling_redundancy": cooling_redundancy,
            "description": description,
        },
        **builder.document(),
    }
    if location:
        spec["campus"]["location"] = location
    return GeneratedDesign(spec, notes)


ARCHITECTURE_WORDS = {
    "ac": "AC",
    "dc-800": "800 VDC (solid-state transformers, DC busways)",
    "dc-400": "±400 VDC (sidecar power racks, DC busways)",
}


def cooling_built(builder: Builder, cooling: str, notes: list[str]) -> str:
    """What cooling the racks got, in words, and a note for each server model that could not have the cooling
    asked for (a liquid campus of servers the catalog offers only air-cooled)."""
    by_type: dict[str, int] = {}
    air_models: dict[str, int] = {}
    for building in builder.buildings:
        for hall in building["halls"]:
            for row in hall["rows"]:
                for rack in row["racks"]:
                    by_type[rack["cooling_type"]] = by_type.get(rack["cooling_type"], 0) + 1
                    if cooling == "liquid" and rack["cooling_type"] == "air":
                        for group in rack.get("nodes", []):
                            air_models[group["model"]] = air_models.get(group["model"], 0) + 1
    for model, racks in sorted(air_models.items()):
        gpu = builder.catalog.node_models[model]["gpu"]
        notes.append(
            f'cooling: liquid was asked but "{model}" ({gpu}) has no liquid-cooled version in the catalog, '
            f"so its {racks:,} racks are air-cooled"
        )
    air = by_type.get("air", 0)
    liquid = sum(n for kind, n in by_type.items() if kind != "air")
    if cooling != "liquid" or not air:
        return f"{cooling} cooling"
    if not liquid:
        return "air cooling (liquid asked; no liquid-cooled server of these models in the catalog)"
    return (
        f"liquid cooling for {liquid:,} racks and air for {air:,} (no liquid-cooled version of their servers)"
    )


def check_mix_node_models(mix: Sequence[Mapping[str, Any]], catalog: Catalog) -> None:
    """A mix entry's ``node_model`` is a catalog server carrying the entry's ``gpu_model``; else a
    ``GeneratorError`` naming ``mix[i].node_model`` with the servers that do."""
    for index, entry in enumerate(mix):
        slug = entry.get("node_model")
        if slug is None:
            continue
        gpu_model = entry.get("gpu_model")
        fits = sorted(s for s, row in catalog.node_models.items() if row["gpu"] == gpu_model)
        known = f"; node models of {gpu_model}: {', '.join(fits)}" if fits else ""
        row = catalog.node_models.get(slug)
        if row is None:
            raise GeneratorError(f"mix[{index}].node_model", f'unknown node model "{slug}"{known}')
        if row["gpu"] != gpu_model:
            raise GeneratorError(
                f"mix[{index}].node_model",
                f'"{slug}" carries {row["gpu"]} GPUs, not {gpu_model}{known}',
            )


POD_MAX_GPUS_DEFAULT = 8192


def fabric_notes(b: Builder) -> list[str]:
    """What the fabric above the islands became: a shared non-blocking top, a campus layer of more than
    one tier, or islands a tier deeper than a smaller island would be."""
    plan = b.fabric_plan
    if plan is None or len(plan.island_tiers) < 2:
        return []
    if plan.shared:
        return [
            f"the islands share one non-blocking top tier ({plan.tiers} tiers in all): islands of this size "
            "would need as many tiers on their own and a campus layer above them one more"
        ]
    notes = []
    if plan.campus_tiers > 1:
        notes.append(
            f"the campus layer takes {plan.campus_tiers} tiers: one tier reaches at most "
            f"{int(b.switch_row['radix'])} islands"
        )
    deepest = max(plan.island_tiers)
    if deepest >= 3:
        radix = int(b.switch_row["radix"])
        fits = max_endpoints(deepest - 1, radix, uplink_oversubscription=b.oversubscription)
        notes.append(
            f"islands need {deepest} tiers with their uplinks at {b.oversubscription:g}:1 on radix {radix}; "
            f"islands of at most {fits:,} end points (island_gpus) would keep {deepest - 1}"
        )
    return notes


# The parameters ``generate`` takes, for callers that receive them as a mapping (API, command).
PARAMETERS = frozenset(inspect.signature(generate).parameters) - {"catalog"}
MIX_KEYS = frozenset({"gpu_model", "gpus", "node_model"})
