"""Tunables of the run machinery (settings or environment), its errors, and the engine's parameter boundary."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

from campus.analysis.snapshot import CampusSnapshot
from simulations.engine import catalogue
from simulations.engine.params import ParamsError, default_params, params_json_schema, validate_params
from simulations.engine.registry import MODELS, model
from simulations.engine.runner import prepare

from . import replay


def env_int(name: str, default: int) -> int:
    return int(getattr(settings, name, os.environ.get(name, default)))


# Chunks per run to aim for: enough to keep many workers busy, few enough that the per-task cost (a message,
# the snapshot load) stays small next to the replicas.
TARGET_CHUNKS = env_int("TWIN_RUN_TARGET_CHUNKS", 32)
MAX_CHUNK_REPLICAS = env_int("TWIN_RUN_MAX_CHUNK_REPLICAS", 25)
# Chunks per run at least, when a kind's cheap replicas are grouped by more (its MIN_CHUNK_REPLICAS).
MIN_CHUNKS = env_int("TWIN_RUN_MIN_CHUNKS", 8)
# A busy chunk touches its heartbeat this often, s.
HEARTBEAT_S = float(env_int("TWIN_RUN_HEARTBEAT_SECONDS", 5))
# A running chunk whose heartbeat is older than this lost its worker, s.
STALE_S = env_int("TWIN_RUN_STALE_SECONDS", 120)
# A chunk sent this long ago and never picked up while the broker queue is empty lost its message, s.
QUEUED_STALE_S = env_int("TWIN_RUN_QUEUED_STALE_SECONDS", 900)
# Sends of one chunk before the run is failed (a replica that kills its worker must not loop for ever).
MAX_ATTEMPTS = env_int("TWIN_RUN_MAX_ATTEMPTS", 3)
# Intra-replica progress is written at most this often, s.
PROGRESS_EVERY_S = 2.0
# A chunk stores its finished replicas (one transaction, one insert) at its end and, if it runs longer, at
# least this often, s.
STORE_EVERY_S = 2.0
# Between two replicas a chunk asks whether its run was cancelled at most this often, s (the heartbeat
# notices too, and a replica stops at its next progress report once it has).
CHECK_EVERY_S = 1.0


class RunFinishedError(Exception):
    """The run already finished (succeeded, failed or cancelled)."""


class RunStopped(Exception):
    """The run was cancelled, failed or deleted while a chunk was busy with it."""


# Replicas of a run when none are asked for, for a kind whose replicas can differ (a deterministic one needs 1).
DEFAULT_REPLICAS = 10


def validated_params(kind: str, params: dict | None):
    return validate_params(kind, params or {})


def stochastic(kind: str, params: Any) -> bool:
    """Whether replicas of ``kind`` with these (validated) parameters can differ (the kind's own answer)."""
    return bool(model(kind).stochastic(params))


def default_replicas(kind: str, params: Any = None) -> int:
    """Replicas of a run when the request names none: 1 when every replica would be the same, else the kind's
    own figure (``DEFAULT_REPLICAS`` on its module) or DEFAULT_REPLICAS."""
    if params is None or isinstance(params, dict):
        params = validated_params(kind, params)
    if not stochastic(kind, params):
        return 1
    return int(getattr(model(kind), "DEFAULT_REPLICAS", DEFAULT_REPLICAS))


def in_service_errors(kind: str, snap: CampusSnapshot, as_of: Any) -> list[str]:
    """[message] when the campus has nothing in service on ``as_of`` that a run of ``kind`` needs: every
    built-in kind simulates the campus's GPUs (a training job, their power or their heat), so a day with no
    GPU in service (a phased campus before its first phase, or after its last retirement) has nothing to
    run: the run would otherwise "succeed" with zeros or fail on a parameter the user never set. A kind whose
    module says ``NEEDS_GPUS = False`` is not checked. Empty when there is something to run."""
    if not getattr(model(kind), "NEEDS_GPUS", True):
        return []
    gpus = sum(n for rack in snap.racks for n in snap.rack_gpus(rack).values())
    if gpus > 0:
        return []
    return [
        f"nothing is in service on {as_of}: no GPU of the campus is in service that day (equipment not yet "
        "in service or already retired does not count); choose a day on which a phase of the campus is in "
        "service"
    ]


def campus_params_errors(kind: str, params: dict | None, snap: CampusSnapshot) -> dict[str, list[str]]:
    """{"<path>": [message]} for each parameter the campus cannot run (a GPU model, pod, cooling unit or plant
    it does not have...): the kind's own ``prepare`` on ``snap`` (the campus as designed for a scenario being
    saved; for a run, what is in service on its day, as the run reads it: ``build_snapshot(campus_id,
    as_of)``), its ParamsError on the path of the parameter. Empty when the scenario can run."""
    try:
        # a measured load source is read from the campus's measurements first (its own 400s)
        params = replay.resolve(kind, params, snap.id, snap.name)
        prepare(snap, kind, validated_params(kind, params))
    except ParamsError as exc:
        out: dict[str, list[str]] = {}
        for err in exc.errors:
            out.setdefault(err["field"] or "params", []).append(err["message"])
        return out
    return {}


def kinds() -> list[dict[str, Any]]:
    """Every scenario kind with its JSON schema and defaults (the dashboard builds its forms from them), and
    the catalogue of its metrics and series (label, unit, description, whether higher is better) and cause
    labels."""
    out = []
    for kind, kind_model in MODELS.items():
        defaults = validate_params(kind, {})
        out.append(
            {
                "kind": kind.value,
                "label": kind_model.LABEL,
                "schema": params_json_schema(kind),
                "defaults": default_params(kind),
                "stochastic": bool(kind_model.stochastic(defaults)),
                "default_replicas": default_replicas(kind, defaults),
                **catalogue.describe(kind),
            }
        )
    return out
