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
# How far past the server's clock an uploaded time may lie: a meter's clock a little ahead. A choice, not a
# sourced figure: an hour is far beyond NTP's skew and below any time zone's offset (a local time sent as UTC).
FUTURE_TOLERANCE = timedelta(hours=1)
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
COOLING_UNIT_KINDS = ("crah", "cdu", "rear-door", "immersion")  # campus.choices.CoolingUnitKind
COOLING_PLANT_KINDS = (
    "chiller",
    "dry-cooler",
    "cooling-tower",
    "air-chiller",
    "adiabatic-cooler",
)  # campus.choices.CoolingPlantKind
OBJECT_KINDS = (
    "campus",
    "building",
    "hall",
    "rack",
    *POWER_DEVICE_KINDS,
    *COOLING_UNIT_KINDS,
    *COOLING_PLANT_KINDS,
)
MAX_ABS_KW = 1e7  # 10 GW: no object of a campus draws more; a larger figure is a unit mistake


@dataclass(frozen=True)
class MetricSpec:
    """A metric a row may carry: what it is stored as, the factor to the stored unit, the range a value in
    the stored unit must fall in (outside it: a unit mistake), and the object kinds that have it."""

    stored: str
    factor: float
    low: float
    high: float
    unit: str
    kinds: tuple[str, ...]


_COOLING = (*COOLING_UNIT_KINDS, *COOLING_PLANT_KINDS)
METRIC_SPECS = {
    "power_kw": MetricSpec("power_kw", 1.0, 0.0, MAX_ABS_KW, "kW", OBJECT_KINDS),
    "power_w": MetricSpec("power_kw", 0.001, 0.0, MAX_ABS_KW, "kW", OBJECT_KINDS),
    # what a power device delivers (a UPS's or transformer's output meter), beside its input (power_kw)
    "power_out_kw": MetricSpec("power_out_kw", 1.0, 0.0, MAX_ABS_KW, "kW", POWER_DEVICE_KINDS),
    "power_out_w": MetricSpec("power_out_kw", 0.001, 0.0, MAX_ABS_KW, "kW", POWER_DEVICE_KINDS),
    # heat taken (a CDU's or a plant's heat meter: flow × ΔT × ρc_p)
    "heat_kw": MetricSpec("heat_kw", 1.0, 0.0, MAX_ABS_KW, "kW", _COOLING),
    "supply_temp_c": MetricSpec("supply_temp_c", 1.0, -20.0, 120.0, "°C", _COOLING),
    "return_temp_c": MetricSpec("return_temp_c", 1.0, -20.0, 120.0, "°C", _COOLING),
    "flow_lpm": MetricSpec("flow_lpm", 1.0, 0.0, 1e8, "L/min", _COOLING),
    # The outdoor weather at the campus: what /measured/ compares with the weather year and what the plant
    # model reads in place of its typical year for the measured hours (docs/live.md, "Replay"). Bounds: the
    # extremes ever recorded at the surface (-89.2 °C Vostok 1983, 56.7 °C Death Valley 1913, WMO) with a
    # margin; a wet bulb past 40 °C has never been observed.
    "dry_bulb_c": MetricSpec("dry_bulb_c", 1.0, -95.0, 65.0, "°C", ("campus",)),
    "wet_bulb_c": MetricSpec("wet_bulb_c", 1.0, -95.0, 45.0, "°C", ("campus",)),
    "relative_humidity_pct": MetricSpec("relative_humidity_pct", 1.0, 0.0, 100.0, "%", ("campus",)),
    "pue": MetricSpec("pue", 1.0, 1.0, 10.0, "", ("campus",)),
}
# metric -> factor to the stored unit
METRICS = {k: s.factor for k, s in METRIC_SPECS.items()}
STORED_METRIC = {k: s.stored for k, s in METRIC_SPECS.items()}
STORED_UNITS = {s.stored: s.unit for s in METRIC_SPECS.values()}
TEMPERATURE_METRICS = ("supply_temp_c", "return_temp_c", "dry_bulb_c", "wet_bulb_c")
WEATHER_METRICS = ("dry_bulb_c", "wet_bulb_c", "relative_humidity_pct")
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


def _from_unix(seconds: float, line: int) -> datetime:
    if not math.isfinite(seconds):
        raise RowError(line, "time", "not a finite number")
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise RowError(line, "time", f"{seconds:g} Unix seconds is out of range") from None


def parse_time(text: object, line: int, not_after: datetime | None = None) -> datetime:
    """A row's time in UTC; with ``not_after``, a time past it is refused (a future time would end the
    window of ``/measured/`` there, and the site's measurements would fall out of it)."""
    t = _parse_time(text, line)
    if not_after is not None and t > not_after:
        raise RowError(
            line,
            "time",
            f"{t.isoformat()} is in the future (after {not_after.isoformat()}): "
            "a local time labelled UTC, or a clock set wrong?",
        )
    return t


def _parse_time(text: object, line: int) -> datetime:
    if isinstance(text, int | float) and not isinstance(text, bool):
        try:
            return _from_unix(float(text), line)
        except OverflowError:  # an integer beyond a float
            raise RowError(line, "time", "Unix seconds out of range") from None
    if not isinstance(text, str) or not text.strip():
        raise RowError(line, "time", "give an ISO 8601 time or Unix seconds")
    s = text.strip()
    try:
        seconds = float(s)
    except ValueError:
        pass
    else:
        return _from_unix(seconds, line)
    try:
        t = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise RowError(line, "time", f"not an ISO 8601 time: {s[:40]!r}") from None
    if t.tzinfo is None:
        raise RowError(line, "time", "give the time zone (e.g. Z or +00:00)")
    try:
        return t.astimezone(UTC)
    except OverflowError:
        raise RowError(line, "time", f"out of range: {s[:40]!r}") from None


def parse_row(row: Mapping[str, object], line: int, not_after: datetime | None = None) -> Sample:
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
    spec = METRIC_SPECS[metric]
    if kind not in spec.kinds:
        raise RowError(
            line, "metric", f"{metric} is not measured on a {kind} (kinds: {', '.join(spec.kinds)})"
        )
    raw = row["value"]
    if isinstance(raw, bool):
        raise RowError(line, "value", "a number")
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise RowError(line, "value", "a number") from None
    value *= spec.factor
    if not math.isfinite(value) or not spec.low <= value <= spec.high:
        what = "a power" if spec.unit == "kW" else "a value"
        raise RowError(line, "value", f"{what} between {spec.low:g} and {spec.high:g} {spec.unit}".rstrip())
    return Sample(kind, name, spec.stored, parse_time(row["time"], line, not_after), value)


def parse_csv(text: str, not_after: datetime | None = None) -> list[Sample]:
    """Rows of a CSV file with the header ``object_kind,object_name,metric,time,value`` (any order); with
    ``not_after``, a time past it is refused."""
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise RowError(1, "header", f"the first line names the columns {', '.join(COLUMNS)}")
    reader.fieldnames = header
    seen: set[str] = set()
    for name in header:
        if name not in COLUMNS:
            raise RowError(1, name, "unknown column")
        if name in seen:  # the reader would keep the last of the two, silently
            raise RowError(1, name, "the column is named twice")
        seen.add(name)
    out = []
    for row in reader:
        if None in row:
            raise RowError(reader.line_num, "row", "more fields than the header names")
        out.append(parse_row(row, reader.line_num, not_after))
    return out


def parse_json(rows: object, not_after: datetime | None = None) -> list[Sample]:
    if not isinstance(rows, list):
        raise RowError(0, "rows", "a list of rows")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise RowError(i, "row", "an object with " + ", ".join(COLUMNS))
        out.append(parse_row(row, i, not_after))
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


@dataclass(frozen=True)
class DayRollup:
    """One series's day, kept so that the buckets a write brings merge into it exactly (docs/live.md,
    "Storage"): the sum and count of its samples (the mean is their ratio), its peak (highest 5-minute mean),
    and the highest mean before its last bucket: the one bucket a sync writes again (its unfinished last
    bucket, read again whole) may come back lower, and the peak is then that of the others."""

    total: float  # sum over the day's buckets of mean x samples
    samples: int
    peak: float
    earlier_peak: float | None  # highest 5-minute mean before ``last_start``; None: no earlier bucket
    last_start: datetime  # the day's last bucket

    @property
    def mean(self) -> float:
        return self.total / self.samples


def merge_day(
    held: DayRollup | None, written: Mapping[datetime, tuple[Bucket, Bucket | None]]
) -> DayRollup | None:
    """The day after ``written`` (bucket start -> (new bucket, the bucket it replaces or None)) is stored
    over ``held``: sums less the replaced buckets' plus the new ones', the peak from the held peaks and the
    new means. Its cost is that of ``written``, never of the day so far.

    None when ``held`` cannot tell: a bucket before the last that held the earlier peak came back lower (the
    next highest is not kept), or the replaced buckets do not match ``held`` (a day written before these
    sums were kept). The day is then recomputed from its buckets: ``merge_day(None, {start: (bucket, None)})``."""
    if not written:
        return held
    last = max(written)
    if held is None:
        if any(old is not None for _, old in written.values()):
            return None
        earlier = max((b.mean for t, (b, _) in written.items() if t < last), default=None)
        return DayRollup(
            sum(b.mean * b.samples for b, _ in written.values()),
            sum(b.samples for b, _ in written.values()),
            written[last][0].mean if earlier is None else max(earlier, written[last][0].mean),
            earlier,
            last,
        )
    total, samples = held.total, held.samples
    low = float("-inf") if held.earlier_peak is None else held.earlier_peak
    before = low  # the highest mean before the held last bucket, after the write
    for t, (new, old) in written.items():
        total += new.mean * new.samples - (old.mean * old.samples if old is not None else 0.0)
        samples += new.samples - (old.samples if old is not None else 0)
        if t < held.last_start:
            if old is not None and old.mean == low and new.mean < old.mean:
                return None
            before = max(before, new.mean)
        elif t > held.last_start and old is not None:
            return None
    # the held last bucket after the write; ``held.peak`` stands for it beside ``before``: max(before,
    # held.peak) = max(before, its mean), as before >= held.earlier_peak
    at_last = written[held.last_start][0].mean if held.last_start in written else held.peak
    if last <= held.last_start:
        return DayRollup(total, samples, max(before, at_last), _finite(before), held.last_start)
    earlier = max(before, at_last, *(b.mean for t, (b, _) in written.items() if held.last_start < t < last))
    return DayRollup(total, samples, max(earlier, written[last][0].mean), earlier, last)


def _finite(x: float) -> float | None:
    return None if x == float("-inf") else x


# ---------------------------------------------------------------- measured against modelled


@dataclass(frozen=True)
class Comparison:
    object_kind: str
    object_name: str
    object_id: int | None
    metric: str
    unit: str
    measured_peak: float  # the highest 5-minute mean
    measured_max: float  # the highest sample
    measured_mean: float
    modelled: float | None  # the model's figure (per bucket: its mean over the buckets paired)
    basis: str  # "peak": the peak against one modelled figure; "paired": bucket by bucket
    deviation: float | None  # a fraction of the model, or K for a temperature (``deviation_unit``)
    deviation_unit: str  # "fraction" | "K"
    rms_residual: float | None  # RMS of (5-minute mean - model), in ``unit``
    trend_per_day: float | None  # slope of the daily peaks (least squares), ``unit`` per day
    alarm: str | None  # "over" | "under" | None
    days: int

    def as_dict(self) -> dict:
        out = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()}
        if self.unit == "kW":  # the power rows' names since the first version of the API
            for name in ("measured_peak", "measured_max", "measured_mean", "modelled"):
                out[f"{name}_kw"] = out[name]
            out["trend_kw_per_day"] = out["trend_per_day"]
        return out


def trend_kw_per_day(daily_peaks: Mapping[datetime, float]) -> float | None:
    """Least-squares slope of the daily peaks, per day (kW per day for a power); None below two days."""
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
    modelled: float | Mapping[datetime, float] | None,
    band: float,
    metric: str = "power_kw",
    band_k: float = 2.0,
) -> Comparison:
    """One object's measured series against the model: with one modelled figure, its peak (the highest
    5-minute mean) against it; with a figure per bucket (the model at the measured conditions), bucket by
    bucket. A temperature's deviation is in K against ``band_k``; any other's a fraction against ``band``."""
    peak = max(b.mean for b in buckets.values())
    top = max(b.max for b in buckets.values())
    weight = sum(b.samples for b in buckets.values())
    mean = sum(b.mean * b.samples for b in buckets.values()) / weight
    daily: dict[datetime, float] = {}
    for start, b in buckets.items():
        day = start.replace(hour=0, minute=0, second=0, microsecond=0)
        daily[day] = max(daily.get(day, float("-inf")), b.mean)
    kelvin = metric in TEMPERATURE_METRICS
    figure = deviation = alarm = rms = None
    basis = "peak"
    if isinstance(modelled, Mapping):
        basis = "paired"
        paired = sorted(t for t in buckets if t in modelled)
        if paired:
            got = np.array([buckets[t].mean for t in paired])
            want = np.array([modelled[t] for t in paired])
            figure = float(want.mean())
            rms = float(np.sqrt(np.mean((got - want) ** 2)))
            measured, reference = float(got.mean()), figure
        else:
            measured = reference = None
    elif modelled is not None:
        figure = float(modelled)
        rms = float(np.sqrt(np.mean([(b.mean - figure) ** 2 for b in buckets.values()])))
        measured, reference = peak, figure
    else:
        measured = reference = None
    if measured is not None and reference is not None:
        if kelvin:
            deviation = measured - reference
        elif reference > 0:
            deviation = (measured - reference) / reference
        limit = band_k if kelvin else band
        if deviation is not None:
            alarm = "over" if deviation > limit else "under" if deviation < -limit else None
    return Comparison(
        object_kind,
        object_name,
        object_id,
        metric,
        STORED_UNITS.get(metric, ""),
        peak,
        top,
        mean,
        figure,
        basis,
        deviation,
        "K" if kelvin else "fraction",
        rms,
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
    A power device, a cooling unit and a cooling plant are named by their own kind; the campus by its name."""
    out: dict[tuple[str, str], list[int | None]] = {("campus", snap.name): [snap.id]}
    for kind, rows in (("building", snap.buildings), ("hall", snap.halls), ("rack", snap.racks)):
        for row in rows:
            out.setdefault((kind, row.name), []).append(row.id)
    for group in (snap.power_devices, snap.cooling_units, snap.cooling_plants):
        for d in group:
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
