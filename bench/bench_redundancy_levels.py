"""The pair search of the achieved redundancy level (N, N+1, 2N) on generated campuses: a table, not a test.

Usage: .venv/bin/python bench/bench_redundancy_levels.py [gpus ...]   (default 4,096 16,384 65,536)
One row per campus size and power x cooling redundancy: elements, pairs in all (within and across the two
domains), pairs whose marks meet, those failed through impact mode (a device in series above another fails
as that one: one failure for both), the pairs that cost GPUs (a pair across the domains counts in both),
the achieved levels, and the seconds the single failures and the search of both domains take (one process,
cold snapshot). docs/model.md ("Achieved redundancy") records a run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.redundancy import redundancy_check  # noqa: E402
from campus.analysis.redundancy_levels import pair_search, redundancy_levels  # noqa: E402
from campus.interchange.generate import generate  # noqa: E402
from campus.interchange.spec_snapshot import spec_snapshot  # noqa: E402

DESIGNS = [("2N", "N+1"), ("N+1", "N+1"), ("2N", "2N")]


def main(sizes: list[int]) -> None:
    print(
        "| GPUs | power | cooling | elements (power / cooling) | pairs in all | pairs meeting | pairs failed "
        "| pairs costing | achieved power / cooling | single sweep s | levels s |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for gpus in sizes:
        for pr, cr in DESIGNS:
            snap = spec_snapshot(generate("R", gpus=gpus, power_redundancy=pr, cooling_redundancy=cr).spec)
            t0 = time.perf_counter()
            redundancy_check(snap)
            t1 = time.perf_counter()
            levels = redundancy_levels(snap)
            t2 = time.perf_counter()
            p, c = levels["power"], levels["cooling"]
            search = pair_search(snap)
            n = len(search.elements)
            print(
                f"| {gpus:,} | {pr} | {cr} | {p.elements} / {c.elements} | {n * (n - 1) // 2:,} "
                f"| {len(set(search.candidates('power')) | set(search.candidates('cooling'))):,} | {len(search.solved):,} | {p.pairs_count + c.pairs_count:,} "
                f"| {p.achieved} / {c.achieved} | {t1 - t0:.2f} | {t2 - t1:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [4096, 16384, 65536])
