"""The pure core of measurements (campus.analysis.measurements), without the database: rollups against a
brute-force grouping, idempotence, line numbers of bad rows, the measured basis of a rack."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis import measurements as m
from campus.analysis.measured_model import hour_of_year
from campus.analysis.snapshot import CampusSnapshot
from tests.analysis.builders import rack

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
        rack(i, 0, x_m=0, y_m=0, cooling_type="air", design_kw=60, extra_it_kw=40.0) for i in (1, 2)
    )
    snap = CampusSnapshot(1, "c", 1e6, 0.1, None, 25.0, 0.0, racks=racks)
    out = m.measured_snapshot(snap, {1: peak}, margin)
    assert out.rack_it_kw(out.racks[0]) == pytest.approx(peak * (1 + margin))
    assert out.rack_it_kw(out.racks[1]) == 40.0


def test_a_paired_comparison_is_bucket_by_bucket():
    t1, t2 = datetime(2026, 11, 29, 3, tzinfo=UTC), datetime(2026, 11, 29, 3, 5, tzinfo=UTC)
    buckets = {t1: m.Bucket(10.0, 11.0, 5), t2: m.Bucket(20.0, 21.0, 5)}
    c = m.compare("ups", "U", 1, buckets, {t1: 8.0, t2: 16.0}, 0.1)
    # means 15 against 12: +25 %; residuals 2 and 4: RMS √10
    assert c.basis == "paired" and c.deviation == pytest.approx(0.25) and c.alarm == "over"
    assert c.rms_residual == pytest.approx(10**0.5)


def test_a_temperature_deviates_in_kelvin_against_its_own_band():
    t1, t2 = datetime(2026, 11, 29, 3, tzinfo=UTC), datetime(2026, 11, 29, 3, 5, tzinfo=UTC)
    buckets = {t1: m.Bucket(31.0, 31.5, 5), t2: m.Bucket(33.0, 33.5, 5)}
    c = m.compare("cdu", "C", 1, buckets, 30.0, 0.1, "supply_temp_c", band_k=2.0)
    assert (c.unit, c.deviation_unit, c.deviation, c.alarm) == ("°C", "K", pytest.approx(3.0), "over")
    assert m.compare("cdu", "C", 1, buckets, 30.0, 0.1, "supply_temp_c", band_k=4.0).alarm is None


def test_the_hour_of_the_typical_year_skips_29_february():
    assert hour_of_year(datetime(2027, 3, 1, tzinfo=UTC)) == 59 * 24
    assert hour_of_year(datetime(2028, 3, 1, tzinfo=UTC)) == 59 * 24
    assert hour_of_year(datetime(2028, 2, 29, 5, tzinfo=UTC)) == hour_of_year(
        datetime(2027, 2, 28, 5, tzinfo=UTC)
    )
    assert hour_of_year(datetime(2028, 12, 31, 23, tzinfo=UTC)) == 8759
