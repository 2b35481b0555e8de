"""Measurement rollups in the database: written bucket by bucket (a bucket given again replaces the one
held, so the same rows never count twice), daily peaks kept from the 5-minute buckets, and the retention
bound applied on every write (docs/live.md)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, FloatField, Max, Sum
from django.utils import timezone

from campus.analysis.measurements import Bucket
from campus.interchange import bulk
from campus.models import MeasurementRollup

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
    """Upsert the 5-minute buckets, recompute the daily peaks of the days they touch, prune what is older
    than the retention. One transaction: a failure leaves nothing half-written."""
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
        _upsert(rows)
        days = {(k[0], k[1], k[2], _day(k[3])) for k in kept}
        _daily(campus_id, days)
        pruned = prune(campus_id)
    return {"buckets": len(rows), "dropped_older_than_retention": len(buckets) - len(kept), "pruned": pruned}


def _upsert(rows: list[dict]) -> None:
    bulk.upsert_rows(MeasurementRollup, rows, _KEY, ["mean", "max", "samples"])


def _day(t: datetime) -> datetime:
    return t.replace(hour=0, minute=0, second=0, microsecond=0)


def _daily(campus_id: int, days: Iterable[tuple[str, str, str, datetime]]) -> None:
    """The daily rows of the touched (object, metric, day): ``max`` is the day's peak (its highest 5-minute
    mean), ``mean`` the sample-weighted mean of its 5-minute means. One grouped query per day: the database
    sums the day's buckets and sends one row per series, not the day's buckets."""
    by_day: dict[datetime, set[tuple[str, str, str]]] = defaultdict(set)
    for kind, name, metric, day in days:
        by_day[day].add((kind, name, metric))
    rows = []
    for day, series in by_day.items():
        grouped = (
            MeasurementRollup.objects.filter(
                campus_id=campus_id,
                resolution=FIVE,
                bucket_start__gte=day,
                bucket_start__lt=day + timedelta(days=1),
            )
            .order_by()
            .values("object_kind", "object_name", "metric")
            .annotate(
                total=Sum(F("mean") * F("samples"), output_field=FloatField()),
                count=Sum("samples"),
                peak=Max("mean"),
            )
            .values_list("object_kind", "object_name", "metric", "total", "count", "peak")
        )
        rows += [
            {
                "campus_id": campus_id,
                "object_kind": kind,
                "object_name": name,
                "metric": metric,
                "resolution": DAY,
                "bucket_start": day,
                "mean": total / count,
                "max": peak,
                "samples": count,
            }
            for kind, name, metric, total, count, peak in grouped
            if (kind, name, metric) in series
        ]
    _upsert(rows)


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
