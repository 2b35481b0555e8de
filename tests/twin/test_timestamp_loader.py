"""PostgreSQL timestamps parsed by psycopg's C parser (twin.database) are the values Django's own loader gives:
read the same literals through both on one connection and compare value and zone, edge cases included."""

import datetime

import pytest
from django.conf import settings
from django.db import connection

from twin import database

pytestmark = [
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="the loader is PostgreSQL's",
    ),
    pytest.mark.django_db,
]

LITERALS = [
    "2026-11-24 00:37:04.740757+00",
    "2026-11-24 00:37:04+00",  # no fraction: isoformat then has no microseconds either
    "2026-03-29 01:30:00.000001+02",  # an offset: read as the same instant in UTC
    "1999-12-31 23:59:59.999999-11:30",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
    "2024-02-29 12:00:00+00",
]


def _read(literals):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT v::timestamptz FROM unnest(%s::text[]) WITH ORDINALITY AS t(v, n) ORDER BY n", [literals]
        )
        return [row[0] for row in cursor.fetchall()]


def _loader():
    from psycopg.pq import Format

    adapters = connection.connection.adapters
    return adapters.get_loader(adapters.types["timestamptz"].oid, Format.TEXT)


def test_the_c_loader_is_registered_and_reads_django_values():
    connection.ensure_connection()
    if database._c_timestamptz_loader() is None:
        pytest.skip("psycopg's C extension is not installed")
    fast = _loader()
    assert fast.__name__ == "UtcTimestamptzLoader"
    got = _read(LITERALS)

    # Django's own loader on the same connection, then the same literals again.
    from django.db.backends.postgresql.psycopg_any import register_tzloader

    register_tzloader(connection.timezone, connection.connection)
    try:
        assert _loader().__name__ == "SpecificTzLoader"
        expected = _read(LITERALS)
    finally:
        connection.connection.adapters.register_loader("timestamptz", fast)
    assert got == expected
    for a, b in zip(got, expected, strict=True):
        assert a.tzinfo is datetime.UTC and b.tzinfo is datetime.UTC
        assert a.isoformat() == b.isoformat()
    # The instants themselves, worked out by hand from the literals.
    assert got[2] == datetime.datetime(2026, 3, 28, 23, 30, 0, 1, tzinfo=datetime.UTC)
    assert got[3] == datetime.datetime(2000, 1, 1, 11, 29, 59, 999999, tzinfo=datetime.UTC)


def test_a_session_in_another_zone_keeps_djangos_loader():
    """A session whose zone was changed after the connection was set up is read as Django reads it: the
    loader falls back per cursor (Django replaces the zone, keeping the wall time the session gives)."""
    connection.ensure_connection()
    if database._c_timestamptz_loader() is None:
        pytest.skip("psycopg's C extension is not installed")
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Asia/Kolkata'")
    try:
        got = _read(["2026-11-24 00:00:00+00"])
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET TIME ZONE 'UTC'")
    # Django's loader: the session's wall time (05:30 in Kolkata) labelled UTC.
    assert got == [datetime.datetime(2026, 11, 24, 5, 30, tzinfo=datetime.UTC)]
