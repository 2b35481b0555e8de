"""The pieces every kind's words are made of: a metric as a person reads it (``Metric``), a run's summary
read by name (``Summary``), the labels of the causes of interruptions, and the number words of the
sentences (``num``, ``pct``, ``duration_h``, ``times``).

Each kind's package holds its own ``METRICS`` and ``explain`` (``simulations.engine.kinds.<kind>.words``);
``simulations.engine.catalogue`` reads them through the registry for the API and the dashboard.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from campus import catalog_data
from simulations.engine.fields import title_of


@dataclass(frozen=True)
class Metric:
    """One metric or series as a person reads it. ``higher_is_better`` is None where more is neither better
    nor worse (a temperature is only bad past a limit; a count of nodes is a fact)."""

    label: str
    unit: str = ""
    description: str = ""
    higher_is_better: bool | None = None
    # The physical range of a summary metric, (lowest, highest), None for no bound on that side: a count or
    # a duration is never negative, a share lies in [0, 1]. The run's 95 % interval of the mean (a normal
    # approximation, which crosses such a bound with few replicas) is clipped to it (``aggregate``).
    bounds: tuple[float | None, float | None] | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# Shorthands for ``Metric.bounds``.
NON_NEGATIVE: tuple[float | None, float | None] = (0.0, None)
SHARE: tuple[float | None, float | None] = (0.0, 1.0)


# Causes of interruptions (failure_cascade's by_cause keys): the Llama 3 paper's categories for the GPU and
# host causes, the equipment's names for the facility ones.
CAUSES: dict[str, str] = {
    **{c: row[0] for c, row in catalog_data.LLAMA3_INTERRUPTIONS.items()},
    "gpu": "Faulty GPU",
    "node": "Node (any cause)",
    "bad_node": "Bad node (until a repair finds it)",
    "network": "Network switch or cable",
    "optics_link": "Optical link",
    "optics_link_dual_port": "Optical link (dual port)",
    "copper_link": "Copper link",
    "switch": "Network switch",
    "utility_feed": "Utility feed",
    "transformer": "Transformer",
    "switchgear": "Switchgear",
    "ups": "UPS",
    "pdu": "PDU",
    "cdu": "CDU",
    "chiller": "Chiller",
    "generator": "Generator",
}


def cause_label(name: str) -> str:
    """ "nccl_watchdog" -> "NCCL watchdog timeouts"; an unknown cause by its name, acronyms kept."""
    return CAUSES.get(name) or title_of(name)


class Summary:
    """A run summary read by metric name: ``mean("ettr")`` (None when missing), ``cause_means()``."""

    def __init__(self, summary: Mapping[str, Any]) -> None:
        self.metrics = summary.get("metrics") or {}
        self.by_cause = summary.get("by_cause") or {}
        self.replicas = int(summary.get("replicas") or 0)
        # a kind's details beside its numbers (the first replica's: ``simulations.runs.results``)
        self.details = summary.get("details") or {}

    def mean(self, name: str, stat: str = "mean") -> float | None:
        entry = self.metrics.get(name)
        value = entry.get(stat) if isinstance(entry, Mapping) else entry
        if value is None:
            return None
        value = float(value)
        return value if math.isfinite(value) else None

    def cause_means(self) -> list[tuple[str, float]]:
        """(cause, mean count per replica), most frequent first."""
        out = []
        for name, entry in self.by_cause.items():
            value = entry.get("mean") if isinstance(entry, Mapping) else entry
            if value:
                out.append((name, float(value)))
        return sorted(out, key=lambda kv: -kv[1])


# ---------------------------------------------------------------- number words for the sentences


def num(value: float, digits: int = 3) -> str:
    """A figure to ``digits`` significant figures with thousands separators and no trailing zeros; a whole
    number without decimals ("6,272", not "6,272.0"); rounding noise below 1e-9 reads as 0."""
    if value is None or not math.isfinite(value):
        return "–"
    if abs(value) < 1e-9:
        return "0"
    if float(value).is_integer():
        return f"{int(value):,}"
    rounded = float(f"{value:.{digits}g}")
    if rounded.is_integer():
        return f"{int(rounded):,}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    return f"{rounded:,.{decimals}f}".rstrip("0").rstrip(".")


def pct(fraction: float, digits: int = 3) -> str:
    """0.8123 -> "81.2 %"."""
    return f"{num(fraction * 100.0, digits)} %"


def duration_h(hours: float) -> str:
    """Hours as the unit that reads best: "45 s", "12 min", "3.5 h", "2.1 days"."""
    if hours < 1 / 60:
        return f"{num(hours * 3600.0)} s"
    if hours < 1:
        return f"{num(hours * 60.0)} min"
    if hours < 48:
        return f"{num(hours)} h"
    return f"{num(hours / 24.0)} days"


def times(n: float) -> str:
    """1 -> "once", 3 -> "3 times"."""
    return "once" if n == 1 else f"{num(n)} times"


def job_sentence(job: Mapping[str, Any] | None) -> str | None:
    """The figures a kind's job ran with and where each came from (a run's ``details["job"]``: typed, from
    the hardware or the catalog's), in a sentence; None without them."""
    if not job:
        return None
    parts = (
        [f"{pct(job['mfu'])} MFU ({job.get('mfu_source', 'typed')})"] if job.get("mfu") is not None else []
    )
    for key, what in (("checkpoint_minutes", "checkpoint write"), ("restart_minutes", "restart")):
        if job.get(key) is not None:
            parts.append(f"{num(job[key])} min {what} ({job.get(key + '_source', 'typed')})")
    wl = job.get("workload")
    on = f", as {wl['model']} on {num(wl['gpus'])} GPUs" if wl else ""
    return "The job ran with " + ", ".join(parts) + on + "." if parts else None
