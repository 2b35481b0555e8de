"""The import rules of docs/architecture.md, read from the source with ``ast`` (no module is imported).

Every import counts, also one inside a function: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
APPS = ("campus", "simulations", "frontend")
PROJECT = (*APPS, "twin")
CORE = ("campus/analysis", "simulations/engine")
# Project modules the core may use besides itself: plain data, no framework.
CORE_MAY_USE = ("campus.catalog_data",)
FRAMEWORKS = ("django", "rest_framework", "celery", "kombu", "drf_spectacular", "django_filters")
# What makes an endpoint: REST framework's views, viewsets, generic views, ``@api_view`` and routers, and the
# project's viewset bases.
ENDPOINT_MODULES = (
    "rest_framework.views",
    "rest_framework.viewsets",
    "rest_framework.generics",
    "rest_framework.decorators",
    "rest_framework.routers",
    "twin.api.viewsets",
    "twin.api.routers",
)
# The liveness, readiness and deep health checks answer outside /api/ for the orchestrator.
ENDPOINTS_OUTSIDE_API = {"twin/health.py"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module this source imports, absolute. ``from pkg import name`` counts as ``pkg.name`` when
    ``pkg`` is a package of the project (the name may be a submodule) and as ``pkg`` otherwise."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if (REPO / target.replace(".", "/")).is_dir():
                found.update(f"{target}.{alias.name}" for alias in node.names)
            else:
                found.add(target)
    return found


def imported_names(source: str) -> set[str]:
    """Every ``module`` of ``import module`` and both ``module`` and ``module.name`` of ``from module import
    name`` (absolute imports; a relative one stays within its package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def project_files(*roots: str) -> list[Path]:
    files = []
    for root in roots:
        files.extend(p for p in (REPO / root).rglob("*.py") if "migrations" not in p.parts)
    return sorted(files)


def imports_of(path: Path) -> set[str]:
    return imported_modules(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(files, forbidden) -> list[str]:
    return sorted(
        f"{path.relative_to(REPO)} imports {name}"
        for path in files
        for name in imports_of(path)
        if forbidden(path, name)
    )


# ---------------------------------------------------------------- the checker itself


def test_the_checker_sees_lazy_relative_and_from_package_imports():
    source = (
        "import django.db\n"
        "from rest_framework import serializers\n"
        "from . import tasks\n"
        "from ..api.views import X\n"
        "from campus import api\n"
        "def f():\n"
        "    from celery import shared_task\n"
    )
    found = imported_modules(source, "simulations.runs.launch")
    assert found == {
        "django.db",
        "rest_framework",
        "simulations.runs.tasks",
        "simulations.api.views",
        "campus.api",
        "celery",
    }


def test_a_package_init_resolves_relative_imports_from_itself():
    assert imported_modules("from .config import kinds\n", "simulations.runs", is_package=True) == {
        "simulations.runs.config"
    }


# ---------------------------------------------------------------- the rules


def test_the_pure_core_never_imports_a_framework():
    def forbidden(path, name):
        return name.split(".")[0] in FRAMEWORKS

    assert violations(project_files(*CORE), forbidden) == []


def test_the_pure_core_imports_only_itself_and_the_catalog_data():
    core_modules = tuple(root.replace("/", ".") for root in CORE)

    def forbidden(path, name):
        if name.split(".")[0] not in PROJECT:
            return False
        return not any(within(name, allowed) for allowed in (*core_modules, *CORE_MAY_USE))

    assert violations(project_files(*CORE), forbidden) == []


def test_no_app_imports_another_apps_api_package():
    def forbidden(path, name):
        own = path.relative_to(REPO).parts[0]
        return any(within(name, f"{app}.api") for app in APPS if app != own)

    assert violations(project_files(*PROJECT), forbidden) == []


def test_below_its_api_the_campus_app_never_imports_it():
    """The campus state, the snapshot adapter, the jobs and the rest of the campus app sit below its API: the
    API reads the campus through them (``campus.state``), never the other way round."""
    api = REPO / "campus" / "api"

    def forbidden(path, name):
        return api not in path.parents and within(name, "campus.api")

    assert violations(project_files("campus"), forbidden) == []


def test_the_checker_sees_an_endpoint_module_imported_by_name():
    source = "from rest_framework import serializers, viewsets\nimport rest_framework.views\n"
    names = imported_names(source)
    assert {"rest_framework.viewsets", "rest_framework.views"} <= names
    assert not any(within(n, "rest_framework.generics") for n in names)


def test_endpoints_live_in_an_api_package():
    """An endpoint is written in its app's ``api/`` package (``campus/api``, ``simulations/api``) or in the
    project's ``twin/api`` plumbing, where the URLs, the schema and the error answers find it."""
    found = sorted(
        f"{path.relative_to(REPO)} imports {name}"
        for path in project_files(*PROJECT)
        if "api" not in path.relative_to(REPO).parts[:-1]
        and path.relative_to(REPO).as_posix() not in ENDPOINTS_OUTSIDE_API
        for name in imported_names(path.read_text(encoding="utf-8"))
        if any(within(name, m) for m in ENDPOINT_MODULES)
    )
    assert found == []


def test_the_project_wide_api_plumbing_imports_no_app():
    def forbidden(path, name):
        return name.split(".")[0] in APPS

    assert violations(project_files("twin/api"), forbidden) == []


def test_nothing_in_simulations_below_the_tasks_imports_them():
    tasks = REPO / "simulations" / "tasks.py"

    def forbidden(path, name):
        return path != tasks and within(name, "simulations.tasks")

    assert violations(project_files("simulations"), forbidden) == []


@pytest.mark.parametrize("root", [*CORE, "twin/api"])
def test_each_checked_tree_exists_and_holds_modules(root):
    # A renamed package would make its rule pass on nothing.
    assert len(project_files(root)) >= 3
