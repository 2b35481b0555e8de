from celery.signals import worker_ready
from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class SimulationsConfig(AppConfig):
    name = "simulations"
    verbose_name = "What-if simulations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every signal of the app is connected here, once, so no module has to be imported for its side effects.
        # cycle: the app's models (and what imports them) load only once the app registry is ready, which
        # is after this module is imported (Django's AppConfig.ready).
        from . import schedules
        from .models import Schedule
        from .runs import reaper

        post_save.connect(schedules.sync_on_save, sender=Schedule, dispatch_uid="simulations.schedule.sync")
        post_delete.connect(
            schedules.delete_periodic_task,
            sender=Schedule,
            dispatch_uid="simulations.schedule.delete_periodic_task",
        )
        worker_ready.connect(
            reaper.reap_on_worker_ready, weak=False, dispatch_uid="simulations.reap_on_worker_ready"
        )
