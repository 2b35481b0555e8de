"""The pure core of measurements (campus.analysis.measurements), without the database: rollups against a
brute-force grouping, idempotence, line numbers of bad rows, the measured basis of a rack."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis import measurements as m
from campus.analysis.snapshot import CampusSnapshot, RackSnap

T0 = datetime(2026, 11, 1, tzinfo=UTC)

samples_st = st.lists(
    st.tuples(
        st.sampled_from(["R1", "R2"]),
        st.integers(min_value=0, max_value=3600),
        st.floats(min_value=0, max_value=500, allow_nan=False),
    ),
    min_size=1,
    max_size=60,
)


def to_samples(rows):
    return [m.Sample("rack", name, "power_kw", T0 + timedelta(seconds=s), v) for name, s, v in rows]


@settings(max_examples=60, deadline=None)
@given(samples_st)
def test_rollup_equals_a_brute_force_grouping_and_counts_repeated_rows_once(rows):
    got = m.rollup(to_samples(rows))
    assert m.rollup(to_samples(rows + rows)) == got
    last: dict[tuple[str, int], float] = {}
    for name, s, v in rows:
        last[(name, s)] = v  # the later row of one instant wins
    for name in {"R1", "R2"}:
        for b in range(13):
            values = np.array([v for (n, s), v in last.items() if n == name and s // 300 == b])
            key = ("rack", name, "power_kw", T0 + timedelta(seconds=300 * b))
            if values.size == 0:
                assert key not in got
                continue
            bucket = got[key]
            assert bucket.samples == values.size
            assert bucket.mean == pytest.approx(values.mean())
            assert bucket.max == values.max()


def test_a_bad_csv_row_names_its_line_and_field():
    text = "object_kind,object_name,metric,time,value\nrack,R1,power_kw,2026-11-01T00:00:00Z,1\nrack,R1,power_kw,2026-11-01T00:00:00,2\n"
    with pytest.raises(m.RowError) as err:
        m.parse_csv(text)
    assert (err.value.line, err.value.field) == (3, "time")
    with pytest.raises(m.RowError) as err:
        m.parse_csv("object_kind,object_name,metric,when,value\n")
    assert (err.value.line, err.value.field) == (1, "when")
    (w,) = m.parse_csv("object_kind,object_name,metric,time,value\npdu,P,power_w,1700000000,2500\n")
    assert w.value == 2.5 and w.metric == "power_kw"


@given(
    peak=st.floats(min_value=0, max_value=1000, allow_nan=False),
    margin=st.floats(min_value=0, max_value=2, allow_nan=False),
)
def test_the_measured_basis_puts_a_measured_rack_at_its_peak_plus_margin(peak, margin):
    racks = tuple(
        RackSnap(
            id=i,
            name=f"R{i}",
            hall_id=1,
            building_id=1,
            x_m=0,
            y_m=0,
            cooling_type="air",
            design_kw=60,
            cooling_unit_id=None,
            pod_id=None,
            status="active",
            extra_it_kw=40.0,
        )
        for i in (1, 2)
    )
    snap = CampusSnapshot(1, "c", 1e6, 0.1, None, 25.0, 0.0, racks=racks)
    out = m.measured_snapshot(snap, {1: peak}, margin)
    assert out.rack_it_kw(out.racks[0]) == pytest.approx(peak * (1 + margin))
    assert out.rack_it_kw(out.racks[1]) == 40.0
