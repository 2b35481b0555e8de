"""The scorecard machinery: a published case, its verdict, the printed table.

A case passes when the twin's value lies in [low, high]. A case marked ``expected_fail`` carries the
reason the twin is known to miss it (docs/fidelity.md); it is printed and counted as such, and it turns
into a failure the day the twin starts to pass it, so the mark cannot outlive the gap.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

PASS, FAIL, EXPECTED_FAIL, UNEXPECTED_PASS = "pass", "FAIL", "expected-fail", "UNEXPECTED-PASS"


@dataclass(frozen=True)
class Case:
    id: str
    area: str  # power, energy, fabric, compute, reliability, checkpointing, thermal
    quantity: str
    unit: str
    source: str  # the original publication, with section / table
    expected: str  # the published figure as printed
    low: float
    high: float
    tolerance: str  # as printed, e.g. "±10%"
    twin: Callable[[], float | None]  # the twin's own functions compute this
    expected_fail: str = ""  # why the twin is known to miss it (empty: it must pass)


@dataclass(frozen=True)
class Outcome:
    case: Case
    value: float | None
    verdict: str
    error: str = ""


def within(case: Case, value: float | None) -> bool:
    return value is not None and math.isfinite(value) and case.low <= value <= case.high


def evaluate(case: Case) -> Outcome:
    try:
        value = case.twin()
        error = ""
    except Exception as exc:  # a case that cannot be computed is a failure to report, not a crash
        value, error = None, f"{type(exc).__name__}: {exc}"
    ok = within(case, value)
    verdicts = (UNEXPECTED_PASS, EXPECTED_FAIL) if case.expected_fail else (PASS, FAIL)
    verdict = verdicts[0] if ok else verdicts[1]
    return Outcome(case, value, verdict, error)


def relative(expected: float, fraction: float) -> tuple[float, float, str]:
    """low, high and the printed tolerance for ± ``fraction`` of ``expected``."""
    return expected * (1 - fraction), expected * (1 + fraction), f"±{fraction * 100:g}%"


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value == 0:
        return "0"
    mag = abs(value)
    if mag >= 1e6 or mag < 1e-2:
        return f"{value:.3g}"
    if mag >= 100:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def table(outcomes: Iterable[Outcome]) -> str:
    rows = [("case", "area", "quantity", "source", "expected", "twin", "tolerance", "verdict")]
    for o in outcomes:
        c = o.case
        twin = f"{_fmt(o.value)} {c.unit}".strip() if o.value is not None else "n/a"
        rows.append((c.id, c.area, c.quantity, c.source, c.expected, twin, c.tolerance, o.verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    # quantity and source are long: cap them so the table stays readable (docs/fidelity.md has them whole)
    widths[2] = min(widths[2], 46)
    widths[3] = min(widths[3], 46)
    lines = []
    for n, r in enumerate(rows):
        cells = [r[i][: widths[i]].ljust(widths[i]) for i in range(len(r))]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_line(outcomes: list[Outcome]) -> str:
    counts = {
        v: sum(1 for o in outcomes if o.verdict == v) for v in (PASS, FAIL, EXPECTED_FAIL, UNEXPECTED_PASS)
    }
    return (
        f"{len(outcomes)} cases: {counts[PASS]} pass, {counts[EXPECTED_FAIL]} expected-fail (known gaps), "
        f"{counts[FAIL]} fail, {counts[UNEXPECTED_PASS]} unexpected pass"
    )


def failed(outcomes: Iterable[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.verdict in (FAIL, UNEXPECTED_PASS)]
