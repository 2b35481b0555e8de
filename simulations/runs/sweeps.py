"""Sweeps: one run of a scenario at every point of a grid of one or two of its parameters.

A request names each swept parameter by its path in the kind's parameter model (``"recovery"``,
``"checkpoint_interval_minutes"``, ``"caps[0].cap_fraction"``, ``"bess.energy_mwh"``) with either a list of
``values`` or a numeric range (``start``, ``stop`` and ``num`` — or its synonym ``steps`` — values evenly
spaced, both ends included, as ``numpy.linspace``). ``normalise`` checks it all before anything is stored:
every name against the kind's schema, every value and every point of the grid against the kind's pydantic
model (the scenario's own parameters with the swept ones set), and points x replicas against
``TWIN_SWEEP_MAX_REPLICAS``. Errors come back keyed by where they are, ``sweep.parameters[0].name``,
``sweep.parameters[1].values[2]``, ``sweep.parameters[0].num``, ``sweep``.

Replica ``i`` of a sweep belongs to point ``i // replicas_per_point`` and is that point's replica
``i % replicas_per_point``; it runs with ``runner.replica_seed(run.seed, i % replicas_per_point)``: the seed a
plain run with the same run seed gives its replica of that number. So every point sees the same random
draws (common random numbers: a difference between points comes from the parameter, not from luck), and a
point's summary equals that of a plain run of the point's parameters with the same seed and replicas.

Pure (no database): the API and the run machinery call it.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import numpy as np

from campus.analysis.snapshot import CampusSnapshot
from simulations.engine.params import ParamsError, params_json_schema, validate_params
from simulations.engine.runner import prepare

from . import replay
from .config import env_int, validated_params

# At most this many parameters per sweep (a grid of two: one line per value of the second on the chart).
MAX_PARAMETERS = 2
# Points of the grid (the product of the parameters' value counts), and points x replicas per point.
MAX_POINTS = env_int("TWIN_SWEEP_MAX_POINTS", 200)
MAX_REPLICAS = env_int("TWIN_SWEEP_MAX_REPLICAS", 5000)

_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[\d+\])*(\.[A-Za-z_][A-Za-z0-9_]*(\[\d+\])*)*$")
_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


class SweepError(ValueError):
    """A bad sweep; ``errors`` is {"sweep.parameters[0].name": ["message"], ...}."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


def parse_path(name: str) -> list[str | int]:
    """ "caps[0].cap_fraction" -> ["caps", 0, "cap_fraction"]; ValueError for anything else."""
    if not isinstance(name, str) or not _PATH.match(name):
        raise ValueError("a parameter path such as checkpoint_interval_minutes or caps[0].cap_fraction")
    return [m.group(1) if m.group(1) else int(m.group(2)) for m in _PART.finditer(name)]


def _resolve(schema: dict, node: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _alternatives(schema: dict, node: dict) -> list[dict]:
    """The schemas a value of ``node`` may follow (the members of an anyOf/oneOf, $refs resolved)."""
    node = _resolve(schema, node)
    members = node.get("anyOf") or node.get("oneOf")
    if not members:
        return [node]
    out = []
    for m in members:
        out.extend(_alternatives(schema, m))
    return out


def leaf_schema(schema: dict, path: list[str | int]) -> dict | None:
    """The JSON schema of the parameter at ``path`` in a kind's parameter schema; None when there is none."""
    nodes = [schema]
    for part in path:
        found = []
        for node in nodes:
            for alt in _alternatives(schema, node):
                if isinstance(part, str):
                    sub = (alt.get("properties") or {}).get(part)
                    if sub is not None:
                        found.append(sub)
                elif alt.get("type") == "array":
                    if "items" in alt:
                        found.append(alt["items"])
                    elif part < len(alt.get("prefixItems") or []):
                        found.append(alt["prefixItems"][part])
        if not found:
            return None
        nodes = found
    return _resolve(schema, nodes[0]) if len(nodes) == 1 else {"anyOf": nodes}


def names_campus_things(schema: dict, path: list[str | int]) -> bool:
    """Whether the parameter at ``path`` (or a list or mapping it belongs to) names the campus's things: a
    GPU model, pod, cooling unit... (``x-picker`` / ``x-key-picker`` in the kind's schema)."""
    for n in range(1, len(path) + 1):
        leaf = leaf_schema(schema, path[:n])
        if leaf is None:
            continue
        raw = [_resolve(schema, n) for n in leaf.get("anyOf", [])]
        for node in [leaf, *raw, *_alternatives(schema, leaf)]:
            if "x-picker" in node or "x-key-picker" in node:
                return True
            items = node.get("items")
            if isinstance(items, dict) and ("x-picker" in items or "x-key-picker" in items):
                return True
    return False


def numeric(leaf: dict, schema: dict) -> str | None:
    """ "integer" or "number" when the parameter takes a number, else None."""
    types = {a.get("type") for a in _alternatives(schema, leaf)}
    if "number" in types:
        return "number"
    if "integer" in types:
        return "integer"
    return None


def set_path(data: Any, path: list[str | int], value: Any) -> Any:
    """A copy of ``data`` (JSON-like) with ``value`` at ``path``; an empty optional object on the way (None)
    becomes {}. IndexError when a list is too short."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(data or [])
        if head >= len(items):
            raise IndexError(head)
        items[head] = set_path(items[head], rest, value)
        return items
    obj = dict(data or {})
    obj[head] = set_path(obj.get(head), rest, value)
    return obj


def get_path(data: Any, path: list[str | int]) -> Any:
    for part in path:
        data = data[part]
    return data


def _linspace(p: dict, where: str, kind_of_number: str | None, errors: dict[str, list[str]]) -> list | None:
    count_key = "steps" if "steps" in p and "num" not in p else "num"
    if "num" in p and "steps" in p:
        errors.setdefault(f"{where}.steps", []).append("give num or steps (the same thing), not both")
        return None
    if kind_of_number is None:
        errors.setdefault(f"{where}.start", []).append(
            "a range needs a numeric parameter; give values instead"
        )
        return None
    bad = False
    for key in ("start", "stop"):
        v = p.get(key)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            errors.setdefault(f"{where}.{key}", []).append("must be a number")
            bad = True
    n = p.get(count_key)
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= MAX_POINTS:
        errors.setdefault(f"{where}.{count_key}", []).append(
            f"must be a whole number of values from 2 to {MAX_POINTS} (both ends included)"
        )
        bad = True
    if bad:
        return None
    # 12 significant digits: 0.6, not 0.6000000000000001
    values = [float(f"{x:.12g}") for x in np.linspace(float(p["start"]), float(p["stop"]), n)]
    if kind_of_number == "integer":
        if not all(float(v).is_integer() for v in values):
            errors.setdefault(f"{where}.{count_key}", []).append(
                "this parameter takes whole numbers: choose start, stop and num so that every value is whole"
            )
            return None
        values = [int(v) for v in values]
    return values


def _same(a: Any, b: Any) -> bool:
    return (
        type(a) is type(b)
        and a == b
        or (isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool) and a == b)
    )


def normalise(kind: str, base_params: dict | None, sweep: Any, replicas: int) -> dict[str, Any]:
    """The checked sweep: {"parameters": [{"name", "values"}], "points": [{name: value}],
    "replicas_per_point": replicas}. Raises SweepError naming each problem by its place in the request."""
    errors: dict[str, list[str]] = {}
    if not isinstance(sweep, dict):
        raise SweepError({"sweep": ['an object: {"parameters": [{"name": ..., "values": [...]}]}']})
    unknown = sorted(set(sweep) - {"parameters"})
    for key in unknown:
        errors[f"sweep.{key}"] = ["unknown field; a sweep has only parameters"]
    params_in = sweep.get("parameters")
    if not isinstance(params_in, list) or not 1 <= len(params_in) <= MAX_PARAMETERS:
        errors["sweep.parameters"] = [f"a list of 1 to {MAX_PARAMETERS} parameters"]
        raise SweepError(errors)
    schema = params_json_schema(kind)
    base = validate_params(kind, base_params or {}).model_dump(mode="json")
    parameters: list[dict[str, Any]] = []
    paths: list[list[str | int]] = []
    for i, p in enumerate(params_in):
        where = f"sweep.parameters[{i}]"
        if not isinstance(p, dict):
            errors[where] = ['an object: {"name": ..., "values": [...]} or {"name", "start", "stop", "num"}']
            continue
        for key in sorted(set(p) - {"name", "values", "start", "stop", "num", "steps"}):
            errors.setdefault(f"{where}.{key}", []).append(
                "unknown field; a parameter has name and values, or name, start, stop and num"
            )
        name = p.get("name")
        try:
            path = parse_path(name)
        except ValueError as exc:
            errors.setdefault(f"{where}.name", []).append(f"must be {exc}")
            continue
        leaf = leaf_schema(schema, path)
        if leaf is None:
            errors.setdefault(f"{where}.name", []).append(f"{name!r} is not a parameter of {kind}")
            continue
        try:
            set_path(base, path, None)
        except (IndexError, KeyError, TypeError, ValueError):
            errors.setdefault(f"{where}.name", []).append(
                f"{name!r} names an entry the scenario's parameters do not have"
            )
            continue
        for j, other in enumerate(paths):
            short = min(len(other), len(path))
            if other[:short] == path[:short]:
                errors.setdefault(f"{where}.name", []).append(
                    f"overlaps sweep.parameters[{j}].name ({parameters[j]['name']}); sweep two different parameters"
                )
        if f"{where}.name" in errors:
            continue
        has_values = "values" in p
        has_range = any(k in p for k in ("start", "stop", "num", "steps"))
        if has_values == has_range:
            errors.setdefault(where, []).append("give either values, or start, stop and num")
            continue
        if has_values:
            values = p["values"]
            if not isinstance(values, list) or not 1 <= len(values) <= MAX_POINTS:
                errors.setdefault(f"{where}.values", []).append(f"a list of 1 to {MAX_POINTS} values")
                continue
        else:
            values = _linspace(p, where, numeric(leaf, schema), errors)
            if values is None:
                continue
        ok = True
        for j, value in enumerate(values):
            dup = next((k for k in range(j) if _same(values[k], value)), None)
            if dup is not None:
                errors.setdefault(f"{where}.values[{j}]", []).append(f"repeats values[{dup}]")
                ok = False
                continue
            try:
                validate_params(kind, set_path(base, path, value))
            except ParamsError as exc:
                messages = [
                    e["message"] if e["field"] == name else f"{e['field'] or 'params'}: {e['message']}"
                    for e in exc.errors
                ]
                errors.setdefault(f"{where}.values[{j}]", []).extend(messages)
                ok = False
        if ok:
            parameters.append({"name": name, "values": list(values)})
            paths.append(path)
    if errors:
        raise SweepError(errors)
    points_count = math.prod(len(p["values"]) for p in parameters)
    if points_count > MAX_POINTS:
        raise SweepError(
            {"sweep": [f"{points_count} points; a sweep has at most {MAX_POINTS} (TWIN_SWEEP_MAX_POINTS)"]}
        )
    if points_count * replicas > MAX_REPLICAS:
        raise SweepError(
            {
                "sweep": [
                    f"{points_count} points x {replicas} replicas = {points_count * replicas} replicas; a sweep "
                    f"runs at most {MAX_REPLICAS} (TWIN_SWEEP_MAX_REPLICAS): fewer points or fewer replicas"
                ]
            }
        )
    points = []
    for k, combo in enumerate(itertools.product(*(p["values"] for p in parameters))):
        data = base
        for path, value in zip(paths, combo, strict=True):
            data = set_path(data, path, value)
        try:
            validate_params(kind, data)
        except ParamsError as exc:
            where = ", ".join(f"{p['name']} = {v!r}" for p, v in zip(parameters, combo, strict=True))
            errors.setdefault("sweep", []).append(f"point {k} ({where}): {exc}")
        points.append({p["name"]: v for p, v in zip(parameters, combo, strict=True)})
    if errors:
        raise SweepError(errors)
    return {"parameters": parameters, "points": points, "replicas_per_point": replicas}


def point_params(kind: str, base_params: dict, sweep: dict, point: int) -> dict:
    """The full parameters of one point: the run's frozen parameters with the point's values set (JSON)."""
    data = validate_params(kind, base_params or {}).model_dump(mode="json")
    for name, value in sweep["points"][point].items():
        data = set_path(data, parse_path(name), value)
    return validate_params(kind, data).model_dump(mode="json")


def locate(sweep: dict, index: int) -> tuple[int, int]:
    """(point, replica number within the point) of the run's replica ``index``."""
    return divmod(int(index), int(sweep["replicas_per_point"]))


def chunks(sweep: dict, size: int) -> list[list[int]]:
    """The run's replica indices cut into chunks of at most ``size``, never across two points (a chunk
    prepares one point's plan)."""
    per = int(sweep["replicas_per_point"])
    out = []
    for p in range(len(sweep["points"])):
        lo, hi = p * per, (p + 1) * per
        out.extend(list(range(a, min(a + size, hi))) for a in range(lo, hi, size))
    return out


def sweep_campus_errors(kind: str, params: dict, spec: dict, snap: CampusSnapshot) -> dict[str, list[str]]:
    """{"sweep.parameters[i].values[j]": [message]} for each swept value the campus cannot run (a GPU model,
    pod or cooling unit it does not have): the kind's ``prepare`` on one snapshot of the campus, once per
    value (the scenario's parameters with that value set), not once per point of the grid. Only parameters
    that name the campus's things (``x-picker`` / ``x-key-picker`` in the schema) are tried: ``prepare``
    costs up to a second on a 100k-GPU campus, and any other value the campus cannot run fails its point's
    chunk with the engine's message. ``snap``: the campus of the run's day, as for ``campus_params_errors``."""
    schema = params_json_schema(kind)
    todo = [
        (i, p) for i, p in enumerate(spec["parameters"]) if names_campus_things(schema, parse_path(p["name"]))
    ]
    if not todo:
        return {}
    base = validated_params(kind, replay.resolve(kind, params, snap.id, snap.name)).model_dump(mode="json")
    out: dict[str, list[str]] = {}
    for i, parameter in todo:
        path = parse_path(parameter["name"])
        for j, value in enumerate(parameter["values"]):
            try:
                prepare(snap, kind, validated_params(kind, set_path(base, path, value)))
            except ParamsError as exc:
                out[f"sweep.parameters[{i}].values[{j}]"] = [
                    f"{e['field'] or 'params'}: {e['message']}" for e in exc.errors
                ]
    return out
