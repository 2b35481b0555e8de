"""Closed-loop heat rejection, vectorised over hours: air-cooled chillers and dry coolers with adiabatic assist.

Each function is one equation of docs/model.md ("Heat rejection choices"), with its source there.
Temperatures in °C, powers and heat in kW, water in litres per hour; an argument may be a scalar or an array
over the hours.

* ``air-chiller``: an air-cooled chiller (closed loop, no water) with an integrated free-cooling coil. Its
  COP follows a fixed fraction of the Carnot COP between the evaporating refrigerant (leaving water − an
  evaporator approach) and the condensing refrigerant (entering air + a condensing approach, held above a
  head-pressure floor), the fraction calibrated so that the COP at the AHRI 550/590 rating point (6.67 °C
  leaving water, 35 °C air) is the plant's rated COP (ASHRAE 90.1-2019 Table 6.8.1-3 minimum: 2.96). The
  free-cooling coil takes the share of the heat the outdoor air can (``economiser_fraction`` against the
  dry bulb + the dry cooler approach); the compressors take the rest.
* ``adiabatic-cooler``: a dry cooler whose entering air is precooled by wetted pads or sprays when the dry
  coil at full fan speed cannot reject the heat and the dry bulb is above the switch-over temperature: the
  air is cooled towards its wet bulb by the pads' saturation effectiveness, only as far as needed; the
  water evaporated is the sensible heat the air gave up, over the latent heat of water.
"""

from __future__ import annotations

import numpy as np

from campus.analysis.facility import components as fc
from campus.catalog_data import default_value

KELVIN = 273.15


def _carnot_cop(evaporating_c: np.ndarray | float, condensing_c: np.ndarray | float) -> np.ndarray:
    te = np.asarray(evaporating_c, dtype=float) + KELVIN
    tc = np.asarray(condensing_c, dtype=float) + KELVIN
    return te / np.maximum(tc - te, 1.0)


def air_chiller_condensing_c(dry_bulb_c: np.ndarray | float) -> np.ndarray:
    """Condensing temperature of an air-cooled chiller: entering air + the condensing approach, held at or
    above the head-pressure floor, °C."""
    db = np.asarray(dry_bulb_c, dtype=float)
    return np.maximum(
        db + default_value("air_chiller_condensing_approach_k"), default_value("air_chiller_min_condensing_c")
    )


def air_chiller_cop(
    rated_cop: float, leaving_c: np.ndarray | float, dry_bulb_c: np.ndarray | float
) -> np.ndarray:
    """COP (compressors and condenser fans) of an air-cooled chiller at full load: ``rated_cop`` × the
    Carnot COP of this hour over the Carnot COP at the AHRI 550/590 rating point."""
    if rated_cop <= 0:
        raise ValueError("cop: must be > 0")
    evap_app = default_value("air_chiller_evaporator_approach_k")
    rating = _carnot_cop(
        default_value("air_chiller_rating_water_c") - evap_app,
        air_chiller_condensing_c(default_value("air_chiller_rating_air_c")),
    )
    now = _carnot_cop(np.asarray(leaving_c, dtype=float) - evap_app, air_chiller_condensing_c(dry_bulb_c))
    return rated_cop * now / rating


def air_chiller_capacity_kw(rated_kw: float, dry_bulb_c: np.ndarray | float) -> np.ndarray:
    """Capacity of an air-cooled chiller: its rating up to the 35 °C rating air, falling by the derate
    per K above it (never below zero), kW."""
    over = np.maximum(np.asarray(dry_bulb_c, dtype=float) - default_value("air_chiller_rating_air_c"), 0.0)
    return rated_kw * np.clip(1.0 - default_value("air_chiller_capacity_derate_per_k") * over, 0.0, 1.0)


def free_cooling_fraction(dry_bulb_c: np.ndarray | float, supply_c: float, return_c: float) -> np.ndarray:
    """Share of the heat an air-side free-cooling coil takes: the returning water is cooled towards the dry
    bulb + the dry cooler approach (``economiser_fraction`` with the dry bulb in place of the wet bulb)."""
    return fc.economiser_fraction(dry_bulb_c, supply_c, return_c, default_value("dry_cooler_approach_k"), 0.0)


def air_chiller_year(
    heat_kw: float | np.ndarray,
    rated_kw: float,
    rated_cop: float,
    supply_c: float,
    return_c: float,
    dry_bulb_c: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(power, margin, water, free-cooling share) of an air-cooled chiller plant over the hours: compressors
    for what the free-cooling coil cannot take, condenser fans of the coil (``air_chiller_fan_share`` of the
    rated input, affinity laws), chilled-water pumps; no water."""
    db = np.asarray(dry_bulb_c, dtype=float)
    q = np.broadcast_to(np.asarray(heat_kw, dtype=float), db.shape).astype(float)  # per hour or one figure
    free = free_cooling_fraction(db, supply_c, return_c)
    q_chiller = (1.0 - free) * q
    cap = air_chiller_capacity_kw(rated_kw, db)
    carried = np.minimum(q_chiller, cap)
    compressor = carried / air_chiller_cop(rated_cop, supply_c, db)
    fan_design_kw = default_value("air_chiller_fan_share") * rated_kw / rated_cop
    coil_fans = fc.affinity_power_kw(fan_design_kw, free * q / rated_kw) if rated_kw > 0 else 0.0 * q
    chw_pump = fc.affinity_power_kw(
        default_value("chw_pump_w_per_gpm") * fc.water_flow_gpm(rated_kw, return_c - supply_c) / 1000.0,
        q / rated_kw if rated_kw > 0 else q,
    )
    power = compressor + coil_fans + chw_pump
    margin = cap - q_chiller
    return power, margin, np.zeros_like(q), free


def adiabatic_inlet_c(dry_bulb_c: np.ndarray | float, wet_bulb_c: np.ndarray | float) -> np.ndarray:
    """Air leaving fully wetted pads: dry bulb − effectiveness × (dry bulb − wet bulb), °C."""
    db = np.asarray(dry_bulb_c, dtype=float)
    return db - default_value("adiabatic_effectiveness") * (db - np.asarray(wet_bulb_c, dtype=float))


def adiabatic_capacity_kw(
    rated_kw: float, supply_c: float, return_c: float, dry_bulb_c: np.ndarray, wet_bulb_c: np.ndarray
) -> np.ndarray:
    """Heat an adiabatic dry cooler can reject at full fan speed, kW: against the precooled air when the dry
    bulb is at or above the switch-over temperature, against the dry bulb below it."""
    db = np.asarray(dry_bulb_c, dtype=float)
    wet_allowed = db >= default_value("adiabatic_switch_c")
    air_c = np.where(wet_allowed, adiabatic_inlet_c(db, wet_bulb_c), db)
    return fc.dry_cooler_capacity_kw(rated_kw, supply_c, return_c, air_c)


def adiabatic_year(
    heat_kw: float | np.ndarray,
    rated_kw: float,
    fan_design_kw: float,
    supply_c: float,
    return_c: float,
    dry_bulb_c: np.ndarray,
    wet_bulb_c: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(power, margin, water, free-cooling share) of a dry cooler with adiabatic assist over the hours.

    Dry while the coil can reject the heat (fans slow down, affinity laws). Otherwise the fans run at full
    speed and, at or above the switch-over temperature, the pads precool the air just enough: to
    ``t = return − heat × design ITD / rating`` and never below the pads' reach. Water, L per hour: the air
    flow's heat capacity (rating / ``dry_cooler_air_rise_k``) × the precooling × 3,600 / h_fg."""
    db = np.asarray(dry_bulb_c, dtype=float)
    wb = np.asarray(wet_bulb_c, dtype=float)
    q = np.broadcast_to(np.asarray(heat_kw, dtype=float), db.shape).astype(float)  # per hour or one figure
    q_dry = fc.dry_cooler_capacity_kw(rated_kw, supply_c, return_c, db)
    q_max = adiabatic_capacity_kw(rated_kw, supply_c, return_c, db, wb)
    wet = (q > q_dry) & (db >= default_value("adiabatic_switch_c"))
    design_itd = return_c - (supply_c - default_value("dry_cooler_approach_k"))
    needed_air_c = return_c - q * design_itd / rated_kw if rated_kw > 0 else db
    precool_k = np.where(wet, np.clip(db - needed_air_c, 0.0, db - adiabatic_inlet_c(db, wb)), 0.0)
    air_kw_per_k = rated_kw / default_value("dry_cooler_air_rise_k")
    water = air_kw_per_k * precool_k * 3600.0 / default_value("water_latent_heat_kj_per_kg")
    load = np.divide(q, q_dry, out=np.where(q > 0, 1.0, 0.0), where=q_dry > 0)
    fans = fc.affinity_power_kw(fan_design_kw, np.where(q > q_dry, 1.0, load))
    loop_pump = fc.affinity_power_kw(
        default_value("cw_pump_w_per_gpm") * fc.water_flow_gpm(rated_kw, return_c - supply_c) / 1000.0,
        q / rated_kw if rated_kw > 0 else q,
    )
    margin = q_max - q
    free = np.where(margin >= 0, 1.0, np.clip(q_max / np.maximum(q, 1e-12), 0.0, 1.0))
    return fans + loop_pump, margin, water, free


def carried_per_kw(kind: str, supply_c: float, return_c: float, db: np.ndarray, wb: np.ndarray) -> np.ndarray:
    """Heat a plant of ``kind`` rated 1 kW can take in each hour (the chillers carry only what the free-
    cooling coil cannot): the closed-loop kinds of ``year.hottest_hour_fraction``."""
    if kind == "air-chiller":
        free = free_cooling_fraction(db, supply_c, return_c)
        cap = air_chiller_capacity_kw(1.0, db)
        with np.errstate(divide="ignore"):
            return np.where(free >= 1.0, np.inf, cap / np.maximum(1.0 - free, 1e-12))
    if kind == "adiabatic-cooler":
        return adiabatic_capacity_kw(1.0, supply_c, return_c, db, wb)
    raise ValueError(f"kind: {kind!r} is not a closed-loop kind")
