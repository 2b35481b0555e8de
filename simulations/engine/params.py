"""Validated parameters of every scenario kind, by kind name: the one entry the API, the run pipeline and
the runner use (``validate_params``, ``params_json_schema``, ``default_params``).

Each kind's pydantic model lives in its package (``simulations.engine.kinds.<kind>.params``) and is found
through the registry; what the models are built from is ``simulations.engine.fields``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from simulations.engine.fields import FieldError, ParamsError, title_of
from simulations.engine.registry import MODELS, ScenarioKind, model

__all__ = [
    "KINDS",
    "FieldError",
    "ParamsError",
    "default_params",
    "params_json_schema",
    "title_of",
    "validate_params",
]

KINDS: tuple[str, ...] = tuple(k.value for k in ScenarioKind)

# Tags pydantic puts in an error location for the member of a union that failed, not a field name.
_UNION_TAGS = frozenset({"float", "int", "str", "bool", "literal['optimal']", "none"})
# Tags of the kinds' tagged unions (liquid_cooling's kinds of event): also left out of a path, named in the
# message. Each kind's package lists its own as ``UNION_TAGS``.
_EVENT_TAGS = frozenset(tag for m in MODELS.values() for tag in getattr(m, "UNION_TAGS", ()))


def _path(loc: tuple[Any, ...]) -> str:
    """("caps", 0, "cap_w") -> "caps[0].cap_w"."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _model(kind: str) -> type[BaseModel]:
    try:
        return model(kind).Params
    except KeyError:
        raise ParamsError(
            [{"field": "kind", "message": f"unknown kind {kind!r}; one of {', '.join(KINDS)}"}]
        ) from None


def validate_params(kind: str, data: dict[str, Any] | None, *, stored: bool = False) -> BaseModel:
    """Validate ``data`` for ``kind``; raise ParamsError naming each bad field as ``a.b[0].c``. ``stored``:
    the parameters of a run already made, read back (for its explanation): an event outside the run's window
    or too many steps, refused for a new run, are let through."""
    model = _model(kind)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ParamsError([{"field": "", "message": "parameters must be an object"}])
    try:
        return model.model_validate(data, context={"stored": True} if stored else None)
    except ValidationError as exc:
        # Union members report one error each under the same field: merge them into one message.
        by_field: dict[str, list[str]] = {}
        for err in exc.errors():
            tags = [p for p in err["loc"] if isinstance(p, str) and p in _EVENT_TAGS]
            parts = [
                p for p in err["loc"] if not (isinstance(p, str) and (p in _UNION_TAGS or p in _EVENT_TAGS))
            ]
            msg = err["msg"].removeprefix("Value error, ")
            cause = (err.get("ctx") or {}).get("error")
            if isinstance(cause, FieldError):
                parts = [*parts, cause.field]
                msg = str(cause)
            if tags and err["type"] == "extra_forbidden":
                msg = f"does not apply to a {tags[-1]} event"
            if "[key]" in parts:
                parts.remove("[key]")
                msg = f"invalid key: {msg}"
            messages = by_field.setdefault(_path(tuple(parts)), [])
            if msg not in messages:
                messages.append(msg)
        raise ParamsError([{"field": f, "message": " or ".join(m)} for f, m in by_field.items()]) from None


def params_json_schema(kind: str) -> dict[str, Any]:
    """JSON schema of one kind's parameters (for the API and the form)."""
    return _model(kind).model_json_schema()


def param_label(kind: str, path: str) -> str | None:
    """A parameter's path as people read it, from the titles of the kind's schema:
    "caps[0].cap_fraction" -> "Caps 1 · Cap (fraction of TDP)"; None when a step has no title (the caller
    falls back to the path's words)."""
    schema = params_json_schema(kind)
    defs = schema.get("$defs", {})

    def plain(node: dict[str, Any]) -> dict[str, Any]:
        """The object or list a schema node stands for: references followed, and the options of an
        Optional or of a tagged union merged (the properties of every option, the first option's items)."""
        if "$ref" in node:
            return plain(defs.get(node["$ref"].rsplit("/", 1)[-1], {}))
        options = node.get("anyOf") or node.get("oneOf")
        if not options:
            return node
        merged: dict[str, Any] = {"properties": {}}
        for option in map(plain, options):
            for name, prop in option.get("properties", {}).items():
                merged["properties"].setdefault(name, prop)
            if "items" in option:
                merged.setdefault("items", option["items"])
        return merged

    node, words = schema, []
    for step in path.split("."):
        name, _, index = step.partition("[")
        prop = plain(node).get("properties", {}).get(name)
        if prop is None or not prop.get("title"):
            return None
        words.append(prop["title"] + (f" {int(index.rstrip(']')) + 1}" if index else ""))
        node = plain(prop)
        if index:
            node = plain(node.get("items", {}))
    return " · ".join(words)


def default_params(kind: str) -> dict[str, Any]:
    """Every parameter of ``kind`` at its default, as JSON-ready data."""
    return _model(kind)().model_dump(mode="json")
