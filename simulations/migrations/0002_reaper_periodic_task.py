"""Beat runs the reaper every minute: it re-sends the chunks of dead workers and fails runs that keep losing them."""

from django.db import migrations

NAME = "simulations: reap stale runs"


def forward(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every, _ = IntervalSchedule.objects.get_or_create(every=60, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=NAME,
        defaults={"task": "simulations.tasks.reap_stale_runs", "interval": every, "enabled": True,
                  "description": "Re-sends run chunks whose worker died; fails runs that keep losing workers."},
    )


def backward(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("simulations", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(forward, backward)]
