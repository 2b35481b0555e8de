# A rack may take several feeds of one side (whips of a 2(N+1) design: two per side, any two of four
# carry the rack); their ratings add up per side (campus.analysis.feeds.rack_side_ratings_kw).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0029_measurement_daily_merge_state"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="powerfeed",
            name="powerfeed_one_per_rack_side",
        ),
    ]
