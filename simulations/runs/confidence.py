"""Runs with a confidence target: replicas stop once the confidence interval of a metric's mean is
narrow enough (``simulations.engine.confidence.Sequential``, the rule ``run_to_confidence`` applies in
one process).

The run asks for ``replicas`` at most. Its chunks run and store replicas as for any run; each store (the
Run row locked) feeds the rule the replicas stored without a gap from index 0, in index order, and keeps
the rule's state on the run (``Run.confidence``), so the GET of a running run shows the half-width so
far. The first n at which the rule is met ends the run: the replicas from n on (chunks run in parallel,
some may be stored already) are dropped, ``replicas`` becomes n and the run is finished on its first n
replicas. So the result depends on the seed alone, never on the order the workers finished in, and it is
the one ``run_to_confidence`` gives on the same replica seeds. Chunks still running see the run finished
and stop before their next replica (``execute``).
"""

from __future__ import annotations

import math
from typing import Any

from simulations.engine import catalogue
from simulations.engine.params import ParamsError
from simulations.engine.runner import Sequential
from simulations.models import ReplicaResult, Run

from .config import stochastic, validated_params

DEFAULTS = {"metric": "ettr", "confidence": 0.95, "min_replicas": 10}


class ConfidenceTargetError(ValueError):
    """A confidence target the run cannot have; ``errors`` keyed by field as the API answers them."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = errors


def normalise(kind: str, target: dict[str, Any], replicas: int, stochastic: bool, sweep: bool) -> dict:
    """The target as the run keeps it ({metric, relative_half_width, confidence, min_replicas,
    max_replicas}, defaults filled in), or ConfidenceTargetError naming what is wrong."""
    t = {**DEFAULTS, **target}
    errors: dict[str, list[str]] = {}
    if sweep:
        errors["confidence_target"] = ["a sweep runs a fixed number of replicas at each point"]
    elif not stochastic:
        errors["confidence_target"] = [
            "the replicas of this scenario never differ (one replica is the answer)"
        ]
    known = catalogue.metrics(kind)
    if t["metric"] not in known:
        errors["confidence_target.metric"] = [
            f"{t['metric']!r} is not a metric of {kind}; one of: {', '.join(sorted(known))}"
        ]
    if t["min_replicas"] > replicas:
        errors["confidence_target.min_replicas"] = [
            f"must be at most the run's replicas ({replicas}), the cap of a run with a confidence target"
        ]
    if errors:
        raise ConfidenceTargetError(errors)
    return {
        "metric": t["metric"],
        "relative_half_width": float(t["relative_half_width"]),
        "confidence": float(t["confidence"]),
        "min_replicas": int(t["min_replicas"]),
        "max_replicas": int(replicas),
    }


def schedule_target_errors(kind: str, params: dict | None, target: dict | None, replicas: int) -> dict:
    """What ``normalise`` would refuse in a schedule's ``target`` for its scenario (``kind``, ``params``)
    and its ``replicas`` (the cap), keyed by field as the API answers them; {} when it fits or is None."""
    if not target:
        return {}
    try:
        validated = validated_params(kind, params)
    except ParamsError:
        return {}  # the scenario's own parameters are checked where they are saved
    try:
        normalise(kind, dict(target), replicas, stochastic(kind, validated), False)
    except ConfidenceTargetError as exc:
        return exc.errors
    return {}


def _rule(c: dict) -> Sequential:
    return Sequential(c["relative_half_width"], c["confidence"], c["min_replicas"], c.get("state"))


def advance(run: Run) -> bool:
    """Feed the rule the replicas stored since the last call, in index order up to the first gap; keep its
    state on ``run.confidence`` (not saved here). True when the target is met: then
    ``run.confidence["replicas"]`` is the number of replicas that met it. The caller holds the row lock."""
    c = run.confidence
    rule = _rule(c)
    nxt = int((c.get("state") or {}).get("next", 0))
    metric = c["metric"]
    met = False
    rows = ReplicaResult.objects.filter(run=run, index__gte=nxt).order_by("index")
    for index, metrics in rows.values_list("index", "metrics").iterator():
        if index != nxt:
            break  # a gap: a replica not stored yet
        value = (metrics or {}).get(metric)
        nxt += 1
        if value is None:
            continue  # a replica without the metric (a NaN is stored as null) says nothing of its mean
        rule.add(float(value))
        if rule.met:
            met = True
            break
    c = {**c, "state": {**rule.state, "next": nxt}, "replicas": nxt, "mean": rule.mean}
    hw = rule.half_width
    c["half_width"] = hw if math.isfinite(hw) else None
    c["relative_half_width_achieved"] = hw / abs(rule.mean) if math.isfinite(hw) and rule.mean else None
    c["converged"] = met
    run.confidence = c
    return met


def stop_at(run: Run) -> None:
    """The target was met at ``run.confidence["replicas"]``: drop the replicas after it and make the run
    that many replicas long (the caller saves the run and finishes it)."""
    n = run.confidence["replicas"]
    ReplicaResult.objects.filter(run=run, index__gte=n).delete()
    run.replicas = n
    run.replicas_done = n
    run.progress = 1.0


def summary(run: Run) -> dict[str, Any] | None:
    """What the run's summary says of its target: replicas used, the half-width reached and whether the
    target was met before the cap."""
    c = run.confidence
    if not c:
        return None
    return {
        k: c.get(k)
        for k in (
            "metric",
            "relative_half_width",
            "confidence",
            "min_replicas",
            "max_replicas",
            "replicas",
            "mean",
            "half_width",
            "relative_half_width_achieved",
            "converged",
        )
    }
