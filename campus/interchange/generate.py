"""Reference-design generator: a whole campus of N GPUs as a campus spec (a plain dict).

``generate_spec`` returns the same document ``campus.interchange.importer.import_campus`` reads, so generated
and hand-written campuses go through one validation and one writer. Pure Python: the catalog comes in
as rows (``campus.catalog_data`` by default, or the database's via ``campus.interchange.catalog.db_catalog``).
docs/generator.md gives every design rule and where its numbers come from.

Outline:
- GPUs → servers (node model by GPU and NIC) → racks (by rack units and the rack power limit; an NVL72
  rack is 18 trays) → pods (compute islands of at most ``pod_max_gpus``) → buildings (at most
  ``building_max_it_mw`` of IT each) → halls (at most ``hall_max_it_mw``) → rows of ``racks_per_row``.
- Power, 2N: utility A/B → per building substation A/B → per hall transformer, switchgear (+ N+1
  generators), UPS modules → per row PDU A/B → rack feeds A and B, each rated for the whole rack.
- Cooling: per building an N+1 set of plants (dry coolers for liquid, chillers for air); per hall an N+1
  group of CDUs (liquid) or CRAHs (air); every rack is assigned a unit; units are powered from a
  mechanical PDU fed by both UPS sides.
- Fabric per pod from ``campus.analysis.fabric.design_fabric`` (tiers and leaf ports from the radix):
  leaf groups per rail (rail-optimized) or per row (middle-of-rack), one spine/core group per pod, an
  inter-island super-spine with the pod's oversubscription. Cable media follow cable lengths.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campus import catalog_data as cat
from campus.analysis.fabric import design_fabric, design_inter_island, leaf_down_ports
from campus.analysis.snapshot import SwitchSpec

Row = dict[str, Any]

# ---------------------------------------------------------------- design constants (docs/generator.md)

RACK_WIDTH_M = 0.6
RACK_DEPTH_M = 1.2
ROW_PITCH_M = 3.0  # rack depth 1.2 m + 1.8 m aisle (hot and cold aisles alternate)
HALL_MARGIN_M = 3.0  # perimeter walkway
SERVICE_ZONE_M = 8.0  # far end of the hall: CDUs/CRAHs, spine and core switch racks
BUILDING_MARGIN_M = 10.0
HALL_GAP_M = 6.0
ELECTRICAL_GALLERY_M = 30.0  # UPS, switchgear and battery rooms along the building
BUILDING_GAP_M = 60.0
USABLE_RACK_UNITS = 36  # a 48U rack less top-of-rack, PDU, cable management and 1U gaps
NVL72_TRAYS_PER_RACK = 18  # GB200 NVL72: 18 compute trays of 4 GPUs
LIQUID_RACK_LIMIT_KW = 140.0  # GB200 NVL72 ~132 kW is the densest design in the catalog
GENERATOR_KW = 3000.0  # one 3 MW diesel generator set
UPS_MODULE_KW = 3000.0
PLANT_KW = 10_000.0  # one dry-cooler block or chiller, kW of heat
CRAH_KW = 350.0  # chilled-water CRAH / fan wall unit, kW of heat
DRY_COOLER_COP = 15.0  # fans only; estimate
CDU_PUMP_FRACTION = 0.02  # CDU pump power per kW of heat moved; estimate
CRAH_FAN_FRACTION = 0.04  # CRAH fan power per kW of heat; estimate
GRID_MARGIN = 1.15  # grid interconnect above the design facility power
UPLINK_M_SAME_HALL = 20.0
# Middle-of-rack: a leaf serves at most 16 racks, 8 either side: 8 x 0.6 m + 2 m of risers < 7 m (AEC).
MOR_SEGMENT_RACKS = 16
SPINE_CORE_M = 10.0
INTER_BUILDING_EXTRA_M = 100.0  # risers and trays inside both buildings

FABRIC_SWITCH = {
    "infiniband-ndr": "quantum-2-qm9700",
    "spectrum-x": "spectrum-x-sn5600",
    "tomahawk5": "tomahawk5-128x400",
}
COOLING = ("liquid", "air")


class GeneratorError(ValueError):
    """A generator parameter that cannot give a campus; ``field`` names the parameter."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


@dataclass(frozen=True)
class Catalog:
    """Catalog rows keyed by slug (the shape of ``campus.catalog_data``; ``gpu`` is the node's GPU slug)."""

    gpus: Mapping[str, Row]
    node_models: Mapping[str, Row]
    switch_models: Mapping[str, Row]
    media: Mapping[str, Row]

    @classmethod
    def defaults(cls) -> Catalog:
        return cls(
            gpus={r["slug"]: r for r in cat.GPU_MODELS},
            node_models={r["slug"]: r for r in cat.NODE_MODELS},
            switch_models={r["slug"]: r for r in cat.SWITCH_MODELS},
            media={r["slug"]: r for r in cat.LINK_MEDIA},
        )

    def node_kw(self, slug: str) -> float:
        node = self.node_models[slug]
        extra_w = cat.NIC_KINDS.get(node["nic_kind"], {}).get("extra_w_per_nic", 0.0)
        return (
            node["gpus_per_node"] * self.gpus[node["gpu"]]["tdp_w"]
            + node["overhead_w"]
            + node["nics"] * extra_w
        ) / 1000.0


# ---------------------------------------------------------------- plan


@dataclass
class _RackPlan:
    pod: int
    nodes: int
    node_model: str
    kw: float
    gpus: int


@dataclass
class _PodPlan:
    index: int
    gpu_model: str
    node_model: str
    racks: list[_RackPlan] = field(default_factory=list)

    @property
    def kw(self) -> float:
        return sum(r.kw for r in self.racks)


def _r(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


def _ceil_to(value: float, step: float) -> float:
    return float(math.ceil(value / step - 1e-9) * step)


def pick_node_model(catalog: Catalog, gpu_model: str, nic: str) -> str:
    """The first catalog server with this GPU and NIC kind."""
    if gpu_model not in catalog.gpus:
        raise GeneratorError(
            "gpu_model", f'unknown GPU model "{gpu_model}"; known: {", ".join(sorted(catalog.gpus))}'
        )
    candidates = [r for r in catalog.node_models.values() if r["gpu"] == gpu_model]
    for row in candidates:
        if row["nic_kind"] == nic:
            return row["slug"]
    kinds = sorted({r["nic_kind"] for r in candidates})
    raise GeneratorError(
        "nic", f'no server with GPU "{gpu_model}" and NIC "{nic}" in the catalog (has: {", ".join(kinds)})'
    )


def nodes_per_rack(catalog: Catalog, node_model: str, cooling: str) -> int:
    """Servers per rack: by rack units, capped by the rack power limit (air ~40 kW, DOMAIN §3)."""
    node = catalog.node_models[node_model]
    node_kw = catalog.node_kw(node_model)
    if "nvl72" in node_model:
        if cooling != "liquid":
            raise GeneratorError("cooling", "a GB200 NVL72 rack (~132 kW) needs liquid cooling")
        return NVL72_TRAYS_PER_RACK
    limit_kw = (
        cat.default_value("air_cooling_limit_kw_per_rack") if cooling == "air" else LIQUID_RACK_LIMIT_KW
    )
    by_space = max(1, USABLE_RACK_UNITS // max(1, node["rack_units"]))
    by_power = math.floor(limit_kw / node_kw)
    if by_power < 1:
        raise GeneratorError(
            "cooling", f'one "{node_model}" server ({node_kw:.1f} kW) exceeds the {limit_kw:g} kW rack limit'
        )
    return min(by_space, by_power)


def _plan_pods(
    catalog: Catalog, mix: Sequence[Mapping[str, Any]], nic: str, cooling: str, pod_max_gpus: int
) -> list[_PodPlan]:
    pods: list[_PodPlan] = []
    for entry in mix:
        gpu_model, gpus = entry["gpu_model"], int(entry["gpus"])
        node_model = entry.get("node_model") or pick_node_model(catalog, gpu_model, nic)
        if node_model not in catalog.node_models:
            raise GeneratorError("mix", f'unknown node model "{node_model}"')
        per_node = catalog.node_models[node_model]["gpus_per_node"]
        if gpus <= 0:
            raise GeneratorError("gpus", "must be > 0")
        if gpus % per_node:
            raise GeneratorError(
                "gpus", f"{gpus} {gpu_model} GPUs is not a whole number of {per_node}-GPU servers"
            )
        nodes = gpus // per_node
        per_rack = nodes_per_rack(catalog, node_model, cooling)
        n_pods = math.ceil(gpus / pod_max_gpus)
        node_kw = catalog.node_kw(node_model)
        base, extra = divmod(nodes, n_pods)
        for p in range(n_pods):
            pod_nodes = base + (1 if p < extra else 0)
            plan = _PodPlan(len(pods), gpu_model, node_model)
            while pod_nodes > 0:
                n = min(per_rack, pod_nodes)
                plan.racks.append(_RackPlan(plan.index, n, node_model, _r(n * node_kw, 2), n * per_node))
                pod_nodes -= n
            pods.append(plan)
    return pods


# ---------------------------------------------------------------- the generator


def generate_spec(
    name: str,
    gpus: int | None = None,
    gpu_model: str = "h100-sxm",
    fabric: str = "infiniband-ndr",
    topology: str = "rail-optimized",
    nic: str = "connectx7",
    cooling: str = "liquid",
    pue: float | None = None,
    price_usd_per_kwh: float = 0.078,
    mix: Sequence[Mapping[str, Any]] | None = None,
    oversubscription: float = 7.0,
    pod_max_gpus: int = 8192,
    building_max_it_mw: float = 80.0,
    hall_max_it_mw: float = 20.0,
    racks_per_row: int = 32,
    location: str = "",
    catalog: Catalog | None = None,
) -> dict[str, Any]:
    """A complete campus spec for ``gpus`` GPUs of ``gpu_model`` (or a ``mix`` of models).

    ``mix`` is a list of ``{"gpu_model": slug, "gpus": n}`` (optionally ``"node_model"``); when given,
    ``gpus`` may be omitted and must otherwise equal the sum. Raises ``GeneratorError`` naming the
    parameter at fault.
    """
    catalog = catalog or Catalog.defaults()
    if not name or not name.strip():
        raise GeneratorError("name", "must not be blank")
    if mix:
        total = sum(int(m["gpus"]) for m in mix)
        if gpus is not None and gpus != total:
            raise GeneratorError("gpus", f"{gpus} differs from the mix total {total}")
        for m in mix:
            if m["gpu_model"] not in catalog.gpus:
                raise GeneratorError("mix", f'unknown GPU model "{m["gpu_model"]}"')
    else:
        if gpus is None:
            raise GeneratorError("gpus", "give gpus or a mix")
        mix = [{"gpu_model": gpu_model, "gpus": gpus}]
    if fabric not in FABRIC_SWITCH:
        raise GeneratorError("fabric", f"must be one of {', '.join(FABRIC_SWITCH)}")
    if topology not in ("rail-optimized", "middle-of-rack"):
        raise GeneratorError("topology", "must be rail-optimized or middle-of-rack")
    if cooling not in COOLING:
        raise GeneratorError("cooling", "must be liquid or air")
    if nic not in cat.NIC_KINDS:
        raise GeneratorError("nic", f"must be one of {', '.join(cat.NIC_KINDS)}")
    if pue is None:
        pue = cat.default_value("pue_liquid" if cooling == "liquid" else "pue_air")
    if not 1.0 <= pue <= 3.0:
        raise GeneratorError("pue", "must be between 1.0 and 3.0")
    if not 0 <= price_usd_per_kwh <= 10:
        raise GeneratorError("price_usd_per_kwh", "must be between 0 and 10")
    if not 1.0 <= oversubscription <= 64:
        raise GeneratorError("oversubscription", "must be between 1 and 64")
    if not 1 <= racks_per_row <= 60:
        raise GeneratorError("racks_per_row", "must be between 1 and 60")
    if hall_max_it_mw <= 0 or building_max_it_mw < hall_max_it_mw:
        raise GeneratorError("hall_max_it_mw", "must be > 0 and at most building_max_it_mw")
    switch_slug = FABRIC_SWITCH[fabric]
    if switch_slug not in catalog.switch_models:
        raise GeneratorError("fabric", f'switch model "{switch_slug}" is not in the catalog')
    switch_row = catalog.switch_models[switch_slug]
    radix = int(switch_row["radix"])
    # Keep each island within a three-tier non-blocking fat tree (k³/4 end points).
    if pod_max_gpus < 8 or pod_max_gpus > radix**3 // 4:
        raise GeneratorError(
            "pod_max_gpus", f"must be between 8 and {radix**3 // 4} for a radix-{radix} switch"
        )

    pods = _plan_pods(catalog, mix, nic, cooling, pod_max_gpus)
    builder = _Builder(
        catalog, name, cooling, pue, topology, fabric, switch_row, oversubscription, racks_per_row
    )
    builder.lay_out(pods, building_max_it_mw * 1000.0, hall_max_it_mw * 1000.0)
    builder.power_and_cooling()
    builder.fabric()
    total_gpus = sum(r.gpus for p in pods for r in p.racks)
    facility_mw = builder.it_kw * pue / 1000.0
    models = ", ".join(f"{m['gpus']:,} {m['gpu_model']}" for m in mix)
    spec: dict[str, Any] = {
        "spec_version": 1,
        "campus": {
            "name": name.strip(),
            "grid_capacity_mw": _ceil_to(facility_mw * GRID_MARGIN, 1.0),
            "price_usd_per_kwh": float(price_usd_per_kwh),
            "design_pue": float(pue),
            "description": (
                f"Reference design: {total_gpus:,} GPUs ({models}), {fabric} {topology}, {nic} NICs, "
                f"{cooling} cooling, PUE {pue:g}; {builder.it_kw / 1000.0:.1f} MW IT, {facility_mw:.1f} MW facility."
            ),
        },
        **builder.document(),
    }
    if location:
        spec["campus"]["location"] = location
    return spec


class _Builder:
    """Accumulates the spec's lists while walking buildings, halls and rows."""

    def __init__(
        self,
        catalog: Catalog,
        name: str,
        cooling: str,
        pue: float,
        topology: str,
        fabric: str,
        switch_row: Row,
        oversubscription: float,
        racks_per_row: int,
    ) -> None:
        self.catalog = catalog
        self.cooling = cooling
        self.pue = pue
        self.topology = topology
        self.fabric_name = fabric
        self.switch_row = switch_row
        self.oversubscription = oversubscription
        self.racks_per_row = racks_per_row
        self.buildings: list[Row] = []
        self.devices: list[Row] = []
        self.feeds: list[Row] = []
        self.plants: list[Row] = []
        self.units: list[Row] = []
        self.pods: list[Row] = []
        self.switches: list[Row] = []
        self.links: list[Row] = []
        self.it_kw = 0.0
        self.max_util = cat.default_value("max_utilization")
        # (building index, hall index) -> list of rows; each row: (row spec, [(rack spec, plan)])
        self.layout: list[list[list[tuple[Row, list[tuple[Row, _RackPlan]]]]]] = []
        self.pod_names: list[str] = []
        self.pod_building: list[int] = []

    # -- geometry

    def lay_out(self, pods: list[_PodPlan], building_max_kw: float, hall_max_kw: float) -> None:
        width = max(2, len(str(len(pods))))
        self.pod_names = [f"POD-{p.index + 1:0{width}d}" for p in pods]
        buildings: list[list[_PodPlan]] = []
        load = 0.0
        for pod in pods:
            if not buildings or (load + pod.kw > building_max_kw and buildings[-1]):
                buildings.append([])
                load = 0.0
            buildings[-1].append(pod)
            load += pod.kw
        x_cursor = 0.0
        for bi, members in enumerate(buildings):
            bname = f"B{bi + 1}"
            halls: list[list[_RackPlan]] = [[]]
            hall_kw = 0.0
            for pod in members:
                # Keep a pod inside one hall when it fits in a hall at all.
                if halls[-1] and hall_kw + pod.kw > hall_max_kw and pod.kw <= hall_max_kw:
                    halls.append([])
                    hall_kw = 0.0
                for rack in pod.racks:
                    if halls[-1] and hall_kw + rack.kw > hall_max_kw:
                        halls.append([])
                        hall_kw = 0.0
                    halls[-1].append(rack)
                    hall_kw += rack.kw
                self.pod_building.append(bi)
            hall_specs = []
            hall_layouts = []
            hx = BUILDING_MARGIN_M
            max_len = 0.0
            for hi, racks in enumerate(halls):
                hall_spec, rows = self._hall(bname, hi, racks)
                hall_spec["x_m"] = _r(hx)
                hall_spec["y_m"] = BUILDING_MARGIN_M
                hx += hall_spec["width_m"] + HALL_GAP_M
                max_len = max(max_len, hall_spec["length_m"])
                hall_specs.append(hall_spec)
                hall_layouts.append(rows)
            b_width = _r(hx - HALL_GAP_M + BUILDING_MARGIN_M)
            b_length = _r(max_len + 2 * BUILDING_MARGIN_M + ELECTRICAL_GALLERY_M)
            it_kw = sum(r.kw for racks in halls for r in racks)
            self.it_kw += it_kw
            self.buildings.append(
                {
                    "name": bname,
                    "x_m": _r(x_cursor),
                    "y_m": 0.0,
                    "width_m": b_width,
                    "length_m": b_length,
                    "design_it_mw": _r(it_kw / 1000.0),
                    "halls": hall_specs,
                }
            )
            self.layout.append(hall_layouts)
            x_cursor += b_width + BUILDING_GAP_M
        for pod, bi in zip(pods, self.pod_building, strict=True):
            self.pods.append(
                {
                    "name": self.pod_names[pod.index],
                    "building": self.buildings[bi]["name"],
                    "fabric": self.fabric_name,
                    "topology": self.topology,
                    "oversubscription": float(self.oversubscription if len(pods) > 1 else 1.0),
                    "switch_model": self.switch_row["slug"],
                }
            )

    def _hall(self, bname: str, hi: int, racks: list[_RackPlan]) -> tuple[Row, list]:
        hname = f"H{hi + 1}"
        rows: list[tuple[Row, list[tuple[Row, _RackPlan]]]] = []
        current_pod = None
        for rack in racks:
            # A new pod starts a new row, so rows (and their PDUs and leaves) belong to one pod.
            if not rows or rack.pod != current_pod or len(rows[-1][1]) >= self.racks_per_row:
                r = len(rows)
                rows.append(
                    (
                        {
                            "name": f"R{r + 1:02d}",
                            "x_m": HALL_MARGIN_M,
                            "y_m": _r(HALL_MARGIN_M + r * ROW_PITCH_M),
                        },
                        [],
                    )
                )
                current_pod = rack.pod
            row_spec, members = rows[-1]
            k = len(members)
            rack_spec: Row = {
                "name": f"{bname}-{hname}-{row_spec['name']}-{k + 1:02d}",
                "x_m": _r(HALL_MARGIN_M + k * RACK_WIDTH_M),
                "y_m": row_spec["y_m"],
                "cooling_type": "direct-to-chip" if self.cooling == "liquid" else "air",
                "design_kw": rack.kw,
                "pod": self.pod_names[rack.pod],
                "nodes": [{"model": rack.node_model, "count": rack.nodes}],
            }
            members.append((rack_spec, rack))
        width = _r(2 * HALL_MARGIN_M + self.racks_per_row * RACK_WIDTH_M)
        length = _r(2 * HALL_MARGIN_M + len(rows) * ROW_PITCH_M + SERVICE_ZONE_M)
        for row_spec, members in rows:
            row_spec["racks"] = [spec for spec, _ in members]
        hall = {
            "name": hname,
            "width_m": width,
            "length_m": length,
            "design_it_mw": _r(sum(r.kw for r in racks) / 1000.0),
            "rows": [row_spec for row_spec, _ in rows],
        }
        return hall, rows

    # -- power and cooling

    def _device(
        self, name: str, kind: str, building: str, rated_kw: float, hall: str | None = None, **extra: Any
    ) -> str:
        dev: Row = {"name": name, "kind": kind, "building": building}
        if hall:
            dev["hall"] = hall
        dev["rated_kw"] = _r(rated_kw)
        dev["efficiency"] = cat.device_efficiency(kind)
        dev.update(extra)
        self.devices.append(dev)
        return name

    def _feed(self, up: str, down: str, rating_kw: float, side: str = "N") -> None:
        self.feeds.append({"from": up, "to": down, "side": side, "rating_kw": _r(rating_kw)})

    def power_and_cooling(self) -> None:
        eff_pdu, eff_ups = cat.device_efficiency("pdu"), cat.device_efficiency("ups")
        liquid = self.cooling == "liquid"
        unit_kw = cat.default_value("cdu_facility_kw") if liquid else CRAH_KW
        unit_power_fraction = CDU_PUMP_FRACTION if liquid else CRAH_FAN_FRACTION
        plant_kind = "dry-cooler" if liquid else "chiller"
        plant_cop = DRY_COOLER_COP if liquid else cat.default_value("chiller_cop")
        utility_kw = self.it_kw * self.pue * GRID_MARGIN
        self.utility_feeds = [
            {
                "name": f"UTIL-{s}",
                "utility": "grid",
                "capacity_mw": _ceil_to(utility_kw / 1000.0, 1.0),
                "voltage_kv": 138.0,
            }
            for s in "AB"
        ]
        for bi, building in enumerate(self.buildings):
            bname = building["name"]
            building_kw = building["design_it_mw"] * 1000.0
            facility_kw = building_kw * self.pue
            subs = {
                s: self._device(
                    f"{bname}-SUB-{s}",
                    "substation",
                    bname,
                    _ceil_to(facility_kw / self.max_util, 1000.0),
                    utility_feed=f"UTIL-{s}",
                )
                for s in "AB"
            }
            # Mechanical board on both sides: the heat-rejection plant keeps running when one side is lost.
            heat_kw = building_kw
            n_plants = math.ceil(heat_kw / PLANT_KW) + 1
            msb_kw = _ceil_to(n_plants * PLANT_KW / plant_cop / self.max_util, 100.0)
            msb = self._device(f"{bname}-MSB", "switchgear", bname, msb_kw)
            for s in "AB":
                self._feed(subs[s], msb, msb_kw, s)
            plant_names = []
            for p in range(n_plants):
                plant_names.append(f"{bname}-{'DRY' if liquid else 'CHL'}-{p + 1:02d}")
                self.plants.append(
                    {
                        "name": plant_names[-1],
                        "kind": plant_kind,
                        "building": bname,
                        "capacity_kw": PLANT_KW,
                        "cop": plant_cop,
                        "restart_minutes": cat.default_value("chiller_restart_minutes"),
                        "power_device": msb,
                    }
                )
            for hi, rows in enumerate(self.layout[bi]):
                self._hall_power(
                    bname,
                    building["halls"][hi],
                    rows,
                    subs,
                    plant_names,
                    unit_kw,
                    unit_power_fraction,
                    eff_pdu,
                    eff_ups,
                )

    def _hall_power(
        self,
        bname: str,
        hall: Row,
        rows: list[tuple[Row, list[tuple[Row, _RackPlan]]]],
        subs: dict[str, str],
        plant_names: list[str],
        unit_kw: float,
        unit_power_fraction: float,
        eff_pdu: float,
        eff_ups: float,
    ) -> None:
        """Transformers, switchgear, generators, UPS modules and row PDUs of one hall (both sides), its
        cooling units, and the racks' feeds and cooling-unit assignments."""
        hname = hall["name"]
        prefix = f"{bname}-{hname}"
        liquid = self.cooling == "liquid"
        hall_it_kw = sum(rack.kw for _, members in rows for _, rack in members)
        # Cooling units first: their pumps/fans load the UPS through the mechanical PDU.
        n_units = math.ceil(hall_it_kw / unit_kw) + 1  # N+1 per hall group
        mech_kw = _ceil_to(n_units * unit_kw * unit_power_fraction / self.max_util, 10.0)
        mech_input_kw = mech_kw * self.max_util / eff_pdu

        # UPS modules per side: rows assigned greedily within the module's planning limit.
        row_kw = [sum(rack.kw for _, rack in members) for _, members in rows]
        ups_groups: list[list[int]] = [[]]
        ups_load = [mech_input_kw]
        for r, kw in enumerate(row_kw):
            load = kw / eff_pdu
            if ups_groups[-1] and ups_load[-1] + load > UPS_MODULE_KW * self.max_util:
                ups_groups.append([])
                ups_load.append(0.0)
            ups_groups[-1].append(r)
            ups_load[-1] += load
        ups_rated = [max(UPS_MODULE_KW, _ceil_to(load / self.max_util, 100.0)) for load in ups_load]
        # One side carries the whole hall when the other is lost (2N).
        side_full_kw = sum(ups_load) / eff_ups
        swgr_kw = _ceil_to(side_full_kw / self.max_util, 500.0)
        n_gens = math.ceil(side_full_kw / GENERATOR_KW) + 1  # N+1
        ups_names: dict[str, list[str]] = {}
        for s in "AB":
            tx = self._device(f"{prefix}-TX-{s}", "transformer", bname, swgr_kw, hname)
            self._feed(subs[s], tx, swgr_kw, s)
            swgr = self._device(f"{prefix}-SWGR-{s}", "switchgear", bname, swgr_kw, hname)
            self._feed(tx, swgr, swgr_kw, s)
            for g in range(n_gens):
                gen = self._device(
                    f"{prefix}-GEN-{s}{g + 1:02d}",
                    "generator",
                    bname,
                    GENERATOR_KW,
                    hname,
                    start_delay_s=cat.default_value("generator_start_delay_s"),
                    ramp_s=cat.default_value("generator_ramp_s"),
                )
                self._feed(gen, swgr, GENERATOR_KW, s)
            ups_names[s] = []
            for u, rated in enumerate(ups_rated):
                ups = self._device(
                    f"{prefix}-UPS-{s}{u + 1:02d}",
                    "ups",
                    bname,
                    rated,
                    hname,
                    battery_minutes=cat.default_value("ups_battery_minutes"),
                )
                self._feed(swgr, ups, rated, s)
                ups_names[s].append(ups)

        mpdu = self._device(f"{prefix}-MPDU", "pdu", bname, mech_kw, hname)
        for s in "AB":
            self._feed(ups_names[s][0], mpdu, mech_kw, s)
        # Cooling units along the service zone; rows go to units in contiguous blocks.
        group = f"{prefix}-{'CDU' if liquid else 'CRAH'}"
        units = []
        step = hall["width_m"] / (n_units + 1)
        for u in range(n_units):
            units.append(f"{group}-{u + 1:02d}")
            self.units.append(
                {
                    "name": units[-1],
                    "kind": "cdu" if liquid else "crah",
                    "building": bname,
                    "hall": hname,
                    "plant": plant_names[u % len(plant_names)],
                    "power_device": mpdu,
                    "capacity_kw": float(unit_kw),
                    "supply_temp_c": cat.default_value("supply_temp_c") if liquid else 24.0,
                    "return_temp_c": cat.default_value("return_temp_c") if liquid else 40.0,
                    "flow_lpm": _r(unit_kw * cat.default_value("coolant_flow_lpm_per_kw")) if liquid else 0.0,
                    "group": group,
                    "x_m": _r(step * (u + 1)),
                    "y_m": _r(hall["length_m"] - SERVICE_ZONE_M / 2),
                }
            )
        all_racks = [(spec, rack) for _, members in rows for spec, rack in members]
        for i, (spec, _) in enumerate(all_racks):
            spec["cooling_unit"] = units[i * n_units // len(all_racks)]

        # Row PDUs and rack feeds: each side rated for the whole rack (2N).
        for u, members_idx in enumerate(ups_groups):
            for r in members_idx:
                row_spec, members = rows[r]
                pdu_kw = _ceil_to(row_kw[r] / self.max_util, 50.0)
                for s in "AB":
                    pdu = self._device(f"{prefix}-{row_spec['name']}-PDU-{s}", "pdu", bname, pdu_kw, hname)
                    self._feed(ups_names[s][u], pdu, pdu_kw, s)
                for spec, rack in members:
                    spec["feed_a"] = f"{prefix}-{row_spec['name']}-PDU-A"
                    spec["feed_b"] = f"{prefix}-{row_spec['name']}-PDU-B"
                    spec["feed_rating_kw"] = _ceil_to(rack.kw / self.max_util, 5.0)

    # -- fabric

    def fabric(self) -> None:
        row = self.switch_row
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
        multi = len(self.pods) > 1
        # Racks of each pod with where they stand: (building, hall index, hall spec, row spec, rack spec, plan).
        by_pod: dict[str, list[tuple[int, int, Row, Row, Row, _RackPlan]]] = {}
        for bi, halls in enumerate(self.layout):
            for hi, rows in enumerate(halls):
                hall = self.buildings[bi]["halls"][hi]
                for row_spec, members in rows:
                    for spec, plan in members:
                        by_pod.setdefault(spec["pod"], []).append((bi, hi, hall, row_spec, spec, plan))
        tops: list[tuple[str, int, int]] = []  # (top group name, end points, building)
        for pod in self.pods:
            pname = pod["name"]
            members = by_pod[pname]
            node = self.catalog.node_models[members[0][5].node_model]
            rails = int(node["nics"])
            nic_speed = float(node["nic_speed_gbps"])
            endpoints = sum(plan.nodes for *_, plan in members) * rails
            design = design_fabric(max(1, endpoints), switch, self.topology, 1.0, nics_per_gpu=1)
            tiers = max(2, design.tiers)
            down = design.leaf_down_ports if design.tiers > 1 else leaf_down_ports(k, 1.0)
            up = k - down
            home_b, home_h, home_hall = members[0][0], members[0][1], members[0][2]
            spine_xy = (
                home_hall["x_m"] + home_hall["width_m"] / 2,
                home_hall["y_m"] + home_hall["length_m"] - SERVICE_ZONE_M / 2,
            )

            leaf_groups: list[tuple[str, int, int, int]] = []  # (name, count, building, hall index)
            if self.topology == "rail-optimized":
                # One leaf group per rail per hall of the pod, at the end of the pod's rows.
                by_hall: dict[tuple[int, int], list] = {}
                for m in members:
                    by_hall.setdefault((m[0], m[1]), []).append(m)
                for (bi, hi), racks in by_hall.items():
                    hall = racks[0][2]
                    ys = [spec["y_m"] for *_, spec, _ in racks]
                    end_x, mid_y = hall["width_m"] - HALL_MARGIN_M / 2, (min(ys) + max(ys)) / 2
                    nodes_here = sum(plan.nodes for *_, plan in racks)
                    count = math.ceil(nodes_here / down)
                    for rail in range(rails):
                        gname = f"{pname}-LEAF-{self.buildings[bi]['name']}{hall['name']}-RAIL{rail + 1}"
                        self.switches.append(self._switch(gname, pname, "leaf", count, bi, hall))
                        leaf_groups.append((gname, count, bi, hi))
                    for *_, spec, plan in racks:
                        length = _ceil_to(abs(end_x - spec["x_m"]) + abs(mid_y - spec["y_m"]) + 3.0, 1.0)
                        for rail in range(rails):
                            gname = f"{pname}-LEAF-{self.buildings[bi]['name']}{hall['name']}-RAIL{rail + 1}"
                            self._link(pname, gname, plan.nodes, length, nic_speed, a_rack=spec["name"])
            else:
                # One leaf group per row segment of at most MOR_SEGMENT_RACKS racks, in its middle rack:
                # every node cable then stays within copper (AEC) reach.
                by_row: dict[int, list] = {}
                for m in members:
                    by_row.setdefault(id(m[3]), []).append(m)
                segments = [
                    row[i : i + MOR_SEGMENT_RACKS]
                    for row in by_row.values()
                    for i in range(0, len(row), MOR_SEGMENT_RACKS)
                ]
                for racks in segments:
                    bi, hi, hall, _ = racks[0][:4]
                    middle = racks[len(racks) // 2][4]
                    ports = sum(plan.nodes for *_, plan in racks) * rails
                    count = math.ceil(ports / down)
                    gname = f"{pname}-LEAF-{middle['name']}"
                    self.switches.append(
                        self._switch(gname, pname, "leaf", count, bi, hall, rack=middle["name"])
                    )
                    leaf_groups.append((gname, count, bi, hi))
                    for *_, spec, plan in racks:
                        length = _ceil_to(abs(middle["x_m"] - spec["x_m"]) + 2.0, 0.5)
                        self._link(pname, gname, plan.nodes * rails, length, nic_speed, a_rack=spec["name"])

            # Spine (and core) groups per pod in the home hall's service zone.
            uplinks = math.ceil(endpoints / self.oversubscription) if multi else 0
            leaves = sum(c for _, c, _, _ in leaf_groups)
            ports_up = leaves * up
            tier_names = ["spine", "core"][: tiers - 1]
            lower = leaf_groups
            for t, tier in enumerate(tier_names):
                top = t == len(tier_names) - 1
                needed = ports_up + (uplinks if top else 0)
                count = math.ceil(needed / (k if top else half))
                gname = f"{pname}-{tier.upper()}"
                home = self.buildings[home_b]["halls"][home_h]
                self.switches.append(self._switch(gname, pname, tier, count, home_b, home))
                for lname, lcount, bi, hi in lower:
                    if t == 0:
                        hall = self.buildings[bi]["halls"][hi]
                        if (bi, hi) == (home_b, home_h):
                            length = UPLINK_M_SAME_HALL
                        else:
                            hx = self.buildings[bi]["x_m"] + hall["x_m"] + hall["width_m"] / 2
                            hy = self.buildings[bi]["y_m"] + hall["y_m"] + hall["length_m"] / 2
                            sx = self.buildings[home_b]["x_m"] + spine_xy[0]
                            sy = self.buildings[home_b]["y_m"] + spine_xy[1]
                            length = _ceil_to(abs(hx - sx) + abs(hy - sy) + UPLINK_M_SAME_HALL, 1.0)
                        self._link(pname, gname, lcount * up, length, speed, a_switch=lname)
                    else:
                        self._link(pname, gname, lcount * half, SPINE_CORE_M, speed, a_switch=lname)
                lower = [(gname, count, home_b, home_h)]
                ports_up = count * half
            tops.append((lower[0][0], endpoints, home_b))

        if multi:
            inter = design_inter_island([e for _, e, _ in tops], switch, self.oversubscription)
            name = "SUPER-SPINE"
            home = self.buildings[0]["halls"][0]
            self.switches.append(self._switch(name, None, "super-spine", inter.switches, 0, home))
            for top_name, e, bi in tops:
                dx = abs(self.buildings[bi]["x_m"] - self.buildings[0]["x_m"])
                dy = abs(self.buildings[bi]["y_m"] - self.buildings[0]["y_m"])
                length = _ceil_to(dx + dy + INTER_BUILDING_EXTRA_M, 1.0)
                self._link(None, name, math.ceil(e / self.oversubscription), length, speed, a_switch=top_name)

    def _switch(
        self, name: str, pod: str | None, tier: str, count: int, bi: int, hall: Row, rack: str | None = None
    ) -> Row:
        sw: Row = {"name": name}
        if pod:
            sw["pod"] = pod
        sw.update({"tier": tier, "model": self.switch_row["slug"], "count": int(count)})
        sw["building"] = self.buildings[bi]["name"]
        sw["hall"] = hall["name"]
        if rack:
            sw["rack"] = rack
        return sw

    def _link(
        self,
        pod: str | None,
        b_switch: str,
        count: int,
        length_m: float,
        speed_gbps: float,
        a_rack: str | None = None,
        a_switch: str | None = None,
    ) -> None:
        link: Row = {}
        if pod:
            link["pod"] = pod
        if a_rack:
            link["a_rack"] = a_rack
        else:
            link["a_switch"] = a_switch
        link.update(
            {
                "b_switch": b_switch,
                "medium": cat.medium_for_length(length_m),
                "count": int(count),
                "length_m": _r(length_m, 1),
                "speed_gbps": float(speed_gbps),
            }
        )
        self.links.append(link)

    def document(self) -> dict[str, Any]:
        return {
            "utility_feeds": self.utility_feeds,
            "buildings": self.buildings,
            "power_devices": self.devices,
            "power_feeds": self.feeds,
            "cooling_plants": self.plants,
            "cooling_units": self.units,
            "pods": self.pods,
            "switches": self.switches,
            "links": self.links,
        }
