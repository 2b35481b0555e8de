"""Beat syncs the campuses' Prometheus sources every 5 minutes (campus.prometheus_sync)."""

from django.db import migrations

NAME = "campus: sync measurements"


def forward(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every, _ = IntervalSchedule.objects.get_or_create(every=300, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=NAME,
        defaults={
            "task": "campus.tasks.sync_measurements",
            "interval": every,
            "enabled": True,
            "description": "Reads each campus's Prometheus source from where it stopped.",
        },
    )


def backward(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("campus", "0024_measurements"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(forward, backward)]
