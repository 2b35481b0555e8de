"""The one list of scenario kinds: it feeds the runner, the parameter schemas and the kind choices.

Each kind is a package of ``simulations.engine.kinds`` satisfying ``contract.ScenarioModel`` (its parameters,
model, words and metrics side by side); a new kind is a new package and a line in ``PACKAGES``. The kinds'
enum is made from this list, so nothing else names them.
"""

from __future__ import annotations

from enum import StrEnum

from simulations.engine.contract import ScenarioModel
from simulations.engine.kinds import (
    failure_cascade,
    grid_limit,
    heat_wave,
    liquid_cooling,
    power_capping,
    power_dynamics,
    training_step,
    voltage_dip,
)

# In the order the forms and the API list them.
PACKAGES: tuple[ScenarioModel, ...] = (
    power_capping,
    grid_limit,
    liquid_cooling,
    failure_cascade,
    power_dynamics,
    heat_wave,
    training_step,
    voltage_dip,
)

# A plain StrEnum (the Django choices, ``simulations.choices``, derive from it):
# POWER_CAPPING = "power_capping", and so on.
ScenarioKind = StrEnum("ScenarioKind", [(m.KIND.upper(), m.KIND) for m in PACKAGES])

MODELS: dict[ScenarioKind, ScenarioModel] = {ScenarioKind(m.KIND): m for m in PACKAGES}


def model(kind: str) -> ScenarioModel:
    """The scenario model of ``kind``; KeyError for a kind that does not exist."""
    return MODELS[kind]  # a StrEnum member hashes as its value
