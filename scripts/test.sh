#!/usr/bin/env bash
# The whole suite. On PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set; embedded defaults otherwise.
set -o errexit -o pipefail -o nounset
cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE=twin.settings.test
mkdir -p test-results/screenshots
.venv/bin/ruff check .
(cd frontend && npm run --silent lint)
.venv/bin/python manage.py makemigrations --check --dry-run >/dev/null
.venv/bin/python manage.py spectacular --validate --fail-on-warn --file test-results/openapi.yaml
.venv/bin/python -m campus.fidelity
exec .venv/bin/python -m pytest "$@"
