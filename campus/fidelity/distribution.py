"""Published cases on 2026-2028 racks and DC power distribution (docs/fidelity.md, "Racks and distribution")."""

from __future__ import annotations

import dataclasses
from functools import cache

from campus.analysis.distribution import copper_relative_to_ac
from campus.analysis.power import baseline_rollup
from campus.fidelity.campuses import generated_rack_kw
from campus.fidelity.scorecard import Case, relative
from campus.interchange.generator import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

NVIDIA_800VDC = (
    "NVIDIA Technical Blog, 'NVIDIA 800 VDC Architecture Will Power the Next Generation of AI Factories' "
    "(2025-05)"
)


@cache
def _chain_input_kw(architecture: str) -> float:
    """What the power chain of a generated 2N GB300 campus (576 GPUs, 8 NVL72 racks) draws for its racks alone
    (cooling taken out, so both architectures carry exactly the same load)."""
    snap = spec_snapshot(
        generate_spec("fidelity", gpus=576, gpu_model="gb300", power_architecture=architecture)
    )
    return baseline_rollup(dataclasses.replace(snap, cooling_units=(), cooling_plants=())).total_input_kw


def _dc800_saving_pct() -> float:
    return 100.0 * (1.0 - _chain_input_kw("dc-800") / _chain_input_kw("ac"))


CASES: list[Case] = [
    Case(
        "vr200-nvl144-rack-power",
        "power",
        "Vera Rubin NVL144 rack IT power (generated reference design)",
        "kW",
        "NVIDIA GTC 2025 (2025-03) and SemiAnalysis (2025): Vera Rubin NVL144 ~190-230 kW per rack, "
        "by efficiency or peak tuning",
        "190-230 kW",
        190.0,
        230.0,
        "range",
        twin=lambda: generated_rack_kw("vr200"),
    ),
    Case(
        "rubin-ultra-kyber-rack-power",
        "power",
        "Rubin Ultra NVL576 Kyber rack IT power (generated reference design)",
        "kW",
        "NVIDIA GTC 2025 roadmap (2025-03): Rubin Ultra NVL576 in the Kyber rack, ~600 kW",
        "600 kW",
        *relative(600.0, 0.10),
        twin=lambda: generated_rack_kw("rubin-ultra"),
    ),
    Case(
        "dc-800-efficiency-gain",
        "power",
        "power drawn for the same racks, 800 VDC against AC distribution (saving)",
        "%",
        f"{NVIDIA_800VDC}: up to 5 % end-to-end efficiency; SemiAnalysis (2025): ~5 % of facility power",
        "up to 5 %",
        2.0,
        5.0,
        "2-5 % (the rack's own conversion is outside the twin's chain)",
        twin=_dc800_saving_pct,
    ),
    Case(
        "dc-800-copper-reduction",
        "power",
        "conductor copper per kW, 800 VDC against 415 VAC (reduction)",
        "%",
        f"{NVIDIA_800VDC}: ~45 % less copper",
        "45 %",
        35.0,
        55.0,
        "35-55 %",
        twin=lambda: 100.0 * (1.0 - copper_relative_to_ac("dc-800")),
    ),
]
