#!/usr/bin/env bash
# Start one role of the shared image: web (migrate + gunicorn), worker, beat, or any command.
set -o errexit -o pipefail -o nounset
case "${1:-web}" in
  web)
    python manage.py migrate --no-input
    python manage.py sync_catalog
    exec gunicorn twin.wsgi:application --bind 0.0.0.0:8000 --workers "${WEB_WORKERS:-4}" --threads 4 \
      --limit-request-line 8190 \
      --access-logfile - --timeout 120
    ;;
  worker)
    exec celery -A twin worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-2}" --hostname "worker@%h"
    ;;
  beat)
    exec celery -A twin beat --loglevel INFO --schedule /var/lib/twin/celerybeat-schedule
    ;;
  *)
    exec "$@"
    ;;
esac
