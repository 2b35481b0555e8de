"""Campus electrical load and job throughput as functions of GPU power caps.

The campus is reduced to groups of identical servers (one per pod and server model). A group's power is
linear in its GPUs' cap; its throughput follows the GPU model's cap curve. IT power is the summary's
(``campus.analysis.summary.campus_it``, one source of truth): servers, the racks' itemised extras, the
network counted from the inventory and the allowance ``other_it_fraction`` for what is not inventoried
(``energy.it_total_kw``: IT = servers + itemised + servers x fraction / (1 - fraction)). Uncapped at full utilisation the scenarios' IT is the
summary's ``power.it_mw``.

Caps and utilisation scale the servers' GPU power only. The network and the other IT (storage, CPU nodes,
management) are held at their full-load figure: switches and storage do not draw less because the GPUs
are capped, so IT = servers(caps) + racks' extras + network + other IT.

Facility power = IT x PUE: the annual energy-weighted PUE for energy and means (``facility_kw``), the PUE
of the hour of peak facility power for peaks and the grid connection (``peak_facility_kw``); the two are
one figure when the PUE is typed (``facility.campus_pue``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from campus.analysis.energy import ItBreakdown, it_breakdown
from campus.analysis.facility import campus_pue
from campus.analysis.job_compute import campus_mfu
from campus.analysis.snapshot import CampusSnapshot, GpuSpec
from campus.analysis.summary import campus_it
from simulations.engine.job import cap_throughput_fraction, peak_tflops

DEAD_RACK_STATUSES = frozenset({"failed", "offline", "decommissioned"})


@dataclass(frozen=True)
class ServerGroup:
    pod_id: int | None
    node_slug: str
    gpu: GpuSpec
    nodes: int
    gpus: int
    node_fixed_w: float  # overhead + extra NIC power per node (× the campus's server_overhead_scale), W
    nominal_tflops: float  # sustained at full power: gpus x peak x MFU

    @property
    def gpu_tdp_kw(self) -> float:
        return self.gpus * self.gpu.tdp_w / 1000.0

    @property
    def fixed_kw(self) -> float:
        return self.nodes * self.node_fixed_w / 1000.0


@dataclass(frozen=True)
class CampusLoad:
    groups: tuple[ServerGroup, ...]
    extra_it_kw: float  # in-rack extras
    network_kw: float  # switches and transceivers (the inventory's), held at full load
    other_it_kw: float  # the allowance (other_it_fraction) at full load, held
    pue: float  # annual, energy-weighted: energy and means
    peak_pue: float | None = None  # the hour of peak facility power: peaks and the grid (None: ``pue``)
    storage_kw: float = 0.0  # storage systems (campus.analysis.storage_power), held
    job: dict = field(default_factory=dict)  # the MFU the groups train at and its source (``campus_mfu``)

    @property
    def beyond_servers_kw(self) -> float:
        """IT outside the servers and the racks' extras (network, storage and other IT), constant, kW."""
        return self.network_kw + self.other_it_kw + self.storage_kw

    def it_kw(self, gpu_power_fraction: Sequence[float]) -> float:
        """IT power with each group's GPUs drawing the given fraction of TDP, kW."""
        servers = self.extra_it_kw
        for g, f in zip(self.groups, gpu_power_fraction, strict=True):
            servers += g.fixed_kw + g.gpu_tdp_kw * f
        return servers + self.beyond_servers_kw

    def facility_kw(self, gpu_power_fraction: Sequence[float]) -> float:
        """Facility power at the annual energy-weighted PUE (energy, means), kW."""
        return self.it_kw(gpu_power_fraction) * self.pue

    def peak_facility_kw(self, gpu_power_fraction: Sequence[float]) -> float:
        """Facility power in the hour of peak facility power (the grid connection's figure), kW."""
        pue = self.peak_pue if self.peak_pue is not None else self.pue
        return self.it_kw(gpu_power_fraction) * pue

    @property
    def nominal_tflops(self) -> float:
        return sum(g.nominal_tflops for g in self.groups)

    def throughput_tflops(
        self, speed: Sequence[float], scope: str = "pod", running: Sequence[bool] | None = None
    ) -> float:
        """Sustained TFLOPS given each group's speed fraction. Within a synchronous job (a pod, or the
        whole campus) every group runs at the pace of the slowest one; a paused group contributes nothing
        and, in a campus-wide job, stops the job."""
        if running is None:
            running = [True] * len(self.groups)
        if scope == "campus":
            if not all(running):
                return 0.0
            pace = min(speed, default=0.0)
            return pace * self.nominal_tflops
        pods: dict[int | None, list[int]] = {}
        for i, g in enumerate(self.groups):
            pods.setdefault(g.pod_id, []).append(i)
        total = 0.0
        for members in pods.values():
            live = [i for i in members if running[i]]
            if not live:
                continue
            pace = min(speed[i] for i in live)
            total += pace * sum(self.groups[i].nominal_tflops for i in live)
        return total


def campus_load(
    snap: CampusSnapshot,
    precision: str,
    mfu: float | None,
    utilization: float = 1.0,
    pue: float | None = None,
) -> CampusLoad:
    """Group the active servers of ``snap`` by (pod, server model). ``utilization`` scales both the GPU
    power and the work done (a GPU busy a fraction u of the time). ``mfu`` None: the campus's jobs' MFU
    from the hardware (``job_compute.campus_mfu``, the summary's ``compute.mfu``); a number overrides it."""
    job = campus_mfu(snap, precision, mfu)
    mfu = job["mfu"]
    counts: dict[tuple[int | None, str], int] = {}
    extra = 0.0
    for r in snap.racks:
        if r.status in DEAD_RACK_STATUSES:
            continue
        extra += r.extra_it_kw
        for slug, n in r.nodes:
            if n > 0:
                counts[(r.pod_id, slug)] = counts.get((r.pod_id, slug), 0) + n
    groups = []
    for (pod, slug), n in sorted(
        counts.items(), key=lambda kv: (kv[0][0] if kv[0][0] is not None else -1, kv[0][1])
    ):
        spec = snap.node_models[slug]
        gpu = snap.gpus[spec.gpu]
        gpus = n * spec.gpus_per_node
        groups.append(
            ServerGroup(
                pod_id=pod,
                node_slug=slug,
                gpu=gpu,
                nodes=n,
                gpus=gpus,
                node_fixed_w=snap.node_overhead_w(slug),  # the campus's calibrated overhead scale
                nominal_tflops=gpus * peak_tflops(gpu, precision) * mfu * utilization,
            )
        )
    # Utilization scales GPU power through the fraction handed to it_kw; the groups keep TDP.
    it = baseline_it(snap)
    resolved = campus_pue(snap, pue)
    return CampusLoad(
        tuple(groups),
        extra,
        it.network_kw,
        it.other_it_kw,
        resolved.pue,
        resolved.peak_pue,
        it.storage_kw,
        job,
    )


def baseline_it(snap: CampusSnapshot) -> ItBreakdown:
    """The campus IT at full load as the summary gives it (``summary.campus_it``), over the racks that run:
    racks failed, offline or decommissioned draw nothing (their servers and extras left out, the other IT
    worked out by the same rule over the rest); the network is the inventory's either way."""
    it = campus_it(snap)
    alive = tuple(r for r in snap.racks if r.status not in DEAD_RACK_STATUSES)
    if len(alive) == len(snap.racks):
        return it
    return it_breakdown(replace(snap, racks=alive), 1.0, network_kw=it.network_kw)


def speed_at_cap(gpu: GpuSpec, cap_fraction: float) -> float:
    """Throughput fraction of a GPU capped at ``cap_fraction`` of TDP (no cap above TDP)."""
    return cap_throughput_fraction(gpu, min(cap_fraction, 1.0))


def effective_cap(gpu: GpuSpec, cap_fraction: float) -> float:
    """The cap the driver actually applies: at least the part's minimum, at most TDP."""
    return min(max(cap_fraction, gpu.min_cap_fraction), 1.0)
