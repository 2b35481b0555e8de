"""The campus's measurements set against its model (docs/live.md): the rows of an upload resolved to the
inventory and stored as rollups, each measured object's peak beside its modelled figure, and the campus
with its racks at their measured peak for headroom on measured load (``basis=measured``)."""

from __future__ import annotations

import hashlib

from campus import measurements_store as store
from campus.analysis import measurements as m
from campus.analysis.calibration import calibrate
from campus.analysis.heat import rack_it_kw_by_id
from campus.analysis.snapshot import CampusSnapshot
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


def object_measured(state: CampusState, kind: str, name: str, days: int, band: float) -> dict:
    """One object's 5-minute means and maxima over the window (``days`` ending with the latest bucket held
    for the campus) beside its modelled figure, and its comparison (``/measured/``'s row) when measured.
    Raises ``ValueError`` naming ``object_name`` when the campus has no such object."""
    snap = state.snap
    ids = m.objects(snap).get((kind, name), [])
    if len(ids) != 1:
        why = f"no {kind} named {name!r}" if not ids else f"{len(ids)} objects of kind {kind} are so named"
        raise ValueError(f"object_name: {why}")
    roll = state.rollup()
    modelled = m.modelled_kw(snap, rack_it_kw_by_id(snap), roll.device_load_kw, roll.total_input_kw)
    figure = modelled.get((kind, ids[0]))
    latest = store.latest_bucket(snap.id)
    buckets = {}
    start = end = None
    if latest is not None:
        start, end = m.window(latest, days)
        buckets = store.object_series(snap.id, kind, name, start, end)
    comparison = m.compare(kind, name, ids[0], buckets, figure, band).as_dict() if buckets else None
    return {
        "object_kind": kind,
        "object_name": name,
        "object_id": ids[0],
        "modelled_kw": None if figure is None else round(figure, 4),
        "window_start": start,
        "window_end": end,
        "band": band,
        "comparison": comparison,
        "times": [int(t.timestamp()) for t in buckets],
        "mean_kw": [round(b.mean, 4) for b in buckets.values()],
        "max_kw": [round(b.max, 4) for b in buckets.values()],
    }
