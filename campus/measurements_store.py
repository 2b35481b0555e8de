"""Measurement rollups in the database: written bucket by bucket (a bucket given again replaces the one
held, so the same rows never count twice), daily rows merged from the buckets written and those they
replace, and the retention bound applied on every write (docs/live.md, "Storage")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from campus.analysis import measurements as m
from campus.analysis.measurements import Bucket
from campus.interchange import bulk
from campus.models import Campus, MeasurementRollup

FIVE = MeasurementRollup.Resolution.FIVE_MINUTES
DAY = MeasurementRollup.Resolution.DAY
_KEY = ["campus", "object_kind", "object_name", "metric", "resolution", "bucket_start"]


def retention_cutoffs(now: datetime | None = None) -> tuple[datetime, datetime]:
    now = now or timezone.now()
    return (
        now - timedelta(days=settings.TWIN_MEASUREMENT_RETENTION_DAYS),
        now - timedelta(days=settings.TWIN_MEASUREMENT_DAILY_RETENTION_DAYS),
    )


def store(campus_id: int, buckets: Mapping[tuple[str, str, str, datetime], Bucket]) -> dict:
    """Upsert the 5-minute buckets, merge them into the daily rows of the days they touch, prune what is
    older than the retention. One transaction: a failure leaves nothing half-written. Stores of one campus
    take turns (a lock on its row): each merges into the daily rows the other left."""
    five_cutoff, _ = retention_cutoffs()
    kept = {k: b for k, b in buckets.items() if k[3] >= five_cutoff}
    rows = [
        {
            "campus_id": campus_id,
            "object_kind": kind,
            "object_name": name,
            "metric": metric,
            "resolution": FIVE,
            "bucket_start": start,
            "mean": b.mean,
            "max": b.max,
            "samples": b.samples,
        }
        for (kind, name, metric, start), b in kept.items()
    ]
    with transaction.atomic():
        list(Campus.objects.select_for_update().filter(pk=campus_id).values_list("pk"))
        replaced = bulk.upsert_rows(
            MeasurementRollup, rows, _KEY, ["mean", "max", "samples"], previous=["mean", "max", "samples"]
        )
        _daily(campus_id, kept, {k[1:4] + (k[5],): Bucket(*v) for k, v in replaced.items()})
        pruned = prune(campus_id)
    return {"buckets": len(rows), "dropped_older_than_retention": len(buckets) - len(kept), "pruned": pruned}


def _day(t: datetime) -> datetime:
    return t.replace(hour=0, minute=0, second=0, microsecond=0)


def _daily(
    campus_id: int,
    written: Mapping[tuple[str, str, str, datetime], Bucket],
    replaced: Mapping[tuple[str, str, str, datetime], Bucket],
) -> None:
    """Merge the written buckets into the daily rows of their (object, metric, day): ``max`` is the day's
    peak (its highest 5-minute mean), ``mean`` the sample-weighted mean of its 5-minute means. The held
    daily rows are read by key and merged with the buckets written and those they replaced
    (``measurements.merge_day``), so the cost follows the write, not the day so far; a day the merge cannot
    tell is recomputed from its buckets."""
    by_day: dict[tuple[str, str, str, datetime], dict[datetime, tuple[Bucket, Bucket | None]]] = defaultdict(
        dict
    )
    for (kind, name, metric, start), b in written.items():
        by_day[(kind, name, metric, _day(start))][start] = (b, replaced.get((kind, name, metric, start)))
    keys = [_key(campus_id, kind, name, metric, DAY, day) for kind, name, metric, day in by_day]
    held = {
        k[1:4] + (k[5],): v
        for k, v in bulk.held_rows(
            MeasurementRollup, keys, _KEY, ["total", "samples", "max", "earlier_peak", "last_start"]
        ).items()
    }
    merged: dict[tuple[str, str, str, datetime], m.DayRollup] = {}
    unknown = []
    for key, days_buckets in by_day.items():
        row = held.get(key)
        day = None
        if row is None:
            day = m.merge_day(None, days_buckets)
        elif row[0] is not None and row[4] is not None:
            total, samples, peak, earlier, last = row
            day = m.merge_day(m.DayRollup(total, samples, peak, earlier, last), days_buckets)
        if day is None:
            unknown.append(key)
        else:
            merged[key] = day
    merged.update(_recomputed(campus_id, unknown))
    bulk.upsert_rows(
        MeasurementRollup,
        [
            {
                **_key(campus_id, kind, name, metric, DAY, day),
                "mean": d.mean,
                "max": d.peak,
                "samples": d.samples,
                "total": d.total,
                "earlier_peak": d.earlier_peak,
                "last_start": d.last_start,
            }
            for (kind, name, metric, day), d in merged.items()
        ],
        _KEY,
        ["mean", "max", "samples", "total", "earlier_peak", "last_start"],
    )


def _key(campus_id: int, kind: str, name: str, metric: str, resolution: str, start: datetime) -> dict:
    return {
        "campus_id": campus_id,
        "object_kind": kind,
        "object_name": name,
        "metric": metric,
        "resolution": resolution,
        "bucket_start": start,
    }


def _recomputed(
    campus_id: int, days: list[tuple[str, str, str, datetime]]
) -> dict[tuple[str, str, str, datetime], m.DayRollup]:
    """The daily rollups of these (object, metric, day) from the 5-minute buckets held (after the write):
    the rare day whose merge cannot tell (``measurements.merge_day``). Read a few hundred series at a time,
    by the unique index."""
    groups: dict[tuple[str, str, datetime], list[str]] = defaultdict(list)
    for kind, name, metric, day in days:
        groups[(kind, metric, day)].append(name)
    out = {}
    for (kind, metric, day), names in groups.items():
        for i in range(0, len(names), 500):
            buckets: dict[str, dict[datetime, tuple[Bucket, None]]] = defaultdict(dict)
            for name, t, mean, top, samples in MeasurementRollup.objects.filter(
                campus_id=campus_id,
                resolution=FIVE,
                object_kind=kind,
                metric=metric,
                object_name__in=names[i : i + 500],
                bucket_start__gte=day,
                bucket_start__lt=day + timedelta(days=1),
            ).values_list("object_name", "bucket_start", "mean", "max", "samples"):
                buckets[name][t] = (Bucket(mean, top, samples), None)
            for name, held in buckets.items():
                merged = m.merge_day(None, held)
                if merged is not None:
                    out[(kind, name, metric, day)] = merged
    return out


def prune(campus_id: int) -> int:
    five_cutoff, day_cutoff = retention_cutoffs()
    q = MeasurementRollup.objects.filter(campus_id=campus_id)
    n, _ = q.filter(resolution=FIVE, bucket_start__lt=five_cutoff).delete()
    m, _ = q.filter(resolution=DAY, bucket_start__lt=day_cutoff).delete()
    return n + m


def latest_bucket(campus_id: int) -> datetime | None:
    return MeasurementRollup.objects.filter(campus_id=campus_id, resolution=FIVE).aggregate(
        t=Max("bucket_start")
    )["t"]


def peaks(
    campus_id: int, start: datetime, end: datetime, object_kind: str, metric: str = "power_kw"
) -> dict[str, float]:
    """Each object of ``object_kind``'s highest 5-minute mean in ``[start, end)``, by name: one grouped
    query, so a campus of 31k racks sends 31k rows, not its month of buckets."""
    return dict(
        MeasurementRollup.objects.filter(
            campus_id=campus_id,
            resolution=FIVE,
            metric=metric,
            object_kind=object_kind,
            bucket_start__gte=start,
            bucket_start__lt=end,
        )
        .order_by()
        .values("object_name")
        .annotate(peak=Max("mean"))
        .values_list("object_name", "peak")
    )


def object_series(
    campus_id: int,
    object_kind: str,
    object_name: str,
    start: datetime,
    end: datetime,
    metric: str = "power_kw",
) -> dict[datetime, Bucket]:
    """One object's 5-minute buckets of ``[start, end)``, in time order."""
    return {
        t: Bucket(mean, top, samples)
        for t, mean, top, samples in MeasurementRollup.objects.filter(
            campus_id=campus_id,
            resolution=FIVE,
            metric=metric,
            object_kind=object_kind,
            object_name=object_name,
            bucket_start__gte=start,
            bucket_start__lt=end,
        )
        .order_by("bucket_start")
        .values_list("bucket_start", "mean", "max", "samples")
    }


def series(
    campus_id: int, start: datetime, end: datetime, metric: str = "power_kw"
) -> dict[tuple[str, str], dict[datetime, Bucket]]:
    """The 5-minute buckets of ``[start, end)`` per (object kind, object name)."""
    out: dict[tuple[str, str], dict[datetime, Bucket]] = defaultdict(dict)
    for kind, name, t, mean, top, samples in MeasurementRollup.objects.filter(
        campus_id=campus_id, resolution=FIVE, metric=metric, bucket_start__gte=start, bucket_start__lt=end
    ).values_list("object_kind", "object_name", "bucket_start", "mean", "max", "samples"):
        out[(kind, name)][t] = Bucket(mean, top, samples)
    return out


def object_points(
    campus_id: int,
    object_kind: str,
    object_name: str,
    start: datetime,
    end: datetime,
    metric: str = "power_kw",
) -> list[tuple[datetime, float, int]]:
    """One object's 5-minute (start, mean, samples) of ``[start, end)``, in time order (what a replay reads)."""
    return [
        (t, b.mean, b.samples)
        for t, b in object_series(campus_id, object_kind, object_name, start, end, metric).items()
    ]


def object_all_series(
    campus_id: int, object_kind: str, object_name: str, start: datetime, end: datetime
) -> dict[str, dict[datetime, Bucket]]:
    """One object's 5-minute buckets of ``[start, end)`` per metric, in time order."""
    out: dict[str, dict[datetime, Bucket]] = defaultdict(dict)
    for metric, t, mean, top, samples in (
        MeasurementRollup.objects.filter(
            campus_id=campus_id,
            resolution=FIVE,
            object_kind=object_kind,
            object_name=object_name,
            bucket_start__gte=start,
            bucket_start__lt=end,
        )
        .order_by("bucket_start")
        .values_list("metric", "bucket_start", "mean", "max", "samples")
    ):
        out[metric][t] = Bucket(mean, top, samples)
    return out


def all_series(
    campus_id: int, start: datetime, end: datetime
) -> dict[tuple[str, str, str], dict[datetime, Bucket]]:
    """The 5-minute buckets of ``[start, end)`` per (object kind, object name, metric)."""
    out: dict[tuple[str, str, str], dict[datetime, Bucket]] = defaultdict(dict)
    for kind, name, metric, t, mean, top, samples in MeasurementRollup.objects.filter(
        campus_id=campus_id, resolution=FIVE, bucket_start__gte=start, bucket_start__lt=end
    ).values_list("object_kind", "object_name", "metric", "bucket_start", "mean", "max", "samples"):
        out[(kind, name, metric)][t] = Bucket(mean, top, samples)
    return out


def holds(campus_id: int) -> bool:
    return MeasurementRollup.objects.filter(campus_id=campus_id).exists()
