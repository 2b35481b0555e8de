"""Replicas until a confidence target: add replicas one at a time and stop once the Student-t confidence
interval of a metric's mean is narrow enough (half-width / |mean| at most ``relative_accuracy``), the
sequential procedure of Law & Kelton ("Simulation Modeling and Analysis", §9.4.1) that AI-cluster failure
simulators use to stop replications early (AIReSim's adaptive runner: 95 %, ±5 %, at least 30 runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scipy.stats import t as student_t


@dataclass(frozen=True)
class ConfidentRun:
    values: list[float]  # the metric of each replica, in order
    mean: float
    half_width: float  # of the confidence interval of the mean
    converged: bool  # the target was met before ``max_replicas``

    @property
    def replicas(self) -> int:
        return len(self.values)


def half_width(values: Sequence[float], confidence: float = 0.95) -> float:
    """Half-width of the Student-t confidence interval of the mean of ``values`` (inf below 2 values)."""
    n = len(values)
    if n < 2:
        return math.inf
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return float(student_t.ppf(0.5 + confidence / 2.0, n - 1)) * math.sqrt(var / n)


def run_to_confidence(
    replica: Callable[[int], float],
    relative_accuracy: float,
    confidence: float = 0.95,
    min_replicas: int = 10,
    max_replicas: int = 1000,
) -> ConfidentRun:
    """Call ``replica(i)`` for i = 0, 1, ... until, from ``min_replicas`` on, the interval's half-width is
    at most ``relative_accuracy`` × |mean|, or ``max_replicas`` have run (then ``converged`` is False)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence: must be in (0, 1)")
    if relative_accuracy <= 0:
        raise ValueError("relative_accuracy: must be > 0")
    if not 2 <= min_replicas <= max_replicas:
        raise ValueError("min_replicas: must be at least 2 and at most max_replicas")
    values: list[float] = []
    hw = math.inf
    for i in range(max_replicas):
        values.append(float(replica(i)))
        if len(values) < min_replicas:
            continue
        mean = sum(values) / len(values)
        hw = half_width(values, confidence)
        if hw <= relative_accuracy * abs(mean):
            return ConfidentRun(values, mean, hw, True)
    return ConfidentRun(values, sum(values) / len(values), hw, False)
