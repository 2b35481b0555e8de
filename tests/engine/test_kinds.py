"""One package per scenario kind: every folder of ``simulations/engine/kinds`` is a registered kind holding
its parameters, model and words; the registry makes the kinds' enum from the packages; a kind imports the
shared engine and never another kind or the registry, so a newcomer adding a kind touches one folder and
one line of the registry. Read from the source with ``ast`` where it is about imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import simulations.engine.kinds
from simulations.engine import registry
from simulations.engine.params import KINDS

KINDS_DIR = Path(simulations.engine.kinds.__file__).parent
FOLDERS = sorted(p.name for p in KINDS_DIR.iterdir() if (p / "__init__.py").exists())


def test_every_kind_folder_is_registered_and_every_registered_kind_is_a_folder():
    assert sorted(m.KIND for m in registry.PACKAGES) == FOLDERS
    assert [m.__name__ for m in registry.PACKAGES] == [f"simulations.engine.kinds.{k}" for k in KINDS]


def test_the_kinds_enum_is_made_from_the_packages_in_their_order():
    assert [k.value for k in registry.ScenarioKind] == [m.KIND for m in registry.PACKAGES] == list(KINDS)
    assert all(registry.model(k) is m for k, m in zip(KINDS, registry.PACKAGES, strict=True))


@pytest.mark.parametrize("kind", FOLDERS)
def test_each_kind_holds_its_parameters_model_and_words(kind):
    assert {"params.py", "model.py", "words.py"} <= {p.name for p in (KINDS_DIR / kind).iterdir()}
    package = registry.model(kind)
    assert package.Params.__module__ == f"simulations.engine.kinds.{kind}.params"
    assert package.run.__module__ == f"simulations.engine.kinds.{kind}.model"
    assert package.explain.__module__ == f"simulations.engine.kinds.{kind}.words"


def _project_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {name for name in found if name.startswith("simulations.")}


@pytest.mark.parametrize("kind", FOLDERS)
def test_a_kind_imports_no_other_kind_and_not_the_registry(kind):
    own = f"simulations.engine.kinds.{kind}"
    # the modules that read the kinds through the registry: a kind importing them would import itself
    above_the_kinds = (
        "simulations.engine.registry",
        "simulations.engine.params",
        "simulations.engine.catalogue",
    )
    bad = set()
    for path in (KINDS_DIR / kind).glob("*.py"):
        for name in _project_imports(path):
            other_kind = name.startswith("simulations.engine.kinds.") and not (
                name == own or name.startswith(own + ".")
            )
            if other_kind or any(name == s or name.startswith(s + ".") for s in above_the_kinds):
                bad.add(f"{path.name}: {name}")
    assert sorted(bad) == []
