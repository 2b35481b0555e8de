"""Every published case of the fidelity scorecard, one test each; and the scorecard's own rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from campus import fidelity
from campus.fidelity import __main__ as cli
from campus.fidelity.scorecard import EXPECTED_FAIL, FAIL, PASS, UNEXPECTED_PASS, Case, evaluate

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("case", fidelity.CASES, ids=[c.id for c in fidelity.CASES])
def test_published_case(case):
    outcome = evaluate(case)
    assert not outcome.error, outcome.error
    if case.expected_fail:
        assert outcome.verdict == EXPECTED_FAIL, (
            f"{case.id} now passes ({outcome.value}): remove its expected_fail mark and the known gap "
            "in docs/fidelity.md"
        )
    else:
        assert outcome.verdict == PASS, f"{case.id}: twin {outcome.value} outside [{case.low}, {case.high}]"


def test_there_are_at_least_20_cases_across_every_area_and_each_is_documented():
    areas = {c.area for c in fidelity.CASES}
    assert {"power", "energy", "fabric", "compute", "reliability", "checkpointing", "thermal"} <= areas
    assert len(fidelity.CASES) >= 20
    ids = [c.id for c in fidelity.CASES]
    assert len(ids) == len(set(ids))
    doc = (REPO / "docs" / "fidelity.md").read_text(encoding="utf-8")
    assert [i for i in ids if f"`{i}`" not in doc] == []
    for c in fidelity.CASES:
        assert c.source and c.low <= c.high
        if c.expected_fail:
            assert "known gap" in doc.split(f"`{c.id}`", 1)[1][:1500].lower()


def _case(value, low=1.0, high=2.0, expected_fail=""):
    return Case("x", "power", "q", "W", "src", "1-2", low, high, "range", lambda: value, expected_fail)


@pytest.mark.parametrize(
    ("value", "expected_fail", "verdict"),
    [
        (1.5, "", PASS),
        (3.0, "", FAIL),
        (None, "", FAIL),
        (float("nan"), "", FAIL),
        (3.0, "known gap", EXPECTED_FAIL),
        (1.5, "known gap", UNEXPECTED_PASS),
    ],
)
def test_verdicts(value, expected_fail, verdict):
    assert evaluate(_case(value, expected_fail=expected_fail)).verdict == verdict


def test_a_case_that_raises_is_a_failure_with_the_error_shown():
    def boom():
        raise ValueError("gpus: must be > 0")

    out = evaluate(Case("x", "power", "q", "W", "src", "1", 1, 1, "exact", boom))
    assert out.verdict == FAIL and "gpus: must be > 0" in out.error


def test_the_command_exits_non_zero_when_a_case_fails(monkeypatch, capsys):
    monkeypatch.setattr(cli, "run", lambda: [evaluate(_case(1.5)), evaluate(_case(9.0))])
    assert cli.main() == 1
    out = capsys.readouterr().out
    assert "2 cases: 1 pass, 0 expected-fail (known gaps), 1 fail" in out
    monkeypatch.setattr(cli, "run", lambda: [evaluate(_case(1.5)), evaluate(_case(9.0, expected_fail="gap"))])
    assert cli.main() == 0
    assert "expected-fail" in capsys.readouterr().out


def test_the_scorecard_needs_no_database_or_django():
    code = (
        "import sys, campus.fidelity\n"
        "bad = [m for m in sys.modules if m.startswith(('django', 'campus.models'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
