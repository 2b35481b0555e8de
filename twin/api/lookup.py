"""One object by primary key without compiling its query on every request.

A detail ``GET`` reads one row by its key, yet Django's query compiler builds the same ``SELECT`` (columns,
joins of ``select_related``, deferred fields) again on every request: for a catalog object that was about a
third of the request's time. Here the compiled statement of each queryset shape is kept per process, with the
key as its only parameter, and run again with the requested key; the rows become objects through Django's own
``ModelIterable`` (``from_db``, ``select_related`` populators, converters), and ``prefetch_related`` lookups are
applied as usual. The answer is the same object the ORM returns (``tests/api/test_compiled_lookup.py``
compares every endpoint's detail both ways).

A queryset takes this path only when its query has no filter, annotation, extra, distinct, slicing or
combination, and when compiling it with a sentinel key yields the key as the one and only parameter;
anything else goes through the ORM as before. The shape key holds everything else the SQL depends on (model,
database, ``select_related``, deferred fields); like ``QuerySet.get`` it reads without ordering.
"""

from __future__ import annotations

import copy
import threading

from django.db import connections
from django.db.models.query import ModelIterable

SENTINEL = -7_364_921_057

_plans: dict[tuple, tuple[str, object] | None] = {}
_MISSING = object()
_lock = threading.Lock()


class _Unsupported(Exception):
    pass


def _shape(queryset) -> tuple | None:
    query = queryset.query
    if (
        query.where.children
        or query.annotations
        or query.extra
        or query.distinct
        or query.is_sliced
        or query.combinator
        or query.values_select
        or queryset._known_related_objects
        or queryset._iterable_class is not ModelIterable
        or queryset._fields is not None
    ):
        return None
    select_related = query.select_related
    return (
        queryset.model,
        queryset.db,
        repr(select_related) if isinstance(select_related, dict) else select_related,
        query.deferred_loading[1],
        tuple(sorted(query.deferred_loading[0])),
    )


def _plan(queryset, shape: tuple) -> tuple[str, object] | None:
    with _lock:
        if shape in _plans:
            return _plans[shape]
    model = queryset.model
    # As QuerySet.get(): no ordering (a lookup by key needs none, and ordering may join other tables).
    probe = queryset.order_by().filter(pk=SENTINEL)
    probe.query.set_limits(high=2)
    compiler = probe.query.get_compiler(using=queryset.db)
    try:
        sql, params = compiler.as_sql()
        if list(params) != [SENTINEL] or str(SENTINEL) in sql or model._meta.pk.attname is None:
            raise _Unsupported
    except Exception:  # noqa: BLE001 - any shape the probe cannot compile plainly keeps the ORM path
        plan = None
    else:
        plan = (sql, compiler)
    with _lock:
        _plans[shape] = plan
    return plan


class _Stand:
    """What ``ModelIterable`` reads of a queryset, around a compiler that runs a kept statement."""

    def __init__(self, queryset, compiler):
        self.db = queryset.db
        self.model = queryset.model
        self._known_related_objects: dict = {}
        self.query = self
        self._compiler = compiler

    def get_compiler(self, using=None, connection=None, elide_empty=True):
        return self._compiler


def get_by_pk(queryset, pk):
    """``queryset.get(pk=pk)`` as a list of 0 or 1 objects, or ``None`` where this path does not apply (the
    caller then asks the ORM). ``pk`` must already be of the key's Python type."""
    shape = _shape(queryset)
    if shape is None:
        return None
    plan = _plan(queryset, shape)
    if plan is None:
        return None
    sql, prototype = plan
    compiler = copy.copy(prototype)
    compiler.connection = connections[queryset.db]
    params = (pk,)
    compiler.as_sql = lambda *args, **kwargs: (sql, params)
    objects = list(ModelIterable(_Stand(queryset, compiler)))
    lookups = queryset._prefetch_related_lookups
    if objects and lookups:
        from django.db.models import prefetch_related_objects

        prefetch_related_objects(objects, *lookups)
    return objects


# (shape) -> the kept statement that finds whether a key exists, or None where the shape does not take it.
_exists_plans: dict[tuple, str | None] = {}


def pk_exists(queryset, pk) -> bool | None:
    """Whether ``queryset`` holds the object of key ``pk``, with a statement kept per queryset shape (one
    column of one row, no object built), or ``None`` where this path does not apply (the caller then asks
    the ORM). ``pk`` must already be of the key's Python type."""
    shape = _shape(queryset)
    if shape is None:
        return None
    with _lock:
        sql = _exists_plans.get(shape, _MISSING)
    if sql is _MISSING:
        probe = queryset.order_by().filter(pk=SENTINEL).values_list("pk")
        probe.query.set_limits(high=1)
        try:
            sql, params = probe.query.get_compiler(using=queryset.db).as_sql()
            if list(params) != [SENTINEL] or str(SENTINEL) in sql:
                raise _Unsupported
        except Exception:  # noqa: BLE001 - any shape the probe cannot compile plainly keeps the ORM path
            sql = None
        with _lock:
            _exists_plans[shape] = sql
    if sql is None:
        return None
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, (pk,))
        return cursor.fetchone() is not None


def forget() -> None:
    with _lock:
        _plans.clear()
        _row_plans.clear()
        _exists_plans.clear()


# ---------------------------------------------------------------- rows of a list of keys

_row_plans: dict[tuple, tuple | None] = {}


def rows_for_keys(shape: tuple, build, keys: list, db: str) -> list[tuple] | None:
    """``list(build(keys))`` for a ``values_list`` queryset that filters ``__in`` the keys, with its compiled
    statement kept per (``shape``, database, number of keys) and run again with these keys through Django's
    cursor; its rows go through the converters of Django's own compiler, worked out once per statement.
    ``shape`` must name everything else the statement depends on. ``None`` where the statement does not hold the keys as one plain run of parameters (the
    caller then runs the queryset)."""
    count = len(keys)
    key = (shape, db, count)
    with _lock:
        plan = _row_plans.get(key, _MISSING)
    if plan is _MISSING:
        plan = _row_plan(build, count, db)
        with _lock:
            _row_plans[key] = plan
    if plan is None:
        return None
    sql, _compiler, params, start, converters = plan
    bound = (*params[:start], *keys, *params[start + count :])
    connection = connections[db]
    with connection.cursor() as cursor:
        cursor.execute(sql, bound)
        rows = cursor.fetchall()
    if not converters:
        return rows if not rows or rows[0].__class__ is tuple else [tuple(row) for row in rows]
    # As the compiler's apply_converters, without copying the compiler for each run.
    out = []
    for row in rows:
        row = list(row)
        for position, (functions, expression) in converters:
            value = row[position]
            for function in functions:
                value = function(value, expression, connection)
            row[position] = value
        out.append(tuple(row))
    return out


def _row_plan(build, count: int, db: str) -> tuple | None:
    sentinels = [SENTINEL - i for i in range(count)]
    try:
        compiler = build(sentinels).query.get_compiler(using=db)
        sql, params = compiler.as_sql()
        params = list(params)
        start = params.index(sentinels[0])
        others = params[:start] + params[start + count :]
        if (
            params[start : start + count] != sentinels
            or any(p in sentinels for p in others)
            or any(str(s) in sql for s in sentinels)
        ):
            raise _Unsupported
        # The converters of the selected columns, worked out once (the compiler's results_iter works them
        # out on every run); a select wider than the row the caller reads keeps the ORM path.
        if compiler.col_count != len(compiler.select) or compiler.has_extra_select:
            raise _Unsupported
        converters = list(compiler.get_converters([column for column, _, _ in compiler.select]).items())
    except Exception:  # noqa: BLE001 - any statement the probe cannot compile plainly keeps the ORM path
        return None
    return sql, compiler, params, start, converters
