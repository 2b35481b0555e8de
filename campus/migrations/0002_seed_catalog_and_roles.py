from django.db import migrations

ROLES = ("viewer", "planner", "admin")


def seed(apps, schema_editor):
    from campus.catalog_loader import sync_catalog

    sync_catalog(apps)
    group = apps.get_model("auth", "Group")
    for role in ROLES:
        group.objects.get_or_create(name=role)


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
