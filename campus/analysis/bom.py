"""The bill of materials of a campus: every item of its inventory, counted once and priced.

Power devices, cooling units and plants are priced per kW of rating or heat, utility feeds per kW of
capacity, energy storage per kWh; switches per box by model; optical modules per module by reach class and
line rate; cables per cable by type and length bin (copper with its ends, fibre by its length plus its
terminations); servers per server by model; buildings per m² of footprint and racks per rack, with the
rack's own parts: an in-rack PDU or busbar per power feed that ends at the rack (per kW of the feed's rating)
and a manifold per direct-to-chip rack. The utility feeds are the grid connection (per kW). Prices are
``campus.analysis.capex.unit_price`` rows with the campus's overrides. ``group`` splits the lines by
building, hall or pod (an item that belongs to none of that level is left ungrouped).

Counts follow the inventory exactly: a switch group of ``count`` boxes is ``count`` switches, a link bundle
of ``count`` cables is ``count`` cables, and the optical modules are those of ``fabric_from_inventory``: one
per switch end of an optical cable, one per node end (a half for twin-port NICs, one module serving two
ports).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from campus.analysis.capex import (
    CATEGORIES,
    DEFAULT_DISCOUNT_RATE,
    DEFAULT_HORIZON_YEARS,
    PriceRow,
    snapshot_overrides,
    tco,
    unit_price,
)
from campus.analysis.energy import GridSupply
from campus.analysis.fabric.campus import CampusFabricDesign
from campus.analysis.fabric.design import (
    OPTICAL_MEDIA,
    SPINE_CORE_M,
    TRANSCEIVERS_PER_NIC,
    FabricDesign,
    medium_for_length,
)
from campus.analysis.snapshot import CampusSnapshot, LinkSnap, RackSnap

GROUPS = ("campus", "building", "hall", "pod")
# What ``Bom.counts`` reports: every kind of line, each an inventory item counted once.
COUNTED_KINDS = (
    "utility-feed",
    "power-device",
    "energy-storage",
    "rack-power",
    "cooling-unit",
    "cooling-plant",
    "rack-cooling",
    "switch",
    "optic",
    "cable",
    "server",
    "rack",
    "building",
)
# Racks whose cold plates take water from a row CDU through a rack manifold.
MANIFOLD_COOLING = frozenset({"direct-to-chip"})
# Cable length bins, m: the reach classes of the media (DAC 3 m, AEC 7 m, multimode 50 m, DR 500 m, FR 2 km)
LENGTH_BINS_M = (3.0, 7.0, 50.0, 500.0, 2000.0)
COPPER_CABLES = ("dac", "aec")
# Optical reach classes and their reach, m (SemiAnalysis, 100k H100 clusters, 2024-06; docs/catalog.md)
REACH_CLASSES = {"sr": 50.0, "dr": 500.0, "fr": 2000.0, "zr": float("inf")}


def length_bin(length_m: float) -> str:
    """The bin a cable of ``length_m`` falls in: "0-3 m", "3-7 m", "7-50 m", "50-500 m", "500-2000 m",
    ">2000 m" (upper bounds included)."""
    low = 0.0
    for high in LENGTH_BINS_M:
        if length_m <= high:
            return f"{low:g}-{high:g} m"
        low = high
    return f">{LENGTH_BINS_M[-1]:g} m"


def rate_class(speed_gbps: float) -> str:
    """The line-rate class a module or cable is priced at: "800g" above 400 Gb/s, else "400g"."""
    return "800g" if speed_gbps > 400.0 else "400g"


@dataclass
class BomLine:
    category: str
    kind: str
    item: str  # the model, device kind or class priced
    detail: str  # what the line holds beyond the item (a cable's length bin, a network), "" if nothing
    group: tuple[str, int] | None  # ("hall", id) ...; None: the campus, or no place at the grouping level
    count: float  # things: devices, switches, modules, cables, servers, buildings, racks
    quantity: float  # what the price is per, in ``unit`` (kW, m2, cables ...)
    price: PriceRow
    total_usd: float = 0.0

    def as_dict(self, group_names: dict[tuple[str, int], str]) -> dict:
        group = (
            {"kind": self.group[0], "id": self.group[1], "name": group_names.get(self.group, "")}
            if self.group is not None
            else None
        )
        return {
            "category": self.category,
            "kind": self.kind,
            "item": self.item,
            "detail": self.detail,
            "group": group,
            "count": self.count,
            "quantity": self.quantity,
            "unit": self.price.unit,
            "unit_price_usd": self.total_usd / self.quantity if self.quantity else self.price.unit_price_usd,
            "total_usd": self.total_usd,
            "price_key": self.price.key,
            "source": self.price.source,
            "year": self.price.year,
            "estimate": self.price.estimate,
            "overridden": self.price.overridden,
        }


@dataclass
class Bom:
    group: str
    lines: list[BomLine] = field(default_factory=list)
    group_names: dict[tuple[str, int], str] = field(default_factory=dict)

    def capex_usd(self) -> dict[str, float]:
        out = dict.fromkeys(CATEGORIES, 0.0)
        for line in self.lines:
            out[line.category] += line.total_usd
        out["total"] = sum(out[c] for c in CATEGORIES)
        return out

    def count(self, kind: str) -> float:
        return sum(line.count for line in self.lines if line.kind == kind)

    def as_dict(self) -> dict:
        return {
            "group": self.group,
            "lines": [line.as_dict(self.group_names) for line in self.lines],
            "capex_usd": self.capex_usd(),
            "counts": {k: self.count(k) for k in COUNTED_KINDS},
        }


class _Places:
    """Where an item is at the grouping level: its building, hall or pod (None: nowhere at that level)."""

    def __init__(self, snap: CampusSnapshot, group: str) -> None:
        self.group = group
        self.hall_building = {h.id: h.building_id for h in snap.halls}
        self.racks = {r.id: r for r in snap.racks}
        self.pod_building = {p.id: p.building_id for p in snap.pods}
        self.switches = {s.id: s for s in snap.switches}

    def at(
        self, building_id: int | None = None, hall_id: int | None = None, pod_id: int | None = None
    ) -> tuple[str, int] | None:
        if self.group == "pod":
            return ("pod", pod_id) if pod_id is not None else None
        if self.group == "hall":
            return ("hall", hall_id) if hall_id is not None else None
        if self.group == "building":
            if building_id is None and hall_id is not None:
                building_id = self.hall_building.get(hall_id)
            if building_id is None and pod_id is not None:
                building_id = self.pod_building.get(pod_id)
            return ("building", building_id) if building_id is not None else None
        return None

    def switch(self, switch_id: int | None) -> tuple[str, int] | None:
        s = self.switches.get(switch_id) if switch_id is not None else None
        if s is None:
            return None
        hall = s.hall_id
        if hall is None and s.rack_id in self.racks:
            hall = self.racks[s.rack_id].hall_id
        return self.at(hall_id=hall, pod_id=s.pod_id)

    def link(self, x: LinkSnap) -> tuple[str, int] | None:
        if x.a_rack_id in self.racks:
            r = self.racks[x.a_rack_id]
            return self.at(r.building_id, r.hall_id, x.pod_id if x.pod_id is not None else r.pod_id)
        for sid in (x.a_switch_id, x.b_switch_id):
            place = self.switch(sid)
            if place is not None:
                return place
        return self.at(pod_id=x.pod_id)


class _Lines:
    """Lines keyed by (kind, item, detail, group): counts and totals add up."""

    def __init__(self, overrides: dict[str, float]) -> None:
        self.overrides = overrides
        self.lines: dict[tuple, BomLine] = {}
        self.prices: dict[tuple[str, str], PriceRow] = {}

    def add(
        self,
        kind: str,
        item: str,
        group: tuple[str, int] | None,
        count: float,
        quantity: float,
        detail: str = "",
        usd: float | None = None,
        price: PriceRow | None = None,
    ) -> None:
        if price is None:
            price = self.prices.get((kind, item))
            if price is None:
                price = self.prices[(kind, item)] = unit_price(kind, item, self.overrides)
        key = (kind, item, detail, group)
        line = self.lines.get(key)
        if line is None:
            line = self.lines[key] = BomLine(price.category, kind, item, detail, group, 0.0, 0.0, price)
        line.count += count
        line.quantity += quantity
        line.total_usd += usd if usd is not None else quantity * price.unit_price_usd


def _node_module_factor(snap: CampusSnapshot, rack: RackSnap | None) -> float:
    """Optical modules per node-end port of a rack's cables: one, a half for twin-port NICs (as
    ``fabric_from_inventory`` counts them)."""
    if rack is None or not rack.nodes:
        return 1.0
    kinds = {snap.node_models[s].nic_kind for s, _ in rack.nodes if s in snap.node_models}
    return TRANSCEIVERS_PER_NIC.get(kinds.pop(), 1.0) if len(kinds) == 1 else 1.0


def optic_class(snap: CampusSnapshot, medium: str) -> str:
    """The reach class an optical medium's modules are priced at: its own slug for sr, dr, fr and zr, else
    the class its reach falls in (<= 50 m sr, <= 500 m dr, <= 2 km fr, beyond zr); "other" unknown."""
    if medium in REACH_CLASSES:
        return medium
    spec = snap.media.get(medium)
    if spec is None:
        return "other"
    for slug, reach_m in REACH_CLASSES.items():
        if spec.max_reach_m <= reach_m:
            return slug
    return "zr"


def _is_optical(snap: CampusSnapshot, medium: str) -> bool:
    spec = snap.media.get(medium)
    return spec.is_optical if spec is not None else medium in OPTICAL_MEDIA


def cables_usd(
    snap: CampusSnapshot,
    medium: str,
    speed_gbps: float,
    length_m: float,
    count: int,
    switch_ends: int,
    overrides: dict[str, float] | None = None,
) -> float:
    """USD for ``count`` cables of ``medium`` between ``switch_ends`` switch ends (2 between switches), as
    the bill of materials prices them: an optical cable's modules (one per switch end) by reach class and
    rate, and its fibre (length x ``cable/fiber-m`` plus ``cable/fiber-termination``); a copper or NVLink
    cable by its own row."""
    rate = rate_class(speed_gbps)
    if medium == "nvlink":
        return count * unit_price("cable", "nvlink", overrides).unit_price_usd
    if _is_optical(snap, medium):
        module = unit_price("optic", f"{optic_class(snap, medium)}-{rate}", overrides).unit_price_usd
        fiber_m = unit_price("cable", "fiber-m", overrides).unit_price_usd
        termination = unit_price("cable", "fiber-termination", overrides).unit_price_usd
        return count * (switch_ends * module + length_m * fiber_m + termination)
    item = f"{medium}-{rate}" if medium in COPPER_CABLES else medium
    return count * unit_price("cable", item, overrides).unit_price_usd


def campus_bom(snap: CampusSnapshot, group: str = "campus") -> Bom:
    """Every item of the campus, priced, by category, grouped by ``group`` (campus, building, hall, pod)."""
    if group not in GROUPS:
        raise ValueError(f"group: must be one of {', '.join(GROUPS)}")
    overrides = snapshot_overrides(snap)
    places = _Places(snap, group)
    out = _Lines(overrides)
    # power
    for d in snap.power_devices:
        out.add("power-device", d.kind, places.at(d.building_id, d.hall_id), 1, d.rated_kw)
    for u in snap.utility_feeds:
        out.add("utility-feed", "utility-feed", None, 1, u.capacity_kw)
    for e in snap.energy_storage:
        out.add("energy-storage", "bess", places.at(e.building_id), 1, e.energy_kwh)
    # cooling
    for c in snap.cooling_units:
        out.add("cooling-unit", c.kind, places.at(hall_id=c.hall_id), 1, c.capacity_kw)
    for p in snap.cooling_plants:
        out.add("cooling-plant", p.kind, places.at(p.building_id), 1, p.capacity_kw)
    # network: switches by model, modules by reach class, cables by type and length bin
    for s in snap.switches:
        out.add("switch", s.model, places.switch(s.id), s.count, s.count)
    fiber_m = unit_price("cable", "fiber-m", overrides)
    termination = unit_price("cable", "fiber-termination", overrides)
    factors: dict[int, float] = {}
    fiber = _fiber_row(fiber_m, termination)
    for x in snap.links:
        place = places.link(x)
        rate = rate_class(x.speed_gbps)
        detail = length_bin(x.length_m)
        if x.medium == "nvlink":
            out.add("cable", "nvlink", place, x.count, x.count, detail)
        elif _is_optical(snap, x.medium):
            modules = x.count * ((x.a_switch_id is not None) + (x.b_switch_id is not None))
            if x.a_rack_id is not None:
                factor = factors.get(x.a_rack_id)
                if factor is None:
                    factor = factors[x.a_rack_id] = _node_module_factor(snap, places.racks.get(x.a_rack_id))
                modules += x.count * factor
            out.add("optic", f"{optic_class(snap, x.medium)}-{rate}", place, modules, modules)
            usd = x.count * (x.length_m * fiber_m.unit_price_usd + termination.unit_price_usd)
            out.add("cable", "fiber", place, x.count, x.count, detail, usd=usd, price=fiber)
        else:
            item = f"{x.medium}-{rate}" if x.medium in COPPER_CABLES else x.medium
            out.add("cable", item, place, x.count, x.count, detail)
    # compute, and the racks with their own power and cooling parts
    for f in snap.power_feeds:
        rack = places.racks.get(f.rack_id) if f.rack_id is not None else None
        if rack is not None:
            place = places.at(rack.building_id, rack.hall_id, rack.pod_id)
            out.add("rack-power", "rack-pdu", place, 1, f.rating_kw)
    for r in snap.racks:
        place = places.at(r.building_id, r.hall_id, r.pod_id)
        out.add("rack", "rack", place, 1, 1)
        if r.cooling_type in MANIFOLD_COOLING:
            out.add("rack-cooling", "rack-manifold", place, 1, 1)
        for slug, n in r.nodes:
            price = unit_price("server", slug, overrides)
            if price.unit == "gpu":  # a model without its own row: priced per GPU
                gpus = n * snap.node_models[slug].gpus_per_node if slug in snap.node_models else 0
                out.add("server", slug, place, n, gpus, price=price)
            else:
                out.add("server", slug, place, n, n)
    # building
    for b in snap.buildings:
        out.add("building", "shell", places.at(b.id), 1, b.width_m * b.length_m)
    names = _group_names(snap)
    lines = sorted(
        out.lines.values(),
        key=lambda x: (CATEGORIES.index(x.category), x.kind, x.item, x.detail, x.group or ("", 0)),
    )
    return Bom(group=group, lines=lines, group_names=names)


def _fiber_row(per_m: PriceRow, termination: PriceRow) -> PriceRow:
    """The row a fibre line cites: priced per cable from its metres and its terminations."""
    return PriceRow(
        kind="cable",
        item="fiber",
        unit="cable",
        unit_price_usd=per_m.unit_price_usd,
        source=f"length x cable/fiber-m + cable/fiber-termination ({per_m.source})",
        year=per_m.year,
        estimate=per_m.estimate or termination.estimate,
        overridden=per_m.overridden or termination.overridden,
    )


def _group_names(snap: CampusSnapshot) -> dict[tuple[str, int], str]:
    names: dict[tuple[str, int], str] = {}
    for b in snap.buildings:
        names[("building", b.id)] = b.name
    for h in snap.halls:
        names[("hall", h.id)] = h.name
    for p in snap.pods:
        names[("pod", p.id)] = p.name
    return names


def capex_summary(
    snap: CampusSnapshot,
    it_mw: float,
    supply: GridSupply,
    horizon_years: int = DEFAULT_HORIZON_YEARS,
    discount_rate: float = DEFAULT_DISCOUNT_RATE,
) -> dict:
    """The summary's capex block: capex by category from the bill of materials, per MW of IT, and the total
    cost of ownership with the year's grid energy and generator fuel (``energy.grid_supply``)."""
    capex = campus_bom(snap).capex_usd()
    return {
        "capex_usd": capex,
        "usd_per_mw_it": capex["total"] / it_mw if it_mw > 0 else None,
        "tco": tco(
            capex["total"], supply.grid_cost_usd, supply.generator_cost_usd, horizon_years, discount_rate
        ),
    }


def fabric_design_cost(
    design: FabricDesign, switch_model: str, overrides: dict[str, float] | None = None
) -> dict:
    """What a fat-tree design (``fabric.design_fabric``) costs at the catalog's prices: its switches by
    ``switch_model``, its optical modules by reach class at its port speed, its cables (fibre by length plus
    terminations, copper per cable), USD. The same rows price a campus's inventory (``campus_bom``)."""
    rate = rate_class(design.port_speed_gbps)
    switches = design.switches * unit_price("switch", switch_model, overrides).unit_price_usd
    fiber_m = unit_price("cable", "fiber-m", overrides).unit_price_usd
    termination = unit_price("cable", "fiber-termination", overrides).unit_price_usd
    optics = cables = 0.0
    for layer in design.layers:
        if layer.medium in OPTICAL_MEDIA:
            cls = layer.medium if layer.medium in REACH_CLASSES else "other"
            optics += layer.transceivers * unit_price("optic", f"{cls}-{rate}", overrides).unit_price_usd
            cables += layer.links * (layer.length_m * fiber_m + termination)
        else:
            item = f"{layer.medium}-{rate}" if layer.medium in COPPER_CABLES else layer.medium
            cables += layer.links * unit_price("cable", item, overrides).unit_price_usd
    return {
        "switches_usd": switches,
        "optics_usd": optics,
        "cables_usd": cables,
        "total_usd": switches + optics + cables,
    }


def campus_fabric_design_cost(
    design: CampusFabricDesign, switch_model: str, overrides: dict[str, float] | None = None
) -> dict:
    """What a campus fabric (``fabric.design_campus_fabric``) costs: each island as ``fabric_design_cost``,
    and the layer joining them (its switches, and its cables with a module at each end), at the same rows."""
    parts = [fabric_design_cost(d, switch_model, overrides) for d in design.islands]
    out = {k: sum(p[k] for p in parts) for k in ("switches_usd", "optics_usd", "cables_usd")}
    inter = design.inter_island
    if inter.uplinks:
        rate = rate_class(design.islands[0].port_speed_gbps)
        out["switches_usd"] += inter.switches * unit_price("switch", switch_model, overrides).unit_price_usd
        fiber_m = unit_price("cable", "fiber-m", overrides).unit_price_usd
        termination = unit_price("cable", "fiber-termination", overrides).unit_price_usd
        inner_m = SPINE_CORE_M
        hops = [(inter.medium, inter.length_m)] + [(medium_for_length(inner_m), inner_m)] * (inter.tiers - 1)
        for medium, length_m in hops:
            if medium in OPTICAL_MEDIA:
                module = unit_price("optic", f"{medium}-{rate}", overrides).unit_price_usd
                out["optics_usd"] += 2 * inter.uplinks * module
                out["cables_usd"] += inter.uplinks * (length_m * fiber_m + termination)
            else:
                item = f"{medium}-{rate}" if medium in COPPER_CABLES else medium
                out["cables_usd"] += inter.uplinks * unit_price("cable", item, overrides).unit_price_usd
    out["total_usd"] = out["switches_usd"] + out["optics_usd"] + out["cables_usd"]
    return out
