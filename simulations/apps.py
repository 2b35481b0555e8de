from django.apps import AppConfig


class SimulationsConfig(AppConfig):
    name = "simulations"
    verbose_name = "What-if simulations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every signal of the app is connected here, once, so no module has to be imported for its side effects.
        from celery.signals import worker_ready
        from django.db.models.signals import post_delete, post_save

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
