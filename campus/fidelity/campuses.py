"""The few campuses the cases need, built once per process without a database."""

from __future__ import annotations

import dataclasses
from functools import cache

from campus.analysis.catalog import catalog_specs
from campus.analysis.snapshot import CampusSnapshot, RackSnap
from campus.analysis.synthetic import synthetic_campus
from campus.catalog_data import node_power_w
from campus.interchange.generator import generate_spec


@cache
def synthetic_100k_h100() -> CampusSnapshot:
    """The SemiAnalysis reference: 100,000 H100 in 8-GPU servers, 2N power, liquid cooling, InfiniBand."""
    return synthetic_campus(100_000)


def servers(counts: dict[str, int], name: str = "servers") -> CampusSnapshot:
    """A campus of nothing but servers (racks of up to 4), with the catalog's specs and failure rates: what
    the reliability figures need and no more."""
    specs = catalog_specs()
    racks = []
    for slug, count in counts.items():
        left = count
        while left > 0:
            n = min(4, left)
            left -= n
            racks.append(
                RackSnap(
                    id=len(racks) + 1,
                    name=f"{slug}-{len(racks) + 1}",
                    hall_id=1,
                    building_id=1,
                    x_m=float(len(racks)),
                    y_m=0.0,
                    cooling_type="direct-to-chip",
                    design_kw=60.0,
                    cooling_unit_id=None,
                    pod_id=None,
                    status="active",
                    nodes=((slug, n),),
                )
            )
    return CampusSnapshot(
        id=1,
        name=name,
        grid_capacity_kw=0.0,
        price_usd_per_kwh=0.078,
        design_pue=1.2,
        ambient_temp_c=25.0,
        other_it_fraction=0.1,
        gpus=specs["gpus"],
        node_models=specs["node_models"],
        failure_rates=specs["failure_rates"],
        racks=tuple(racks),
    )


@cache
def llama3_cluster() -> CampusSnapshot:
    """16,384 H100 in 2,048 eight-GPU servers (Llama 3 paper, arXiv 2407.21783, §3.3.4)."""
    return servers({"hgx-h100-8": 2048}, "Llama 3 405B cluster")


def with_catalog_rates(snap: CampusSnapshot) -> CampusSnapshot:
    return dataclasses.replace(snap, failure_rates=catalog_specs()["failure_rates"])


@cache
def synthetic_llama3_h100() -> CampusSnapshot:
    """The Llama 3 cluster as a whole campus (2N power, cooling, fabric) for the simulation engine."""
    return with_catalog_rates(synthetic_campus(16_384))


@cache
def generated_rack_kw(gpu_model: str) -> float:
    """IT power of the first rack of a generated reference design of one rack's worth of ``gpu_model``
    (servers at full TDP, catalog node power)."""
    spec = generate_spec("fidelity", gpus=576, gpu_model=gpu_model)
    rack = spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]
    return sum(n["count"] * node_power_w(n["model"]) for n in rack["nodes"]) / 1000.0
