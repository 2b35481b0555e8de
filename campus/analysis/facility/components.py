"""Component models of the facility, vectorised over hours (numpy arrays of °C, kW).

Each function is one equation of docs/model.md ("Facility physics"), with its source there. Temperatures in
°C, powers and heat in kW, water in litres; an argument may be a scalar or an array over the hours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from campus.catalog_data import default_value

ArrayLike = np.ndarray | float

# ---------------------------------------------------------------- electrical losses


@dataclass(frozen=True)
class LossShares:
    """How a device's losses at the reference load split into no-load, proportional and square-law parts
    (Rasmussen, Electrical Efficiency Modeling for Data Centers, Schneider Electric White Paper 113)."""

    no_load: float
    proportional: float
    square: float


# Transformers: core (no-load) loss equals copper (I²R) loss at the 50 % load the DOE rates them at, the
# load of maximum efficiency the standard's levels are designed around.
TRANSFORMER = LossShares(0.5, 0.0, 0.5)
# Double-conversion UPS: a flat curve, ~94.5 % at 25 % load, 96 % at 50 %, 96.5 % at 100 % (vendor
# curves, e.g. Schneider Galaxy VX, Vertiv Liebert EXL S1 datasheets): mostly no-load and proportional.
UPS_DOUBLE_CONVERSION = LossShares(0.45, 0.45, 0.10)
# Eco mode (static bypass): the rectifier and inverter idle; what is left is mostly fixed.
UPS_ECO = LossShares(0.6, 0.2, 0.2)
# Conductors (PDU without transformer, busway, RPP, switchgear buses): I²R only.
CONDUCTOR = LossShares(0.0, 0.0, 1.0)
# Power-electronic converters (a solid-state transformer, a sidecar rack's rectifier shelves): switching and
# control losses fixed or proportional, a small conduction part; taken as the double-conversion UPS's shape
# (estimate; docs/model.md, "DC power architectures").
POWER_ELECTRONICS = UPS_DOUBLE_CONVERSION

SHARES_BY_KIND = {
    "substation": TRANSFORMER,
    "transformer": TRANSFORMER,
    "switchgear": CONDUCTOR,
    "pdu": CONDUCTOR,
    "busway": CONDUCTOR,
    "rpp": CONDUCTOR,
    "sst": POWER_ELECTRONICS,
    "rectifier": POWER_ELECTRONICS,
    "dc-busway": CONDUCTOR,
}


def ups_mode(efficiency: float) -> str:
    """``"eco"`` for a UPS rated at or above ``ups_eco_efficiency``, else ``"double-conversion"``."""
    return "eco" if efficiency >= default_value("ups_eco_efficiency") else "double-conversion"


def loss_shares(kind: str, efficiency: float) -> LossShares | None:
    """The loss curve of a device kind (None: the device has no conversion loss, e.g. a generator)."""
    if kind == "ups":
        return UPS_ECO if ups_mode(efficiency) == "eco" else UPS_DOUBLE_CONVERSION
    return SHARES_BY_KIND.get(kind)


def loss_coefficients(
    shares: LossShares, efficiency: float, reference_load: float
) -> tuple[float, float, float]:
    """(c0, c1, c2) of loss / rating = c0 + c1·x + c2·x², x = output / rating, such that the device's
    efficiency at ``reference_load`` is the inventory's ``efficiency``."""
    if not 0.0 < efficiency <= 1.0:
        raise ValueError("efficiency: must be > 0 and <= 1")
    loss_ref = reference_load * (1.0 / efficiency - 1.0)  # per unit of rating
    return (
        shares.no_load * loss_ref,
        shares.proportional * loss_ref / reference_load,
        shares.square * loss_ref / reference_load**2,
    )


def device_loss_kw(
    rated_kw: float, coefficients: tuple[float, float, float], output_kw: ArrayLike
) -> ArrayLike:
    """Loss of one device at ``output_kw``: rating × (c0 + c1·x + c2·x²), kW."""
    c0, c1, c2 = coefficients
    x = np.asarray(output_kw) / rated_kw
    return rated_kw * (c0 + c1 * x + c2 * x * x)


# ---------------------------------------------------------------- chillers

# EnergyPlus Chiller:Electric:EIR "DOE-2 Centrifugal/5.50COP" (EnergyPlus DataSets/Chillers.idf; the same
# record as the Modelica Buildings library's DOE_2_Centrifugal_5_50COP). Biquadratic in leaving chilled
# water temperature T_e and entering condenser water temperature T_c (°C):
#   f(T_e, T_c) = a + b·T_e + c·T_e² + d·T_c + e·T_c² + f·T_e·T_c
# inputs clamped to the curve's range (as EnergyPlus does). Reference: T_e 6.67 °C, T_c 29.4 °C.
CHILLER_CAPFT = (0.257896, 0.0389016, -0.000217080, 0.0468684, -0.000942840, -0.000343440)
CHILLER_EIRFT = (0.933884, -0.0582120, 0.00450036, 0.00243000, 0.000486000, -0.00121500)
CHILLER_EIRFPLR = (0.222903, 0.313387, 0.463710)  # a + b·PLR + c·PLR²
CHILLER_LCHWT_RANGE_C = (5.0, 10.0)
CHILLER_ECWT_RANGE_C = (24.0, 35.0)
CHILLER_PLR_MIN = 0.1


def _biquadratic(coef: tuple[float, ...], te: ArrayLike, tc: ArrayLike) -> ArrayLike:
    a, b, c, d, e, f = coef
    te = np.clip(te, *CHILLER_LCHWT_RANGE_C)
    tc = np.clip(tc, *CHILLER_ECWT_RANGE_C)
    return a + b * te + c * te * te + d * tc + e * tc * tc + f * te * tc


def chiller_capacity_kw(rated_kw: float, leaving_c: ArrayLike, condenser_c: ArrayLike) -> ArrayLike:
    """Available cooling capacity: rated × CAPFT(T_e, T_c), kW."""
    return rated_kw * _biquadratic(CHILLER_CAPFT, leaving_c, condenser_c)


def chiller_power_kw(
    load_kw: ArrayLike, rated_kw: float, cop: float, leaving_c: ArrayLike, condenser_c: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """(compressor power, available capacity), kW, of a chiller carrying ``load_kw``:
    P = CAP(T) · EIRFT(T) · EIRFPLR(PLR) / COP_ref, PLR = load / CAP(T) (capped at 1: heat above the
    capacity is not removed; below the minimum PLR the chiller false-loads)."""
    if cop <= 0:
        raise ValueError("cop: must be > 0")
    cap = np.asarray(chiller_capacity_kw(rated_kw, leaving_c, condenser_c), dtype=float)
    load = np.asarray(load_kw, dtype=float)
    plr = np.clip(np.divide(load, cap, out=np.ones_like(cap * load), where=cap > 0), 0.0, 1.0)
    a, b, c = CHILLER_EIRFPLR
    p_eff = np.maximum(plr, CHILLER_PLR_MIN)
    eir = _biquadratic(CHILLER_EIRFT, leaving_c, condenser_c) * (a + b * p_eff + c * p_eff * p_eff)
    power = np.where(load > 0, cap * eir / cop, 0.0)
    return power, cap


def economiser_fraction(
    wet_bulb_c: ArrayLike, supply_c: float, return_c: float, tower_approach_k: float, hx_approach_k: float
) -> np.ndarray:
    """Share of the load a water-side economiser takes: the tower's water (wet-bulb + approach) cools the
    returning water through a plate heat exchanger (+ its approach) as far as it can; 1 = the chillers are
    off, 0 = no free cooling (ASHRAE 90.1 §6.5.1.2 integrated economiser)."""
    precooled_c = np.asarray(wet_bulb_c, dtype=float) + tower_approach_k + hx_approach_k
    span = return_c - supply_c
    if span <= 0:
        return np.where(precooled_c <= supply_c, 1.0, 0.0)
    return np.clip((return_c - precooled_c) / span, 0.0, 1.0)


# ---------------------------------------------------------------- heat rejection to the outdoor air


def dry_cooler_capacity_kw(
    rated_kw: float, supply_c: float, return_c: float, dry_bulb_c: ArrayLike
) -> np.ndarray:
    """Heat a dry cooler can reject at full fan speed, kW: proportional to the inlet temperature difference
    (water in − dry-bulb), rated at the design dry-bulb = supply − approach; zero once the dry-bulb reaches
    the returning water (the sensible coil equation Q = UA·ΔT at fixed airflow)."""
    approach = default_value("dry_cooler_approach_k")
    design_itd = return_c - (supply_c - approach)
    itd = np.maximum(return_c - np.asarray(dry_bulb_c, dtype=float), 0.0)
    return rated_kw * itd / design_itd


def tower_capacity_kw(rated_kw: float, supply_c: float, return_c: float, wet_bulb_c: ArrayLike) -> np.ndarray:
    """Heat an open cooling tower (through a plate heat exchanger) can reject at full fan speed, kW: as the
    dry cooler but against the wet-bulb, rated at the design wet-bulb = supply − HX approach − tower
    approach (Merkel: the driving force is the water-to-wet-bulb difference)."""
    approach = default_value("tower_approach_k") + default_value("economiser_hx_approach_k")
    design_itd = return_c - (supply_c - approach)
    itd = np.maximum(
        return_c - default_value("economiser_hx_approach_k") - np.asarray(wet_bulb_c, dtype=float), 0.0
    )
    return rated_kw * itd / design_itd


def affinity_power_kw(design_kw: ArrayLike, flow_fraction: ArrayLike) -> np.ndarray:
    """Fan or pump power at a fraction of design flow: P = P_design · s³ (affinity laws), the speed s held
    between the drive's minimum ``fan_pump_min_speed`` and 1 (0 when nothing flows)."""
    s = np.asarray(flow_fraction, dtype=float)
    speed = np.clip(s, default_value("fan_pump_min_speed"), 1.0)
    return np.where(s > 0, np.asarray(design_kw) * speed**3, 0.0)


def make_up_water_l(heat_rejected_kw: ArrayLike, hours: float = 1.0) -> np.ndarray:
    """Cooling-tower make-up water over ``hours``, L: evaporation (the heat leaves as latent heat,
    Q / h_fg) plus blowdown, evaporation / (cycles − 1); drift is neglected (< 0.02 % of flow with
    modern eliminators)."""
    h_fg = default_value("water_latent_heat_kj_per_kg")
    cycles = default_value("cycles_of_concentration")
    evaporation_l = np.asarray(heat_rejected_kw, dtype=float) * 3600.0 * hours / h_fg  # 1 kg = 1 L
    return evaporation_l * cycles / (cycles - 1.0)


# ---------------------------------------------------------------- pumps and fans at design flow

GPM_PER_M3_S = 15850.3
WATER_KJ_PER_M3_K = 4180.0  # ρ·c_p of water near 20 °C


def water_flow_gpm(heat_kw: ArrayLike, delta_t_k: float) -> ArrayLike:
    """Water flow that carries ``heat_kw`` at a rise of ``delta_t_k``, US gpm."""
    return np.asarray(heat_kw) / (WATER_KJ_PER_M3_K * delta_t_k) * GPM_PER_M3_S


HP_KW = 0.7457
