"""Measurements kept by the twin: rollups of what a site measures (docs/live.md). Raw samples stay in their
source (Prometheus, the uploaded file); the twin keeps 5-minute means and maxima and daily peaks, bounded by
``TWIN_MEASUREMENT_RETENTION_DAYS`` and ``TWIN_MEASUREMENT_DAILY_RETENTION_DAYS``."""

from django.db import models

from campus.analysis.measurements import OBJECT_KINDS

from .sites import Campus


class MeasurementRollup(models.Model):
    """One bucket of one measured series: its mean, its maximum and the samples it holds.

    A bucket is written whole: an upload or a sync replaces the buckets it carries, so writing the same
    rows again never counts them twice."""

    class Resolution(models.TextChoices):
        FIVE_MINUTES = "5m", "5 minutes"
        DAY = "1d", "1 day"

    campus = models.ForeignKey(Campus, on_delete=models.CASCADE, related_name="measurements")
    object_kind = models.CharField(max_length=16, choices=[(k, k) for k in OBJECT_KINDS])
    object_name = models.CharField(max_length=128)
    metric = models.CharField(max_length=32, help_text="What is measured and its unit, e.g. power_kw.")
    resolution = models.CharField(max_length=2, choices=Resolution.choices)
    bucket_start = models.DateTimeField()
    mean = models.FloatField()
    max = models.FloatField()
    samples = models.PositiveIntegerField()
    # A day's (resolution 1d) merge state: what its next write needs to stay exact without reading the
    # day's buckets again (campus.analysis.measurements.DayRollup). Null on 5-minute buckets.
    total = models.FloatField(null=True, blank=True, help_text="Sum of the day's 5-minute mean x samples.")
    earlier_peak = models.FloatField(
        null=True, blank=True, help_text="Highest 5-minute mean of the day before its last bucket."
    )
    last_start = models.DateTimeField(null=True, blank=True, help_text="Start of the day's last bucket.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campus", "object_kind", "object_name", "metric", "resolution", "bucket_start"],
                name="measurement_rollup_one_bucket",
            )
        ]
        indexes = [models.Index(fields=["campus", "resolution", "bucket_start"], name="measurement_by_time")]

    def __str__(self) -> str:
        return f"{self.object_kind} {self.object_name} {self.metric} {self.resolution} {self.bucket_start}"


class PrometheusSource(models.Model):
    """A campus's Prometheus series: PromQL templates mapped to inventory objects and metrics, and how far
    the sync has read. The server's URL and credentials are settings (``TWIN_PROMETHEUS_URL``), never rows
    or answers."""

    campus = models.OneToOneField(Campus, on_delete=models.CASCADE, related_name="prometheus_source")
    mapping = models.JSONField(
        help_text="List of {query, object_kind, name_label | object_name, metric}: each query's series "
        "become the measurements of the object its label (or the fixed name) names."
    )
    synced_until = models.DateTimeField(null=True, blank=True, help_text="End of the last bucket read.")
    last_error = models.CharField(max_length=512, blank=True, default="")
    last_attempt = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Prometheus source of {self.campus}"
