"""power_dynamics benchmark: a synthetic 100k-GPU campus, 24 h at 100 ms (864,000 steps), with and without the
sizing searches; time, steps per second, times real time, the peak of traced memory against the simulated
time (flat: the full resolution is streamed) and the process's peak RSS. Optionally ExaDigiT RAPS (ORNL's
Frontier digital twin) on a machine of the same GPU count, at the same ticks, side by side.

    .venv/bin/python bench/bench_power_dynamics.py [--gpus 100000] [--hours 24] [--resolution-ms 100]
        [--raps /path/to/raps/venv/bin/raps --raps-dir /path/to/RAPS]

RAPS is not part of the project: install it in a scratch folder of its own (it needs Python >= 3.12; its
reinforcement-learning extras are not needed) and pass its command and source folder; without them the RAPS
rows are skipped. RAPS's start-up (imports, building the system) is taken out by running two simulated spans
and reporting the difference. Prints tables; asserts nothing (timings depend on the machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from campus.analysis.synthetic import synthetic_campus  # noqa: E402
from simulations.engine.runner import prepare  # noqa: E402

# RAPS's Frontier node holds 4 GPUs, 3 racks of 128 nodes per CDU (its config/frontier.yaml, one rack missing).
RAPS_GPUS_PER_NODE = 4
RAPS_NODES_PER_CDU = 3 * 128


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def ours(gpus: int, hours: float, resolution_ms: float) -> list[dict]:
    snap = synthetic_campus(gpus)
    rows = []
    runs = [
        (1.0, resolution_ms, False),
        (6.0, resolution_ms, False),
        (hours, resolution_ms, False),
        (hours, resolution_ms, True),
        (hours, 15_000.0, False),  # RAPS's usual tick (iterations of 60 s: a swing needs two ticks)
    ]
    for dur_h, res_ms, search in runs:
        params = {"duration_seconds": dur_h * 3600.0, "resolution_ms": res_ms, "search": search}
        if res_ms > 1000.0:
            params["jobs"] = [{"iteration_seconds": 4 * res_ms / 1000.0}]
            params["requirements"] = {"band_hz": [0.001, 0.01]}
        prepared = prepare(snap, "power_dynamics", params)
        t0 = time.perf_counter()
        result = prepared.run(0)
        wall = time.perf_counter() - t0
        peak_mb = None
        if not search and res_ms == resolution_ms:
            # memory in a second run: tracing slows numpy down several times
            tracemalloc.start()
            prepared.run(0)
            peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        steps = prepared.plan.steps
        rows.append(
            {
                "what": f"{dur_h:g} h at {res_ms:g} ms" + (" + searches" if search else ""),
                "steps": steps,
                "wall_s": wall,
                "steps_per_s": steps / wall,
                "x_real_time": dur_h * 3600.0 / wall,
                "traced_peak_mb": peak_mb,
                "metrics": result.metrics,
            }
        )
    return rows


def _raps_once(cmd: list[str], cwd: str | None) -> tuple[float, float, float | None]:
    """(wall s, CPU s, peak RSS MB) of one RAPS run in a child process (the RSS through GNU time, if any)."""
    timer = ["/usr/bin/time", "-f", "MAXRSS_KB=%M"] if os.path.exists("/usr/bin/time") else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([*timer, *cmd], cwd=cwd, capture_output=True, text=True, timeout=1800, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-1500:] or out.stdout[-1500:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = [line.split("=", 1)[1] for line in out.stderr.splitlines() if line.startswith("MAXRSS_KB=")]
    return wall, cpu, float(rss[-1]) / 1024.0 if rss else None


def raps(
    raps_cmd: str, cwd: str | None, gpus: int, tick: str, unit: str, spans_s: tuple[float, float]
) -> dict:
    """RAPS on ``gpus`` GPUs of Frontier nodes for two simulated spans; the rate is the difference."""
    cdus = -(-gpus // (RAPS_GPUS_PER_NODE * RAPS_NODES_PER_CDU))
    base = [raps_cmd, "run", "--system", "frontier", f"--system.system.num-cdus={cdus}", "--workload", "peak"]
    base += ["--time-delta", tick, "--time-unit", unit, "--noui", "--output", "none"]
    short, long = (_raps_once([*base, "--time", f"{int(s)}s"], cwd) for s in spans_s)
    extra_s = spans_s[1] - spans_s[0]
    return {
        "what": f"RAPS {cdus * RAPS_NODES_PER_CDU * RAPS_GPUS_PER_NODE:,} GPUs, tick {tick}",
        "spans": f"{spans_s[0]:g} s / {spans_s[1]:g} s",
        "wall": (short[0], long[0]),
        "x_real_wall": extra_s / max(1e-9, long[0] - short[0]),
        "x_real_cpu": extra_s / max(1e-9, long[1] - short[1]),
        "rss_mb": (short[2], long[2]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=100_000)
    ap.add_argument("--hours", type=float, default=24.0)
    ap.add_argument("--resolution-ms", type=float, default=100.0)
    ap.add_argument("--raps", default=os.environ.get("RAPS_CMD"), help="the raps command of a RAPS install")
    ap.add_argument("--raps-dir", default=os.environ.get("RAPS_DIR"), help="RAPS's source folder (its cwd)")
    args = ap.parse_args()

    rows = ours(args.gpus, args.hours, args.resolution_ms)
    print(f"\npower_dynamics, synthetic campus of {args.gpus:,} GPUs, {args.resolution_ms:g} ms steps")
    print(f"{'run':<36} {'steps':>9} {'wall s':>8} {'steps/s':>11} {'x real':>9} {'traced peak MB':>15}")
    for r in rows:
        peak = f"{r['traced_peak_mb']:.1f}" if r["traced_peak_mb"] is not None else "-"
        print(
            f"{r['what']:<36} {r['steps']:>9,} {r['wall_s']:>8.2f} {r['steps_per_s']:>11,.0f} "
            f"{r['x_real_time']:>9,.0f} {peak:>15}"
        )
    print(f"process peak RSS: {_rss_mb():.0f} MB")
    m = rows[3]["metrics"]
    print(
        "figures: swing {swing_mw:.2f} MW, max ramp {max_ramp_mw_per_s:.2f} MW/s, {max_ramp_mw_per_min:.2f} "
        "MW/min, band amplitude {band_amplitude_mw:.2f} MW, mean grid {mean_grid_mw:.1f} MW".format(**m)
    )
    floor, bess = m.get("min_floor_to_comply"), m.get("min_bess_mw_to_comply")
    print(
        "min floor to comply: "
        + ("none up to 1" if floor != floor else f"{floor:.3f}")  # NaN: nothing complies
        + ", min battery to comply: "
        + ("none up to the bound" if bess != bess else f"{bess:.1f} MW")
    )

    if not (args.raps and os.path.exists(args.raps)):
        print("\nRAPS: skipped (give --raps, or RAPS_CMD: the raps command of a RAPS install)")
        return
    print(f"\nExaDigiT RAPS, the same GPU count ({args.gpus:,}) on Frontier nodes, 'peak' workload")
    print(
        f"{'run':<34} {'spans':>16} {'wall s':>14} {'x real (wall)':>14} {'x real (CPU)':>13} {'peak RSS MB':>14}"
    )
    for tick, unit, spans in (("1ds", "ds", (30.0, 120.0)), ("15s", "s", (3600.0, 21600.0))):
        try:
            r = raps(args.raps, args.raps_dir, args.gpus, tick, unit, spans)
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"RAPS at {tick} failed: {exc}")
            continue
        print(
            f"{r['what']:<34} {r['spans']:>16} {r['wall'][0]:>6.1f} /{r['wall'][1]:>6.1f} {r['x_real_wall']:>14,.1f} "
            f"{r['x_real_cpu']:>13,.1f} {r['rss_mb'][0] or 0:>6.0f} /{r['rss_mb'][1] or 0:>6.0f}"
        )


if __name__ == "__main__":
    main()
