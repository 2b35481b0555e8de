"""The power_capping model: ``prepare`` (once per snapshot), ``stochastic`` and ``run`` (one replica).

What it takes, returns and why it does or does not use SimPy: the package's docstring
(``simulations.engine.kinds.power_capping``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from campus.analysis.snapshot import CampusSnapshot
from simulations.engine.fields import ParamsError
from simulations.engine.kinds.power_capping.params import CapRule, PowerCappingParams
from simulations.engine.loads import CampusLoad, campus_load, effective_cap, speed_at_cap
from simulations.engine.results import Progress, ReplicaResult


@dataclass
class CappingPlan:
    params: PowerCappingParams
    load: CampusLoad
    price_usd_per_kwh: float
    segments: list[tuple[float, float, list[CapRule]]]  # (start h, end h, caps in force)


def _check_rules(snap: CampusSnapshot, p: PowerCappingParams) -> None:
    pods = {pod.id for pod in snap.pods} | {r.pod_id for r in snap.racks if r.pod_id is not None}
    errors = []
    rule_sets = [("caps", p.caps)] + [(f"schedule[{i}].caps", s.caps) for i, s in enumerate(p.schedule)]
    for prefix, rules in rule_sets:
        for j, rule in enumerate(rules):
            if rule.gpu_model is not None and rule.gpu_model not in snap.gpus:
                errors.append(
                    {
                        "field": f"{prefix}[{j}].gpu_model",
                        "message": f"no GPU model {rule.gpu_model!r} in the campus",
                    }
                )
            if rule.pod_id is not None and rule.pod_id not in pods:
                errors.append(
                    {"field": f"{prefix}[{j}].pod_id", "message": f"no pod {rule.pod_id} in the campus"}
                )
    if errors:
        raise ParamsError(errors)


def stochastic(params: PowerCappingParams) -> bool:
    """Never: nothing here is random, every replica is the same."""
    return False


def prepare(snap: CampusSnapshot, params: PowerCappingParams) -> CappingPlan:
    p = params
    _check_rules(snap, p)
    load = campus_load(snap, p.job.precision, p.job.mfu, p.utilization, p.pue)
    starts = [(0.0, p.caps)] + [
        (s.start_hours, s.caps) for s in p.schedule if s.start_hours < p.duration_hours
    ]
    segments = []
    for i, (start, caps) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else p.duration_hours
        if end > start:
            segments.append((start, end, list(caps)))
    price = p.price_usd_per_kwh if p.price_usd_per_kwh is not None else snap.price_usd_per_kwh
    return CappingPlan(p, load, price, segments)


def group_caps(load: CampusLoad, rules: list[CapRule]) -> list[float]:
    """Cap fraction applied to each group: the last matching rule wins; no rule means TDP."""
    out = []
    for g in load.groups:
        cap = 1.0
        for rule in rules:
            if rule.gpu_model is not None and rule.gpu_model != g.gpu.slug:
                continue
            if rule.pod_id is not None and rule.pod_id != g.pod_id:
                continue
            cap = rule.cap_fraction if rule.cap_fraction is not None else rule.cap_w / g.gpu.tdp_w
        out.append(effective_cap(g.gpu, cap))
    return out


def run(plan: CappingPlan, seed: int, progress: Progress | None = None) -> ReplicaResult:
    """Deterministic: the seed is accepted for a uniform interface and not used."""
    p = plan.params
    load = plan.load
    u = p.utilization
    scope = p.job_scope
    uncapped_it = load.it_kw([u] * len(load.groups))
    uncapped_tflops = load.throughput_tflops([1.0] * len(load.groups), scope)
    t, it, fac, tput, capmean = [], [], [], [], []
    peak_fac = 0.0
    energy_it = energy_fac = flop_tflops_h = 0.0
    gpus_total = sum(g.gpus for g in load.groups) or 1
    for start, end, rules in plan.segments:
        caps = group_caps(load, rules)
        it_kw = load.it_kw([c * u for c in caps])
        fac_kw = it_kw * load.pue
        peak_fac = max(peak_fac, load.peak_facility_kw([c * u for c in caps]))
        tflops = load.throughput_tflops(
            [speed_at_cap(g.gpu, c) for g, c in zip(load.groups, caps, strict=True)], scope
        )
        mean_cap = sum(c * g.gpus for g, c in zip(load.groups, caps, strict=True)) / gpus_total
        dur = end - start
        energy_it += it_kw * dur
        energy_fac += fac_kw * dur
        flop_tflops_h += tflops * dur
        for tt in (start, end):
            t.append(tt)
            it.append(it_kw)
            fac.append(fac_kw)
            tput.append(tflops)
            capmean.append(mean_cap)
    if progress is not None:
        progress(1.0)
    hours = p.duration_hours
    mean_fac = energy_fac / hours
    mean_tflops = flop_tflops_h / hours
    uncapped_fac = uncapped_it * load.pue
    metrics = {
        "energy_it_mwh": energy_it / 1000.0,
        "energy_facility_mwh": energy_fac / 1000.0,
        "cost_usd": energy_fac * plan.price_usd_per_kwh,
        "mean_it_mw": energy_it / hours / 1000.0,
        "mean_facility_mw": mean_fac / 1000.0,
        # the highest-IT segment in the hour of peak facility power (the PUE of that hour, not the year's)
        "peak_facility_mw": peak_fac / 1000.0,
        "mean_throughput_pflops": mean_tflops / 1000.0,
        "useful_eflop": flop_tflops_h * 3600.0 / 1e6,
        "perf_per_w_tflops_per_kw": mean_tflops / mean_fac if mean_fac > 0 else 0.0,
        "energy_saving_fraction": 1.0 - mean_fac / uncapped_fac if uncapped_fac > 0 else 0.0,
        "throughput_fraction": mean_tflops / uncapped_tflops if uncapped_tflops > 0 else 0.0,
        "perf_per_w_gain": (
            (mean_tflops / mean_fac) / (uncapped_tflops / uncapped_fac) - 1.0
            if mean_fac > 0 and uncapped_tflops > 0
            else 0.0
        ),
    }
    series = {
        "t_hours": np.asarray(t),
        "it_kw": np.asarray(it),
        "facility_kw": np.asarray(fac),
        "throughput_pflops": np.asarray(tput) / 1000.0,
        "mean_cap_fraction": np.asarray(capmean),
        "perf_per_w_tflops_per_kw": np.asarray(tput) / np.maximum(np.asarray(fac), 1e-12),
    }
    return ReplicaResult(
        metrics=metrics, series=series, events=len(plan.segments), details={"job": plan.load.job}
    )
