"""Measurement sync benchmark: a day of every rack at a 60 s step, rolled up and stored (docs/live.md).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin .venv/bin/python bench/bench_measurements.py \
        [--sizes 1000,4000] [--chunk-hours 24] [--per-chunk]

``--sizes`` are rack counts (a 1M-GPU campus has ~31k racks). Per size: the samples a sync reads for one day
(1,440 per rack, what ``query_range`` answers at a 60 s step), their 5-minute rollup
(``measurements.rollup``) and the store (``measurements_store.store``: the upsert of 288 buckets per rack,
the daily rows, the retention), in a throwaway database next to the one DATABASE_URL names. With
``--chunk-hours 1`` the day is rolled up and stored in 24 hourly chunks, as a sync that runs every hour writes
it (and as memory allows at 31k racks: a day of them is 45 M samples); the times are the chunks' sums, and
``--per-chunk`` prints each chunk's as it goes (a store late in the day must cost what an early one does). The
Prometheus side (its query time) is not in it. Prints tables with the time per rack and the same
extrapolated to 31k racks; asserts nothing (timings depend on the machine and its load).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["DEBUG"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

import django  # noqa: E402

django.setup()

from django.utils import timezone  # noqa: E402

from bench.scratch import in_scratch_database  # noqa: E402
from campus import measurements_store as store  # noqa: E402
from campus.analysis import measurements as m  # noqa: E402
from campus.models import Campus  # noqa: E402

RACKS_1M_GPUS = 31_000
STEP_S = 60


def run(racks: int, chunk_hours: int = 24, per_chunk: bool = False) -> dict:
    campus = Campus.objects.create(name=f"Bench measurements {racks}", grid_capacity_mw=1000.0)
    day = m.bucket_start(timezone.now() - timedelta(days=1), 86400)
    count = 0
    chunks = []
    for start in range(0, 86400, chunk_hours * 3600):
        samples = [
            m.Sample("rack", f"R{r:05d}", "power_kw", day + timedelta(seconds=s), 40.0 + (s % 300) / 100.0)
            for r in range(racks)
            for s in range(start, min(86400, start + chunk_hours * 3600), STEP_S)
        ]
        t1 = time.perf_counter()
        buckets = m.rollup(samples)
        t2 = time.perf_counter()
        store.store(campus.pk, buckets)
        t3 = time.perf_counter()
        count += len(samples)
        chunks.append({"hour": start // 3600, "buckets": len(buckets), "rollup": t2 - t1, "store": t3 - t2})
        if per_chunk:  # as it goes: a day of 31k racks takes a while
            c = chunks[-1]
            print(
                f"{racks:>7} {c['hour']:>6} {c['buckets']:>9,} {c['rollup']:>9.2f} {c['store']:>8.2f}",
                flush=True,
            )
        del samples, buckets
    return {
        "racks": racks,
        "samples": count,
        "rollup": sum(c["rollup"] for c in chunks),
        "store": sum(c["store"] for c in chunks),
        "chunks": chunks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,4000", help="rack counts, comma-separated")
    parser.add_argument("--chunk-hours", type=int, default=24, help="hours of the day per store (24: one)")
    parser.add_argument("--per-chunk", action="store_true", help="print each chunk's times")
    args = parser.parse_args()
    chunk = args.chunk_hours
    if args.per_chunk:
        print(f"{'racks':>7} {'from h':>6} {'buckets':>9} {'rollup s':>9} {'store s':>8}", flush=True)
    rows = in_scratch_database(
        lambda n: run(n, chunk, args.per_chunk), [int(x) for x in args.sizes.split(",")]
    )
    print(f"chunks of {chunk} h")
    print(f"{'racks':>7} {'samples':>10} {'rollup s':>9} {'store s':>8} {'ms/rack':>8} {'31k racks s':>12}")
    for r in rows:
        per_rack = (r["rollup"] + r["store"]) / r["racks"]
        print(
            f"{r['racks']:>7} {r['samples']:>10,} {r['rollup']:>9.2f} {r['store']:>8.2f} "
            f"{per_rack * 1000:>8.2f} {per_rack * RACKS_1M_GPUS:>12.0f}"
        )


if __name__ == "__main__":
    main()
