"""Runs record what they ran: the kind, campus and scenario name when queued, and the campus state at start.

Existing runs take their scenario's kind, campus and name (what the API showed for them until now); their
campus state is unknown (null)."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill_from_scenario(apps, schema_editor):
    Run = apps.get_model("simulations", "Run")
    Scenario = apps.get_model("simulations", "Scenario")
    of_scenario = Scenario.objects.filter(pk=OuterRef("scenario_id"))
    Run.objects.update(
        kind=Subquery(of_scenario.values("kind")[:1]),
        campus_id=Subquery(of_scenario.values("campus_id")[:1]),
        scenario_name=Subquery(of_scenario.values("name")[:1]),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0016_physical_bounds"),
        ("simulations", "0006_run_as_of"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="kind",
            field=models.CharField(default="", max_length=32),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="run",
            name="campus",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="simulation_runs",
                to="campus.campus",
            ),
        ),
        migrations.AddField(
            model_name="run",
            name="scenario_name",
            field=models.CharField(blank=True, default="", max_length=128),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="run",
            name="campus_state",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunPython(fill_from_scenario, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="run",
            name="campus",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="simulation_runs",
                to="campus.campus",
            ),
        ),
        migrations.AlterField(
            model_name="run",
            name="kind",
            field=models.CharField(
                choices=[
                    ("power_capping", "Power capping"),
                    ("grid_limit", "Grid limit / demand response"),
                    ("liquid_cooling", "Liquid cooling loss"),
                    ("failure_cascade", "Failures and recovery"),
                    ("power_dynamics", "Training power dynamics"),
                    ("heat_wave", "Heat wave"),
                ],
                db_index=True,
                max_length=32,
            ),
        ),
    ]
