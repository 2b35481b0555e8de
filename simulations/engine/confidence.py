"""Replicas until a confidence target: add replicas one at a time and stop once the Student-t confidence
interval of a metric's mean is narrow enough (half-width / |mean| at most ``relative_accuracy``), the
sequential procedure of Law & Kelton ("Simulation Modeling and Analysis", §9.4.1) that AI-cluster failure
simulators use to stop replications early (AIReSim's adaptive runner: 95 %, ±5 %, at least 30 runs).
``run_to_confidence`` runs replicas in one process; a Celery run with a ``confidence_target``
(``simulations.runs.confidence``) applies the same rule, ``Sequential``, to its stored replicas in index
order, so both stop at the same replica.
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


class Sequential:
    """The running mean and variance of a metric's replicas in index order (Welford's update), and the
    stopping rule: from ``min_replicas`` on, stop once the half-width of the Student-t interval of the
    mean is at most ``relative_accuracy`` x |mean|. Its state is a plain dict (``state``), so a run kept in
    a database can resume it replica by replica."""

    __slots__ = ("relative_accuracy", "confidence", "min_replicas", "n", "mean", "m2")

    def __init__(
        self,
        relative_accuracy: float,
        confidence: float = 0.95,
        min_replicas: int = 10,
        state: dict | None = None,
    ) -> None:
        if not 0 < confidence < 1:
            raise ValueError("confidence: must be in (0, 1)")
        if relative_accuracy <= 0:
            raise ValueError("relative_accuracy: must be > 0")
        if min_replicas < 2:
            raise ValueError("min_replicas: must be at least 2")
        self.relative_accuracy = relative_accuracy
        self.confidence = confidence
        self.min_replicas = min_replicas
        state = state or {}
        self.n = int(state.get("n", 0))
        self.mean = float(state.get("mean", 0.0))
        self.m2 = float(state.get("m2", 0.0))

    @property
    def state(self) -> dict:
        return {"n": self.n, "mean": self.mean, "m2": self.m2}

    @property
    def half_width(self) -> float:
        if self.n < 2:
            return math.inf
        t = float(student_t.ppf(0.5 + self.confidence / 2.0, self.n - 1))
        return t * math.sqrt(self.m2 / (self.n - 1) / self.n)

    @property
    def met(self) -> bool:
        """The target is met with the replicas so far."""
        return self.n >= self.min_replicas and self.half_width <= self.relative_accuracy * abs(self.mean)

    def add(self, value: float) -> bool:
        """One more replica's value; whether the target is met now."""
        self.n += 1
        delta = value - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (value - self.mean)
        return self.met


def run_to_confidence(
    replica: Callable[[int], float],
    relative_accuracy: float,
    confidence: float = 0.95,
    min_replicas: int = 10,
    max_replicas: int = 1000,
) -> ConfidentRun:
    """Call ``replica(i)`` for i = 0, 1, ... until, from ``min_replicas`` on, the interval's half-width is
    at most ``relative_accuracy`` × |mean|, or ``max_replicas`` have run (then ``converged`` is False)."""
    if not 2 <= min_replicas <= max_replicas:
        raise ValueError("min_replicas: must be at least 2 and at most max_replicas")
    rule = Sequential(relative_accuracy, confidence, min_replicas)
    values: list[float] = []
    for i in range(max_replicas):
        values.append(float(replica(i)))
        if rule.add(values[-1]):
            return ConfidentRun(values, rule.mean, rule.half_width, True)
    return ConfidentRun(values, rule.mean, rule.half_width, False)
