"""GPUs → servers → racks → pods: how many of each, before anything stands anywhere."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campus import catalog_data as cat
from campus.interchange.generator.common import (
    LIQUID_RACK_LIMIT_KW,
    NVL72_TRAYS_PER_RACK,
    USABLE_RACK_UNITS,
    Catalog,
    GeneratorError,
    r3,
)


@dataclass
class RackPlan:
    pod: int
    nodes: int
    node_model: str
    kw: float
    gpus: int


@dataclass
class PodPlan:
    index: int
    gpu_model: str
    node_model: str
    racks: list[RackPlan] = field(default_factory=list)

    @property
    def kw(self) -> float:
        return sum(r.kw for r in self.racks)


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
    """Servers per rack: by rack units, capped by the rack power limit (air ~40 kW, catalog estimate)."""
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


def plan_pods(
    catalog: Catalog, mix: Sequence[Mapping[str, Any]], nic: str, cooling: str, pod_max_gpus: int
) -> list[PodPlan]:
    pods: list[PodPlan] = []
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
            plan = PodPlan(len(pods), gpu_model, node_model)
            while pod_nodes > 0:
                n = min(per_rack, pod_nodes)
                plan.racks.append(RackPlan(plan.index, n, node_model, r3(n * node_kw, 2), n * per_node))
                pod_nodes -= n
            pods.append(plan)
    return pods
