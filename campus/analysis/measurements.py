"""Measurements against the model: rollups of measured samples, measured peaks, deviations and the load basis
of headroom on measured peak (docs/live.md).

Pure: plain rows in, plain figures out. The database keeps the rollups (``campus.models.measurements``), the
API reads them (``campus/api/measured_views.py``).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import numpy as np

from campus.analysis.snapshot import CampusSnapshot

BUCKET_S = 300  # the rollup bucket: 5 minutes
POWER_DEVICE_KINDS = (
    "substation",
    "transformer",
    "switchgear",
    "generator",
    "ups",
    "pdu",
    "busway",
    "rpp",
    "sst",
    "rectifier",
    "dc-busway",
)  # campus.choices.PowerDeviceKind
OBJECT_KINDS = ("campus", "building", "hall", "rack", *POWER_DEVICE_KINDS)
# metric -> factor to the stored unit (power: kW)
METRICS = {
    "power_kw": 1.0,
    "power_w": 0.001,
    "dry_bulb_c": 1.0,
    "wet_bulb_c": 1.0,
    "relative_humidity_pct": 1.0,
}
STORED_METRIC = {m: m for m in METRICS} | {"power_w": "power_kw"}
MAX_ABS_KW = 1e7  # 10 GW: no object of a campus draws more; a larger figure is a unit mistake
# The outdoor weather at the campus (object kind ``campus``): what the plant model reads in place of its
# typical year for the measured hours (docs/live.md, "Replay"). Bounds: the extremes ever recorded at the
# surface (-89.2 °C Vostok 1983, 56.7 °C Death Valley 1913, WMO) with a margin; a wet bulb past 40 °C has
# never been observed.
WEATHER_METRICS = ("dry_bulb_c", "wet_bulb_c", "relative_humidity_pct")
RANGES = {
    "power_kw": (0.0, MAX_ABS_KW, "a power between 0 and 1e+07 kW"),
    "dry_bulb_c": (-95.0, 65.0, "an outdoor temperature between -95 and 65 °C"),
    "wet_bulb_c": (-95.0, 45.0, "a wet-bulb temperature between -95 and 45 °C"),
    "relative_humidity_pct": (0.0, 100.0, "a relative humidity between 0 and 100 %"),
}
COLUMNS = ("object_kind", "object_name", "metric", "time", "value")


class RowError(ValueError):
    """A bad row: ``line`` is its line (CSV, header = line 1) or index (JSON, from 0)."""

    def __init__(self, line: int, field: str, message: str) -> None:
        super().__init__(f"line {line}: {field}: {message}")
        self.line, self.field, self.message = line, field, message


@dataclass(frozen=True)
class Sample:
    object_kind: str
    object_name: str
    metric: str  # stored metric (kW)
    time: datetime
    value: float


@dataclass
class Bucket:
    mean: float
    max: float
    samples: int


def parse_time(text: object, line: int) -> datetime:
    if isinstance(text, int | float) and not isinstance(text, bool):
        if not math.isfinite(text):
            raise RowError(line, "time", "not a finite number")
        return datetime.fromtimestamp(float(text), tz=UTC)
    if not isinstance(text, str) or not text.strip():
        raise RowError(line, "time", "give an ISO 8601 time or Unix seconds")
    s = text.strip()
    try:
        return datetime.fromtimestamp(float(s), tz=UTC)
    except ValueError:
        pass
    try:
        t = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise RowError(line, "time", f"not an ISO 8601 time: {s[:40]!r}") from None
    if t.tzinfo is None:
        raise RowError(line, "time", "give the time zone (e.g. Z or +00:00)")
    return t.astimezone(UTC)


def parse_row(row: Mapping[str, object], line: int) -> Sample:
    unknown = set(row) - set(COLUMNS)
    if unknown:
        raise RowError(line, sorted(unknown)[0], "unknown field")
    for name in COLUMNS:
        if row.get(name) in (None, ""):
            raise RowError(line, name, "required")
    kind = str(row["object_kind"]).strip()
    if kind not in OBJECT_KINDS:
        raise RowError(line, "object_kind", f"one of {', '.join(OBJECT_KINDS)}")
    name = str(row["object_name"]).strip()
    if not name or len(name) > 128:
        raise RowError(line, "object_name", "1 to 128 characters")
    metric = str(row["metric"]).strip()
    if metric not in METRICS:
        raise RowError(line, "metric", f"one of {', '.join(METRICS)}")
    raw = row["value"]
    if isinstance(raw, bool):
        raise RowError(line, "value", "a number")
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise RowError(line, "value", "a number") from None
    value *= METRICS[metric]
    if metric in WEATHER_METRICS and kind != "campus":
        raise RowError(
            line, "object_kind", "the outdoor weather is measured for the campus (object_kind campus)"
        )
    if not in_range(STORED_METRIC[metric], value):
        raise RowError(line, "value", RANGES[STORED_METRIC[metric]][2])
    return Sample(kind, name, STORED_METRIC[metric], parse_time(row["time"], line), value)


def in_range(stored_metric: str, value: float) -> bool:
    lo, hi, _ = RANGES[stored_metric]
    return math.isfinite(value) and lo <= value <= hi


def parse_csv(text: str) -> list[Sample]:
    """Rows of a CSV file with the header ``object_kind,object_name,metric,time,value`` (any order)."""
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise RowError(1, "header", f"the first line names the columns {', '.join(COLUMNS)}")
    reader.fieldnames = header
    for name in header:
        if name not in COLUMNS:
            raise RowError(1, name, "unknown column")
    out = []
    for row in reader:
        if None in row:
            raise RowError(reader.line_num, "row", "more fields than the header names")
        out.append(parse_row(row, reader.line_num))
    return out


def parse_json(rows: object) -> list[Sample]:
    if not isinstance(rows, list):
        raise RowError(0, "rows", "a list of rows")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise RowError(i, "row", "an object with " + ", ".join(COLUMNS))
        out.append(parse_row(row, i))
    return out


def bucket_start(t: datetime, seconds: int = BUCKET_S) -> datetime:
    epoch = int(t.timestamp()) // seconds * seconds
    return datetime.fromtimestamp(epoch, tz=UTC)


def rollup(samples: Iterable[Sample]) -> dict[tuple[str, str, str, datetime], Bucket]:
    """5-minute mean and max of the samples per (object kind, object name, metric, bucket start).

    Two samples of one series at the same instant count once (the later row wins), so a file that repeats
    its rows gives the rollup of the file without them."""
    series: dict[tuple[str, str, str, datetime], dict[datetime, float]] = {}
    for s in samples:
        key = (s.object_kind, s.object_name, s.metric, bucket_start(s.time))
        series.setdefault(key, {})[s.time] = s.value
    return {
        key: Bucket(mean=sum(v.values()) / len(v), max=max(v.values()), samples=len(v))
        for key, v in series.items()
    }


# ---------------------------------------------------------------- measured against modelled


@dataclass(frozen=True)
class Comparison:
    object_kind: str
    object_name: str
    object_id: int | None
    metric: str
    measured_peak_kw: float
    measured_max_kw: float
    measured_mean_kw: float
    modelled_kw: float | None
    deviation: float | None  # (measured peak - modelled) / modelled
    trend_kw_per_day: float | None  # slope of the daily peaks (least squares)
    alarm: str | None  # "over" | "under" | None
    days: int

    def as_dict(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def trend_kw_per_day(daily_peaks: Mapping[datetime, float]) -> float | None:
    """Least-squares slope of the daily peaks, kW per day; None below two days."""
    if len(daily_peaks) < 2:
        return None
    days = sorted(daily_peaks)
    x = np.array([(d - days[0]).total_seconds() / 86400.0 for d in days])
    y = np.array([daily_peaks[d] for d in days])
    return float(np.polyfit(x, y, 1)[0])


def compare(
    object_kind: str,
    object_name: str,
    object_id: int | None,
    buckets: Mapping[datetime, Bucket],
    modelled_kw: float | None,
    band: float,
) -> Comparison:
    """One object's measured peak (the highest 5-minute mean) against its modelled figure."""
    peak = max(b.mean for b in buckets.values())
    top = max(b.max for b in buckets.values())
    weight = sum(b.samples for b in buckets.values())
    mean = sum(b.mean * b.samples for b in buckets.values()) / weight
    daily: dict[datetime, float] = {}
    for start, b in buckets.items():
        day = start.replace(hour=0, minute=0, second=0, microsecond=0)
        daily[day] = max(daily.get(day, 0.0), b.mean)
    deviation = alarm = None
    if modelled_kw is not None and modelled_kw > 0:
        deviation = (peak - modelled_kw) / modelled_kw
        alarm = "over" if deviation > band else "under" if deviation < -band else None
    return Comparison(
        object_kind,
        object_name,
        object_id,
        "power_kw",
        peak,
        top,
        mean,
        modelled_kw,
        deviation,
        trend_kw_per_day(daily),
        alarm,
        len(daily),
    )


def measured_snapshot(
    snap: CampusSnapshot, rack_peak_kw: Mapping[int, float], margin: float
) -> CampusSnapshot:
    """The campus with every measured rack's load set to its measured peak × (1 + margin); racks without a
    measurement keep their modelled load. The servers are kept (GPU counts, placement) and the difference
    is carried as the rack's ``extra_it_kw``, so ``snap.rack_it_kw`` is the measured basis."""
    racks = []
    for r in snap.racks:
        peak = rack_peak_kw.get(r.id)
        if peak is None:
            racks.append(r)
            continue
        servers_kw = snap.rack_it_kw(r) - r.extra_it_kw
        racks.append(replace(r, extra_it_kw=peak * (1.0 + margin) - servers_kw))
    return replace(snap, racks=tuple(racks))


def window(latest: datetime, days: int) -> tuple[datetime, datetime]:
    """The comparison window: ``days`` days ending with the latest bucket held."""
    end = latest + timedelta(seconds=BUCKET_S)
    return end - timedelta(days=days), end


def objects(snap: CampusSnapshot) -> dict[tuple[str, str], list[int | None]]:
    """The inventory objects a measurement can name, (kind, name) -> ids (more than one: an ambiguous name).
    A power device is named by its own kind; the campus by its name."""
    out: dict[tuple[str, str], list[int | None]] = {("campus", snap.name): [snap.id]}
    for kind, rows in (("building", snap.buildings), ("hall", snap.halls), ("rack", snap.racks)):
        for row in rows:
            out.setdefault((kind, row.name), []).append(row.id)
    for d in snap.power_devices:
        out.setdefault((d.kind, d.name), []).append(d.id)
    return out


def modelled_kw(
    snap: CampusSnapshot,
    rack_kw: Mapping[int, float],
    device_input_kw: Mapping[int, float],
    campus_input_kw: float,
) -> dict[tuple[str, int], float]:
    """The modelled figure each measurement is set against, (kind, id) -> kW: a rack's IT load, a hall's
    and a building's rack IT summed, a power device's input in the healthy roll-up, the campus's draw from
    its utility feeds (the roll-up's ``total_input_kw``)."""
    out: dict[tuple[str, int], float] = {("campus", snap.id): campus_input_kw}
    for r in snap.racks:
        kw = rack_kw.get(r.id, 0.0)
        out[("rack", r.id)] = kw
        out[("hall", r.hall_id)] = out.get(("hall", r.hall_id), 0.0) + kw
        out[("building", r.building_id)] = out.get(("building", r.building_id), 0.0) + kw
    for d in snap.power_devices:
        out[(d.kind, d.id)] = device_input_kw.get(d.id, 0.0)
    return out
