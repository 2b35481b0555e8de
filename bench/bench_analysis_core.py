"""Timings of the pure analytics core on synthetic campuses (a benchmark, not a test).

Usage: .venv/bin/python bench/bench_analysis_core.py [gpus ...]
Prints one table per campus size: the median of several runs of each call, wall and CPU milliseconds.
"cold" calls get a fresh snapshot object, so the cached power graph is rebuilt.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.cooling import cooling_balance  # noqa: E402
from campus.analysis.energy import it_breakdown  # noqa: E402
from campus.analysis.fabric import fabric_from_inventory  # noqa: E402
from campus.analysis.headroom import _compute  # noqa: E402
from campus.analysis.impact import impact  # noqa: E402
from campus.analysis.power import power_graph, rollup  # noqa: E402
from campus.analysis.redundancy import redundancy_check  # noqa: E402
from campus.analysis.stranded import stranded_capacity  # noqa: E402
from campus.analysis.summary import campus_summary, rack_metrics  # noqa: E402
from campus.analysis.synthetic import synthetic_campus  # noqa: E402


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds; CPU time is the steadier figure on a shared machine."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1000.0, statistics.median(cpu) * 1000.0


def bench(label: str, build: Callable[[], object], repeat: int = 5) -> None:
    t0, c0 = time.perf_counter(), time.process_time()
    snap = build()
    build_ms = ((time.perf_counter() - t0) * 1000.0, (time.process_time() - c0) * 1000.0)
    ups = next(d.id for d in snap.power_devices if d.kind == "ups")
    sub = next(d.id for d in snap.power_devices if d.kind == "substation")
    unit = snap.cooling_units[0].id
    rollup(snap)  # warm the power graph and its baseline
    rows = [
        ("build synthetic snapshot", build_ms),
        ("rollup (cold: graph + baseline)", timed(lambda: rollup(replace(snap)), repeat)),
        ("rollup (warm)", timed(lambda: rollup(snap), repeat)),
        ("rollup, one UPS failed", timed(lambda: rollup(snap, failed=frozenset({ups})), repeat)),
        ("rollup, substation failed", timed(lambda: rollup(snap, failed=frozenset({sub})), repeat)),
        ("redundancy_check (every device)", timed(lambda: redundancy_check(snap), repeat)),
        ("failover_headroom (every scenario, uncached)", timed(lambda: _compute(power_graph(snap)), repeat)),
        ("stranded_capacity (headroom cached)", timed(lambda: stranded_capacity(snap), repeat)),
        ("it_breakdown", timed(lambda: it_breakdown(snap), repeat)),
        ("cooling_balance", timed(lambda: cooling_balance(snap), repeat)),
        ("fabric_from_inventory", timed(lambda: fabric_from_inventory(snap), repeat)),
        ("campus_summary (warm)", timed(lambda: campus_summary(snap), repeat)),
        ("campus_summary (cold)", timed(lambda: campus_summary(replace(snap)), repeat)),
        ("rack_metrics (all racks)", timed(lambda: rack_metrics(snap), repeat)),
        ("impact: UPS", timed(lambda: impact(snap, ups), repeat)),
        ("impact: cooling unit", timed(lambda: impact(snap, unit, "cooling"), repeat)),
    ]
    gpus = sum(sum(snap.rack_gpus(r).values()) for r in snap.racks)
    print(
        f"\n{label}: {gpus:,} GPUs, {len(snap.racks):,} racks, {len(snap.power_devices):,} power devices, "
        f"{len(snap.power_feeds):,} feeds, {len(snap.switches):,} switch groups, {len(snap.links):,} link bundles"
    )
    width = max(len(name) for name, _ in rows)
    print(f"{'call'.ljust(width)}  wall ms   CPU ms")
    print(f"{'-' * width}  -------  -------")
    for name, (wall, cpu) in rows:
        print(f"{name.ljust(width)}  {wall:7.1f}  {cpu:7.1f}")


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000]
    print(f"python {sys.version.split()[0]}")
    for gpus in sizes:
        bench(f"{gpus:,}-GPU campus, 4 servers per rack", lambda gpus=gpus: synthetic_campus(gpus))
    # one server per rack: ~12.5k racks and ~25k feeds for 100k GPUs, the heavy end of the power graph
    top = max(sizes)
    bench(
        f"{top:,}-GPU campus, 1 server per rack",
        lambda: synthetic_campus(top, nodes_per_rack=1, racks_per_row=32, racks_per_hall=512),
    )


if __name__ == "__main__":
    main()
