"""The pair search of the achieved redundancy level (N, N+1, 2N) on generated campuses: a table, not a test.

Usage: .venv/bin/python bench/bench_redundancy_levels.py [gpus ...]   (default 4,096 16,384 65,536)
One row per campus size and power x cooling redundancy: elements, pairs in all, pairs the marks keep (failed
together), the pairs that cost GPUs, the achieved levels, and the seconds the single failures and the pair
search take (one process, cold snapshot). docs/model.md ("Achieved redundancy") records a run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.redundancy import redundancy_check  # noqa: E402
from campus.analysis.redundancy_levels import redundancy_levels  # noqa: E402
from campus.interchange.generate import generate  # noqa: E402
from campus.interchange.spec_snapshot import spec_snapshot  # noqa: E402

DESIGNS = [("2N", "N+1"), ("N+1", "N+1"), ("2N", "2N")]


def main(sizes: list[int]) -> None:
    print(
        "| GPUs | power | cooling | elements (power / cooling) | pairs in all | pairs failed | pairs costing "
        "| achieved power / cooling | single sweep s | levels s |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---|---:|---:|")
    for gpus in sizes:
        for pr, cr in DESIGNS:
            snap = spec_snapshot(generate("R", gpus=gpus, power_redundancy=pr, cooling_redundancy=cr).spec)
            t0 = time.perf_counter()
            redundancy_check(snap)
            t1 = time.perf_counter()
            levels = redundancy_levels(snap)
            t2 = time.perf_counter()
            p, c = levels["power"], levels["cooling"]
            print(
                f"| {gpus:,} | {pr} | {cr} | {p.elements} / {c.elements} | {p.pairs_total + c.pairs_total:,} "
                f"| {p.pairs_checked + c.pairs_checked:,} | {p.pairs_count + c.pairs_count:,} "
                f"| {p.achieved} / {c.achieved} | {t1 - t0:.2f} | {t2 - t1:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [4096, 16384, 65536])
