"""The back-end fabric per pod: leaf groups per rail (rail-optimized) or per row segment
(middle-of-rack), a spine/core group per pod, and above the pods what ``plan_campus`` chooses: an
oversubscribed super-spine layer (one tier or more) or a shared non-blocking top tier; cable media by length.

The planning margin (``Builder.margin_factor``) sizes the switches for that many more end points than are
cabled, so a leaf group keeps spare ports for racks added later; only ports in use are cabled."""

from __future__ import annotations

import math

from campus.analysis.fabric import leaf_down_ports, leaf_uplinks, plan_campus, tier_name
from campus.analysis.snapshot import SwitchSpec
from campus.interchange.generator.builder import Builder
from campus.interchange.generator.common import (
    HALL_MARGIN_M,
    INTER_BUILDING_EXTRA_M,
    MOR_SEGMENT_RACKS,
    SERVICE_ZONE_M,
    SPINE_CORE_M,
    UPLINK_M_SAME_HALL,
    Row,
    ceil_to,
)
from campus.interchange.generator.plan import RackPlan


def build_fabric(b: Builder) -> None:
    row = b.switch_row
    switch = SwitchSpec(
        row["slug"],
        row["name"],
        row["fabric"],
        int(row["radix"]),
        float(row["port_speed_gbps"]),
        float(row["power_w_copper"]),
        float(row["power_w_optics"]),
    )
    k, half = switch.radix, switch.radix // 2
    speed = float(row["port_speed_gbps"])
    f = b.margin_factor
    # Racks of each pod with where they stand: (building, hall index, hall spec, row spec, rack spec, plan).
    by_pod: dict[str, list[tuple[int, int, Row, Row, Row, RackPlan]]] = {}
    for bi, halls in enumerate(b.layout):
        for hi, rows in enumerate(halls):
            hall = b.buildings[bi]["halls"][hi]
            for row_spec, members in rows:
                for spec, plan in members:
                    by_pod.setdefault(spec["pod"], []).append((bi, hi, hall, row_spec, spec, plan))
    pod_endpoints = [
        sum(plan.nodes for *_, plan in by_pod[pod["name"]])
        * int(b.catalog.node_models[by_pod[pod["name"]][0][5].node_model]["nics"])
        for pod in b.pods
    ]
    # Tiers and uplinks per pod and the layer above them, for the end points with the margin.
    leaves = [_leaf_count(b, by_pod[pod["name"]], half, f) for pod in b.pods]
    campus = plan_campus(
        [math.ceil(e * f) for e in pod_endpoints], k, b.oversubscription, island_leaves=leaves
    )
    b.fabric_plan = campus
    tops: list[tuple[str, int, int]] = []  # (top group name, cables up, building)
    for pi, pod in enumerate(b.pods):
        pname = pod["name"]
        members = by_pod[pname]
        node = b.catalog.node_models[members[0][5].node_model]
        rails = int(node["nics"])
        nic_speed = float(node["nic_speed_gbps"])
        endpoints = pod_endpoints[pi]
        # Ports the pod's top tier gives to the campus layer, designed (margin) and cabled; none alone.
        uplinks = campus.island_uplinks[pi]
        if campus.shared:
            pod["oversubscription"] = 1.0
        halls_of_pod = {(m[0], m[1]) for m in members}
        tiers = campus.island_tiers[pi]
        if tiers == 1 and len(halls_of_pod) > 1 and not campus.shared:
            tiers = 2  # one switch serves one hall; a pod across halls gets leaves per hall and a spine
        single = tiers == 1 and not campus.shared
        down = leaf_down_ports(k, 1.0) if not single else k
        home_b, home_h, home_hall = members[0][0], members[0][1], members[0][2]
        spine_xy = (
            home_hall["x_m"] + home_hall["width_m"] / 2,
            home_hall["y_m"] + home_hall["length_m"] - SERVICE_ZONE_M / 2,
        )

        # (name, count, building, hall index, cables up: the leaves' down-ports in use, non-blocking)
        leaf_groups: list[tuple[str, int, int, int, int]] = []
        if b.topology == "rail-optimized":
            # One leaf group per rail per hall of the pod, at the end of the pod's rows; a pod whose
            # end points fit one switch has that one switch for every rail.
            by_hall: dict[tuple[int, int], list] = {}
            for m in members:
                by_hall.setdefault((m[0], m[1]), []).append(m)
            for (bi, hi), racks in by_hall.items():
                hall = racks[0][2]
                ys = [spec["y_m"] for *_, spec, _ in racks]
                end_x, mid_y = hall["width_m"] - HALL_MARGIN_M / 2, (min(ys) + max(ys)) / 2
                nodes_here = sum(plan.nodes for *_, plan in racks)
                count = math.ceil(nodes_here * f / down)
                names = [
                    f"{pname}-LEAF-{b.buildings[bi]['name']}{hall['name']}"
                    + ("" if single else f"-RAIL{rail + 1}")
                    for rail in range(rails)
                ]
                for gname in dict.fromkeys(names):
                    b.switches.append(b.switch(gname, pname, "leaf", count, bi, hall))
                    leaf_groups.append((gname, count, bi, hi, leaf_uplinks(nodes_here, down, k)))
                for *_, spec, plan in racks:
                    length = ceil_to(abs(end_x - spec["x_m"]) + abs(mid_y - spec["y_m"]) + 3.0, 1.0)
                    if single:
                        b.link(pname, names[0], plan.nodes * rails, length, nic_speed, a_rack=spec["name"])
                        continue
                    for gname in names:
                        b.link(pname, gname, plan.nodes, length, nic_speed, a_rack=spec["name"])
        else:
            # One leaf group per row segment of at most MOR_SEGMENT_RACKS racks, in its middle rack:
            # every node cable then stays within copper (AEC) reach. A pod whose end points fit one
            # switch has one segment.
            by_row: dict[int, list] = {}
            for m in members:
                by_row.setdefault(id(m[3]), []).append(m)
            segments = (
                [members]
                if single
                else [
                    row[i : i + MOR_SEGMENT_RACKS]
                    for row in by_row.values()
                    for i in range(0, len(row), MOR_SEGMENT_RACKS)
                ]
            )
            for racks in segments:
                bi, hi, hall, _ = racks[0][:4]
                middle = racks[len(racks) // 2][4]
                ports = sum(plan.nodes for *_, plan in racks) * rails
                count = math.ceil(ports * f / down)
                gname = f"{pname}-LEAF-{middle['name']}"
                b.switches.append(b.switch(gname, pname, "leaf", count, bi, hall, rack=middle["name"]))
                leaf_groups.append((gname, count, bi, hi, leaf_uplinks(ports, down, k)))
                for *_, spec, plan in racks:
                    dist = abs(middle["x_m"] - spec["x_m"]) + abs(middle["y_m"] - spec["y_m"])
                    length = ceil_to(dist + 2.0, 0.5)
                    b.link(pname, gname, plan.nodes * rails, length, nic_speed, a_rack=spec["name"])

        # Spine (and core) groups per pod in the home hall's service zone. Non-blocking: each tier sends
        # up as many cables as come in from below; the top tier also holds the pod's campus uplinks.
        ports_up = sum(u for *_, u in leaf_groups)
        design_up = math.ceil(ports_up * f)
        tier_names = [tier_name(t) for t in range(1, tiers)]
        lower = leaf_groups
        for t, tier in enumerate(tier_names):
            top = t == len(tier_names) - 1
            count = math.ceil((design_up + uplinks) / k) if top else math.ceil(design_up / half)
            gname = f"{pname}-{tier.upper()}"
            home = b.buildings[home_b]["halls"][home_h]
            b.switches.append(b.switch(gname, pname, tier, count, home_b, home))
            for lname, _lcount, bi, hi, cables_up in lower:
                if t == 0:
                    hall = b.buildings[bi]["halls"][hi]
                    if (bi, hi) == (home_b, home_h):
                        length = UPLINK_M_SAME_HALL
                    else:
                        hx = b.buildings[bi]["x_m"] + hall["x_m"] + hall["width_m"] / 2
                        hy = b.buildings[bi]["y_m"] + hall["y_m"] + hall["length_m"] / 2
                        sx = b.buildings[home_b]["x_m"] + spine_xy[0]
                        sy = b.buildings[home_b]["y_m"] + spine_xy[1]
                        length = ceil_to(abs(hx - sx) + abs(hy - sy) + UPLINK_M_SAME_HALL, 1.0)
                    b.link(pname, gname, cables_up, length, speed, a_switch=lname)
                else:
                    b.link(pname, gname, cables_up, SPINE_CORE_M, speed, a_switch=lname)
            lower = [(gname, count, home_b, home_h, ports_up)]
        # Cabled up: all the top's cables to a shared top, else ceil(E / ratio) (ports in use only).
        cabled = ports_up if campus.shared else math.ceil(endpoints / b.oversubscription)
        if campus.shared and tiers == 1:
            for lname, _count, bi, _hi, cables_up in leaf_groups:
                tops.append((lname, cables_up, bi))
        else:
            tops.append((lower[0][0], cabled, home_b))

    if len(b.pods) > 1:
        _campus_layer(b, campus, tops, speed)


def _leaf_count(b: Builder, members: list, down: int, f: float) -> int:
    """Leaf switches a pod gets when it has a tier above its leaves (the grouping below: per rail and hall,
    or per row segment), so a shared spine tier can be checked to reach every one of them."""
    rails = int(b.catalog.node_models[members[0][5].node_model]["nics"])
    if b.topology == "rail-optimized":
        nodes: dict[tuple[int, int], int] = {}
        for m in members:
            nodes[(m[0], m[1])] = nodes.get((m[0], m[1]), 0) + m[5].nodes
        return sum(rails * math.ceil(n * f / down) for n in nodes.values())
    rows: dict[int, list] = {}
    for m in members:
        rows.setdefault(id(m[3]), []).append(m)
    return sum(
        math.ceil(sum(m[5].nodes for m in row[i : i + MOR_SEGMENT_RACKS]) * rails * f / down)
        for row in rows.values()
        for i in range(0, len(row), MOR_SEGMENT_RACKS)
    )


def _campus_layer(b: Builder, campus, tops: list[tuple[str, int, int]], speed: float) -> None:
    """The switches above the pods in the campus's first hall: the shared non-blocking top (tier named for
    its place above the pods' own tiers) or the super-spine layer, with a tier more past k islands."""
    home = b.buildings[0]["halls"][0]
    counts = campus.campus_switches_per_tier
    if campus.shared:
        tier = tier_name(campus.tiers - 1)
        names = [(tier.upper(), tier)]
    else:
        names = [("SUPER-SPINE", "super-spine")] + [
            (f"SUPER-SPINE-{j + 1}", f"super-spine-{j + 1}") for j in range(1, len(counts))
        ]
    for (name, tier), count in zip(names, counts, strict=True):
        b.switches.append(b.switch(name, None, tier, count, 0, home))
    first = names[0][0]
    for top_name, cables, bi in tops:
        dx = abs(b.buildings[bi]["x_m"] - b.buildings[0]["x_m"])
        dy = abs(b.buildings[bi]["y_m"] - b.buildings[0]["y_m"])
        length = ceil_to(dx + dy + INTER_BUILDING_EXTRA_M, 1.0)
        b.link(None, first, cables, length, speed, a_switch=top_name)
    carried = sum(c for _, c, _ in tops)
    for (lower, _), (upper, _) in zip(names, names[1:], strict=False):
        b.link(None, upper, carried, SPINE_CORE_M, speed, a_switch=lower)
