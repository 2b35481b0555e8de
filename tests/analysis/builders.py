"""Small hand-built snapshots for the analysis tests; every number is chosen so results can be worked by hand."""

from __future__ import annotations

from dataclasses import replace

from campus.analysis.snapshot import (
    BuildingSnap,
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
    FailureRate,
    GpuSpec,
    HallSnap,
    LinkSnap,
    MediumSpec,
    NodeSpec,
    PodSnap,
    PowerDeviceSnap,
    PowerFeedSnap,
    RackSnap,
    SwitchSnap,
    SwitchSpec,
    UtilityFeedSnap,
)

H100 = GpuSpec(
    slug="h100",
    name="H100 SXM",
    vendor="NVIDIA",
    tdp_w=700.0,
    memory_gb=80.0,
    peak_tflops={"fp8": 1979.0, "bf16": 989.0, "fp16": 989.0},
    fp8_support=True,
    scaleup_gbps=900.0,
    slowdown_temp_c=87.0,
    shutdown_temp_c=92.0,
)
A100 = GpuSpec(
    slug="a100",
    name="A100 SXM",
    vendor="NVIDIA",
    tdp_w=400.0,
    memory_gb=80.0,
    peak_tflops={"bf16": 312.0, "fp16": 312.0},
    fp8_support=False,
    scaleup_gbps=600.0,
    slowdown_temp_c=85.0,
    shutdown_temp_c=90.0,
)
# 1 kW per node keeps the arithmetic simple: 8 x 100 W GPUs + 200 W overhead.
TOY_GPU = GpuSpec("toy", "Toy", "Test", 100.0, 16.0, {"bf16": 100.0}, False, 0.0, 85.0, 90.0)
TOY_NODE = NodeSpec("toy8", "Toy 8-GPU", "toy", 8, 200.0, 8, "connectx7", 0.0, 400.0, 4)
H100_NODE = NodeSpec("dgx-h100", "DGX H100", "h100", 8, 4600.0, 8, "connectx7", 0.0, 400.0, 8)
A100_NODE = NodeSpec("dgx-a100", "DGX A100", "a100", 8, 3300.0, 8, "connectx7", 0.0, 200.0, 6)
QM9700 = SwitchSpec("qm9700", "Quantum-2 QM9700", "infiniband-ndr", 64, 400.0, 747.0, 1500.0)
MEDIA = {
    "dac": MediumSpec("dac", "DAC", 3.0, 0.0, 0.3, 2_000_000.0, False),
    "aec": MediumSpec("aec", "AEC", 7.0, 6.0, 0.6, 1_000_000.0, False),
    "sr": MediumSpec("sr", "SR", 50.0, 12.0, 1.0, 43_800.0, True),
    "dr": MediumSpec("dr", "DR", 500.0, 12.0, 2.5, 43_800.0, True),
    "fr": MediumSpec("fr", "FR", 2000.0, 12.0, 2.5, 43_800.0, True),
    "zr": MediumSpec("zr", "ZR", 80_000.0, 20.0, 10.0, 43_800.0, True),
}


def campus(**kw) -> CampusSnapshot:
    base = dict(
        id=1,
        name="test campus",
        grid_capacity_kw=10_000.0,
        price_usd_per_kwh=0.1,
        design_pue=1.2,
        ambient_temp_c=25.0,
        other_it_fraction=0.0,
        gpus={"toy": TOY_GPU, "h100": H100, "a100": A100},
        node_models={"toy8": TOY_NODE, "dgx-h100": H100_NODE, "dgx-a100": A100_NODE},
        switch_models={"qm9700": QM9700},
        media=dict(MEDIA),
        buildings=(BuildingSnap(1, "B1", 0.0, 0.0, 100.0, 100.0),),
        halls=(HallSnap(1, 1, "H1", 50.0, 50.0),),
    )
    base.update(kw)
    return CampusSnapshot(**base)


def rack(rid: int, nodes: int = 10, node: str = "toy8", **kw) -> RackSnap:
    """A rack of ``nodes`` servers; with the toy node, ``nodes`` kW of IT load."""
    base = dict(
        id=rid,
        name=f"R{rid}",
        hall_id=1,
        building_id=1,
        x_m=float(rid),
        y_m=0.0,
        cooling_type="direct-to-chip",
        design_kw=20.0,
        cooling_unit_id=None,
        pod_id=None,
        status="active",
        nodes=((node, nodes),) if nodes else (),
    )
    base.update(kw)
    return RackSnap(**base)


def device(did: int, kind: str = "pdu", rated_kw: float = 100.0, **kw) -> PowerDeviceSnap:
    base = dict(
        id=did,
        name=f"{kind.upper()}-{did}",
        kind=kind,
        rated_kw=rated_kw,
        efficiency=1.0,
        max_utilization=0.8,
        building_id=1,
        utility_feed_id=None,
    )
    base.update(kw)
    return PowerDeviceSnap(**base)


_feed_ids = iter(range(1000, 10**9))


def feed(
    up: int,
    *,
    rack: int | None = None,
    dev: int | None = None,
    side: str = "N",
    rating_kw: float = 1e9,
    fid: int | None = None,
) -> PowerFeedSnap:
    return PowerFeedSnap(fid if fid is not None else next(_feed_ids), up, dev, rack, side, rating_kw)


def two_n(
    rack_kw: tuple[int, ...] = (10, 10),
    pdu_rated_kw: float = 100.0,
    feed_rating_kw: float = 1e9,
    ups_rated_kw: float = 1000.0,
    **campus_kw,
) -> CampusSnapshot:
    """utility 1 -> UPS 1 (A) -> PDU 11 ; utility 2 -> UPS 2 (B) -> PDU 12; each rack fed A from 11 and B from 12."""
    racks = tuple(rack(i + 1, n) for i, n in enumerate(rack_kw))
    devices = (
        device(1, "ups", ups_rated_kw, utility_feed_id=1),
        device(2, "ups", ups_rated_kw, utility_feed_id=2),
        device(11, "pdu", pdu_rated_kw),
        device(12, "pdu", pdu_rated_kw),
    )
    feeds = [feed(1, dev=11, side="A", fid=1), feed(2, dev=12, side="B", fid=2)]
    for r in racks:
        feeds.append(feed(11, rack=r.id, side="A", rating_kw=feed_rating_kw, fid=100 + r.id))
        feeds.append(feed(12, rack=r.id, side="B", rating_kw=feed_rating_kw, fid=200 + r.id))
    return campus(
        racks=racks,
        utility_feeds=(UtilityFeedSnap(1, "U1", 5000.0), UtilityFeedSnap(2, "U2", 5000.0)),
        power_devices=devices,
        power_feeds=tuple(feeds),
        **campus_kw,
    )


__all__ = [
    "A100",
    "A100_NODE",
    "H100",
    "H100_NODE",
    "MEDIA",
    "QM9700",
    "TOY_GPU",
    "TOY_NODE",
    "BuildingSnap",
    "CoolingPlantSnap",
    "CoolingUnitSnap",
    "FailureRate",
    "HallSnap",
    "LinkSnap",
    "PodSnap",
    "SwitchSnap",
    "UtilityFeedSnap",
    "campus",
    "device",
    "feed",
    "rack",
    "replace",
    "two_n",
]


def with_servers_scaled(snap: CampusSnapshot, factors: dict[int, float]) -> CampusSnapshot:
    """``snap`` with the racks named in ``factors`` holding that many times their servers and extras: each
    server model of such a rack is copied with its GPUs' TDP, its overhead and its NICs' extra power scaled
    (so its liquid share and server share stay), and the rack's ``extra_it_kw`` too. This is IT *added*
    to the racks (installed servers, as new racks would bring), not today's servers drawing more: the
    campus's other IT follows the installed servers' heat (rule 5), so it grows where the servers are.
    Brute-force checks of the headroom add load this way and re-run the whole model."""
    gpus = dict(snap.gpus)
    nodes = dict(snap.node_models)
    racks = []
    for r in snap.racks:
        f = factors.get(r.id)
        if f is None or f == 1.0:
            racks.append(r)
            continue
        scaled = []
        for slug, count in r.nodes:
            key = f"{slug}@{f!r}"
            if key not in nodes:
                spec = snap.node_models[slug]
                gpu = snap.gpus[spec.gpu]
                gkey = f"{gpu.slug}@{f!r}"
                gpus.setdefault(gkey, replace(gpu, slug=gkey, tdp_w=gpu.tdp_w * f))
                nodes[key] = replace(
                    spec, slug=key, gpu=gkey, overhead_w=spec.overhead_w * f, nic_extra_w=spec.nic_extra_w * f
                )
            scaled.append((key, count))
        racks.append(replace(r, nodes=tuple(scaled), extra_it_kw=r.extra_it_kw * f))
    return replace(snap, gpus=gpus, node_models=nodes, racks=tuple(racks))
