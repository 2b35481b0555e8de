"""A realistic synthetic 2N campus snapshot of N GPUs, for benchmarks, engine tests and notebooks.

Layout (defaults): HGX H100 servers (10.2 kW), 4 per rack (~41 kW: 4 x 10.2 kW, the DGX H100 maximum system
power in NVIDIA's DGX H100 user guide), 128 racks per hall in rows of 16, 4 halls per building (16,384 GPUs,
one compute island per building). Power per building, 2N: utility -> substation -> transformer A/B ->
switchgear A/B (+ a standby generator each) -> per hall UPS A/B -> per row PDU A/B -> rack feeds A/B rated
so one side carries the rack. Chillers hang off mechanical boards A and B and CDUs off hall mechanical PDUs
A and B: every chiller and CDU is dual-fed (one supply per side), so no single device of either side stops
cooling. Cooling per hall: an N+1 group of facility CDUs; per building an N+1 set of chillers.
Fabric per building island: a fat tree from ``fabric.design_fabric``; islands joined by a super-spine layer.
The catalog (``campus.catalog_data``) supplies the specs, so the figures carry their sources."""

from __future__ import annotations

import math
from dataclasses import replace

from campus import catalog_data as cat
from campus.analysis.catalog import catalog_specs
from campus.analysis.energy import it_breakdown
from campus.analysis.fabric import inventory_for_campus
from campus.analysis.snapshot import (
    BuildingSnap,
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
    HallSnap,
    LinkSnap,
    PodSnap,
    PowerDeviceSnap,
    PowerFeedSnap,
    RackSnap,
    SwitchSnap,
    UtilityFeedSnap,
)


class _Ids:
    """Monotonic id source; ids are unique within one kind, as database keys are."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> int:
        self.n += 1
        return self.n


def synthetic_campus(
    gpus: int = 100_000,
    node_model: str = "hgx-h100-8",
    nodes_per_rack: int = 4,
    racks_per_row: int = 16,
    racks_per_hall: int = 128,
    halls_per_building: int = 4,
    switch_model: str = "quantum-2-qm9700",
    topology: str = "rail-optimized",
    inter_island_oversubscription: float = 7.0,
    cdus_per_hall: int = 5,
    with_fabric: bool = True,
) -> CampusSnapshot:
    """A 2N campus holding at least ``gpus`` GPUs (rounded up to whole racks).

    Ratings follow the design rules a planner would use: every A or B element carries the whole load of
    what it serves at <= 80% (the planning limit), CDUs and chillers are N+1.
    """
    if gpus <= 0:
        raise ValueError("gpus: must be > 0")
    specs = catalog_specs()
    node = specs["node_models"][node_model]
    node_kw = (
        node.gpus_per_node * specs["gpus"][node.gpu].tdp_w + node.overhead_w + node.nics * node.nic_extra_w
    ) / 1000.0
    gpus_per_rack = node.gpus_per_node * nodes_per_rack
    rack_kw = node_kw * nodes_per_rack
    n_racks = math.ceil(gpus / gpus_per_rack)
    racks_per_building = racks_per_hall * halls_per_building
    n_buildings = math.ceil(n_racks / racks_per_building)
    eff = cat.device_efficiency
    max_util = cat.default_value("max_utilization")
    # one side must carry everything it serves at the planning limit
    feed_rating_kw = math.ceil(rack_kw / max_util / 5.0) * 5.0
    pdu_kw = math.ceil(rack_kw * racks_per_row / max_util / 50.0) * 50.0
    # a hall's UPS also carries its CDU pumps (per kW of heat moved)
    hall_kw = rack_kw * racks_per_hall * (1.0 + cat.default_value("cdu_pump_kw_per_kw_heat")) / eff("pdu")
    ups_kw = math.ceil(hall_kw / max_util / 500.0) * 500.0
    bldg_kw = hall_kw * halls_per_building / eff("ups")
    cdu_kw = math.ceil(rack_kw * racks_per_hall / (cdus_per_hall - 1) / 100.0) * 100.0

    buildings, halls, racks, utility, devices, feeds = [], [], [], [], [], []
    plants, units, pods = [], [], []
    dev_id, feed_id, unit_id = _Ids(), _Ids(), _Ids()
    rack_id = 0
    hall_id = 0
    for b in range(n_buildings):
        bid = b + 1
        racks_here = min(racks_per_building, n_racks - rack_id)
        halls_here = math.ceil(racks_here / racks_per_hall)
        buildings.append(BuildingSnap(bid, f"Building {bid}", b * 250.0, 0.0, 200.0, 120.0))
        it_kw = rack_kw * racks_here
        # the grid connection above the chain's draw: racks' IT, the network and other IT placed on them,
        # losses and chillers (a utility feed trips above its capacity, power._overloads)
        facility_kw = it_kw * 1.4
        utility.append(UtilityFeedSnap(bid, f"Utility {bid}", math.ceil(facility_kw / 1000.0) * 1000.0))
        # The chillers ride on the same chain (heat / COP), next to the halls.
        chiller_kw = it_kw / cat.default_value("chiller_cop")
        mech_kw = math.ceil(chiller_kw / max_util / 1000.0) * 1000.0
        top_kw = math.ceil((bldg_kw + chiller_kw) / max_util / 1000.0) * 1000.0

        def dev(kind: str, name: str, rated: float, util: int | None = None, bid: int = bid, **kw) -> int:
            i = dev_id()
            devices.append(
                PowerDeviceSnap(
                    id=i,
                    name=f"B{bid} {name}",
                    kind=kind,
                    rated_kw=rated,
                    efficiency=eff(kind),
                    max_utilization=max_util,
                    building_id=bid,
                    utility_feed_id=util,
                    **kw,
                )
            )
            return i

        def link(up: int, down: int | None, side: str, rating: float, rack: int | None = None) -> None:
            feeds.append(PowerFeedSnap(feed_id(), up, down, rack, side, rating))

        sub = dev("substation", "SUB", top_kw * 2, util=bid)
        switchgear = {}
        for side in "AB":
            tx = dev("transformer", f"TX-{side}", top_kw)
            link(sub, tx, "N", top_kw)
            sg = dev("switchgear", f"SG-{side}", top_kw)
            link(tx, sg, "N", top_kw)
            gen = dev(
                "generator",
                f"GEN-{side}",
                top_kw,
                start_delay_s=cat.default_value("generator_start_delay_s"),
                ramp_s=cat.default_value("generator_ramp_s"),
            )
            link(gen, sg, "N", top_kw)
            switchgear[side] = sg
        # One mechanical board per side, each able to carry every chiller alone.
        msb = {s: dev("switchgear", f"MSB-{s}", mech_kw) for s in "AB"}
        for s in "AB":
            link(switchgear[s], msb[s], "N", mech_kw)
        n_chillers = math.ceil(it_kw / 10_000.0) + 1  # 10 MW chillers, N+1
        plant_ids = []
        for c in range(n_chillers):
            pid = len(plants) + 1
            plants.append(
                CoolingPlantSnap(
                    pid,
                    f"B{bid} CH-{c + 1}",
                    "chiller",
                    10_000.0,
                    cat.default_value("chiller_cop"),
                    bid,
                    msb["A"],
                    cat.default_value("chiller_restart_minutes"),
                    power_device_b_id=msb["B"],
                )
            )
            plant_ids.append(pid)
        pods.append(
            PodSnap(
                bid,
                f"Island {bid}",
                specs["switch_models"][switch_model].fabric,
                topology,
                1.0,
                switch_model,
                bid,
            )
        )
        for h in range(halls_here):
            hall_id += 1
            halls.append(HallSnap(hall_id, bid, f"B{bid} Hall {h + 1}", 60.0, 50.0))
            ups = {
                s: dev(
                    "ups",
                    f"H{h + 1} UPS-{s}",
                    ups_kw,
                    battery_minutes=cat.default_value("ups_battery_minutes"),
                )
                for s in "AB"
            }
            for s in "AB":
                link(switchgear[s], ups[s], "N", ups_kw)
            mpdu = {s: dev("pdu", f"H{h + 1} MPDU-{s}", pdu_kw) for s in "AB"}
            for s in "AB":
                link(ups[s], mpdu[s], "N", pdu_kw)
            hall_units = []
            for c in range(cdus_per_hall):
                uid = unit_id()
                units.append(
                    CoolingUnitSnap(
                        uid,
                        f"B{bid} H{h + 1} CDU-{c + 1}",
                        "cdu",
                        cdu_kw,
                        cat.default_value("supply_temp_c"),
                        cat.default_value("return_temp_c"),
                        cdu_kw * cat.default_value("coolant_flow_lpm_per_kw"),
                        plant_ids[uid % len(plant_ids)],
                        mpdu["A"],
                        hall_id,
                        group=f"B{bid}-H{h + 1}",
                        power_device_b_id=mpdu["B"],
                    )
                )
                hall_units.append(uid)
            racks_in_hall = min(racks_per_hall, n_racks - rack_id)
            pdus: dict[str, int] = {}
            for k in range(racks_in_hall):
                row, pos = divmod(k, racks_per_row)
                if pos == 0:
                    pdus = {s: dev("pdu", f"H{h + 1} R{row + 1} PDU-{s}", pdu_kw) for s in "AB"}
                    for s in "AB":
                        link(ups[s], pdus[s], "N", pdu_kw)
                rack_id += 1
                racks.append(
                    RackSnap(
                        id=rack_id,
                        name=f"B{bid}-H{h + 1}-R{row + 1:02d}-{pos + 1:02d}",
                        hall_id=hall_id,
                        building_id=bid,
                        x_m=2.0 + pos * 0.6,
                        y_m=2.0 + row * 3.0,
                        cooling_type="direct-to-chip",
                        design_kw=feed_rating_kw,
                        cooling_unit_id=hall_units[k % len(hall_units)],
                        pod_id=bid,
                        status="active",
                        nodes=((node_model, nodes_per_rack),),
                    )
                )
                for s in "AB":
                    link(pdus[s], None, s, feed_rating_kw, rack=rack_id)

    switches: list[SwitchSnap] = []
    links: list[LinkSnap] = []
    if with_fabric:
        switches, links = inventory_for_campus(
            racks,
            pods,
            specs["switch_models"][switch_model],
            node,
            inter_island_oversubscription=inter_island_oversubscription,
        )
    snap = CampusSnapshot(
        id=1,
        name=f"Synthetic {gpus:,}-GPU campus",
        grid_capacity_kw=sum(u.capacity_kw for u in utility),
        price_usd_per_kwh=cat.default_value("price_usd_per_kwh"),
        design_pue=cat.default_value("pue_liquid"),
        ambient_temp_c=25.0,
        other_it_fraction=cat.default_value("other_it_fraction"),
        buildings=tuple(buildings),
        halls=tuple(halls),
        racks=tuple(racks),
        utility_feeds=tuple(utility),
        power_devices=tuple(devices),
        power_feeds=tuple(feeds),
        cooling_plants=tuple(plants),
        cooling_units=tuple(units),
        pods=tuple(pods),
        switches=tuple(switches),
        links=tuple(links),
        **specs,
    )
    return with_allowance(snap)


def with_allowance(snap: CampusSnapshot) -> CampusSnapshot:
    """The snapshot with ``other_it_fraction`` the published share of IT outside the servers (the catalog's
    ~10 %) less the network it inventories: what is left is storage, CPU nodes and management, the
    allowance (``energy.allowance_kw``). The generator writes its documents' fraction by the same rule."""
    f = cat.default_value("other_it_fraction")
    servers_kw = sum(snap.node_power_w(slug) * n for r in snap.racks for slug, n in r.nodes) / 1000.0
    network_kw = it_breakdown(snap).network_kw
    other_kw = max(servers_kw / (1.0 - f) - servers_kw - network_kw, 0.0)
    fraction = other_kw / (servers_kw + other_kw) if servers_kw > 0 else f
    return replace(snap, other_it_fraction=fraction)
