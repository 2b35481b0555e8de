"""The analytics endpoints' data: one snapshot per campus, cached until the campus' rows change.

A campus' *version* is the row count and newest ``last_updated`` of every table it is built from (the
catalog included), read in one query. While the version holds, the snapshot, its roll-up and the default
summary are reused, so repeated dashboard and script calls cost one small query. Counts catch deletions,
which leave no newer ``last_updated`` behind.

Every figure counts what is in service on one day, ``as_of`` (default today, ``timezone.localdate()``;
docs/planning.md, "Phases"): a state is kept per campus and day.

The cache lives in the process (each gunicorn worker keeps its own); it holds a few campuses at most.
A version read is reused for ``VERSION_TTL_S`` seconds, unless this process saves or deletes a campus row
in the meantime (then the next request reads it again): a change made through another worker is seen at
most that long after it was committed.

The shared cache: the rendered bytes and ETag of the default summary and whole-campus floor map (no query
parameters: today, the default assumptions) are also kept in Django's ``analytics`` cache (Redis, or files
on the embedded default), shared by every web and worker process and keyed by the campus, a digest of its
version, the day and the endpoint. A process that does not hold the campus' state answers those two from
there after the version read, without building a snapshot; the jobs that generate or import a campus fill
it (``warm``), so a new 1M-GPU campus's first summary is not a 30 s computation. An entry is never served
for another version: the key holds it.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from django.core.cache import caches
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from campus import models
from campus.analysis import facility, power, summary
from campus.analysis import floor_map as floor_map_mod
from campus.analysis import impact as impact_mod
from campus.analysis import power_chain as power_chain_mod
from campus.analysis import redundancy as redundancy_mod
from campus.analysis import stranded as stranded_mod
from campus.analysis.cooling import pools_failing_redundancy
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.weather import reference_year, weather_of
from campus.collector import collector_paused
from campus.snapshot_adapter import build_snapshot
from campus.versions import (  # noqa: F401 (the analytics' names of the version)
    _VERSION_SOURCES,
    _version_sql,
    campus_exists,
    campus_version,
    catalog_version,
    table_versions,
    version_digest,
)
from twin.api import renderers

MAX_CAMPUSES = 4
MAX_DAYS_PER_CAMPUS = 8  # states kept per campus (one per as_of day asked for), oldest first out
VERSION_TTL_S = 1.0
MAX_RESULTS_PER_CAMPUS = 32
SHARED_CACHE = "analytics"  # the alias in settings.CACHES

log = logging.getLogger(__name__)

# The campus version (what the state, the shared cache and a run's recorded campus state are keyed on)
# lives in campus.versions; its names stay importable from here.
# campus id -> (version, monotonic time it was read); cleared by any local write to a campus model.
_recent_versions: dict[int, tuple[tuple, float]] = {}


def _note_write(sender, **kwargs) -> None:
    if sender._meta.app_label == "campus" or getattr(sender, "instance_type", None) is not None:
        _recent_versions.clear()


post_save.connect(_note_write, dispatch_uid="campus-analytics-version-save")
post_delete.connect(_note_write, dispatch_uid="campus-analytics-version-delete")


def current_catalog_version() -> tuple:
    """catalog_version(), reused like a campus version (key 0 is never a campus id)."""
    now = time.monotonic()
    recent = _recent_versions.get(0)
    if recent is not None and now - recent[1] < VERSION_TTL_S:
        return recent[0]
    version = catalog_version()
    _recent_versions[0] = (version, now)
    return version


def current_version(campus_id: int) -> tuple:
    now = time.monotonic()
    recent = _recent_versions.get(campus_id)
    if recent is not None and now - recent[1] < VERSION_TTL_S:
        return recent[0]
    version = campus_version(campus_id)
    _recent_versions[campus_id] = (version, now)
    return version


@dataclass
class CampusState:
    """A snapshot and the results computed from it, valid for one version of the campus."""

    version: tuple
    as_of: date | None  # None: the campus as designed (designed_state)
    snap: CampusSnapshot
    hall_geometry: dict[int, dict]  # hall id -> x_m, y_m (position in its building)
    rack_size: dict[int, tuple[float, float]]  # rack id -> (width_m, depth_m)
    results: OrderedDict = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    computing: dict = field(default_factory=dict)  # key -> lock held while one thread computes it

    def memo(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """The cached value of ``key``, computed once: threads asking for a key being computed wait for it
        (50 clients asking for a cold summary cost one computation per process, not 50)."""
        with self.lock:
            if key in self.results:
                self.results.move_to_end(key)
                return self.results[key]
            pending = self.computing.setdefault(key, threading.Lock())
        with pending:
            with self.lock:
                if key in self.results:
                    self.results.move_to_end(key)
                    return self.results[key]
            try:
                with collector_paused():  # an analysis of a large campus allocates much, in no cycles
                    value = compute()
            finally:
                with self.lock:
                    self.computing.pop(key, None)
            with self.lock:
                self.results[key] = value
                while len(self.results) > MAX_RESULTS_PER_CAMPUS:
                    self.results.popitem(last=False)
        return value

    def holds(self, key: tuple) -> bool:
        with self.lock:
            return key in self.results

    def rollup(self) -> power.PowerRollup:
        return self.memo(("rollup",), lambda: power.rollup(self.snap))


# (campus id, as_of day, or None as designed) -> state; at most MAX_CAMPUSES campuses of
# MAX_DAYS_PER_CAMPUS days each
_states: OrderedDict[tuple[int, date | None], CampusState] = OrderedDict()
# campus id -> the parts of its last snapshot with the table versions they were read at (see
# snapshot_adapter.build_snapshot): a new version re-reads only the tables that changed.
_parts: OrderedDict[int, dict] = OrderedDict()
_building: dict[int, threading.Lock] = {}  # campus id -> lock held while one thread builds its state
_states_lock = threading.Lock()


def today() -> date:
    """The default ``as_of``: today in the project's time zone."""
    return timezone.localdate()


def _geometry_parts(campus_id: int, versions: dict[str, tuple], parts: dict) -> tuple[dict, dict]:
    """The halls' positions and the racks' sizes (floor-map inputs the snapshot does not carry), reused
    like the snapshot's parts while their tables' versions hold."""
    key = (versions["DataHall"], versions["Rack"])
    hit = parts.get("geometry")
    if hit is not None and hit[0] == key:
        return hit[1]
    # looked up by id: read in no order (the models' orderings join the building and the campus to sort)
    halls = {
        row["id"]: {"x_m": row["x_m"], "y_m": row["y_m"]}
        for row in models.DataHall.objects.filter(building__campus_id=campus_id)
        .order_by()
        .values("id", "x_m", "y_m")
    }
    sizes = {
        pk: (w, d)
        for pk, w, d in models.Rack.objects.filter(campus_id=campus_id)
        .order_by()
        .values_list("id", "width_m", "depth_m")
    }
    parts["geometry"] = (key, (halls, sizes))
    return halls, sizes


def cached_state(campus_id: int, as_of: date | None = None) -> CampusState | None:
    """The state of the campus on ``as_of`` (default today) if this process holds it for the current
    version (no campus row read)."""
    return _cached_state(campus_id, as_of or today())


def _cached_state(campus_id: int, day: date | None) -> CampusState | None:
    version = current_version(campus_id)
    key = (campus_id, day)
    with _states_lock:
        state = _states.get(key)
        if state is not None and state.version == version:
            _states.move_to_end(key)
            return state
    return None


def campus_state(campus: models.Campus, as_of: date | None = None, keep: bool = True) -> CampusState:
    """The campus as it stands in service on ``as_of`` (default today), its snapshot and results cached
    until its rows change (``keep=False``: a state built for one use is not added to the cache). A new
    version re-reads only the snapshot's parts whose tables changed."""
    return _state(campus, as_of or today(), keep)


def designed_state(campus: models.Campus) -> CampusState:
    """The campus as designed: every object whatever its service dates, the snapshot a simulation run reads
    (``build_snapshot`` without a day). Cached per campus version like the dated states and built from the
    same parts, so checking a scenario against its campus reads only the tables changed since the last
    check instead of building the whole snapshot again."""
    return _state(campus, None, True)


def _state(campus: models.Campus, as_of: date | None, keep: bool) -> CampusState:
    key = (campus.pk, as_of)
    state = _cached_state(campus.pk, as_of)
    if state is not None:
        return state
    with _states_lock:
        building = _building.setdefault(campus.pk, threading.Lock())
    with building:  # one build per campus at a time; the others wait and take its result
        version = current_version(campus.pk)
        with _states_lock:
            state = _states.get(key)
            if state is not None and state.version == version:
                return state
            parts = _parts.setdefault(campus.pk, {})
            _parts.move_to_end(campus.pk)
            while len(_parts) > MAX_CAMPUSES:
                _parts.popitem(last=False)
        versions = table_versions(version)
        snap = build_snapshot(campus, as_of, versions, parts)
        halls, sizes = _geometry_parts(campus.pk, versions, parts)
        state = CampusState(version=version, as_of=as_of, snap=snap, hall_geometry=halls, rack_size=sizes)
        if not keep:
            return state
        with _states_lock:
            for old in [k for k, v in _states.items() if k[0] == campus.pk and v.version != version]:
                del _states[old]
            _states[key] = state
            _states.move_to_end(key)
            days = [k for k in _states if k[0] == campus.pk]
            for old in days[: max(0, len(days) - MAX_DAYS_PER_CAMPUS)]:
                del _states[old]
            while len({k[0] for k in _states}) > MAX_CAMPUSES:
                oldest = next(iter(_states))[0]
                for old in [k for k in _states if k[0] == oldest]:
                    del _states[old]
    return state


def forget(campus_id: int | None = None) -> None:
    """Drop cached states and snapshot parts (tests; a campus' state also expires by itself when its rows
    change)."""
    _recent_versions.clear()
    with _shared_hits_lock:
        _shared_hits.clear()
    with _states_lock:
        if campus_id is None:
            _states.clear()
            _parts.clear()
        else:
            for key in [k for k in _states if k[0] == campus_id]:
                del _states[key]
            _parts.pop(campus_id, None)


# ---------------------------------------------------------------- the endpoints' bodies


def rendered(state: CampusState, key: tuple, data: Callable[[], Any]) -> tuple[bytes, str]:
    """JSON bytes and their ETag, kept with the state: a hot endpoint renders its body once per version."""

    def render():
        body = renderers.dumps(data())
        return body, f'"{hashlib.md5(body, usedforsecurity=False).hexdigest()}"'

    return state.memo(("rendered", *key), render)


# ---------------------------------------------------------------- the shared cache of default bodies

SHARED_ENDPOINTS = ("summary", "floor-map")


@functools.cache
def _default_summary_params() -> tuple:
    from campus.api.serializers_.analytics import SummaryQuerySerializer

    serializer = SummaryQuerySerializer(data={})
    serializer.is_valid(raise_exception=True)
    return tuple(
        sorted((k, v) for k, v in serializer.validated_data.items() if v is not None and k != "as_of")
    )


def default_summary_params() -> dict:
    """What the summary's query serializer makes of no parameters (its defaults), as the view passes them."""
    return dict(_default_summary_params())


def shared_endpoint(endpoint: str) -> tuple[tuple, Callable[[CampusState], Any]]:
    """The default request of a shared endpoint: its key for ``rendered`` (the one the view's own request
    without parameters uses) and its data from a state."""
    if endpoint == "summary":
        params = default_summary_params()
        return ("summary", _default_summary_params()), lambda state: campus_summary(state, **params)
    if endpoint == "floor-map":
        return ("floor_map", None), lambda state: floor_map(state, None)
    raise KeyError(endpoint)


@functools.cache
def code_digest() -> str:
    """A digest of the code that computes the bodies (the analysis core, the snapshot adapter, this module):
    a deployment that changes what a body holds for unchanged rows does not read the bodies of the last."""
    root = Path(__file__).resolve().parents[1]
    files = sorted(p for p in (root / "analysis").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files += [root / "snapshot_adapter.py", Path(__file__).resolve()]
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def shared_key(campus_id: int, version: tuple, as_of: date, endpoint: str) -> str:
    """The shared cache's key of a default body: campus, version, day and endpoint (and the code's digest)."""
    return f"analytics:{code_digest()}:{campus_id}:{version_digest(version)}:{as_of.isoformat()}:{endpoint}"


# The shared cache's bodies this process has read, by key (campus, version digest, day, endpoint: a key's
# body never changes), most recently used last: a process that answers from the shared cache reads each body
# from it once, not on every request (a whole-campus floor map of 100k GPUs is 0.8 MB). Bounded.
_shared_hits: OrderedDict[str, tuple[bytes, str]] = OrderedDict()
_shared_hits_lock = threading.Lock()
SHARED_HITS_MAX = 8


def shared_get(key: str) -> tuple[bytes, str] | None:
    """A body and ETag from the shared cache (kept in this process once read); None when absent or the cache
    is unreachable (logged: the request then computes)."""
    with _shared_hits_lock:
        hit = _shared_hits.get(key)
        if hit is not None:
            _shared_hits.move_to_end(key)
            return hit
    try:
        hit = caches[SHARED_CACHE].get(key)
    except Exception:
        log.warning("shared analytics cache: read of %s failed", key, exc_info=True)
        return None
    if isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], bytes):
        with _shared_hits_lock:
            _shared_hits[key] = hit
            while len(_shared_hits) > SHARED_HITS_MAX:
                _shared_hits.popitem(last=False)
        return hit
    return None


def shared_set(key: str, value: tuple[bytes, str]) -> bool:
    try:
        caches[SHARED_CACHE].set(key, value)
    except Exception:
        log.warning("shared analytics cache: write of %s failed", key, exc_info=True)
        return False
    return True


def default_body(
    campus_id: int, endpoint: str, state_of: Callable[[], CampusState]
) -> tuple[bytes, str] | None:
    """The rendered default body of ``endpoint`` for today: this process' state if it holds that body, else
    the shared cache, else computed from ``state_of()`` and stored there. None when the campus does not
    exist (the caller answers 404 its own way)."""
    version = current_version(campus_id)
    if not campus_exists(version):
        return None
    as_of = today()
    key, _ = shared_endpoint(endpoint)
    state = cached_state(campus_id, as_of)
    if state is None or not state.holds(("rendered", *key)):
        hit = shared_get(shared_key(campus_id, version, as_of, endpoint))
        if hit is not None:
            return hit
        state = state or state_of()
    return _render_and_share(state, campus_id, endpoint)


def _render_and_share(state: CampusState, campus_id: int, endpoint: str) -> tuple[bytes, str]:
    key, data = shared_endpoint(endpoint)
    fresh = not state.holds(("rendered", *key))
    value = rendered(state, key, lambda: data(state))
    if fresh:  # under the version the state was built from (the body's own)
        shared_set(shared_key(campus_id, state.version, state.as_of, endpoint), value)
    return value


def warm(campus: models.Campus, report: Callable[[str], None] | None = None) -> dict[str, float]:
    """Compute the default summary and whole-campus floor map of today and store them in the shared cache
    (the jobs that write a campus call it once it is committed). The state is not kept in this process.
    Returns the seconds each part took; ``report(endpoint)`` is called before each."""
    seconds: dict[str, float] = {}
    forget(campus.pk)  # a version this process read before the commit is not the campus' now
    started = time.perf_counter()
    try:
        state = campus_state(campus, keep=False)
        seconds["snapshot"] = round(time.perf_counter() - started, 2)
        for endpoint in SHARED_ENDPOINTS:
            if report is not None:
                report(endpoint)
            started = time.perf_counter()
            key, data = shared_endpoint(endpoint)
            value = rendered(state, key, lambda data=data: data(state))
            shared_set(shared_key(campus.pk, state.version, state.as_of, endpoint), value)
            seconds[endpoint] = round(time.perf_counter() - started, 2)
    finally:
        forget(campus.pk)  # the snapshot's parts: a worker does not keep a campus it only analysed
    return seconds


def campus_summary(state: CampusState, **params) -> dict:
    key = ("summary", tuple(sorted(params.items())))
    return state.memo(key, lambda: summary.campus_summary(state.snap, **params))


def impact(state: CampusState, elements: list[tuple[str, int]]) -> dict:
    """Impact of failing every ``(kind, id)`` at once (one element: a single failure)."""
    return state.memo(
        ("impact", tuple(elements)), lambda: impact_mod.impact(state.snap, failed=elements).as_dict()
    )


def redundancy(state: CampusState, include_single_points: bool) -> list[dict]:
    return state.memo(
        ("redundancy", include_single_points),
        lambda: [f.as_dict() for f in redundancy_mod.redundancy_check(state.snap, include_single_points)],
    )


def unfed_racks(state: CampusState) -> list[dict]:
    """The racks with a load and no power feed (``redundancy.unfed_racks``)."""
    return state.memo(("unfed_racks",), lambda: redundancy_mod.unfed_racks(state.snap))


def redundancy_declared(state: CampusState) -> list[dict]:
    """The declared redundancy of the campus against the single points found and the cooling pools short
    of it (``cooling.pools_failing_redundancy``, the summary's ``groups_failing_redundancy``), checked by
    ``redundancy.redundancy_declaration_checks``."""

    def compute():
        points: dict[str, list[str]] = {"power": [], "cooling": []}
        for f in redundancy(state, True):
            points[redundancy_mod.DOMAIN_OF_KIND[f["device_kind"]]].append(f["device_name"])
        pools = {"cooling": [p.as_dict() for p in pools_failing_redundancy(state.snap)]}
        return redundancy_mod.snapshot_declaration_checks(state.snap, points, pools)

    return state.memo(("redundancy_declared",), compute)


def stranded(state: CampusState, include_racks: bool) -> dict:
    def compute():
        result = stranded_mod.stranded_capacity(state.snap)
        body = result.as_dict()
        if include_racks:
            body["racks"] = [row.as_dict() for row in result.racks.values()]
        return body

    return state.memo(("stranded", include_racks), compute)


def floor_map(state: CampusState, hall_id: int | None) -> dict:
    if hall_id is not None:
        return state.memo(
            ("floor_map", hall_id),
            lambda: floor_map_mod.hall_floor_map(
                state.snap, hall_id, state.hall_geometry, state.rack_size, state.rollup()
            ),
        )
    return state.memo(
        ("floor_map", None),
        lambda: floor_map_mod.campus_floor_map(
            state.snap, state.hall_geometry, state.rack_size, state.rollup()
        ),
    )


def power_chain(state: CampusState, rack_id: int) -> dict:
    if not any(r.id == rack_id for r in state.snap.racks):
        raise ValueError(f"rack: no rack {rack_id} in this campus")
    return state.memo(
        ("power_chain", rack_id), lambda: power_chain_mod.power_chain(state.snap, rack_id, state.rollup())
    )


# decimals kept per hourly series of the facility year (0.01 °C, 0.1 kW, 1e-4 of PUE, 0.1 L)
_FACILITY_DECIMALS = {
    "dry_bulb_c": 2,
    "wet_bulb_c": 2,
    "it_mw": 4,
    "facility_mw": 4,
    "pue": 4,
    "water_l": 1,
    "cooling_margin_mw": 4,
}


def facility_year(state: CampusState, gpu_power_fraction: float = 1.0, climate: str | None = None) -> dict:
    """The campus's plant in its weather (or a shipped ``climate``'s reference year), hour by hour."""

    def compute():
        snap = state.snap
        if climate is None:
            year = facility.campus_facility_year(snap, gpu_power_fraction)
            weather = weather_of(snap)
        else:
            weather = reference_year(climate)
            year = facility.facility_year(snap, weather.dry_bulb_c, weather.wet_bulb_c, gpu_power_fraction)
        if climate is None:  # the campus's own year, which the summary integrates; a climate asks the plant
            year = facility.with_typed_pue(year, snap)
        body: dict[str, Any] = {
            "climate": weather.climate,
            "weather_source": weather.source,
            "pue_source": (
                facility.campus_pue(snap, None, gpu_power_fraction).source
                if climate is None
                else facility.PLANT_MODEL
            ),
        }
        for name, decimals in _FACILITY_DECIMALS.items():
            values = getattr(year, name).round(decimals)
            body[name] = [v if v == v else None for v in values.tolist()]  # NaN (no IT) -> null
        body["annual"] = summary._clean(year.annual())
        if climate is None:  # the design hours belong to the campus's own site
            body["design"] = summary._clean(facility.design_facility(snap, gpu_power_fraction).as_dict())
        return body

    return state.memo(("facility_year", gpu_power_fraction, climate), compute)


# ---------------------------------------------------------------- phases


_DATED_MODELS: tuple[tuple[type, str], ...] = (
    (models.UtilityFeed, "campus_id"),
    (models.Building, "campus_id"),
    (models.DataHall, "building__campus_id"),
    (models.Row, "hall__building__campus_id"),
    (models.Rack, "campus_id"),
    (models.Node, "rack__campus_id"),
    (models.PowerDevice, "campus_id"),
    (models.PowerFeed, "campus_id"),
    (models.CoolingPlant, "campus_id"),
    (models.CoolingUnit, "campus_id"),
    (models.Pod, "campus_id"),
    (models.Switch, "campus_id"),
    (models.Link, "campus_id"),
)


def change_dates(campus_id: int) -> list[date]:
    """Every day an object of the campus enters or leaves service, sorted (one query per table)."""
    days: set[date] = set()
    for model, scope in _DATED_MODELS:
        for field_name in ("in_service_date", "retire_date"):
            days.update(
                model.objects.filter(**{scope: campus_id})
                .exclude(**{f"{field_name}__isnull": True})
                .values_list(field_name, flat=True)
                .distinct()
            )
    return sorted(days)


def timeline_point(state: CampusState) -> dict:
    """The campus's headline figures on its ``as_of`` day: GPUs, IT and facility power, and the power
    headroom after the worst single failure (the summary's ``headroom_after_failover_mw``)."""
    body = campus_summary(state)
    return {
        "date": state.as_of.isoformat(),
        "gpus": body["inventory"]["gpus"],
        "it_mw": body["power"]["it_mw"],
        "facility_mw": body["power"]["facility_mw"],
        "headroom_mw": body["power"]["headroom_after_failover_mw"],
    }


def has_undated(campus_id: int) -> bool:
    """Whether any object of the campus has no in-service date (in service since before any change)."""
    return any(
        model.objects.filter(**{scope: campus_id, "in_service_date__isnull": True}).exists()
        for model, scope in _DATED_MODELS
    )


def timeline(campus: models.Campus, as_of: date | None = None) -> dict:
    """The figures at each day something enters or leaves service, and on ``as_of`` (default today).

    When something stood before the first change (objects without an in-service date, say, with racks
    retired later), the day before that change comes first, with the state that held until then; a
    campus that starts from nothing (every object dated) starts at its first change."""
    current = campus_state(campus, as_of)

    def compute():
        changes = change_dates(campus.pk)
        days = sorted(set(changes) | {current.as_of})
        points = [
            timeline_point(current if day == current.as_of else campus_state(campus, day, keep=False))
            for day in days
        ]
        if changes and current.as_of >= changes[0] and has_undated(campus.pk):
            before = timeline_point(campus_state(campus, changes[0] - timedelta(days=1), keep=False))
            if before["gpus"] or before["it_mw"] or before["headroom_mw"] is not None:
                points.insert(0, before)
        return {"points": points}

    return current.memo(("timeline",), compute)
