"""A training job's step time on the campus's GPUs, and where its scaling stops being linear.

The job runs a published model (``campus.analysis.training.presets``) with the parallelism given on the
GPUs of the named pods (default: every GPU of the campus); data parallelism is the largest that the GPUs
hold and the global batch splits over. ``campus.analysis.training`` maps each parallel group onto the
inventory's tiers (the scale-up domain of the node or NVL72 rack, the pod's island, the campus above it at
the pod's oversubscription) and gives the step time, its breakdown (compute, pipeline bubble, each
collective, exposed I/O), MFU, tokens/s, days for the token budget and the checkpoint and restart cost
against the storage's bandwidth (docs/training.md).

Takes a ``CampusSnapshot`` and ``TrainingStepParams``. Returns the headline metrics (``step_s``, ``mfu``,
``tokens_per_s``, ``days``, ``gpus``, the shares of compute, bubble and exposed communication,
``linearity`` at the job's size, ``checkpoint_write_s``, ``restart_s``), the step's breakdown by cause, and
in its details the full step, the checkpoint costs, the scaling curve over GPU counts (each point naming
the cost that grew most and the tier it crosses) and the sweep over TP x PP. Deterministic and a closed
form: one replica, no SimPy clock (nothing happens over time; a step is an analytic sum).

The package is the kind: its parameters (``params``), its model (``model``), and its words (``words``). It
satisfies ``simulations.engine.contract.ScenarioModel``; ``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.training_step.model import DEFAULT_REPLICAS, prepare, run, stochastic
from simulations.engine.kinds.training_step.params import TrainingStepParams as Params
from simulations.engine.kinds.training_step.words import METRICS, explain

KIND = "training_step"
LABEL = "Training step time"

__all__ = [
    "DEFAULT_REPLICAS",
    "KIND",
    "LABEL",
    "METRICS",
    "Params",
    "explain",
    "prepare",
    "run",
    "stochastic",
]
