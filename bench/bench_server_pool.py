"""failure_cascade's server-pool walk on AIReSim's reference case (4,096 servers, 16 warm standbys, a
spare pool of 200, 15 % bad servers, a repair pipeline, 256 days of work; docs/fidelity.md), and the class
walk's 2N campus with facility failures combining, and its renewal walk (time to train, Weibull times):
replicas per second and events per second.

    .venv/bin/python bench/bench_server_pool.py [--replicas 10]

Prints a table; asserts nothing (timings depend on the machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from campus.analysis.synthetic import synthetic_campus  # noqa: E402
from campus.fidelity.campuses import servers  # noqa: E402
from campus.fidelity.cluster import AIRESIM_TABLE1  # noqa: E402
from simulations.engine.runner import prepare, replica_seed  # noqa: E402


def _time(prepared, replicas: int) -> tuple[float, int, float]:
    t0 = time.perf_counter()
    events = 0
    ettr = 0.0
    for i in range(replicas):
        r = prepared.run(replica_seed(1, i))
        events += r.events
        ettr += r.metrics["ettr"]
    return time.perf_counter() - t0, events, ettr / replicas


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=10)
    args = ap.parse_args()
    rows = []
    pool = prepare(servers({"dgx-h100": 4360}), "failure_cascade", AIRESIM_TABLE1)
    rows.append(("server pool, AIReSim Table 1 (to the end of 256 d of work)", *_time(pool, args.replicas)))
    snap = synthetic_campus(16_384)
    for label, extra in (
        ("class walk, 16k-GPU 2N campus, 365 d", {}),
        (
            "  same, UPS/PDU MTBF 10 h, 48 h repairs (outages combine)",
            {
                "rate_overrides": {"ups": 10.0, "pdu": 10.0},
                "repair_hours_overrides": {"ups": 48.0, "pdu": 48.0},
            },
        ),
        ("  same, no failures during recovery (per-event walk)", {"failures_during_recovery": False}),
        ("  same, to the end of 300 d of work (renewal walk)", {"work_days": 300}),
        ("  same, Weibull k = 1.5 (renewal walk)", {"failure_distribution": "weibull", "weibull_shape": 1.5}),
    ):
        prepared = prepare(snap, "failure_cascade", {"duration_days": 365, **extra})
        prepared.run(replica_seed(1, 999))  # warm the facility impact tables
        rows.append((label, *_time(prepared, args.replicas)))
    print(f"{'case':<62} {'replicas/s':>10} {'events/s':>12} {'ETTR':>7}")
    for label, secs, events, ettr in rows:
        print(f"{label:<62} {args.replicas / secs:>10.2f} {events / secs:>12,.0f} {ettr:>7.3f}")


if __name__ == "__main__":
    main()
