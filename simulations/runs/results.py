"""A run's results: storing replica series, finishing a run (summary, series bands, thresholds), and reading
them back for the API (one metric's series, runs side by side)."""

from __future__ import annotations

import io
import math
from dataclasses import asdict
from typing import Any

import numpy as np
from django.utils import timezone

from campus.analysis.summary import campus_summary
from simulations.choices import RunStatus
from simulations.engine import catalogue
from simulations.engine.aggregate import THRESHOLD_STATS, aggregate, bands, downsample, evaluate_thresholds
from simulations.engine.params import param_label, title_of
from simulations.engine.results import ReplicaResult as EngineResult
from simulations.models import DISPLAY_POINTS, ReplicaResult, Run, RunChunk, RunSeries, Schedule, pack_floats

from . import campus_state, confidence, notify, plans


def pack_series(series: dict[str, Any]) -> bytes:
    buf = io.BytesIO()
    np.savez_compressed(buf, **{name: np.asarray(v, dtype="<f4") for name, v in series.items()})
    return buf.getvalue()


def unpack_series(blob: bytes | memoryview | None) -> dict[str, np.ndarray]:
    if not blob:
        return {}
    with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def plain(data: dict) -> dict:
    """JSON-ready copy: numpy scalars become floats, NaN and infinities become None."""
    out = {}
    for key, value in (data or {}).items():
        if isinstance(value, dict):
            out[str(key)] = plain(value)
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            out[str(key)] = value
            continue
        out[str(key)] = number if math.isfinite(number) else None
    return out


def json_ready(value: Any) -> Any:
    """A nested copy strict JSON can hold: numpy numbers become floats, NaN and infinities None."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [json_ready(v) for v in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    return value


def engine_results(rows: list[ReplicaResult]) -> list[EngineResult]:
    """Stored replicas as the engine's results, without their series: ``aggregate`` reads metrics, causes
    and event counts only (a metric stored as None, a NaN, counts as missing)."""
    return [
        EngineResult(
            metrics={k: (float("nan") if v is None else v) for k, v in r.metrics.items()},
            by_cause=dict(r.by_cause),
            events=r.events,
        )
        for r in rows
    ]


def _display(t: np.ndarray, cols: dict[str, np.ndarray]) -> dict[str, list[float | None]]:
    """The chart copy: at most DISPLAY_POINTS points, spikes of the mean kept, gaps as None (strict JSON)."""
    thin = downsample({"t_hours": t, **cols}, DISPLAY_POINTS, extremes_of="values")
    out = {"t_hours": [round(float(x), 6) for x in thin.pop("t_hours")]}
    for name, col in thin.items():
        out[name] = [None if not np.isfinite(x) else float(x) for x in col]
    return out


def _series_bands(rows: list[ReplicaResult]) -> dict[str, dict[str, np.ndarray]]:
    # npz members load lazily: bands() reads one metric of one replica at a time.
    files = [np.load(io.BytesIO(bytes(r.series)), allow_pickle=False) for r in rows if r.series]
    return bands(files)


_TOTALS = ("by_cause", "replicas", "events")


def finalize(run: Run) -> None:
    """Aggregate the stored replicas, write summary and series, evaluate thresholds, mark succeeded.

    Called inside the transaction that holds the Run row lock and stored the last replica.
    """
    if run.sweep:
        _finalize_sweep(run)
        return
    rows = list(ReplicaResult.objects.filter(run=run).order_by("index"))
    aggregated = aggregate(engine_results(rows), catalogue.metric_bounds(run.kind))
    summary = {
        "metrics": plain({k: v for k, v in aggregated.items() if k not in _TOTALS}),
        "by_cause": plain(aggregated.get("by_cause") or {}),
        "replicas": len(rows),
        "events": int(aggregated.get("events") or 0),
        # Engine time summed over the replicas (not wall time: chunks run in parallel).
        "compute_s": float(sum(r.duration_s for r in rows)),
    }
    target = confidence.summary(run)
    if target is not None:
        # replicas used, the half-width reached, and whether the target was met before the cap
        summary["confidence"] = target
    if rows and rows[0].details:
        # A kind's details (violations, spectrum, sizing): the first replica's (deterministic kinds run one).
        summary["details"] = rows[0].details
    RunSeries.objects.filter(run=run).delete()
    series_rows = []
    for name, cols in _series_bands(rows).items():
        t = cols["t_hours"]
        series_rows.append(
            RunSeries(
                run=run,
                metric=name,
                points=len(t),
                t_hours=pack_floats(t),
                values=pack_floats(cols["values"]),
                p5=pack_floats(cols["p5"]),
                p95=pack_floats(cols["p95"]),
                display=_display(t, {k: cols[k] for k in ("values", "p5", "p95")}),
            )
        )
    RunSeries.objects.bulk_create(series_rows)
    reasons: list[dict[str, Any]] = []
    if run.schedule_id:
        schedule = Schedule.objects.filter(pk=run.schedule_id).first()
        if schedule is not None and schedule.thresholds:
            reasons = evaluate_thresholds(schedule.thresholds, summary, lambda: campus_values(run))
    _succeed(run, summary, reasons)


def sweep_summary(sweep: dict, rows: list[ReplicaResult], kind: str | None = None) -> dict[str, Any]:
    """A sweep's summary: per point its swept values and the same statistics a plain run's summary has
    (``aggregate`` over the point's replicas), in the order of ``sweep["points"]``."""
    per = int(sweep["replicas_per_point"])
    by_point: list[list[ReplicaResult]] = [[] for _ in sweep["points"]]
    for r in rows:
        by_point[r.index // per].append(r)
    points = []
    for values, replicas in zip(sweep["points"], by_point, strict=True):
        aggregated = aggregate(engine_results(replicas), catalogue.metric_bounds(kind) if kind else None)
        points.append(
            {
                "params": values,
                "summary": plain({k: v for k, v in aggregated.items() if k not in _TOTALS}),
                "by_cause": plain(aggregated.get("by_cause") or {}),
                "replicas": len(replicas),
                "events": int(aggregated.get("events") or 0),
            }
        )
    return {
        "parameters": sweep["parameters"],
        "points": points,
        # A sweep has no statistics over all its replicas (they ran different parameters): see "points".
        "metrics": {},
        "by_cause": {},
        "replicas": len(rows),
        "events": int(sum(r.events for r in rows)),
        "compute_s": float(sum(r.duration_s for r in rows)),
    }


def _finalize_sweep(run: Run) -> None:
    rows = list(ReplicaResult.objects.filter(run=run).order_by("index").defer("series", "details"))
    RunSeries.objects.filter(run=run).delete()
    _succeed(run, sweep_summary(run.sweep, rows, run.kind), [])


def _succeed(run: Run, summary: dict[str, Any], reasons: list[dict[str, Any]]) -> None:
    run.summary = summary
    run.flagged = bool(reasons)
    run.flag_reasons = reasons
    run.status = RunStatus.SUCCEEDED
    run.progress = 1.0
    run.finished = timezone.now()
    run.snapshot = None
    run.save(
        update_fields=[
            "summary",
            "flagged",
            "flag_reasons",
            "status",
            "progress",
            "finished",
            "snapshot",
            "updated",
        ]
    )
    RunChunk.objects.filter(run=run).update(state=RunChunk.State.DONE)
    plans.forget(run.pk)
    notify.send_on_commit(run)


def campus_values(run: Run) -> dict[str, float]:
    """Numeric figures of the campus summary (power headroom and the like), flattened to dotted names."""
    data = campus_summary(plans.campus_snapshot(run, run.snapshot))
    if hasattr(data, "__dataclass_fields__"):
        data = asdict(data)
    flat: dict[str, float] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            flat[prefix] = float(value)

    walk("", data)
    return flat


def series_metrics(run: Run) -> list[str]:
    return list(run.series.order_by("metric").values_list("metric", flat=True))


def series_labels(run: Run, names: list[str]) -> dict[str, str]:
    """Each series name as a person reads it ("GPU temperature (°C) — liquid-cooled, H100 SXM5 80GB, event 1")."""
    return {name: catalogue.series_label(run.kind, name) for name in names}


def explanation(run: Run) -> list[str]:
    """What a finished run showed, in sentences, from its summary and parameters ([] before it finishes)."""
    if run.status != RunStatus.SUCCEEDED:
        return []
    if run.sweep:
        return sweep_explanation(run.kind, run.sweep)
    return catalogue.explain(run.kind, run.summary, run.params)


def sweep_explanation(kind: str, sweep: dict) -> list[str]:
    """What a sweep covered, in a sentence per parameter and one for the grid."""
    out = []
    for p in sweep["parameters"]:
        values = p["values"]
        shown = ", ".join(str(v) for v in values) if len(values) <= 6 else f"{values[0]} to {values[-1]}"
        label = title_of(p["name"].rsplit(".", 1)[-1].split("[", 1)[0])
        out.append(
            f"{label} ({p['name']}) took {len(values)} value{'s' if len(values) != 1 else ''}: {shown}."
        )
    points = len(sweep["points"])
    per = sweep["replicas_per_point"]
    out.append(
        f"{points} point{'s' if points != 1 else ''} with {per} replica{'s' if per != 1 else ''} each, every "
        "point on the same replica seeds; the chart shows each metric's mean with its 95 % confidence interval."
    )
    return out


def timeseries(run: Run, metric: str, full: bool = False) -> dict[str, Any] | None:
    """One metric's series: the display copy, or every point when ``full``. None if the run has no such metric."""
    row = run.series.filter(metric=metric).first()
    if row is None:
        return None
    data = row.full() if full else dict(row.display)
    return {
        "run": run.pk,
        "metric": metric,
        "label": catalogue.series_label(run.kind, metric),
        "full": full,
        "points_total": row.points,
        "points": len(data.get("t_hours", [])),
        **data,
    }


def compare_runs(runs: list[Run]) -> dict[str, Any]:
    """Summaries side by side; differences of each statistic against the first run (the baseline), and
    whether each run computed on the baseline's campus state (``campus_state``: a difference between runs on
    different states may come from the campus, not from the scenario)."""
    base = runs[0]
    run_kind = base.kind
    same_state = {r.pk: campus_state.same_as(base, r) for r in runs}
    names = sorted({m for r in runs for m in ((r.summary or {}).get("metrics") or {})})
    metrics: dict[str, Any] = {}
    for name in names:
        entries = []
        base_entry = ((base.summary or {}).get("metrics") or {}).get(name) or {}
        for r in runs:
            entry = ((r.summary or {}).get("metrics") or {}).get(name)
            diff = None
            if isinstance(entry, dict) and r.pk != base.pk:
                mean, base_mean = entry.get("mean"), base_entry.get("mean")
                if mean is not None and base_mean is not None:
                    diff = {
                        "mean_delta": mean - base_mean,
                        **_relative_change(run_kind, name, mean, base_mean),
                        # Confidence intervals that do not overlap: a difference the replicas support.
                        "significant": _separated(entry, base_entry),
                        # False: the two runs read different campus states (see "campus_state").
                        "same_campus_state": same_state[r.pk],
                    }
            entries.append({"run": r.pk, "stats": entry, "vs_baseline": diff})
        metrics[name] = entries
    return {
        "baseline": base.pk,
        "runs": [
            {
                "id": r.pk,
                "scenario": r.scenario_id,
                "scenario_name": r.scenario_name,
                "kind": r.kind,
                "campus": r.campus_id,
                "status": r.status,
                "replicas": r.replicas,
                "seed": r.seed,
                "params": r.params,
                "as_of": r.as_of.isoformat() if r.as_of else None,
                "campus_state": r.campus_state,
                "same_campus_state": same_state[r.pk],
            }
            for r in runs
        ],
        "campus_state": campus_state.comparison(runs),
        "inputs": input_differences(runs),
        "metrics": metrics,
        "stats": list(THRESHOLD_STATS),
    }


def _relative_change(kind: str, name: str, mean: float, base_mean: float) -> dict[str, Any]:
    """The change of a mean against the baseline's: in % of the baseline, except for a share (a fraction or
    a percentage), whose change is in percentage points (``mean_delta_points``; a share going from 10 % to
    15 % is +5 points, not +50 %), and for a mean that crossed or left zero, whose change in % of the
    baseline means nothing (None: read ``mean_delta`` in the metric's unit)."""
    unit = catalogue.metric(kind, name).unit.strip()
    share = unit.startswith("fraction") or unit == "%"
    crossed = base_mean == 0 or (mean < 0 < base_mean) or (base_mean < 0 < mean)
    return {
        "mean_delta_pct": None if share or crossed else (mean - base_mean) / abs(base_mean) * 100.0,
        "mean_delta_points": ((mean - base_mean) * (100.0 if unit.startswith("fraction") else 1.0))
        if share
        else None,
    }


def _flat(value: Any, path: str, out: dict[str, Any]) -> dict[str, Any]:
    if isinstance(value, dict) and value:
        for key, v in value.items():
            _flat(v, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        for i, v in enumerate(value):
            _flat(v, f"{path}[{i}]", out)
    else:
        out[path] = value
    return out


def input_differences(runs: list[Run]) -> list[dict[str, Any]]:
    """The inputs in which the runs differ, each as {"path", "label", "values"} (one value per run, None where
    a run lacks it; the label from the titles of the kind's parameters, None where one has none): the campus date, the replicas, and each parameter by its path ("params.events[0].target_id"),
    in the order the first run lists them. The seed only where some run has random replicas (more than
    one): a deterministic run gives the same figures whatever its seed."""
    flat = []
    for r in runs:
        row: dict[str, Any] = {"as_of": r.as_of.isoformat() if r.as_of else None, "replicas": r.replicas}
        if any(x.replicas > 1 for x in runs):
            row["seed"] = r.seed
        flat.append(_flat(r.params or {}, "params", row))
    paths = list(dict.fromkeys(p for row in flat for p in row))
    out = []
    for path in paths:
        values = [row.get(path) for row in flat]
        if any(v != values[0] for v in values[1:]):
            label = _INPUT_LABELS.get(path) or (
                param_label(runs[0].kind, path.removeprefix("params."))
                if path.startswith("params.")
                else None
            )
            out.append({"path": path, "label": label, "values": values})
    return out


_INPUT_LABELS = {"as_of": "Campus as of", "replicas": "Replicas", "seed": "Seed"}


def _separated(a: dict, b: dict) -> bool | None:
    keys = ("ci95_low", "ci95_high")
    if any(a.get(k) is None or b.get(k) is None for k in keys):
        return None
    return a["ci95_low"] > b["ci95_high"] or b["ci95_low"] > a["ci95_high"]
