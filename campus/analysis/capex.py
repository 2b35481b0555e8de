"""Prices, installed capacity and capital cost: the price catalog, the power chain's and the cooling's capex,
and a simple total cost of ownership.

Every price is a row of ``campus.catalog_data.PRICES`` (kind, item, unit, unit price, source, year, estimate;
the lead time from ``LEAD_TIMES_WEEKS``); ``unit_price(kind, item, overrides)`` is the one way to read one, with a campus's overrides
(``Campus.price_overrides``, keyed ``"kind/item"``) applied. docs/capex.md lists every row with its source.

What redundancy costs is what it installs: ``installed_capacity`` sums the rated power of every power
device by kind and the capacity of every cooling unit and plant by kind; ``infrastructure_capex`` prices
them per kW. The costs per kW are estimates for the installed equipment (supply, installation and
commissioning; not the building, land or interconnection); docs/model.md ("Redundancy topologies") gives
them and a published cross-check: the Uptime Institute's whole-facility cost per kW roughly doubles from
Tier I/II (N) to Tier III/IV (Turner & Seader, "Dollars per kW plus dollars per square foot are a better
data center cost model than dollars per square foot alone", Uptime Institute white paper, 2006).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import cache

from campus.analysis.snapshot import CampusSnapshot
from campus.catalog_data import LEAD_TIME_KIND, LEAD_TIMES_WEEKS, PRICES

# What each kind of price row belongs to in the bill of materials.
CATEGORY_OF_KIND: dict[str, str] = {
    "power-device": "power",
    "utility-feed": "power",
    "energy-storage": "power",
    "cooling-unit": "cooling",
    "cooling-plant": "cooling",
    "switch": "network",
    "optic": "network",
    "cable": "network",
    "server": "compute",
    "building": "building",
    "rack": "building",
    "rack-power": "power",
    "rack-cooling": "cooling",
}
CATEGORIES = ("power", "cooling", "network", "compute", "building")
# The item a kind falls back to when the catalog has no row for the model or class asked for.
FALLBACK_ITEM = "other"
# Total cost of ownership defaults: the horizon of a GPU cluster's useful life and a weighted cost of capital.
DEFAULT_HORIZON_YEARS = 5
DEFAULT_DISCOUNT_RATE = 0.08
MAX_PRICE_USD = 1e10


@dataclass(frozen=True)
class PriceRow:
    kind: str
    item: str
    unit: str
    unit_price_usd: float
    source: str
    year: int
    estimate: bool
    notes: str = ""
    lead_time_weeks: float | None = None
    overridden: bool = False  # the campus's own price (``Campus.price_overrides``), not the catalog's

    @property
    def key(self) -> str:
        return f"{self.kind}/{self.item}"

    @property
    def category(self) -> str:
        return CATEGORY_OF_KIND[self.kind]

    def as_dict(self) -> dict:
        return {"key": self.key, "category": self.category, **asdict(self)}


def _lead_time_weeks(kind: str, item: str) -> float | None:
    """Weeks from order to delivery of a power or cooling item (``catalog_data.LEAD_TIMES_WEEKS``, by the
    kind whose lead time it shares, ``LEAD_TIME_KIND``); None where none is known."""
    if kind == "utility-feed":
        item = "utility_feed"
    elif kind not in ("power-device", "cooling-unit", "cooling-plant"):
        return None
    row = LEAD_TIMES_WEEKS.get(LEAD_TIME_KIND.get(item, item))
    return float(row["weeks"]) if row is not None else None


@cache
def _rows() -> dict[str, PriceRow]:
    rows = (PriceRow(**r, lead_time_weeks=_lead_time_weeks(r["kind"], r["item"])) for r in PRICES)
    return {r.key: r for r in rows}


def price_catalog() -> list[PriceRow]:
    """Every catalog price row, in catalog order."""
    return list(_rows().values())


def price_keys() -> frozenset[str]:
    return frozenset(_rows())


def validate_overrides(overrides: object) -> dict[str, float]:
    """A campus's price overrides as ``{"kind/item": unit price USD}``; a ``ValueError`` names the key at
    fault (an unknown row, or a price that is not a finite number from 0 to 1e10)."""
    if not isinstance(overrides, Mapping):
        raise ValueError('must be an object {"kind/item": unit price in USD}')
    known = price_keys()
    out: dict[str, float] = {}
    for key, value in overrides.items():
        if key not in known:
            raise ValueError(f"unknown price row {key!r} (GET /api/price-catalog/ lists the keys)")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"{key}: the unit price must be a number")
        if not 0 <= value <= MAX_PRICE_USD:
            raise ValueError(f"{key}: the unit price must be between 0 and {MAX_PRICE_USD:g} USD")
        out[key] = float(value)
    return out


def unit_price(kind: str, item: str, overrides: Mapping[str, float] | None = None) -> PriceRow:
    """The price of one ``item`` of ``kind`` ("power-device", "cooling-unit", "cooling-plant", "switch",
    "optic", "cable", "server", "building", "rack", "rack-power", "rack-cooling", "utility-feed",
    "energy-storage"), with the campus's
    ``overrides`` (``{"kind/item": USD}``) applied; an item without its own row takes the kind's
    ``"other"`` row (a server's is per GPU). ``KeyError`` for a kind the catalog does not price."""
    if kind not in CATEGORY_OF_KIND:
        raise KeyError(f"unknown price kind {kind!r}; known: {', '.join(CATEGORY_OF_KIND)}")
    rows = _rows()
    row = rows.get(f"{kind}/{item}") or rows.get(f"{kind}/{FALLBACK_ITEM}")
    if row is None:
        raise KeyError(f"no price for {kind}/{item}")
    if overrides and row.key in overrides:
        return replace(
            row, unit_price_usd=float(overrides[row.key]), source="campus override", overridden=True
        )
    return row


def snapshot_overrides(snap: CampusSnapshot) -> dict[str, float]:
    return dict(snap.price_overrides)


# ---------------------------------------------------------------- power chain and cooling per kW

# USD per kW of rating (power devices) or of heat (cooling units and plants), from the catalog rows.
UNIT_COST_USD_PER_KW: dict[str, float] = {
    r.item: r.unit_price_usd
    for r in price_catalog()
    if r.kind in ("power-device", "cooling-unit", "cooling-plant") and r.item != FALLBACK_ITEM
}
# A kind without its own figure (e.g. a "breaker" device or an "in-row" unit) at this cost per kW.
OTHER_USD_PER_KW = unit_price("power-device", FALLBACK_ITEM).unit_price_usd


@dataclass
class InstalledCapacity:
    """Installed capacity by kind, kW: power devices by rating, cooling units and plants by capacity."""

    power_kw: dict[str, float] = field(default_factory=dict)
    cooling_units_kw: dict[str, float] = field(default_factory=dict)
    plants_kw: dict[str, float] = field(default_factory=dict)

    @property
    def critical_kw(self) -> float:
        """UPS capacity: the critical power the design installs."""
        return self.power_kw.get("ups", 0.0)

    def as_dict(self) -> dict:
        return {
            "power_kw": dict(sorted(self.power_kw.items())),
            "cooling_units_kw": dict(sorted(self.cooling_units_kw.items())),
            "plants_kw": dict(sorted(self.plants_kw.items())),
        }


def installed_capacity(snap: CampusSnapshot) -> InstalledCapacity:
    out = InstalledCapacity()
    for d in snap.power_devices:
        out.power_kw[d.kind] = out.power_kw.get(d.kind, 0.0) + d.rated_kw
    for u in snap.cooling_units:
        out.cooling_units_kw[u.kind] = out.cooling_units_kw.get(u.kind, 0.0) + u.capacity_kw
    for p in snap.cooling_plants:
        out.plants_kw[p.kind] = out.plants_kw.get(p.kind, 0.0) + p.capacity_kw
    return out


@dataclass
class Capex:
    power_usd: float
    cooling_usd: float
    by_kind_usd: dict[str, float]

    @property
    def total_usd(self) -> float:
        return self.power_usd + self.cooling_usd

    def as_dict(self) -> dict:
        return {
            "power_usd": self.power_usd,
            "cooling_usd": self.cooling_usd,
            "total_usd": self.total_usd,
            "by_kind_usd": dict(sorted(self.by_kind_usd.items())),
        }


def infrastructure_capex(snap: CampusSnapshot) -> Capex:
    """Equipment capital cost of the installed power chain and cooling, per kW (``unit_price``, with the
    campus's overrides)."""
    cap = installed_capacity(snap)
    overrides = snapshot_overrides(snap)
    by_kind: dict[str, float] = {}
    totals = {"power-device": 0.0, "cooling-unit": 0.0, "cooling-plant": 0.0}
    for price_kind, table in (
        ("power-device", cap.power_kw),
        ("cooling-unit", cap.cooling_units_kw),
        ("cooling-plant", cap.plants_kw),
    ):
        for kind, kw in table.items():
            usd = kw * unit_price(price_kind, kind, overrides).unit_price_usd
            by_kind[kind] = by_kind.get(kind, 0.0) + usd
            totals[price_kind] += usd
    return Capex(
        power_usd=totals["power-device"],
        cooling_usd=totals["cooling-unit"] + totals["cooling-plant"],
        by_kind_usd=by_kind,
    )


# ---------------------------------------------------------------- total cost of ownership


def annuity_factor(horizon_years: int, discount_rate: float) -> float:
    """Present value of 1 USD a year paid at the end of each of ``horizon_years`` years."""
    if discount_rate == 0:
        return float(horizon_years)
    # (1 − (1 + r)^−H) / r, written with log1p and expm1 so that a tiny rate keeps its precision
    return -math.expm1(-horizon_years * math.log1p(discount_rate)) / discount_rate


def tco(
    capex_usd: float,
    annual_energy_usd: float,
    annual_fuel_usd: float,
    horizon_years: int = DEFAULT_HORIZON_YEARS,
    discount_rate: float = DEFAULT_DISCOUNT_RATE,
) -> dict:
    """Capex now plus the energy and fuel of every year of the horizon, discounted to today (paid at each
    year's end). Nothing else (staff, maintenance, refresh, residual value) is counted."""
    if not 1 <= horizon_years <= 50:
        raise ValueError("horizon_years: must be from 1 to 50")
    if not 0.0 <= discount_rate <= 0.5:
        raise ValueError("discount_rate: must be from 0 to 0.5")
    factor = annuity_factor(horizon_years, discount_rate)
    energy, fuel = annual_energy_usd * factor, annual_fuel_usd * factor
    return {
        "horizon_years": horizon_years,
        "discount_rate": discount_rate,
        "capex_usd": capex_usd,
        "annual_energy_usd": annual_energy_usd,
        "annual_fuel_usd": annual_fuel_usd,
        "energy_usd": energy,
        "fuel_usd": fuel,
        "total_usd": capex_usd + energy + fuel,
    }
