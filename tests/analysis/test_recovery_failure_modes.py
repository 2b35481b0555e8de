"""The explicit choice whether failures strike during recovery, in the closed forms: Daly's (2006) exact
ETTR, where a failure during the restart starts it again, and the form where the failure clock stops
while the job restarts."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.calculators import checkpoint_interval
from campus.analysis.reliability import daly_interval_hours, ettr_checkpoint
from simulations.engine.job import expected_ettr


def test_without_failures_during_recovery_each_failure_adds_one_restart():
    # M = 2 h, tau = 30 min, delta = 5 min, R = 30 min, written out: tau / ((e^{(tau+delta)/M} - 1)(M + R))
    t, d, r, m = 0.5, 1 / 12, 0.5, 2.0
    want = t / ((math.exp((t + d) / m) - 1.0) * (m + r))
    assert ettr_checkpoint(t, d, r, m, failures_during_recovery=False) == pytest.approx(want, rel=1e-12)
    daly = t / (m * math.exp(r / m) * (math.exp((t + d) / m) - 1.0))
    assert ettr_checkpoint(t, d, r, m) == pytest.approx(daly, rel=1e-12)
    # the engine's renewal form, reached from the job's rate
    assert expected_ettr(1 / m, t, d, r, during_recovery=False) == pytest.approx(want, rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    t=st.floats(1e-3, 100.0),
    d=st.floats(0.0, 10.0),
    r=st.floats(0.0, 50.0),
    m=st.floats(1e-3, 1e4),
)
def test_a_restart_that_cannot_fail_never_lowers_the_ettr(t, d, r, m):
    strike = ettr_checkpoint(t, d, r, m)
    calm = ettr_checkpoint(t, d, r, m, failures_during_recovery=False)
    assert 0.0 <= strike <= calm + 1e-12 <= 1.0 + 1e-12
    assert math.isfinite(calm)


def test_the_checkpoint_interval_calculator_takes_the_choice():
    m, d, r = 3.0, 5.0, 20.0
    strike = checkpoint_interval(mtbf_hours=m, checkpoint_minutes=d, restart_minutes=r)
    calm = checkpoint_interval(
        mtbf_hours=m, checkpoint_minutes=d, restart_minutes=r, failures_during_recovery=False
    )
    tau = daly_interval_hours(d / 60, m)
    assert calm["expected_ettr"] == pytest.approx(tau / ((math.exp((tau + d / 60) / m) - 1) * (m + r / 60)))
    assert calm["expected_ettr"] > strike["expected_ettr"]
    assert calm["daly_minutes"] == strike["daly_minutes"]
    with pytest.raises(ValueError, match="^failures_during_recovery:"):
        checkpoint_interval(mtbf_hours=m, checkpoint_minutes=d, failures_during_recovery="yes")
