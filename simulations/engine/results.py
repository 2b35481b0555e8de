"""The plain result of one replica of any scenario kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# progress(fraction_done) is called now and then during a replica; it must be cheap.
Progress = Callable[[float], None]


@dataclass
class ReplicaResult:
    """Scalar metrics, per-cause counts, time series (always with a "t_hours" axis) and the number of
    simulation events the replica processed."""

    metrics: dict[str, float]
    by_cause: dict[str, float] = field(default_factory=dict)
    series: dict[str, np.ndarray] = field(default_factory=dict)
    events: int = 0
