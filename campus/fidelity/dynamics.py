"""Published and hand-calculated cases on the power dynamics of training (docs/fidelity.md explains each).

Each runs the scenario engine's ``power_dynamics`` kind on the synthetic 100,000-H100 campus at 100 ms.
"""

from __future__ import annotations

from functools import cache

from campus import catalog_data as cat
from campus.fidelity.campuses import synthetic_100k_h100
from campus.fidelity.scorecard import Case, relative
from simulations.engine.runner import prepare

NVIDIA_GB300 = (
    "NVIDIA Technical Blog, 'How New GB300 NVL72 Features Provide Steady Power for AI' (2025-07): PSU energy "
    "storage 'can smooth power spikes ... and reduce peak grid demand by up to 30%'"
)
CHOUKSE = "Choukse et al., 'Power Stabilization for AI Training Datacenters', arXiv 2508.14318 (2025)"

# The job of every case: the whole campus, 2 s iterations, 30 % of them communicating at 30 % of TDP.
JOB = {"iteration_seconds": 2.0, "comm_fraction": 0.3, "comm_power_fraction": 0.3}
IDLE = 0.12


def _metrics(**params) -> dict[str, float]:
    base = {
        "duration_seconds": 120.0,
        "events": [],
        "search": False,
        "jobs": [JOB],
        "idle_gpu_fraction": IDLE,
    }
    return prepare(synthetic_100k_h100(), "power_dynamics", {**base, **params}).run(0).metrics


@cache
def _facility_factor() -> float:
    """Facility watts per GPU watt on the synthetic campus: the PUE (the network and the other IT hold
    while the GPUs swing, docs/scenarios.md ``loads.py``)."""
    return synthetic_100k_h100().design_pue


def _gpus() -> int:
    snap = synthetic_100k_h100()
    return sum(snap.node_models[s].gpus_per_node * n for r in snap.racks for s, n in r.nodes)


H100_TDP_W = cat.gpu("h100-sxm")["tdp_w"]


def _swing_by_hand_mw() -> float:
    return _gpus() * H100_TDP_W * (1 - JOB["comm_power_fraction"]) * _facility_factor() / 1e6


def _crash_by_hand_mw() -> float:
    return _gpus() * H100_TDP_W * (1 - IDLE) * _facility_factor() / 1e6


def _crash_drop_mw() -> float:
    m = _metrics(jobs=[{**JOB, "comm_fraction": 0.0}], events=[{"kind": "job_crash", "at_seconds": 60.0}])
    return m["max_ramp_mw_per_s"]


def _floor_ratio(floor: float) -> float:
    return _metrics(smoothing={"floor_fraction": floor})["swing_mw"] / _metrics()["swing_mw"]


def _storage_peak_cut() -> float:
    """Peak grid demand cut by rack energy storage big enough to carry a whole iteration, for a job whose
    GPUs drop to idle while communicating (the blog's 'idle and high-power states')."""
    job = {**JOB, "comm_power_fraction": IDLE}
    # a step of TDP (1 - idle) for the whole 2 s iteration: E = dP x 2 s per GPU, trailing mean over >= 4 s
    storage_j = H100_TDP_W * (1 - IDLE) * 2.0 * JOB["iteration_seconds"]
    bare = _metrics(jobs=[job])["peak_grid_mw"]
    held = _metrics(jobs=[job], rack_storage_j_per_gpu=storage_j)["peak_grid_mw"]
    return 1.0 - held / bare


CASES: list[Case] = [
    Case(
        "dynamics-swing-100k-h100",
        "grid dynamics",
        "swing at the grid of a 100k-H100 job: GPUs x TDP x (1 - comm power) x PUE",
        "MW",
        f"by hand from the catalog (H100 700 W) and the campus's PUE; the swing's origin: {CHOUKSE}, §2",
        f"{_swing_by_hand_mw():.1f} (hand)",
        *relative(_swing_by_hand_mw(), 0.001),
        twin=lambda: _metrics()["swing_mw"],
    ),
    Case(
        "dynamics-crash-within-1s",
        "grid dynamics",
        "power lost within 1 s when a 100k-H100 job crashes (TDP to idle, with the facility overhead)",
        "MW",
        "by hand: GPUs x TDP x (1 - idle 0.12) x PUE",
        f"{_crash_by_hand_mw():.1f} (hand)",
        *relative(_crash_by_hand_mw(), 0.001),
        twin=_crash_drop_mw,
    ),
    Case(
        "dynamics-floor-cuts-swing",
        "grid dynamics",
        "swing with a power floor of 0.6 TDP over the swing without (c = 0.3): (1 - f) / (1 - c)",
        "ratio",
        "by hand: the floor lifts the communication phase to f x TDP; GB300 power smoothing floor (NVIDIA, 2025)",
        "0.5714",
        *relative(0.4 / 0.7, 0.001),
        twin=lambda: _floor_ratio(0.6),
    ),
    Case(
        "gb300-storage-peak-demand",
        "grid dynamics",
        "peak grid demand cut by rack energy storage carrying a whole iteration (GPUs idle in communication)",
        "fraction",
        NVIDIA_GB300,
        "up to 0.30",
        0.05,
        0.30,
        "0.05-0.30 (a bound)",
        twin=_storage_peak_cut,
    ),
]
