"""Design weather: the hot hours a plant and the grid connection are sized for, beside the typical year.

A typical year built from monthly normals (``campus.analysis.weather``) has no extremes: its hottest hour is
the mean daily maximum of the hottest month. Plants and the grid are sized for climatic design conditions
(ASHRAE Handbook—Fundamentals 2021, ch. 14 "Climatic design information"): the dry bulb exceeded 0.4 % and
1 % of the hours of a year with its mean coincident wet bulb (MCWB), the wet bulb exceeded 0.4 % of the
hours with its mean coincident dry bulb (MCDB), and the 20-year return period of the annual extreme dry
bulb. The extreme comes without a coincident wet bulb in the tables; it is paired here with the moisture of
the 0.4 % dry-bulb condition (the same humidity ratio at the hotter dry bulb), an assumption docs/model.md
states.

Each shipped climate carries its station's conditions with their source (``DESIGN_CONDITIONS``); a campus
can supply its own with its year (``WeatherYear.design``: ``/api/campuses/{id}/site-climate/``); an uploaded hourly year without them gets the same
statistics computed from its own hours (``design_from_year``). Nothing here is random. numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from campus.analysis.climate_normals import STATION_BY_CLIMATE
from campus.analysis.weather import (
    STANDARD_PRESSURE_PA,
    WeatherYear,
    humidity_ratio_from_wet_bulb,
    pressure_at_elevation_pa,
    wet_bulb_at_ratio_c,
)

_ASHRAE = (
    "ASHRAE Handbook—Fundamentals 2021, ch. 14, climatic design conditions (annual cooling, evaporation "
    "and extreme dry bulb) for station {station}; values as transcribed here, an estimate until checked "
    "against the licensed station table"
)


@dataclass(frozen=True)
class DesignConditions:
    """Annual cooling design conditions of a site, °C."""

    source: str
    cooling_db_04_c: float  # dry bulb exceeded 0.4 % of the hours
    cooling_mcwb_04_c: float  # its mean coincident wet bulb
    cooling_db_1_c: float  # dry bulb exceeded 1 % of the hours
    cooling_mcwb_1_c: float
    evaporation_wb_04_c: float  # wet bulb exceeded 0.4 % of the hours
    evaporation_mcdb_04_c: float  # its mean coincident dry bulb
    extreme_db_20y_c: float  # 20-year return period of the annual maximum dry bulb
    pressure_pa: float = STANDARD_PRESSURE_PA
    estimate: bool = True

    def __post_init__(self) -> None:
        pairs = (
            ("cooling_mcwb_04_c", self.cooling_mcwb_04_c, self.cooling_db_04_c),
            ("cooling_mcwb_1_c", self.cooling_mcwb_1_c, self.cooling_db_1_c),
            ("evaporation_wb_04_c", self.evaporation_wb_04_c, self.evaporation_mcdb_04_c),
        )
        for name, wet, dry in pairs:
            if not (np.isfinite(wet) and np.isfinite(dry)) or wet > dry:
                raise ValueError(f"{name}: a wet bulb at or below its dry bulb")
        if not self.cooling_db_1_c <= self.cooling_db_04_c <= self.extreme_db_20y_c:
            raise ValueError(
                "extreme_db_20y_c: the 1 % dry bulb <= the 0.4 % <= the 20-year extreme expected"
            )
        if not (self.cooling_db_1_c >= -60.0 and self.extreme_db_20y_c <= 60.0):
            raise ValueError("extreme_db_20y_c: a dry bulb between -60 and 60 °C expected")

    def hours(self) -> list[tuple[str, float, float]]:
        """The design hours: (label, dry bulb, wet bulb), °C."""
        w = humidity_ratio_from_wet_bulb(self.cooling_db_04_c, self.cooling_mcwb_04_c, self.pressure_pa)
        extreme_wb = float(wet_bulb_at_ratio_c(self.extreme_db_20y_c, w, self.pressure_pa))
        return [
            ("0.4% dry bulb / MCWB", self.cooling_db_04_c, self.cooling_mcwb_04_c),
            ("1% dry bulb / MCWB", self.cooling_db_1_c, self.cooling_mcwb_1_c),
            ("0.4% wet bulb / MCDB", self.evaporation_mcdb_04_c, self.evaporation_wb_04_c),
            ("20-year extreme dry bulb", self.extreme_db_20y_c, min(extreme_wb, self.extreme_db_20y_c)),
        ]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The design hours' dry bulbs and wet bulbs, °C."""
        hours = self.hours()
        return np.array([h[1] for h in hours]), np.array([h[2] for h in hours])

    def as_dict(self) -> dict:
        return {
            "source": self.source,
            "estimate": self.estimate,
            "cooling_db_04_c": self.cooling_db_04_c,
            "cooling_mcwb_04_c": self.cooling_mcwb_04_c,
            "cooling_db_1_c": self.cooling_db_1_c,
            "cooling_mcwb_1_c": self.cooling_mcwb_1_c,
            "evaporation_wb_04_c": self.evaporation_wb_04_c,
            "evaporation_mcdb_04_c": self.evaporation_mcdb_04_c,
            "extreme_db_20y_c": self.extreme_db_20y_c,
            "pressure_pa": self.pressure_pa,
        }


def _station(climate: str, wmo: str, *values: float) -> tuple[str, DesignConditions]:
    s = STATION_BY_CLIMATE[climate]
    return climate, DesignConditions(
        _ASHRAE.format(station=f"{s.station.split(' (')[0]}, WMO {wmo}"),
        *values,
        pressure_pa=pressure_at_elevation_pa(s.elevation_m),
    )


# 0.4 % DB, MCWB, 1 % DB, MCWB, 0.4 % WB, MCDB, 20-year extreme DB (°C)
DESIGN_CONDITIONS: dict[str, DesignConditions] = dict(
    [
        _station("memphis-us", "723340", 36.1, 25.0, 34.9, 24.8, 26.7, 32.5, 39.7),
        _station("phoenix-us", "722780", 43.8, 21.2, 42.6, 21.1, 24.4, 35.6, 48.3),
        _station("ashburn-us", "724030", 34.8, 23.7, 33.3, 23.1, 25.4, 31.2, 39.2),
        _station("dublin-ie", "039690", 22.8, 16.9, 21.0, 16.1, 18.0, 21.3, 28.8),
        _station("singapore-sg", "486980", 33.9, 25.9, 33.2, 25.8, 27.5, 31.2, 36.3),
        _station("ulanqab-cn", "534800", 30.6, 17.8, 29.1, 17.3, 20.4, 26.4, 35.4),
        _station("abilene-us", "722660", 38.9, 21.3, 37.7, 21.3, 24.3, 31.4, 43.6),
        _station("columbus-us", "724280", 33.2, 23.3, 31.7, 22.7, 25.2, 30.4, 37.6),
    ]
)


def design_from_year(year: WeatherYear) -> DesignConditions:
    """The annual design conditions of one hourly year by the chapter's definitions: the dry bulb exceeded
    by 0.4 % and 1 % of its hours with the mean wet bulb of the hours within 0.5 K of it, the wet bulb
    exceeded by 0.4 % with the mean coincident dry bulb; one year has no return period, so its hottest
    hour stands for the extreme."""
    db, wb = year.dry_bulb_c, year.wet_bulb_c

    def coincident(values: np.ndarray, other: np.ndarray, level: float) -> float:
        near = np.abs(values - level) <= 0.5
        return float(other[near].mean()) if near.any() else float(other[np.argmin(np.abs(values - level))])

    db04, db1, wb04 = (
        float(np.quantile(db, 0.996)),
        float(np.quantile(db, 0.99)),
        float(np.quantile(wb, 0.996)),
    )
    return DesignConditions(
        source=f"computed from the hourly year ({year.source})",
        cooling_db_04_c=db04,
        cooling_mcwb_04_c=min(coincident(db, wb, db04), db04),
        cooling_db_1_c=db1,
        cooling_mcwb_1_c=min(coincident(db, wb, db1), db1),
        evaporation_wb_04_c=wb04,
        evaporation_mcdb_04_c=max(coincident(wb, db, wb04), wb04),
        extreme_db_20y_c=max(float(db.max()), db04),
        pressure_pa=year.pressure_pa,
        estimate=True,
    )


def as_conditions(design: object | None) -> DesignConditions | None:
    """Design conditions kept with a year: as given, from their stored dict, or None."""
    if isinstance(design, dict) and design:
        return DesignConditions(**design)
    return design if isinstance(design, DesignConditions) else None


def design_conditions_of(snap) -> DesignConditions:
    """The design conditions a campus is sized for: those supplied with its own year (normals or EPW),
    else its own year's statistics, else its climate's station table."""
    uploaded = getattr(snap, "weather", None)
    if uploaded is not None:
        return as_conditions(uploaded.design) or design_from_year(uploaded)
    climate = getattr(snap, "climate", None) or "ashburn-us"
    return DESIGN_CONDITIONS[climate]
