"""The campus's measurements set against its model (docs/live.md): the rows of an upload resolved to the
inventory and stored as rollups, each measured object's peak beside its modelled figure, and the campus
with its racks at their measured peak for headroom on measured load (``basis=measured``)."""

from __future__ import annotations

from datetime import datetime

from campus import measurements_store as store
from campus.analysis import facility
from campus.analysis import measurements as m
from campus.analysis.calibration import calibrate
from campus.analysis.heat import rack_it_kw_by_id
from campus.analysis.replay import replay_weather
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.summary import _clean
from campus.analysis.weather import weather_of
from campus.state import CampusState

DEFAULT_WINDOW_DAYS = 30  # the peak is the highest 5-minute mean of the last 30 days held
DEFAULT_BAND = 0.10  # an alarm when the measured peak is more than 10 % above or below the model
DEFAULT_MARGIN = 0.10  # headroom on measured peak: the peak plus 10 %


def check_names(snap: CampusSnapshot, samples: list[m.Sample], first_line: int) -> None:
    """Every row names one object of the campus; else a ``RowError`` naming the first bad line."""
    known = m.objects(snap)
    for i, s in enumerate(samples):
        ids = known.get((s.object_kind, s.object_name))
        if not ids:
            raise m.RowError(i + first_line, "object_name", f"no {s.object_kind} named {s.object_name!r}")
        if len(ids) > 1:
            raise m.RowError(
                i + first_line, "object_name", f"{len(ids)} objects of kind {s.object_kind} are so named"
            )


def ingest(campus_id: int, samples: list[m.Sample]) -> dict:
    buckets = m.rollup(samples)
    result = store.store(campus_id, buckets)
    return {"rows": len(samples), **result}


def window_series(campus_id: int, days: int):
    latest = store.latest_bucket(campus_id)
    if latest is None:
        return None, None, {}
    start, end = m.window(latest, days)
    return start, end, store.series(campus_id, start, end)


def measured_against_modelled(state: CampusState, days: int, band: float) -> dict:
    snap = state.snap
    start, end, series = window_series(snap.id, days)
    roll = state.rollup()
    modelled = m.modelled_kw(snap, rack_it_kw_by_id(snap), roll.device_load_kw, roll.total_input_kw)
    known = m.objects(snap)
    rows = []
    for (kind, name), buckets in sorted(series.items()):
        ids = known.get((kind, name), [])
        oid = ids[0] if len(ids) == 1 else None
        figure = modelled.get((kind, oid)) if oid is not None else None
        rows.append(m.compare(kind, name, oid, buckets, figure, band).as_dict())
    return {
        "window_start": start,
        "window_end": end,
        "band": band,
        "count": len(rows),
        "alarms": sum(1 for r in rows if r["alarm"]),
        "objects": rows,
    }


def rack_peaks_kw(campus_id: int, snap: CampusSnapshot, days: int, mean: bool = False) -> dict[int, float]:
    """Each measured rack's peak (highest 5-minute mean in the window; ``mean``: its sample-weighted mean
    over the window), by rack id."""
    _, _, series = window_series(campus_id, days)
    known = m.objects(snap)
    out = {}
    for (kind, name), buckets in series.items():
        ids = known.get((kind, name), [])
        if kind == "rack" and len(ids) == 1:
            b = buckets.values()
            if mean:
                out[ids[0]] = sum(x.mean * x.samples for x in b) / sum(x.samples for x in b)
            else:
                out[ids[0]] = max(x.mean for x in b)
    return out


def calibration(state: CampusState, days: int) -> dict:
    """The GPU power fraction and overhead scale fitted to the racks' measured mean power
    (``calibration.calibrate``)."""
    snap = state.snap
    return calibrate(snap, rack_peaks_kw(snap.id, snap, days, mean=True)).as_dict()


def measured_basis(state: CampusState, margin: float, days: int = DEFAULT_WINDOW_DAYS) -> CampusSnapshot:
    """The campus with each measured rack at its peak × (1 + margin) (``measurements.measured_snapshot``)."""
    snap = state.snap
    return m.measured_snapshot(snap, rack_peaks_kw(snap.id, snap, days), margin)


def replayed_facility(
    state: CampusState, start: datetime, end: datetime, gpu_power_fraction: float, max_gap_h: int
) -> dict:
    """The plant model in the campus's measured outdoor weather over [start, end) (``replay.replay_weather``):
    the window's hours and their figures, the year with the window laid over the campus's own weather year,
    and that year untouched beside it. ValueError naming ``start`` when no dry bulb is held in the window."""
    snap = state.snap
    series = {
        metric: store.object_series(snap.id, "campus", snap.name, start, end, metric=metric)
        for metric in m.WEATHER_METRICS
    }
    if not series["dry_bulb_c"]:
        raise ValueError(
            f"start: no measured outdoor dry bulb of the campus between {start.isoformat()} and {end.isoformat()}"
        )
    year = weather_of(snap)
    rw = replay_weather(
        year,
        start,
        end,
        series["dry_bulb_c"],
        series["wet_bulb_c"],
        series["relative_humidity_pct"],
        max_gap_h,
    )
    span = facility.facility_year(snap, rw.dry_bulb_c, rw.wet_bulb_c, gpu_power_fraction)
    over = facility.facility_year(snap, *rw.over(year), gpu_power_fraction)
    typical = facility.campus_facility_year(snap, gpu_power_fraction)
    hourly = {
        "dry_bulb_c": rw.dry_bulb_c.round(2),
        "wet_bulb_c": rw.wet_bulb_c.round(2),
        "it_mw": span.it_mw.round(4),
        "facility_mw": span.facility_mw.round(4),
        "pue": span.pue.round(4),
    }
    return _clean(
        {
            "window_start": start,
            "window_end": end,
            "weather_source": year.source,
            "hours": len(rw.dry_bulb_c),
            "how": rw.counts(),
            "max_gap_hours": max_gap_h,
            "span": span.annual(),
            "hourly": {
                **{k: v.tolist() for k, v in hourly.items()},
                "dry_bulb_how": rw.dry_bulb_how.astype(str).tolist(),
                "humidity_how": rw.humidity_how.astype(str).tolist(),
            },
            "year": over.annual(),
            "typical_year": typical.annual(),
        }
    )
