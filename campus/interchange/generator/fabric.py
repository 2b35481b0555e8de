"""The back-end fabric per pod: leaf groups per rail (rail-optimized) or per row segment
(middle-of-rack), a spine/core group per pod, an inter-island super-spine, and cable media by length."""

from __future__ import annotations

import math

from campus.analysis.fabric import design_inter_island, leaf_down_ports, leaf_uplinks, pod_tiers
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
    multi = len(b.pods) > 1
    # Racks of each pod with where they stand: (building, hall index, hall spec, row spec, rack spec, plan).
    by_pod: dict[str, list[tuple[int, int, Row, Row, Row, RackPlan]]] = {}
    for bi, halls in enumerate(b.layout):
        for hi, rows in enumerate(halls):
            hall = b.buildings[bi]["halls"][hi]
            for row_spec, members in rows:
                for spec, plan in members:
                    by_pod.setdefault(spec["pod"], []).append((bi, hi, hall, row_spec, spec, plan))
    tops: list[tuple[str, int, int]] = []  # (top group name, end points, building)
    for pod in b.pods:
        pname = pod["name"]
        members = by_pod[pname]
        node = b.catalog.node_models[members[0][5].node_model]
        rails = int(node["nics"])
        nic_speed = float(node["nic_speed_gbps"])
        endpoints = sum(plan.nodes for *_, plan in members) * rails
        # Ports the pod's top tier gives to the campus layer (none for a lone pod).
        uplinks = math.ceil(endpoints / b.oversubscription) if multi else 0
        halls_of_pod = {(m[0], m[1]) for m in members}
        tiers = pod_tiers(max(1, endpoints), k, 1.0, uplinks)
        if tiers == 1 and len(halls_of_pod) > 1:
            tiers = 2  # one switch serves one hall; a pod across halls gets leaves per hall and a spine
        single = tiers == 1
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
                count = math.ceil(nodes_here / down)
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
                count = math.ceil(ports / down)
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
        tier_names = ["spine", "core"][: tiers - 1]
        lower = leaf_groups
        for t, tier in enumerate(tier_names):
            top = t == len(tier_names) - 1
            count = math.ceil((ports_up + uplinks) / k) if top else math.ceil(ports_up / half)
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
        tops.append((lower[0][0], endpoints, home_b))

    if multi:
        inter = design_inter_island([e for _, e, _ in tops], switch, b.oversubscription)
        name = "SUPER-SPINE"
        home = b.buildings[0]["halls"][0]
        b.switches.append(b.switch(name, None, "super-spine", inter.switches, 0, home))
        for top_name, e, bi in tops:
            dx = abs(b.buildings[bi]["x_m"] - b.buildings[0]["x_m"])
            dy = abs(b.buildings[bi]["y_m"] - b.buildings[0]["y_m"])
            length = ceil_to(dx + dy + INTER_BUILDING_EXTRA_M, 1.0)
            b.link(None, name, math.ceil(e / b.oversubscription), length, speed, a_switch=top_name)
