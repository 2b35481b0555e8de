"""The capacity report (``campus.analysis.capacity_report``) against sums worked by hand and a brute-force
property: per hall, its rows' figures (and its racks outside any row) add up to the hall's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.capacity_report import RackRow, capacity_report


def rack(hall=1, row=10, in_service=True, units=48, design=40.0, it=30.0, used=32, reserved=0, ends=8):
    return RackRow(hall, row, in_service, units, design, it if in_service else 0.0, used, reserved, ends)


def test_a_hall_of_two_racks_and_a_planned_one_by_hand():
    racks = [rack(), rack(it=20.0, used=16), rack(in_service=False, design=50.0, used=0, reserved=32, ends=0)]
    [hall] = capacity_report([(1, "H1")], [(10, 1, "R01")], racks, {1: 200.0}, {1: (128, 16)})
    # space: 3 x 48 U; 32 + 16 used; 32 reserved by the planned servers; 144 - 48 - 32 = 64 left
    assert hall["space_u"] == {"capacity": 144, "used": 48, "reserved": 32, "available": 64, "over": 0.0}
    # power: budgets 40 + 40 + 50 = 130 kW; 50 kW drawn; the planned rack reserves its 50; the racks in
    # service have (40 - 30) + (40 - 20) = 30 kW left
    assert hall["power_kw"] == {
        "capacity": 130.0,
        "used": 50.0,
        "reserved": 50.0,
        "available": 30.0,
        "over": 0.0,
    }
    # cooling: 200 kW of units; 50 kW of heat now, 50 kW reserved: 100 left
    assert hall["cooling_kw"]["available"] == pytest.approx(100.0)
    # ports: 128 switch ports, 16 cable ends on them
    assert hall["ports"]["available"] == 112
    [row] = hall["rows"]
    assert row["cooling_kw"]["capacity"] is None and row["ports"]["used"] == 16


def test_a_hall_over_its_cooling_says_how_far_not_a_negative_amount():
    [hall] = capacity_report([(1, "H1")], [], [rack(it=90.0, design=100.0)], {1: 60.0}, {})
    assert hall["cooling_kw"]["available"] == 0.0
    assert hall["cooling_kw"]["over"] == pytest.approx(30.0)


racks_strategy = st.lists(
    st.builds(
        rack,
        hall=st.sampled_from([1, 2]),
        row=st.sampled_from([10, 11, 20, None]),
        in_service=st.booleans(),
        units=st.integers(1, 52),
        design=st.floats(0, 200),
        it=st.floats(0, 200),
        used=st.integers(0, 52),
        reserved=st.integers(0, 52),
        ends=st.integers(0, 64),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(racks_strategy)
def test_rows_and_racks_outside_rows_add_up_to_their_hall(racks):
    rows = [(10, 1, "R10"), (11, 1, "R11"), (20, 2, "R20")]
    row_hall = {rid: hid for rid, hid, _ in rows}
    # a rack's row lies in its hall
    racks = [r for r in racks if r.row_id is None or row_hall[r.row_id] == r.hall_id]
    report = capacity_report([(1, "H1"), (2, "H2")], rows, racks, {}, {})
    for hall in report:
        outside = [r for r in racks if r.hall_id == hall["id"] and r.row_id is None]
        assert hall["racks"] == sum(row["racks"] for row in hall["rows"]) + len(outside)
        for measure, of_rack in (("space_u", lambda r: r.rack_units), ("power_kw", lambda r: r.design_kw)):
            rows_sum = sum(row[measure]["capacity"] for row in hall["rows"])
            assert hall[measure]["capacity"] == pytest.approx(rows_sum + sum(of_rack(r) for r in outside))
        assert hall["power_kw"]["used"] == pytest.approx(
            sum(row["power_kw"]["used"] for row in hall["rows"])
            + sum(r.it_kw for r in outside if r.in_service)
        )
