"""A campus's design, object by object: the inventory models found from ``_meta``, a design read by natural
key, and two designs compared (campus.branching branches and merges with them; docs/planning.md).

The inventory is found, not listed: every model of the ``campus`` app (history tables aside) with a chain of
required references to ``Campus`` is an inventory model (``inventory_models()``), copied and compared field
by field from its ``_meta``. A model added later is branched, diffed and merged without a change here
(tests/api/test_branches.py fails for a model that is not).

Objects are matched by *natural key*, never by id: the fields of the model's unconditional unique constraint
(``(campus, name)`` for a rack, ``(building, name)`` for a hall, ``(rack, name)`` for a node), with the
campus left out and each reference replaced by the referenced object's own key. A model without such a
constraint (power feeds, links) is keyed by its references to other inventory objects and its choice
fields; identical keys within one campus are told apart by their order (``#1``, ``#2``). References in the
compared fields are compared by the referenced object's key too, catalog references by slug. The campus row
itself is one more object (model ``campus``, its design fields: grid capacity, price, PUE, climate, ...).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.apps import apps
from django.db import models

from campus.models import BranchBase, Campus, Job, MeasurementRollup, PrometheusSource

# Columns that change on every save and say nothing about the design.
BOOKKEEPING = frozenset({"created", "last_updated"})
# Campus columns that are the campus's identity, not its design.
CAMPUS_IDENTITY = frozenset({"id", "name", "parent", "branched_at", "revision", *BOOKKEEPING})
# Models of the campus app that belong to a campus but are not part of its design (a job records how a
# campus was made; a branch is not made by it; measurements are what the site shows, not its design).
NOT_INVENTORY: frozenset[type] = frozenset({BranchBase, Job, MeasurementRollup, PrometheusSource})
CAMPUS = "campus"

Key = tuple


# ---------------------------------------------------------------- the inventory models


@dataclass(frozen=True)
class InventoryModel:
    model: type[models.Model]
    name: str  # model_name, as /api/changes/ names it
    owner: str  # lookup from a row to its campus id, e.g. "rack__campus_id"
    fields: tuple  # every column copied (all but the primary key and the bookkeeping)
    key: tuple  # the natural key's fields, in order
    content: tuple  # the compared fields: ``fields`` minus the key and the link to the campus

    @property
    def history(self) -> bool:
        return getattr(self.model._meta, "simple_history_manager_attribute", None) is not None


def _is_history(model) -> bool:
    return getattr(model, "instance_type", None) is not None  # django-simple-history's tables


def _relations(model) -> list:
    return [f for f in model._meta.concrete_fields if f.is_relation and (f.many_to_one or f.one_to_one)]


def _owner_paths(candidates: Iterable[type]) -> dict[type, str]:
    """Each model's lookup to its campus id, through required references only (``campus`` first)."""
    paths: dict[type, str] = {}
    pending = list(candidates)
    while True:
        found = False
        for model in pending:
            if model in paths:
                continue
            required = sorted((f for f in _relations(model) if not f.null), key=lambda f: f.name != "campus")
            for f in required:
                if f.related_model is Campus:
                    paths[model] = f.attname
                elif f.related_model in paths and f.related_model is not model:
                    paths[model] = f"{f.name}__{paths[f.related_model]}"
                else:
                    continue
                found = True
                break
        if not found:
            return paths


def _unique_sets(model) -> list[tuple[str, ...]]:
    sets = [
        tuple(c.fields)
        for c in model._meta.constraints
        if isinstance(c, models.UniqueConstraint) and c.condition is None and c.fields
    ]
    sets += [tuple(t) for t in model._meta.unique_together]
    sets += [(f.name,) for f in model._meta.concrete_fields if f.unique and not f.primary_key]
    return sets


def _key_fields(model, inventory: set[type]) -> tuple:
    fields = {f.name: f for f in model._meta.concrete_fields}
    sets = _unique_sets(model)
    named = [s for s in sets if "name" in s]
    chosen = (named or sets or [None])[0]
    if chosen is not None:
        return tuple(fields[n] for n in chosen if fields[n].related_model is not Campus)
    # No unique constraint: the references to other inventory objects and the choice fields (a power feed:
    # upstream, downstream device or rack, side; a link: pod, a end, b end, network).
    return tuple(
        f
        for f in model._meta.concrete_fields
        if (f.is_relation and f.related_model in inventory)
        or (not f.is_relation and f.choices and f.name != "status")
    )


def _dependency_order(models_: list[type]) -> list[type]:
    """Referenced models before the models referring to them (Kahn's algorithm, ties by name)."""
    inventory = set(models_)
    needs = {
        m: {
            f.related_model
            for f in _relations(m)
            if f.related_model in inventory and f.related_model is not m
        }
        for m in models_
    }
    order: list[type] = []
    while needs:
        ready = sorted((m for m, n in needs.items() if not n), key=lambda m: m._meta.model_name)
        if not ready:
            cycle = ", ".join(sorted(m._meta.model_name for m in needs))
            raise RuntimeError(f"Inventory models refer to each other in a cycle: {cycle}.")
        for m in ready:
            order.append(m)
            del needs[m]
        for n in needs.values():
            n.difference_update(ready)
    for m in models_:
        if any(f.related_model is m for f in _relations(m)):
            raise RuntimeError(f"{m._meta.model_name} refers to itself; branching does not order such rows.")
    return order


@lru_cache(maxsize=1)
def inventory_models() -> tuple[InventoryModel, ...]:
    """Every inventory model of a campus, in dependency order (the campus row itself excluded)."""
    candidates = [
        m
        for m in apps.get_app_config("campus").get_models()
        if m is not Campus and m not in NOT_INVENTORY and not _is_history(m) and not m._meta.abstract
    ]
    owners = _owner_paths(candidates)
    found = set(owners)
    out = []
    for model in _dependency_order(list(owners)):
        columns = tuple(
            f for f in model._meta.concrete_fields if not f.primary_key and f.name not in BOOKKEEPING
        )
        key = _key_fields(model, found)
        content = tuple(f for f in columns if f not in key and f.related_model is not Campus)
        out.append(InventoryModel(model, model._meta.model_name, owners[model], columns, key, content))
    return tuple(out)


def campus_fields() -> tuple:
    """The campus row's design fields (compared and merged like an object's)."""
    return tuple(f for f in Campus._meta.concrete_fields if f.name not in CAMPUS_IDENTITY)


# ---------------------------------------------------------------- reading a design


class Obj:
    """One object of a design: its id, natural key, compared values (references as natural keys), the raw
    column values of ``InventoryModel.fields`` (ids, for copying) and what it refers to."""

    __slots__ = ("id", "key", "values", "row", "refs", "_fp")

    def __init__(self, id: int, key: Key, values: tuple, row: tuple, refs: tuple = ()):
        self.id, self.key, self.values, self.row, self.refs = id, key, values, row, refs
        self._fp: str | None = None

    @property
    def fp(self) -> str:
        if self._fp is None:
            self._fp = _fingerprint(self.values)
        return self._fp


@dataclass
class Design:
    campus_id: int
    objects: dict[str, dict[Key, Obj]] = field(default_factory=dict)  # model name -> key -> object
    key_of: dict[str, dict[int, Key]] = field(default_factory=dict)  # model name -> id -> key

    def fingerprints(self) -> dict[str, dict[str, str]]:
        return {m: {key_text_id(k): o.fp for k, o in objs.items()} for m, objs in self.objects.items()}


def key_text_id(key: Key) -> str:
    """A key as the text the branch point stores it under (Python literal syntax: strings, None, tuples)."""
    return repr(key)


def _flat(value) -> Iterable[str]:
    if isinstance(value, tuple | list):
        for v in value:
            yield from _flat(v)
    elif value is not None:
        yield str(value)


def key_text(key: Key) -> str:
    """A key as people read it: ``B1 / H1`` for hall H1 of building B1, ``UPS-A / R-001 / A`` for a feed."""
    return " / ".join(_flat(key)) or "(one per campus)"


def _fingerprint(values: tuple) -> str:
    return hashlib.blake2b(repr(values).encode(), digest_size=10).hexdigest()


def _plain(value):
    return bytes(value) if isinstance(value, memoryview) else value


def _catalog_labels(model) -> dict[int, Any]:
    label = "slug" if any(f.name == "slug" for f in model._meta.concrete_fields) else "pk"
    return dict(model.objects.values_list("pk", label))


def read_design(
    campus_id: int, with_refs: bool = False, report: Callable[[float], None] | None = None
) -> Design:
    """Every object of a campus by natural key: one query per inventory table, and column-wise mapping of
    ids to keys (``with_refs``: also what each object refers to, for a merge). ``report`` is told the share
    of the tables read after each one."""
    design = Design(campus_id)
    tables = inventory_models()
    catalogs: dict[type, dict[int, Any]] = {}
    campus_row = Campus.objects.filter(pk=campus_id).values_list(*(f.attname for f in campus_fields())).get()
    values = tuple(_plain(v) for v in campus_row)
    design.objects[CAMPUS] = {(): Obj(campus_id, (), values, values)}
    for done, im in enumerate(tables, 1):
        if report is not None and done > 1:
            report((done - 1) / len(tables))
        lookup: dict[str, Any] = {}  # attname -> the dict mapping its ids (a reference's key, a catalog slug)
        ref_model: dict[str, str] = {}
        for f in im.fields:
            if not f.is_relation or f.related_model is Campus:
                continue
            rel = f.related_model
            if rel._meta.model_name in design.key_of:
                lookup[f.attname] = design.key_of[rel._meta.model_name]
                ref_model[f.attname] = rel._meta.model_name
            else:
                if rel not in catalogs:
                    catalogs[rel] = _catalog_labels(rel)
                lookup[f.attname] = catalogs[rel]
        attnames = [f.attname for f in im.fields]
        rows = list(
            im.model.objects.filter(**{im.owner: campus_id}).order_by("pk").values_list("pk", *attnames)
        )
        design.key_of[im.name] = {}
        design.objects[im.name] = {}
        if not rows:
            continue
        ids, *columns = zip(*rows, strict=True)
        for i, f in enumerate(im.fields):
            if isinstance(f, models.BinaryField):
                columns[i] = tuple(map(_plain, columns[i]))
        column = dict(zip(attnames, columns, strict=True))

        def mapped(attname: str, column=column, lookup=lookup):
            col = column[attname]
            table = lookup.get(attname)
            return list(map(table.get, col)) if table is not None else col

        n = len(ids)
        keys = list(zip(*(mapped(f.attname) for f in im.key), strict=True)) if im.key else [()] * n
        values_ = list(zip(*(mapped(f.attname) for f in im.content), strict=True)) if im.content else [()] * n
        raw = list(zip(*columns, strict=True))
        if with_refs and ref_model:
            refcols = [(m, mapped(a)) for a, m in ref_model.items()]
            refs = [tuple((m, col[j]) for m, col in refcols if col[j] is not None) for j in range(n)]
        else:
            refs = [()] * n
        objs_list = [Obj(*row) for row in zip(ids, keys, values_, raw, refs, strict=True)]
        if len(set(keys)) == n:
            objs = dict(zip(keys, objs_list, strict=True))
        else:  # no unique constraint: tell identical keys apart by their content
            groups: dict[Key, list[Obj]] = defaultdict(list)
            for obj in objs_list:
                groups[obj.key].append(obj)
            objs = {}
            for key, same in groups.items():
                if len(same) > 1:
                    same.sort(key=lambda o: (repr(o.values), o.id))
                    for number, obj in enumerate(same, 1):
                        obj.key = (*key, f"#{number}")
                        objs[obj.key] = obj
                else:
                    objs[key] = same[0]
        design.key_of[im.name] = {obj.id: obj.key for obj in objs.values()}
        design.objects[im.name] = objs
    return design


# ---------------------------------------------------------------- comparing


def _shown(value):
    if isinstance(value, tuple):
        return key_text(value)
    if isinstance(value, bytes):
        return f"{len(value)} bytes, sha256 {hashlib.sha256(value).hexdigest()[:12]}"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _content_names(model_name: str) -> tuple[str, ...]:
    if model_name == CAMPUS:
        return tuple(f.name for f in campus_fields())
    im = next(m for m in inventory_models() if m.name == model_name)
    return tuple(f.name for f in im.content)


def model_names() -> list[str]:
    return [CAMPUS, *(im.name for im in inventory_models())]


def compare(ours: Design, theirs: Design) -> dict[str, list]:
    """Objects added (in ours only), removed (in theirs only) and changed (each differing field as
    ``[theirs, ours]``), matched by natural key."""
    added, removed, changed = [], [], []
    for model in model_names():
        mine, other = ours.objects.get(model, {}), theirs.objects.get(model, {})
        names = _content_names(model)
        # One pass over ours, one lookup per key (a natural key is a nested tuple, hashed anew each time),
        # and only what differs is sorted: a 1M-GPU design has 570,000 objects.
        only_mine, differ = [], []
        common = 0
        find = other.get
        for key, b in mine.items():
            a = find(key)
            if a is None:
                only_mine.append(key)
            else:
                common += 1
                if a.values != b.values:
                    differ.append(key)
        only_other = [] if common == len(other) else [k for k in other if k not in mine]
        for key in sorted(only_mine, key=key_text):
            added.append({"model": model, "name": key_text(key)})
        for key in sorted(only_other, key=key_text):
            removed.append({"model": model, "name": key_text(key)})
        for key in sorted(differ, key=key_text):
            a, b = other[key], mine[key]
            fields = {
                n: [_shown(t), _shown(o)] for n, t, o in zip(names, a.values, b.values, strict=True) if t != o
            }
            if fields:
                changed.append({"model": model, "name": key_text(key), "fields": fields})
    return {"added": added, "removed": removed, "changed": changed}
