"""``Campus.revision`` grows with every write to the campus's inventory, whatever the path: the database's own
triggers (``campus.revision``), read here from the database's catalog and exercised
with writes that no Django signal sees (raw SQL, ``bulk_create``, queryset ``delete()``)."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection, transaction

from campus import revision
from campus.designs import inventory_models
from campus.models import Campus, GPUModel, Node, Rack
from campus.models.base import CatalogModel
from tests.api.test_branches import small_campus


def _triggers() -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        return {row[0] for row in cursor.fetchall()}


def _revision(campus_id: int) -> int:
    return Campus.objects.values_list("revision", flat=True).get(pk=campus_id)


def test_every_inventory_and_catalog_table_has_its_triggers():
    tables = {im.model._meta.db_table for im in inventory_models()}
    tables |= {
        m._meta.db_table for m in apps.get_app_config("campus").get_models() if issubclass(m, CatalogModel)
    }
    tables.add(apps.get_model("campus", "FailureRate")._meta.db_table)
    assert tables <= set(revision.TABLES), sorted(tables - set(revision.TABLES))


@pytest.mark.django_db
def test_the_database_holds_a_trigger_per_table_and_event():
    found = _triggers()
    expected = {
        f"twin_revision_{table}_{event}" for table in revision.TABLES for event in ("ins", "upd", "del")
    }
    assert expected | {"twin_revision_campus"} <= found


@pytest.mark.django_db
def test_raw_sql_bulk_create_and_queryset_delete_raise_the_revision():
    campus = small_campus()
    rack = Rack.objects.filter(campus=campus).first()
    before = _revision(campus.pk)
    with connection.cursor() as cursor:  # no ORM, no signal
        cursor.execute(f"UPDATE {Rack._meta.db_table} SET design_kw = design_kw + 1 WHERE id = %s", [rack.pk])
    after_sql = _revision(campus.pk)
    assert after_sql > before
    node = Node.objects.filter(rack=rack).first()
    Node.objects.bulk_create([Node(rack=rack, node_model=node.node_model, name="bulk-1")])
    after_bulk = _revision(campus.pk)
    assert after_bulk > after_sql
    Node.objects.filter(rack=rack, name="bulk-1").delete()
    assert _revision(campus.pk) > after_bulk


@pytest.mark.django_db
def test_a_write_to_another_campus_leaves_this_one_and_a_catalog_write_raises_both():
    one = small_campus()
    two = small_campus("Other")
    before = _revision(one.pk)
    Rack.objects.filter(campus=two).update(design_kw=12.0)
    assert _revision(one.pk) == before
    two_before = _revision(two.pk)
    GPUModel.objects.filter(pk=GPUModel.objects.order_by("pk").first().pk).update(name="renamed")
    assert _revision(one.pk) > before and _revision(two.pk) > two_before


@pytest.mark.django_db
def test_saving_a_campus_read_before_a_write_never_lowers_its_revision():
    campus = small_campus()
    stale = Campus.objects.get(pk=campus.pk)  # holds the revision as it stood
    Rack.objects.filter(campus=campus).update(design_kw=33.0)
    raised = _revision(campus.pk)
    assert raised > stale.revision
    stale.description = "written back with the old revision"
    stale.save()
    assert _revision(campus.pk) > raised


@pytest.mark.django_db
def test_a_refused_write_rolls_the_revision_back_with_it():
    campus = small_campus()
    before = _revision(campus.pk)
    with pytest.raises(RuntimeError), transaction.atomic():
        Rack.objects.filter(campus=campus).update(design_kw=1.0)
        raise RuntimeError("refused")
    assert _revision(campus.pk) == before


@pytest.mark.django_db
def test_triggers_a_table_rebuild_dropped_are_made_again_after_migrate():
    # SQLite rebuilds a table to alter one of its columns, without its triggers; post_migrate makes them again.
    with connection.cursor() as cursor:
        suffix = " ON campus_rack" if connection.vendor == "postgresql" else ""
        cursor.execute(f"DROP TRIGGER twin_revision_campus_rack_upd{suffix}")
    assert "twin_revision_campus_rack_upd" not in _triggers()
    revision.ensure_after_migrate(sender=None, using=connection.alias)
    assert "twin_revision_campus_rack_upd" in _triggers()
    campus = small_campus()
    before = _revision(campus.pk)
    Rack.objects.filter(campus=campus).update(design_kw=21.0)
    assert _revision(campus.pk) > before
