"""The hardware a training job sees: pools of one GPU model, their tiers, and where each parallel group lands.

A pool is a set of GPUs of one model with its scale-up domain (the GPUs one NVLink / Infinity Fabric domain
joins: an 8-GPU server, a 72-GPU NVL72 rack), its back-end NIC bandwidth per GPU, its island (the GPUs under
one full-bisection fat tree: a pod) and the oversubscription above the island (``PodSnap.oversubscription``).

Ranks are numbered TP fastest, then CP, EP, PP and DP slowest (Llama 3 §3.3.2 orders TP, CP, PP, DP; EP sits
inside the data-parallel ranks as in Megatron-LM). A group of ``n`` ranks ``stride`` apart therefore lands
inside the scale-up domain when ``stride x n`` fits in it, inside an island when it fits there, and across
islands otherwise; a group that spans several levels is split into them (``levels``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from campus.analysis.rackscale import whole_rack_nodes
from campus.analysis.snapshot import CampusSnapshot, GpuSpec
from campus.analysis.training.collectives import Level

# Fraction of the line rate NCCL collectives reach (bus bandwidth over link bandwidth). An estimate from
# nccl-tests on DGX H100 (all_reduce bus bandwidth ~360 of 450 GB/s per direction over NVLink, ~40 of 50 GB/s
# over NDR 400G InfiniBand), applied to every link.
BUS_EFFICIENCY = 0.8
# Latency of one step of a collective, s (estimates: NCCL small-message all-reduce latencies of a few
# microseconds inside an NVLink domain; InfiniBand/RoCE adds ~1 us per switch and the proxy thread).
ALPHA_SCALEUP_S = 2e-6
ALPHA_FABRIC_S = 6e-6
# Fabrics whose switches reduce in the network (InfiniBand SHARP v3 on Quantum-2 / Quantum-X800).
IN_NETWORK_FABRICS = ("infiniband-ndr", "infiniband-xdr")
FRONTEND_GBPS_PER_NODE = 400.0  # DGX H100: two 200G storage / in-band ports (NVIDIA DGX H100 user guide)
HOST_COPY_GB_S = (
    50.0  # GPU -> host memory per GPU, PCIe Gen5 x16 (64 GB/s line rate, ~80 % reached): estimate
)
TIERS = ("scale-up", "island", "campus")


@dataclass(frozen=True)
class Pool:
    gpu: GpuSpec
    gpus: int
    domain_gpus: int  # GPUs of one scale-up domain
    gpus_per_node: int
    nic_gbps_per_gpu: float  # back-end Gbit/s per GPU
    island_gpus: int  # GPUs under one full-bisection fabric
    oversubscription: float = 1.0  # above the island
    fabric: str = "infiniband-ndr"
    fabric_tiers: int = 2  # switch tiers inside the island
    frontend_gbps_per_node: float = FRONTEND_GBPS_PER_NODE
    name: str = ""

    @property
    def nodes(self) -> int:
        return math.ceil(self.gpus / self.gpus_per_node)

    @property
    def scaleup_bytes_s(self) -> float:
        # GpuSpec.scaleup_gbps is GB/s both directions together (900 GB/s for NVLink 4)
        return self.gpu.scaleup_gbps / 2.0 * 1e9 * BUS_EFFICIENCY

    @property
    def nic_bytes_s(self) -> float:
        return self.nic_gbps_per_gpu / 8.0 * 1e9 * BUS_EFFICIENCY

    @property
    def scaleup_in_network(self) -> bool:
        # NVLink SHARP arrived with the third-generation NVSwitch (H100, 900 GB/s NVLink 4)
        return self.gpu.vendor.lower() == "nvidia" and self.gpu.scaleup_gbps >= 900.0

    def tier_level(self, tier: str, ranks: float) -> Level:
        if tier == "scale-up":
            return Level(tier, ranks, self.scaleup_bytes_s, ALPHA_SCALEUP_S, 1, self.scaleup_in_network)
        sharp = self.fabric in IN_NETWORK_FABRICS
        if tier == "island":
            return Level(tier, ranks, self.nic_bytes_s, ALPHA_FABRIC_S, 2 * self.fabric_tiers - 1, sharp)
        bw = self.nic_bytes_s / max(self.oversubscription, 1.0)
        return Level(tier, ranks, bw, ALPHA_FABRIC_S, 2 * self.fabric_tiers + 1, sharp)


def tier_counts(pool: Pool, size: int, stride: int) -> dict[str, float]:
    """How many members of a group of ``size`` ranks ``stride`` apart share each tier."""
    if size <= 1:
        return {}
    d, isl = pool.domain_gpus, max(pool.island_gpus, pool.domain_gpus)
    n1 = min(size, max(1, d // stride)) if stride < d else 1
    span = stride * n1
    rest = size / n1
    n2 = min(rest, max(1, isl // span)) if span < isl else 1
    n3 = rest / n2
    return {t: n for t, n in zip(TIERS, (n1, n2, n3), strict=True) if n > 1}


def levels(pool: Pool, pieces: Iterable[tuple[int, int]]) -> list[Level]:
    """Levels of a group made of ``pieces`` (size, stride): e.g. the data-parallel group of dense weights is
    the CP ranks, the EP ranks and the outer DP ranks together. Members on one tier multiply."""
    counts: dict[str, float] = {}
    for size, stride in pieces:
        for tier, n in tier_counts(pool, size, stride).items():
            counts[tier] = counts.get(tier, 1.0) * n
    return [pool.tier_level(t, counts[t]) for t in TIERS if counts.get(t, 1.0) > 1]


def outer_tier(lvls: list[Level]) -> str:
    return lvls[-1].name if lvls else ""


# ---------------------------------------------------------------- from the inventory


def pools_from_snapshot(snap: CampusSnapshot, pod_ids: Iterable[int] | None = None) -> list[Pool]:
    """One pool per GPU model among the racks of ``pod_ids`` (default: every pod; racks in no pod are a
    pool of their own). The island is the smallest pod holding the model (the tightest full-bisection block a
    job of that model can count on) and the oversubscription the largest of those pods'."""
    wanted = None if pod_ids is None else set(pod_ids)
    pods = {p.id: p for p in snap.pods}
    gpus: dict[str, int] = {}
    per_pod: dict[str, dict[int | None, int]] = {}
    node_of: dict[str, str] = {}
    for rack in snap.racks:
        if wanted is not None and rack.pod_id not in wanted:
            continue
        for slug, count in rack.nodes:
            spec = snap.node_models[slug]
            n = count * spec.gpus_per_node
            gpus[spec.gpu] = gpus.get(spec.gpu, 0) + n
            per_pod.setdefault(spec.gpu, {})
            per_pod[spec.gpu][rack.pod_id] = per_pod[spec.gpu].get(rack.pod_id, 0) + n
            node_of.setdefault(spec.gpu, slug)
    if wanted is not None and not gpus:
        raise ValueError("pods: the named pods hold no GPU")
    out = []
    for gpu_slug in sorted(gpus):
        node = snap.node_models[node_of[gpu_slug]]
        rack_nodes = whole_rack_nodes(node.slug, node.gpus_per_node)
        domain = node.gpus_per_node * (rack_nodes or 1)
        sizes = per_pod[gpu_slug]
        in_pods = [pods[p] for p in sizes if p is not None and p in pods]
        island = min(sizes.values()) if in_pods else node.gpus_per_node
        over = max((p.oversubscription for p in in_pods), default=1.0)
        fabric = in_pods[0].fabric if in_pods else "infiniband-ndr"
        switch = snap.switch_models.get(in_pods[0].switch_model or "") if in_pods else None
        radix = switch.radix if switch else 64
        tiers = 1 if island <= radix else 2 if island <= radix * radix // 2 else 3
        out.append(
            Pool(
                gpu=snap.gpus[gpu_slug],
                gpus=gpus[gpu_slug],
                domain_gpus=domain,
                gpus_per_node=node.gpus_per_node,
                nic_gbps_per_gpu=node.nics * node.nic_speed_gbps / node.gpus_per_node,
                island_gpus=max(island, domain),
                oversubscription=over,
                fabric=fabric,
                fabric_tiers=tiers,
                name=gpu_slug,
            )
        )
    if not out:
        raise ValueError("campus: the campus has no GPU")
    return out


def reference_pool(gpu: GpuSpec, gpus: int, **kw) -> Pool:
    """A pool of ``gpus`` GPUs in 8-GPU servers with one 400G NIC per GPU, islands of ``island_gpus`` (default
    all of them): the DGX/HGX H100 SuperPOD shape (NVIDIA DGX SuperPOD reference architecture)."""
    kw.setdefault("domain_gpus", 8)
    kw.setdefault("gpus_per_node", 8)
    kw.setdefault("nic_gbps_per_gpu", 400.0)
    kw.setdefault("island_gpus", gpus)
    return Pool(gpu=gpu, gpus=gpus, name=gpu.slug, **kw)
