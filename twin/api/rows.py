"""A list page read as plain rows instead of model objects.

A page of 50 racks built 300 model objects (the racks and, through ``select_related``, each one's campus,
hall, row, cooling unit and pod) to show of the related ones only ``{id, url, name}``, and compiled its
joined statement on every request: together most of the page's time. Here the page's keys are found as
before (``TwinPagination``), then its rows are read as tuples (the related objects' names joined in) with a
statement kept per shape and number of keys (``twin.api.lookup.rows_for_keys``), and each row becomes its
representation directly:

- a column read by a field whose output depends on its value alone (``_PURE_READ_METHODS``) goes through
  that same field's ``to_representation``;
- a related object (``BriefRelatedField``) is ``{id, url, name}`` from its key and its joined name;
- the object's own ``url`` (``SelfUrlField``) from its key;
- a ``SerializerMethodField`` only where the view lists it in ``row_methods`` (its method then reads the
  row object, which carries every column under its field name, foreign keys under their ``*_id`` name, and
  what the view's ``attach_page`` adds).

A serializer with any other field, a queryset with ``distinct`` or prefetches, and a page with a related
object whose name is empty (its display falls back to ``str()`` of the object) keep the model-object path.
The answer is byte for byte the same either way (``tests/api/test_row_pages.py`` compares every list
endpoint both ways).
"""

from __future__ import annotations

import copy
import threading
from datetime import UTC

from django.conf import settings
from django.db import models
from django.utils import timezone
from rest_framework import serializers
from rest_framework.settings import api_settings

from twin.api import lookup
from twin.api.serializers.base import (
    _OWN_READ,
    BriefRelatedField,
    SelfUrlField,
    _detail_path_template,
    _origin,
    _pure_read,
)

ENABLED = True

COLUMN, BRIEF, SELF_URL, METHOD, PLAIN, UTC_ISO = range(6)

# Field classes whose to_representation returns a value of this exact class unchanged (``str(s)``,
# ``float(f)``, ``int(i)``): a row's value of that class is its representation. A field class counts only
# while it keeps that class's own to_representation.
_PLAIN = {
    serializers.CharField.to_representation: str,
    serializers.FloatField.to_representation: float,
    serializers.IntegerField.to_representation: int,
}


def _plain_class(field) -> type | None:
    """The class of the values this field returns unchanged (``_PLAIN``; a choice field whose choices are all
    strings returns a string as it is; a big integer not shown as a string, an int), or ``None``."""
    method = type(field).to_representation
    if method is serializers.ChoiceField.to_representation:
        choices = field.choice_strings_to_values
        return str if all(value.__class__ is str and value == key for key, value in choices.items()) else None
    if method is serializers.BigIntegerField.to_representation:
        return None if getattr(field, "coerce_to_string", api_settings.COERCE_BIGINT_TO_STRING) else int
    return _PLAIN.get(method)


def _utc_iso(field, zone) -> bool:
    """Whether REST framework shows this date-time field's UTC values as ``isoformat()`` with "Z" for
    "+00:00": ISO 8601 output, in a zone that is UTC (converting a UTC value to it changes nothing)."""
    output = getattr(field, "format", api_settings.DATETIME_FORMAT)
    if not isinstance(output, str) or output.lower() != "iso-8601":
        return False
    if type(field).to_representation is not serializers.DateTimeField.to_representation:
        return False
    if type(field).enforce_timezone is not serializers.DateTimeField.enforce_timezone:
        return False
    return zone is UTC or getattr(zone, "key", None) == "UTC"


_plans: dict[tuple, RowPlan | None] = {}
_lock = threading.Lock()


class Row:
    """One row of a page: its columns as attributes (``pk`` too), for a method field and ``attach_page``.

    A plan's rows are of a subclass whose ``_index`` maps each attribute to its place in the row: a column is
    read from the row's values when it is first asked for (most are never asked for), and what
    ``attach_page`` sets is kept as usual."""

    __slots__ = ("__dict__", "_values")
    _index: dict[str, int] = {}

    def __init__(self, values: tuple) -> None:
        self._values = values

    @property
    def pk(self):
        return self._values[0]

    def __getattr__(self, name: str):
        index = self._index.get(name)
        if index is None:
            raise AttributeError(name)
        return self._values[index]


class RowPlan:
    """What to read for one (serializer class, brief, row methods) and how each field is shown."""

    def __init__(self, model, lookups: list[str], names: list[str], steps: list[tuple]) -> None:
        self.model = model
        self.lookups = lookups  # the values_list lookups, in the row's order
        self.names = names  # the row object's attribute per lookup
        self.steps = steps  # (kind, field name, row index or indexes, URL basename) per readable field
        self.brief_indexes = [step[2] for step in steps if step[0] == BRIEF]
        self.shape = (model, tuple(lookups))
        self.row_class = type(
            f"{model.__name__}Row",
            (Row,),
            {"__slots__": (), "_index": {name: i for i, name in enumerate(names)}},
        )

    def read(self, keys: list, db: str) -> list[tuple]:
        def build(values):
            return self.model._base_manager.filter(pk__in=values).order_by().values_list(*self.lookups)

        rows = lookup.rows_for_keys(self.shape, build, keys, db)
        if rows is None:
            rows = list(build(keys).using(db))
        by_key = {row[0]: row for row in rows}
        return [by_key[key] for key in keys if key in by_key]

    def displayable(self, rows: list[tuple]) -> bool:
        """Every related object shown has a name (an empty one is shown as ``str()`` of the object)."""
        for key, name in self.brief_indexes:
            for row in rows:
                if row[key] is not None and not (row[name].__class__ is str and row[name]):
                    return False
        return True

    def objects(self, rows: list[tuple]) -> list[Row]:
        row_class = self.row_class
        return [row_class(values) for values in rows]

    def render(self, rows: list[tuple], objects: list[Row], serializer, request) -> list[dict]:
        origin = _origin(request)
        bound = {
            name: (to_representation, field) for name, _, to_representation, field in serializer._read_plan()
        }
        steps = []
        zone = timezone.get_current_timezone() if settings.USE_TZ else None
        for kind, name, index, basename in self.steps:
            if kind == COLUMN:
                to_representation, field = bound[name]
                if isinstance(field, serializers.DateTimeField) and not hasattr(field, "timezone"):
                    # The request's zone read once, not once per value (REST framework reads it per value
                    # when the field names none; it is the same throughout a request).
                    field = copy.copy(field)
                    field.timezone = zone
                    to_representation = field.to_representation
                    if _utc_iso(field, zone):
                        steps.append((UTC_ISO, name, index, to_representation))
                        continue
                plain = _plain_class(field)
                if plain is not None:
                    steps.append((PLAIN, name, index, (plain, to_representation)))
                    continue
                steps.append((kind, name, index, to_representation))
            elif kind == METHOD:
                to_representation, field = bound[name]
                if type(field).to_representation is serializers.SerializerMethodField.to_representation:
                    # What the field's to_representation calls, found once: the serializer's method.
                    to_representation = getattr(field.parent, field.method_name)
                steps.append((kind, name, index, to_representation))
            else:  # a URL: what comes before and after the key
                before, after = _detail_path_template(basename).split("{pk}")
                steps.append((kind, name, index, (origin + before, after)))
        render_row = _row_function(tuple((kind, name, index) for kind, name, index, _ in steps))(
            *(how for _, _, _, how in steps)
        )
        return [render_row(values, obj) for values, obj in zip(rows, objects, strict=True)]


# (kind, field name, row index) per step -> a function of each step's "how" that returns the row function.
_ROW_FUNCTIONS: dict[tuple, object] = {}


def _row_function(signature: tuple):
    """The function that renders one row for steps of this signature, written out as one dict display.

    Going through the steps in a loop for each row (the step's kind tested, the value read, the field's
    method called) cost as much as the page's queries together; the same steps written out as a dict display
    are one function call per row. Only the steps' kinds, names and row indexes are written into the source
    (names as ``repr`` literals, indexes as integers); everything a step calls or formats with comes in as
    an argument (``how0``, ``how1``, ...), so a function is shared by every request with these steps. Each
    page's row function is made afresh by the factory, with its own memory of the related objects shown
    (one page's rows come from one statement, so a key names one object throughout)."""
    with _lock:
        factory = _ROW_FUNCTIONS.get(signature)
    if factory is not None:
        return factory
    entries = []
    helpers: list[str] = []
    for number, (kind, name, index) in enumerate(signature):
        how = f"how{number}"
        # Each value is read from the row once (``x``); what a step formats with is unpacked into the
        # factory's locals once per page.
        if kind == PLAIN:
            # A value the field would return as it is (a str to a CharField, ...) is used as it is.
            helpers.append(f"    cls{number}, conv{number} = {how}\n")
            expression = (
                f"(x if (x := v[{int(index)}]) is None or x.__class__ is cls{number} else conv{number}(x))"
            )
        elif kind == COLUMN:
            expression = f"(None if (x := v[{int(index)}]) is None else {how}(x))"
        elif kind == UTC_ISO:
            # REST framework's ISO 8601 of a UTC value in a UTC zone: isoformat with "Z".
            expression = (
                f"(None if (x := v[{int(index)}]) is None else x.isoformat()[:-6] + 'Z' if x.tzinfo is UTC"
                f" else {how}(x))"
            )
        elif kind == BRIEF:
            # A related object shown on many rows of a page (their campus, hall, ...) is built once per page.
            memo = f"seen{number}"
            helpers.append(
                f"    pre{number}, post{number} = {how}\n"
                f"    {memo} = {{}}\n"
                f"    def brief{number}(pk, name):\n"
                f"        shown = {memo}[pk] = {{'id': pk, 'url': f'{{pre{number}}}{{pk}}{{post{number}}}', 'name': name}}\n"
                "        return shown\n"
            )
            expression = (
                f"(None if (x := v[{int(index[0])}]) is None else {memo}[x] if x in {memo}"
                f" else brief{number}(x, v[{int(index[1])}]))"
            )
        elif kind == SELF_URL:
            helpers.append(f"    pre{number}, post{number} = {how}\n")
            expression = f"f'{{pre{number}}}{{v[0]}}{{post{number}}}'"
        elif kind == METHOD:
            expression = f"{how}(obj)"
        else:
            raise ValueError(f"unknown step kind {kind!r}")
        entries.append(f"        {name!r}: {expression},")
    arguments = ", ".join(f"how{number}" for number in range(len(signature)))
    source = (
        f"def factory({arguments}):\n" + "".join(helpers) + "    def render_row(v, obj):\n"
        "        return {\n" + "\n".join(entries) + "\n        }\n"
        "    return render_row\n"
    )
    namespace: dict = {"UTC": UTC}
    exec(compile(source, f"<row function {len(_ROW_FUNCTIONS)}>", "exec"), namespace)  # noqa: S102
    factory = namespace["factory"]
    with _lock:
        _ROW_FUNCTIONS[signature] = factory
    return factory


def plan_for(view, serializer) -> RowPlan | None:
    """The row plan of this view's serializer, or ``None`` where the page keeps the model-object path."""
    if not hasattr(serializer, "_read_plan"):  # not a TwinModelSerializer
        return None
    key = (type(serializer), serializer.brief, tuple(getattr(view, "row_methods", ())))
    with _lock:
        if key in _plans:
            return _plans[key]
    plan = _build(serializer, set(key[2]))
    with _lock:
        _plans[key] = plan
    return plan


def _basename(model) -> str | None:
    from twin.api.serializers.base import BASENAMES

    return BASENAMES.get(model)


def _build(serializer, row_methods: set[str]) -> RowPlan | None:
    model = serializer.Meta.model
    meta = model._meta
    if meta.pk.attname is None or _basename(model) is None:
        return None
    columns = {field.name: field for field in meta.concrete_fields}
    lookups = [meta.pk.attname]
    names = ["id" if meta.pk.attname == "id" else meta.pk.attname]
    index_of = {meta.pk.name: 0}
    steps: list[tuple] = []

    def column(lookup: str, name: str) -> int:
        if name not in index_of:
            index_of[name] = len(lookups)
            lookups.append(lookup)
            names.append(name)
        return index_of[name]

    for name, attribute, _to_representation, field in serializer._read_plan():
        if isinstance(field, SelfUrlField):
            steps.append((SELF_URL, name, 0, _basename(model)))
            continue
        if isinstance(field, serializers.SerializerMethodField):
            if name not in row_methods:
                return None
            steps.append((METHOD, name, None, None))
            continue
        if attribute.__class__ is not str or attribute is _OWN_READ:
            return None
        model_field = columns.get(attribute)
        if model_field is None:
            return None
        if isinstance(field, BriefRelatedField):
            related = model_field.related_model
            if (
                not isinstance(model_field, models.ForeignKey)
                or not model_field.target_field.primary_key  # the column holds another key than the id
                or _basename(related) is None
            ):
                return None
            name_field = next((f for f in related._meta.concrete_fields if f.name == "name"), None)
            if not isinstance(name_field, models.CharField):
                return None
            key_index = column(model_field.attname, model_field.attname)
            name_index = column(f"{attribute}__name", f"_{attribute}_name")
            steps.append((BRIEF, name, (key_index, name_index), _basename(related)))
            continue
        if model_field.is_relation or not _pure_read(field):
            return None
        steps.append((COLUMN, name, column(attribute, attribute), None))
    # Every column a method may read, under its field name (a foreign key under its *_id name).
    if any(step[0] == METHOD for step in steps):
        for model_field in meta.concrete_fields:
            column(model_field.attname, model_field.attname)
    return RowPlan(model, lookups, names, steps)


def forget() -> None:
    with _lock:
        _plans.clear()
        _ROW_FUNCTIONS.clear()
