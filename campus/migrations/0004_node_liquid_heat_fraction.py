import django.core.validators
from django.db import migrations, models


def fill_catalog_shares(apps, schema_editor):
    """Catalog servers get their documented cold-plate share; rows a user added keep 0 (air)."""
    from campus.catalog_data import LIQUID_HEAT_FRACTIONS

    node_model = apps.get_model("campus", "NodeModel")
    for slug, (share, _) in LIQUID_HEAT_FRACTIONS.items():
        node_model.objects.filter(slug=slug, liquid_heat_fraction=0.0).update(liquid_heat_fraction=share)


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0003_cooling_second_supply"),
    ]

    operations = [
        migrations.AddField(
            model_name="nodemodel",
            name="liquid_heat_fraction",
            field=models.FloatField(
                default=0.0,
                help_text="Share of the server's heat its cold plates carry to the liquid loop in a "
                "direct-to-chip rack (0: air-cooled server).",
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(1),
                ],
            ),
        ),
        migrations.RunPython(fill_catalog_shares, migrations.RunPython.noop),
    ]
