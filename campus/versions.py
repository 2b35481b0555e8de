"""A campus's *version*: the row count and newest ``last_updated`` of every table a campus snapshot is built
from (the catalog included), read in one query. Counts catch deletions, which leave no newer
``last_updated`` behind. The analytics cache keys its states and the shared cache its bodies on it
(``campus.api.analytics``), conditional GETs' ETags follow it, and a simulation run records its digest as the
inventory version it computed on (``simulations.runs.campus_state``)."""

from __future__ import annotations

import hashlib

from django.db import connection

from campus import models

# (model, how its rows are tied to a campus); None: catalog tables, shared by every campus.
_VERSION_SOURCES: list[tuple[type, str | None]] = [
    (models.Campus, "id"),
    (models.UtilityFeed, "campus_id"),
    (models.Building, "campus_id"),
    (models.DataHall, "building"),
    (models.Row, "hall"),
    (models.Rack, "campus_id"),
    (models.PowerDevice, "campus_id"),
    (models.PowerFeed, "campus_id"),
    (models.CoolingPlant, "campus_id"),
    (models.CoolingUnit, "campus_id"),
    (models.Node, "rack"),
    (models.Pod, "campus_id"),
    (models.Switch, "campus_id"),
    (models.Link, "campus_id"),
    (models.EnergyStorage, "campus_id"),
    (models.CampusWeather, "campus_id"),
    (models.GPUModel, None),
    (models.NodeModel, None),
    (models.SwitchModel, None),
    (models.LinkMedium, None),
    (models.FailureRate, None),
]


def _version_sql(catalog_only: bool = False) -> str:
    """One row per source table, in ``_VERSION_SOURCES`` order: each row carries its position and the rows are
    sorted by it (the order of UNION ALL's rows is not defined; PostgreSQL's parallel append interleaves the
    branches of a large campus)."""
    qn = connection.ops.quote_name
    parts = []
    building, hall, rack = (qn(m._meta.db_table) for m in (models.Building, models.DataHall, models.Rack))
    for model, how in _VERSION_SOURCES:
        if catalog_only and how is not None:
            continue
        table = qn(model._meta.db_table)
        if how is None:
            where = ""
        elif how == "building":
            where = f" WHERE building_id IN (SELECT id FROM {building} WHERE campus_id = %(c)s)"
        elif how == "hall":
            where = (
                f" WHERE hall_id IN (SELECT h.id FROM {hall} h JOIN {building} b ON h.building_id = b.id"
                " WHERE b.campus_id = %(c)s)"
            )
        elif how == "rack":
            where = f" WHERE rack_id IN (SELECT id FROM {rack} WHERE campus_id = %(c)s)"
        else:
            where = f" WHERE {qn(how)} = %(c)s"
        parts.append(f"SELECT {len(parts)} AS source, COUNT(*), MAX(last_updated) FROM {table}{where}")
    return " UNION ALL ".join(parts) + " ORDER BY source"


def campus_version(campus_id: int) -> tuple:
    """What changes whenever anything the campus' analytics read changes (one entry per source table, in
    ``_VERSION_SOURCES`` order; ``table_versions`` names them)."""
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(), {"c": campus_id})
        return tuple((count, str(stamp)) for _, count, stamp in cursor.fetchall())


def table_versions(version: tuple) -> dict[str, tuple]:
    """A campus version by table: model name -> (row count, newest last_updated)."""
    return {model.__name__: entry for (model, _), entry in zip(_VERSION_SOURCES, version, strict=True)}


def campus_exists(version: tuple) -> bool:
    return version[0][0] > 0  # the campus table's entry counts the campus' own row


def catalog_version() -> tuple:
    """What changes whenever a catalog row changes."""
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(catalog_only=True))
        return tuple((count, str(stamp)) for _, count, stamp in cursor.fetchall())


def version_digest(version: tuple) -> str:
    return hashlib.sha256(repr(version).encode()).hexdigest()[:32]
