from celery.signals import worker_ready
from django.apps import AppConfig
from django.db.backends.signals import connection_created

from twin.database import use_c_timestamp_loader


class CampusConfig(AppConfig):
    name = "campus"
    verbose_name = "Campus inventory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # cycle: the jobs and the inventory rules read the app's models, which load only once the app
        # registry is ready, after this module is imported (Django's AppConfig.ready).
        from . import jobs
        from .integrity import instance_errors
        from .models.base import TimestampedModel

        # Every model's clean() applies the inventory rules (campus.integrity), as the spec importer does.
        TimestampedModel.instance_rules = staticmethod(instance_errors)

        # PostgreSQL timestamps parsed in C where that gives Django's own values (twin.database).
        connection_created.connect(use_c_timestamp_loader, dispatch_uid="twin.database.c_timestamp_loader")

        # A starting worker (often the one replacing a dead one) fails the jobs its predecessor left running.
        worker_ready.connect(
            jobs.reap_on_worker_ready, weak=False, dispatch_uid="campus.reap_jobs_on_worker_ready"
        )
