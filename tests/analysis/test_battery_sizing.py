"""Battery sizing: the closed forms against a brute-force search and the hand figures (docs/grid.md).

Hand figures: a 25 %, 3 h curtailment of a 91 MW campus needs 0.25 x 91 = 22.75 MW for 3 h = 68.25 MWh at
the point of connection; at 85 % round trip and 80 % depth of discharge the nameplate is
68.25 / (0.8 x sqrt(0.85)) = 92.53 MWh. A 10 s generator start with a 60 s linear ramp on 91 MW needs
91 MW x (10 + 60 / 2) s = 1.011 MWh. A 40 MW swing held to 10 MW at a 2 s period: (40 - 10) / 2 = 15 MW
for 1 s = 4.17 kWh.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis import battery_sizing as bs


def test_the_hand_figure_for_a_quarter_of_91_mw_for_3_h():
    need = bs.curtailment(0.25 * 91.0, 3.0)
    assert need.mw == pytest.approx(22.75)
    assert need.mwh_at_connection == pytest.approx(68.25)
    assert bs.nameplate_mwh(need.mwh_at_connection, 0.85, 0.8) == pytest.approx(92.53, abs=0.01)


def test_a_generator_start_and_a_training_swing_by_hand():
    start = bs.generator_start(91.0, 10.0, 60.0)
    assert start.mw == 91.0 and start.mwh_at_connection == pytest.approx(91.0 * 40 / 3600)
    swing = bs.training_swing(40.0, 10.0, 2.0)
    assert swing.mw == pytest.approx(15.0) and swing.mwh_at_connection == pytest.approx(15.0 / 3600)
    assert bs.training_swing(8.0, 10.0, 2.0).mw == 0.0  # inside the limit already


@settings(max_examples=30, deadline=None)
@given(
    mode=st.sampled_from(["curtailment", "generator_start", "training_swing"]),
    a=st.floats(1.0, 200.0),
    b=st.floats(0.1, 10.0),
    c=st.floats(0.0, 120.0),
)
def test_the_closed_forms_are_the_smallest_a_brute_force_search_finds(mode, a, b, c):
    if mode == "curtailment":
        need = bs.curtailment(a * 0.3, b)
    elif mode == "generator_start":
        need = bs.generator_start(a, b * 6, c)
    else:
        need = bs.training_swing(a, a * min(c, 100.0) / 100.0, b)
    mw, mwh = bs.smallest_by_search(need, resolution=1e-4)
    assert mw == pytest.approx(need.mw, rel=2e-3, abs=1e-9)
    # the profile's steps resolve the ramp: the search's energy is the step sum of the same profile
    assert mwh == pytest.approx(need.mwh_at_connection, rel=3e-3, abs=1e-9)
    assert bs.uncovered_mwh(need, need.mw, need.mwh_at_connection * (1 + 1e-9)) <= 1e-6 * max(
        need.mwh_at_connection, 1.0
    )


@settings(max_examples=30, deadline=None)
@given(
    shed=st.floats(0.0, 100.0), hours=st.floats(0.1, 10.0), s=st.floats(0.0, 1.5), more=st.floats(0.0, 1.0)
)
def test_more_battery_never_leaves_more_uncovered(shed, hours, s, more):
    need = bs.curtailment(shed, hours)
    small = bs.uncovered_mwh(need, need.mw * s, need.mwh_at_connection * s)
    big = bs.uncovered_mwh(need, need.mw * (s + more), need.mwh_at_connection * (s + more))
    assert big <= small + 1e-9


def test_the_curve_falls_to_nothing_at_the_smallest_battery():
    need = bs.curtailment(22.75, 3.0)
    points = bs.curve(need, lambda mw, mwh: bs.uncovered_mwh(need, mw, mwh) / (91.0 * 3.0))
    at = {p["scale"]: p for p in points}
    assert at[0.0]["uncovered_mwh"] == pytest.approx(68.25)
    assert at[0.5]["uncovered_mwh"] == pytest.approx(68.25 / 2)
    assert at[1.0]["uncovered_mwh"] == pytest.approx(0.0, abs=1e-6)
    assert at[0.0]["throughput_lost_fraction"] == pytest.approx(0.25)
