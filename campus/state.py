"""The campus state: each campus's snapshot and the figures computed from it, kept per process until the
campus's revision grows, and the default analytics bodies shared by every process.

``Campus.revision`` grows in the transaction of every write to the campus's inventory or to the catalog
(database triggers, ``campus.revision``). Every cache here is keyed on it: a state
built at revision r is served while the campus's row says r, so a request reads its own write at once, and
another process's write as soon as it is committed. Reading the revision is one query of one column of one
row.

Every figure counts what is in service on one day, ``as_of`` (default today, ``timezone.localdate()``;
docs/planning.md, "Phases"): a state is kept per campus and day; ``designed_state`` is the campus as designed,
what a simulation run reads.

The shared cache: the rendered bytes and ETag of the default summary and whole-campus floor map (no query
parameters: today, the default assumptions) are also kept in Django's ``analytics`` cache (Redis, or files
on the embedded default), shared by every web and worker process and keyed by the campus, its revision, the
day and the endpoint. A process that does not hold the campus's state answers those two from there; the jobs
that generate or import a campus fill it (``warm``), so a new 1M-GPU campus's first summary is not a 30 s
computation. An entry is never served for another revision: the key holds it.

The API (``campus.api``), the snapshot adapter, the jobs and the simulations read the campus through this
module; it imports nothing of ``campus.api``.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from django.core.cache import caches
from django.utils import timezone

from campus import models
from campus.analysis import floor_map as floor_map_mod
from campus.analysis import power, summary
from campus.analysis.reliability import PER_MODEL
from campus.analysis.snapshot import CampusSnapshot
from campus.collector import collector_paused
from campus.snapshot_adapter import build_snapshot, catalog_snapshot_parts
from twin.api.renderers import dumps

MAX_CAMPUSES = 4
MAX_DAYS_PER_CAMPUS = 8  # states kept per campus (one per as_of day asked for), oldest first out
MAX_RESULTS_PER_CAMPUS = 32
SHARED_CACHE = "analytics"  # the alias in settings.CACHES

# The summary's assumptions when a request names none (its query serializer's defaults).
SUMMARY_DEFAULTS: dict[str, Any] = {
    "gpu_power_fraction": 1.0,
    "dataset": PER_MODEL,
}

log = logging.getLogger(__name__)


def revision(campus_id: int) -> int | None:
    """The campus's revision, read from its row (None: no such campus)."""
    return models.Campus.objects.filter(pk=campus_id).values_list("revision", flat=True).first()


def revision_key(campus_id: int) -> str | None:
    """What the caches key the campus's figures on, read from its row (None: no such campus): its revision,
    with its creation stamp beside it (on SQLite a new campus may take the id of a deleted one, and its
    revision starts again at 0)."""
    row = models.Campus.objects.filter(pk=campus_id).values_list("revision", "created").first()
    return None if row is None else f"{row[0]}@{row[1].isoformat()}"


@dataclass
class CampusState:
    """A snapshot and the results computed from it, valid for one revision of the campus."""

    revision: str  # revision_key() when the snapshot was read
    as_of: date | None  # None: the campus as designed (designed_state)
    snap: CampusSnapshot
    hall_geometry: dict[int, dict]  # hall id -> x_m, y_m (position in its building)
    rack_size: dict[int, tuple[float, float]]  # rack id -> (width_m, depth_m)
    # the load basis the figures stand on, stated in every body computed here (docs/live.md): the model's
    # load, or the racks at their measured peak plus a margin (``campus.measured.measured_state``)
    basis: dict = field(default_factory=lambda: {"basis": "design"})
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
_building: dict[int, threading.Lock] = {}  # campus id -> lock held while one thread builds its state
_states_lock = threading.Lock()


def today() -> date:
    """The default ``as_of``: today in the project's time zone."""
    return timezone.localdate()


def _geometry(campus_id: int) -> tuple[dict, dict]:
    """The halls' positions and the racks' sizes (floor-map inputs the snapshot does not carry)."""
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
    return halls, sizes


# campus id -> (its revision_key, the catalog as a snapshot); a few campuses at most
_catalogs: OrderedDict[int, tuple[str, CampusSnapshot]] = OrderedDict()


def catalog(campus_id: int) -> CampusSnapshot:
    """The catalog as a snapshot (no campus rows: the specs a server's power is worked out from, with the
    campus's calibrated ``gpu_power_fraction`` and ``server_overhead_scale``), kept while the campus's revision
    holds: a catalog write raises every campus's revision."""
    key = revision_key(campus_id)
    with _states_lock:
        hit = _catalogs.get(campus_id)
    if hit is not None and hit[0] == key:
        return hit[1]
    snap = CampusSnapshot(
        id=0,
        name="",
        grid_capacity_kw=0,
        price_usd_per_kwh=0,
        design_pue=1,
        ambient_temp_c=25,
        other_it_fraction=0,
        **catalog_snapshot_parts(),
        **dict(
            zip(
                ("gpu_power_fraction", "server_overhead_scale"),
                models.Campus.objects.filter(pk=campus_id)
                .values_list("gpu_power_fraction", "server_overhead_scale")
                .first()
                or (1.0, 1.0),
                strict=True,
            )
        ),
    )
    with _states_lock:
        _catalogs[campus_id] = (key, snap)
        _catalogs.move_to_end(campus_id)
        while len(_catalogs) > MAX_CAMPUSES:
            _catalogs.popitem(last=False)
    return snap


def designed_snapshot(campus: models.Campus) -> CampusSnapshot:
    """The campus as designed (every object, whatever its dates), for the checks of a scenario saved against
    its campus (a scenario may name what enters service later; a run checks it against its own day)."""
    return designed_state(campus).snap


def in_service_snapshot(campus: models.Campus, as_of: date | None = None) -> CampusSnapshot:
    """What of the campus is in service on ``as_of`` (default today), as the analytics read it and a run
    launched for that day reads it."""
    return campus_state(campus, as_of).snap


def cached_state(campus_id: int, as_of: date | None = None) -> CampusState | None:
    """The state of the campus on ``as_of`` (default today) if this process holds it at the campus's
    current revision."""
    return _cached_state(campus_id, as_of or today())


def _cached_state(campus_id: int, day: date | None, current: str | None = None) -> CampusState | None:
    current = revision_key(campus_id) if current is None else current
    if current is None:
        return None
    key = (campus_id, day)
    with _states_lock:
        state = _states.get(key)
        if state is not None and state.revision == current:
            _states.move_to_end(key)
            return state
    return None


def campus_state(campus: models.Campus, as_of: date | None = None, keep: bool = True) -> CampusState:
    """The campus as it stands in service on ``as_of`` (default today), its snapshot and results cached
    until its revision grows (``keep=False``: a state built for one use is not added to the cache)."""
    return _state(campus, as_of or today(), keep)


def designed_state(campus: models.Campus) -> CampusState:
    """The campus as designed: every object whatever its service dates, the snapshot a simulation run reads
    (``build_snapshot`` without a day). Cached per campus revision like the dated states."""
    return _state(campus, None, True)


def _state(campus: models.Campus, as_of: date | None, keep: bool) -> CampusState:
    key = (campus.pk, as_of)
    state = _cached_state(campus.pk, as_of)
    if state is not None:
        return state
    with _states_lock:
        building = _building.setdefault(campus.pk, threading.Lock())
    with building:  # one build per campus at a time; the others wait and take its result
        # Read before the rows (the campus's own row included, read again by its id): a write committed
        # during the build leaves the state under the revision before it, which the next read finds out
        # of date.
        current = revision_key(campus.pk)
        if current is None:
            raise models.Campus.DoesNotExist(f"No campus {campus.pk}.")
        state = _cached_state(campus.pk, as_of, current)
        if state is not None:
            return state
        halls, sizes = _geometry(campus.pk)
        snap = build_snapshot(campus.pk, as_of)
        state = CampusState(revision=current, as_of=as_of, snap=snap, hall_geometry=halls, rack_size=sizes)
        if not keep:
            return state
        with _states_lock:
            for old in [k for k, v in _states.items() if k[0] == campus.pk and v.revision != current]:
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


def adopt(state: CampusState, campus_id: int) -> bool:
    """Keep ``state`` (built for one use, ``keep=False``) as the campus's state when the campus still holds
    its revision and nothing newer is kept: a write's guard built the state of the rows it wrote, and once
    they are committed the next read takes it with the figures worked out from it (the pair search) instead
    of building the snapshot and searching again. False when it is not the campus's state (anymore)."""
    if state.as_of is None or revision_key(campus_id) != state.revision:
        return False
    key = (campus_id, state.as_of)
    with _states_lock:
        held = _states.get(key)
        if held is not None and held.revision == state.revision:
            return False  # another thread built it meanwhile: keep the one readers may already hold
        for old in [k for k, v in _states.items() if k[0] == campus_id and v.revision != state.revision]:
            del _states[old]
        _states[key] = state
        _states.move_to_end(key)
        while len({k[0] for k in _states}) > MAX_CAMPUSES:
            oldest = next(iter(_states))[0]
            for old in [k for k in _states if k[0] == oldest]:
                del _states[old]
    return True


def forget(campus_id: int | None = None) -> None:
    """Drop cached states (tests, jobs; a campus's state also expires by itself when its revision grows)."""
    with _shared_hits_lock:
        _shared_hits.clear()
    with _states_lock:
        if campus_id is None:
            _states.clear()
            _catalogs.clear()
        else:
            _catalogs.pop(campus_id, None)
            for key in [k for k in _states if k[0] == campus_id]:
                del _states[key]


# ---------------------------------------------------------------- the endpoints' bodies


def rendered(state: CampusState, key: tuple, data: Callable[[], Any]) -> tuple[bytes, str]:
    """JSON bytes and their ETag, kept with the state: a hot endpoint renders its body once per revision."""

    def render():
        body = dumps(data())
        return body, f'"{hashlib.md5(body, usedforsecurity=False).hexdigest()}"'

    return state.memo(("rendered", *key), render)


# ---------------------------------------------------------------- the shared cache of default bodies

SHARED_ENDPOINTS = ("summary", "floor-map")


def default_summary_params() -> dict:
    """What the summary's query serializer makes of no parameters (its defaults), as the view passes them."""
    return dict(SUMMARY_DEFAULTS)


def shared_endpoint(endpoint: str) -> tuple[tuple, Callable[[CampusState], Any]]:
    """The default request of a shared endpoint: its key for ``rendered`` (the one the view's own request
    without parameters uses) and its data from a state."""
    if endpoint == "summary":
        params = default_summary_params()
        return ("summary", tuple(sorted(params.items()))), lambda state: campus_summary(state, **params)
    if endpoint == "floor-map":
        return ("floor_map", None), lambda state: floor_map(state, None)
    raise KeyError(endpoint)


@cache
def code_digest() -> str:
    """A digest of the code that computes the bodies (the analysis core, the snapshot adapter, this module, the
    catalog data, whose prices are read from the code, not the database): a deployment that changes what a
    body holds for unchanged rows does not read the bodies of the last."""
    root = Path(__file__).resolve().parent
    files = sorted(p for p in (root / "analysis").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files += [root / "snapshot_adapter.py", root / "catalog_data.py", Path(__file__).resolve()]
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def shared_key(campus_id: int, key: str, as_of: date, endpoint: str) -> str:
    """The shared cache's key of a default body: campus, its ``revision_key``, day and endpoint (and the code's
    digest)."""
    return f"analytics:{code_digest()}:{campus_id}:{key}:{as_of.isoformat()}:{endpoint}"


# The shared cache's bodies this process has read, by key (campus, revision, day, endpoint: a key's
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
    current = revision_key(campus_id)
    if current is None:
        return None
    as_of = today()
    key, _ = shared_endpoint(endpoint)
    state = _cached_state(campus_id, as_of, current)
    if state is None or not state.holds(("rendered", *key)):
        hit = shared_get(shared_key(campus_id, current, as_of, endpoint))
        if hit is not None:
            return hit
        state = state or state_of()
    return _render_and_share(state, campus_id, endpoint)


def _render_and_share(state: CampusState, campus_id: int, endpoint: str) -> tuple[bytes, str]:
    key, data = shared_endpoint(endpoint)
    fresh = not state.holds(("rendered", *key))
    value = rendered(state, key, lambda: data(state))
    if fresh:  # under the revision the state was built at (the body's own)
        shared_set(shared_key(campus_id, state.revision, state.as_of, endpoint), value)
    return value


def warm(campus: models.Campus, report: Callable[[str], None] | None = None) -> dict[str, float]:
    """Compute the default summary and whole-campus floor map of today and store them in the shared cache
    (the jobs that write a campus call it once it is committed). The state is not kept in this process.
    Returns the seconds each part took; ``report(endpoint)`` is called before each."""
    seconds: dict[str, float] = {}
    forget(campus.pk)
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
            shared_set(shared_key(campus.pk, state.revision, state.as_of, endpoint), value)
            seconds[endpoint] = round(time.perf_counter() - started, 2)
    finally:
        forget(campus.pk)  # a worker does not keep a campus it only analysed
    return seconds


def campus_summary(state: CampusState, **params) -> dict:
    key = ("summary", tuple(sorted(params.items())))
    return state.memo(key, lambda: {**summary.campus_summary(state.snap, **params), **state.basis})


def floor_map(state: CampusState, hall_id: int | None) -> dict:
    if hall_id is not None:
        return state.memo(
            ("floor_map", hall_id),
            lambda: {
                **floor_map_mod.hall_floor_map(
                    state.snap, hall_id, state.hall_geometry, state.rack_size, state.rollup()
                ),
                **state.basis,
            },
        )
    return state.memo(
        ("floor_map", None),
        lambda: {
            **floor_map_mod.campus_floor_map(
                state.snap, state.hall_geometry, state.rack_size, state.rollup()
            ),
            **state.basis,
        },
    )
