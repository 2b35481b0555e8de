"""Campus spec benchmark: generate, import and export 1k, 10k and 100k-GPU reference campuses.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin .venv/bin/python bench/bench_import.py [--sizes 1000,10000,100000]

Runs against a throwaway database created next to the one DATABASE_URL names (Django's test-database
machinery: "test_<name>" on PostgreSQL, in memory on SQLite) and drops it afterwards, so imports commit
for real and nothing is left behind. DEBUG is forced off: query logging is not part of an import.
Prints a table; asserts nothing (timings depend on the machine and its load).
"""

from __future__ import annotations

import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["DEBUG"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402

from bench.scratch import in_scratch_database, sizes_argument  # noqa: E402
from campus.interchange.exporter import export_campus  # noqa: E402
from campus.interchange.formats import dump_spec  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.interchange.importer import import_campus, spec_counts  # noqa: E402


def peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(gpus: int) -> dict:
    started = time.perf_counter()
    spec = generate_spec(f"Bench {gpus}", gpus)
    generated = time.perf_counter()
    rows = {"campus": 1}
    campus = import_campus(spec, progress=lambda stage, count: rows.__setitem__(stage, count))
    imported = time.perf_counter()
    exported_spec = export_campus(campus)
    exported = time.perf_counter()
    text = dump_spec(exported_spec, "yaml")
    rows.pop("validated", None)
    counts = spec_counts(spec)
    return {
        "gpus": gpus,
        "racks": counts["racks"],
        "generate_s": generated - started,
        "import_s": imported - generated,
        "export_s": exported - imported,
        "rows": sum(rows.values()),
        "yaml_mb": len(text.encode()) / 1e6,
        "peak_rss_mb": peak_rss_mb(),
    }


def main() -> None:
    sizes = sizes_argument(__doc__, "1000,10000,100000")
    vendor = connection.vendor
    results = in_scratch_database(run, sizes)
    print(f"campus spec generate/import/export on {vendor} ({os.cpu_count()} CPUs)")
    header = f"{'GPUs':>8} {'racks':>6} {'generate s':>11} {'import s':>9} {'export s':>9} {'rows':>8} {'YAML MB':>8} {'peak RSS MB':>12}"
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r['gpus']:>8,} {r['racks']:>6,} {r['generate_s']:>11.2f} {r['import_s']:>9.2f} {r['export_s']:>9.2f} "
            f"{r['rows']:>8,} {r['yaml_mb']:>8.2f} {r['peak_rss_mb']:>12.0f}"
        )
    print("peak RSS is the process maximum so far (sizes run in order in one process)")


if __name__ == "__main__":
    main()
