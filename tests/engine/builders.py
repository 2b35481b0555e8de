"""Small hand-built campus snapshots for the engine tests (no database, catalog figures)."""

from __future__ import annotations

from dataclasses import replace

from campus import catalog_data
from campus.analysis.snapshot import (
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
    EnergyStorageSnap,
    FailureRate,
    GpuSpec,
    NodeSpec,
    PodSnap,
    PowerDeviceSnap,
    PowerFeedSnap,
    RackSnap,
    UtilityFeedSnap,
)


def gpu_spec(slug: str) -> GpuSpec:
    row = catalog_data.gpu(slug)
    return GpuSpec(
        slug=row["slug"],
        name=row["name"],
        vendor=row["vendor"],
        tdp_w=row["tdp_w"],
        memory_gb=row["memory_gb"],
        peak_tflops=catalog_data.peak_tflops(row),
        fp8_support=row["fp8_support"],
        scaleup_gbps=row["scaleup_gbps"],
        slowdown_temp_c=row["slowdown_temp_c"],
        shutdown_temp_c=row["shutdown_temp_c"],
        cap_curve=tuple((float(x), float(y)) for x, y in row["cap_curve"]),
        min_cap_fraction=row["min_cap_fraction"],
        failure_rate_set=catalog_data.gpu_failure_rate_set(slug),
    )


def node_spec(slug: str) -> NodeSpec:
    row = catalog_data.node_model(slug)
    return NodeSpec(
        slug=row["slug"],
        name=row["name"],
        gpu=row["gpu"],
        gpus_per_node=row["gpus_per_node"],
        overhead_w=row["overhead_w"],
        nics=row["nics"],
        nic_kind=row["nic_kind"],
        nic_extra_w=catalog_data.nic_kind(row["nic_kind"])["extra_w_per_nic"],
        nic_speed_gbps=row["nic_speed_gbps"],
        rack_units=row["rack_units"],
        liquid_heat_fraction=row["liquid_heat_fraction"],
    )


def catalog_rates(*datasets: str) -> tuple[FailureRate, ...]:
    out = []
    for ds in datasets:
        for r in catalog_data.rates(ds):
            out.append(
                FailureRate(
                    component=r["component"],
                    per=r["per"],
                    mtbf_hours=r["mtbf_hours"],
                    interrupts_job=r["interrupts_job"],
                    repair_hours=r["repair_hours"],
                    dataset=r["dataset"],
                    source=r["source"],
                )
            )
    return tuple(out)


def single_rate(
    component: str, mtbf_hours: float, per: str = "gpu", repair_hours: float = 0.0
) -> FailureRate:
    return FailureRate(component, per, mtbf_hours, True, repair_hours, "test-set")


def campus(
    racks: int = 8,
    nodes_per_rack: int = 4,
    node_models: tuple[str, ...] = ("hgx-h100-8",),
    cooling_type: str = "direct-to-chip",
    pods: int = 2,
    failure_rates: tuple[FailureRate, ...] | None = None,
    feed_rating_kw: float | None = None,
    cdu_groups: bool = False,
    grid_capacity_kw: float | None = None,
) -> CampusSnapshot:
    """A one-building 2N campus: utility -> switchgear -> UPS A/B -> PDU A/B per 4 racks -> racks.

    Racks cycle through ``node_models``; a CDU serves every 4 racks and draws from UPS A. With
    ``cdu_groups`` every pair of CDUs backs each other up (one group per pair, 2x capacity).
    """
    nodes = {s: node_spec(s) for s in node_models}
    gpus = {n.gpu: gpu_spec(n.gpu) for n in nodes.values()}
    rack_snaps: list[RackSnap] = []
    n_cdus = (racks + 3) // 4
    for i in range(racks):
        slug = node_models[i % len(node_models)]
        rack_snaps.append(
            RackSnap(
                id=100 + i,
                name=f"R{i:03d}",
                hall_id=1,
                building_id=1,
                x_m=float(i),
                y_m=0.0,
                cooling_type=cooling_type,
                design_kw=60.0,
                cooling_unit_id=500 + i // 4,
                pod_id=10 + (i * pods) // racks,
                status="active",
                nodes=((slug, nodes_per_rack),),
            )
        )
    snap0 = CampusSnapshot(
        id=1,
        name="test",
        grid_capacity_kw=0.0,
        price_usd_per_kwh=0.078,
        design_pue=1.2,
        ambient_temp_c=25.0,
        other_it_fraction=0.1,
        gpus=gpus,
        node_models=nodes,
        racks=tuple(rack_snaps),
    )
    rack_kw = [snap0.rack_it_kw(r) for r in rack_snaps]
    total_kw = sum(rack_kw)
    per_pdu_kw = max(sum(rack_kw[j : j + 4]) for j in range(0, racks, 4))
    devices = [
        PowerDeviceSnap(1, "SWGR", "switchgear", total_kw * 3, 0.999, 0.8, 1, 1),
        PowerDeviceSnap(2, "UPS-A", "ups", total_kw * 1.5, 0.96, 0.8, 1, None, battery_minutes=5.0),
        PowerDeviceSnap(3, "UPS-B", "ups", total_kw * 1.5, 0.96, 0.8, 1, None, battery_minutes=5.0),
        PowerDeviceSnap(
            4, "GEN", "generator", total_kw * 2, 1.0, 0.8, 1, None, start_delay_s=10.0, ramp_s=60.0
        ),
    ]
    feeds = [
        PowerFeedSnap(1, 1, 2, None, "N", 0.0),
        PowerFeedSnap(2, 1, 3, None, "N", 0.0),
        PowerFeedSnap(3, 4, 1, None, "N", 0.0),
    ]
    fid = 10
    did = 20
    for j in range(0, racks, 4):
        for side, ups in (("A", 2), ("B", 3)):
            devices.append(
                PowerDeviceSnap(did, f"PDU-{side}{j // 4}", "pdu", per_pdu_kw * 1.25, 0.995, 0.8, 1, None)
            )
            feeds.append(PowerFeedSnap(fid, ups, did, None, "N", 0.0))
            fid += 1
            for i in range(j, min(j + 4, racks)):
                rating = feed_rating_kw if feed_rating_kw is not None else rack_kw[i] * 1.25
                feeds.append(PowerFeedSnap(fid, did, None, 100 + i, side, rating))
                fid += 1
            did += 1
    units = []
    for c in range(n_cdus):
        load = sum(rack_kw[c * 4 : c * 4 + 4])
        units.append(
            CoolingUnitSnap(
                id=500 + c,
                name=f"CDU-{c}",
                kind="cdu",
                capacity_kw=load * (2.2 if cdu_groups else 1.2),
                supply_temp_c=25.0,
                return_temp_c=45.0,
                flow_lpm=load * 1.5,
                plant_id=900,
                power_device_id=2,
                hall_id=1,
                group=f"g{c // 2}" if cdu_groups else "",
            )
        )
    plant = CoolingPlantSnap(900, "CH-1", "chiller", total_kw * 1.5, 5.0, 1, 2, restart_minutes=6.0)
    pod_snaps = tuple(
        PodSnap(10 + p, f"P{p}", "infiniband-ndr", "rail-optimized", 1.0, None, 1) for p in range(pods)
    )
    return CampusSnapshot(
        id=1,
        name="test",
        grid_capacity_kw=grid_capacity_kw if grid_capacity_kw is not None else total_kw / 0.9 * 1.2 * 1.1,
        price_usd_per_kwh=0.078,
        design_pue=1.2,
        ambient_temp_c=25.0,
        other_it_fraction=0.1,
        gpus=gpus,
        node_models=nodes,
        failure_rates=failure_rates
        if failure_rates is not None
        else catalog_rates("llama3-2024", "infrastructure-estimates"),
        racks=tuple(rack_snaps),
        utility_feeds=(UtilityFeedSnap(1, "Utility-1", total_kw * 3),),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
        cooling_plants=(plant,),
        cooling_units=tuple(units),
        pods=pod_snaps,
    )


def prime_generator(id_: int, name: str, prime_kw: float, **fields) -> PowerDeviceSnap:
    """An on-site generator of ``prime_kw`` for continuous duty (nameplate 10 % above) in the test campus's
    building; ``fields``: any other of its fields."""
    return PowerDeviceSnap(
        id_, name, "generator", prime_kw * 1.1, 1.0, 0.8, 1, None, prime_rating_kw=prime_kw, **fields
    )


def with_onsite(
    racks: int = 320,
    bess: tuple[float, float, float] | None = (5_000.0, 10_000.0, 0.9),
    prime_kw: float = 4_000.0,
    **generator,
) -> CampusSnapshot:
    """The test campus with a battery BESS on the switchgear (``bess``: kW, kWh, round-trip efficiency; 100 ms
    response) and a prime generator GT-1 of ``prime_kw`` (``generator``: its other fields); none when None/0."""
    snap = campus(racks=racks)
    storage = () if bess is None else (EnergyStorageSnap(1, "BESS", *bess, 100.0, 1, 1),)
    gens = (prime_generator(99, "GT-1", prime_kw, **generator),) if prime_kw else ()
    return replace(snap, energy_storage=storage, power_devices=snap.power_devices + gens)


# ---------------------------------------------------------------- failure_cascade set-ups


def cascade_prep(snap: CampusSnapshot, **params):
    """failure_cascade on ``snap`` with its ``test-set`` rates and no facility failures unless asked."""
    from simulations.engine.runner import prepare

    return prepare(
        snap, "failure_cascade", {"rate_set": "test-set", "include_infrastructure": False, **params}
    )


def cascade_runs(prepared, n: int, seed: int = 7) -> list:
    from simulations.engine.runner import replica_seed

    return [prepared.run(replica_seed(seed, i)) for i in range(n)]


def cascade_mean(prepared, metric: str, n: int, seed: int = 11) -> float:
    from simulations.engine.runner import aggregate

    return aggregate(cascade_runs(prepared, n, seed))[metric]["mean"]


def server_pool(nodes: int, **params):
    """failure_cascade on a campus of ``nodes`` DGX H100 servers with the catalog's rates."""
    from campus.fidelity.campuses import servers
    from simulations.engine.runner import prepare

    return prepare(
        servers({"dgx-h100": nodes}), "failure_cascade", {"include_infrastructure": False, **params}
    )


def pool_setup(**over):
    """The server-pool walk's set-up: 64 job nodes, 4 warm standbys, 4 headroom and 4 pool spares, one failure
    per node every 500 h, 20 days of work in a 400-day run; ``over`` replaces any of them."""
    from simulations.engine.kinds.failure_cascade.servers import PoolSetup

    base = dict(
        job_nodes=64,
        warm_standbys=4,
        headroom=4,
        spare_pool=4,
        base_rate_per_hour=1 / 500,
        bad_fraction=0.0,
        bad_multiple=1.0,
        auto_h=2.0,
        manual_h=48.0,
        p_escalate=0.5,
        p_auto_miss=0.0,
        p_manual_miss=0.0,
        restart_h=0.25,
        host_h=0.05,
        preempt_h=0.3,
        interval_h=1.0,
        write_h=0.05,
        step_h=1 / 360,
        in_memory=False,
        weibull_shape=None,
        during_recovery=False,
        work_h=24 * 20.0,
        duration_h=24 * 400.0,
        gpus_per_node=8.0,
        job_tflops=1.0,
        series_points=10,
    )
    return PoolSetup(**{**base, **over})
