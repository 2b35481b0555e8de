"""Keep each Schedule's django-celery-beat PeriodicTask in step with it.

Beat reads its timetable from the database (``DatabaseScheduler``), so a Schedule saved through the API or
the admin takes effect without restarting anything: the PeriodicTask row is created, updated or deleted in
the same transaction as the Schedule. The receivers below are connected in ``SimulationsConfig.ready()``.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

from .models import Schedule

RUN_SCHEDULE_TASK = "simulations.tasks.run_schedule"
REAPER_TASK = "simulations.tasks.reap_stale_runs"
REAPER_NAME = "simulations: reap stale runs"


def periodic_task_name(schedule: Schedule) -> str:
    return f"simulations schedule {schedule.pk}: {schedule.name}"[:200]


def _crontab(expr: str) -> CrontabSchedule:
    minute, hour, day_of_month, month_of_year, day_of_week = expr.split()
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
        timezone=settings.TIME_ZONE,
    )
    return crontab


def _interval(seconds: int) -> IntervalSchedule:
    interval, _ = IntervalSchedule.objects.get_or_create(every=seconds, period=IntervalSchedule.SECONDS)
    return interval


@transaction.atomic
def sync_periodic_task(schedule: Schedule) -> PeriodicTask:
    """Create or update the PeriodicTask that fires ``run_schedule(schedule.pk)``."""
    fields = {
        "name": periodic_task_name(schedule),
        "task": RUN_SCHEDULE_TASK,
        "args": json.dumps([schedule.pk]),
        "enabled": schedule.enabled,
        "description": f"Runs scenario {schedule.scenario_id} ({schedule.replicas} replicas).",
    }
    if schedule.crontab:
        fields.update(crontab=_crontab(schedule.crontab), interval=None)
    else:
        fields.update(interval=_interval(int(schedule.interval_seconds or 0)), crontab=None)
    task = schedule.periodic_task
    if task is None:
        task = PeriodicTask.objects.create(**fields)
        # update(), not save(): save() would sync again.
        Schedule.objects.filter(pk=schedule.pk).update(periodic_task=task)
        schedule.periodic_task = task
    else:
        for name, value in fields.items():
            setattr(task, name, value)
        task.save()
    return task


def sync_on_save(sender, instance: Schedule, raw: bool = False, **_kwargs) -> None:
    """post_save: every save of a Schedule, through the API, the admin or code, updates its PeriodicTask."""
    # Fixture loading (raw) never called Schedule.save() and restores the PeriodicTask rows itself.
    if raw:
        return
    sync_periodic_task(instance)


def delete_periodic_task(sender, instance: Schedule, **_kwargs) -> None:
    """post_delete: also runs for queryset and cascade deletes, which never call Schedule.delete()."""
    if instance.periodic_task_id:
        PeriodicTask.objects.filter(pk=instance.periodic_task_id).delete()
