"""Settings shared by every environment. Everything that differs between machines comes from the environment.

DATABASE_URL  default sqlite:///<repo>/var/db.sqlite3 (embedded); e.g. postgres://postgres@127.0.0.1:5432/twin
REDIS_URL     default unset: Celery uses kombu's filesystem transport under var/celery (no server needed), and
              the shared analytics cache is a file cache under var/cache/analytics
SECRET_KEY, ALLOWED_HOSTS, DEBUG, CELERY_TASK_ALWAYS_EAGER, TWIN_THROTTLE_USER, TWIN_THROTTLE_ANON
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("TWIN_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "insecure-local-development-key-change-me")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "simple_history",
    "campus",
    "simulations",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.http.ConditionalGetMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
]

ROOT_URLCONF = "twin.urls"
WSGI_APPLICATION = "twin.wsgi.application"
ASGI_APPLICATION = "twin.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    # An empty DATABASE_URL (as a compose file or a shell may pass it) means the embedded default too.
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound by the server and statements prepared once a connection has run them
    # TWIN_PG_PREPARE_THRESHOLD times (psycopg's automatic preparation): PostgreSQL then plans a detail GET or a
    # page's IN-list once per connection instead of on every request (docs/performance.md). Behind a
    # transaction-pooling PgBouncer older than 1.21, which cannot carry prepared statements, set it to "off".
    _prepare = os.environ.get("TWIN_PG_PREPARE_THRESHOLD", "5").strip().lower()
    if _prepare not in ("off", "none", "") and not (_prepare.isdigit() and int(_prepare) >= 0):
        raise ImproperlyConfigured(
            f"TWIN_PG_PREPARE_THRESHOLD must be a whole number or 'off'; got {_prepare!r}"
        )
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "server_side_binding": True,
        "prepare_threshold": None if _prepare in ("off", "none", "") else int(_prepare),
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web, worker and beat share one file: wait for locks instead of failing at once.
    DATABASES["default"]["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# ------------------------------------------------------------------ REST framework
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "twin.api.authentication.CachedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["twin.api.permissions.RolePermission"],
    "DEFAULT_RENDERER_CLASSES": [
        "twin.api.renderers.TwinJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "twin.api.filters.TwinFilterBackend",
        "twin.api.filters.TwinSearchFilter",
        "twin.api.filters.TwinOrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "twin.api.pagination.TwinPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "twin.api.schema.TwinAutoSchema",
    "DEFAULT_THROTTLE_CLASSES": [
        "twin.api.throttling.TwinUserRateThrottle",
        "twin.api.throttling.TwinAnonRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": os.environ.get("TWIN_THROTTLE_USER", "6000/min"),
        "anon": os.environ.get("TWIN_THROTTLE_ANON", "120/min"),
    },
    "EXCEPTION_HANDLER": "twin.api.exceptions.exception_handler",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Campus Twin API",
    "DESCRIPTION": "Inventory, analytics and what-if simulations of an AI datacenter campus.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "twin.api.schema.document_liveness",
    ],
    "ENUM_NAME_OVERRIDES": {
        "StatusEnum": "campus.choices.Status",
        "NodeStatusEnum": "campus.choices.NodeStatus",
        "NicKindEnum": "campus.choices.NicKind",
        "RedundancyEnum": "campus.choices.Redundancy",
        "CapexCategoryEnum": "campus.analysis.capex.CATEGORIES",
    },
}

# ------------------------------------------------------------------ Celery
REDIS_URL = os.environ.get("REDIS_URL", "")
CELERY_DATA_DIR = VAR_DIR / "celery"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
else:
    # Embedded default: kombu's filesystem transport, no server needed. Web, worker and beat
    # exchange messages through files under var/celery.
    for sub in ("queue", "processed", "control"):
        (CELERY_DATA_DIR / sub).mkdir(parents=True, exist_ok=True)
    # The host is named only to keep kombu quiet: without one it logs "No hostname was supplied" on every
    # connection (every task a worker takes); the filesystem transport reads the folders below, not the host.
    CELERY_BROKER_URL = "filesystem://localhost/"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_DATA_DIR / "queue"),
        "data_folder_out": str(CELERY_DATA_DIR / "queue"),
        "processed_folder": str(CELERY_DATA_DIR / "processed"),
        "control_folder": str(CELERY_DATA_DIR / "control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = f"db+sqlite:///{CELERY_DATA_DIR / 'results.sqlite3'}"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TRACK_STARTED = True
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("TWIN_TASK_SOFT_TIME_LIMIT", "1800"))
CELERY_TASK_TIME_LIMIT = int(os.environ.get("TWIN_TASK_TIME_LIMIT", "1900"))
CELERY_RESULT_EXPIRES = 3600
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"

# ------------------------------------------------------------------ caches
# "default" stays in the process. "analytics" is shared by every web and worker process: the rendered default
# summary and whole-campus floor map of each campus version (campus.api.analytics, "The shared cache"); the
# jobs that generate or import a campus fill it. Redis when REDIS_URL is set, else files under the var dir.
ANALYTICS_CACHE_SECONDS = int(os.environ.get("TWIN_ANALYTICS_CACHE_SECONDS", str(24 * 3600)))
if REDIS_URL:
    _analytics_cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
else:
    _analytics_cache = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "cache" / "analytics"),
        "OPTIONS": {"MAX_ENTRIES": 200},
    }
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "analytics": {
        **_analytics_cache,
        "TIMEOUT": ANALYTICS_CACHE_SECONDS,
        "KEY_PREFIX": os.environ.get("TWIN_CACHE_KEY_PREFIX", "twin"),
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# Measurements (docs/live.md): how long the twin keeps its rollups, and the Prometheus server it syncs from
# (credentials are never echoed by the API).
TWIN_MEASUREMENT_RETENTION_DAYS = int(os.environ.get("TWIN_MEASUREMENT_RETENTION_DAYS", "35"))
TWIN_MEASUREMENT_DAILY_RETENTION_DAYS = int(os.environ.get("TWIN_MEASUREMENT_DAILY_RETENTION_DAYS", "400"))
TWIN_PROMETHEUS_URL = os.environ.get("TWIN_PROMETHEUS_URL", "")
TWIN_PROMETHEUS_TOKEN = os.environ.get("TWIN_PROMETHEUS_TOKEN", "")
