"""The campus's measurements set against its model (docs/live.md): the rows of an upload resolved to the
inventory and stored as rollups, each measured object's peak beside its modelled figure, and the campus
with its racks at their measured peak for headroom on measured load (``basis=measured``)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime

import numpy as np

from campus import measurements_store as store
from campus.analysis import facility
from campus.analysis import measurements as m
from campus.analysis.calibration import calibrate
from campus.analysis.calibration_facility import fit_conversion, fit_plant
from campus.analysis.heat import rack_it_kw_by_id
from campus.analysis.measured_model import device_outputs_kw, modelled_figures, plant_conditions
from campus.analysis.replay import replay_weather
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.summary import finite_json
from campus.analysis.weather import weather_of
from campus.models import Campus
from campus.state import CampusState

DEFAULT_WINDOW_DAYS = 30  # the peak is the highest 5-minute mean of the last 30 days held
DEFAULT_BAND = 0.10  # an alarm when the measured peak is more than 10 % above or below the model
DEFAULT_BAND_K = 2.0  # a temperature's alarm: more than 2 K from the model
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


def measurement_campus_id(campus_id: int) -> int:
    """The campus whose measurements a campus is set against: its own; a branch holding none, its nearest
    ancestor's that holds some (a branch is another design of the same site, its objects keep their names)."""
    cid: int | None = campus_id
    seen: set[int] = set()
    while cid is not None and cid not in seen:
        if store.holds(cid):
            return cid
        seen.add(cid)
        cid = Campus.objects.filter(pk=cid).values_list("parent_id", flat=True).first()
    return campus_id


def window_series(campus_id: int, days: int, all_metrics: bool = False):
    """(start, end, series) of the window: power series by (kind, name), or with ``all_metrics`` every
    series by (kind, name, metric)."""
    source = measurement_campus_id(campus_id)
    latest = store.latest_bucket(source)
    if latest is None:
        return None, None, {}
    start, end = m.window(latest, days)
    if not all_metrics:
        return start, end, store.series(source, start, end)
    series = store.all_series(source, start, end)
    if source != campus_id:  # the site's campus-wide series name the ancestor: they are this campus's too
        names = dict(Campus.objects.filter(pk__in=[source, campus_id]).values_list("pk", "name"))
        series = {
            (k, names[campus_id] if (k, n) == ("campus", names[source]) else n, metric): b
            for (k, n, metric), b in series.items()
        }
    return start, end, series


def measured_against_modelled(
    state: CampusState, days: int, band: float, band_k: float = DEFAULT_BAND_K, metric: str | None = None
) -> dict:
    snap = state.snap
    start, end, series = window_series(snap.id, days, all_metrics=True)
    figures = modelled_figures(snap, state.rollup(), rack_it_kw_by_id(snap), series)
    known = m.objects(snap)
    rows = []
    for (kind, name, stored), buckets in sorted(series.items()):
        if metric is not None and stored != metric:
            continue
        ids = known.get((kind, name), [])
        oid = ids[0] if len(ids) == 1 else None
        figure = figures.get((kind, oid, stored)) if oid is not None else None
        rows.append(m.compare(kind, name, oid, buckets, figure, band, stored, band_k).as_dict())
    return {
        "window_start": start,
        "window_end": end,
        "band": band,
        "band_k": band_k,
        "measurements_of": measurement_campus_id(snap.id),
        "count": len(rows),
        "alarms": sum(1 for r in rows if r["alarm"]),
        "objects": rows,
    }


def facility_calibration(state: CampusState, days: int) -> dict:
    """Conversion efficiencies and plant coefficients fitted to the window's measurements
    (``calibration_facility``); an object whose series do not allow a fit is listed in ``skipped``."""
    snap = state.snap
    start, end, series = window_series(snap.id, days, all_metrics=True)
    conversion, plants, skipped = [], [], []
    outputs = device_outputs_kw(snap, state.rollup(), rack_it_kw_by_id(snap), series)
    for d in snap.power_devices:
        if d.id not in outputs:
            continue
        source, out = outputs[d.id]
        inp = series.get((d.kind, d.name, "power_kw"), {})
        times = sorted(set(out) & set(inp))
        try:
            fit = fit_conversion(
                d.kind,
                d.name,
                np.array([out[t] for t in times]),
                np.array([inp[t].mean for t in times]),
                d.efficiency,
            )
            conversion.append({**fit.as_dict(), "output_from": source})
        except (ValueError, RuntimeError) as exc:  # RuntimeError: the fit did not converge
            skipped.append({"object": f"{d.kind} {d.name}", "reason": str(exc)})
    for c in plant_conditions(snap, series).values():
        power = series.get((c.plant.kind, c.plant.name, "power_kw"), {})
        keep = [i for i, t in enumerate(c.times) if t in power]
        sub = replace(
            c,
            times=[c.times[i] for i in keep],
            heat_kw=c.heat_kw[keep],
            dry_bulb_c=c.dry_bulb_c[keep],
            wet_bulb_c=c.wet_bulb_c[keep],
        )
        measured = np.array([power[t].mean for t in sub.times])
        try:
            fit = fit_plant(
                c.plant.kind,
                c.plant.name,
                sub.heat_kw,
                sub.dry_bulb_c,
                measured,
                c.plant.cop,
                sub.power_kw,
                sub.power_kw(),
            )
            plants.append(fit.as_dict())
        except (ValueError, RuntimeError) as exc:  # RuntimeError: the fit did not converge
            skipped.append({"object": f"{c.plant.kind} {c.plant.name}", "reason": str(exc)})
    return {
        "window_start": start,
        "window_end": end,
        "measurements_of": measurement_campus_id(snap.id),
        "conversion": conversion,
        "plants": plants,
        "skipped": skipped,
    }


def rack_peaks_kw(campus_id: int, snap: CampusSnapshot, days: int, mean: bool = False) -> dict[int, float]:
    """Each measured rack's peak (highest 5-minute mean in the window; ``mean``: its sample-weighted mean
    over the window), by rack id."""
    known = m.objects(snap)
    if not mean:
        latest = store.latest_bucket(campus_id)
        if latest is None:
            return {}
        start, end = m.window(latest, days)
        out: dict[int, float] = {}
        for name, peak in store.peaks(campus_id, start, end, "rack").items():
            ids = known.get(("rack", name), [])
            if len(ids) == 1 and ids[0] is not None:
                out[ids[0]] = peak
        return out
    _, _, series = window_series(campus_id, days)
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
    return measured_state(state, margin, days).snap


def measured_state(state: CampusState, margin: float, days: int = DEFAULT_WINDOW_DAYS) -> CampusState:
    """``state`` with each measured rack at its peak × (1 + margin): a state of its own, so the summary, the
    floor map and placement computed on it are kept with it like the design basis's figures. It is kept
    with the design state under the racks' peaks themselves (measurements are not part of the campus
    revision): new measurements that move a peak give a new state, the same peaks the one held."""
    peaks = rack_peaks_kw(state.snap.id, state.snap, days)
    digest = hashlib.sha256(repr(sorted(peaks.items())).encode()).hexdigest()[:16]

    def build() -> CampusState:
        return CampusState(
            revision=state.revision,
            as_of=state.as_of,
            snap=m.measured_snapshot(state.snap, peaks, margin),
            hall_geometry=state.hall_geometry,
            rack_size=state.rack_size,
            basis=basis_of("measured", margin, len(peaks), days),
        )

    return state.memo(("measured_state", margin, days, digest), build)


def on_basis(state: CampusState, params: dict) -> CampusState:
    """The state an answer reads for its ``basis`` and ``margin`` parameters: the campus's own, or the one
    with its measured racks at their peak plus the margin (docs/live.md)."""
    if params.get("basis") == "measured":
        return measured_state(state, params["margin"])
    return state


def basis_of(kind: str, margin: float | None = None, racks: int = 0, days: int = DEFAULT_WINDOW_DAYS) -> dict:
    """What an answer states about its load basis: ``design`` (the model's load), or ``measured`` with the
    margin over the measured peak, the measured racks and the window."""
    if kind == "design":
        return {"basis": "design"}
    return {"basis": "measured", "margin": margin, "measured_racks": racks, "window_days": days}


def object_measured(
    state: CampusState,
    kind: str,
    name: str,
    days: int,
    band: float,
    metric: str = "power_kw",
    band_k: float = DEFAULT_BAND_K,
) -> dict:
    """One object's 5-minute means and maxima of one metric over the window (``days`` ending with the latest
    bucket held for the campus, or the ancestor it is measured through) beside the model's figure for it, and
    its comparison (``/measured/``'s row: the same figures, ``modelled_figures``) when measured. A figure
    given per bucket (the model at the measured conditions) is ``modelled_series``, aligned with ``times``.
    Raises ``ValueError`` naming ``object_name`` when the campus has no such object, ``metric`` when the
    kind has not that metric."""
    snap = state.snap
    ids = m.objects(snap).get((kind, name), [])
    if len(ids) != 1:
        why = f"no {kind} named {name!r}" if not ids else f"{len(ids)} objects of kind {kind} are so named"
        raise ValueError(f"object_name: {why}")
    if kind not in m.METRIC_SPECS[metric].kinds:
        raise ValueError(f"metric: {metric} is not measured on a {kind}")
    source = measurement_campus_id(snap.id)
    latest = store.latest_bucket(source)
    start = end = None
    series: dict = {}
    if latest is not None:
        start, end = m.window(latest, days)
        stored_campus = Campus.objects.filter(pk=source).values_list("name", flat=True).first() or snap.name
        stored_name = stored_campus if kind == "campus" else name
        series = {
            (kind, name, k): b
            for k, b in store.object_all_series(source, kind, stored_name, start, end).items()
        }
        # the outdoor temperature a plant's power is modelled at (``plant_conditions``)
        series[("campus", snap.name, "dry_bulb_c")] = store.object_series(
            source, "campus", stored_campus, start, end, metric="dry_bulb_c"
        )
    roll = state.rollup()
    figure = modelled_figures(snap, roll, rack_it_kw_by_id(snap), series).get((kind, ids[0], metric))
    buckets = series.get((kind, name, metric), {})
    comparison = (
        m.compare(kind, name, ids[0], buckets, figure, band, metric, band_k).as_dict() if buckets else None
    )
    if isinstance(figure, dict):
        modelled = comparison["modelled"] if comparison else None
        per_bucket = [None if t not in figure else round(figure[t], 4) for t in buckets]
    else:
        modelled = None if figure is None else round(figure, 4)
        per_bucket = None
    means = [round(b.mean, 4) for b in buckets.values()]
    maxima = [round(b.max, 4) for b in buckets.values()]
    out = {
        "object_kind": kind,
        "object_name": name,
        "object_id": ids[0],
        "metric": metric,
        "unit": m.STORED_UNITS.get(metric, ""),
        "modelled": modelled,
        "modelled_series": per_bucket,
        "window_start": start,
        "window_end": end,
        "band": band,
        "band_k": band_k,
        "comparison": comparison,
        "times": [int(t.timestamp()) for t in buckets],
        "mean": means,
        "max": maxima,
    }
    if metric == "power_kw":  # the names of the first version of the answer
        out.update(modelled_kw=modelled, mean_kw=means, max_kw=maxima)
    return out


def replayed_facility(
    state: CampusState, start: datetime, end: datetime, gpu_power_fraction: float, max_gap_h: int
) -> dict:
    """The plant model in the campus's measured outdoor weather over [start, end) (``replay.replay_weather``):
    the window's hours and their figures beside the same hours of the typical year, the year with the window
    laid over the campus's own weather year, and that year untouched beside it. A branch holding no
    measurements reads its ancestor's site weather. ValueError naming ``start`` when no dry bulb is held in
    the window."""
    snap = state.snap
    source = measurement_campus_id(snap.id)
    site = snap.name
    if source != snap.id:
        site = Campus.objects.filter(pk=source).values_list("name", flat=True).first() or snap.name
    series = {
        metric: store.object_points(source, "campus", site, start, end, metric=metric)
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
    # the same hours in the typical year: the window's figures as the planner's year has them
    same = facility.facility_year(
        snap, year.dry_bulb_c[rw.year_hours], year.wet_bulb_c[rw.year_hours], gpu_power_fraction
    )
    typical = facility.campus_facility_year(snap, gpu_power_fraction)
    hourly = {
        "dry_bulb_c": rw.dry_bulb_c.round(2),
        "wet_bulb_c": rw.wet_bulb_c.round(2),
        "it_mw": span.it_mw.round(4),
        "facility_mw": span.facility_mw.round(4),
        "pue": span.pue.round(4),
    }
    return finite_json(
        {
            "window_start": start,
            "window_end": end,
            "weather_source": year.source,
            "hours": len(rw.dry_bulb_c),
            "how": rw.counts(),
            "max_gap_hours": max_gap_h,
            "span": span.annual(),
            "typical_span": same.annual(),
            "hourly": {
                **{k: v.tolist() for k, v in hourly.items()},
                "dry_bulb_how": rw.dry_bulb_how.astype(str).tolist(),
                "humidity_how": rw.humidity_how.astype(str).tolist(),
            },
            "year": over.annual(),
            "typical_year": typical.annual(),
        }
    )
