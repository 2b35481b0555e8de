"""What a person reads for a run's numbers: one label, unit and description per metric and series of each
kind, whether more of it is better, names for the causes of interruptions, labels for composite series
keys ("gpu_temp_c.liquid/h100-sxm/e0"), and the sentences that say what a run showed.

Each kind's package gives ``METRICS`` (name -> ``Metric``, its summary metrics and its series) and
``explain(summary, params) -> list[str]`` from its ``words.py``, read here through the registry; a kind
without them still gets labels made from the names (units from their suffixes, acronyms kept) and no
sentences. The dashboard and the API read everything from here (``/api/scenarios/kinds/`` and the run's
``explanation``), so a label is written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campus import catalog_data
from simulations.engine.params import title_of, validate_params
from simulations.engine.registry import model
from simulations.engine.words import CAUSES, Metric, Summary, cause_label, job_sentence, num, pct

# The run pipeline and the API read the number words and labels from here beside the functions below.
__all__ = [
    "Metric",
    "Summary",
    "cause_label",
    "describe",
    "explain",
    "metric",
    "metric_bounds",
    "metrics",
    "num",
    "pct",
    "series_label",
]


def metrics(kind: str) -> dict[str, Metric]:
    """The kind's catalogue of metrics and series (empty for a kind that has none)."""
    return dict(getattr(model(kind), "METRICS", {}) or {})


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


# The figure of an interval a downsampled series holds ("building.1.max_mw"), in words.
_INTERVAL_PART = {
    "mw": "mean",
    "kw": "mean",
    "min_mw": "lowest",
    "min_kw": "lowest",
    "max_mw": "highest",
    "max_kw": "highest",
}


def series_label(kind: str, key: str) -> str:
    """A series key as a person reads it: "gpu_temp_c.liquid/h100-sxm/e0" -> "GPU temperature (°C) —
    liquid-cooled, H100 SXM5 80GB, event 1"; "rack.12.gpu_temp_c" -> "GPU temperature (°C) — rack 12"."""
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "rack" and parts[1].isdigit():
        return f"{_with_unit(metric(kind, parts[2]))} — rack {parts[1]}"
    if len(parts) == 3 and parts[1].isdigit() and parts[2] in _INTERVAL_PART:
        # "building.1.max_mw": one element's figure over each chart interval, read "building 1, highest"
        return f"{_with_unit(metric(kind, parts[0]))} — {parts[0]} {parts[1]}, {_INTERVAL_PART[parts[2]]}"
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
        "causes": dict(CAUSES),
    }


def explain(kind: str, summary: Mapping[str, Any] | None, params: Mapping[str, Any] | None) -> list[str]:
    """Sentences that say what a finished run showed, from its summary (the means over the replicas) and
    its parameters; [] when the kind has no ``explain`` or the run has no summary."""
    if not summary or not summary.get("metrics"):
        return []
    fn = getattr(model(kind), "explain", None)
    if fn is None:
        return []
    try:
        p = validate_params(kind, dict(params or {}), stored=True)
    except ValueError:
        return []
    details = summary.get("details")
    job = job_sentence(details.get("job")) if isinstance(details, Mapping) else None
    return [s for s in fn(Summary(summary), p) if s] + ([job] if job else [])
