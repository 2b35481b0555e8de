"""Writing inventory tables in bulk, for the spec import and the branches: batched inserts, COPY on
PostgreSQL for the big tables, a campus's contents cleared table by table, and the planner statistics
refreshed after a bulk load. None of it writes django-simple-history rows: a bulk write is one event, not
thousands of edits."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.apps import apps
from django.db import connections, models, router, transaction
from django.utils import timezone

from campus.models import (
    Building,
    Campus,
    CoolingPlant,
    CoolingUnit,
    DataHall,
    EnergyStorage,
    Link,
    Node,
    Pod,
    PowerDevice,
    PowerFeed,
    Rack,
    Row,
    StorageSystem,
    Switch,
    UtilityFeed,
)

# Told each table's stage and how many rows were written.
Progress = Callable[[str, int], None]
BATCH_SIZE = 2000


def bulk(model, objs: list, progress: Progress | None, stage: str) -> list:
    """Insert model instances in batches; their primary keys are set from the insert's RETURNING."""
    created = model.objects.bulk_create(objs, batch_size=BATCH_SIZE)
    if progress:
        progress(stage, len(created))
    return created


def insert_rows(
    model, rows: list[dict[str, Any]], progress: Progress | None, stage: str, return_ids: bool = False
) -> list[int]:
    """Insert rows (dicts of column attnames, the same keys in every row) of the big tables: racks,
    nodes, rack feeds, links. Returns the new ids when ``return_ids``, in row order.

    On PostgreSQL this is one COPY per table, several times faster than a multi-row INSERT through the
    ORM for tens of thousands of rows; ids, when needed, are drawn from the table's sequence first (one
    query). Columns left out take the model field's default, as the ORM would.
    """
    connection = connections[router.db_for_write(model)]
    if connection.vendor != "postgresql":
        created = bulk(model, [model(**row) for row in rows], progress, stage)
        return [obj.pk for obj in created] if return_ids else []
    ids: list[int] = []
    if return_ids and rows:
        table = model._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [table, model._meta.pk.column, len(rows)],
            )
            ids = [row[0] for row in cursor.fetchall()]
        rows = [{model._meta.pk.attname: pk, **row} for pk, row in zip(ids, rows, strict=True)]
    now = timezone.now()
    fields = [f for f in model._meta.concrete_fields if not f.primary_key or ids]
    given = set().union(*(row.keys() for row in rows[:1])) if rows else set()
    constant: dict[str, Any] = {}
    for f in fields:
        if f.attname in given:
            continue
        if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False):
            constant[f.attname] = now
        else:
            constant[f.attname] = f.get_db_prep_save(f.get_default(), connection)
    columns = [f.attname for f in fields]
    sql = "COPY {} ({}) FROM STDIN".format(
        connection.ops.quote_name(model._meta.db_table),
        ", ".join(connection.ops.quote_name(c) for c in columns),
    )
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row([row[c] if c in row else constant[c] for c in columns])
    if progress:
        progress(stage, len(rows))
    return ids


# Children before parents, so every delete leaves no dangling reference inside the inventory.
CLEAR_ORDER = (
    Link,
    Switch,
    PowerFeed,
    Node,
    Rack,
    CoolingUnit,
    CoolingPlant,
    Pod,
    EnergyStorage,
    StorageSystem,
    PowerDevice,
    Row,
    DataHall,
    Building,
    UtilityFeed,
)


def _referenced_only_by_inventory() -> bool:
    """True when nothing outside the inventory tables points at them (other apps refer to the campus
    only), so the contents can be deleted table by table in SQL."""
    inventory = set(CLEAR_ORDER)
    for model in CLEAR_ORDER:
        for rel in model._meta.related_objects:
            if rel.related_model not in inventory and rel.on_delete is not models.DO_NOTHING:
                return False
    return True


def _column(model, field: str) -> str:
    return model._meta.get_field(field).column


def _ids_of_campus(model) -> str:
    """SQL selecting the ids of ``model``'s rows of one campus (the campus id is its one parameter)."""
    return f"SELECT id FROM {model._meta.db_table} WHERE {_column(model, 'campus')} = %s"


def _delete_sql(model) -> str:
    """One DELETE of ``model``'s rows of one campus (the campus id is its one parameter)."""
    table = model._meta.db_table
    if model is Node:
        racks = _ids_of_campus(Rack)
        return f"DELETE FROM {table} WHERE {_column(Node, 'rack')} IN ({racks})"
    if model is DataHall:
        buildings = _ids_of_campus(Building)
        return f"DELETE FROM {table} WHERE {_column(DataHall, 'building')} IN ({buildings})"
    if model is Row:
        buildings = _ids_of_campus(Building)
        halls = (
            f"SELECT id FROM {DataHall._meta.db_table} WHERE {_column(DataHall, 'building')} IN ({buildings})"
        )
        return f"DELETE FROM {table} WHERE {_column(Row, 'hall')} IN ({halls})"
    return f"DELETE FROM {table} WHERE {_column(model, 'campus')} = %s"


def clear_campus(campus: Campus) -> None:
    """Delete a campus's contents, keeping the campus row (and its id) for the new contents.

    Like the import, this is one bulk event: one SQL DELETE per table and no per-row history. Should another
    model ever point at inventory rows, the ORM's cascading delete is used instead.
    """
    if not _referenced_only_by_inventory():
        for model in CLEAR_ORDER:
            model.objects.filter(pk__in=_ids(model, campus)).delete()
        return
    with connections[router.db_for_write(Campus)].cursor() as cursor:
        for model in CLEAR_ORDER:
            cursor.execute(_delete_sql(model), [campus.pk])


def _ids(model, campus: Campus):
    if model is Node:
        return Node.objects.filter(rack__campus=campus).values("pk")
    if model is Row:
        return Row.objects.filter(hall__building__campus=campus).values("pk")
    if model is DataHall:
        return DataHall.objects.filter(building__campus=campus).values("pk")
    return model.objects.filter(campus=campus).values("pk")


# A spec of at least this many objects has the inventory tables' planner statistics refreshed after it is
# written.
ANALYZE_AFTER_ROWS = 10_000


def analyze_inventory() -> None:
    """PostgreSQL: refresh the planner statistics of the inventory tables (``ANALYZE``), as PostgreSQL
    advises after a bulk load. Until autovacuum gets to them (or never, where it is off) the planner takes
    a freshly filled table for a handful of rows: a page of a 100k-GPU campus's racks then sorted all 3,133
    racks by name instead of reading the page from the (campus, name) index, 15-45 ms instead of 0.5 ms."""
    campus_models = list(apps.get_app_config("campus").get_models())
    connection = connections[router.db_for_write(Campus)]
    if connection.vendor != "postgresql":
        return
    tables = [model._meta.db_table for model in campus_models]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(table) for table in tables))


def upsert_rows(
    model,
    rows: list[dict[str, Any]],
    unique_fields: list[str],
    update_fields: list[str],
    batch: int = 2000,
    previous: list[str] | None = None,
) -> dict[tuple, tuple]:
    """Insert rows (dicts of column attnames, the same keys in every row, no primary key), replacing the
    ``update_fields`` of a row that already holds the same ``unique_fields`` (which a unique constraint
    covers; no two rows given share them). With ``previous``: those fields of the rows replaced, as they
    were, by their ``unique_fields`` values (``held_rows``).

    On PostgreSQL: one COPY into a temporary table and one ``INSERT ... SELECT ... ON CONFLICT DO UPDATE``
    from it, rather than a multi-row INSERT per ``batch`` rows through the ORM (docs/performance.md,
    "Measurements"); the replaced rows are read by a join with the same temporary table. Elsewhere:
    ``bulk_create`` with ``update_conflicts``."""
    if not rows:
        return {}
    connection = connections[router.db_for_write(model)]
    if connection.vendor != "postgresql":
        held = _held_orm(model, rows, unique_fields, previous) if previous else {}
        objs = [model(**row) for row in rows]
        for i in range(0, len(objs), batch):
            model.objects.bulk_create(
                objs[i : i + batch],
                update_conflicts=True,
                unique_fields=unique_fields,
                update_fields=update_fields,
            )
        return held
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    listed = ", ".join(quote(c) for c in _columns(model, list(rows[0])))
    conflict = ", ".join(quote(model._meta.get_field(f).column) for f in unique_fields)
    updates = ", ".join(
        f"{quote(model._meta.get_field(f).column)} = EXCLUDED.{quote(model._meta.get_field(f).column)}"
        for f in update_fields
    )
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        staging = _staged(connection, cursor, model, rows)
        held = (
            _held_join(connection, cursor, model, staging, unique_fields, previous, rows) if previous else {}
        )
        cursor.execute(
            f"INSERT INTO {table} ({listed}) SELECT {listed} FROM {staging} "
            f"ON CONFLICT ({conflict}) DO UPDATE SET {updates}"
        )
        cursor.execute(f"DROP TABLE {staging}")
    return held


def held_rows(
    model, keys: list[dict[str, Any]], unique_fields: list[str], fields: list[str]
) -> dict[tuple, tuple]:
    """``fields`` of the rows held under the given keys (dicts of the ``unique_fields``' attnames), by their
    ``unique_fields`` values in that order; keys with no row are left out. The cost follows the keys, not
    the table: on PostgreSQL a COPY of the keys into a temporary table joined on the unique index;
    elsewhere ``IN`` lists of a hundred keys at a time."""
    if not keys:
        return {}
    connection = connections[router.db_for_read(model)]
    if connection.vendor != "postgresql":
        return _held_orm(model, keys, unique_fields, fields)
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        staging = _staged(connection, cursor, model, keys)
        held = _held_join(connection, cursor, model, staging, unique_fields, fields, keys)
        cursor.execute(f"DROP TABLE {staging}")
    return held


def _columns(model, attnames: list[str]) -> list[str]:
    column_of = {f.attname: f.column for f in model._meta.concrete_fields}
    return [column_of[name] for name in attnames]


def _staged(connection, cursor, model, rows: list[dict[str, Any]]) -> str:
    """A temporary table of ``model``'s columns named by the rows' keys, filled by one COPY; its quoted
    name."""
    quote = connection.ops.quote_name
    attnames = list(rows[0])
    listed = ", ".join(quote(c) for c in _columns(model, attnames))
    staging = quote(f"staging_{model._meta.db_table}")
    cursor.execute(
        f"CREATE TEMPORARY TABLE {staging} ON COMMIT DROP AS SELECT {listed} "
        f"FROM {quote(model._meta.db_table)} WITH NO DATA"
    )
    with cursor.cursor.copy(f"COPY {staging} ({listed}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([row[name] for name in attnames])
    # its size, so that the join probes the unique index rather than reading the table
    cursor.execute(f"ANALYZE {staging}")
    return staging


def _held_join(
    connection, cursor, model, staging: str, unique_fields: list[str], fields: list[str], rows: list[dict]
):
    quote = connection.ops.quote_name
    keys = [quote(model._meta.get_field(f).column) for f in unique_fields]
    values = [quote(model._meta.get_field(f).column) for f in fields]
    on = " AND ".join(f"t.{k} = s.{k}" for k in keys)
    # What the keys share, on the table's side too: a value all of them hold, the range of numbers and
    # times (whose order Python and the database share; not text's, which is the collation's). The planner
    # then reads the table's rows in that range by an index (a sync's new hour: hardly any) rather than
    # the whole table, which it may otherwise do for a hash join when its statistics are behind.
    where, params = [], []
    for f, k in zip(unique_fields, keys, strict=True):
        seen = {row[model._meta.get_field(f).attname] for row in rows}
        if len(seen) == 1:
            where.append(f"t.{k} = %s")
            params.append(next(iter(seen)))
        elif all(isinstance(v, int | float | datetime) and not isinstance(v, bool) for v in seen):
            where.append(f"t.{k} BETWEEN %s AND %s")
            params += [min(seen), max(seen)]
    cursor.execute(
        f"SELECT {', '.join(f's.{k}' for k in keys)}, {', '.join(f't.{v}' for v in values)} "
        f"FROM {staging} s JOIN {quote(model._meta.db_table)} t ON {on}"
        + (f" WHERE {' AND '.join(where)}" if where else ""),
        params,
    )
    n = len(keys)
    return {row[:n]: row[n:] for row in cursor.fetchall()}


def _held_orm(model, rows: list[dict[str, Any]], unique_fields: list[str], fields: list[str]):
    names = [model._meta.get_field(f).attname for f in unique_fields]
    wanted = {tuple(row[n] for n in names) for row in rows}
    out: dict[tuple, tuple] = {}
    # a hundred keys at a time keeps each query under SQLite's 999 parameters; the rows of the IN lists'
    # cross product that no key names are dropped here
    for i in range(0, len(rows), 100):
        part = rows[i : i + 100]
        q = model.objects.filter(**{f"{n}__in": {row[n] for row in part} for n in names})
        for values in q.order_by().values_list(*names, *fields):
            if values[: len(names)] in wanted:
                out[values[: len(names)]] = values[len(names) :]
    return out
