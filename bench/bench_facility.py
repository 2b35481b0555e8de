"""Timings of the facility year (the plant and the weather, 8,760 hours) on generated campuses (a benchmark,
not a test).

Usage: .venv/bin/python bench/bench_facility.py [gpus ...]   (default: 8192 100000)
Prints one row per campus and climate: the median of several runs, wall and CPU milliseconds, of
``facility_year`` with the snapshot's power graph and baseline roll-up warm (they are shared with the
summary), and the first, cold call; then the figures of the year.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.facility import facility_year  # noqa: E402
from campus.analysis.power import baseline_rollup  # noqa: E402
from campus.analysis.weather import reference_year  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.interchange.spec_snapshot import spec_snapshot  # noqa: E402

CLIMATES = ("dublin-ie", "ashburn-us", "phoenix-us", "singapore-sg")


def timed(fn, repeat: int = 5) -> tuple[float, float]:
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1000.0, statistics.median(cpu) * 1000.0


def main(sizes: list[int]) -> None:
    print(
        f"{'GPUs':>8} {'cooling':>7} {'climate':>13} {'devices':>7} {'plants':>6} {'cold ms':>8} "
        f"{'warm ms':>8} {'cpu ms':>7} {'IT MW':>7} {'PUE':>6} {'peak MW':>8} {'WUE L/kWh':>9} {'short h':>7}"
    )
    for gpus in sizes:
        for cooling in ("liquid", "air"):
            snap = spec_snapshot(generate_spec(f"bench {gpus}", gpus=gpus, cooling=cooling))
            baseline_rollup(snap)  # shared with the summary; the engine time is the year itself
            for climate in CLIMATES:
                w = reference_year(climate)
                fresh = replace(snap)  # a new object: a cold power-graph cache
                t0 = time.perf_counter()
                facility_year(fresh, w.dry_bulb_c, w.wet_bulb_c)
                cold_ms = (time.perf_counter() - t0) * 1000.0
                wall_ms, cpu_ms = timed(
                    lambda snap=snap, w=w: facility_year(snap, w.dry_bulb_c, w.wet_bulb_c)
                )
                fy = facility_year(snap, w.dry_bulb_c, w.wet_bulb_c)
                print(
                    f"{gpus:>8,} {cooling:>7} {climate:>13} {len(snap.power_devices):>7} "
                    f"{len(snap.cooling_plants):>6} {cold_ms:>8.0f} {wall_ms:>8.0f} {cpu_ms:>7.0f} "
                    f"{fy.it_mw[0]:>7.1f} {fy.energy_weighted_pue:>6.3f} {fy.peak_facility_mw:>8.1f} "
                    f"{fy.wue_l_per_kwh:>9.2f} {fy.hours_short:>7}"
                )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [8192, 100_000])
