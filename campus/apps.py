from django.apps import AppConfig


class CampusConfig(AppConfig):
    name = "campus"
    verbose_name = "Campus inventory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from celery.signals import worker_ready

        from . import jobs

        # A starting worker (often the one replacing a dead one) fails the jobs its predecessor left running.
        worker_ready.connect(
            jobs.reap_on_worker_ready, weak=False, dispatch_uid="campus.reap_jobs_on_worker_ready"
        )
