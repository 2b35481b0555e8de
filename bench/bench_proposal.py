"""Where an expansion proposal's time goes, on generated campuses (pure core, no database).

    .venv/bin/python bench/bench_proposal.py [--sizes 36864,100000]

Per size: the placement of 40 racks of 8-GPU H100 servers (nothing fitting makes a proposal), then the
proposal itself, timed by its own progress reports (``propose(progress=...)``): the halls ranked (one
placement each, on the campus as it stands) and, per hall grown, the rounds (a placement on the grown
snapshot each: its power graph, failover headroom, cooling balance and fabric are worked out again, since
the grown campus is a new snapshot). Prints a table; asserts nothing. docs/performance.md records a run.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.scratch import sizes_argument  # noqa: E402
from campus.analysis.placement import PlacementRequest, place  # noqa: E402
from campus.analysis.placement.proposal import propose  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.interchange.spec_snapshot import spec_snapshot  # noqa: E402


def run(gpus: int) -> dict:
    snap = spec_snapshot(generate_spec(f"Bench proposal {gpus}", gpus))
    req = PlacementRequest("hgx-h100-8", 40)
    t0 = time.perf_counter()
    place(snap, req)
    placed = time.perf_counter() - t0
    marks: list[tuple[float, str]] = []
    t0 = time.perf_counter()
    result = propose(snap, req, progress=lambda share, stage: marks.append((time.perf_counter() - t0, stage)))
    total = time.perf_counter() - t0
    ranked = max((t for t, stage in marks if stage.startswith("ranking")), default=0.0)
    grow_start = next((t for t, stage in marks if stage.startswith("growing")), total)
    rounds = sum(1 for _, stage in marks if stage.startswith("growing"))
    return {
        "gpus": gpus,
        "halls": len(snap.halls),
        "place s": placed,
        "rank s": grow_start if ranked else 0.0,
        "rounds": rounds,
        "grow s": total - grow_start,
        "s per round": (total - grow_start) / rounds if rounds else 0.0,
        "proposal s": total,
        "feasible": result["feasible"],
    }


def main() -> None:
    sizes = sizes_argument(__doc__, "36864,100000")
    print(f"expansion proposal, 40 racks ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    print(
        "| GPUs | halls | placement s | halls ranked s | rounds | grown s | s per round | proposal s | fits |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for gpus in sizes:
        r = run(gpus)
        print(
            f"| {r['gpus']:,} | {r['halls']} | {r['place s']:.2f} | {r['rank s']:.2f} | {r['rounds']} "
            f"| {r['grow s']:.2f} | {r['s per round']:.2f} | {r['proposal s']:.2f} | {r['feasible']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
