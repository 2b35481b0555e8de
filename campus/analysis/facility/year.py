"""Facility power, PUE, water and cooling margin of a campus for every hour of a weather year.

facility(h) = IT + conversion losses(h) + cooling(h), each term from the inventory:

* IT and its heat: ``cooling.cooling_balance`` (every watt of IT is heat, placed on the cooling units).
* Cooling units (CRAH fans, CDU / rear-door / tank pumps): the catalog's fan or pump power per kW of heat
  is the design point at the unit's rated heat; below it the unit slows down (affinity laws, P ∝ s³).
* Plants by ``kind``: ``chiller`` = water-cooled centrifugal chillers (EnergyPlus DOE-2 curves, rated at the
  plant's ``cop``) on open cooling towers with an integrated water-side economiser; ``dry-cooler`` = dry
  coolers whose capacity falls as the dry-bulb approaches the returning water (fans rated at
  capacity / ``cop``); ``cooling-tower`` = open towers serving the loop through a plate heat exchanger
  (fans rated at capacity / ``cop``); ``air-chiller`` = air-cooled chillers with a free-cooling coil (closed
  loop, no water) and ``adiabatic-cooler`` = dry coolers whose air is precooled by wetted pads in their hot
  hours (``facility.rejection``). Each has its loop pumps; chillers their chilled- and
  condenser-water pumps and tower fans (ASHRAE 90.1 Appendix G figures). A plant's water temperatures
  come from its units' supply and return temperatures.
* Conversion losses: every live device of the power chain has a no-load + proportional + square-law
  loss curve that passes through its inventory efficiency at the reference load; its load in an hour is
  its design-point load (``power.design_load_rollup``: no utility tripped on its capacity) scaled by the chain's delivered load (IT + mechanical)
  in that hour against the design point.
* A plant holding fitted coefficients (``fixed_kw``, ``eir_ref``, ``eir_per_k``, from a calibration on its
  measured power) draws ``fitted_plant_power_kw`` instead of its kind's equations; its capacity, margin,
  water and free cooling stay the kind's.

docs/model.md ("Facility physics") has each equation with its unit and source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from campus.analysis.cooling import cooling_balance, unit_electrical_fraction
from campus.analysis.facility import components as fc
from campus.analysis.facility import rejection as rj
from campus.analysis.heat import AIR_UNIT_KINDS
from campus.analysis.power import design_load_rollup
from campus.analysis.snapshot import CampusSnapshot, CoolingPlantSnap, CoolingUnitSnap
from campus.catalog_data import default_value

PLANT_KINDS = ("chiller", "dry-cooler", "cooling-tower", "air-chiller", "adiabatic-cooler")
FIT_REFERENCE_C = 20.0  # outdoor dry bulb a fitted plant's electric input ratio is stated at, °C (a choice)


def fitted_plant_power_kw(
    fixed_kw: float, eir_ref: float, eir_per_k: float, heat_kw: np.ndarray, dry_bulb_c: np.ndarray
) -> np.ndarray:
    """A fitted plant's power, kW: fixed + Q · (eir_ref + eir_per_k · (T − 20 °C)), a first-order inverse
    model (fans and pumps that run whatever the load; an electric input ratio rising with the outdoor
    temperature, the DOE-2 chiller curve EIR-f(T) to first order). Never below zero."""
    q = np.asarray(heat_kw, dtype=float)
    t = np.asarray(dry_bulb_c, dtype=float)
    return np.maximum(fixed_kw + q * (eir_ref + eir_per_k * (t - FIT_REFERENCE_C)), 0.0)


@dataclass(frozen=True)
class PlantYear:
    """One plant over the hours: heat it takes, the power it draws and what it lacks."""

    id: int
    name: str
    kind: str
    capacity_kw: float
    supply_c: float  # water the plant delivers to its units
    return_c: float  # water coming back
    heat_kw: float  # heat its units hand it (their IT heat plus their fans and pumps)
    power_kw: np.ndarray  # compressors, fans, pumps
    margin_kw: np.ndarray  # heat it could still take (< 0: heat it cannot reject)
    water_l: np.ndarray
    free_cooling: np.ndarray  # share of the heat rejected without compressors, 0..1

    def annual(self) -> dict:
        short = self.margin_kw < 0
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "capacity_mw": self.capacity_kw / 1000.0,
            "heat_mw": self.heat_kw / 1000.0,
            "supply_c": self.supply_c,
            "return_c": self.return_c,
            "mean_power_mw": float(self.power_kw.mean()) / 1000.0 if self.power_kw.size else 0.0,
            "peak_power_mw": float(self.power_kw.max()) / 1000.0 if self.power_kw.size else 0.0,
            "hours_short": int(short.sum()),
            "free_cooling_hours": int((self.free_cooling >= 1.0).sum()),
            "water_m3": float(self.water_l.sum()) / 1000.0,
        }


@dataclass(frozen=True)
class FacilityYear:
    """Hourly series (one value per hour) and their annual figures."""

    dry_bulb_c: np.ndarray
    wet_bulb_c: np.ndarray
    it_mw: np.ndarray
    facility_mw: np.ndarray
    pue: np.ndarray
    water_l: np.ndarray
    cooling_margin_mw: np.ndarray  # spare heat rejection; < 0: the heat the plants cannot reject
    losses_mw: np.ndarray  # conversion losses of the power chain
    cooling_mw: np.ndarray  # cooling units' fans and pumps plus the plants
    units_mw: float  # the cooling units' share of cooling_mw (no weather in it)
    plants: tuple[PlantYear, ...] = field(default_factory=tuple)

    @property
    def hours(self) -> int:
        return int(self.it_mw.size)

    @property
    def annual_energy_mwh(self) -> float:
        return float(self.facility_mw.sum())  # each value is one hour

    @property
    def annual_it_energy_mwh(self) -> float:
        return float(self.it_mw.sum())

    @property
    def energy_weighted_pue(self) -> float:
        it = self.annual_it_energy_mwh
        return self.annual_energy_mwh / it if it > 0 else float("nan")

    @property
    def peak_facility_mw(self) -> float:
        return float(self.facility_mw.max()) if self.hours else 0.0

    @property
    def peak_hour(self) -> int:
        return int(self.facility_mw.argmax()) if self.hours else 0

    @property
    def wue_l_per_kwh(self) -> float:
        """The Green Grid WUE: site water over IT energy, L/kWh."""
        it_kwh = self.annual_it_energy_mwh * 1000.0
        return float(self.water_l.sum()) / it_kwh if it_kwh > 0 else 0.0

    @property
    def hours_short(self) -> int:
        """Hours in which some plant cannot reject the heat it is given."""
        return int((self.cooling_margin_mw < 0).sum())

    def annual(self) -> dict:
        return {
            "hours": self.hours,
            "pue": self.energy_weighted_pue,
            "max_pue": float(np.nanmax(self.pue)) if self.hours and self.annual_it_energy_mwh > 0 else None,
            "peak_facility_mw": self.peak_facility_mw,
            "peak_hour": self.peak_hour,
            "peak_dry_bulb_c": float(self.dry_bulb_c[self.peak_hour]) if self.hours else None,
            "mean_facility_mw": float(self.facility_mw.mean()) if self.hours else 0.0,
            "annual_energy_mwh": self.annual_energy_mwh,
            "annual_it_energy_mwh": self.annual_it_energy_mwh,
            "annual_losses_mwh": float(self.losses_mw.sum()),
            "annual_cooling_mwh": float(self.cooling_mw.sum()),
            "water_m3": float(self.water_l.sum()) / 1000.0,
            "wue_l_per_kwh": self.wue_l_per_kwh,
            "hours_short": self.hours_short,
            "min_cooling_margin_mw": float(self.cooling_margin_mw.min()) if self.hours else None,
            "plants": [p.annual() for p in self.plants],
        }


# ---------------------------------------------------------------- temperatures


def water_temps_c(kind: str, supply_temp_c: float, return_temp_c: float) -> tuple[float, float]:
    """(supply, return) of the facility water a unit of ``kind`` with these supply and return temperatures
    needs from its plant, °C: a CDU, rear door or tank takes facility water ``cdu_approach_k`` below its
    secondary loop; a CRAH takes chilled water ``crah_coil_approach_k`` below its supply air, returning
    ``chw_delta_t_k`` warmer."""
    if kind in AIR_UNIT_KINDS:
        supply = supply_temp_c - default_value("crah_coil_approach_k")
        return supply, supply + default_value("chw_delta_t_k")
    approach = default_value("cdu_approach_k")
    return supply_temp_c - approach, return_temp_c - approach


def unit_water_temps_c(u: CoolingUnitSnap) -> tuple[float, float]:
    """``water_temps_c`` of one cooling unit of the inventory."""
    return water_temps_c(u.kind, u.supply_temp_c, u.return_temp_c)


def plant_water_temps_c(units: list[tuple[CoolingUnitSnap, float]]) -> tuple[float, float]:
    """A plant delivers the coldest supply its units need; the return is their heat-weighted mean (a
    plant without units: the chilled-water defaults of a CRAH at 24 °C supply air)."""
    if not units:
        supply = 24.0 - default_value("crah_coil_approach_k")
        return supply, supply + default_value("chw_delta_t_k")
    temps = [(unit_water_temps_c(u), heat) for u, heat in units]
    supply = min(s for (s, _), _ in temps)
    total = sum(h for _, h in temps)
    ret = (
        sum(r * h for (_, r), h in temps) / total if total > 0 else sum(r for (_, r), _ in temps) / len(temps)
    )
    if ret <= supply:
        ret = supply + default_value("chw_delta_t_k")
    return supply, ret


# ---------------------------------------------------------------- plants


def _plant_year(
    p: CoolingPlantSnap,
    heat_kw: float,
    supply_c: float,
    return_c: float,
    dry_bulb_c: np.ndarray,
    wet_bulb_c: np.ndarray,
) -> PlantYear:
    cap = p.capacity_kw
    q = np.full(dry_bulb_c.shape, heat_kw)
    gpm_per = fc.water_flow_gpm
    if p.kind == "chiller":
        tower_app = default_value("tower_approach_k")
        free = fc.economiser_fraction(
            wet_bulb_c, supply_c, return_c, tower_app, default_value("economiser_hx_approach_k")
        )
        q_chiller = (1.0 - free) * q
        condenser_c = wet_bulb_c + tower_app
        compressor_kw, cap_avail = fc.chiller_power_kw(q_chiller, cap, p.cop, supply_c, condenser_c)
        margin = cap_avail - q_chiller
        rejected = q - np.maximum(-margin, 0.0) + compressor_kw
        rejected_design = cap * (1.0 + 1.0 / p.cop)
        cw_gpm = gpm_per(rejected_design, default_value("condenser_delta_t_k"))
        chw_pump = fc.affinity_power_kw(
            default_value("chw_pump_w_per_gpm") * gpm_per(cap, default_value("chw_delta_t_k")) / 1000.0,
            q / cap,
        )
        cw_pump = fc.affinity_power_kw(
            default_value("cw_pump_w_per_gpm") * cw_gpm / 1000.0, rejected / rejected_design
        )
        tower_fan = fc.affinity_power_kw(
            cw_gpm / default_value("tower_gpm_per_hp") * fc.HP_KW, rejected / rejected_design
        )
        power = compressor_kw + chw_pump + cw_pump + tower_fan
        water = fc.make_up_water_l(rejected)
    elif p.kind in ("dry-cooler", "cooling-tower"):
        if p.kind == "dry-cooler":
            q_max = fc.dry_cooler_capacity_kw(cap, supply_c, return_c, dry_bulb_c)
        else:
            q_max = fc.tower_capacity_kw(cap, supply_c, return_c, wet_bulb_c)
        margin = q_max - q
        load = np.divide(q, q_max, out=np.where(q > 0, 1.0, 0.0), where=q_max > 0)
        fans = fc.affinity_power_kw(cap / p.cop if p.cop > 0 else 0.0, load)
        loop_pump = fc.affinity_power_kw(
            default_value("cw_pump_w_per_gpm") * gpm_per(cap, return_c - supply_c) / 1000.0, q / cap
        )
        power = fans + loop_pump
        free = np.where(margin >= 0, 1.0, np.clip(q_max / np.maximum(q, 1e-12), 0.0, 1.0))
        water = fc.make_up_water_l(np.minimum(q, q_max)) if p.kind == "cooling-tower" else np.zeros_like(q)
    elif p.kind == "air-chiller":
        power, margin, water, free = rj.air_chiller_year(heat_kw, cap, p.cop, supply_c, return_c, dry_bulb_c)
    elif p.kind == "adiabatic-cooler":
        power, margin, water, free = rj.adiabatic_year(
            heat_kw, cap, cap / p.cop if p.cop > 0 else 0.0, supply_c, return_c, dry_bulb_c, wet_bulb_c
        )
    else:
        raise ValueError(f"cooling plant {p.name}: unknown kind {p.kind!r} (one of {', '.join(PLANT_KINDS)})")
    if p.fitted is not None:
        power = fitted_plant_power_kw(*p.fitted, q, dry_bulb_c)
    return PlantYear(
        id=p.id,
        name=p.name,
        kind=p.kind,
        capacity_kw=cap,
        supply_c=supply_c,
        return_c=return_c,
        heat_kw=heat_kw,
        power_kw=power,
        margin_kw=margin,
        water_l=water,
        free_cooling=free,
    )


def plant_power_kw(
    p: CoolingPlantSnap,
    heat_kw: np.ndarray,
    supply_c: float,
    return_c: float,
    dry_bulb_c: np.ndarray,
    wet_bulb_c: np.ndarray,
) -> np.ndarray:
    """A plant's electrical power (compressors, fans, pumps), kW, at a heat load and weather per interval:
    the same equations as the year (calibration sets it against measured plant power)."""
    db, wb = _weather(dry_bulb_c, wet_bulb_c)
    q = np.asarray(heat_kw, dtype=float).ravel()
    if q.shape != db.shape:
        raise ValueError("heat_kw: must have one value per interval of dry_bulb_c")
    return _plant_year(p, q, supply_c, return_c, db, wb).power_kw  # type: ignore[arg-type]


# ---------------------------------------------------------------- the power chain


@dataclass(frozen=True)
class ChainLosses:
    """Losses of the chain at a load ratio r (delivered load / design-point load): a0 + a1·r + a2·r², kW."""

    a0: float
    a1: float
    a2: float
    design_load_kw: float  # IT plus mechanical load the chain delivers at the design point

    def at(self, delivered_kw: np.ndarray) -> np.ndarray:
        r = delivered_kw / self.design_load_kw if self.design_load_kw > 0 else np.zeros_like(delivered_kw)
        return self.a0 + self.a1 * r + self.a2 * r * r


def chain_losses(snap: CampusSnapshot) -> ChainLosses:
    """The chain's loss polynomial: each live device's loss curve at its design-point output."""
    chain = design_load_rollup(snap)  # the design's losses whatever the grid connection allows
    ref = default_value("loss_reference_load")
    a0 = a1 = a2 = 0.0
    for d in snap.power_devices:
        if d.id in chain.dead_devices or d.rated_kw <= 0:
            continue
        shares = fc.loss_shares(d.kind, d.efficiency)
        if shares is None or d.efficiency >= 1.0:
            continue
        c0, c1, c2 = fc.loss_coefficients(shares, d.efficiency, ref)
        x = chain.device_output_kw.get(d.id, 0.0) / d.rated_kw
        a0 += d.rated_kw * c0
        a1 += d.rated_kw * c1 * x
        a2 += d.rated_kw * c2 * x * x
    # what the chain delivers at the design point: what it draws less what its devices lose
    fixed_losses = sum(chain.device_load_kw.get(d, 0.0) - out for d, out in chain.device_output_kw.items())
    return ChainLosses(a0, a1, a2, chain.total_input_kw - fixed_losses)


# ---------------------------------------------------------------- the year


def _weather(dry_bulb_c, wet_bulb_c) -> tuple[np.ndarray, np.ndarray]:
    db = np.asarray(dry_bulb_c, dtype=float).ravel()
    wb = np.asarray(wet_bulb_c, dtype=float).ravel()
    if db.shape != wb.shape:
        raise ValueError("wet_bulb_c: must have one value per hour of dry_bulb_c")
    if not (np.isfinite(db).all() and np.isfinite(wb).all()):
        raise ValueError("dry_bulb_c: every hour must be a finite temperature")
    if (wb > db + 1e-6).any():
        raise ValueError("wet_bulb_c: the wet-bulb cannot exceed the dry-bulb")
    return db, wb


def facility_year(
    snap: CampusSnapshot,
    dry_bulb_c,
    wet_bulb_c,
    gpu_power_fraction: float = 1.0,
) -> FacilityYear:
    """Facility power, PUE, water and cooling margin for every hour of ``dry_bulb_c`` / ``wet_bulb_c``
    (°C, one value per hour, usually 8,760), with every GPU at ``gpu_power_fraction`` of its TDP."""
    db, wb = _weather(dry_bulb_c, wet_bulb_c)
    bal = cooling_balance(snap, gpu_power_fraction=gpu_power_fraction)
    it_kw = bal.heat_load_kw
    units = {u.id: u for u in snap.cooling_units}
    # cooling units: fans and pumps by the affinity laws around their rated heat
    units_kw = 0.0
    plant_units: dict[int, list[tuple[CoolingUnitSnap, float]]] = {}
    plant_heat: dict[int, float] = {}
    for ul in bal.units:
        u = units[ul.id]
        if ul.capacity_kw <= 0 or ul.heat_kw <= 0:
            p_unit = 0.0
        else:
            design_kw = unit_electrical_fraction(u.kind) * ul.capacity_kw
            p_unit = float(fc.affinity_power_kw(design_kw, ul.heat_kw / ul.capacity_kw))
        units_kw += p_unit
        if u.plant_id is not None:
            plant_units.setdefault(u.plant_id, []).append((u, ul.heat_kw))
            # the unit's fans or pumps end up as heat in the water it hands to the plant
            plant_heat[u.plant_id] = plant_heat.get(u.plant_id, 0.0) + ul.heat_kw + p_unit
    plants: list[PlantYear] = []
    for p in snap.cooling_plants:
        supply_c, return_c = plant_water_temps_c(plant_units.get(p.id, []))
        plants.append(_plant_year(p, plant_heat.get(p.id, 0.0), supply_c, return_c, db, wb))
    zeros = np.zeros_like(db)
    plants_kw = sum((p.power_kw for p in plants), zeros)
    cooling_kw = units_kw + plants_kw
    losses_kw = chain_losses(snap).at(it_kw + cooling_kw)
    facility_kw = it_kw + losses_kw + cooling_kw
    water = sum((p.water_l for p in plants), zeros)
    margins = [p.margin_kw for p in plants]
    if margins:
        stack = np.vstack(margins)
        shortfall = np.minimum(stack, 0.0).sum(axis=0)
        margin_kw = np.where(shortfall < 0, shortfall, stack.sum(axis=0))
    else:
        margin_kw = zeros
    it_arr = np.full_like(db, it_kw)
    with np.errstate(invalid="ignore", divide="ignore"):
        pue = np.where(it_arr > 0, facility_kw / np.where(it_arr > 0, it_arr, 1.0), np.nan)
    return FacilityYear(
        dry_bulb_c=db,
        wet_bulb_c=wb,
        it_mw=it_arr / 1000.0,
        facility_mw=facility_kw / 1000.0,
        pue=pue,
        water_l=water,
        cooling_margin_mw=margin_kw / 1000.0,
        losses_mw=losses_kw / 1000.0,
        cooling_mw=cooling_kw / 1000.0,
        units_mw=units_kw / 1000.0,
        plants=tuple(plants),
    )


def hottest_hour_fraction(kind: str, supply_c: float, return_c: float, dry_bulb_c, wet_bulb_c) -> float:
    """The least share of its rated capacity a plant of ``kind`` can carry over the hours given: the heat a
    plant rated 1 kW rejects in its worst hour, by the same equations ``_plant_year`` uses (a chiller plant
    counts its water-side economiser: the chillers carry only what the towers cannot). A design sizes its
    plants by it to reject its heat in every hour of its climate."""
    db, wb = _weather(dry_bulb_c, wet_bulb_c)
    if kind == "chiller":
        tower_app = default_value("tower_approach_k")
        free = fc.economiser_fraction(
            wb, supply_c, return_c, tower_app, default_value("economiser_hx_approach_k")
        )
        cap = np.asarray(fc.chiller_capacity_kw(1.0, supply_c, wb + tower_app), dtype=float)
        with np.errstate(divide="ignore"):
            carried = np.where(free >= 1.0, np.inf, cap / np.maximum(1.0 - free, 1e-12))
    elif kind == "dry-cooler":
        carried = fc.dry_cooler_capacity_kw(1.0, supply_c, return_c, db)
    elif kind == "cooling-tower":
        carried = fc.tower_capacity_kw(1.0, supply_c, return_c, wb)
    elif kind in ("air-chiller", "adiabatic-cooler"):
        carried = rj.carried_per_kw(kind, supply_c, return_c, db, wb)
    else:
        raise ValueError(f"kind: must be one of {', '.join(PLANT_KINDS)}")
    return float(np.min(carried)) if np.size(carried) else 1.0
