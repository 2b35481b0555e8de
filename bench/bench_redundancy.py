"""Figures of the generator's redundancy options on one design (a table for the docs, not a test).

Usage: .venv/bin/python bench/bench_redundancy.py [gpus]   (default 4,096 H100, liquid, Ashburn)
Prints one row per power x cooling redundancy: installed UPS capacity and what of it the
critical load leaves unused (held for redundancy and the 80 % planning limit), transformer capacity, cooling units and
plants, single points of failure (power, cooling), stranded capacity, failover headroom and equipment
capex. docs/generator.md ("Redundancy") records the table.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campus.analysis.capex import infrastructure_capex, installed_capacity  # noqa: E402
from campus.analysis.energy import it_breakdown  # noqa: E402
from campus.analysis.headroom import failover_headroom  # noqa: E402
from campus.analysis.power import baseline_rollup  # noqa: E402
from campus.analysis.redundancy import redundancy_check, single_points_by_domain  # noqa: E402
from campus.analysis.stranded import stranded_capacity  # noqa: E402
from campus.interchange.generate import generate  # noqa: E402
from campus.interchange.generator.common import COOLING_REDUNDANCY, POWER_REDUNDANCY  # noqa: E402
from campus.interchange.spec_snapshot import spec_snapshot  # noqa: E402


def main(gpus: int) -> None:
    print(
        "| power | cooling | IT MW | UPS MW | UPS reserve MW | transformer MW | units / plants MW | SPOF power "
        "| SPOF cooling | stranded MW | headroom after failover MW | capex power $M | capex cooling $M |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for pr, cr in itertools.product(POWER_REDUNDANCY, COOLING_REDUNDANCY):
        snap = spec_snapshot(generate("R", gpus=gpus, power_redundancy=pr, cooling_redundancy=cr).spec)
        cap = installed_capacity(snap)
        points = single_points_by_domain(redundancy_check(snap))
        stranded = stranded_capacity(snap).campus
        headroom = failover_headroom(snap).campus.headroom_kw or 0.0
        capex = infrastructure_capex(snap)
        ups_load = sum(
            baseline_rollup(snap).device_load_kw[d.id] for d in snap.power_devices if d.kind == "ups"
        )
        reserve = cap.power_kw.get("ups", 0) - ups_load
        units = sum(cap.cooling_units_kw.values()) / 1000
        plants = sum(cap.plants_kw.values()) / 1000
        print(
            f"| {pr} | {cr} | {it_breakdown(snap).it_kw / 1000:.2f} | {cap.power_kw.get('ups', 0) / 1000:.1f} "
            f"| {reserve / 1000:.1f} | {cap.power_kw.get('transformer', 0) / 1000:.1f} | {units:.1f} / {plants:.1f} "
            f"| {len(points['power'])} | {len(points['cooling'])} | {stranded.stranded_kw / 1000:.2f} "
            f"| {headroom / 1000:.2f} | {capex.power_usd / 1e6:.2f} | {capex.cooling_usd / 1e6:.2f} |"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4096)
