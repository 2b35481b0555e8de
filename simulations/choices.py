"""One choice set per kind or status, as the API and the database spell them."""

from django.db import models

# Statistics a threshold rule may test: defined by the aggregation that produces them.
from simulations.engine.aggregate import THRESHOLD_STATS as THRESHOLD_STATS


class ScenarioKind(models.TextChoices):
    # Kept in step with simulations.engine.params.KINDS (a test pins the two together).
    POWER_CAPPING = "power_capping", "Power capping"
    GRID_LIMIT = "grid_limit", "Grid limit / demand response"
    LIQUID_COOLING = "liquid_cooling", "Liquid cooling loss"
    FAILURE_CASCADE = "failure_cascade", "Failures and recovery"


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE_RUN_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)
FINISHED_RUN_STATUSES = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


class ThresholdOp(models.TextChoices):
    LT = "<", "less than"
    LE = "<=", "at most"
    GT = ">", "greater than"
    GE = ">=", "at least"
    EQ = "==", "equal to"
    NE = "!=", "not equal to"
