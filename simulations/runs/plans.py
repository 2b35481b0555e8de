"""A run's engine inputs on a worker: the snapshot stored on the run, and the prepared plan its replicas
share, kept in the engine's one per-process plan cache (``runner.PLANS``) under the run's id."""

from __future__ import annotations

import pickle
import zlib
from typing import Any

from simulations.models import Run

from .config import validated_params


def pack_snapshot(snap: Any) -> bytes:
    return zlib.compress(pickle.dumps(snap, protocol=pickle.HIGHEST_PROTOCOL), 3)


def unpack_snapshot(blob: bytes | memoryview) -> Any:
    # Written only by dispatch.start from our own dataclasses (never user input).
    return pickle.loads(zlib.decompress(bytes(blob)))  # noqa: S301


def _key(run_id: int) -> tuple[str, int]:
    return ("run", run_id)


def prepare(kind: str, snap: Any, params: Any):
    """The engine's per-snapshot precomputation (job placement, failure classes...), shared by the replicas."""
    from simulations.engine import runner

    return runner.prepare(snap, kind, params)


def remember(run_id: int, prepared) -> None:
    """Keep what ``dispatch.start`` just built: this process will likely run some of the chunks itself."""
    from simulations.engine.runner import PLANS

    PLANS.put(_key(run_id), prepared)


def forget(run_id: int) -> None:
    from simulations.engine.runner import PLANS

    PLANS.discard(_key(run_id))


def campus_snapshot(run: Run, blob: bytes | memoryview | None) -> Any:
    """The snapshot stored on the run (``blob``), or a fresh one when it is gone (the run finished)."""
    if blob:
        return unpack_snapshot(blob)
    from campus.snapshot_adapter import build_snapshot

    return build_snapshot(run.scenario.campus_id)


def plan_for(run: Run):
    """The run's prepared plan, built at most once per process while it stays in the cache."""
    from simulations.engine.runner import PLANS

    def build():
        blob = Run.objects.filter(pk=run.pk).values_list("snapshot", flat=True).first()
        snap = campus_snapshot(run, blob)
        return prepare(run.scenario.kind, snap, validated_params(run.scenario.kind, run.params))

    return PLANS.get(_key(run.pk), build)
