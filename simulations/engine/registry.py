"""The one list of scenario models, by kind: it feeds the runner, the parameter schemas and the kind choices.

A new kind is a module satisfying ``contract.ScenarioModel``, a member of ``contract.ScenarioKind`` and a line
here.
"""

from __future__ import annotations

from simulations.engine import (
    failure_cascade,
    grid_limit,
    heat_wave,
    liquid_cooling,
    power_capping,
    power_dynamics,
)
from simulations.engine.contract import ScenarioKind, ScenarioModel

MODELS: dict[ScenarioKind, ScenarioModel] = {
    m.KIND: m for m in (power_capping, grid_limit, liquid_cooling, failure_cascade, power_dynamics, heat_wave)
}


def model(kind: str) -> ScenarioModel:
    """The scenario model of ``kind``; KeyError for a kind that does not exist."""
    return MODELS[kind]  # a StrEnum member hashes as its value
