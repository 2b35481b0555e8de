"""EnergyPlus EPW text for tests, written to the EPW data dictionary (EnergyPlus "Auxiliary Programs",
"EnergyPlus Weather File (EPW) Data Dictionary"): 8 header lines, then one 35-field line per hour from
1 January hour 1; fields 7-10 are dry bulb (°C), dew point (°C), relative humidity (%), station pressure (Pa)."""

from __future__ import annotations

import numpy as np

from campus.analysis.weather import MONTH_DAYS

HEADER = (
    "LOCATION,Test Site,TN,USA,TMY3,723340,35.06,-89.99,-6.0,77.0",
    "DESIGN CONDITIONS,0",
    "TYPICAL/EXTREME PERIODS,0",
    "GROUND TEMPERATURES,0",
    "HOLIDAYS/DAYLIGHT SAVINGS,No,0,0,0",
    "COMMENTS 1,Written for the tests from a reference year",
    "COMMENTS 2,",
    "DATA PERIODS,1,1,Data,Sunday, 1/ 1,12/31",
)
FLAGS = "?9?9?9?9E0?9?9?9?9?9?9?9?9?9?9?9?9?9?9?9*9*9?9?9?9"
# radiation, wind, sky, visibility, weather codes, water, aerosol, snow, albedo, precipitation (fields 11-35)
TAIL = "0,0,300,0,0,0,0,0,0,0,180,3.0,5,5,20.0,77777,9,999999999,10,0.100,0,88,0.200,0.0,1.0"


def epw_lines(
    dry_bulb_c: np.ndarray,
    dew_point_c: np.ndarray,
    relative_humidity_pct: np.ndarray,
    pressure_pa: float | np.ndarray = 101_000.0,
    leap: bool = False,
    year: int = 1999,
) -> list[str]:
    """The lines of an EPW file holding the given hours (8,760, or 8,784 with ``leap``)."""
    days = list(MONTH_DAYS)
    if leap:
        days[1] = 29
    stamps = [(m + 1, d, h) for m, n in enumerate(days) for d in range(1, n + 1) for h in range(1, 25)]
    assert len(dry_bulb_c) == len(stamps)
    pressure = np.broadcast_to(np.asarray(pressure_pa, dtype=float), (len(stamps),))
    out = list(HEADER)
    for k, (month, day, hour) in enumerate(stamps):
        out.append(
            f"{year},{month},{day},{hour},0,{FLAGS},{dry_bulb_c[k]:.1f},{dew_point_c[k]:.1f},"
            f"{relative_humidity_pct[k]:.0f},{pressure[k]:.0f},{TAIL}"
        )
    return out


def epw_bytes(lines: list[str]) -> bytes:
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


def leap_insert(values: np.ndarray) -> np.ndarray:
    """An 8,784-hour series: the 8,760 given hours with 29 February (a copy of 28 February) inserted."""
    feb28_end = (31 + 28) * 24
    return np.concatenate([values[:feb28_end], values[feb28_end - 24 : feb28_end], values[feb28_end:]])
