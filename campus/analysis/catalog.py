"""The catalog (``campus.catalog_data``) as snapshot specs, for code that has no database at hand."""

from __future__ import annotations

from functools import cache

from campus import catalog_data as cat
from campus.analysis.snapshot import FailureRate, GpuSpec, MediumSpec, NodeSpec, SwitchSpec


@cache
def _specs() -> dict:
    gpus = {
        r["slug"]: GpuSpec(
            slug=r["slug"],
            name=r["name"],
            vendor=r["vendor"],
            tdp_w=float(r["tdp_w"]),
            memory_gb=float(r["memory_gb"]),
            peak_tflops=cat.peak_tflops(r),
            fp8_support=bool(r["fp8_support"]),
            scaleup_gbps=float(r["scaleup_gbps"]),
            slowdown_temp_c=float(r["slowdown_temp_c"]),
            shutdown_temp_c=float(r["shutdown_temp_c"]),
            cap_curve=tuple((float(a), float(b)) for a, b in r["cap_curve"]),
            min_cap_fraction=float(r["min_cap_fraction"]),
            failure_rate_set=cat.gpu_failure_rate_set(r["slug"]),
        )
        for r in cat.GPU_MODELS
    }
    nodes = {
        r["slug"]: NodeSpec(
            slug=r["slug"],
            name=r["name"],
            gpu=r["gpu"],
            gpus_per_node=int(r["gpus_per_node"]),
            overhead_w=float(r["overhead_w"]),
            nics=int(r["nics"]),
            nic_kind=r["nic_kind"],
            nic_extra_w=float(cat.NIC_KINDS.get(r["nic_kind"], {}).get("extra_w_per_nic", 0.0)),
            nic_speed_gbps=float(r["nic_speed_gbps"]),
            rack_units=int(r["rack_units"]),
            liquid_heat_fraction=float(r.get("liquid_heat_fraction", 0.0)),
        )
        for r in cat.NODE_MODELS
    }
    switches = {
        r["slug"]: SwitchSpec(
            r["slug"],
            r["name"],
            r["fabric"],
            int(r["radix"]),
            float(r["port_speed_gbps"]),
            float(r["power_w_copper"]),
            float(r["power_w_optics"]),
        )
        for r in cat.SWITCH_MODELS
    }
    media = {
        r["slug"]: MediumSpec(
            r["slug"],
            r["name"],
            float(r["max_reach_m"]),
            float(r["power_w_per_end"]),
            float(r["relative_cost"]),
            float(r["mtbf_hours"]),
            bool(r["is_optical"]),
        )
        for r in cat.LINK_MEDIA
    }
    rates = tuple(
        FailureRate(
            component=r["component"],
            per=r["per"],
            mtbf_hours=float(r["mtbf_hours"]),
            interrupts_job=bool(r["interrupts_job"]),
            repair_hours=float(r["repair_hours"]),
            dataset=r["dataset"],
            source=r.get("source", ""),
        )
        for r in cat.FAILURE_RATES
    )
    return {
        "gpus": gpus,
        "node_models": nodes,
        "switch_models": switches,
        "media": media,
        "failure_rates": rates,
    }


def catalog_specs() -> dict:
    """The catalog rows as snapshot specs: gpus, node_models, switch_models, media, failure_rates (a copy)."""
    specs = _specs()
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in specs.items()}
