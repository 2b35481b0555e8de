"""The structure rules of docs/architecture.md, read from the source with ``ast`` (no module is imported):

- no import cycle among the project's modules (every import counts: at module level, under
  ``TYPE_CHECKING`` and inside a function, except a function-level one that says ``# cycle:``);
- no module over 600 lines (migrations, tests and the catalog data aside);
- no import hidden inside a function unless it breaks a real cycle, with a ``# cycle:`` comment on it or
  right above it saying which;
- no thread or lock in the pure core (``campus/analysis``, ``simulations/engine``): memoisation lives on the
  immutable snapshot (``campus.analysis.memo``), concurrency at the edges;
- ``simulations/engine`` never imports Django;
- a ``_private`` name is used only within its own package (the folder of its module): one used beyond it
  is made public under a plain name;
- no private internal of a framework is read, save the four Django and django-simple-history document
  (``_meta``, ``_state``, ``_default_manager``, ``_change_reason``); a private method a framework lets one
  override is listed below;
- each app's migrations are numbered 0001, 0002, ... without a gap or a repeat, each on the one before.

Modules that still break a rule while other work splits or rewrites them are listed below, each with the
figure it had when listed. A list may only shrink: a listed module that grows past its figure fails, and so
does one that now keeps the rule (strike it off), so the lists stay honest.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("campus", "simulations", "frontend", "twin")
CORE = ("campus/analysis", "simulations/engine")
MAX_LINES = 600
# Data, not code: the catalog rows with their sources.
LONG_BY_NATURE = {"campus.catalog_data"}
THREAD_MODULES = ("threading", "_thread", "multiprocessing", "concurrent.futures")
LOCK_NAMES = {"Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition"}
CYCLE_MARK = "# cycle:"

# ---------------------------------------------------------------- allow-lists (may only shrink)

# Module -> its line count when listed. Empty: every module fits.
OVERSIZED: dict[str, int] = {}

# Module -> its function-level imports without a ``# cycle:`` comment when listed. ``campus.epw`` imports
# pvlib (and with it pandas) when a weather file is uploaded: at the top it would add about 3 s to the start of
# every process that loads the URLs, for an upload that is rare.
HIDDEN_IMPORTS: dict[str, int] = {
    "campus.epw": 1,
}

# Cycles (their modules) still open when listed.
CYCLES: list[frozenset[str]] = []

# Pure-core modules still holding a lock when listed.
THREADED_CORE: set[str] = set()

# Module -> its calls of a framework's private method through ``super()`` when listed: the overrides of
# ``ModelForm._post_clean`` (the admin's write check on the final state) and of drf-spectacular's
# ``AutoSchema`` (bulk routes, brief mode and the error bodies in the schema).
FRAMEWORK_OVERRIDES: dict[str, int] = {"campus.admin": 1, "twin.api.schema": 3}

# Private attributes the frameworks document: Django's model ``_meta`` API, a model instance's ``_state``
# and ``_default_manager``, django-simple-history's ``_change_reason``.
DOCUMENTED_PRIVATE = {"_meta", "_state", "_default_manager", "_change_reason"}


# ---------------------------------------------------------------- reading the source


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the module imported, absolute
    line: int
    in_function: bool
    type_checking: bool
    marked_cycle: bool  # a ``# cycle:`` comment on the statement or right above it


def module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files(root: Path = REPO, roots: Iterable[str] = ROOTS) -> dict[str, Path]:
    files = {}
    for top in roots:
        for path in (root / top).rglob("*.py"):
            if "migrations" in path.parts or "node_modules" in path.parts:
                continue
            files[module_name(path, root)] = path
    return files


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _marked(lines: list[str], node: ast.stmt, import_lines: set[int]) -> bool:
    """A ``# cycle:`` comment on the statement's lines, or in the comment block right above it (other
    import statements of the same group in between are skipped)."""
    if any(CYCLE_MARK in lines[i - 1] for i in range(node.lineno, (node.end_lineno or node.lineno) + 1)):
        return True
    i = node.lineno - 1
    while i >= 1 and i in import_lines:
        i -= 1
    while i >= 1 and lines[i - 1].strip().startswith("#"):
        if CYCLE_MARK in lines[i - 1]:
            return True
        i -= 1
    return False


def imports_in(source: str, module: str, is_package: bool, known: Iterable[str]) -> list[Import]:
    """Every import of ``source`` (the module ``module``), absolute. ``from pkg import name`` is
    ``pkg.name`` when that is a module of ``known``, else ``pkg``."""
    known = set(known)
    package = module if is_package else module.rpartition(".")[0]
    lines = source.splitlines()
    tree = ast.parse(source)
    import_lines = {
        i
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for i in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                if isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                else:
                    if child.level:
                        base = package.split(".")
                        base = base[: len(base) - (child.level - 1)]
                        source_module = ".".join([*base, child.module] if child.module else base)
                    else:
                        source_module = child.module or ""
                    targets = [
                        f"{source_module}.{alias.name}"
                        if f"{source_module}.{alias.name}" in known
                        else source_module
                        for alias in child.names
                    ]
                marked = _marked(lines, child, import_lines)
                for target in dict.fromkeys(targets):
                    found.append(Import(module, target, child.lineno, in_function, type_checking, marked))
                continue
            visit(
                child,
                in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda),
                type_checking or (isinstance(child, ast.If) and _is_type_checking(child.test)),
            )

    visit(tree, False, False)
    return found


def all_imports(files: Mapping[str, Path]) -> list[Import]:
    out = []
    for module, path in files.items():
        out.extend(imports_in(path.read_text(encoding="utf-8"), module, path.name == "__init__.py", files))
    return out


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one node (Kosaraju, iterative)."""
    nodes = set(graph) | {t for targets in graph.values() for t in targets}
    edges = {n: sorted(set(graph.get(n, ()))) for n in nodes}
    reverse: dict[str, list[str]] = {n: [] for n in nodes}
    for n, targets in edges.items():
        for t in targets:
            reverse[t].append(n)
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(nodes):
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(edges[start]))]
        while stack:
            node, it = stack[-1]
            nxt = next((t for t in it if t not in seen), None)
            if nxt is None:
                stack.pop()
                order.append(node)
            else:
                seen.add(nxt)
                stack.append((nxt, iter(edges[nxt])))
    components = []
    assigned: set[str] = set()
    for start in reversed(order):
        if start in assigned:
            continue
        component = {start}
        assigned.add(start)
        todo = [start]
        while todo:
            for t in reverse[todo.pop()]:
                if t not in assigned:
                    assigned.add(t)
                    component.add(t)
                    todo.append(t)
        if len(component) > 1:
            components.append(frozenset(component))
    return components


def import_graph(imports: Iterable[Import], modules: Iterable[str]) -> dict[str, set[str]]:
    """module -> project modules it imports; a function-level import marked ``# cycle:`` is the one edge
    left out (it is how a real cycle is broken)."""
    modules = set(modules)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for imp in imports:
        if imp.target in modules and imp.target != imp.module and not (imp.in_function and imp.marked_cycle):
            graph[imp.module].add(imp.target)
    return graph


# ---------------------------------------------------------------- the checker itself


def test_the_reader_tells_function_level_type_checking_and_marked_imports_apart():
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import b\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.c import C\n"
        "def f():\n"
        "    from pkg import d\n"
        "    # cycle: pkg.e imports this module\n"
        "    from pkg import e\n"
        "    from pkg.b import thing\n"
        "    import pkg.c  # cycle: the other way\n"
    )
    found = imports_in(source, "pkg.a", False, {"pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e"})
    got = {(i.target, i.in_function, i.type_checking, i.marked_cycle) for i in found}
    assert got == {
        ("typing", False, False, False),
        ("pkg.b", False, False, False),
        ("pkg.c", False, True, False),
        ("pkg.d", True, False, False),
        ("pkg.e", True, False, True),
        ("pkg.b", True, False, True),  # in the group right under the comment
        ("pkg.c", True, False, True),
    }


def test_a_comment_above_a_blank_line_marks_nothing():
    source = "def f():\n    # cycle: far away\n\n    from pkg import d\n"
    (imp,) = imports_in(source, "pkg.a", False, {"pkg.d"})
    assert imp.in_function and not imp.marked_cycle


def test_a_marked_function_import_breaks_a_cycle_and_an_unmarked_one_does_not():
    a_unmarked = imports_in("def f():\n    from pkg import b\n", "pkg.a", False, {"pkg.a", "pkg.b"})
    a_marked = imports_in(
        "def f():\n    from pkg import b  # cycle: b imports a\n", "pkg.a", False, {"pkg.b"}
    )
    b = imports_in("from pkg import a\n", "pkg.b", False, {"pkg.a", "pkg.b"})
    modules = {"pkg.a", "pkg.b"}
    assert strongly_connected(import_graph(a_unmarked + b, modules)) == [frozenset(modules)]
    assert strongly_connected(import_graph(a_marked + b, modules)) == []


def _reachable(graph: Mapping[str, Iterable[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for t in graph.get(todo.pop(), ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abcdefgh"), st.sets(st.sampled_from("abcdefgh"), max_size=4), max_size=8)
)
def test_the_components_are_the_mutually_reachable_sets(graph):
    # brute force: u and v share a component when each reaches the other
    nodes = set(graph) | {t for ts in graph.values() for t in ts}
    reach = {n: _reachable(graph, n) for n in nodes}
    expected = set()
    for n in nodes:
        component = frozenset({n} | {m for m in nodes if m in reach[n] and n in reach[m]})
        if len(component) > 1:
            expected.add(component)
    assert set(strongly_connected(graph)) == expected


# ---------------------------------------------------------------- the rules

FILES = project_files()
IMPORTS = all_imports(FILES)


def _lines(module: str) -> int:
    return len(FILES[module].read_text(encoding="utf-8").splitlines())


def test_the_project_modules_are_read():
    # A renamed root would make every rule pass on nothing.
    assert {"simulations.engine.registry", "campus.analysis.snapshot", "twin.settings.base"} <= set(FILES)


def test_no_import_cycle_among_the_project_modules():
    cycles = set(strongly_connected(import_graph(IMPORTS, FILES)))
    unexpected = sorted(sorted(c) for c in cycles - set(CYCLES))
    assert unexpected == [], "import cycles: break them (see docs/architecture.md, 'Import rules')"
    closed = sorted(sorted(c) for c in set(CYCLES) - cycles)
    assert closed == [], "these cycles are gone: strike them off CYCLES"


def test_no_module_over_600_lines():
    over = {
        m: _lines(m)
        for m in FILES
        if m not in LONG_BY_NATURE and _lines(m) > MAX_LINES and _lines(m) > OVERSIZED.get(m, 0)
    }
    assert over == {}, f"modules over {MAX_LINES} lines (or past their listed size): split them by concern"
    fits = sorted(m for m in OVERSIZED if m not in FILES or _lines(m) <= MAX_LINES)
    assert fits == [], "these modules now fit (or are gone): strike them off OVERSIZED"


def test_every_simulations_module_fits_in_600_lines():
    assert not any(m.startswith("simulations.") for m in OVERSIZED)
    assert {m: _lines(m) for m in FILES if m.startswith("simulations.") and _lines(m) > MAX_LINES} == {}


def test_no_import_hidden_in_a_function_without_a_cycle_comment():
    counts: dict[str, int] = {}
    for imp in IMPORTS:
        if imp.in_function and not imp.marked_cycle:
            counts[imp.module] = counts.get(imp.module, 0) + 1
    grown = {m: n for m, n in counts.items() if n > HIDDEN_IMPORTS.get(m, 0)}
    assert grown == {}, "imports inside functions: move them to the top, or say '# cycle: <which>'"
    clean = sorted(m for m in HIDDEN_IMPORTS if counts.get(m, 0) == 0)
    assert clean == [], "these modules hide no import any more: strike them off HIDDEN_IMPORTS"


def _in_core(module: str) -> bool:
    return any(module == c.replace("/", ".") or module.startswith(c.replace("/", ".") + ".") for c in CORE)


def _threaded(module: str) -> list[str]:
    tree = ast.parse(FILES[module].read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [
                a.name
                for a in node.names
                if a.name.split(".")[0] in {t.split(".")[0] for t in THREAD_MODULES}
            ]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if any(node.module == t or node.module.startswith(t + ".") for t in THREAD_MODULES):
                out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names if a.name in LOCK_NAMES]
    return out


def test_no_thread_or_lock_in_the_pure_core():
    threaded = {m: _threaded(m) for m in FILES if _in_core(m)}
    threaded = {m: found for m, found in threaded.items() if found}
    assert sorted(set(threaded) - THREADED_CORE) == [], threaded
    assert sorted(THREADED_CORE - set(threaded)) == [], "these hold no lock any more: strike them off"


def test_the_engine_never_imports_django():
    found = sorted(
        f"{i.module}:{i.line} imports {i.target}"
        for i in IMPORTS
        if i.module.startswith("simulations.engine") and i.target.split(".")[0] == "django"
    )
    assert found == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _package(module: str) -> str:
    return module if FILES[module].name == "__init__.py" else module.rpartition(".")[0]


def private_uses(tree: ast.AST, module: str, modules: Iterable[str]) -> list[tuple[str, str, int]]:
    """(module, private name, line) of each ``from module import _name`` and ``module._name`` of ``tree``
    whose module is one of ``modules``."""
    modules = set(modules)
    package = (
        module if FILES.get(module, Path("__init__.py")).name == "__init__.py" else module.rpartition(".")[0]
    )
    aliases: dict[str, str] = {}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                source = ".".join(
                    [*base[: len(base) - (node.level - 1)], *([node.module] if node.module else [])]
                )
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                elif source in modules and _private(alias.name):
                    out.append((source, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            out.append((aliases[node.value.id], node.attr, node.lineno))
    return out


def test_the_private_name_reader_sees_from_imports_and_module_attributes():
    tree = ast.parse(
        "from campus.analysis import power_solve as ps\nfrom campus.analysis.power_solve import _x\nps._y\n"
    )
    assert sorted(private_uses(tree, "campus.analysis.placement.power_fit", FILES)) == [
        ("campus.analysis.power_solve", "_x", 2),
        ("campus.analysis.power_solve", "_y", 3),
    ]


def test_private_names_stay_in_their_package():
    found = sorted(
        f"{module} uses {source}.{name} (line {line})"
        for module, path in FILES.items()
        for source, name, line in private_uses(ast.parse(path.read_text(encoding="utf-8")), module, FILES)
        if _package(source) != _package(module)
    )
    assert found == [], "a private name used beyond its package: give it a public name"


def _framework_private_reads(tree: ast.AST, own: set[str]) -> tuple[list[str], int]:
    """The private attributes read on an object other than ``self``/``cls`` that the project neither sets nor
    defines, and the count of private methods called through ``super()``."""
    reads, overrides = [], 0
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
            overrides += 1
        elif isinstance(value, ast.Name) and value.id in ("self", "cls"):
            continue
        elif node.attr not in own and node.attr not in DOCUMENTED_PRIVATE:
            reads.append(node.attr)
    return reads, overrides


def _own_private_names(trees) -> set[str]:
    """Private names the project gives: functions, classes and methods, and attributes or names assigned."""
    own = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr
                == "__setattr__"  # object.__setattr__(obj, "_name", value): a frozen dataclass
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                own.add(node.args[1].value)
    return {n for n in own if _private(n)}


def test_no_private_framework_internal_is_read():
    trees = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in FILES.items()}
    own = _own_private_names(trees.values())
    reads, overrides = {}, {}
    for module, tree in trees.items():
        found, supers = _framework_private_reads(tree, own)
        if found:
            reads[module] = sorted(set(found))
        if supers:
            overrides[module] = supers
    assert reads == {}, "private internals of a framework: use its public API"
    grown = {m: n for m, n in overrides.items() if n > FRAMEWORK_OVERRIDES.get(m, 0)}
    assert grown == {}, "a framework's private method overridden: use its public hooks"
    gone = sorted(m for m in FRAMEWORK_OVERRIDES if overrides.get(m, 0) < FRAMEWORK_OVERRIDES[m])
    assert gone == [], "these override fewer private methods now: lower or strike their entry"


def test_the_framework_reader_tells_own_documented_and_foreign_privates_apart():
    tree = ast.parse(
        "class A(B):\n"
        "    def _post_clean(self):\n"
        "        super()._post_clean()\n"
        "        self._x\n"
        "        obj._meta.get_field('a')\n"
        "        qs._result_cache\n"
        "        obj._mine = 1\n"
        "        other._mine\n"
    )
    own = _own_private_names([tree])
    assert own == {"_post_clean", "_mine"}
    assert _framework_private_reads(tree, own) == (["_result_cache"], 1)


def _migrations(app: str) -> dict[int, Path]:
    files = sorted((REPO / app / "migrations").glob("[0-9][0-9][0-9][0-9]_*.py"))
    numbers = [int(p.name[:4]) for p in files]
    assert len(set(numbers)) == len(numbers), f"{app}: two migrations share a number"
    return dict(zip(numbers, files, strict=True))


def _depends_on(path: Path, app: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "dependencies" for t in node.targets):
            return [
                elt.elts[1].value
                for elt in node.value.elts
                if isinstance(elt, ast.Tuple)
                and isinstance(elt.elts[0], ast.Constant)
                and elt.elts[0].value == app
            ]
    return []


@pytest.mark.parametrize("app", [a for a in ROOTS if (REPO / a / "migrations").is_dir()])
def test_each_app_s_migrations_are_numbered_in_a_line(app):
    by_number = _migrations(app)
    assert sorted(by_number) == list(range(1, len(by_number) + 1)), f"{app}: a gap in the numbers"
    for number, path in by_number.items():
        want = [by_number[number - 1].stem] if number > 1 else []
        assert _depends_on(path, app) == want, f"{path.name} depends on {_depends_on(path, app)}, not {want}"


@pytest.mark.parametrize(
    "allow_list", ["OVERSIZED", "HIDDEN_IMPORTS", "THREADED_CORE", "FRAMEWORK_OVERRIDES"]
)
def test_the_allow_lists_name_modules_that_exist(allow_list):
    assert sorted(m for m in globals()[allow_list] if m not in FILES) == []
