"""Development and `make run`: embedded SQLite and filesystem Celery broker unless the environment says otherwise."""

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = env_bool("DEBUG", True)
