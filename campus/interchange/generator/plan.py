"""GPUs → servers → racks → pods: how many of each, before anything stands anywhere."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campus import catalog_data as cat
from campus.analysis.rackscale import whole_rack_nodes
from campus.interchange.generator.common import (
    AIR,
    LIQUID_RACK_LIMIT_KW,
    USABLE_RACK_UNITS,
    Catalog,
    GeneratorError,
    r3,
    rack_cooling_type,
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
    entry: int = 0  # the mix entry (or phase) the pod was planned for

    @property
    def kw(self) -> float:
        return sum(r.kw for r in self.racks)


DEFAULT_NIC = "connectx7"


def pick_node_model(catalog: Catalog, gpu_model: str, nic: str | None) -> str:
    """The first catalog server with this GPU and NIC kind. Without ``nic``: one with the reference
    ConnectX-7 if there is one, else the GPU's first server (an Ascend's integrated RoCE ports)."""
    if gpu_model not in catalog.gpus:
        raise GeneratorError(
            "gpu_model", f'unknown GPU model "{gpu_model}"; known: {", ".join(sorted(catalog.gpus))}'
        )
    candidates = sorted(
        (r for r in catalog.node_models.values() if r["gpu"] == gpu_model),
        key=lambda r: (nic is None and r["nic_kind"] != DEFAULT_NIC, r["slug"]),
    )
    for row in candidates:
        if nic is None or row["nic_kind"] == nic:
            return row["slug"]
    kinds = sorted({r["nic_kind"] for r in candidates})
    raise GeneratorError(
        "nic", f'no server with GPU "{gpu_model}" and NIC "{nic}" in the catalog (has: {", ".join(kinds)})'
    )


def rack_scale_nodes(catalog: Catalog, node_model: str) -> int | None:
    """Nodes of a rack-scale NVLink domain (GB200/GB300 NVL72: 18 trays; VR200 NVL144: 18; Rubin Ultra
    NVL576: 72 blades), None for a server installed one at a time (``campus.analysis.rackscale``)."""
    return whole_rack_nodes(node_model, int(catalog.node_models[node_model]["gpus_per_node"]))


def domain_label(node_model: str) -> str:
    """ "NVL72", "NVL144", ... as the node model's slug names its NVLink domain."""
    return next((part.upper() for part in node_model.split("-") if part.lower().startswith("nvl")), "NVLink")


def nodes_per_rack(catalog: Catalog, node_model: str, cooling: str) -> int:
    """Servers per rack: by rack units, capped by the rack power limit (air ~40 kW, catalog estimate). In
    a liquid campus a server without a cold-plate version stands in an air-cooled rack."""
    node = catalog.node_models[node_model]
    node_kw = catalog.node_kw(node_model)
    whole = rack_scale_nodes(catalog, node_model)
    if whole is not None:
        if cooling != "liquid":
            raise GeneratorError(
                "cooling",
                f'a "{node_model}" rack ({whole * node_kw:.0f} kW, one NVLink domain) needs liquid cooling',
            )
        return whole
    air = rack_cooling_type(node, cooling) == AIR
    limit_kw = cat.default_value("air_cooling_limit_kw_per_rack") if air else LIQUID_RACK_LIMIT_KW
    by_space = max(1, USABLE_RACK_UNITS // max(1, node["rack_units"]))
    by_power = math.floor(limit_kw / node_kw)
    if by_power < 1:
        raise GeneratorError(
            "cooling", f'one "{node_model}" server ({node_kw:.1f} kW) exceeds the {limit_kw:g} kW rack limit'
        )
    return min(by_space, by_power)


def plan_pods(
    catalog: Catalog,
    mix: Sequence[Mapping[str, Any]],
    nic: str | None,
    cooling: str,
    pod_max_gpus: int,
    notes: list[str] | None = None,
) -> list[PodPlan]:
    """Pods of whole servers (whole racks for NVL72, the GPU count rounded up and noted in ``notes``)."""
    pods: list[PodPlan] = []
    for entry_index, entry in enumerate(mix):
        gpu_model, gpus = entry["gpu_model"], int(entry["gpus"])
        node_model = entry.get("node_model") or pick_node_model(catalog, gpu_model, nic)
        if node_model not in catalog.node_models:
            raise GeneratorError("mix", f'unknown node model "{node_model}"')
        per_node = catalog.node_models[node_model]["gpus_per_node"]
        if gpus <= 0:
            raise GeneratorError("gpus", "must be > 0")
        per_rack = nodes_per_rack(catalog, node_model, cooling)
        if rack_scale_nodes(catalog, node_model) is not None:
            # A rack-scale NVLink domain (NVL72, NVL144, NVL576) is built whole or not at all.
            rack_gpus = per_rack * per_node
            whole = math.ceil(gpus / rack_gpus) * rack_gpus
            if whole != gpus and notes is not None:
                notes.append(
                    f"{gpu_model}: {gpus:,} GPUs rounded up to {whole:,} ({whole // rack_gpus} whole "
                    f"{domain_label(node_model)} racks of {rack_gpus})"
                )
            gpus = whole
            # Pods of whole racks: at least one rack each.
            n_pods = math.ceil((gpus // rack_gpus) / max(1, pod_max_gpus // rack_gpus))
            unit_nodes = per_rack
        else:
            if gpus % per_node:
                raise GeneratorError(
                    "gpus", f"{gpus} {gpu_model} GPUs is not a whole number of {per_node}-GPU servers"
                )
            n_pods = math.ceil(gpus / pod_max_gpus)
            unit_nodes = 1
        units = gpus // per_node // unit_nodes
        node_kw = catalog.node_kw(node_model)
        base, extra = divmod(units, n_pods)
        for p in range(n_pods):
            pod_nodes = (base + (1 if p < extra else 0)) * unit_nodes
            plan = PodPlan(len(pods), gpu_model, node_model, entry=entry_index)
            while pod_nodes > 0:
                n = min(per_rack, pod_nodes)
                plan.racks.append(RackPlan(plan.index, n, node_model, r3(n * node_kw, 2), n * per_node))
                pod_nodes -= n
            pods.append(plan)
    return pods
