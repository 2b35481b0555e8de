"""``generate_spec``: checks the parameters, then runs the steps (plan, layout, power and cooling,
fabric) and returns the campus spec."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campus import catalog_data as cat
from campus.analysis.weather import CLIMATES, DEFAULT_CLIMATE
from campus.interchange.generator.builder import Builder
from campus.interchange.generator.common import (
    COOLING,
    COOLING_REDUNDANCY,
    DEFAULT_COOLING_REDUNDANCY,
    DEFAULT_POWER_REDUNDANCY,
    FABRIC_SWITCH,
    FACILITY_WATER_C,
    HEAT_REJECTION,
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
    pod_max_gpus: int = 8192,
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
    if bess_hours is None:
        bess_hours = cat.default_value("bess_hours")
    if not 0 < bess_hours <= 100:
        raise GeneratorError("bess_hours", "must be above 0 and at most 100")
    switch_slug = FABRIC_SWITCH[fabric]
    if switch_slug not in catalog.switch_models:
        raise GeneratorError("fabric", f'switch model "{switch_slug}" is not in the catalog')
    switch_row = catalog.switch_models[switch_slug]
    radix = int(switch_row["radix"])
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
            heat_rejection,
            facility_water,
        )

    # Laid out with the fabric placed, every hall and building within its IT limit (or refused).
    builder, heat = fit_layout(
        new_builder, pods, building_max_it_mw * 1000.0, hall_max_it_mw * 1000.0, phased=bool(days)
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
    description = (
        f"Reference design: {total_gpus:,} GPUs ({models}), {fabric} {topology}, {nics} NICs, "
        f"{cooling} cooling, {power_redundancy} power, {cooling_redundancy} cooling redundancy, "
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


# The parameters ``generate`` takes, for callers that receive them as a mapping (API, command).
PARAMETERS = frozenset(inspect.signature(generate).parameters) - {"catalog"}
MIX_KEYS = frozenset({"gpu_model", "gpus", "node_model"})
