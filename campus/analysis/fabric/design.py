"""Back-end GPU fabric design: fat-tree sizing from first principles, cable media by length, fabric power.

Fat tree of radix-k switches (folded Clos). A leaf gives ``down = k * o / (1 + o)`` ports to end points
and the rest up (``o`` = oversubscription at the leaf, 1.0 = non-blocking: k/2 down, k/2 up). Middle
tiers split k/2 down, k/2 up; the top tier uses all k ports: down, and up to a campus layer when
the island has one (extra top-tier switches hold those uplinks). Only ports in use are cabled. Reach with t tiers:
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
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from campus.analysis.snapshot import MediumSpec, SwitchSpec

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


def top_switches_reachable(tiers: int, radix: int, down: int) -> int:
    """Most top-tier switches a ``tiers``-tier fat tree can wire so that every switch of the tier below
    reaches each of them (a two-tier leaf's ``radix - down`` up-ports, then ``radix/2`` per middle tier):
    ``(k - down) * (k/2)**(t-2)``. More top switches than this and some lower switch cannot reach them all,
    so the tree does not close."""
    if tiers <= 1:
        return 1
    return (radix - down) * (radix // 2) ** (tiers - 2)


def closes(endpoints: int, radix: int, tiers: int, oversubscription: float = 1.0, uplinks: int = 0) -> bool:
    """Whether ``tiers`` tiers of radix-``radix`` switches hold ``endpoints`` end points and ``uplinks``
    ports up to a campus layer: one switch holds both on its ``radix`` ports; with two or more, the top tier
    needs ``ceil((cables from below + uplinks) / radix)`` switches, no more than ``top_switches_reachable``."""
    if tiers <= 1:
        return endpoints + uplinks <= radix
    down = leaf_down_ports(radix, oversubscription)
    cables = leaf_uplinks(endpoints, down, radix)
    return cables + uplinks <= radix * top_switches_reachable(tiers, radix, down)


def tiers_for(endpoints: int, radix: int, oversubscription: float = 1.0) -> int:
    """Fewest fat-tree tiers of radix-``radix`` switches that reach ``endpoints`` end points."""
    return pod_tiers(endpoints, radix, oversubscription)


def pod_tiers(endpoints: int, radix: int, oversubscription: float = 1.0, uplinks: int = 0) -> int:
    """Fewest tiers of an island of ``endpoints`` end points whose top tier also carries ``uplinks`` ports up
    to a campus layer (``closes``): the uplinks take top-tier ports, so an island at the two-tier limit
    with uplinks needs a third tier (8,192 end points on radix 128 with 1,171 uplinks: 3 tiers)."""
    tiers = 1
    while not closes(endpoints, radix, tiers, oversubscription, uplinks):
        tiers += 1
    return tiers


def leaf_uplinks(ports_in_use: int, down: int, radix: int) -> int:
    """Up-ports a leaf cables for ``ports_in_use`` end-point ports: in proportion to its split
    (``radix - down`` up for ``down`` down), so the same as in use when non-blocking."""
    return math.ceil(ports_in_use * (radix - down) / down)


def max_endpoints(
    tiers: int, radix: int, oversubscription: float = 1.0, uplink_oversubscription: float | None = None
) -> int:
    """Most end points ``tiers`` tiers reach: ``down * k * (k/2)**(t-2)`` (k²/2 and k³/4 non-blocking).
    With ``uplink_oversubscription`` the top tier also sends ``ceil(E / ratio)`` uplinks to a campus layer,
    which take its ports (radix 128, two tiers, 7:1: 7,168 rather than 8,192)."""
    if tiers <= 1:
        if uplink_oversubscription is None:
            return radix
        return max(e for e in range(radix + 1) if e + math.ceil(e / uplink_oversubscription) <= radix)
    reach = leaf_down_ports(radix, oversubscription) * radix * (radix // 2) ** (tiers - 2)
    if uplink_oversubscription is None:
        return reach
    lo, hi = 0, reach  # closes() is monotone in the end points: the largest that closes, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if closes(mid, radix, tiers, oversubscription, math.ceil(mid / uplink_oversubscription)):
            lo = mid
        else:
            hi = mid - 1
    return lo


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


def media_power_w_per_end(media: Mapping[str, MediumSpec] | None, slug: str) -> float:
    """Power of one end of a cable of medium ``slug``, W: the media table's, else the catalog default."""
    if media and slug in media:
        return media[slug].power_w_per_end
    return _DEFAULT_END_W.get(slug, 0.0)


# Fallback per-end power when no media table is given, W (catalog LINK_MEDIA values).
_DEFAULT_END_W = {"dac": 0.0, "aec": 6.0, "sr": 10.0, "dr": 12.0, "fr": 12.0, "zr": 20.0}


def _switch_tier_counts(
    endpoints: int, radix: int, tiers: int, down: int, uplinks: int = 0
) -> tuple[list[int], list[int]]:
    """Switches per tier (leaf first) and cables per boundary (node->leaf first). Only ports in use are
    cabled: a leaf's uplinks follow its end points in use; a middle tier, non-blocking, sends up as many
    as come in from below; the top tier takes what comes from below plus ``uplinks`` to a campus layer."""
    if tiers == 1:
        return [max(1, math.ceil((endpoints + uplinks) / radix))], [endpoints]
    half = radix // 2
    counts = [math.ceil(endpoints / down)]
    ports_up = leaf_uplinks(endpoints, down, radix)
    layer_links = [endpoints, ports_up]
    for _ in range(tiers - 2):
        counts.append(math.ceil(ports_up / half))
        layer_links.append(ports_up)
    counts.append(math.ceil((ports_up + uplinks) / radix))
    return counts, layer_links


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
    uplinks: int = 0,
    tiers: int | None = None,
) -> FabricDesign:
    """Size a fat tree for ``gpus`` GPUs of ``nics_per_gpu`` back-end ports each.

    ``uplinks``: ports the top tier gives to a campus layer above the island (0 for a lone island);
    they take top-tier ports, so they add top-tier switches and, past what the tiers can reach
    (``closes``), a tier.
    ``tiers``: the island's own tiers when its top is shared with other islands (``plan_campus``: a
    non-blocking top above islands that sends all its cables up); None, the fewest that close.

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
    if uplinks < 0:
        raise ValueError("uplinks: must be >= 0")
    if tiers is not None and tiers < 1:
        raise ValueError("tiers: must be >= 1")
    if node_leaf_m is None:
        if topology not in NODE_LEAF_M:
            raise ValueError(f"topology: must be one of {', '.join(NODE_LEAF_M)}")
        node_leaf_m = NODE_LEAF_M[topology]
    k = switch.radix
    endpoints = gpus * nics_per_gpu
    if tiers is None:
        tiers = pod_tiers(endpoints, k, oversubscription, uplinks)
    down = leaf_down_ports(k, oversubscription) if tiers > 1 else k
    counts, layer_links = _switch_tier_counts(endpoints, k, tiers, down, uplinks)
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
        end_w = media_power_w_per_end(media, layer.medium)
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
