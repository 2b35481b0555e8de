"""Development and `make run`: embedded SQLite and filesystem Celery broker unless the environment says otherwise.

DEBUG stays off unless DEBUG=1: a planner trying the dashboard gets the project's own 404 and 500 pages, not
Django's debug pages with the URL list and settings. Static files are served from var/staticfiles
(scripts/run.sh collects them).
"""

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = env_bool("DEBUG", False)
