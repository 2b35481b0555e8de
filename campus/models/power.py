from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from campus.choices import FeedSide, PowerDeviceKind, Status

from .base import TimestampedModel


class PowerDevice(TimestampedModel):
    """One node of the power graph: substation, transformer, switchgear, generator, UPS, PDU, busway or RPP."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="power_devices")
    building = models.ForeignKey(
        "campus.Building", on_delete=models.CASCADE, null=True, blank=True, related_name="power_devices"
    )
    hall = models.ForeignKey(
        "campus.DataHall", on_delete=models.SET_NULL, null=True, blank=True, related_name="power_devices"
    )
    name = models.CharField(max_length=128)
    kind = models.CharField(max_length=16, choices=PowerDeviceKind.choices)
    rated_kw = models.FloatField(validators=[MinValueValidator(0.1), MaxValueValidator(2_000_000)])
    efficiency = models.FloatField(default=0.99, validators=[MinValueValidator(0.5), MaxValueValidator(1.0)])
    max_utilization = models.FloatField(
        default=0.8, validators=[MinValueValidator(0.1), MaxValueValidator(1.0)]
    )
    utility_feed = models.ForeignKey(
        "campus.UtilityFeed", on_delete=models.SET_NULL, null=True, blank=True, related_name="devices"
    )
    battery_minutes = models.FloatField(default=0, validators=[MinValueValidator(0), MaxValueValidator(1440)])
    start_delay_s = models.FloatField(default=0, validators=[MinValueValidator(0), MaxValueValidator(3600)])
    ramp_s = models.FloatField(default=0, validators=[MinValueValidator(0), MaxValueValidator(10_800)])
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="powerdevice_unique_name"),
            models.CheckConstraint(condition=Q(rated_kw__gt=0), name="powerdevice_rating_positive"),
            models.CheckConstraint(
                condition=Q(efficiency__gt=0, efficiency__lte=1), name="powerdevice_efficiency_fraction"
            ),
            models.CheckConstraint(
                condition=Q(max_utilization__gt=0, max_utilization__lte=1),
                name="powerdevice_utilization_fraction",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class PowerFeed(TimestampedModel):
    """An edge of the power graph: upstream device → downstream device or rack, on side A, B or N."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="power_feeds")
    upstream = models.ForeignKey(PowerDevice, on_delete=models.CASCADE, related_name="downstream_feeds")
    downstream_device = models.ForeignKey(
        PowerDevice, on_delete=models.CASCADE, null=True, blank=True, related_name="upstream_feeds"
    )
    rack = models.ForeignKey(
        "campus.Rack", on_delete=models.CASCADE, null=True, blank=True, related_name="feeds"
    )
    side = models.CharField(max_length=1, choices=FeedSide.choices, default=FeedSide.N)
    rating_kw = models.FloatField(validators=[MinValueValidator(0.1), MaxValueValidator(2_000_000)])
    history = HistoricalRecords()

    class Meta:
        ordering = ("campus", "id")
        constraints = [
            models.CheckConstraint(
                condition=(Q(downstream_device__isnull=False) & Q(rack__isnull=True))
                | (Q(downstream_device__isnull=True) & Q(rack__isnull=False)),
                name="powerfeed_one_downstream",
            ),
            models.CheckConstraint(condition=Q(rating_kw__gt=0), name="powerfeed_rating_positive"),
            models.CheckConstraint(
                condition=~Q(upstream=models.F("downstream_device")), name="powerfeed_no_self_loop"
            ),
            models.UniqueConstraint(
                fields=("rack", "side"),
                condition=Q(rack__isnull=False) & ~Q(side="N"),
                name="powerfeed_one_per_rack_side",
            ),
        ]

    def __str__(self) -> str:
        target = self.rack or self.downstream_device
        return f"{self.upstream} → {target} ({self.side})"

    def clean(self) -> None:
        if bool(self.downstream_device_id) == bool(self.rack_id):
            raise ValidationError({"downstream_device": "A feed goes to exactly one device or one rack."})
        if self.downstream_device_id and self.downstream_device_id == self.upstream_id:
            raise ValidationError({"downstream_device": "A device cannot feed itself."})
        super().clean()
