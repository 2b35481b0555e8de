"""The engine contract: one registry of scenario models feeds the runner, the parameter schemas and the kind
choices; kinds and statuses are spelled once, in the engine's enums."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

import simulations.engine
from simulations.engine import registry, runner
from simulations.engine.contract import ScenarioModel
from simulations.engine.params import KINDS, ParamsError, default_params, params_json_schema, validate_params
from simulations.engine.registry import ScenarioKind
from simulations.engine.results import ReplicaResult
from tests.engine.builders import campus


def test_every_kind_has_exactly_one_model_in_enum_order():
    assert list(registry.MODELS) == list(ScenarioKind)
    assert KINDS == (
        "power_capping",
        "grid_limit",
        "liquid_cooling",
        "failure_cascade",
        "power_dynamics",
        "heat_wave",
        "training_step",
        "voltage_dip",
    )


@pytest.mark.parametrize("kind", list(ScenarioKind))
def test_each_model_meets_the_contract_and_documents_its_clock(kind):
    model = registry.model(kind)
    assert isinstance(model, ScenarioModel)
    assert kind == model.KIND
    assert issubclass(model.Params, BaseModel) and model.LABEL
    doc = model.__doc__ or ""
    assert "Takes" in doc and ("Returns" in doc or "returns" in doc)
    assert "SimPy" in doc  # whether it is the clock, or why not


class _ToyParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    level: float = 2.0


class _ToyModel:
    """A kind that exists only in this test: registering it is all the runner and the schemas need."""

    KIND = "toy"
    LABEL = "Toy"
    Params = _ToyParams

    def prepare(self, snap, params):
        return params.level * len(snap.racks)

    def run(self, plan, seed, progress=None):
        return ReplicaResult(metrics={"plan": plan, "seed": float(seed)})


def test_a_registered_model_is_what_the_runner_and_the_schemas_use(monkeypatch):
    monkeypatch.setitem(registry.MODELS, "toy", _ToyModel())
    snap = campus()
    assert validate_params("toy", {}).level == 2.0
    assert default_params("toy") == {"level": 2.0}
    assert params_json_schema("toy")["additionalProperties"] is False
    with pytest.raises(ParamsError) as info:
        validate_params("toy", {"levle": 1})
    assert info.value.errors[0]["field"] == "levle"
    result = runner.prepare(snap, "toy", {"level": 3}).run(7)
    assert result.metrics == {"plan": 3.0 * len(snap.racks), "seed": 7.0}


def test_an_unknown_kind_is_a_params_error_on_kind():
    with pytest.raises(ParamsError) as info:
        validate_params("nope", {})
    assert info.value.errors[0]["field"] == "kind"


def test_the_engine_spells_the_kinds_only_in_its_enum():
    # (Run statuses are not spelled anywhere in the engine; "failed" there is an inventory device's status.)
    values = {k.value for k in ScenarioKind}
    folder = Path(simulations.engine.__file__).parent
    for path in folder.glob("*.py"):
        if path.name == "contract.py":
            continue
        literals = {
            node.value
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        assert not literals & values, path.name
