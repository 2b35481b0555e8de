"""Run replicas of any scenario kind and aggregate them.

``prepare`` does the per-snapshot work once (job placement, failure classes, the facility impact cache) so
that a worker running a chunk of replicas pays it once. Replica seeds come from a numpy SeedSequence, so a
run's replicas are independent streams and the same (run seed, index) always gives the same result.
A run with a confidence target stops its replicas by ``Sequential`` (``simulations.engine.confidence``),
fed in index order, so it stops where ``run_to_confidence`` over the same replica seeds stops.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel

from campus.analysis.snapshot import CampusSnapshot
from simulations.engine import registry
from simulations.engine.aggregate import aggregate, downsample
from simulations.engine.confidence import Sequential
from simulations.engine.params import KINDS, validate_params
from simulations.engine.results import Progress, ReplicaResult

__all__ = [
    "KINDS",
    "PLANS",
    "PlanCache",
    "Prepared",
    "ReplicaResult",
    "Sequential",
    "aggregate",
    "downsample",
    "prepare",
    "replica_seed",
    "run_replica",
]


def replica_seed(run_seed: int, index: int) -> int:
    """The seed of replica ``index`` of a run: an independent numpy SeedSequence child, as a 63-bit int."""
    ss = np.random.SeedSequence(entropy=int(run_seed), spawn_key=(int(index),))
    hi, lo = (int(x) for x in ss.generate_state(2, dtype=np.uint32))
    # masked to 63 bits: fits a signed 64-bit database column
    return ((hi << 31) + lo) & ((1 << 63) - 1)


@dataclass
class Prepared:
    """A kind's per-snapshot precomputation, reusable for every replica of a chunk. It holds the snapshot
    it was made from, so a cache keyed by the snapshot's id never meets a recycled id."""

    kind: str
    plan: Any
    snap: CampusSnapshot | None = None

    def run(self, seed: int, progress: Progress | None = None) -> ReplicaResult:
        return registry.model(self.kind).run(self.plan, int(seed), progress)


def _validated(kind: str, params: Mapping[str, Any] | BaseModel | None) -> BaseModel:
    if isinstance(params, BaseModel):
        return params
    return validate_params(kind, dict(params) if params is not None else {})


def prepare(snap: CampusSnapshot, kind: str, params: Mapping[str, Any] | BaseModel | None = None) -> Prepared:
    """Validate ``params`` (raises ParamsError) and precompute what the replicas share."""
    p = _validated(kind, params)
    return Prepared(kind, registry.model(kind).prepare(snap, p), snap)


class PlanCache:
    """The last few preparations of this process, least recently used dropped first: a worker runs many
    replicas of one scenario in a row, and unpickling a snapshot and placing its jobs is paid once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, Prepared] = OrderedDict()

    def get(self, key: Hashable, build: Callable[[], Prepared]) -> Prepared:
        hit = self._entries.get(key)
        if hit is not None:
            self._entries.move_to_end(key)
            return hit
        return self.put(key, build())

    def put(self, key: Hashable, prepared: Prepared) -> Prepared:
        self._entries[key] = prepared
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return prepared

    def discard(self, key: Hashable) -> None:
        self._entries.pop(key, None)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def __iter__(self):
        return iter(list(self._entries))


# The one cache of this process, shared by run_replica and the run workers (simulations.runs.plans).
PLANS = PlanCache(size=4)


def run_replica(
    kind: str,
    snap: CampusSnapshot,
    params: Mapping[str, Any] | BaseModel | None,
    seed: int,
    progress: Progress | None = None,
) -> ReplicaResult:
    """One replica of ``kind`` on ``snap``; the same seed always gives the same result."""
    p = _validated(kind, params)
    key = ("replica", kind, id(snap), p.model_dump_json())
    return PLANS.get(key, lambda: prepare(snap, kind, p)).run(seed, progress)
