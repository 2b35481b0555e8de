"""Write the catalog defaults of campus.catalog_data into the database (insert or update by key).

Used by the seed migration and by `manage.py sync_catalog` after the defaults change. Rows a user added
(other slugs) are left alone; rows with a default slug are reset to the documented default only when
``overwrite`` is set, so local overrides survive a routine sync.
"""

from __future__ import annotations

from django.apps import apps as global_apps
from django.contrib.auth.models import Group

from campus import catalog_data
from campus.models import GPUModel

_SIMPLE = (
    ("GPUModel", catalog_data.GPU_MODELS),
    ("SwitchModel", catalog_data.SWITCH_MODELS),
    ("LinkMedium", catalog_data.LINK_MEDIA),
)


def sync_catalog(apps=None, overwrite: bool = False) -> dict[str, int]:
    """Insert missing catalog rows (and update existing ones when ``overwrite``); returns rows written per model."""
    if apps is None:
        apps = global_apps
    written: dict[str, int] = {}

    def upsert(model_name: str, lookup: dict, values: dict) -> None:
        model = apps.get_model("campus", model_name)
        # A migration's historical model may predate a catalog key; later migrations fill it in.
        known = {f.name for f in model._meta.concrete_fields} | {
            f.attname for f in model._meta.concrete_fields
        }
        values = {k: v for k, v in values.items() if k in known}
        obj = model.objects.filter(**lookup).first()
        if obj is None:
            model.objects.create(**lookup, **values)
        elif overwrite:
            for key, value in values.items():
                setattr(obj, key, value)
            obj.save()
        else:
            return
        written[model_name] = written.get(model_name, 0) + 1

    for model_name, rows in _SIMPLE:
        for row in rows:
            values = {k: v for k, v in row.items() if k != "slug"}
            upsert(model_name, {"slug": row["slug"]}, values)

    gpu_model = apps.get_model("campus", "GPUModel")
    for row in catalog_data.NODE_MODELS:
        values = {k: v for k, v in row.items() if k not in {"slug", "gpu"}}
        values["gpu_model"] = gpu_model.objects.get(slug=row["gpu"])
        upsert("NodeModel", {"slug": row["slug"]}, values)

    for row in catalog_data.FAILURE_RATES:
        values = {k: v for k, v in row.items() if k not in {"dataset", "component"}}
        upsert("FailureRate", {"dataset": row["dataset"], "component": row["component"]}, values)
    return written


def ensure_catalog_and_roles() -> None:
    """Seed the catalog and the role groups when they are missing (one query when they are there)."""
    if GPUModel.objects.exists() and Group.objects.filter(name="planner").exists():
        return
    sync_catalog()
    for role in ("viewer", "planner", "admin"):
        Group.objects.get_or_create(name=role)
