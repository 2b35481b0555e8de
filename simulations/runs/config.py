"""Tunables of the run machinery (settings or environment), its errors, and the engine's parameter boundary."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings


def _env_int(name: str, default: int) -> int:
    return int(getattr(settings, name, os.environ.get(name, default)))


# Chunks per run to aim for: enough to keep many workers busy, few enough that the per-task cost (a message,
# the snapshot load) stays small next to the replicas.
TARGET_CHUNKS = _env_int("TWIN_RUN_TARGET_CHUNKS", 32)
MAX_CHUNK_REPLICAS = _env_int("TWIN_RUN_MAX_CHUNK_REPLICAS", 25)
# A busy chunk touches its heartbeat this often, s.
HEARTBEAT_S = float(_env_int("TWIN_RUN_HEARTBEAT_SECONDS", 5))
# A running chunk whose heartbeat is older than this lost its worker, s.
STALE_S = _env_int("TWIN_RUN_STALE_SECONDS", 120)
# A chunk sent this long ago and never picked up while the broker queue is empty lost its message, s.
QUEUED_STALE_S = _env_int("TWIN_RUN_QUEUED_STALE_SECONDS", 900)
# Sends of one chunk before the run is failed (a replica that kills its worker must not loop for ever).
MAX_ATTEMPTS = _env_int("TWIN_RUN_MAX_ATTEMPTS", 3)
# Intra-replica progress is written at most this often, s.
PROGRESS_EVERY_S = 2.0


class RunFinishedError(Exception):
    """The run already finished (succeeded, failed or cancelled)."""


class RunStopped(Exception):
    """The run was cancelled, failed or deleted while a chunk was busy with it."""


def validated_params(kind: str, params: dict | None):
    from simulations.engine.params import validate_params

    return validate_params(kind, params or {})


# Replicas of a run whose request names none, for a kind that does not say otherwise.
DEFAULT_REPLICAS = 10


def kinds() -> list[dict[str, Any]]:
    """Every scenario kind with its JSON schema and defaults (the dashboard builds its forms from them)."""
    from simulations.engine.params import default_params, params_json_schema
    from simulations.engine.registry import MODELS

    return [
        {
            "kind": kind.value,
            "label": model.LABEL,
            "schema": params_json_schema(kind),
            "defaults": default_params(kind),
            "default_replicas": getattr(model, "DEFAULT_REPLICAS", DEFAULT_REPLICAS),
        }
        for kind, model in MODELS.items()
    ]


def default_replicas(kind: str) -> int:
    """Replicas of a run when the request names none: the kind's own figure (1 for a deterministic kind)."""
    from simulations.engine.registry import model

    return int(getattr(model(kind), "DEFAULT_REPLICAS", DEFAULT_REPLICAS))
