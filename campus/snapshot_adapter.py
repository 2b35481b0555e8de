"""Build a CampusSnapshot from the database in a handful of queries (one per table, values() only)."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count

from campus import catalog_data
from campus.analysis.snapshot import (
    BuildingSnap,
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
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
from campus.analysis.snapshot import (
    FailureRate as FailureRateSnap,
)
from campus.choices import NodeStatus
from campus.models import (
    Building,
    Campus,
    CoolingPlant,
    CoolingUnit,
    DataHall,
    FailureRate,
    GPUModel,
    Link,
    LinkMedium,
    Node,
    NodeModel,
    Pod,
    PowerDevice,
    PowerFeed,
    Rack,
    Switch,
    SwitchModel,
    UtilityFeed,
)


def _nic_extra_w(kind: str) -> float:
    return float(catalog_data.NIC_KINDS.get(kind, {}).get("extra_w_per_nic", 0.0))


def gpu_spec(row: GPUModel) -> GpuSpec:
    peaks = {"bf16": row.peak_bf16_tflops, "fp16": row.peak_fp16_tflops}
    if row.peak_fp8_tflops is not None and row.fp8_support:
        peaks["fp8"] = row.peak_fp8_tflops
    if row.peak_tf32_tflops is not None:
        peaks["tf32"] = row.peak_tf32_tflops
    curve = tuple((float(c), float(t)) for c, t in (row.cap_curve or [[0.5, 0.7], [1.0, 1.0]]))
    return GpuSpec(
        slug=row.slug,
        name=row.name,
        vendor=row.vendor,
        tdp_w=row.tdp_w,
        memory_gb=row.memory_gb,
        peak_tflops=peaks,
        fp8_support=row.fp8_support,
        scaleup_gbps=row.scaleup_gbps,
        slowdown_temp_c=row.slowdown_temp_c,
        shutdown_temp_c=row.shutdown_temp_c,
        cap_curve=curve,
        min_cap_fraction=row.min_cap_fraction,
        failure_rate_set=catalog_data.gpu_failure_rate_set(row.slug),
    )


def catalog_snapshot_parts() -> dict:
    """The catalog as snapshot specs (shared by every campus)."""
    gpus = {row.slug: gpu_spec(row) for row in GPUModel.objects.all()}
    node_models = {
        row.slug: NodeSpec(
            slug=row.slug,
            name=row.name,
            gpu=row.gpu_model.slug,
            gpus_per_node=row.gpus_per_node,
            overhead_w=row.overhead_w,
            nics=row.nics,
            nic_kind=row.nic_kind,
            nic_extra_w=_nic_extra_w(row.nic_kind),
            nic_speed_gbps=row.nic_speed_gbps,
            rack_units=row.rack_units,
            liquid_heat_fraction=row.liquid_heat_fraction,
        )
        for row in NodeModel.objects.select_related("gpu_model")
    }
    switch_models = {
        row.slug: SwitchSpec(
            slug=row.slug,
            name=row.name,
            fabric=row.fabric,
            radix=row.radix,
            port_speed_gbps=row.port_speed_gbps,
            power_w_copper=row.power_w_copper,
            power_w_optics=row.power_w_optics,
        )
        for row in SwitchModel.objects.all()
    }
    media = {
        row.slug: MediumSpec(
            slug=row.slug,
            name=row.name,
            max_reach_m=row.max_reach_m,
            power_w_per_end=row.power_w_per_end,
            relative_cost=row.relative_cost,
            mtbf_hours=row.mtbf_hours,
            is_optical=row.is_optical,
        )
        for row in LinkMedium.objects.all()
    }
    rates = tuple(
        FailureRateSnap(
            component=row.component,
            per=row.per,
            mtbf_hours=row.mtbf_hours,
            interrupts_job=row.interrupts_job,
            repair_hours=row.repair_hours,
            dataset=row.dataset,
            source=row.source,
        )
        for row in FailureRate.objects.all()
    )
    return {
        "gpus": gpus,
        "node_models": node_models,
        "switch_models": switch_models,
        "media": media,
        "failure_rates": rates,
    }


def build_snapshot(campus: Campus | int) -> CampusSnapshot:
    campus = campus if isinstance(campus, Campus) else Campus.objects.get(pk=campus)
    cid = campus.pk
    parts = catalog_snapshot_parts()
    node_slug = dict(NodeModel.objects.values_list("id", "slug"))
    switch_slug = dict(SwitchModel.objects.values_list("id", "slug"))
    medium_slug = dict(LinkMedium.objects.values_list("id", "slug"))

    buildings = tuple(
        BuildingSnap(
            id=b["id"],
            name=b["name"],
            x_m=b["x_m"],
            y_m=b["y_m"],
            width_m=b["width_m"],
            length_m=b["length_m"],
        )
        for b in Building.objects.filter(campus_id=cid).values(
            "id", "name", "x_m", "y_m", "width_m", "length_m"
        )
    )
    halls = tuple(
        HallSnap(
            id=h["id"],
            building_id=h["building_id"],
            name=h["name"],
            width_m=h["width_m"],
            length_m=h["length_m"],
        )
        for h in DataHall.objects.filter(building__campus_id=cid).values(
            "id", "building_id", "name", "width_m", "length_m"
        )
    )
    hall_building = {h.id: h.building_id for h in halls}

    nodes_by_rack: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for row in (
        Node.objects.filter(rack__campus_id=cid, status=NodeStatus.ACTIVE)
        .values("rack_id", "node_model_id")
        .annotate(n=Count("id"))
        .order_by("rack_id", "node_model_id")
    ):
        nodes_by_rack[row["rack_id"]].append((node_slug[row["node_model_id"]], row["n"]))

    racks = tuple(
        RackSnap(
            id=r["id"],
            name=r["name"],
            hall_id=r["hall_id"],
            building_id=hall_building[r["hall_id"]],
            x_m=r["x_m"],
            y_m=r["y_m"],
            cooling_type=r["cooling_type"],
            design_kw=r["design_kw"],
            cooling_unit_id=r["cooling_unit_id"],
            pod_id=r["pod_id"],
            status=r["status"],
            nodes=tuple(nodes_by_rack.get(r["id"], ())),
            extra_it_kw=r["extra_it_kw"],
        )
        for r in Rack.objects.filter(campus_id=cid)
        .order_by("id")
        .values(
            "id",
            "name",
            "hall_id",
            "x_m",
            "y_m",
            "cooling_type",
            "design_kw",
            "cooling_unit_id",
            "pod_id",
            "status",
            "extra_it_kw",
        )
    )
    utility_feeds = tuple(
        UtilityFeedSnap(id=u["id"], name=u["name"], capacity_kw=u["capacity_mw"] * 1000.0)
        for u in UtilityFeed.objects.filter(campus_id=cid).values("id", "name", "capacity_mw")
    )
    devices = tuple(
        PowerDeviceSnap(
            id=d["id"],
            name=d["name"],
            kind=d["kind"],
            rated_kw=d["rated_kw"],
            efficiency=d["efficiency"],
            max_utilization=d["max_utilization"],
            building_id=d["building_id"],
            utility_feed_id=d["utility_feed_id"],
            battery_minutes=d["battery_minutes"],
            start_delay_s=d["start_delay_s"],
            ramp_s=d["ramp_s"],
            status=d["status"],
        )
        for d in PowerDevice.objects.filter(campus_id=cid)
        .order_by("id")
        .values(
            "id",
            "name",
            "kind",
            "rated_kw",
            "efficiency",
            "max_utilization",
            "building_id",
            "utility_feed_id",
            "battery_minutes",
            "start_delay_s",
            "ramp_s",
            "status",
        )
    )
    feeds = tuple(
        PowerFeedSnap(
            id=f["id"],
            upstream_id=f["upstream_id"],
            downstream_device_id=f["downstream_device_id"],
            rack_id=f["rack_id"],
            side=f["side"],
            rating_kw=f["rating_kw"],
        )
        for f in PowerFeed.objects.filter(campus_id=cid)
        .order_by("id")
        .values("id", "upstream_id", "downstream_device_id", "rack_id", "side", "rating_kw")
    )
    plants = tuple(
        CoolingPlantSnap(
            id=p["id"],
            name=p["name"],
            kind=p["kind"],
            capacity_kw=p["capacity_kw"],
            cop=p["cop"],
            building_id=p["building_id"],
            power_device_id=p["power_device_id"],
            restart_minutes=p["restart_minutes"],
            power_device_b_id=p["power_device_b_id"],
        )
        for p in CoolingPlant.objects.filter(campus_id=cid).values(
            "id",
            "name",
            "kind",
            "capacity_kw",
            "cop",
            "building_id",
            "power_device_id",
            "power_device_b_id",
            "restart_minutes",
        )
    )
    units = tuple(
        CoolingUnitSnap(
            id=u["id"],
            name=u["name"],
            kind=u["kind"],
            capacity_kw=u["capacity_kw"],
            supply_temp_c=u["supply_temp_c"],
            return_temp_c=u["return_temp_c"],
            flow_lpm=u["flow_lpm"],
            plant_id=u["plant_id"],
            power_device_id=u["power_device_id"],
            hall_id=u["hall_id"],
            group=u["group"],
            power_device_b_id=u["power_device_b_id"],
        )
        for u in CoolingUnit.objects.filter(campus_id=cid).values(
            "id",
            "name",
            "kind",
            "capacity_kw",
            "supply_temp_c",
            "return_temp_c",
            "flow_lpm",
            "plant_id",
            "power_device_id",
            "power_device_b_id",
            "hall_id",
            "group",
        )
    )
    pods = tuple(
        PodSnap(
            id=p["id"],
            name=p["name"],
            fabric=p["fabric"],
            topology=p["topology"],
            oversubscription=p["oversubscription"],
            switch_model=switch_slug.get(p["switch_model_id"]),
            building_id=p["building_id"],
        )
        for p in Pod.objects.filter(campus_id=cid).values(
            "id", "name", "fabric", "topology", "oversubscription", "switch_model_id", "building_id"
        )
    )
    switches = tuple(
        SwitchSnap(
            id=s["id"],
            name=s["name"],
            pod_id=s["pod_id"],
            tier=s["tier"],
            model=switch_slug[s["model_id"]],
            count=s["count"],
            hall_id=s["hall_id"],
            rack_id=s["rack_id"],
            network=s["network"],
        )
        for s in Switch.objects.filter(campus_id=cid).values(
            "id", "name", "pod_id", "tier", "model_id", "count", "hall_id", "rack_id", "network"
        )
    )
    links = tuple(
        LinkSnap(
            id=k["id"],
            pod_id=k["pod_id"],
            network=k["network"],
            medium=medium_slug[k["medium_id"]],
            count=k["count"],
            length_m=k["length_m"],
            speed_gbps=k["speed_gbps"],
            a_rack_id=k["a_rack_id"],
            a_switch_id=k["a_switch_id"],
            b_switch_id=k["b_switch_id"],
        )
        for k in Link.objects.filter(campus_id=cid).values(
            "id",
            "pod_id",
            "network",
            "medium_id",
            "count",
            "length_m",
            "speed_gbps",
            "a_rack_id",
            "a_switch_id",
            "b_switch_id",
        )
    )
    return CampusSnapshot(
        id=cid,
        name=campus.name,
        grid_capacity_kw=campus.grid_capacity_mw * 1000.0,
        price_usd_per_kwh=campus.price_usd_per_kwh,
        design_pue=campus.design_pue,
        ambient_temp_c=campus.ambient_temp_c,
        other_it_fraction=campus.other_it_fraction,
        buildings=buildings,
        halls=halls,
        racks=racks,
        utility_feeds=utility_feeds,
        power_devices=devices,
        power_feeds=feeds,
        cooling_plants=plants,
        cooling_units=units,
        pods=pods,
        switches=switches,
        links=links,
        **parts,
    )
