"""Timestamps read from PostgreSQL by psycopg's C parser where that gives Django's own values.

Django (``django.db.backends.postgresql.psycopg_any``) reads every ``timestamptz`` through a loader subclassing
psycopg's pure-Python one, so that each value carries the connection's time zone: with psycopg's C extension
installed, that one subclass keeps every timestamp on the Python parser. A page of 50 racks reads 100 of them,
and parsing them was three quarters of reading the page's rows (docs/performance.md).

When Django's zone is UTC and the session's ``TimeZone`` is UTC (Django sets it so on every connection), the C
parser's value is already Django's: the C parser gives each value the session's zone, which psycopg maps to
``datetime.timezone.utc`` for "UTC", and Django's loader only replaces the zone with that same
``datetime.timezone.utc``. This loader then hands each value to the C parser; any other zone, USE_TZ off, or a
session that has changed its zone keeps Django's loader. ``tests/db/test_timestamp_loader.py`` compares the
two on the same rows.
"""

from __future__ import annotations

import datetime

import psycopg
from django.conf import settings
from psycopg.adapt import Loader
from psycopg.pq import Format


def _c_timestamptz_loader():
    """psycopg's C ``timestamptz`` text loader, or ``None`` without the C extension."""
    if psycopg.pq.__impl__ not in ("c", "binary"):
        return None
    loader = psycopg.adapters.get_loader(psycopg.adapters.types["timestamptz"].oid, Format.TEXT)
    return loader if loader is not None and loader.__module__.startswith("psycopg_") else None


def _utc_loader_class(c_loader, django_loader):
    class UtcTimestamptzLoader(Loader):
        """Django's UTC ``timestamptz`` loader with the C parser's speed (see the module's docstring)."""

        # Read by Django's ``create_cursor``: the loader already gives this zone, so no cursor re-registers one.
        timezone = datetime.UTC

        def __init__(self, oid, context=None):
            super().__init__(oid, context)
            pgconn = self.connection.pgconn if self.connection is not None else None
            if pgconn is not None and pgconn.parameter_status(b"TimeZone") == b"UTC":
                self.load = c_loader(oid, context).load  # the C parser, called directly per value
            else:
                self.load = django_loader(oid, context).load

        def load(self, data):  # pragma: no cover - every instance binds its own in __init__
            raise NotImplementedError

    return UtcTimestamptzLoader


def use_c_timestamp_loader(sender, connection, **kwargs) -> None:
    """``connection_created`` receiver: register the UTC loader on a new PostgreSQL connection where it
    gives Django's values (UTC both sides)."""
    if connection.vendor != "postgresql" or not settings.USE_TZ:
        return
    if connection.timezone is not datetime.UTC or connection.timezone_name != "UTC":
        return
    c_loader = _c_timestamptz_loader()
    if c_loader is None:
        return
    adapters = connection.connection.adapters
    oid = adapters.types["timestamptz"].oid
    django_loader = adapters.get_loader(oid, Format.TEXT)
    if getattr(django_loader, "timezone", None) is not datetime.UTC:
        return
    adapters.register_loader(oid, _loader_class(c_loader, django_loader))


_classes: dict[tuple, type] = {}


def _loader_class(c_loader, django_loader) -> type:
    key = (c_loader, django_loader)
    if key not in _classes:
        _classes[key] = _utc_loader_class(c_loader, django_loader)
    return _classes[key]
