from django.apps import AppConfig


class CampusConfig(AppConfig):
    name = "campus"
    verbose_name = "Campus inventory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from celery.signals import worker_ready
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate

        from twin.database import use_c_timestamp_loader

        from . import jobs, revision

        # PostgreSQL timestamps parsed in C where that gives Django's own values (twin.database).
        connection_created.connect(use_c_timestamp_loader, dispatch_uid="twin.database.c_timestamp_loader")

        # A starting worker (often the one replacing a dead one) fails the jobs its predecessor left running.
        worker_ready.connect(
            jobs.reap_on_worker_ready, weak=False, dispatch_uid="campus.reap_jobs_on_worker_ready"
        )

        # A table SQLite rebuilt to alter a column has lost its triggers: the campus revision's are made again.
        post_migrate.connect(
            revision.ensure_after_migrate, sender=self, dispatch_uid="campus.revision_triggers"
        )
