"""The test suite. Uses DATABASE_URL / REDIS_URL when set (CI points them at PostgreSQL and Redis).

On the embedded default (SQLite) the test database is a file under the var directory rather than memory, so
that the end-to-end tests' Celery worker, another process, opens the same database the tests write; WAL lets
the worker and the live server write while a test reads, and nothing needs to survive a crash.
"""

import os

from .base import *  # noqa: F403
from .base import DATABASES, VAR_DIR

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
REST_FRAMEWORK = {**REST_FRAMEWORK}  # noqa: F405
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"user": "100000/min", "anon": "100000/min"}
LOGGING = {**LOGGING, "root": {"handlers": ["console"], "level": "WARNING"}}  # noqa: F405

# One key space per test session in the shared analytics cache (Redis in CI is shared by concurrent sessions);
# the end-to-end tests' workers inherit it through the environment.
os.environ.setdefault("TWIN_CACHE_KEY_PREFIX", f"test-{os.getpid()}")
CACHES = {**CACHES, "analytics": {**CACHES["analytics"], "KEY_PREFIX": os.environ["TWIN_CACHE_KEY_PREFIX"]}}  # noqa: F405

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF",
    }
    # One file per test session (two sessions on one var directory never share it).
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
