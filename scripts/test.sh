#!/usr/bin/env bash
# The whole suite. On PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set; embedded defaults otherwise.
# TWIN_RESULTS (default test-results) receives the OpenAPI file, the screenshots and Playwright's own output
# (a subfolder the plugin empties at each run); TWIN_VAR_DIR (default var) the embedded database and broker.
set -o errexit -o pipefail -o nounset
cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE=twin.settings.test
RESULTS=${TWIN_RESULTS:-test-results}
export TWIN_SCREENSHOTS=${TWIN_SCREENSHOTS:-$RESULTS/screenshots}
mkdir -p "$TWIN_SCREENSHOTS"
.venv/bin/ruff check .
(cd frontend && npm run --silent lint)
(cd frontend && npm run --silent test)
.venv/bin/python manage.py makemigrations --check --dry-run >/dev/null
.venv/bin/python manage.py spectacular --validate --fail-on-warn --file "$RESULTS/openapi.yaml"
.venv/bin/python -m campus.fidelity
exec .venv/bin/python -m pytest --output "$RESULTS/playwright" "$@"
