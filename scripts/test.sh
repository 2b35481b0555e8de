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

# The browser tests drive Debian's Chromium (never a downloaded browser build). Installed here when this runs
# as root on Debian or Ubuntu; otherwise the exact command is printed and the suite stops before it starts.
CHROMIUM=${TWIN_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> Installing Debian's Chromium for the browser tests (apt-get install chromium, a minute or two)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "The browser tests need Chromium at $CHROMIUM. Install it with:"
    echo "    sudo apt-get update && sudo apt-get install -y chromium"
    echo "(or set TWIN_CHROMIUM to a Chromium binary), then run make test again."
    echo "To run everything but the browser tests: make test-fast"
    exit 1
  fi
fi
echo "==> The whole suite: about 16 minutes on two quiet cores, up to ~45 on busy ones"
echo "    (make test-fast leaves out the browser tests; pytest's -x stops at the first failure)."
.venv/bin/ruff check .
(cd frontend && npm run --silent lint)
(cd frontend && npm run --silent test)
.venv/bin/python manage.py makemigrations --check --dry-run >/dev/null
.venv/bin/python manage.py spectacular --validate --fail-on-warn --file "$RESULTS/openapi.yaml"
.venv/bin/python -m campus.fidelity
exec .venv/bin/python -m pytest --output "$RESULTS/playwright" "$@"
