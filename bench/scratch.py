"""What the benchmarks that work on a throwaway database share: their ``--sizes`` argument and the database.

The database is created next to the one ``DATABASE_URL`` names by Django's test-database machinery
("test_<name>" on PostgreSQL, in memory on SQLite) and dropped afterwards, so imports commit for real and
nothing is left behind. Django must be set up before these are called.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any


def sizes_argument(description: str, default: str) -> list[int]:
    """The GPU counts given with ``--sizes`` (comma-separated)."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--sizes", default=default, help="GPU counts, comma-separated")
    return [int(s) for s in parser.parse_args().sizes.split(",")]


def in_scratch_database(run: Callable[[int], Any], sizes: Iterable[int]) -> list:
    """``run(size)`` for each size, in order, in one throwaway database."""
    from django.db import connection

    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        return [run(n) for n in sizes]
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0, keepdb=False)
