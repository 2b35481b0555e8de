"""Islands on a campus: how compute islands are joined (``plan_campus``), the layer above them
(``design_inter_island``) and a whole campus's fabric (``design_campus_fabric``); docs/model.md §4."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from campus.analysis.fabric.design import (
    INTER_ISLAND_M,
    OPTICAL_MEDIA,
    SPINE_CORE_M,
    FabricDesign,
    _switch_tier_counts,
    design_fabric,
    leaf_down_ports,
    leaf_uplinks,
    medium_for_length,
    pod_tiers,
    tiers_for,
    top_switches_reachable,
)
from campus.analysis.snapshot import SwitchSpec


@dataclass(frozen=True)
class CampusPlan:
    """How islands are joined (``plan_campus``).

    shared: the islands share one non-blocking top tier (the campus is one fat tree, the islands groups of
    it); else each island closes on its own and sends ``ceil(E / ratio)`` uplinks to an oversubscribed
    campus layer of ``campus_tiers`` tiers. island_tiers: each island's own tiers; island_uplinks: the
    cables each island's top tier sends up; tiers: the campus's, max(island_tiers) + campus_tiers.
    """

    shared: bool
    island_tiers: tuple[int, ...]
    island_uplinks: tuple[int, ...]
    campus_tiers: int
    campus_switches_per_tier: tuple[int, ...]
    tiers: int
    switches: int


def campus_layer_counts(uplinks: int, radix: int, tiers: int) -> tuple[int, ...]:
    """Switches per tier of a campus layer taking ``uplinks`` island uplinks: one tier ``ceil(U / k)``; with
    more, non-blocking inside the layer, ``ceil(U / (k/2))`` per lower tier and ``ceil(U / k)`` on top."""
    if tiers <= 0 or uplinks <= 0:
        return ()
    return (*[math.ceil(uplinks / (radix // 2))] * (tiers - 1), math.ceil(uplinks / radix))


def _island_switches(endpoints: int, radix: int, oversubscription: float, tiers: int, uplinks: int) -> int:
    down = leaf_down_ports(radix, oversubscription) if tiers > 1 else radix
    return sum(_switch_tier_counts(endpoints, radix, tiers, down, uplinks)[0])


def plan_campus(
    island_endpoints: Sequence[int],
    radix: int,
    oversubscription: float = 7.0,
    leaf_oversubscription: float = 1.0,
    allow_shared: bool = True,
    island_leaves: Sequence[int] | None = None,
) -> CampusPlan:
    """Tiers and uplinks of islands of ``island_endpoints`` end points joined on radix-``radix`` switches.

    Two ways: (a) each island closes with ``ceil(E / oversubscription)`` uplinks on its top tier
    (``pod_tiers``) and a campus layer joins the islands: every switch of its first tier reaches every
    island, so it takes ``tiers_for(islands, k)`` tiers (one tier joins up to k islands, two k²/2);
    (b) the islands share one non-blocking top tier: the campus is one fat tree of all end points
    (``tiers_for``), each island holding its tiers below the top and sending all its cables up; possible when
    the top's switches reach every group below them (at most k groups of ``down * (k/2)**(t-2)`` end points).
    ``island_leaves``: the leaf switches each island is built with, when its layout makes more than
    ``ceil(E / down)`` (leaves per rail and hall): a shared top of two tiers must reach every one of them.
    The one with fewer tiers, then fewer switches, is taken (``allow_shared`` False: always (a)): (b) wins when the islands would need as many
    tiers as the whole campus (16,384 GPUs in islands of 8,192 on radix 64: three tiers, not four), (a) when
    its campus layer replaces a tier (islands of two tiers joined at 7:1).
    """
    if not island_endpoints or min(island_endpoints) <= 0:
        raise ValueError("island_endpoints: one or more islands of at least one end point each")
    k = radix
    n = len(island_endpoints)
    if n == 1:
        t = pod_tiers(island_endpoints[0], k, leaf_oversubscription)
        sw = _island_switches(island_endpoints[0], k, leaf_oversubscription, t, 0)
        return CampusPlan(False, (t,), (0,), 0, (), t, sw)
    up_a = tuple(math.ceil(e / oversubscription) for e in island_endpoints)
    tiers_a = tuple(
        pod_tiers(e, k, leaf_oversubscription, u) for e, u in zip(island_endpoints, up_a, strict=True)
    )
    campus_a = tiers_for(n, k)
    counts_a = campus_layer_counts(sum(up_a), k, campus_a)
    plan = CampusPlan(
        False,
        tiers_a,
        up_a,
        campus_a,
        counts_a,
        max(tiers_a) + campus_a,
        sum(
            _island_switches(e, k, leaf_oversubscription, t, u)
            for e, t, u in zip(island_endpoints, tiers_a, up_a, strict=True)
        )
        + sum(counts_a),
    )
    total = sum(island_endpoints)
    t_b = tiers_for(total, k, leaf_oversubscription)
    if t_b < 2 or not allow_shared:
        return plan
    down = leaf_down_ports(k, leaf_oversubscription)
    group = down * (k // 2) ** (t_b - 2)
    up_b = tuple(leaf_uplinks(e, down, k) for e in island_endpoints)
    top = math.ceil(sum(up_b) / k)
    groups = sum(math.ceil(e / group) for e in island_endpoints)
    if t_b == 2 and island_leaves is not None:
        groups = max(groups, sum(island_leaves))
    if groups > k or top > top_switches_reachable(t_b, k, down):
        return plan
    own = t_b - 1
    shared = CampusPlan(
        True,
        (own,) * n,
        up_b,
        1,
        (top,),
        t_b,
        sum(
            _island_switches(e, k, leaf_oversubscription, own, u)
            for e, u in zip(island_endpoints, up_b, strict=True)
        )
        + top,
    )
    return shared if (shared.tiers, shared.switches) < (plan.tiers, plan.switches) else plan


@dataclass(frozen=True)
class InterIslandDesign:
    """The layer joining compute islands, oversubscribed by ``oversubscription`` (Meta: 7:1), or the
    islands' shared non-blocking top tier (``shared``)."""

    islands: int
    uplinks: int
    switches: int
    medium: str
    length_m: float
    transceivers: int
    fabric_power_kw: float
    bisection_tbps: float
    tiers: int = 1
    switches_per_tier: tuple[int, ...] = ()
    shared: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


def design_inter_island(
    island_endpoints: Sequence[int],
    switch: SwitchSpec,
    oversubscription: float = 7.0,
    length_m: float = INTER_ISLAND_M,
    plan: CampusPlan | None = None,
    inner_m: float = SPINE_CORE_M,
) -> InterIslandDesign:
    """The campus layer of ``plan`` (default: ``plan_campus``'s oversubscribed layer): the islands' uplinks (``ceil(E / ratio)``
    each, or all their cables when the top is shared) land on its first tier, ``length_m`` away; a layer of
    several tiers carries them on between its tiers (``inner_m``). The island-side ports are on each
    island's top tier, sized for them by ``design_fabric(..., uplinks=...)``; this layer counts only the
    campus switches and the cables into and inside it."""
    if oversubscription < 1.0:
        raise ValueError("oversubscription: must be >= 1")
    if len(island_endpoints) < 2:
        return InterIslandDesign(len(island_endpoints), 0, 0, "", length_m, 0, 0.0, 0.0, 0)
    if plan is None:
        plan = plan_campus(island_endpoints, switch.radix, oversubscription, allow_shared=False)
    uplinks = sum(plan.island_uplinks)
    counts = plan.campus_switches_per_tier
    medium = medium_for_length(length_m)
    inner = medium_for_length(inner_m)
    boundaries = [(uplinks, medium)] + [(uplinks, inner)] * (len(counts) - 1)
    transceivers = sum(2 * n for n, m in boundaries if m in OPTICAL_MEDIA)
    optical = medium in OPTICAL_MEDIA or (len(counts) > 1 and inner in OPTICAL_MEDIA)
    power_w = sum(counts) * (switch.power_w_optics if optical else switch.power_w_copper)
    return InterIslandDesign(
        islands=len(island_endpoints),
        uplinks=uplinks,
        switches=sum(counts),
        medium=medium,
        length_m=length_m,
        transceivers=transceivers,
        fabric_power_kw=power_w / 1000.0,
        bisection_tbps=uplinks * switch.port_speed_gbps / 2.0 / 1000.0,
        tiers=len(counts),
        switches_per_tier=tuple(counts),
        shared=plan.shared,
    )


@dataclass(frozen=True)
class CampusFabricDesign:
    """One fat tree per island plus the layer above them (``plan_campus``); totals across both."""

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
    """Non-blocking islands of ``island_gpus`` GPUs each, joined as ``plan_campus`` chooses: an
    oversubscribed layer above islands that close on their own, or a shared non-blocking top."""
    if not island_gpus:
        raise ValueError("island_gpus: must not be empty")
    if inter_island_oversubscription < 1.0:
        raise ValueError("inter_island_oversubscription: must be >= 1")
    nics = island_kw.get("nics_per_gpu", 1)
    leaf_over = island_kw.get("oversubscription", 1.0)
    endpoints = [n * nics for n in island_gpus]
    plan = plan_campus(endpoints, switch.radix, inter_island_oversubscription, leaf_over)
    islands = tuple(
        design_fabric(n, switch, topology, uplinks=u, tiers=t, **island_kw)
        for n, u, t in zip(island_gpus, plan.island_uplinks, plan.island_tiers, strict=True)
    )
    inter = design_inter_island(endpoints, switch, inter_island_oversubscription, inter_island_m, plan=plan)
    links: dict[str, int] = {}
    for d in islands:
        for m, n in d.links_by_medium.items():
            links[m] = links.get(m, 0) + n
    if inter.uplinks:
        links[inter.medium] = links.get(inter.medium, 0) + inter.uplinks
        inner = medium_for_length(SPINE_CORE_M)
        if inter.tiers > 1:
            links[inner] = links.get(inner, 0) + inter.uplinks * (inter.tiers - 1)
    total = sum(links.values())
    copper = sum(n for m, n in links.items() if m not in OPTICAL_MEDIA)
    return CampusFabricDesign(
        islands=islands,
        inter_island=inter,
        tiers=plan.tiers,
        switches=sum(d.switches for d in islands) + inter.switches,
        links_by_medium=links,
        transceivers=sum(d.transceivers for d in islands) + inter.transceivers,
        copper_share=copper / total if total else 0.0,
        fabric_power_kw=sum(d.fabric_power_kw for d in islands) + inter.fabric_power_kw,
    )
