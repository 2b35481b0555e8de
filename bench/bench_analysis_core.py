"""Timings of the pure analytics core on synthetic campuses (a benchmark, not a test).

Usage: .venv/bin/python bench/bench_analysis_core.py [gpus ...]
Prints one table per campus size: the median of several runs of each call, wall and CPU milliseconds.
"cold" calls get a fresh snapshot object, so the cached power graph is rebuilt.

       .venv/bin/python bench/bench_analysis_core.py --campus NAME [NAME ...]
The parts of one cold campus summary (``GET /api/campuses/{id}/summary/`` without its caches) of campuses in
the database (``DATABASE_URL``; e.g. ``manage.py generate_campus --name bench-1m --gpus 1000000``): the
snapshot read, then each analysis in the order the summary meets it, each on what the earlier ones cached
(the power graph, the failover headroom), and the rest of the summary. One run each, wall and CPU seconds.

       .venv/bin/python bench/bench_analysis_core.py --headroom [gpus ...] [--reference]
Only the failover headroom on generated campuses (default 100k and 1M GPUs, the
generator's spec as a snapshot in memory, no database), with ``--reference`` also the per-scenario re-solve
it replaced (``tests/analysis/headroom_reference.py``; about 20 s at 1M).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.cards import rack_metrics  # noqa: E402
from campus.analysis.cooling import cooling_balance  # noqa: E402
from campus.analysis.energy import it_breakdown  # noqa: E402
from campus.analysis.fabric import fabric_from_inventory  # noqa: E402
from campus.analysis.headroom.chain import _compute  # noqa: E402
from campus.analysis.headroom.scenarios import failure_scenarios  # noqa: E402
from campus.analysis.impact import impact  # noqa: E402
from campus.analysis.power import power_graph, rollup  # noqa: E402
from campus.analysis.redundancy import redundancy_check  # noqa: E402
from campus.analysis.stranded import stranded_capacity  # noqa: E402
from campus.analysis.summary import campus_summary  # noqa: E402
from campus.analysis.synthetic import synthetic_campus  # noqa: E402
from campus.interchange.generate import generate  # noqa: E402
from campus.interchange.spec_snapshot import spec_snapshot  # noqa: E402


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


def campus_parts(name: str) -> None:
    """The cold summary of a campus in the database, part by part (wall and CPU seconds)."""
    from campus.analysis.cooling import cooling_balance
    from campus.analysis.facility import campus_facility_year
    from campus.analysis.headroom import failover_headroom
    from campus.analysis.power import baseline_rollup
    from campus.analysis.summary import campus_it
    from campus.models import Campus
    from campus.snapshot_adapter import build_snapshot

    campus = Campus.objects.get(name=name)
    build_snapshot(campus)  # warm the connection and the catalog's query plans
    rows: list[tuple[str, float, float]] = []
    snap = None

    def step(label: str, fn: Callable[[], object]) -> object:
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        rows.append((label, time.perf_counter() - t0, time.process_time() - c0))
        return out

    snap = step("snapshot build (build_snapshot)", lambda: build_snapshot(campus))
    step("fabric_from_inventory", lambda: fabric_from_inventory(snap))
    step("campus IT (other networks)", lambda: campus_it(snap))
    step("power graph (heat map, mechanical loads)", lambda: power_graph(snap))
    step("facility year (8,760 h)", lambda: campus_facility_year(snap, 1.0))
    step("baseline roll-up", lambda: baseline_rollup(snap))
    step("cooling balance", lambda: cooling_balance(snap))
    step("failover headroom", lambda: failover_headroom(snap))
    step("stranded capacity", lambda: stranded_capacity(snap))
    step("redundancy_check", lambda: redundancy_check(snap))
    step("rest of campus_summary", lambda: campus_summary(snap, include_redundancy=False))
    total_wall = sum(w for _, w, _ in rows)
    total_cpu = sum(c for _, _, c in rows)
    gpus = sum(sum(snap.rack_gpus(r).values()) for r in snap.racks)
    print(
        f"\n{name}: {gpus:,} GPUs, {len(snap.buildings)} buildings, {len(snap.halls)} halls, "
        f"{len(snap.racks):,} racks, {len(snap.power_devices):,} power devices, {len(snap.power_feeds):,} feeds, "
        f"{len(snap.cooling_units):,} cooling units, {len(snap.links):,} link bundles"
    )
    width = max(len(label) for label, _, _ in rows)
    print(f"{'part'.ljust(width)}  wall s   CPU s")
    print(f"{'-' * width}  ------  ------")
    for label, wall, cpu in rows + [("cold summary, total", total_wall, total_cpu)]:
        print(f"{label.ljust(width)}  {wall:6.2f}  {cpu:6.2f}")


def bench_headroom(sizes: list[int], with_reference: bool) -> None:
    """Failover headroom on generated campuses: CPU and wall ms of one uncached solve (the power graph and
    its baseline warm, as the summary has them), beside the reference when asked."""
    print("\n| GPUs | racks | devices | feeds | scenarios | solve | wall ms | CPU ms |")
    print("|---:|---:|---:|---:|---:|---|---:|---:|")
    for gpus in sizes:
        snap = spec_snapshot(generate("B", gpus=gpus).spec)
        g = power_graph(snap)
        g.baseline()
        solves = [("incremental", _compute)]
        if with_reference:
            from tests.analysis.headroom_reference import _compute as reference

            solves.append(("per-scenario re-solve (reference)", reference))
        for name, solve in solves:
            scenarios = len(failure_scenarios(g)) + 1
            wall, cpu = timed(lambda solve=solve, g=g: solve(g), 3 if name == "incremental" else 1)
            print(
                f"| {gpus:,} | {len(snap.racks):,} | {len(snap.power_devices):,} | {len(snap.power_feeds):,} "
                f"| {scenarios:,} | {name} | {wall:,.0f} | {cpu:,.0f} |",
                flush=True,
            )


def main() -> None:
    if sys.argv[1:2] == ["--campus"]:
        import os

        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")
        django.setup()
        print(
            f"python {sys.version.split()[0]}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        for name in sys.argv[2:]:
            campus_parts(name)
        return
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)
        return
    if "--headroom" in sys.argv[1:]:
        args = sys.argv[1:]
        sizes = [int(a) for a in args if a.isdigit()] or [100_000, 1_000_000]
        bench_headroom(sizes, "--reference" in args)
        return
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
