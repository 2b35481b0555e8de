#!/usr/bin/env bash
# Serve the dashboard with a Celery worker and beat. Embedded defaults (SQLite, filesystem broker) unless
# DATABASE_URL / REDIS_URL are set. Ctrl-C (or SIGTERM) stops all three cleanly within seconds.
set -o errexit -o pipefail -o nounset
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PY=$VENV/bin/python
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-twin.settings.local}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
VAR=${TWIN_VAR_DIR:-var}
# How long a warm stop may take before the worker is told to hand its task back (cold shutdown), s.
STOP_WAIT_S=${STOP_WAIT_S:-8}

$PY manage.py migrate --no-input
$PY manage.py collectstatic --no-input --verbosity 0
$PY manage.py load_demo_campus
$PY manage.py ensure_demo_user
$PY manage.py load_demo_schedules
$PY manage.py load_demo_measurements

# Job control: each process gets a process group of its own, so the terminal's Ctrl-C reaches only this
# script, which stops each process exactly once and waits for it. (Without it every process got the
# terminal's SIGINT and then the script's SIGTERM: the worker took the second signal as a cold shutdown and
# gunicorn killed its workers with SIGKILL after its 30 s graceful timeout.)
set -m
pids=()
stopping=0

alive() {
  local pid
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}

stop() {
  [ "$stopping" = 1 ] && return 0
  stopping=1
  trap '' INT TERM
  echo "stopping web, worker and beat..."
  local pid deadline
  # SIGTERM: gunicorn finishes its requests, the worker its task (warm shutdown), beat saves its state.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  deadline=$((SECONDS + STOP_WAIT_S))
  while alive && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  if alive; then
    # A task still running (a long chunk of replicas): SIGQUIT is the worker's cold shutdown, which hands the
    # task back to the broker (tasks are acknowledged late); the run goes on at the next start.
    echo "a task is still running: handing it back to the broker..."
    kill -QUIT "${pids[0]}" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  echo "stopped."
}
# A stop asked for (Ctrl-C, or SIGTERM from a service manager or `make`'s caller) that stopped everything is a
# clean end: exit 0, so `make run` does not report "Error 130/143" after a normal stop.
trap 'stop; exit 0' INT TERM
trap stop EXIT

# The worker first: pids[0] is the one told to hand a running task back.
"$VENV/bin/celery" -A twin worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-2}" --hostname "worker@%h" &
pids+=($!)
"$VENV/bin/celery" -A twin beat --loglevel INFO --schedule "$VAR/celerybeat-schedule" &
pids+=($!)
# --limit-request-line: gunicorn's longest request line (8,190 bytes, not 4,094), for impact/?failed= with
# hundreds of elements (docs/api.md).
"$VENV/bin/gunicorn" twin.wsgi:application --bind "$HOST:$PORT" --workers "${WEB_WORKERS:-2}" --threads 4 \
  --limit-request-line 8190 \
  --access-logfile - --timeout 120 --graceful-timeout 5 --keep-alive 2 &
pids+=($!)
echo "Campus Twin: http://$HOST:$PORT/  (log in as demo / demo-planner; Ctrl-C stops everything)"
# Until one of them exits on its own, or a signal arrives (the traps above stop the others).
wait -n "${pids[@]}" || true
stop
