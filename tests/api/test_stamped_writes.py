"""Every write that bypasses ``save()`` stamps ``last_updated`` and raises the campus's revision.

The campus's revision (``Campus.revision``, raised by database triggers) is what the analytics cache and the
shared bodies key on; ``last_updated`` is what a detail's Last-Modified says. ``QuerySet.update()`` and
``bulk_update()`` leave ``auto_now`` fields alone in Django.

Three checks: every timestamped model's managers (its own, its default, the related ones) are stamping
querysets; on a real campus, ``update()`` and ``bulk_update()`` of one row of every inventory table move the
row's stamp and the campus's revision; and no source file reaches around them (the unstamped base manager, an
unbound ``QuerySet`` method, raw SQL ``UPDATE`` without ``last_updated``).
"""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.apps import apps
from django.utils import timezone

from campus.designs import inventory_models
from campus.models import Campus
from campus.models.base import StampedQuerySet, TimestampedModel
from campus.state import revision
from tests.api.test_branches import small_campus

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("campus", "simulations", "twin")


def timestamped_models() -> list[type]:
    return [m for m in apps.get_models() if issubclass(m, TimestampedModel)]


def test_every_timestamped_models_managers_stamp_last_updated():
    found = timestamped_models()
    assert Campus in found and len(found) >= 20
    for model in found:
        for manager in {model.objects, model._default_manager}:
            assert isinstance(manager.all(), StampedQuerySet), f"{model.__name__}: {manager!r}"
        for rel in model._meta.related_objects:  # e.g. building.halls: a manager of the related model
            if rel.one_to_many and issubclass(rel.related_model, TimestampedModel):
                accessor = getattr(model, rel.get_accessor_name())
                assert issubclass(
                    accessor.rel.related_model._default_manager._queryset_class, StampedQuerySet
                )


@pytest.mark.django_db
def test_update_and_bulk_update_of_every_inventory_table_move_the_row_stamp_and_the_campus_revision():
    campus = small_campus()  # every inventory table has rows (tests/api/test_branches.py checks so)
    past = timezone.now() - timedelta(days=1)
    tables = [im.model for im in inventory_models()]
    assert len(tables) >= 12
    for model in [Campus, *tables]:
        if model is Campus:
            qs = model.objects.filter(pk=campus.pk)
        elif any(f.name == "campus" for f in model._meta.concrete_fields):
            qs = model.objects.filter(campus=campus)
        else:
            qs = model.objects.all()  # halls, rows, nodes: one campus in this database
        obj = qs.order_by("pk").first()
        assert obj is not None, f"the fixture campus has no {model.__name__}"
        # Older stamps first (through the stamping update itself, naming last_updated keeps it as given).
        model.objects.filter(pk=obj.pk).update(last_updated=past)
        before = revision(campus.pk)
        # A queryset update that names no stamp, the values unchanged: still a new stamp and revision.
        model.objects.filter(pk=obj.pk).update(created=obj.created)
        obj.refresh_from_db()
        assert obj.last_updated > past, f"{model.__name__}: update() left last_updated"
        assert revision(campus.pk) > before, f"{model.__name__}: update() left the campus revision"

        model.objects.filter(pk=obj.pk).update(last_updated=past)
        obj.refresh_from_db()
        before = revision(campus.pk)
        model.objects.bulk_update([obj], ["created"])
        assert obj.last_updated > past
        obj.refresh_from_db()
        assert obj.last_updated > past, f"{model.__name__}: bulk_update() left last_updated"
        assert revision(campus.pk) > before, f"{model.__name__}: bulk_update() left the campus revision"


def _source_files() -> list[Path]:
    out = []
    for top in SOURCES:
        for path in (ROOT / top).rglob("*.py"):
            if "migrations" not in path.parts and "__pycache__" not in path.parts:
                out.append(path)
    return out


def _receiver_chain(node) -> list[str]:
    """The names a call's receiver is made of, innermost last: ``a.b.filter(x).c`` -> ["c", "filter", "b", "a"]."""
    out = []
    while True:
        if isinstance(node, ast.Attribute):
            out.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Name):
            out.append(node.id)
            return out
        else:
            return out


def test_no_write_reaches_around_the_stamping_querysets():
    """The stamping lives in the managers; a write through the base manager, an unbound ``QuerySet`` method
    or raw SQL ``UPDATE`` would not pass through it."""
    files = _source_files()
    assert any(p.name == "branching.py" for p in files)
    problems = []
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
            write = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"update", "bulk_update"}
            )
            if write:
                chain = _receiver_chain(node.func.value)
                if "_base_manager" in chain:
                    problems.append(f"{where}: {node.func.attr} through the base manager (not stamped)")
                if "QuerySet" in chain[-1:]:
                    problems.append(f"{where}: QuerySet.{node.func.attr} called unbound")
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                sql = " ".join(node.value.upper().split())
                if sql.startswith("UPDATE ") and " SET " in sql and "LAST_UPDATED" not in sql:
                    problems.append(f"{where}: raw SQL UPDATE without last_updated")
    assert problems == []
