"""``Campus.price_overrides``: a campus's own unit prices by price-catalog key (docs/capex.md).

SQLite adds a non-null column by rebuilding the table, and the revision triggers of the other tables name
``campus_campus``: they are dropped around the change and made again (``campus.revision``)."""

from django.db import migrations, models

import campus.models.sites
from campus import revision

HELP = (
    "The campus's own unit prices, USD, by price-catalog key: {\"switch/quantum-2-qm9700\": 30000}. Every "
    "other item is priced at the catalog's row (GET /api/price-catalog/, docs/capex.md)."
)


def drop(apps, schema_editor):
    for sql in revision.drop_statements(schema_editor.connection.vendor):
        schema_editor.execute(sql)


def create(apps, schema_editor):
    revision.ensure_triggers(schema_editor.connection)


def field():
    return models.JSONField(
        blank=True, default=dict, help_text=HELP, validators=[campus.models.sites.validate_price_overrides]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0022_storage_systems"),
    ]

    operations = [
        migrations.RunPython(drop, create),
        migrations.AddField(model_name="campus", name="price_overrides", field=field()),
        migrations.AddField(model_name="historicalcampus", name="price_overrides", field=field()),
        migrations.RunPython(create, drop),
    ]
