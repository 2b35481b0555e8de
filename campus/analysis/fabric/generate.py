"""The switch groups and link bundles the campus generator lays out: one fat tree per pod plus a campus layer.

Counts come from the design maths in ``campus.analysis.fabric.design``; this module only places them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from campus.analysis.fabric.campus import design_inter_island
from campus.analysis.fabric.design import (
    SPINE_CORE_M,
    design_fabric,
    leaf_uplinks,
    medium_for_length,
    tier_name,
)
from campus.analysis.snapshot import LinkSnap, NodeSpec, PodSnap, RackSnap, SwitchSnap, SwitchSpec


def inventory_for_campus(
    racks: Sequence[RackSnap],
    pods: Sequence[PodSnap],
    switch: SwitchSpec,
    node: NodeSpec,
    inter_island_oversubscription: float = 7.0,
) -> tuple[list[SwitchSnap], list[LinkSnap]]:
    """Switch groups and link bundles for racks of identical ``node`` servers, one fat tree per pod.

    Leaves are grouped per rack row (16 racks by y position), spines per hall when the island has three
    or more tiers, higher tiers per pod; a campus-level super-spine group per tier of the layer joins
    the pods (``design_inter_island``: the oversubscribed layer, a second tier past k pods). Counts follow
    ``design_fabric`` per pod, rounded up per group.
    """
    switches: list[SwitchSnap] = []
    links: list[LinkSnap] = []
    sid = lid = 0
    by_pod: dict[int, list[RackSnap]] = {}
    for r in racks:
        if r.pod_id is not None:
            by_pod.setdefault(r.pod_id, []).append(r)
    pod_top: dict[int, tuple[int, int]] = {}  # pod -> (top group id, end points)
    k, half = switch.radix, switch.radix // 2
    multi = sum(1 for p in pods if by_pod.get(p.id)) > 1
    for pod in pods:
        members = by_pod.get(pod.id, [])
        if not members:
            continue
        ports_per_rack = {r.id: sum(c for _, c in r.nodes) * node.nics for r in members}
        endpoints = sum(ports_per_rack.values())
        uplinks = math.ceil(endpoints / inter_island_oversubscription) if multi else 0
        design = design_fabric(
            max(1, endpoints), switch, pod.topology, pod.oversubscription, nics_per_gpu=1, uplinks=uplinks
        )
        down = design.leaf_down_ports
        l0 = design.layers[0]
        rows: dict[tuple[int, float], list[RackSnap]] = {}
        for r in members:
            rows.setdefault((r.hall_id, r.y_m), []).append(r)
        leaf_groups: list[tuple[int, int, int]] = []  # (group id, count, hall)
        cables_up: dict[int, int] = {}  # per group: cables to the tier above (only ports in use)
        for (hall, y), row in sorted(rows.items()):
            row_ports = sum(ports_per_rack[r.id] for r in row)
            n = max(1, math.ceil(row_ports / down))
            sid += 1
            switches.append(
                SwitchSnap(sid, f"{pod.name} leaf h{hall} y{y:g}", pod.id, "leaf", switch.slug, n, hall, None)
            )
            leaf_groups.append((sid, n, hall))
            cables_up[sid] = leaf_uplinks(row_ports, down, k)
            for r in row:
                lid += 1
                links.append(
                    LinkSnap(
                        lid,
                        pod.id,
                        "backend",
                        l0.medium,
                        ports_per_rack[r.id],
                        l0.length_m,
                        node.nic_speed_gbps,
                        r.id,
                        None,
                        sid,
                    )
                )
        if design.tiers == 1:
            pod_top[pod.id] = (leaf_groups[0][0], endpoints)
            continue
        lower: list[tuple[int, int, int | None]] = leaf_groups  # groups of the tier below
        for t in range(1, design.tiers):
            top = t == design.tiers - 1
            per_hall = not top and t == 1
            buckets: dict[int | None, list[tuple[int, int, int | None]]] = {}
            for g in lower:
                buckets.setdefault(g[2] if per_hall else None, []).append(g)
            layer = design.layers[t]
            new_groups: list[tuple[int, int, int | None]] = []
            for hall, groups in buckets.items():
                ports_up = sum(cables_up[gid] for gid, _, _ in groups)
                n = max(1, math.ceil((ports_up + uplinks) / k) if top else math.ceil(ports_up / half))
                sid += 1
                where = f"h{hall}" if hall is not None else "pod"
                switches.append(
                    SwitchSnap(
                        sid,
                        f"{pod.name} {tier_name(t)} {where}",
                        pod.id,
                        tier_name(t),
                        switch.slug,
                        n,
                        hall,
                        None,
                    )
                )
                new_groups.append((sid, n, hall))
                cables_up[sid] = ports_up
                for gid, _gn, _ in groups:
                    lid += 1
                    count = cables_up[gid]
                    links.append(
                        LinkSnap(
                            lid,
                            pod.id,
                            "backend",
                            layer.medium,
                            count,
                            layer.length_m,
                            switch.port_speed_gbps,
                            None,
                            gid,
                            sid,
                        )
                    )
            lower = new_groups
        pod_top[pod.id] = (lower[0][0], endpoints)
    if len(pod_top) >= 2:
        inter = design_inter_island([e for _, e in pod_top.values()], switch, inter_island_oversubscription)
        groups = []
        for j, count in enumerate(inter.switches_per_tier):
            sid += 1
            suffix = "" if j == 0 else f"-{j + 1}"
            switches.append(
                SwitchSnap(
                    sid,
                    f"Campus super-spine{suffix}",
                    None,
                    f"super-spine{suffix}",
                    switch.slug,
                    count,
                    None,
                    None,
                )
            )
            groups.append(sid)
        for gid, e in pod_top.values():
            lid += 1
            links.append(
                LinkSnap(
                    lid,
                    None,
                    "backend",
                    inter.medium,
                    math.ceil(e / inter_island_oversubscription),
                    inter.length_m,
                    switch.port_speed_gbps,
                    None,
                    gid,
                    groups[0],
                )
            )
        # a campus layer of more tiers than one (more islands than the radix) carries the uplinks on up
        for lower, upper in zip(groups, groups[1:], strict=False):
            lid += 1
            links.append(
                LinkSnap(
                    lid,
                    None,
                    "backend",
                    medium_for_length(SPINE_CORE_M),
                    inter.uplinks,
                    SPINE_CORE_M,
                    switch.port_speed_gbps,
                    None,
                    lower,
                    upper,
                )
            )
    return switches, links
