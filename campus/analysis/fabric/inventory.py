"""Count the fabric the inventory holds: switches, cables, transceivers and their power, per pod and place."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from campus.analysis.fabric.design import (
    OPTICAL_MEDIA,
    TIER_NAMES,
    TRANSCEIVERS_PER_NIC,
    media_power_w_per_end,
    pod_tiers,
    tiers_for,
)
from campus.analysis.memo import snapshot_memo
from campus.analysis.snapshot import CampusSnapshot, PodSnap, SwitchSnap


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
    if tier.startswith("super-spine-") and tier[12:].isdigit():  # a campus layer of several tiers
        return len(TIER_NAMES) + int(tier[12:])
    if tier.startswith("tier-") and tier[5:].isdigit():
        return int(tier[5:]) - 1
    return 0


def fabric_from_inventory(snap: CampusSnapshot, network: str = "backend") -> FabricSummary:
    """Count the switch groups and link bundles of one network (default: the back-end GPU fabric).

    transceivers = 2 per optical cable, except that node-side ends of racks whose servers all use
    twin-port NICs count half; copper_share = non-optical cables / all cables (NVLink excluded).

    Computed once per snapshot and network (snapshots are immutable; the heat placement, the energy and
    the summary each ask for it): callers must not modify the result.
    """
    memo = snapshot_memo(snap)
    key = f"fabric_from_inventory.{network}"
    result = memo.get(key)
    if result is None:
        result = memo[key] = _fabric_from_inventory(snap, network)
    return result  # type: ignore[return-value]


def _fabric_from_inventory(snap: CampusSnapshot, network: str) -> FabricSummary:
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

    def rack_tx_factor(rack_id: int) -> float:
        r = rack_by_id.get(rack_id)
        if r is None or not r.nodes:
            return 1.0
        kinds = {snap.node_models[s].nic_kind for s, _ in r.nodes if s in snap.node_models}
        if len(kinds) == 1:
            return TRANSCEIVERS_PER_NIC.get(kinds.pop(), 1.0)
        return 1.0

    # a rack has a few bundles and a campus a few media: each is looked at once
    tx_factors: dict[int, float] = {}
    medium_figures: dict[str, tuple[bool, float]] = {}

    def node_tx_factor(rack_id: int) -> float:
        factor = tx_factors.get(rack_id)
        if factor is None:
            factor = tx_factors[rack_id] = rack_tx_factor(rack_id)
        return factor

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
    campus_uplinks: dict[int, int] = {}  # per pod: cables from its switches to campus-level switches
    for x in link_rows:
        figures = medium_figures.get(x.medium)
        if figures is None:
            figures = medium_figures[x.medium] = (
                is_optical(x.medium),
                media_power_w_per_end(media, x.medium),
            )
        opt, end_w = figures
        below, above = sw_by_id.get(x.a_switch_id), sw_by_id.get(x.b_switch_id)
        if below is not None and below.pod_id is not None and above is not None and above.pod_id is None:
            campus_uplink_gbps += x.count * x.speed_gbps
            campus_uplinks[below.pod_id] = campus_uplinks.get(below.pod_id, 0) + x.count
        for sid in (x.a_switch_id, x.b_switch_id):
            if sid is not None:
                ends[sid] = ends.get(sid, 0) + x.count
                if opt:
                    optical_ends[sid] = optical_ends.get(sid, 0) + x.count
        b = bucket(x.pod_id)
        b["links"][x.medium] = b["links"].get(x.medium, 0) + x.count
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
        if pod is not None:
            over = pod.oversubscription
        else:
            # The campus layer: the end points' bandwidth of the pods it joins over their uplinks' into it.
            joined_gbps = sum(endpoint_gbps_by_pod.get(p, 0.0) for p in campus_uplinks)
            over = joined_gbps / campus_uplink_gbps if campus_uplink_gbps and joined_gbps else 1.0
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
                design_tiers=_design_tiers(
                    snap, pod, endpoints, campus_uplinks.get(pod_id, 0), sum(endpoints_by_pod.values())
                ),
            )
        )
    links_by_medium: dict[str, int] = {}
    for p in out:
        for m, n in p.links_by_medium.items():
            links_by_medium[m] = links_by_medium.get(m, 0) + n
    n_links = sum(links_by_medium.values())
    copper = sum(n for m, n in links_by_medium.items() if not is_optical(m))
    pod_tiers = max((p.tiers for p in out if p.pod_id is not None), default=0)
    campus_tiers = sum(p.tiers for p in out if p.pod_id is None and p.switches > 0)
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


def _design_tiers(
    snap: CampusSnapshot, pod: PodSnap | None, endpoints: int, uplinks: int = 0, campus_endpoints: int = 0
) -> int | None:
    """Tiers a fat tree of the pod's switch model needs for its end points and its campus uplinks; a pod
    that sends all its end points' bandwidth up may share a non-blocking top with the other pods and hold
    only the tiers below the top of one fat tree of all of them (``plan_campus``): the fewer of the two."""
    if pod is None or endpoints <= 0 or pod.switch_model not in snap.switch_models:
        return None
    radix = snap.switch_models[pod.switch_model].radix
    alone = pod_tiers(endpoints, radix, uplinks=uplinks)
    if uplinks >= endpoints and campus_endpoints > endpoints:
        return min(alone, max(1, tiers_for(campus_endpoints, radix) - 1))
    return alone


def _pod_port_speed(snap: CampusSnapshot, pod: PodSnap | None) -> float:
    if pod is not None and pod.switch_model in snap.switch_models:
        return snap.switch_models[pod.switch_model].port_speed_gbps
    return 400.0
