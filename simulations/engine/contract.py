"""The engine's contract: the statuses of a run, and what a scenario model provides.

A scenario model is a package of ``simulations.engine.kinds`` (or any object) with the attributes of
``ScenarioModel``; ``registry`` lists them, makes the ``ScenarioKind`` enum from them and is the only place
the runner, the parameter schemas and the database choices (``simulations.choices``) learn which kinds
exist. These enums are plain ``StrEnum``s: the Django choices derive from them, never the other way round.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from campus.analysis.snapshot import CampusSnapshot
from simulations.engine.results import Progress, ReplicaResult


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


ACTIVE_RUN_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)
FINISHED_RUN_STATUSES = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


@runtime_checkable
class ScenarioModel(Protocol):
    """One kind of what-if scenario.

    ``prepare`` does the per-snapshot work once (and raises ``ParamsError`` for parameters the campus cannot
    run: the API calls it when a scenario is saved and when a run is launched, so such parameters are a 400
    on their path, never a failed run); ``stochastic`` says whether replicas of these parameters can differ
    (False: every seed gives the same result, so a run needs one replica); ``run`` is one replica for a seed, the same seed always giving the same result, calling
    ``progress(fraction)`` now and then. Its module docstring says what it takes, what it returns, and
    whether SimPy is its clock (failures and repairs, generator starts, cooling and grid events) or why a
    closed form or vectorised numpy is the better fit.
    """

    KIND: str  # the kind's name, snake_case: the registry's ScenarioKind member and the database value
    LABEL: str  # as a person reads it (forms, the admin)
    Params: type[BaseModel]

    def prepare(self, snap: CampusSnapshot, params: Any) -> Any: ...

    def stochastic(self, params: Any) -> bool: ...

    def run(self, plan: Any, seed: int, progress: Progress | None = None) -> ReplicaResult: ...
