"""The database triggers that raise ``Campus.revision`` with every write to a campus's inventory.

A write to an inventory table (an insert, an update or a delete, through ``save()``, a queryset's ``update()``
or ``delete()``, ``bulk_create``, ``bulk_update``, the admin, an import, a merge, raw SQL) adds one to the
revision of every campus whose rows it touched, in the same statement and so in the same transaction; a write
to a catalog table adds one to every campus's (the catalog is shared). An update of a campus's own row never
lowers its revision (``save()`` writes the value it read) and always raises it. Every cache of a campus's
figures is keyed on the revision (``campus.state``).

SQLite runs row triggers; PostgreSQL statement triggers over the statement's transition tables, so that a bulk
write of 100k servers raises the revision once rather than 100k times.

The triggers are created by a migration and made sure of after every ``migrate`` (``ensure_triggers``,
connected in ``CampusConfig.ready()``): SQLite rebuilds a table to alter one of its columns, and the rebuilt
table has no triggers. A new inventory table goes into ``TABLES`` (tests/api/test_revision_triggers.py
checks every inventory and catalog table is there and has its triggers).
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections

CAMPUS = "campus_campus"

# table -> (the column naming its parent, the SQL giving the campus ids of a set of those parents' ids
# ``{keys}``); None: a catalog table, shared by every campus.
TABLES = {
    "campus_utilityfeed": ("campus_id", "{keys}"),
    "campus_building": ("campus_id", "{keys}"),
    "campus_datahall": ("building_id", "SELECT campus_id FROM campus_building WHERE id IN ({keys})"),
    "campus_row": (
        "hall_id",
        "SELECT b.campus_id FROM campus_datahall h JOIN campus_building b ON b.id = h.building_id"
        " WHERE h.id IN ({keys})",
    ),
    "campus_rack": ("campus_id", "{keys}"),
    "campus_node": ("rack_id", "SELECT campus_id FROM campus_rack WHERE id IN ({keys})"),
    "campus_powerdevice": ("campus_id", "{keys}"),
    "campus_powerfeed": ("campus_id", "{keys}"),
    "campus_energystorage": ("campus_id", "{keys}"),
    "campus_storagesystem": ("campus_id", "{keys}"),
    "campus_coolingplant": ("campus_id", "{keys}"),
    "campus_coolingunit": ("campus_id", "{keys}"),
    "campus_pod": ("campus_id", "{keys}"),
    "campus_switch": ("campus_id", "{keys}"),
    "campus_link": ("campus_id", "{keys}"),
    "campus_campusweather": ("campus_id", "{keys}"),
    "campus_gpumodel": None,
    "campus_nodemodel": None,
    "campus_switchmodel": None,
    "campus_linkmedium": None,
    "campus_failurerate": None,
}
EVENTS = {"ins": "INSERT", "upd": "UPDATE", "del": "DELETE"}
BUMP = f"UPDATE {CAMPUS} SET revision = revision + 1"


def _sqlite(table: str, how) -> list[str]:
    statements = []
    for short, event in EVENTS.items():
        refs = {"ins": ["NEW"], "upd": ["OLD", "NEW"], "del": ["OLD"]}[short]
        if how is None:
            body = f"{BUMP};"
        else:
            column, campuses = how
            keys = " UNION ".join(f"SELECT {ref}.{column}" for ref in refs)
            body = f"{BUMP} WHERE id IN ({campuses.format(keys=keys)});"
        statements.append(
            f"CREATE TRIGGER IF NOT EXISTS twin_revision_{table}_{short} AFTER {event} ON {table} FOR EACH ROW"
            f" BEGIN {body} END"
        )
    return statements


def _postgresql(table: str, how) -> list[str]:
    function = f"twin_revision_{table}"
    if how is None:
        body = f"{BUMP};"
    else:
        column, campuses = how
        new = campuses.format(keys=f"SELECT {column} FROM new_rows")
        old = campuses.format(keys=f"SELECT {column} FROM old_rows")
        body = (
            f"IF TG_OP = 'INSERT' THEN {BUMP} WHERE id IN ({new});"
            f" ELSIF TG_OP = 'DELETE' THEN {BUMP} WHERE id IN ({old});"
            f" ELSE {BUMP} WHERE id IN ({new} UNION {old}); END IF;"
        )
    statements = [
        f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$"
        f" BEGIN {body} RETURN NULL; END $$"
    ]
    for short, event in EVENTS.items():
        transition = {
            "ins": "REFERENCING NEW TABLE AS new_rows",
            "upd": "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
            "del": "REFERENCING OLD TABLE AS old_rows",
        }[short]
        statements.append(f"DROP TRIGGER IF EXISTS twin_revision_{table}_{short} ON {table}")
        statements.append(
            f"CREATE TRIGGER twin_revision_{table}_{short} AFTER {event} ON {table}"
            f" {transition if how is not None else ''} FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        )
    return statements


def _campus_row(vendor: str) -> list[str]:
    """The campus's own row: an update raises its revision (and never lowers it)."""
    if vendor == "postgresql":
        return [
            "CREATE OR REPLACE FUNCTION twin_revision_campus() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN NEW.revision := GREATEST(NEW.revision, OLD.revision + 1); RETURN NEW; END $$",
            f"DROP TRIGGER IF EXISTS twin_revision_campus ON {CAMPUS}",
            f"CREATE TRIGGER twin_revision_campus BEFORE UPDATE ON {CAMPUS} FOR EACH ROW"
            " EXECUTE FUNCTION twin_revision_campus()",
        ]
    # SQLite's triggers cannot change NEW; recursive triggers are off, so the correction fires no trigger.
    return [
        f"CREATE TRIGGER IF NOT EXISTS twin_revision_campus AFTER UPDATE ON {CAMPUS} FOR EACH ROW"
        f" WHEN NEW.revision <= OLD.revision BEGIN UPDATE {CAMPUS} SET revision = OLD.revision + 1"
        " WHERE id = NEW.id; END"
    ]


def statements(vendor: str, tables: set[str] | None = None) -> list[str]:
    """The statements that create the triggers (idempotent), on ``tables`` only where given."""
    write = _postgresql if vendor == "postgresql" else _sqlite
    out = _campus_row(vendor)
    for table, how in TABLES.items():
        if tables is None or table in tables:
            out.extend(write(table, how))
    return out


def drop_statements(vendor: str) -> list[str]:
    out = []
    for table in TABLES:
        for short in EVENTS:
            out.append(
                f"DROP TRIGGER IF EXISTS twin_revision_{table}_{short}"
                + (f" ON {table}" if vendor == "postgresql" else "")
            )
        if vendor == "postgresql":
            out.append(f"DROP FUNCTION IF EXISTS twin_revision_{table}()")
    out.append(
        "DROP TRIGGER IF EXISTS twin_revision_campus" + (f" ON {CAMPUS}" if vendor == "postgresql" else "")
    )
    if vendor == "postgresql":
        out.append("DROP FUNCTION IF EXISTS twin_revision_campus()")
    return out


def ensure_triggers(connection) -> None:
    """Create the triggers that are missing, on the tables that exist (idempotent)."""
    tables = set(connection.introspection.table_names())
    if CAMPUS not in tables:
        return
    with connection.cursor() as cursor:
        for sql in statements(connection.vendor, tables):
            cursor.execute(sql)


def ensure_after_migrate(sender, using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """``post_migrate``: the triggers a migration's table rebuild dropped are created again."""
    ensure_triggers(connections[using])
