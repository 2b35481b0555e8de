"""One choice set per kind or status, as the API and the database spell them.

Each derives from the engine: the kinds and their labels from the registry of kinds' packages
(``simulations.engine.registry``), the statuses and operators from its plain enums (``simulations.engine.contract``,
``simulations.engine.aggregate``), so a kind or a status is spelled in one place.
"""

from django.db import models

from simulations.engine import contract
from simulations.engine.aggregate import THRESHOLD_STATS as THRESHOLD_STATS  # statistics a rule may test
from simulations.engine.aggregate import ThresholdOp as EngineThresholdOp
from simulations.engine.registry import MODELS

ScenarioKind = models.TextChoices(
    "ScenarioKind", [(kind.name, (kind.value, model.LABEL)) for kind, model in MODELS.items()]
)

RunStatus = models.TextChoices(
    "RunStatus", [(status.name, (status.value, status.value.capitalize())) for status in contract.RunStatus]
)

ACTIVE_RUN_STATUSES = tuple(RunStatus(s) for s in contract.ACTIVE_RUN_STATUSES)
FINISHED_RUN_STATUSES = tuple(RunStatus(s) for s in contract.FINISHED_RUN_STATUSES)

_OP_LABELS = {
    EngineThresholdOp.LT: "less than",
    EngineThresholdOp.LE: "at most",
    EngineThresholdOp.GT: "greater than",
    EngineThresholdOp.GE: "at least",
    EngineThresholdOp.EQ: "equal to",
    EngineThresholdOp.NE: "not equal to",
}
ThresholdOp = models.TextChoices(
    "ThresholdOp", [(op.name, (op.value, _OP_LABELS[op])) for op in EngineThresholdOp]
)
