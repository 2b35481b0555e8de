"""The weather a campus's plant works in: one year of hourly dry bulb, wet bulb and relative humidity.

A campus has a ``climate``, one of the shipped reference years (``CLIMATES``), or an hourly year the planner
uploaded (an EnergyPlus EPW file, ``campus.analysis.epw``), which the snapshot carries as
``CampusSnapshot.weather``; ``weather_of(snap)`` is the year the campus uses.

A reference year is built from one station's monthly climate normals (``campus.analysis.climate_normals``,
each with its source) by a documented, deterministic model (docs/model.md, "Weather"):

1. daily maximum and minimum dry bulb: a piecewise-linear curve through one node per mid-month whose
   monthly means equal the published normals exactly (a 12 x 12 linear system, periodic over the year);
2. the hours of a day: ASHRAE's fraction of the daily range (Handbook-Fundamentals, ch. 14, "Climatic
   design information", table "Fraction of daily temperature range"): the minimum at 05:00, the
   maximum at 15:00 local standard time, the same shape every day;
3. humidity: the dew point is constant through a day (the moisture in the air changes slowly; the
   relative humidity swings with the temperature), interpolated between months the same way and held
   at or below the dry bulb; a station that publishes relative humidity gets the dew point whose
   monthly mean hourly humidity equals the published one;
4. wet bulb: the psychrometric equation at the station's pressure (ASHRAE Handbook-Fundamentals 2017,
   ch. 1, eqs. 3, 5, 6, 22, 33 and 35; saturation pressures of Hyland and Wexler 1983), solved for
   each hour by bisection. ``stull_wet_bulb_c`` (Stull 2011) is the empirical cross-check.

Hour ``i`` of a year is hour ``i % 24 + 1`` (the hour ending at that clock hour, as in EPW files) of day
``i // 24 + 1`` of a 365-day year. Nothing here is random. numpy only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

import numpy as np

from campus.analysis.climate_normals import STATION_BY_CLIMATE, STATIONS, StationNormals

HOURS_PER_YEAR = 8760
DAYS_PER_YEAR = 365
MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
CLIMATES: tuple[str, ...] = tuple(s.climate for s in STATIONS)
DEFAULT_CLIMATE = "ashburn-us"  # Northern Virginia, the largest datacenter market
STANDARD_PRESSURE_PA = 101_325.0

# ASHRAE Handbook-Fundamentals, ch. 14 "Climatic design information", table "Fraction of daily
# temperature range" (2009 edition table 6, unchanged since): hour 1..24 of local standard time, the
# hour's dry bulb = daily max - fraction x daily range.
DAILY_RANGE_FRACTION = np.array(
    [0.87, 0.92, 0.96, 0.99, 1.00, 0.98, 0.93, 0.84, 0.71, 0.56, 0.39, 0.23,
     0.11, 0.03, 0.00, 0.03, 0.10, 0.21, 0.34, 0.47, 0.58, 0.68, 0.76, 0.82]
)  # fmt: skip

_DAY_OF_HOUR = np.arange(HOURS_PER_YEAR) // 24
_MONTH_OF_DAY = np.repeat(np.arange(12), MONTH_DAYS)
MONTH_OF_HOUR = _MONTH_OF_DAY[_DAY_OF_HOUR]  # 0 = January, per hour of the year
MONTH_OF_HOUR.setflags(write=False)


@dataclass(frozen=True)
class WeatherYear:
    """One year of hourly weather: 8,760 values each (°C, °C, fraction 0-1), read-only arrays."""

    climate: str  # the climate id (an uploaded year keeps the campus's climate id)
    source: str  # where the hours come from: the normals and their publisher, or the EPW file's site
    dry_bulb_c: np.ndarray
    wet_bulb_c: np.ndarray
    relative_humidity: np.ndarray  # fraction 0-1
    pressure_pa: float = STANDARD_PRESSURE_PA  # the station's mean air pressure, Pa
    # the site's design conditions when they were supplied with it (design_weather.DesignConditions)
    design: object | None = None
    # the local standard time of the hours, hours east of UTC (EPW's LOCATION time zone; a shipped station's
    # zone): ``hour_of_year`` reads a moment of measurement against the hour it falls in at the site
    utc_offset_h: float = 0.0

    def __post_init__(self) -> None:
        for name in ("dry_bulb_c", "wet_bulb_c", "relative_humidity"):
            arr = np.array(getattr(self, name), dtype=float)  # a copy: the caller's array stays theirs
            if arr.shape != (HOURS_PER_YEAR,):
                raise ValueError(f"{name}: {HOURS_PER_YEAR} hourly values expected, got shape {arr.shape}")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name}: every hour must be a finite number")
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    # arrays compare and hash by value (the generated methods would compare them elementwise)
    def _key(self) -> tuple:
        return (
            self.climate,
            self.source,
            self.pressure_pa,
            self.utc_offset_h,
            self.dry_bulb_c.tobytes(),
            self.wet_bulb_c.tobytes(),
            self.relative_humidity.tobytes(),
            repr(self.design),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WeatherYear) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def dew_point_c(self) -> np.ndarray:
        """Hourly dew point, °C (from dry bulb and relative humidity)."""
        return dew_point_c(self.dry_bulb_c, self.relative_humidity)

    def monthly_means(self) -> dict[str, list[float]]:
        """Mean dry bulb, wet bulb (°C) and relative humidity (fraction) of each month, January first."""
        return {
            "dry_bulb_c": monthly_means(self.dry_bulb_c).tolist(),
            "wet_bulb_c": monthly_means(self.wet_bulb_c).tolist(),
            "relative_humidity": monthly_means(self.relative_humidity).tolist(),
        }


# ------------------------------------------------------------------ psychrometrics


def saturation_vapour_pressure_pa(t_c: np.ndarray | float, over_ice: bool = False) -> np.ndarray:
    """Saturation pressure of water vapour, Pa (Hyland and Wexler 1983; ASHRAE Fundamentals 2017 ch. 1
    eq. 6 over liquid water, eq. 5 over ice). Over water it is also used below 0 °C (supercooled), the
    meteorological convention for relative humidity and dew point."""
    t_k = np.asarray(t_c, dtype=float) + 273.15
    if over_ice:
        ln_p = (
            -5.6745359e3 / t_k
            + 6.3925247
            - 9.6778430e-3 * t_k
            + 6.2215701e-7 * t_k**2
            + 2.0747825e-9 * t_k**3
            - 9.4840240e-13 * t_k**4
            + 4.1635019 * np.log(t_k)
        )
    else:
        ln_p = (
            -5.8002206e3 / t_k
            + 1.3914993
            - 4.8640239e-2 * t_k
            + 4.1764768e-5 * t_k**2
            - 1.4452093e-8 * t_k**3
            + 6.5459673 * np.log(t_k)
        )
    return np.exp(ln_p)


def pressure_at_elevation_pa(elevation_m: float) -> float:
    """Standard-atmosphere pressure at an elevation, Pa (ASHRAE Fundamentals 2017 ch. 1 eq. 3)."""
    return 101_325.0 * (1.0 - 2.25577e-5 * elevation_m) ** 5.2559


def humidity_ratio(vapour_pressure_pa: np.ndarray, pressure_pa: np.ndarray | float) -> np.ndarray:
    """Humidity ratio, kg water per kg dry air (ASHRAE Fundamentals 2017 ch. 1 eq. 20/22)."""
    pw = np.asarray(vapour_pressure_pa, dtype=float)
    return 0.621945 * pw / (np.asarray(pressure_pa, dtype=float) - pw)


def _wet_bulb_from_ratio(t_c: np.ndarray, w: np.ndarray, p_pa: np.ndarray | float) -> np.ndarray:
    """Thermodynamic wet bulb for dry bulb ``t_c`` and humidity ratio ``w``: the t* that solves ASHRAE
    Fundamentals 2017 ch. 1 eq. 33 (t* ≥ 0 °C, water) or eq. 35 (t* < 0 °C, ice), by bisection."""
    t = np.asarray(t_c, dtype=float)
    w = np.broadcast_to(np.asarray(w, dtype=float), t.shape)
    lo = t - 80.0
    hi = t.copy()
    for _ in range(48):  # 80 K / 2**48: far below any figure's precision
        mid = 0.5 * (lo + hi)
        frozen = mid < 0.0
        pws = np.where(
            frozen, saturation_vapour_pressure_pa(mid, over_ice=True), saturation_vapour_pressure_pa(mid)
        )
        ws = humidity_ratio(pws, p_pa)
        w_water = ((2501.0 - 2.326 * mid) * ws - 1.006 * (t - mid)) / (2501.0 + 1.86 * t - 4.186 * mid)
        w_ice = ((2830.0 - 0.24 * mid) * ws - 1.006 * (t - mid)) / (2830.0 + 1.86 * t - 2.1 * mid)
        too_wet = np.where(frozen, w_ice, w_water) > w
        hi = np.where(too_wet, mid, hi)
        lo = np.where(too_wet, lo, mid)
    return np.minimum(0.5 * (lo + hi), t)


def humidity_ratio_from_wet_bulb(
    dry_bulb_c: np.ndarray | float,
    wet_bulb_c: np.ndarray | float,
    pressure_pa: np.ndarray | float = STANDARD_PRESSURE_PA,
) -> np.ndarray:
    """Humidity ratio, kg/kg, of air at a dry bulb and thermodynamic wet bulb (ASHRAE Fundamentals 2017
    ch. 1 eq. 33, wet bulb at or above 0 °C; eq. 35 below)."""
    t = np.asarray(dry_bulb_c, dtype=float)
    tw = np.minimum(np.asarray(wet_bulb_c, dtype=float), t)
    frozen = tw < 0.0
    ws = humidity_ratio(
        np.where(frozen, saturation_vapour_pressure_pa(tw, over_ice=True), saturation_vapour_pressure_pa(tw)),
        pressure_pa,
    )
    w_water = ((2501.0 - 2.326 * tw) * ws - 1.006 * (t - tw)) / (2501.0 + 1.86 * t - 4.186 * tw)
    w_ice = ((2830.0 - 0.24 * tw) * ws - 1.006 * (t - tw)) / (2830.0 + 1.86 * t - 2.1 * tw)
    return np.maximum(np.where(frozen, w_ice, w_water), 0.0)


def wet_bulb_at_ratio_c(
    dry_bulb_c: np.ndarray | float,
    ratio: np.ndarray | float,
    pressure_pa: np.ndarray | float = STANDARD_PRESSURE_PA,
) -> np.ndarray:
    """Thermodynamic wet bulb, °C, of air at a dry bulb and humidity ratio (kg/kg)."""
    return _wet_bulb_from_ratio(
        np.asarray(dry_bulb_c, dtype=float), np.asarray(ratio, dtype=float), pressure_pa
    )


def wet_bulb_c(
    dry_bulb_c: np.ndarray | float,
    dew_point_c: np.ndarray | float,
    pressure_pa: np.ndarray | float = STANDARD_PRESSURE_PA,
) -> np.ndarray:
    """Thermodynamic wet-bulb temperature, °C, from dry bulb and dew point at an air pressure (Pa; one
    value or one per hour)."""
    t = np.asarray(dry_bulb_c, dtype=float)
    td = np.minimum(np.asarray(dew_point_c, dtype=float), t)
    w = humidity_ratio(saturation_vapour_pressure_pa(td), pressure_pa)
    return _wet_bulb_from_ratio(t, w, pressure_pa)


def stull_wet_bulb_c(dry_bulb_c: np.ndarray | float, relative_humidity_pct: np.ndarray | float) -> np.ndarray:
    """Stull (2011), "Wet-bulb temperature from relative humidity and air temperature", J. Appl. Meteor.
    Climatol. 50, 2267-2269, eq. 1: sea level, valid for RH 5-99 % and -20 to 50 °C, error -1 to +0.65 K."""
    t = np.asarray(dry_bulb_c, dtype=float)
    rh = np.asarray(relative_humidity_pct, dtype=float)
    return (
        t * np.arctan(0.151977 * np.sqrt(rh + 8.313659))
        + np.arctan(t + rh)
        - np.arctan(rh - 1.676331)
        + 0.00391838 * rh**1.5 * np.arctan(0.023101 * rh)
        - 4.686035
    )


def relative_humidity(dry_bulb_c: np.ndarray | float, dew_point_c: np.ndarray | float) -> np.ndarray:
    """Relative humidity (fraction 0-1, over water) from dry bulb and dew point."""
    t = np.asarray(dry_bulb_c, dtype=float)
    td = np.minimum(np.asarray(dew_point_c, dtype=float), t)
    return saturation_vapour_pressure_pa(td) / saturation_vapour_pressure_pa(t)


def dew_point_c(dry_bulb_c: np.ndarray | float, relative_humidity: np.ndarray | float) -> np.ndarray:
    """Dew point, °C, for dry bulb and relative humidity (fraction, over water), by bisection."""
    t = np.asarray(dry_bulb_c, dtype=float)
    rh = np.clip(np.asarray(relative_humidity, dtype=float), 1e-4, 1.0)
    target = rh * saturation_vapour_pressure_pa(t)
    lo = t - 120.0
    hi = t.copy()
    for _ in range(48):
        mid = 0.5 * (lo + hi)
        above = saturation_vapour_pressure_pa(mid) > target
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return 0.5 * (lo + hi)


def year_from_dew_point(
    climate: str,
    source: str,
    dry_bulb_c: np.ndarray,
    dew_point_c: np.ndarray,
    pressure_pa: float = STANDARD_PRESSURE_PA,
    utc_offset_h: float = 0.0,
) -> WeatherYear:
    """A ``WeatherYear`` from hourly dry bulb and dew point (°C) at a mean station pressure, its hours in the
    local standard time ``utc_offset_h`` hours east of UTC."""
    t = np.asarray(dry_bulb_c, dtype=float)
    td = np.minimum(np.asarray(dew_point_c, dtype=float), t)
    return WeatherYear(
        climate=climate,
        source=source,
        dry_bulb_c=t,
        wet_bulb_c=wet_bulb_c(t, td, pressure_pa),
        relative_humidity=relative_humidity(t, td),
        pressure_pa=float(pressure_pa),
        utc_offset_h=float(utc_offset_h),
    )


# ------------------------------------------------------------------ reference years


def monthly_means(hourly: np.ndarray) -> np.ndarray:
    """The mean of each calendar month of an 8,760-hour series, January first."""
    values = np.asarray(hourly, dtype=float)
    return np.bincount(MONTH_OF_HOUR, weights=values, minlength=12) / np.bincount(MONTH_OF_HOUR, minlength=12)


def _daily_interpolation_matrix() -> np.ndarray:
    """(365, 12): daily values, piecewise-linear and periodic between nodes at each mid-month."""
    starts = np.concatenate([[0], np.cumsum(MONTH_DAYS)[:-1]])
    mids = starts + np.asarray(MONTH_DAYS) / 2.0  # day-of-year position of each mid-month
    day_centres = np.arange(DAYS_PER_YEAR) + 0.5
    out = np.zeros((DAYS_PER_YEAR, 12))
    xs = np.concatenate([[mids[-1] - DAYS_PER_YEAR], mids, [mids[0] + DAYS_PER_YEAR]])
    for m in range(12):
        node = np.zeros(14)
        node[m + 1] = 1.0
        if m == 11:
            node[0] = 1.0
        if m == 0:
            node[13] = 1.0
        out[:, m] = np.interp(day_centres, xs, node)
    return out


_DAILY_FROM_NODES = _daily_interpolation_matrix()
_MONTH_MEAN_OF_DAYS = np.zeros((12, DAYS_PER_YEAR))
_MONTH_MEAN_OF_DAYS[_MONTH_OF_DAY, np.arange(DAYS_PER_YEAR)] = 1.0
_MONTH_MEAN_OF_DAYS /= np.asarray(MONTH_DAYS, dtype=float)[:, None]
_NODES_FROM_MEANS = np.linalg.inv(_MONTH_MEAN_OF_DAYS @ _DAILY_FROM_NODES)


def smooth_daily(monthly: np.ndarray | tuple[float, ...]) -> np.ndarray:
    """365 daily values, continuous over the year, whose monthly means equal ``monthly`` exactly."""
    return _DAILY_FROM_NODES @ (_NODES_FROM_MEANS @ np.asarray(monthly, dtype=float))


def _to_c(values: tuple[float, ...], unit: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    return (arr - 32.0) * 5.0 / 9.0 if unit == "F" else arr


def _hourly_dry_bulb(tmax_c: np.ndarray, tmin_c: np.ndarray) -> np.ndarray:
    day_max = smooth_daily(tmax_c)
    day_range = np.maximum(day_max - smooth_daily(tmin_c), 0.0)
    return (day_max[:, None] - DAILY_RANGE_FRACTION[None, :] * day_range[:, None]).ravel()


def _hourly_dew_point(
    target_monthly: np.ndarray, dry_bulb: np.ndarray, station: StationNormals
) -> np.ndarray:
    """Hourly dew point: constant within a day, smooth over the year, at most the dry bulb; its monthly
    mean dew point (or mean relative humidity) equals the station's, by a few correction rounds."""
    nodes = np.asarray(target_monthly, dtype=float).copy()  # monthly mean dew points, °C
    by_rh = station.dew_point is None
    goal = np.asarray(station.relative_humidity_pct, dtype=float) / 100.0 if by_rh else target_monthly
    dew = dry_bulb
    for _ in range(30):
        dew = np.minimum(np.repeat(smooth_daily(nodes), 24), dry_bulb)
        got = monthly_means(relative_humidity(dry_bulb, dew)) if by_rh else monthly_means(dew)
        error = goal - got
        if np.max(np.abs(error)) < (1e-5 if by_rh else 1e-4):
            break
        # d(RH)/d(Td) ≈ RH x 17.6 x 243 / (Td + 243)^2 (Magnus); for the dew point itself 1
        slope = got * 17.625 * 243.04 / (nodes + 243.04) ** 2 if by_rh else np.ones(12)
        nodes = nodes + error / slope
    return dew


@functools.cache
def reference_year(climate: str) -> WeatherYear:
    """The shipped reference year of a climate (one of ``CLIMATES``), built from its station's normals."""
    station = STATION_BY_CLIMATE.get(climate)
    if station is None:
        raise ValueError(f"unknown climate {climate!r}; one of {', '.join(CLIMATES)}")
    return year_from_normals(station)


def year_from_normals(station: StationNormals, design: object | None = None) -> WeatherYear:
    """A year of hours from one station's monthly normals (the model of this module's docstring), with the
    site's design conditions when given."""
    tmax = _to_c(station.tmax, station.unit)
    tmin = _to_c(station.tmin, station.unit)
    dry_bulb = _hourly_dry_bulb(tmax, tmin)
    if station.dew_point is not None:
        first_guess = _to_c(station.dew_point, station.unit)
    else:  # the dew point at the month's mean temperature and humidity, refined in _hourly_dew_point
        first_guess = dew_point_c((tmax + tmin) / 2.0, np.asarray(station.relative_humidity_pct) / 100.0)
    dew = _hourly_dew_point(first_guess, dry_bulb, station)
    year = year_from_dew_point(
        station.climate,
        f"reference year from monthly normals {station.period}: {station.station}; {station.source}",
        dry_bulb,
        dew,
        pressure_at_elevation_pa(station.elevation_m),
        standard_offset_h(station.time_zone),
    )
    return replace(year, design=design) if design is not None else year


def standard_offset_h(time_zone: str) -> float:
    """A time zone's standard (winter) offset from UTC, hours east (the tz database's, by ``zoneinfo``; its
    offset on 15 January, every shipped station being north of the tropic of Capricorn); 0 for none."""
    if not time_zone:
        return 0.0
    return ZoneInfo(time_zone).utcoffset(datetime(2001, 1, 15)).total_seconds() / 3600.0


def hour_of_year(t: datetime, utc_offset_h: float = 0.0) -> int:
    """Hour index 0..8759 of the moment ``t`` in a 365-day year read in the local standard time
    ``utc_offset_h`` hours east of UTC (the year's, ``WeatherYear.utc_offset_h``; a naive ``t`` is UTC): hour
    i is the hour ending at clock hour i % 24 + 1 of day i // 24 + 1; in a leap year 29 February is read as
    28 February and the days after it as the typical year's same dates."""
    utc = t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)
    local = utc + timedelta(hours=utc_offset_h)
    day = local.timetuple().tm_yday - 1
    leap = local.year % 4 == 0 and (local.year % 100 != 0 or local.year % 400 == 0)
    if leap and (local.month, local.day) >= (2, 29):
        day -= 1
    return min(max(day * 24 + local.hour, 0), HOURS_PER_YEAR - 1)


class Sited(Protocol):
    """What ``weather_of`` reads of a campus (a ``CampusSnapshot``; the snapshot module imports this one,
    so the type is named by what it offers, not imported)."""

    climate: str
    weather: WeatherYear | None


def weather_of(snap: Sited) -> WeatherYear:
    """The year a campus uses: its uploaded hourly year if any, else its climate's reference year."""
    uploaded = getattr(snap, "weather", None)
    if uploaded is not None:
        return uploaded
    return reference_year(getattr(snap, "climate", DEFAULT_CLIMATE) or DEFAULT_CLIMATE)


def with_heat_wave(year: WeatherYear, start_day: int, days: int, temperature_rise_k: float) -> WeatherYear:
    """``year`` with its dry bulb raised by ``temperature_rise_k`` over ``days`` days from day of year
    ``start_day`` (1 = 1 January; the wave ends by 31 December). The air keeps its moisture (the vapour
    pressure, so the dew point, is unchanged): the relative humidity falls and the wet bulb rises by
    less than the dry bulb."""
    if not 1 <= int(start_day) <= DAYS_PER_YEAR:
        raise ValueError(f"start_day: a day of the year from 1 to {DAYS_PER_YEAR}, got {start_day}")
    if int(days) < 1 or int(start_day) + int(days) - 1 > DAYS_PER_YEAR:
        raise ValueError(f"days: at least 1 and the wave must end by day {DAYS_PER_YEAR}, got {days}")
    if not np.isfinite(temperature_rise_k) or temperature_rise_k < 0:
        raise ValueError(f"temperature_rise_k: a rise of 0 K or more, got {temperature_rise_k}")
    window = slice((int(start_day) - 1) * 24, (int(start_day) - 1 + int(days)) * 24)
    t = year.dry_bulb_c.copy()
    pw = year.relative_humidity * saturation_vapour_pressure_pa(year.dry_bulb_c)
    t[window] += float(temperature_rise_k)
    rh = np.minimum(pw / saturation_vapour_pressure_pa(t), 1.0)
    wet = year.wet_bulb_c.copy()
    wet[window] = _wet_bulb_from_ratio(
        t[window], humidity_ratio(pw[window], year.pressure_pa), year.pressure_pa
    )
    return WeatherYear(
        climate=year.climate,
        source=f"{year.source}; heat wave +{temperature_rise_k:g} K on days {start_day}-{start_day + days - 1}",
        dry_bulb_c=t,
        wet_bulb_c=wet,
        relative_humidity=rh,
        pressure_pa=year.pressure_pa,
        utc_offset_h=year.utc_offset_h,
    )
