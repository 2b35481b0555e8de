import os

from celery import Celery

import twin.worker_heartbeat  # noqa: F401  (connects the worker signals)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

app = Celery("twin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
