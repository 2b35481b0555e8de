"""The bill of materials of synthetic campuses: how long it takes and what it comes to (a table, not a test).

Usage: .venv/bin/python bench/bench_bom.py
Prints one row per campus size: the time of ``campus_bom`` whole and grouped by hall (best of 3), its lines,
and the capex by category. docs/capex.md ("Cross-checks") quotes the 100k row.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.bom import CATEGORIES, campus_bom  # noqa: E402
from campus.analysis.synthetic import synthetic_campus  # noqa: E402


def best_ms(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000.0


def main() -> None:
    print(
        "| GPUs | BOM ms | by hall ms | lines | lines by hall | "
        + " | ".join(f"{c} $B" for c in CATEGORIES)
        + " | total $B |"
    )
    print("|---:" * (6 + len(CATEGORIES)) + "|")
    for gpus in (10_000, 100_000, 1_000_000):
        snap = synthetic_campus(gpus)
        whole = campus_bom(snap)
        by_hall = campus_bom(snap, "hall")
        capex = whole.capex_usd()
        cells = [
            f"{gpus:,}",
            f"{best_ms(lambda s=snap: campus_bom(s)):.0f}",
            f"{best_ms(lambda s=snap: campus_bom(s, 'hall')):.0f}",
            f"{len(whole.lines)}",
            f"{len(by_hall.lines)}",
            *(f"{capex[c] / 1e9:.3f}" for c in CATEGORIES),
            f"{capex['total'] / 1e9:.3f}",
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
