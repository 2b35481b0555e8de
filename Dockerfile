# One image for web, worker and beat.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=twin.settings.production \
    TWIN_VAR_DIR=/var/lib/twin
WORKDIR /app
RUN useradd --system --create-home twin && mkdir -p /var/lib/twin && chown twin /var/lib/twin
COPY pyproject.toml README.md ./
COPY twin/ twin/
COPY campus/ campus/
COPY simulations/ simulations/
COPY frontend/ frontend/
COPY --from=frontend /src/frontend/static/frontend/dist/ frontend/static/frontend/dist/
COPY manage.py ./
COPY scripts/docker-entrypoint.sh /usr/local/bin/twin-entrypoint
RUN pip install --no-cache-dir . \
 && SECRET_KEY=build-only-collectstatic-key-that-is-long-enough-for-the-production-check-xx \
    python manage.py collectstatic --no-input --verbosity 0
USER twin
EXPOSE 8000
ENTRYPOINT ["twin-entrypoint"]
CMD ["web"]
