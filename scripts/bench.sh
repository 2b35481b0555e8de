#!/usr/bin/env bash
# Benchmarks print tables; they never fail a build on time. Each script runs on its own.
set -o errexit -o pipefail -o nounset
cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-twin.settings.local}
for script in bench/bench_*.py; do
  echo "== $script"
  .venv/bin/python "$script" ${BENCH_ARGS:-} || echo "(failed: $script)"
done
