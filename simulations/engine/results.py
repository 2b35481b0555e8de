"""The plain result of one replica of any scenario kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# progress(fraction_done) is called now and then during a replica; it must be cheap.
Progress = Callable[[float], None]


@dataclass
class ReplicaResult:
    """Scalar metrics, per-cause counts, time series (always with a "t_hours" axis), the number of
    simulation events the replica processed, and JSON-ready details a kind reports beside its numbers (lists
    and curves that are not series over time: violations, a spectrum, sizing sweeps)."""

    metrics: dict[str, float]
    by_cause: dict[str, float] = field(default_factory=dict)
    series: dict[str, np.ndarray] = field(default_factory=dict)
    events: int = 0
    details: dict[str, Any] = field(default_factory=dict)
