"""The calibrated model parameters (docs/live.md, "Applying a calibration"): ``Campus.gpu_power_fraction`` and
``server_overhead_scale``, and a cooling plant's fitted ``fixed_kw``, ``eir_ref`` and ``eir_per_k``; an uploaded
weather year's ``utc_offset_h`` (its hours' local standard time; a year uploaded before reads as UTC, as it did).

SQLite adds a non-null column by rebuilding the table, and the revision triggers of the other tables name
``campus_campus``: they are dropped around the change and made again (``campus.revision``)."""

import django.core.validators
from django.db import migrations, models

from campus import revision


def drop(apps, schema_editor):
    for sql in revision.drop_statements(schema_editor.connection.vendor):
        schema_editor.execute(sql)


def create(apps, schema_editor):
    revision.ensure_triggers(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0027_measurement_kinds_beyond_power"),
    ]

    operations = [
        migrations.RunPython(drop, create),
        migrations.AddField(
            model_name="campus",
            name="gpu_power_fraction",
            field=models.FloatField(
                default=1.0,
                help_text="The GPUs' modelled draw as a fraction of their TDP (1: at TDP, the design load). A calibration from measured rack power sets it (docs/live.md, Applying a calibration).",
                validators=[
                    django.core.validators.MinValueValidator(0.05),
                    django.core.validators.MaxValueValidator(1.2),
                ],
            ),
        ),
        migrations.AddField(
            model_name="campus",
            name="server_overhead_scale",
            field=models.FloatField(
                default=1.0,
                help_text="Scale of the servers' power beyond their GPUs (the node models' overhead_w and NIC extras; 1: the catalog's figures). A calibration from measured rack power sets it.",
                validators=[
                    django.core.validators.MinValueValidator(0.1),
                    django.core.validators.MaxValueValidator(3.0),
                ],
            ),
        ),
        migrations.AddField(
            model_name="coolingplant",
            name="eir_per_k",
            field=models.FloatField(
                blank=True,
                default=None,
                help_text="Fitted change of the electric input ratio per K of outdoor dry bulb, 1/K.",
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(-0.1),
                    django.core.validators.MaxValueValidator(0.1),
                ],
            ),
        ),
        migrations.AddField(
            model_name="coolingplant",
            name="eir_ref",
            field=models.FloatField(
                blank=True,
                default=None,
                help_text="Fitted electric input ratio (kW of electricity per kW of heat) at 20 °C outdoor dry bulb.",
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(2),
                ],
            ),
        ),
        migrations.AddField(
            model_name="coolingplant",
            name="fixed_kw",
            field=models.FloatField(
                blank=True,
                default=None,
                help_text="Fitted power drawn whatever the heat load (fans, pumps), kW; with eir_ref and eir_per_k it replaces the kind's plant equations. Null: the equations at the rated COP.",
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(2000000),
                ],
            ),
        ),
        migrations.AddField(
            model_name="historicalcampus",
            name="gpu_power_fraction",
            field=models.FloatField(
                default=1.0,
                help_text="The GPUs' modelled draw as a fraction of their TDP (1: at TDP, the design load). A calibration from measured rack power sets it (docs/live.md, Applying a calibration).",
                validators=[
                    django.core.validators.MinValueValidator(0.05),
                    django.core.validators.MaxValueValidator(1.2),
                ],
            ),
        ),
        migrations.AddField(
            model_name="historicalcampus",
            name="server_overhead_scale",
            field=models.FloatField(
                default=1.0,
                help_text="Scale of the servers' power beyond their GPUs (the node models' overhead_w and NIC extras; 1: the catalog's figures). A calibration from measured rack power sets it.",
                validators=[
                    django.core.validators.MinValueValidator(0.1),
                    django.core.validators.MaxValueValidator(3.0),
                ],
            ),
        ),
        migrations.AddField(
            model_name="historicalcoolingplant",
            name="eir_per_k",
            field=models.FloatField(
                blank=True,
                default=None,
                help_text="Fitted change of the electric input ratio per K of outdoor dry bulb, 1/K.",
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(-0.1),
                    django.core.validators.MaxValueValidator(0.1),
                ],
            ),
        ),
        migrations.AddField(
            model_name="historicalcoolingplant",
            name="eir_ref",
            field=models.FloatField(
                blank=True,
                default=None,
                help_text="Fitted electric input ratio (kW of electricity per kW of heat) at 20 °C outdoor dry bulb.",
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(2),
                ],
            ),
        ),
        migrations.AddField(
            model_name="historicalcoolingplant",
            name="fixed_kw",
            field=models.FloatField(
                blank=True,
                default=None,
                help_text="Fitted power drawn whatever the heat load (fans, pumps), kW; with eir_ref and eir_per_k it replaces the kind's plant equations. Null: the equations at the rated COP.",
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(2000000),
                ],
            ),
        ),
        migrations.AddField(
            model_name="campusweather",
            name="utc_offset_h",
            field=models.FloatField(
                default=0.0,
                help_text="The hours' local standard time, hours east of UTC (the EPW file's LOCATION time zone).",
                validators=[
                    django.core.validators.MinValueValidator(-12),
                    django.core.validators.MaxValueValidator(14),
                ],
            ),
        ),
        migrations.RunPython(create, drop),
    ]
