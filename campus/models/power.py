from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from campus.catalog_data import default_value
from campus.choices import FeedSide, PowerDeviceKind, Status

from .base import SET_NULL_STAMPED, InventoryModel


class PowerDevice(InventoryModel):
    """One node of the power graph: substation, transformer, switchgear, generator, UPS, PDU, busway or RPP."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="power_devices")
    building = models.ForeignKey(
        "campus.Building", on_delete=models.CASCADE, null=True, blank=True, related_name="power_devices"
    )
    hall = models.ForeignKey(
        "campus.DataHall", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="power_devices"
    )
    name = models.CharField(max_length=128)
    kind = models.CharField(max_length=16, choices=PowerDeviceKind.choices)
    rated_kw = models.FloatField(validators=[MinValueValidator(0.1), MaxValueValidator(2_000_000)])
    efficiency = models.FloatField(default=0.99, validators=[MinValueValidator(0.5), MaxValueValidator(1.0)])
    max_utilization = models.FloatField(
        default=0.8, validators=[MinValueValidator(0.1), MaxValueValidator(1.0)]
    )
    utility_feed = models.ForeignKey(
        "campus.UtilityFeed", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="devices"
    )
    battery_minutes = models.FloatField(default=0, validators=[MinValueValidator(0), MaxValueValidator(1440)])
    start_delay_s = models.FloatField(default=0, validators=[MinValueValidator(0), MaxValueValidator(3600)])
    ramp_s = models.FloatField(default=0, validators=[MinValueValidator(0), MaxValueValidator(10_800)])
    # On-site generation (generators only). A generator without a prime rating is a standby set: it runs
    # only when the grid fails or falls short (start_delay_s, ramp_s). A prime rating (ISO 8528-1: the
    # continuous, variable-load rating, at most the standby rating_kw) makes it on-site generation that
    # follows the campus load at ramp_kw_per_s and burns fuel at fuel_usd_per_mwh.
    prime_rating_kw = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.1), MaxValueValidator(2_000_000)],
        help_text="Prime (continuous, load-following) rating, kW; empty for a standby generator.",
    )
    ramp_kw_per_s = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.001), MaxValueValidator(2_000_000)],
        help_text="How fast the generator follows load, kW/s; empty: prime rating / ramp_s, else 1 %/s.",
    )
    fuel_usd_per_mwh = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(100_000)],
        help_text="Fuel cost per MWh generated, USD; empty: the catalog's diesel (standby) or gas (prime).",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()
    # What this device supplies: its feeds out (to devices and racks, which the deletion would remove) and the
    # cooling and storage connected to it (which it would unlink); docs/api.md, "Deleting".
    DEPENDENTS = (
        "downstream_feeds",
        "cooling_units",
        "cooling_units_b",
        "cooling_plants",
        "cooling_plants_b",
        "energy_storage",
    )

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="powerdevice_unique_name"),
            models.CheckConstraint(
                condition=Q(prime_rating_kw__isnull=True) | Q(prime_rating_kw__lte=models.F("rated_kw")),
                name="powerdevice_prime_within_rating",
            ),
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


class PowerFeed(InventoryModel):
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
        ]

    def __str__(self) -> str:
        target = self.rack or self.downstream_device
        return f"{self.upstream} → {target} ({self.side})"

    def clean(self) -> None:
        if bool(self.downstream_device_id) == bool(self.rack_id):
            # Said on the end that was changed: an existing rack feed that lost its rack, or gained a device,
            # names ``rack`` or ``downstream_device`` as the request did.
            field = "downstream_device"
            stored = type(self).objects.filter(pk=self.pk).values_list("rack_id").first() if self.pk else None
            if stored is not None and bool(stored[0]) != bool(self.rack_id):
                field = "rack"
            raise ValidationError({field: "A feed goes to exactly one device or one rack."})
        if self.downstream_device_id and self.downstream_device_id == self.upstream_id:
            raise ValidationError({"downstream_device": "A device cannot feed itself."})
        super().clean()


def _above_zero(value: float) -> None:
    if not value > 0:
        raise ValidationError("Must be above 0.")


class EnergyStorage(InventoryModel):
    """A battery energy storage system (BESS): its inverter power, its energy, its round-trip efficiency
    and how fast it answers, and where it sits on the power chain (the device it connects to)."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="energy_storage")
    building = models.ForeignKey(
        "campus.Building", on_delete=models.CASCADE, null=True, blank=True, related_name="energy_storage"
    )
    power_device = models.ForeignKey(
        PowerDevice,
        on_delete=SET_NULL_STAMPED,
        null=True,
        blank=True,
        related_name="energy_storage",
        help_text="The power device the storage connects to (e.g. a substation's or switchgear's bus).",
    )
    name = models.CharField(max_length=128)
    power_mw = models.FloatField(
        validators=[_above_zero, MaxValueValidator(100_000)], help_text="Inverter rating, MW."
    )
    energy_mwh = models.FloatField(
        validators=[_above_zero, MaxValueValidator(1_000_000)], help_text="Usable energy, MWh."
    )
    round_trip_efficiency = models.FloatField(
        default=default_value("bess_round_trip_efficiency"),
        validators=[_above_zero, MaxValueValidator(1.0)],
        help_text="AC energy out / AC energy in, (0, 1].",
    )
    response_ms = models.FloatField(
        default=default_value("bess_response_ms"),
        validators=[MinValueValidator(0), MaxValueValidator(600_000)],
        help_text="Time to full output after a command or a grid event, ms.",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()

    class Meta:
        ordering = ("campus", "name")
        verbose_name = "energy storage system"
        verbose_name_plural = "energy storage systems"
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="energystorage_unique_name"),
            models.CheckConstraint(condition=Q(power_mw__gt=0), name="energystorage_power_positive"),
            models.CheckConstraint(condition=Q(energy_mwh__gt=0), name="energystorage_energy_positive"),
            models.CheckConstraint(
                condition=Q(round_trip_efficiency__gt=0, round_trip_efficiency__lte=1),
                name="energystorage_efficiency_fraction",
            ),
        ]

    def __str__(self) -> str:
        return self.name
