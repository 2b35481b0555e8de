"""``Campus.revision``, and the database triggers that raise it with every write to a campus's inventory
(``campus.revision``: what they do, and why they are made sure of again after every ``migrate``)."""

from django.db import migrations, models

from campus import revision


def create(apps, schema_editor):
    revision.ensure_triggers(schema_editor.connection)


def drop(apps, schema_editor):
    for sql in revision.drop_statements(schema_editor.connection.vendor):
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0019_switch_tier_super_spine_2"),
    ]

    operations = [
        migrations.AddField(
            model_name="campus",
            name="revision",
            field=models.PositiveBigIntegerField(
                default=0,
                editable=False,
                help_text="Grows in the transaction of every write to the campus's inventory or to the catalog "
                "(database triggers, docs/architecture.md); every cache of the campus's figures is keyed on it.",
            ),
        ),
        migrations.RunPython(create, drop),
    ]
