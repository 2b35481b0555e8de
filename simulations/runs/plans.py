"""A run's engine inputs on a worker: the snapshot stored on the run, and the prepared plan its replicas
share, kept in the engine's one per-process plan cache (``runner.PLANS``) under the run's id (and, for a
sweep, the point's number). The unpacked snapshot is kept too, per run, so that the points of a sweep share
one snapshot object and whatever the engine caches on it (the power graph, each facility unit's impact)."""

from __future__ import annotations

import pickle
import zlib
from typing import Any

from campus.snapshot_adapter import build_snapshot
from simulations.engine import runner
from simulations.engine.runner import PLANS
from simulations.models import Run

from . import sweeps
from .config import validated_params

# The last few runs' unpacked snapshots in this process: run id -> snapshot.
_SNAPS: dict[int, Any] = {}
_SNAPS_SIZE = 4


def pack_snapshot(snap: Any) -> bytes:
    return zlib.compress(pickle.dumps(snap, protocol=pickle.HIGHEST_PROTOCOL), 3)


def unpack_snapshot(blob: bytes | memoryview) -> Any:
    # Written only by dispatch.start from our own dataclasses (never user input).
    return pickle.loads(zlib.decompress(bytes(blob)))  # noqa: S301


def _key(run_id: int, point: int = 0) -> tuple[str, int, int]:
    return ("run", run_id, point)


def params_of(run: Run, point: int = 0) -> dict:
    """The parameters a replica of ``run`` runs with: the run's own, or those of the sweep's ``point``."""
    if not run.sweep:
        return run.params
    return sweeps.point_params(run.kind, run.params, run.sweep, point)


def _keep_snapshot(run_id: int, snap: Any) -> None:
    _SNAPS.pop(run_id, None)
    _SNAPS[run_id] = snap
    while len(_SNAPS) > _SNAPS_SIZE:
        _SNAPS.pop(next(iter(_SNAPS)))


def prepare(kind: str, snap: Any, params: Any):
    """The engine's per-snapshot precomputation (job placement, failure classes...), shared by the replicas."""
    return runner.prepare(snap, kind, params)


def remember(run_id: int, prepared, snap: Any = None) -> None:
    """Keep what ``dispatch.start`` just built: this process will likely run some of the chunks itself."""
    PLANS.put(_key(run_id), prepared)
    if snap is not None:
        _keep_snapshot(run_id, snap)


def forget(run_id: int) -> None:
    for key in list(PLANS):
        if isinstance(key, tuple) and key[:2] == ("run", run_id):
            PLANS.discard(key)
    _SNAPS.pop(run_id, None)


def campus_snapshot(run: Run, blob: bytes | memoryview | None) -> Any:
    """The snapshot stored on the run (``blob``), or a fresh one of the run's day when it is gone (the run
    finished)."""
    if blob:
        return unpack_snapshot(blob)
    return build_snapshot(run.campus_id, run.as_of)


def plan_for(run: Run, point: int = 0):
    """The prepared plan of the run (of one point of a sweep), built at most once per process while it stays
    in the cache."""

    def build():
        snap = _SNAPS.get(run.pk)
        if snap is None:
            blob = Run.objects.filter(pk=run.pk).values_list("snapshot", flat=True).first()
            snap = campus_snapshot(run, blob)
            _keep_snapshot(run.pk, snap)
        return prepare(run.kind, snap, validated_params(run.kind, params_of(run, point)))

    return PLANS.get(_key(run.pk, point), build)
