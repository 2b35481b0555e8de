#!/usr/bin/env bash
# Serve the dashboard with a Celery worker and beat. Embedded defaults (SQLite, filesystem broker) unless
# DATABASE_URL / REDIS_URL are set. Ctrl-C stops all three.
set -o errexit -o pipefail -o nounset
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-twin.settings.local}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}

$PY manage.py migrate --no-input
$PY manage.py collectstatic --no-input --verbosity 0
$PY manage.py load_demo_campus
$PY manage.py ensure_demo_user
$PY manage.py load_demo_schedules

pids=()
stop() {
  trap - INT TERM EXIT
  echo "stopping web, worker and beat..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

.venv/bin/celery -A twin worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-2}" --hostname "worker@%h" &
pids+=($!)
.venv/bin/celery -A twin beat --loglevel INFO --schedule var/celerybeat-schedule &
pids+=($!)
.venv/bin/gunicorn twin.wsgi:application --bind "$HOST:$PORT" --workers "${WEB_WORKERS:-2}" --threads 4 \
  --access-logfile - --timeout 120 &
pids+=($!)
echo "Campus Twin: http://$HOST:$PORT/  (log in as demo / demo-planner; Ctrl-C stops everything)"
wait -n "${pids[@]}"
