"""EnergyPlus weather (EPW) files: checked line by line, then read with pvlib into a campus's hourly year.

An EPW file (EnergyPlus "Auxiliary Programs", chapter "Weather Converter Program", section "EnergyPlus Weather
File (EPW) Data Dictionary") is eight header lines (LOCATION, DESIGN CONDITIONS, TYPICAL/EXTREME PERIODS,
GROUND TEMPERATURES, HOLIDAYS/DAYLIGHT SAVINGS, COMMENTS 1, COMMENTS 2, DATA PERIODS) and one comma-separated
line of 35 fields per hour: year, month, day, hour (1-24), minute, the source flags, dry bulb (°C), dew point
(°C), relative humidity (%), station pressure (Pa), then radiation, wind, sky and precipitation fields.

pvlib (``pvlib.iotools.read_epw``) reads the file; it reports a malformed line, if at all, as a pandas error
without its line number, so ``parse_epw`` first checks what the campus uses, line by line, and names the line
at fault: the header keywords, the LOCATION coordinates, one record per hour, 8,760 hours (8,784 in a leap
year: 29 February is dropped so every year has 365 days), the calendar order from 1 January hour 1, and dry
bulb, dew point, humidity and pressure present and within the dictionary's ranges (its "missing" codes
99.9, 999 and 999999 are refused: the hour would have no weather).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np

from campus.analysis.weather import DAYS_PER_YEAR, HOURS_PER_YEAR, MONTH_DAYS

HEADER_KEYWORDS = (
    "LOCATION",
    "DESIGN CONDITIONS",
    "TYPICAL/EXTREME PERIODS",
    "GROUND TEMPERATURES",
    "HOLIDAYS/DAYLIGHT SAVINGS",
    "COMMENTS 1",
    "COMMENTS 2",
    "DATA PERIODS",
)
HEADER_LINES = len(HEADER_KEYWORDS)
FIELDS_PER_HOUR = 35
LEAP_HOURS = HOURS_PER_YEAR + 24

# (index in the line, name, lowest, highest, the dictionary's "missing" value)
_CHECKED = (
    (6, "dry bulb temperature (°C)", -70.0, 70.0, 99.9),
    (7, "dew point temperature (°C)", -70.0, 70.0, 99.9),
    (8, "relative humidity (%)", 0.0, 110.0, 999.0),
    (9, "atmospheric station pressure (Pa)", 31_000.0, 120_000.0, 999_999.0),
)


class EPWError(ValueError):
    """A malformed EPW file; ``line`` is the 1-based line at fault."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class EPWYear:
    source: str
    latitude: float
    longitude: float
    elevation_m: float
    utc_offset_h: (
        float  # LOCATION's time zone: the hours are local standard time, this many hours east of UTC
    )
    dry_bulb_c: np.ndarray  # 8,760 hours
    dew_point_c: np.ndarray
    relative_humidity: np.ndarray  # fraction 0-1
    pressure_pa: np.ndarray  # hourly station pressure
    leap_day_dropped: bool


def _number(text: str, line: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise EPWError(line, f"{what}: {text.strip()[:40]!r} is not a number") from None
    if not math.isfinite(value):
        raise EPWError(line, f"{what}: {text.strip()[:40]!r} is not a finite number")
    return value


def _integer(text: str, line: int, what: str) -> int:
    value = _number(text, line, what)
    if value != int(value):
        raise EPWError(line, f"{what}: {text.strip()!r} is not a whole number")
    return int(value)


def _decode(body: bytes) -> str:
    if not body or not body.strip():
        raise EPWError(1, "the file is empty; an EPW file has 8 header lines and 8,760 hourly lines")
    nul = body.find(b"\x00")
    if nul >= 0:
        raise EPWError(body.count(b"\n", 0, nul) + 1, "binary data: an EPW file is comma-separated text")
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        return body.decode("latin-1")  # EPW files from older converters are Latin-1


def _check_header(lines: list[str]) -> tuple[str, float, float, float, float]:
    for i, keyword in enumerate(HEADER_KEYWORDS):
        if i >= len(lines):
            raise EPWError(i + 1, f"the file ends in its header: {keyword} expected")
        if lines[i].split(",")[0].strip().upper() != keyword:
            raise EPWError(i + 1, f"header line {i + 1} must start with {keyword}")
    loc = lines[0].split(",")
    if len(loc) < 10:
        raise EPWError(
            1, "LOCATION needs 10 fields: city, state, country, source, WMO, lat, lon, zone, elevation"
        )
    latitude = _number(loc[6], 1, "LOCATION latitude")
    longitude = _number(loc[7], 1, "LOCATION longitude")
    zone = _number(loc[8], 1, "LOCATION time zone")
    elevation = _number(loc[9], 1, "LOCATION elevation")
    if not -90 <= latitude <= 90:
        raise EPWError(1, f"LOCATION latitude {latitude:g} is outside -90..90")
    if not -180 <= longitude <= 180:
        raise EPWError(1, f"LOCATION longitude {longitude:g} is outside -180..180")
    if not -12 <= zone <= 14:
        raise EPWError(1, f"LOCATION time zone {zone:g} h is outside -12..+14")
    if not -1000 <= elevation < 9000:
        raise EPWError(1, f"LOCATION elevation {elevation:g} m is outside -1000..9000")
    periods = lines[HEADER_LINES - 1].split(",")
    if len(periods) < 3:
        raise EPWError(HEADER_LINES, "DATA PERIODS needs the number of periods and of records per hour")
    if _integer(periods[2], HEADER_LINES, "DATA PERIODS records per hour") != 1:
        raise EPWError(HEADER_LINES, "one record per hour is supported (DATA PERIODS records per hour = 1)")
    place = ", ".join(p.strip() for p in loc[1:4] if p.strip() and p.strip() != "-")
    detail = ", ".join(
        p.strip() for p in (loc[4], f"WMO {loc[5].strip()}") if p.strip() and p.strip() != "WMO"
    )
    source = f"EPW file: {place or 'unnamed site'}" + (f" ({detail})" if detail else "")
    return source[:512], latitude, longitude, elevation, zone


def _calendar(leap: bool) -> list[tuple[int, int, int]]:
    """(month, day, hour) of every hour of the year, in order."""
    days = list(MONTH_DAYS)
    if leap:
        days[1] = 29
    return [(m + 1, d, h) for m, n in enumerate(days) for d in range(1, n + 1) for h in range(1, 25)]


def _check_hours(lines: list[str]) -> bool:
    """Check every hourly line; True when the year is a leap year (8,784 hours)."""
    hours = len(lines) - HEADER_LINES
    if hours not in (HOURS_PER_YEAR, LEAP_HOURS):
        if hours < HOURS_PER_YEAR:
            raise EPWError(
                len(lines) + 1,
                f"the file ends after {hours} hourly lines; a year has 8,760 (8,784 in a leap year)",
            )
        if hours < LEAP_HOURS:
            raise EPWError(
                HEADER_LINES + HOURS_PER_YEAR + 1,
                f"{hours} hourly lines; a year has 8,760 (8,784 in a leap year)",
            )
        raise EPWError(HEADER_LINES + LEAP_HOURS + 1, "more hourly lines than a year (8,784 in a leap year)")
    leap = hours == LEAP_HOURS
    for k, (month, day, hour) in enumerate(_calendar(leap)):
        number = HEADER_LINES + k + 1
        fields = lines[number - 1].split(",")
        if len(fields) != FIELDS_PER_HOUR:
            raise EPWError(number, f"{len(fields)} fields; an hourly line has {FIELDS_PER_HOUR}")
        year = _integer(fields[0], number, "year")
        if (month, day) == (2, 29) and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
            raise EPWError(number, f"29 February in {year}, which is not a leap year")
        got = (
            _integer(fields[1], number, "month"),
            _integer(fields[2], number, "day"),
            _integer(fields[3], number, "hour"),
        )
        if got != (month, day, hour):
            raise EPWError(
                number,
                f"month/day/hour {got[0]}/{got[1]}/{got[2]}; {month}/{day}/{hour} expected (one line per hour "
                "from 1 January hour 1 to 31 December hour 24)",
            )
        for index, what, low, high, missing in _CHECKED:
            value = _number(fields[index], number, what)
            if value == missing:
                raise EPWError(number, f"{what} is missing ({fields[index].strip()})")
            if not low <= value <= high:
                raise EPWError(number, f"{what} {value:g} is outside {low:g}..{high:g}")
    return leap


def parse_epw(body: bytes) -> EPWYear:
    """The hourly year of an EPW file; raises ``EPWError`` naming the line at fault."""
    import pvlib  # noqa: PLC0415  (pandas and pvlib load only when a file is uploaded)

    text = _decode(body)
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    source, latitude, longitude, elevation, zone = _check_header(lines)
    leap = _check_hours(lines)
    try:
        data, _meta = pvlib.iotools.read_epw(io.StringIO("\n".join(lines) + "\n"))
    except Exception as exc:  # noqa: BLE001  (the lines passed our checks; whatever pvlib refuses is the file's)
        raise EPWError(HEADER_LINES + 1, f"unreadable hourly data: {exc}") from None
    keep = ~((data["month"].to_numpy() == 2) & (data["day"].to_numpy() == 29))
    columns = {
        name: data[name].to_numpy(dtype=float)[keep]
        for name in ("temp_air", "temp_dew", "relative_humidity", "atmospheric_pressure")
    }
    if len(columns["temp_air"]) != HOURS_PER_YEAR or DAYS_PER_YEAR * 24 != HOURS_PER_YEAR:
        raise EPWError(HEADER_LINES + 1, f"{len(columns['temp_air'])} hours read; 8,760 expected")
    return EPWYear(
        source=source,
        latitude=latitude,
        longitude=longitude,
        elevation_m=elevation,
        utc_offset_h=zone,
        dry_bulb_c=columns["temp_air"],
        dew_point_c=columns["temp_dew"],
        relative_humidity=np.clip(columns["relative_humidity"] / 100.0, 0.0, 1.0),
        pressure_pa=columns["atmospheric_pressure"],
        leap_day_dropped=leap,
    )
