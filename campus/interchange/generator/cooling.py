"""Cooling: where each hall's heat goes, the groups of units that take it, and the plants behind them (N+1
by default; N or 2N by the builder's ``cooling_redundancy``, ``redundant_count``).

The heat is placed the way ``campus.analysis.heat.heat_map`` reads it back, so the design passes its own
balance: the cold plates of a ``direct-to-chip`` rack carry the node model's ``liquid_heat_fraction`` to
the rack's CDU; the rest of the rack's heat, the network's (at the switches' and racks' hall) and the
hall's share of other IT (by server heat) go to the hall's air units (CRAHs), split by capacity; an
``air`` rack sends everything to the CRAH it names.

Per hall an N+1 group of CDUs and one of CRAHs for the air heat; racks go to units in contiguous blocks.
CDUs are sized for their racks' whole heat, a margin over the 75-85 % the cold plates carry (so the
group stays N+1 however much of a rack's heat reaches the liquid loop). Per building an N+1 set of plants for
the CDUs' heat and one of chillers for the CRAHs', each unit on one plant, balanced so no plant exceeds its
capacity and each serves heat. The plant kinds follow the builder's ``heat_rejection`` (``HEAT_REJECTION``;
``auto``: the CDUs' plants are dry coolers where the climate lets them, chillers with a water-side economiser
where a dry cooler would keep less than ``DRY_COOLER_MIN_FRACTION`` of its rating). Every set is sized so it
stays N+1 in the worst of the campus's reference year and its design hours (``sizing_hours``: a plant's
capacity falls with the weather, ``facility.year.hottest_hour_fraction``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from campus import catalog_data as cat
from campus.analysis.design_weather import DESIGN_CONDITIONS
from campus.analysis.fabric import fabric_from_inventory
from campus.analysis.facility.rejection import air_chiller_cop
from campus.analysis.facility.year import hottest_hour_fraction as plant_hottest_hour_fraction
from campus.analysis.facility.year import water_temps_c
from campus.analysis.plant_layout import COOLING_FOOTPRINT_M
from campus.analysis.weather import reference_year
from campus.interchange.generator.builder import Builder
from campus.interchange.generator.common import (
    COLD_PLATE,
    CRAH_KW,
    DRY_COOLER_COP,
    HEAT_REJECTION,
    PLANT_KW,
    PLANT_MIN_KW,
    SERVICE_ZONE_M,
    GeneratorError,
    Row,
    ceil_to,
    liquid_heat_fraction,
    r3,
)
from campus.interchange.spec_snapshot import spec_snapshot

UNIT_GAP_M = 0.4  # between two cooling units side by side in the service zone (a service clearance; estimate)


@dataclass
class UnitPlan:
    name: str
    kind: str  # "cdu" | "crah"
    capacity_kw: float
    heat_kw: float  # at design load, as the heat balance will find it
    row: Row = field(default_factory=dict)


@dataclass
class HallHeat:
    """One hall's heat at design load, kW."""

    servers_kw: float = 0.0
    network_kw: float = 0.0
    other_it_kw: float = 0.0
    # (rack, kW the unit is sized for, heat it takes), in floor order: racks on CDUs (sized for the
    # whole rack, taking its liquid share), air racks on CRAHs (all their heat)
    cdu_racks: list[tuple[Row, float, float]] = field(default_factory=list)
    crah_racks: list[tuple[Row, float, float]] = field(default_factory=list)
    spread_kw: float = 0.0  # air heat shared by the hall's CRAHs by capacity

    @property
    def it_kw(self) -> float:
        return self.servers_kw + self.network_kw + self.other_it_kw

    @property
    def beside_kw(self) -> float:
        """The network and the storage/CPU allowance the chain carries beside the racks (``power_graph``:
        on the devices feeding the hall's racks, never on a rack's own feeds)."""
        return self.network_kw + self.other_it_kw


def hall_heat(b: Builder) -> list[list[HallHeat]]:
    """Per building, per hall: servers, network and other IT heat, and where each part goes.

    Network power per hall is ``fabric_from_inventory`` over the generated switches and links (one rule for
    the fabric's power); other IT is the rest of ``other_it_fraction``, spread by server heat.
    """
    snap = spec_snapshot(
        {"campus": {"name": "plan", "other_it_fraction": b.other_it_fraction}, **b.document()}
    )
    hall_id = {
        (bld.name, h.name): h.id for bld in snap.buildings for h in snap.halls if h.building_id == bld.id
    }
    by_place = fabric_from_inventory(snap).power_kw_by_place
    out: list[list[HallHeat]] = []
    servers_total = network_total = 0.0
    for bi, halls in enumerate(b.layout):
        bname = b.buildings[bi]["name"]
        out.append([])
        for hi, rows in enumerate(halls):
            hid = hall_id[(bname, f"H{hi + 1}")]
            heat = HallHeat(network_kw=by_place.get(("hall", hid), 0.0))
            for _, members in rows:
                for spec, rack in members:
                    heat.servers_kw += rack.kw
                    if spec["cooling_type"] == COLD_PLATE:
                        liquid = rack.kw * liquid_heat_fraction(b.catalog.node_models[rack.node_model])
                        heat.cdu_racks.append((spec, rack.kw, liquid))
                        heat.spread_kw += rack.kw - liquid
                    else:
                        heat.crah_racks.append((spec, rack.kw, rack.kw))
            heat.spread_kw += heat.network_kw
            servers_total += heat.servers_kw
            network_total += heat.network_kw
            out[-1].append(heat)
    # Storage, CPU nodes and management: the published share of IT outside the servers
    # (``other_it_fraction``, ~10 %) less the network the fabric itemises. The campus carries it as its
    # allowance (``energy.allowance_kw``: servers x f / (1 - f)), so the document's fraction is the share
    # left once the network is inventoried.
    other_total = max(servers_total / (1.0 - b.other_it_fraction) - servers_total - network_total, 0.0)
    b.allowance_fraction = other_total / (servers_total + other_total) if servers_total > 0 else 0.0
    for halls in out:
        for heat in halls:
            heat.other_it_kw = other_total * heat.servers_kw / servers_total if servers_total else 0.0
            heat.spread_kw += heat.other_it_kw
    return out


# ---------------------------------------------------------------- units


def _blocks(loads: list[float], bound: float) -> list[int] | None:
    """Block index of each load, filling contiguous blocks up to ``bound``; None if one load exceeds it."""
    out, block, current = [], 0, 0.0
    for load in loads:
        if load > bound + 1e-9:
            return None
        if current and current + load > bound + 1e-9:
            block, current = block + 1, 0.0
        out.append(block)
        current += load
    return out


def partition(loads: list[float], n: int) -> list[int]:
    """Contiguous blocks for ``n`` units with the largest block as small as it can be (to 0.1 kW)."""
    if not loads:
        return []
    lo, hi = max(max(loads), sum(loads) / n), sum(loads)
    while hi - lo > 0.1:
        mid = (lo + hi) / 2
        blocks = _blocks(loads, mid)
        if blocks is not None and blocks[-1] < n:
            hi = mid
        else:
            lo = mid
    return _blocks(loads, hi) or [0] * len(loads)


def redundant_count(needed: int, redundancy: str) -> int:
    """Units installed for ``needed`` units' worth of heat: N as needed, N+1 one spare, 2N twice and at
    least two spares (one out for maintenance and one failed leave the heat carried: three where one
    carries it)."""
    needed = max(1, needed)
    if redundancy == "N":
        return needed
    if redundancy == "2N":
        return max(2 * needed, needed + 2)
    return needed + 1


def unit_count(loads: list[float], spread_kw: float, capacity_kw: float, redundancy: str = "N+1") -> int:
    """Units of ``capacity_kw`` for racks of ``loads`` (contiguous blocks) plus ``spread_kw`` shared by all:
    ``redundancy`` of the needed count (N+1: the group carries its heat with one unit lost; 2N: with half
    of them lost) and no unit over its capacity at design load."""
    total = sum(loads) + spread_kw
    if total <= 0:
        return 0
    n = redundant_count(math.ceil(total / capacity_kw - 1e-9), redundancy)
    while True:
        blocks = partition(loads, n)
        heats = [spread_kw / n] * n
        for load, block in zip(loads, blocks, strict=True):
            heats[block] += load
        if max(heats) <= capacity_kw + 1e-9:
            return n
        n += 1


def hall_units(
    b: Builder,
    prefix: str,
    bname: str,
    hall: Row,
    heat: HallHeat,
    supplies: tuple[str, str | None] | None,
) -> list[UnitPlan]:
    """The hall's CDU and CRAH groups (rows in ``b.units``, plant left to ``building_plants``); each rack
    is given its unit. ``supplies``: the mechanical PDUs A and B every unit is fed from."""
    units: list[UnitPlan] = []
    groups = (
        ("cdu", cat.default_value("cdu_facility_kw"), heat.cdu_racks, 0.0),
        ("crah", CRAH_KW, heat.crah_racks, heat.spread_kw),
    )
    for kind, capacity, racks, spread in groups:
        loads = [kw for _, kw, _ in racks]
        # sized for the planning margin: each unit counted at its capacity over the margin factor
        n = unit_count(loads, spread, capacity / b.margin_factor, b.cooling_redundancy)
        if n == 0:
            continue
        group = f"{prefix}-{kind.upper()}"
        names = [f"{group}-{u + 1:02d}" for u in range(n)]
        heats = [spread / n] * n
        for (spec, _, kw), block in zip(racks, partition(loads, n), strict=True):
            spec["cooling_unit"] = names[block]
            heats[block] += kw
        liquid = kind == "cdu"
        # CDUs along the far wall, CRAHs in front of them, both in the service zone
        y = hall["length_m"] - SERVICE_ZONE_M * (0.25 if liquid else 0.75)
        # evenly along the hall, as many to a line as stand side by side with a gap (the map's footprint); more
        # lines towards the rows when one does not hold them all
        width, depth = COOLING_FOOTPRINT_M[kind]
        per_line = max(1, min(n, int(hall["width_m"] // (width + UNIT_GAP_M)) - 1))
        step = hall["width_m"] / (per_line + 1)
        for u, name in enumerate(names):
            line, at = divmod(u, per_line)
            row: Row = {
                "name": name,
                "kind": kind,
                "building": bname,
                "hall": hall["name"],
                "plant": None,
                "capacity_kw": float(capacity),
                "supply_temp_c": b.liquid_loop_c()[0] if liquid else 24.0,
                "return_temp_c": b.liquid_loop_c()[1] if liquid else 40.0,
                "flow_lpm": r3(capacity * cat.default_value("coolant_flow_lpm_per_kw")) if liquid else 0.0,
                "group": group,
                "x_m": r3(step * (at + 1) - (width / 2 if per_line < n else 0.0)),
                "y_m": r3(y - line * (depth + UNIT_GAP_M)),
            }
            if supplies:
                row["power_device"] = supplies[0]
                if supplies[1]:
                    row["power_device_b"] = supplies[1]
            b.units.append(row)
            units.append(UnitPlan(name, kind, float(capacity), heats[u], row))
    return units


def _electrical_fraction(unit: UnitPlan) -> float:
    name = "crah_fan_kw_per_kw_heat" if unit.kind == "crah" else "cdu_pump_kw_per_kw_heat"
    return cat.default_value(name)


def unit_electrical_kw(unit: UnitPlan) -> float:
    """Fans or pumps at the unit's full capacity (the analysis draws heat x the same fraction)."""
    return unit.capacity_kw * _electrical_fraction(unit)


def plant_heat_kw(unit: UnitPlan) -> float:
    """What the unit hands to its plant: its heat and its own fans' or pumps' power, as the balance adds."""
    return unit.heat_kw * (1.0 + _electrical_fraction(unit))


# ---------------------------------------------------------------- plants

# Below this share of its rating in the climate's hottest hour a dry cooler set would need more than twice
# the units; chillers with a water-side economiser (free cooling whenever the towers can) are the design.
DRY_COOLER_MIN_FRACTION = 0.5
# Below this share a chosen plant kind would need more than four times the units: the generator refuses.
MIN_PLANT_FRACTION = 0.25


def plant_water_c(b: Builder, unit_kind: str) -> tuple[float, float]:
    """(supply, return) of the facility water a plant serving ``unit_kind`` delivers, °C."""
    if unit_kind == "cdu":
        return water_temps_c("cdu", *b.liquid_loop_c())
    return water_temps_c("crah", 24.0, 40.0)  # a generated CRAH: 24 °C supply air


def sizing_hours(climate: str) -> tuple[np.ndarray, np.ndarray]:
    """The hours a plant is sized for: every hour of the climate's reference year and its design hours
    (``design_weather.DESIGN_CONDITIONS``: 0.4 %/1 % dry bulb, 0.4 % wet bulb, 20-year extreme)."""
    year = reference_year(climate)
    db, wb = DESIGN_CONDITIONS[climate].arrays()
    return np.concatenate([year.dry_bulb_c, db]), np.concatenate([year.wet_bulb_c, wb])


def hottest_hour_fraction(b: Builder, plant_kind: str, unit_kind: str) -> float:
    """Share of its rating a plant of ``plant_kind`` serving ``unit_kind`` carries in the worst of the
    climate's sizing hours (at most 1: a plant is never counted above its rating)."""
    db, wb = sizing_hours(b.climate)
    worst = plant_hottest_hour_fraction(plant_kind, *plant_water_c(b, unit_kind), db, wb)
    return min(1.0, worst)


def plant_cop(kind: str) -> float:
    """The rated COP a generated plant of ``kind`` carries (its ``cop`` field)."""
    if kind == "chiller":
        return cat.default_value("chiller_cop")
    if kind == "air-chiller":
        return cat.default_value("air_chiller_cop")
    return DRY_COOLER_COP  # dry and adiabatic coolers: fans only


def design_cop(b: Builder, kind: str, unit_kind: str) -> float:
    """The COP a plant draws its electrical rating at: an air-cooled chiller's at the hottest sizing hour
    (its COP falls with the entering air), the rated one otherwise."""
    cop = plant_cop(kind)
    if kind != "air-chiller":
        return cop
    db, _ = sizing_hours(b.climate)
    return float(air_chiller_cop(cop, plant_water_c(b, unit_kind)[0], float(db.max())))


_TAGS = {"chiller": "CHL", "air-chiller": "ACH", "dry-cooler": "DRY", "adiabatic-cooler": "ADB"}
_KIND_WORDS = {
    "chiller": "water-cooled chillers on open towers",
    "air-chiller": "air-cooled chillers (closed loop)",
    "dry-cooler": "dry coolers (closed loop)",
    "adiabatic-cooler": "dry coolers with adiabatic assist",
}


def plant_kinds(b: Builder) -> tuple[tuple[str, float], tuple[str, float]]:
    """((kind, hottest-hour fraction) of the liquid loop's plants, the same of the air loop's), by the
    builder's ``heat_rejection``; records the choice in ``b.cooling_notes`` once."""
    chosen = HEAT_REJECTION[b.heat_rejection]
    if chosen is None:
        dry = hottest_hour_fraction(b, "dry-cooler", "cdu")
        liquid = "dry-cooler" if dry >= DRY_COOLER_MIN_FRACTION else "chiller"
        chosen = (liquid, "chiller")
        why = (
            f"dry coolers keep {dry:.0%} of their rating in {b.climate}'s hottest design hour"
            if liquid == "dry-cooler"
            else f"dry coolers would keep only {dry:.0%} of their rating in {b.climate}'s hottest design hour"
        )
        note = (
            f"heat rejection chosen for the climate: liquid loop on {_KIND_WORDS[liquid]} ({why}), "
            f"air loop on {_KIND_WORDS['chiller']}"
        )
    else:
        note = (
            f"heat rejection {b.heat_rejection}: liquid loop on {_KIND_WORDS[chosen[0]]}, "
            f"air loop on {_KIND_WORDS[chosen[1]]}"
        )
    out = []
    for kind, unit_kind in zip(chosen, ("cdu", "crah"), strict=True):
        fraction = hottest_hour_fraction(b, kind, unit_kind)
        if fraction < MIN_PLANT_FRACTION:
            raise GeneratorError(
                "heat_rejection",
                f"{_KIND_WORDS[kind]} keep {fraction:.0%} of their rating in {b.climate}'s hottest design "
                f"hour ({sizing_hours(b.climate)[0].max():.1f} °C): choose another heat rejection or a warmer "
                "facility_water class",
            )
        out.append((kind, max(fraction, MIN_PLANT_FRACTION)))
    if b.facility_water is not None:
        note += f"; facility water {b.facility_water} ({plant_water_c(b, 'cdu')[0]:.0f} °C supply)"
    if note not in b.cooling_notes:
        b.cooling_notes.append(note)
    return out[0], out[1]


@dataclass
class PlantPlan:
    name: str
    kind: str  # a cooling plant kind (facility.year.PLANT_KINDS)
    capacity_kw: float
    cop: float
    heat_kw: float = 0.0
    design_cop: float | None = None  # the COP at the hottest sizing hour, when below ``cop``

    @property
    def electrical_kw(self) -> float:
        """Compressors or fans at full capacity, at the hottest sizing hour's COP."""
        return self.capacity_kw / (self.design_cop or self.cop)


def _lpt(heats: list[float], n: int) -> tuple[list[int], list[float]]:
    """Largest heat first onto the least loaded plant: plant index per unit, heat per plant."""
    loads = [0.0] * n
    where = [0] * len(heats)
    for i in sorted(range(len(heats)), key=lambda i: -heats[i]):
        p = min(range(n), key=lambda p: loads[p])
        where[i] = p
        loads[p] += heats[i]
    return where, loads


def building_plants(b: Builder, bname: str, units: list[UnitPlan]) -> list[PlantPlan]:
    """The plants of the CDUs and of the CRAHs of one building (kinds by ``plant_kinds``; N, N+1 or 2N
    sets, by the builder's ``cooling_redundancy``); sets each unit's plant.

    A plant takes its units' heat and their fans' and pumps' power (``plant_heat_kw``). Plant size:
    ``PLANT_KW`` blocks, smaller for a building with less heat (to 500 kW, at least ``PLANT_MIN_KW``). Count: ``ceil(heat / size)`` (N), one more
    (N+1) or twice it (2N), more when the units' heat cannot be shared
    out without a plant over its capacity.
    """
    plants: list[PlantPlan] = []
    (cdu_kind, cdu_fraction), (crah_kind, crah_fraction) = plant_kinds(b)
    cdu_tag = _TAGS[cdu_kind] + ("-DLC" if cdu_kind == crah_kind else "")
    cdu_plant = ("cdu", cdu_kind, cdu_tag, plant_cop(cdu_kind), cdu_fraction)
    crah_plant = ("crah", crah_kind, _TAGS[crah_kind], plant_cop(crah_kind), crah_fraction)
    for unit_kind, plant_kind, tag, cop, hot_fraction in (cdu_plant, crah_plant):
        served = [u for u in units if u.kind == unit_kind]
        heats = [plant_heat_kw(u) for u in served]
        heat = sum(heats)
        if not served:
            continue
        size = min(PLANT_KW, max(PLANT_MIN_KW, ceil_to(heat, 500.0)))
        # a unit is piped to one plant: each plant takes the largest unit's heat in the hottest hour
        size = max(size, ceil_to(max(heats) / hot_fraction, 500.0))
        hot_size = size * hot_fraction  # what one plant rejects in the hottest hour
        n = redundant_count(math.ceil(heat * b.margin_factor / hot_size - 1e-9), b.cooling_redundancy)
        busy = sum(1 for h in heats if h > 0)
        needed = math.ceil(heat / hot_size - 1e-9)
        plain = redundant_count(needed, b.cooling_redundancy)
        if n > max(busy, plain):
            # The margin would add a plant no unit is piped to, which takes no heat (heat.plant_loops: it is
            # on a loop of its own): the margin goes into larger plants instead, the working ones taking
            # heat × margin in the hottest hour.
            n = max(busy, plain)
            working = max(1, needed + n - plain)
            size = ceil_to(heat * b.margin_factor / (working * hot_fraction), 500.0)
            hot_size = size * hot_fraction
        while True:
            where, loads = _lpt(heats, n)
            if max(loads) <= hot_size + 1e-9 or n >= busy:
                break
            n += 1
        names = [f"{bname}-{tag}-{p + 1:02d}" for p in range(n)]
        rated = design_cop(b, plant_kind, unit_kind)
        mine = [PlantPlan(names[p], plant_kind, size, cop, loads[p], rated) for p in range(n)]
        for u, p in zip(served, where, strict=True):
            u.row["plant"] = names[p]
        plants.extend(mine)
    return plants


def add_plants(
    b: Builder, bname: str, plants: list[PlantPlan], supplies: list[tuple[str, str | None]]
) -> None:
    """The plants' rows, each on its (A, B) mechanical switchboards."""
    for p, (supply_a, supply_b) in zip(plants, supplies, strict=True):
        row: Row = {
            "name": p.name,
            "kind": p.kind,
            "building": bname,
            "capacity_kw": p.capacity_kw,
            "cop": p.cop,
            "restart_minutes": cat.default_value("chiller_restart_minutes"),
            "power_device": supply_a,
        }
        if supply_b:
            row["power_device_b"] = supply_b
        b.plants.append(row)
