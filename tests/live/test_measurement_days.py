"""The daily rollups merged from each write's 5-minute buckets (docs/live.md, "Storage").

The truth is the day computed by hand from the raw rows (every sample's mean, the highest 5-minute mean,
the sample count) and, after every write, a brute-force recomputation from the 5-minute rows held: a day
synced in random chunks, with overlaps, repeats and unfinished last buckets read again whole, must end as
one sync of the whole day does."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus import measurements_store as store
from campus.analysis import measurements as m
from campus.models import MeasurementRollup
from tests import factories as f

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def brute_day(buckets):
    """A day's rollup from all its buckets, by a plain loop."""
    starts = sorted(buckets)
    return (
        sum(buckets[t].mean * buckets[t].samples for t in starts),
        sum(buckets[t].samples for t in starts),
        max(buckets[t].mean for t in starts),
        max((buckets[t].mean for t in starts[:-1]), default=None),
        starts[-1],
    )


bucket_st = st.builds(
    m.Bucket,
    mean=st.sampled_from([0.0, 1.0, 2.5, 7.0, 7.0, 10.0]),  # few values: ties of the peak are common
    max=st.just(10.0),
    samples=st.integers(1, 5),
)
writes_st = st.lists(
    st.dictionaries(st.integers(0, 11), bucket_st, min_size=1, max_size=6), min_size=1, max_size=12
)


@settings(max_examples=300, deadline=None)
@given(writes_st)
def test_merging_each_write_equals_the_day_recomputed_from_its_buckets(writes):
    held: dict[datetime, m.Bucket] = {}
    day = None
    for write in writes:
        written = {T0 + timedelta(minutes=5 * i): b for i, b in write.items()}
        day = m.merge_day(day, {t: (b, held.get(t)) for t, b in written.items()})
        held.update(written)
        if day is None:  # the merge could not tell: recomputed from the buckets, as the store does
            day = m.merge_day(None, {t: (b, None) for t, b in held.items()})
        total, samples, peak, earlier, last = brute_day(held)
        assert (day.samples, day.peak, day.earlier_peak, day.last_start) == (samples, peak, earlier, last)
        assert day.total == pytest.approx(total, rel=1e-12)


def test_an_unfinished_last_bucket_read_again_lower_gives_the_earlier_peak_without_the_buckets():
    b = m.Bucket
    day = m.merge_day(
        None, {T0: (b(40.0, 40.0, 5), None), T0 + timedelta(minutes=5): (b(50.0, 50.0, 2), None)}
    )
    assert (day.peak, day.earlier_peak) == (50.0, 40.0)
    again = m.merge_day(day, {T0 + timedelta(minutes=5): (b(35.0, 50.0, 5), b(50.0, 50.0, 2))})
    assert (again.peak, again.samples, again.mean) == (40.0, 10, pytest.approx((200 + 175) / 10))
    # a bucket before the last that held the earlier peak, lowered: the day is recomputed
    assert m.merge_day(again, {T0: (b(30.0, 30.0, 5), b(40.0, 40.0, 5))}) is None


# ---------------------------------------------------------------- in the database

RACKS = ("R1", "R2", "R3")
STEP_S = 60


def raw_day(seed: int) -> np.ndarray:
    """A day of one sample a minute per rack (kW), the truth the syncs read pieces of."""
    rng = np.random.default_rng(seed)
    return np.round(rng.uniform(20.0, 60.0, size=(len(RACKS), 86400 // STEP_S)), 2)


def sync(campus_id, day0, raw, start_min, end_min):
    """What a sync of ``[start, end)`` stores: the window's samples rolled up (an end inside a bucket leaves
    that bucket unfinished, to be read again whole)."""
    samples = [
        m.Sample("rack", name, "power_kw", day0 + timedelta(minutes=t), float(raw[r, t]))
        for r, name in enumerate(RACKS)
        for t in range(start_min, end_min)
    ]
    store.store(campus_id, m.rollup(samples))


def daily_rows(campus):
    return {
        d.object_name: (d.mean, d.max, d.samples)
        for d in MeasurementRollup.objects.filter(campus=campus, resolution="1d")
    }


def daily_from_five_minute_rows(campus):
    out = {}
    for name in RACKS:
        five = list(MeasurementRollup.objects.filter(campus=campus, resolution="5m", object_name=name))
        if five:
            n = sum(b.samples for b in five)
            out[name] = (sum(b.mean * b.samples for b in five) / n, max(b.mean for b in five), n)
    return out


def assert_same(got, want):
    assert set(got) == set(want)
    for name, (mean, peak, samples) in want.items():
        assert got[name][1:] == (peak, samples), name
        assert got[name][0] == pytest.approx(mean, rel=1e-12), name


def by_hand(raw):
    """The day of each rack from its raw rows: the mean of its samples, the highest mean of five minutes."""
    return {
        name: (float(raw[r].mean()), float(raw[r].reshape(-1, 5).mean(axis=1).max()), raw.shape[1])
        for r, name in enumerate(RACKS)
    }


windows_st = st.lists(
    st.tuples(st.integers(0, 287), st.integers(1, 120)), min_size=0, max_size=4
)  # (first bucket, minutes): an end anywhere, inside a bucket too
cuts_st = st.lists(st.integers(1, 287), min_size=0, max_size=6, unique=True)


@pytest.mark.django_db
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), early=windows_st, cuts=cuts_st, repeats=windows_st)
def test_a_day_synced_in_random_chunks_gives_the_daily_rows_of_one_sync_and_of_the_hand_calculation(
    seed, early, cuts, repeats
):
    raw = raw_day(seed)
    day0 = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
    chunked, whole = f.CampusFactory(), f.CampusFactory()
    sync(whole.pk, day0, raw, 0, 1440)
    # windows anywhere first (unfinished buckets among them), then the day in order from cut to cut (a sync
    # resuming where it stopped, each bucket read whole), then whole buckets read again (a source back up)
    bounds = [0, *sorted(c * 5 for c in cuts), 1440]
    chunks = [(b * 5, min(1440, b * 5 + n)) for b, n in early]
    chunks += list(zip(bounds[:-1], bounds[1:], strict=True))
    chunks += [(b * 5, min(1440, b * 5 + n // 5 * 5 + 5)) for b, n in repeats]
    for start, end in chunks:
        sync(chunked.pk, day0, raw, start, end)
        assert_same(daily_rows(chunked), daily_from_five_minute_rows(chunked))
    assert_same(daily_rows(chunked), by_hand(raw))
    assert_same(daily_rows(whole), by_hand(raw))


@pytest.mark.django_db
def test_a_daily_row_kept_before_its_merge_state_is_recomputed_from_its_buckets():
    campus = f.CampusFactory()
    raw = raw_day(7)
    day0 = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
    sync(campus.pk, day0, raw, 0, 720)
    MeasurementRollup.objects.filter(campus=campus, resolution="1d").update(
        total=None, earlier_peak=None, last_start=None
    )
    sync(campus.pk, day0, raw, 720, 1440)
    assert_same(daily_rows(campus), by_hand(raw))


@pytest.mark.django_db
def test_retention_prunes_buckets_and_days_and_a_day_keeps_its_pruned_buckets():
    campus = f.CampusFactory()
    raw = raw_day(3)
    now = datetime.now(UTC)
    day0 = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=3)
    sync(campus.pk, day0, raw, 0, 1440)
    # the 5-minute retention cuts the day at a bucket boundary near its middle (time passing)
    cut = m.bucket_start(day0 + timedelta(hours=12, minutes=2))
    days = (now - cut).total_seconds() / 86400
    with override_settings(TWIN_MEASUREMENT_RETENTION_DAYS=days):
        late = (cut - day0).seconds // 60 + 5  # the first bucket wholly after the cut, as minutes
        raw[:, late : late + 5] += 10.0  # read again with other values
        sync(campus.pk, day0, raw, late, 1440)
        five = MeasurementRollup.objects.filter(campus=campus, resolution="5m")
        assert five.order_by("bucket_start").first().bucket_start >= cut
        assert five.filter(object_name="R1").count() < 288
        # the day keeps its pruned buckets: the hand calculation of the whole day, new values in
        assert_same(daily_rows(campus), by_hand(raw))
        # a bucket older than the retention is dropped on arrival and leaves the day as it is
        before = raw.copy()
        raw[:, 0:5] += 30.0
        sync(campus.pk, day0, raw, 0, 5)
        assert_same(daily_rows(campus), by_hand(before))
    with override_settings(TWIN_MEASUREMENT_RETENTION_DAYS=days, TWIN_MEASUREMENT_DAILY_RETENTION_DAYS=2):
        sync(campus.pk, day0 + timedelta(days=2), raw, 0, 5)
        assert not MeasurementRollup.objects.filter(
            campus=campus, resolution="1d", bucket_start=day0
        ).exists()
