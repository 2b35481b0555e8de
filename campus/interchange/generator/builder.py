"""The spec under construction: the lists each domain step appends to, and the helpers that append."""

from __future__ import annotations

from typing import Any

from campus import catalog_data as cat
from campus.analysis.fabric import CampusPlan
from campus.interchange.generator.common import (
    COLD_PLATE_MAX_RETURN_C,
    DEFAULT_POWER_ARCHITECTURE,
    FACILITY_WATER_C,
    POWER_ARCHITECTURES,
    Catalog,
    Row,
    r3,
)
from campus.interchange.generator.plan import RackPlan

# One row of a hall: (row spec, [(rack spec, rack plan)]).
HallRow = tuple[Row, list[tuple[Row, RackPlan]]]


class Builder:
    """Accumulates the spec's lists while walking buildings, halls and rows."""

    def __init__(
        self,
        catalog: Catalog,
        name: str,
        cooling: str,
        pue: float | None,
        topology: str,
        fabric: str,
        switch_row: Row,
        oversubscription: float,
        racks_per_row: int,
        climate: str,
        power_redundancy: str = "2N",
        cooling_redundancy: str = "N+1",
        power_architecture: str = DEFAULT_POWER_ARCHITECTURE,
        planning_margin_pct: float = 0.0,
        span_buildings: bool = False,
        heat_rejection: str = "auto",
        facility_water: str | None = None,
    ) -> None:
        self.catalog = catalog
        self.architecture = POWER_ARCHITECTURES[power_architecture]
        self.heat_rejection = heat_rejection
        self.facility_water = facility_water  # "W32" | "W40" | "W45" | None (the catalog's loop)
        self.power_redundancy = power_redundancy
        self.cooling_redundancy = cooling_redundancy
        self.climate = climate
        self.cooling = cooling
        self.pue = pue
        self.topology = topology
        self.fabric_name = fabric
        self.switch_row = switch_row
        self.oversubscription = oversubscription
        self.racks_per_row = racks_per_row
        self.cooling_notes: list[str] = []  # what the plant choice was and why, for the design's notes
        self.utility_feeds: list[Row] = []
        self.buildings: list[Row] = []
        self.devices: list[Row] = []
        self.feeds: list[Row] = []
        self.storage: list[Row] = []
        self.plants: list[Row] = []
        self.units: list[Row] = []
        self.pods: list[Row] = []
        self.switches: list[Row] = []
        self.links: list[Row] = []
        self.grid_capacity_mw = 0.0
        self.it_kw = 0.0  # servers, network and other IT, set with the halls' heat
        # The planning margin: switches, rack positions, power and cooling are sized for this factor more
        # than the design holds, so racks can be added later (docs/generator.md, "Planning margin"). Power
        # is rated at the planning limit for the load times the factor.
        self.margin_factor = 1.0 + planning_margin_pct / 100.0
        self.max_util = cat.default_value("max_utilization") / self.margin_factor
        self.other_it_fraction = cat.default_value("other_it_fraction")
        # the allowance the document writes: the share of IT outside the servers not inventoried
        # (cooling.hall_heat works it out once the network is laid)
        self.allowance_fraction = self.other_it_fraction
        # per building, per hall: its rows
        self.layout: list[list[list[HallRow]]] = []
        self.pod_names: list[str] = []
        self.pod_building: list[int] = []  # each pod's first building
        self.pod_spans: list[list[int]] = []  # every building each pod stands in
        self.fabric_plan: CampusPlan | None = None  # how the fabric joins the pods (set by build_fabric)
        self.span_buildings = span_buildings  # an island larger than a building continues in the next

    def device(
        self, name: str, kind: str, building: str, rated_kw: float, hall: str | None = None, **extra: Any
    ) -> str:
        dev: Row = {"name": name, "kind": kind, "building": building}
        if hall:
            dev["hall"] = hall
        dev["rated_kw"] = r3(rated_kw)
        dev["efficiency"] = cat.device_efficiency(kind)
        dev.update(extra)
        self.devices.append(dev)
        return name

    def feed(self, up: str, down: str, rating_kw: float, side: str = "N") -> None:
        self.feeds.append({"from": up, "to": down, "side": side, "rating_kw": r3(rating_kw)})

    def switch(
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

    def link(
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
                "length_m": r3(length_m, 1),
                "speed_gbps": float(speed_gbps),
            }
        )
        self.links.append(link)

    def liquid_loop_c(self) -> tuple[float, float]:
        """(supply, return) of the CDUs' secondary loop, °C: the catalog's, or the facility water class's
        supply + the CDU approach with the catalog's rise (at most ``COLD_PLATE_MAX_RETURN_C``)."""
        supply = cat.default_value("supply_temp_c")
        ret = cat.default_value("return_temp_c")
        if self.facility_water is None:
            return supply, ret
        new_supply = FACILITY_WATER_C[self.facility_water] + cat.default_value("cdu_approach_k")
        return new_supply, min(new_supply + (ret - supply), COLD_PLATE_MAX_RETURN_C)

    def document(self) -> dict[str, Any]:
        doc = {
            "utility_feeds": self.utility_feeds,
            "buildings": self.buildings,
            "power_devices": self.devices,
            "power_feeds": self.feeds,
        }
        if self.storage:
            doc["energy_storage"] = self.storage
        return {
            **doc,
            "cooling_plants": self.plants,
            "cooling_units": self.units,
            "pods": self.pods,
            "switches": self.switches,
            "links": self.links,
        }
