"""What a person reads for a run's numbers: one label, unit and description per metric and series of each
kind, whether more of it is better, names for the causes of interruptions, labels for composite series
keys ("gpu_temp_c.liquid/h100-sxm/e0"), and the sentences that say what a run showed.

Each scenario model may define ``METRICS`` (name -> ``Metric``, its summary metrics and its series) and
``explain(summary, params) -> list[str]``; a kind without them still gets labels made from the names (units
from their suffixes, acronyms kept) and no sentences. The dashboard and the API read everything from here
(``/api/scenarios/kinds/`` and the run's ``explanation``), so a label is written once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from campus import catalog_data
from simulations.engine.params import title_of


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
_CAUSES: dict[str, str] = {
    **{c: row[0] for c, row in catalog_data.LLAMA3_INTERRUPTIONS.items()},
    "gpu": "Faulty GPU",
    "node": "Node (any cause)",
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
    return _CAUSES.get(name) or title_of(name)


def _model(kind: str) -> Any:
    from simulations.engine.registry import model

    return model(kind)


def metrics(kind: str) -> dict[str, Metric]:
    """The kind's catalogue of metrics and series (empty for a kind that has none)."""
    return dict(getattr(_model(kind), "METRICS", {}) or {})


def metric_bounds(kind: str) -> dict[str, tuple[float | None, float | None]]:
    """The physical range of each of the kind's metrics that has one (``Metric.bounds``)."""
    return {name: m.bounds for name, m in metrics(kind).items() if m.bounds is not None}


def metric(kind: str, name: str) -> Metric:
    """One metric or series; a name the kind does not list gets a label made from the name."""
    known = metrics(kind).get(name)
    if known is not None:
        return known
    return Metric(label=title_of(name))


def _gpu_name(slug: str) -> str | None:
    try:
        name = str(catalog_data.gpu(slug)["name"])
    except KeyError:
        return None
    for vendor in ("NVIDIA ", "AMD "):
        name = name.removeprefix(vendor)
    return name


def _part(token: str) -> str:
    if token in ("liquid", "air"):
        return f"{token}-cooled"
    if token == "unaffected":
        return "not hit by an event"
    events = token.split("+")
    if all(e[:1] == "e" and e[1:].isdigit() for e in events):
        numbers = ", ".join(str(int(e[1:]) + 1) for e in events)
        return f"event{'s' if len(events) > 1 else ''} {numbers}"
    return _gpu_name(token) or token


def series_label(kind: str, key: str) -> str:
    """A series key as a person reads it: "gpu_temp_c.liquid/h100-sxm/e0" -> "GPU temperature (°C) —
    liquid-cooled, H100 SXM5 80GB, event 1"; "rack.12.gpu_temp_c" -> "GPU temperature (°C) — rack 12"."""
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "rack" and parts[1].isdigit():
        return f"{_with_unit(metric(kind, parts[2]))} — rack {parts[1]}"
    base, _, rest = key.partition(".")
    head = _with_unit(metric(kind, base))
    if not rest:
        return head
    return f"{head} — {', '.join(_part(t) for t in rest.split('/'))}"


def _with_unit(m: Metric) -> str:
    if not m.unit or m.unit.startswith("fraction") or f"({m.unit})" in m.label:
        return m.label
    return f"{m.label} ({m.unit})"


def describe(kind: str) -> dict[str, Any]:
    """The catalogue as the API gives it: metrics and series with label, unit, description and direction,
    and the cause labels."""
    return {
        "metrics": {name: m.as_dict() for name, m in metrics(kind).items()},
        "causes": dict(_CAUSES),
    }


def explain(kind: str, summary: Mapping[str, Any] | None, params: Mapping[str, Any] | None) -> list[str]:
    """Sentences that say what a finished run showed, from its summary (the means over the replicas) and
    its parameters; [] when the kind has no ``explain`` or the run has no summary."""
    if not summary or not summary.get("metrics"):
        return []
    fn = getattr(_model(kind), "explain", None)
    if fn is None:
        return []
    from simulations.engine.params import validate_params

    try:
        p = validate_params(kind, dict(params or {}), stored=True)
    except ValueError:
        return []
    return [s for s in fn(Summary(summary), p) if s]


class Summary:
    """A run summary read by metric name: ``mean("ettr")`` (None when missing), ``cause_means()``."""

    def __init__(self, summary: Mapping[str, Any]) -> None:
        self.metrics = summary.get("metrics") or {}
        self.by_cause = summary.get("by_cause") or {}
        self.replicas = int(summary.get("replicas") or 0)

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
