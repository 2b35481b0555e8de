# Campus Twin — the two commands are `make run` and `make test`; everything else is here for them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export DJANGO_SETTINGS_MODULE ?= twin.settings.local

.PHONY: help setup run test test-fast fidelity lint format bench demo clean

help:
	@echo "make run    set up, migrate, load the demo campus, serve http://127.0.0.1:8000 with a Celery worker and beat"
	@echo "make test   set up and run the whole test suite (PostgreSQL/Redis when DATABASE_URL/REDIS_URL are set)"
	@echo "make setup  install Python and npm dependencies and build the dashboard bundle (quick when nothing changed)"
	@echo "make lint   ruff, ESLint, Prettier and TypeScript;  make bench  benchmarks (print tables);  make clean  remove local state"
	@echo "make fidelity  the published cases against the twin (docs/fidelity.md); fails on any case"

# ---------------------------------------------------------------- setup (idempotent, stamp files)
$(VENV)/bin/python:
	@echo "==> [setup 1/4] Creating the Python virtual environment in $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip

# pip prints one line per package it collects, so a first install (about 2-3 minutes) shows it is moving.
$(VENV)/.deps: pyproject.toml | $(VENV)/bin/python
	@echo "==> [setup 2/4] Installing the Python dependencies (about 2-3 minutes the first time)"
	$(VENV)/bin/pip install --progress-bar off -e ".[dev]" | grep --line-buffered -E '^(Collecting|Successfully)' || true
	@$(VENV)/bin/python -c "import django, celery, simpy" || { echo "pip install failed: run $(VENV)/bin/pip install -e '.[dev]' to see why"; exit 1; }
	@touch $@

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	@echo "==> [setup 3/4] Installing the dashboard's npm packages (under a minute)"
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

FRONTEND_SOURCES := $(shell find frontend/src -type f 2>/dev/null)
frontend/static/frontend/dist/.built: frontend/node_modules/.installed $(FRONTEND_SOURCES) frontend/package.json
	@echo "==> [setup 4/4] Building the dashboard bundle"
	cd frontend && npm run --silent build
	@touch $@

setup: $(VENV)/.deps frontend/static/frontend/dist/.built

# ---------------------------------------------------------------- the two commands
run: setup
	@bash scripts/run.sh

test: setup
	@bash scripts/test.sh

# ---------------------------------------------------------------- the rest
test-fast: setup
	$(PY) -m pytest -m "not e2e" -q

# Published figures against the twin's own functions: pure Python, no database, a few seconds.
fidelity: $(VENV)/.deps
	$(PY) -m campus.fidelity

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	cd frontend && npm run --silent lint

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
	cd frontend && npm run --silent format

bench: setup
	@bash scripts/bench.sh

demo: setup
	$(PY) manage.py migrate --no-input
	$(PY) manage.py load_demo_campus

clean:
	rm -rf var test-results frontend/static/frontend/dist
