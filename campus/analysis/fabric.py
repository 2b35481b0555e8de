"""Back-end GPU fabric: fat-tree design from first principles, and a count of what the inventory holds.

Fat tree of radix-k switches (folded Clos). A leaf gives ``down = k * o / (1 + o)`` ports to end points
and the rest up (``o`` = oversubscription at the leaf, 1.0 = non-blocking: k/2 down, k/2 up). Middle
tiers split k/2 down, k/2 up; the top tier uses all k ports down. Reach with t tiers:
``k`` (t = 1) and ``down * k * (k/2)**(t-2)`` (t >= 2): k²/2 in two tiers and k³/4 in three when
non-blocking (Al-Fares, Loukissas and Vahdat, A Scalable, Commodity Data Center Network Architecture, SIGCOMM 2008, §2.2). Beyond that a fourth tier and so on.

Cable lengths follow the topology (SemiAnalysis, 100k H100 clusters, 2024-06): rail-optimized puts the leaves at the end of a row, so
node->leaf cables are tens of metres of optics; middle-of-rack puts the leaf in the row and the node
links are short DAC copper. The medium is the cheapest that reaches the length.

Power: a switch draws ``power_w_copper`` with copper ports and ``power_w_optics`` with optical ports;
the difference (~12 W a port for the Quantum-2 747 W / 1,500 W pair) is the transceivers the switch
powers, so a switch with a fraction f of optical ports draws copper + f * (optics - copper) and only
the *node-side* transceivers are added on top (power_w_per_end each). Active copper (AEC) ends draw
power_w_per_end at both ends.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from campus.analysis.snapshot import (
    CampusSnapshot,
    LinkSnap,
    MediumSpec,
    NodeSpec,
    PodSnap,
    RackSnap,
    SwitchSnap,
    SwitchSpec,
)

TIER_NAMES = ("leaf", "spine", "core", "super-spine")
# Upper reach of each cable class, shortest first (SemiAnalysis, 100k H100 clusters, 2024-06); beyond the
# last, coherent ZR.
REACH_M: tuple[tuple[str, float], ...] = (
    ("dac", 3.0),
    ("aec", 7.0),
    ("sr", 50.0),
    ("dr", 500.0),
    ("fr", 2000.0),
)
OPTICAL_MEDIA = frozenset({"sr", "dr", "fr", "zr"})
# Node-side transceivers per NIC port: a twin-port 2x400G module serves two ports
# (SemiAnalysis, 100k H100 clusters, 2024-06).
TRANSCEIVERS_PER_NIC = {"dual-port": 0.5}

# Typical cable runs, m (assumptions documented in docs/model.md).
NODE_LEAF_M = {"rail-optimized": 30.0, "middle-of-rack": 3.0}
LEAF_SPINE_M = 40.0  # within a hall: overhead trays to the hall's spine rows
SPINE_CORE_M = 150.0  # between halls of one building
INTER_ISLAND_M = 600.0  # between buildings of a campus


def tier_name(index: int) -> str:
    """Name of tier ``index`` (0 = leaf)."""
    return TIER_NAMES[index] if index < len(TIER_NAMES) else f"tier-{index + 1}"


def medium_for_length(length_m: float) -> str:
    """The cheapest medium that reaches ``length_m``: <=3 m dac, <=7 m aec, <=50 m sr, <=500 m dr,
    <=2 km fr, beyond zr."""
    if length_m < 0:
        raise ValueError("length_m: must be >= 0")
    for slug, reach in REACH_M:
        if length_m <= reach:
            return slug
    return "zr"


def leaf_down_ports(radix: int, oversubscription: float) -> int:
    return max(1, int(radix * oversubscription / (1.0 + oversubscription)))


def tiers_for(endpoints: int, radix: int, oversubscription: float = 1.0) -> int:
    """Fewest fat-tree tiers of radix-``radix`` switches that reach ``endpoints`` end points."""
    if endpoints <= radix:
        return 1
    down = leaf_down_ports(radix, oversubscription)
    tiers, reach = 2, down * radix
    while reach < endpoints:
        tiers += 1
        reach *= radix // 2
    return tiers


def max_endpoints(tiers: int, radix: int, oversubscription: float = 1.0) -> int:
    if tiers <= 1:
        return radix
    return leaf_down_ports(radix, oversubscription) * radix * (radix // 2) ** (tiers - 2)


@dataclass(frozen=True)
class FabricLayer:
    """The cables between tier ``lower`` and the tier above (lower = -1: end points to leaves)."""

    name: str  # "node-leaf", "leaf-spine", "spine-core", ...
    links: int
    length_m: float
    medium: str
    transceivers: float  # optical modules at both ends (node side reduced for twin-port NICs)


@dataclass(frozen=True)
class FabricDesign:
    """A fat-tree design: what ``design_fabric`` returns and the campus generator builds from.

    gpus, endpoints (NIC ports = gpus x nics_per_gpu), radix, topology, oversubscription (at the leaf);
    tiers; switches_per_tier (leaf first) and switches; layers (cables per tier boundary, length, medium);
    links and links_by_medium; transceivers and transceivers_by_medium; copper_share (copper cables /
    all cables); switch_power_kw, transceiver_power_kw, fabric_power_kw; bisection_tbps (half the end
    points at full port speed, divided by the oversubscription); max_endpoints at this tier count.
    """

    gpus: int
    endpoints: int
    radix: int
    port_speed_gbps: float
    topology: str
    oversubscription: float
    tiers: int
    switches_per_tier: tuple[int, ...]
    switches: int
    layers: tuple[FabricLayer, ...]
    links: int
    links_by_medium: dict[str, int]
    transceivers: float
    transceivers_by_medium: dict[str, float]
    copper_share: float
    switch_power_kw: float
    transceiver_power_kw: float
    fabric_power_kw: float
    bisection_tbps: float
    max_endpoints: int
    leaf_down_ports: int

    def as_dict(self) -> dict:
        d = asdict(self)
        d["switches_per_tier"] = {tier_name(i): n for i, n in enumerate(self.switches_per_tier)}
        return d


def _media_power(media: Mapping[str, MediumSpec] | None, slug: str) -> float:
    if media and slug in media:
        return media[slug].power_w_per_end
    return _DEFAULT_END_W.get(slug, 0.0)


# Fallback per-end power when no media table is given, W (catalog LINK_MEDIA values).
_DEFAULT_END_W = {"dac": 0.0, "aec": 6.0, "sr": 10.0, "dr": 12.0, "fr": 12.0, "zr": 20.0}


def _switch_tier_counts(endpoints: int, radix: int, tiers: int, down: int) -> list[int]:
    if tiers == 1:
        return [max(1, math.ceil(endpoints / radix))]
    half = radix // 2
    up = radix - down
    counts = [math.ceil(endpoints / down)]
    ports_up = counts[0] * up
    for _ in range(tiers - 2):
        n = math.ceil(ports_up / half)
        counts.append(n)
        ports_up = n * half
    counts.append(math.ceil(ports_up / radix))
    return counts


def design_fabric(
    gpus: int,
    switch: SwitchSpec,
    topology: str = "rail-optimized",
    oversubscription: float = 1.0,
    gpus_per_rack: int = 32,
    nics_per_gpu: int = 1,
    nic_kind: str = "connectx7",
    media: Mapping[str, MediumSpec] | None = None,
    node_leaf_m: float | None = None,
    leaf_spine_m: float = LEAF_SPINE_M,
    spine_core_m: float = SPINE_CORE_M,
) -> FabricDesign:
    """Size a fat tree for ``gpus`` GPUs of ``nics_per_gpu`` back-end ports each.

    ``node_leaf_m`` defaults by topology (rail-optimized 30 m of optics, middle-of-rack 3 m of DAC);
    layers above the second boundary use ``spine_core_m`` (and ``spine_core_m`` again beyond).
    ``gpus_per_rack`` is kept for callers that lay out racks; the counts do not depend on it.
    """
    if gpus <= 0:
        raise ValueError("gpus: must be > 0")
    if switch.radix < 4:
        raise ValueError("radix: must be >= 4")
    if oversubscription < 1.0:
        raise ValueError("oversubscription: must be >= 1")
    if nics_per_gpu <= 0:
        raise ValueError("nics_per_gpu: must be > 0")
    if gpus_per_rack <= 0:
        raise ValueError("gpus_per_rack: must be > 0")
    if node_leaf_m is None:
        if topology not in NODE_LEAF_M:
            raise ValueError(f"topology: must be one of {', '.join(NODE_LEAF_M)}")
        node_leaf_m = NODE_LEAF_M[topology]
    k = switch.radix
    endpoints = gpus * nics_per_gpu
    tiers = tiers_for(endpoints, k, oversubscription)
    down = leaf_down_ports(k, oversubscription) if tiers > 1 else k
    counts = _switch_tier_counts(endpoints, k, tiers, down)
    # cables per boundary: node->leaf = end points; above, every up port of the tier below
    layer_links = [endpoints]
    if tiers >= 2:
        layer_links.append(counts[0] * (k - down))
        for i in range(1, tiers - 1):
            layer_links.append(counts[i] * (k // 2))
    lengths = [node_leaf_m, leaf_spine_m] + [spine_core_m] * max(0, tiers - 2)
    names = ["node-leaf"] + [f"{tier_name(i)}-{tier_name(i + 1)}" for i in range(tiers - 1)]
    node_tx_per_port = TRANSCEIVERS_PER_NIC.get(nic_kind, 1.0)
    layers = []
    for i, links in enumerate(layer_links):
        medium = medium_for_length(lengths[i])
        optical = medium in OPTICAL_MEDIA
        tx = links * ((node_tx_per_port if i == 0 else 1.0) + 1.0) if optical else 0.0
        layers.append(FabricLayer(names[i], links, lengths[i], medium, tx))
    return _finish(gpus, endpoints, switch, topology, oversubscription, tiers, counts, layers, media, down)


def _finish(
    gpus: int,
    endpoints: int,
    switch: SwitchSpec,
    topology: str,
    oversubscription: float,
    tiers: int,
    counts: list[int],
    layers: list[FabricLayer],
    media: Mapping[str, MediumSpec] | None,
    down: int,
) -> FabricDesign:
    k = switch.radix
    links_by_medium: dict[str, int] = {}
    tx_by_medium: dict[str, float] = {}
    for layer in layers:
        links_by_medium[layer.medium] = links_by_medium.get(layer.medium, 0) + layer.links
        if layer.transceivers:
            tx_by_medium[layer.medium] = tx_by_medium.get(layer.medium, 0.0) + layer.transceivers
    total_links = sum(links_by_medium.values())
    copper = sum(n for m, n in links_by_medium.items() if m not in OPTICAL_MEDIA)
    # Optical share of each tier's ports: its down layer (i) and up layer (i + 1).
    switch_w = 0.0
    for i, n in enumerate(counts):
        ends = [layers[i]]
        if i + 1 < len(layers):
            ends.append(layers[i + 1])
        port_ends = sum(layer.links for layer in ends)
        optical_ends = sum(layer.links for layer in ends if layer.medium in OPTICAL_MEDIA)
        frac = optical_ends / port_ends if port_ends else 0.0
        switch_w += n * (switch.power_w_copper + frac * (switch.power_w_optics - switch.power_w_copper))
    tx_w = 0.0
    for i, layer in enumerate(layers):
        end_w = _media_power(media, layer.medium)
        if layer.medium in OPTICAL_MEDIA:
            if i == 0:  # node side only; switch-side modules are in the switch's optics power
                tx_w += (layer.transceivers - layer.links) * end_w
        else:
            tx_w += 2 * layer.links * end_w  # AEC retimers at both ends
    transceivers = sum(layer.transceivers for layer in layers)
    return FabricDesign(
        gpus=gpus,
        endpoints=endpoints,
        radix=k,
        port_speed_gbps=switch.port_speed_gbps,
        topology=topology,
        oversubscription=oversubscription,
        tiers=tiers,
        switches_per_tier=tuple(counts),
        switches=sum(counts),
        layers=tuple(layers),
        links=total_links,
        links_by_medium=links_by_medium,
        transceivers=transceivers,
        transceivers_by_medium=tx_by_medium,
        copper_share=copper / total_links if total_links else 0.0,
        switch_power_kw=switch_w / 1000.0,
        transceiver_power_kw=tx_w / 1000.0,
        fabric_power_kw=(switch_w + tx_w) / 1000.0,
        bisection_tbps=endpoints * switch.port_speed_gbps / 2.0 / oversubscription / 1000.0,
        max_endpoints=max_endpoints(tiers, k, oversubscription),
        leaf_down_ports=down,
    )


@dataclass(frozen=True)
class InterIslandDesign:
    """The layer joining compute islands, oversubscribed by ``oversubscription`` (Meta: 7:1)."""

    islands: int
    uplinks: int
    switches: int
    medium: str
    length_m: float
    transceivers: int
    fabric_power_kw: float
    bisection_tbps: float

    def as_dict(self) -> dict:
        return asdict(self)


def design_inter_island(
    island_endpoints: Sequence[int],
    switch: SwitchSpec,
    oversubscription: float = 7.0,
    length_m: float = INTER_ISLAND_M,
) -> InterIslandDesign:
    """Each island sends ``ceil(endpoints / oversubscription)`` uplinks to a super-spine layer of
    ``ceil(uplinks / radix)`` switches. The island-side ports are assumed to be spare ports of the
    island's top tier (its switch count is rounded up), so no island switches are added."""
    if oversubscription < 1.0:
        raise ValueError("oversubscription: must be >= 1")
    if len(island_endpoints) < 2:
        return InterIslandDesign(len(island_endpoints), 0, 0, "", length_m, 0, 0.0, 0.0)
    uplinks = sum(math.ceil(e / oversubscription) for e in island_endpoints)
    switches = math.ceil(uplinks / switch.radix)
    medium = medium_for_length(length_m)
    optical = medium in OPTICAL_MEDIA
    power_w = switches * (switch.power_w_optics if optical else switch.power_w_copper)
    return InterIslandDesign(
        islands=len(island_endpoints),
        uplinks=uplinks,
        switches=switches,
        medium=medium,
        length_m=length_m,
        transceivers=2 * uplinks if optical else 0,
        fabric_power_kw=power_w / 1000.0,
        bisection_tbps=uplinks * switch.port_speed_gbps / 2.0 / 1000.0,
    )


@dataclass(frozen=True)
class CampusFabricDesign:
    """One fat tree per island plus the inter-island layer; totals across both."""

    islands: tuple[FabricDesign, ...]
    inter_island: InterIslandDesign
    tiers: int
    switches: int
    links_by_medium: dict[str, int]
    transceivers: float
    copper_share: float
    fabric_power_kw: float

    def as_dict(self) -> dict:
        return {
            "islands": [d.as_dict() for d in self.islands],
            "inter_island": self.inter_island.as_dict(),
            "tiers": self.tiers,
            "switches": self.switches,
            "links_by_medium": self.links_by_medium,
            "transceivers": self.transceivers,
            "copper_share": self.copper_share,
            "fabric_power_kw": self.fabric_power_kw,
        }


def design_campus_fabric(
    island_gpus: Sequence[int],
    switch: SwitchSpec,
    topology: str = "rail-optimized",
    inter_island_oversubscription: float = 7.0,
    inter_island_m: float = INTER_ISLAND_M,
    **island_kw,
) -> CampusFabricDesign:
    """Non-blocking islands of ``island_gpus`` GPUs each, joined above by an oversubscribed layer."""
    if not island_gpus:
        raise ValueError("island_gpus: must not be empty")
    islands = tuple(design_fabric(n, switch, topology, **island_kw) for n in island_gpus)
    inter = design_inter_island(
        [d.endpoints for d in islands], switch, inter_island_oversubscription, inter_island_m
    )
    links: dict[str, int] = {}
    for d in islands:
        for m, n in d.links_by_medium.items():
            links[m] = links.get(m, 0) + n
    if inter.uplinks:
        links[inter.medium] = links.get(inter.medium, 0) + inter.uplinks
    total = sum(links.values())
    copper = sum(n for m, n in links.items() if m not in OPTICAL_MEDIA)
    return CampusFabricDesign(
        islands=islands,
        inter_island=inter,
        tiers=max(d.tiers for d in islands) + (1 if inter.switches else 0),
        switches=sum(d.switches for d in islands) + inter.switches,
        links_by_medium=links,
        transceivers=sum(d.transceivers for d in islands) + inter.transceivers,
        copper_share=copper / total if total else 0.0,
        fabric_power_kw=sum(d.fabric_power_kw for d in islands) + inter.fabric_power_kw,
    )


# ---------------------------------------------------------------- inventory generation (campus generator)


def inventory_for_campus(
    racks: Sequence[RackSnap],
    pods: Sequence[PodSnap],
    switch: SwitchSpec,
    node: NodeSpec,
    inter_island_oversubscription: float = 7.0,
) -> tuple[list[SwitchSnap], list[LinkSnap]]:
    """Switch groups and link bundles for racks of identical ``node`` servers, one fat tree per pod.

    Leaves are grouped per rack row (16 racks by y position), spines per hall when the island has three
    or more tiers, higher tiers per pod; one campus-level super-spine group joins the pods. Counts follow
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
    for pod in pods:
        members = by_pod.get(pod.id, [])
        if not members:
            continue
        ports_per_rack = {r.id: sum(c for _, c in r.nodes) * node.nics for r in members}
        endpoints = sum(ports_per_rack.values())
        design = design_fabric(max(1, endpoints), switch, pod.topology, pod.oversubscription, nics_per_gpu=1)
        down = design.leaf_down_ports
        l0 = design.layers[0]
        rows: dict[tuple[int, float], list[RackSnap]] = {}
        for r in members:
            rows.setdefault((r.hall_id, r.y_m), []).append(r)
        leaf_groups: list[tuple[int, int, int]] = []  # (group id, count, hall)
        for (hall, y), row in sorted(rows.items()):
            row_ports = sum(ports_per_rack[r.id] for r in row)
            n = max(1, math.ceil(row_ports / down))
            sid += 1
            switches.append(
                SwitchSnap(sid, f"{pod.name} leaf h{hall} y{y:g}", pod.id, "leaf", switch.slug, n, hall, None)
            )
            leaf_groups.append((sid, n, hall))
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
        up = k - down
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
                ports_up = sum(n for _, n, _ in groups) * (up if t == 1 else half)
                n = max(1, math.ceil(ports_up / (k if top else half)))
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
                for gid, gn, _ in groups:
                    lid += 1
                    count = gn * (up if t == 1 else half)
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
        sid += 1
        switches.append(
            SwitchSnap(
                sid, "Campus super-spine", None, "super-spine", switch.slug, inter.switches, None, None
            )
        )
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
                    sid,
                )
            )
    return switches, links


# ---------------------------------------------------------------- counting the inventory


@dataclass
class PodFabric:
    pod_id: int | None  # None: campus level (inter-island)
    name: str
    gpus: int
    tiers: int
    tier_names: list[str]
    switches: int
    switches_by_tier: dict[str, int]
    links: int
    links_by_medium: dict[str, int]
    transceivers: float
    copper_share: float
    switch_power_kw: float
    transceiver_power_kw: float
    fabric_power_kw: float
    oversubscription: float
    bisection_tbps: float
    design_tiers: int | None = None  # tiers a fat tree of the pod's switch model needs for its end points


@dataclass
class FabricSummary:
    tiers: int  # most tiers in any pod, plus one when a campus layer joins pods
    switches: int
    transceivers: float
    links: int
    links_by_medium: dict[str, int]
    copper_share: float
    switch_power_kw: float
    transceiver_power_kw: float
    fabric_power_kw: float
    pods: list[PodFabric] = field(default_factory=list)
    # where the power (so the heat) is: ("hall", id), ("building", id) for a switch placed only by its
    # pod's building, ("campus", 0) for one placed nowhere; sums to fabric_power_kw
    power_kw_by_place: dict[tuple[str, int], float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = asdict(self)
        out.pop("power_kw_by_place")
        return out


def _tier_rank(tier: str) -> int:
    if tier in TIER_NAMES:
        return TIER_NAMES.index(tier)
    if tier.startswith("tier-") and tier[5:].isdigit():
        return int(tier[5:]) - 1
    return 0


def fabric_from_inventory(snap: CampusSnapshot, network: str = "backend") -> FabricSummary:
    """Count the switch groups and link bundles of one network (default: the back-end GPU fabric).

    transceivers = 2 per optical cable, except that node-side ends of racks whose servers all use
    twin-port NICs count half; copper_share = non-optical cables / all cables (NVLink excluded).
    """
    media = snap.media
    sw_by_id = {s.id: s for s in snap.switches if s.network == network}
    link_rows = [x for x in snap.links if x.network == network and x.medium != "nvlink"]
    rack_by_id = {r.id: r for r in snap.racks}
    # port ends per switch group, and optical ones
    ends: dict[int, int] = {}
    optical_ends: dict[int, int] = {}

    def is_optical(slug: str) -> bool:
        spec = media.get(slug)
        return spec.is_optical if spec is not None else slug in OPTICAL_MEDIA

    def node_tx_factor(rack_id: int) -> float:
        r = rack_by_id.get(rack_id)
        if r is None or not r.nodes:
            return 1.0
        kinds = {snap.node_models[s].nic_kind for s, _ in r.nodes if s in snap.node_models}
        if len(kinds) == 1:
            return TRANSCEIVERS_PER_NIC.get(kinds.pop(), 1.0)
        return 1.0

    per_pod: dict[int | None, dict] = {}
    pod_building = {p.id: p.building_id for p in snap.pods}
    by_place: dict[tuple[str, int], float] = {}

    def switch_place(s: SwitchSnap | None) -> tuple[str, int]:
        if s is not None and s.hall_id is not None:
            return ("hall", s.hall_id)
        if s is not None and s.rack_id in rack_by_id:
            return ("hall", rack_by_id[s.rack_id].hall_id)
        if s is not None and pod_building.get(s.pod_id) is not None:
            return ("building", pod_building[s.pod_id])
        return ("campus", 0)

    def put(place: tuple[str, int], watts: float) -> None:
        by_place[place] = by_place.get(place, 0.0) + watts / 1000.0

    def end_place(rack_id: int | None, switch_id: int | None) -> tuple[str, int]:
        if rack_id in rack_by_id:
            return ("hall", rack_by_id[rack_id].hall_id)
        return switch_place(sw_by_id.get(switch_id) if switch_id is not None else None)

    def bucket(pod_id: int | None) -> dict:
        b = per_pod.get(pod_id)
        if b is None:
            b = {"links": {}, "tx": 0.0, "tx_w": 0.0, "sw_w": 0.0, "switches": {}, "gpus": 0}
            per_pod[pod_id] = b
        return b

    campus_uplink_gbps = 0.0  # islands' uplinks into campus-level switches
    for x in link_rows:
        opt = is_optical(x.medium)
        below, above = sw_by_id.get(x.a_switch_id), sw_by_id.get(x.b_switch_id)
        if below is not None and below.pod_id is not None and above is not None and above.pod_id is None:
            campus_uplink_gbps += x.count * x.speed_gbps
        for sid in (x.a_switch_id, x.b_switch_id):
            if sid is not None:
                ends[sid] = ends.get(sid, 0) + x.count
                if opt:
                    optical_ends[sid] = optical_ends.get(sid, 0) + x.count
        b = bucket(x.pod_id)
        b["links"][x.medium] = b["links"].get(x.medium, 0) + x.count
        end_w = media[x.medium].power_w_per_end if x.medium in media else _DEFAULT_END_W.get(x.medium, 0.0)
        if opt:
            node_side = x.count * node_tx_factor(x.a_rack_id) if x.a_rack_id is not None else 0.0
            switch_side = x.count * ((x.a_switch_id is not None) + (x.b_switch_id is not None))
            b["tx"] += node_side + switch_side
            b["tx_w"] += node_side * end_w  # switch-side modules are in the switch's optics power
            put(end_place(x.a_rack_id, None), node_side * end_w)
        else:
            b["tx_w"] += 2 * x.count * end_w
            put(end_place(x.a_rack_id, x.a_switch_id), x.count * end_w)
            put(end_place(None, x.b_switch_id), x.count * end_w)
    for s in sw_by_id.values():
        spec = snap.switch_models.get(s.model)
        b = bucket(s.pod_id)
        b["switches"][s.tier] = b["switches"].get(s.tier, 0) + s.count
        if spec is None:
            continue
        frac = optical_ends.get(s.id, 0) / ends[s.id] if ends.get(s.id) else 0.0
        watts = s.count * (spec.power_w_copper + frac * (spec.power_w_optics - spec.power_w_copper))
        b["sw_w"] += watts
        put(switch_place(s), watts)
    endpoints_by_pod: dict[int, int] = {}
    endpoint_gbps_by_pod: dict[int, float] = {}  # each NIC port at min(NIC speed, the pod's port speed)
    pods_by_id = {p.id: p for p in snap.pods}
    for r in snap.racks:
        if r.pod_id is None:
            continue
        ports = 0
        gbps = 0.0
        port_speed = _pod_port_speed(snap, pods_by_id.get(r.pod_id))
        for slug, count in r.nodes:
            spec = snap.node_models.get(slug)
            if spec is not None:
                ports += count * spec.nics
                gbps += count * spec.nics * min(spec.nic_speed_gbps, port_speed)
        endpoints_by_pod[r.pod_id] = endpoints_by_pod.get(r.pod_id, 0) + ports
        endpoint_gbps_by_pod[r.pod_id] = endpoint_gbps_by_pod.get(r.pod_id, 0.0) + gbps
        if r.pod_id in per_pod:
            per_pod[r.pod_id]["gpus"] += sum(snap.rack_gpus(r).values())
    out: list[PodFabric] = []
    for pod_id, b in sorted(per_pod.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        pod = pods_by_id.get(pod_id) if pod_id is not None else None
        n_links = sum(b["links"].values())
        copper = sum(n for m, n in b["links"].items() if not is_optical(m))
        tiers = sorted(b["switches"], key=_tier_rank)
        endpoints = endpoints_by_pod.get(pod_id, 0) if pod_id is not None else 0
        over = pod.oversubscription if pod is not None else 1.0
        # A pod is a non-blocking island: half its end points talk to the other half at full NIC speed.
        # Its oversubscription applies above it, to the campus layer, whose bisection is half the
        # bandwidth of the uplinks the inventory holds into it.
        if pod_id is not None:
            bisection_gbps = endpoint_gbps_by_pod.get(pod_id, 0.0) / 2.0
        else:
            bisection_gbps = campus_uplink_gbps / 2.0
        out.append(
            PodFabric(
                pod_id=pod_id,
                name=pod.name if pod is not None else "campus",
                gpus=b["gpus"],
                tiers=len(tiers),
                tier_names=tiers,
                switches=sum(b["switches"].values()),
                switches_by_tier=b["switches"],
                links=n_links,
                links_by_medium=b["links"],
                transceivers=b["tx"],
                copper_share=copper / n_links if n_links else 0.0,
                switch_power_kw=b["sw_w"] / 1000.0,
                transceiver_power_kw=b["tx_w"] / 1000.0,
                fabric_power_kw=(b["sw_w"] + b["tx_w"]) / 1000.0,
                oversubscription=over,
                bisection_tbps=bisection_gbps / 1000.0,
                design_tiers=_design_tiers(snap, pod, endpoints),
            )
        )
    links_by_medium: dict[str, int] = {}
    for p in out:
        for m, n in p.links_by_medium.items():
            links_by_medium[m] = links_by_medium.get(m, 0) + n
    n_links = sum(links_by_medium.values())
    copper = sum(n for m, n in links_by_medium.items() if not is_optical(m))
    pod_tiers = max((p.tiers for p in out if p.pod_id is not None), default=0)
    campus_tiers = sum(1 for p in out if p.pod_id is None and p.switches > 0)
    sw_kw = sum(p.switch_power_kw for p in out)
    tx_kw = sum(p.transceiver_power_kw for p in out)
    return FabricSummary(
        tiers=pod_tiers + campus_tiers,
        switches=sum(p.switches for p in out),
        transceivers=sum(p.transceivers for p in out),
        links=n_links,
        links_by_medium=links_by_medium,
        copper_share=copper / n_links if n_links else 0.0,
        switch_power_kw=sw_kw,
        transceiver_power_kw=tx_kw,
        fabric_power_kw=sw_kw + tx_kw,
        pods=out,
        power_kw_by_place=by_place,
    )


def _design_tiers(snap: CampusSnapshot, pod: PodSnap | None, endpoints: int) -> int | None:
    if pod is None or endpoints <= 0 or pod.switch_model not in snap.switch_models:
        return None
    return tiers_for(endpoints, snap.switch_models[pod.switch_model].radix)


def _pod_port_speed(snap: CampusSnapshot, pod: PodSnap | None) -> float:
    if pod is not None and pod.switch_model in snap.switch_models:
        return snap.switch_models[pod.switch_model].port_speed_gbps
    return 400.0
