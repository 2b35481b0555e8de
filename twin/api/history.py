"""Change history (django-simple-history) as API entries: who, when, +/~/-, and each field's before/after."""

from __future__ import annotations

from heapq import merge

from django.apps import apps

# Bookkeeping, not design: when a row was written, and a campus's revision (raised by database triggers).
IGNORED_FIELDS = frozenset({"created", "last_updated", "revision"})


def tracked_models(app_label: str) -> dict[str, type]:
    """model_name -> model, for every model of the app with a history."""
    return {
        m._meta.model_name: m
        for m in apps.get_app_config(app_label).get_models()
        if hasattr(m, "history") and hasattr(m._meta, "simple_history_manager_attribute")
    }


def _fields(model) -> list[str]:
    return [
        f.attname if f.is_relation else f.name
        for f in model._meta.concrete_fields
        if f.name not in IGNORED_FIELDS and not f.primary_key
    ]


def _value(record, field: str):
    value = getattr(record, field, None)
    return value.isoformat() if hasattr(value, "isoformat") else value


def _field_label(field: str) -> str:
    return field[:-3] if field.endswith("_id") else field


def entry(record, prev) -> dict:
    model = record.instance_type
    fields = _fields(model)
    if record.history_type == "+" or prev is None:
        changes = [
            {"field": _field_label(f), "old": None, "new": _value(record, f)}
            for f in fields
            if _value(record, f) not in (None, "")
        ]
    elif record.history_type == "-":
        changes = [
            {"field": _field_label(f), "old": _value(record, f), "new": None}
            for f in fields
            if _value(record, f) not in (None, "")
        ]
    else:
        changes = [
            {"field": _field_label(f), "old": _value(prev, f), "new": _value(record, f)}
            for f in fields
            if _value(prev, f) != _value(record, f)
        ]
    user = record.history_user
    return {
        "id": record.history_id,
        "model": model._meta.model_name,
        "object_id": record.id,
        "object_repr": _repr(record),
        "type": record.history_type,
        "date": record.history_date,
        "user": {"id": user.pk, "username": user.get_username()} if user is not None else None,
        "reason": record.history_change_reason,
        "changes": changes,
    }


def _repr(record) -> str:
    name = getattr(record, "name", None) or getattr(record, "component", None)
    return str(name) if name else f"{record.instance_type._meta.verbose_name} {record.id}"


def entries(records: list) -> list[dict]:
    """Entries for history records (newest first); each diffed against the previous record of its object."""
    out = []
    for index, record in enumerate(records):
        prev = None
        if record.history_type == "~":
            nxt = records[index + 1] if index + 1 < len(records) else None
            if nxt is not None and nxt.id == record.id and type(nxt) is type(record):
                prev = nxt
            else:
                prev = record.prev_record
        out.append(entry(record, prev))
    return out


BASELINE_REASON = "State before its first recorded change (the object was written in bulk, without history)"


def record_baselines(objs) -> None:
    """Before objects are changed: a history record of the state they are in now, for each that has none.

    Imports and branches write their rows in bulk without per-row history; without this record, an object's
    first change through the API could not say what each field was before. One query per model, and one
    insert for the objects that lack a record."""
    by_model: dict[type, list] = {}
    for obj in objs:
        if obj is not None and obj.pk is not None and hasattr(type(obj), "history"):
            by_model.setdefault(type(obj), []).append(obj)
    for model, items in by_model.items():
        if not hasattr(model._meta, "simple_history_manager_attribute"):
            continue
        known = set(model.history.filter(id__in=[o.pk for o in items]).values_list("id", flat=True))
        missing = [o for o in items if o.pk not in known]
        if missing:
            model.history.bulk_history_create(missing, update=True, default_change_reason=BASELINE_REASON)


def history_queryset(model, object_id=None):
    qs = model.history.select_related("history_user").order_by("-history_date", "-history_id")
    if object_id is not None:
        qs = qs.filter(id=object_id)
    return qs


def merged_page(models: list, object_id, offset: int, limit: int) -> tuple[int, list]:
    """(total count, records offset..offset+limit newest first) across several history tables."""
    total = 0
    streams = []
    for model in models:
        qs = history_queryset(model, object_id)
        total += qs.count()
        streams.append(list(qs[: offset + limit]))
    ordered = merge(*streams, key=lambda r: (r.history_date, r.history_id), reverse=True)
    page = []
    for index, record in enumerate(ordered):
        if index >= offset + limit:
            break
        if index >= offset:
            page.append(record)
    return total, page
