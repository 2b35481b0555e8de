from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from campus.choices import Fabric, Network, SwitchTier, Topology

from .base import SET_NULL_STAMPED, InventoryModel


class Pod(InventoryModel):
    """A compute island: full bisection inside, oversubscribed above it."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="pods")
    building = models.ForeignKey(
        "campus.Building", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="pods"
    )
    name = models.CharField(max_length=128)
    fabric = models.CharField(max_length=32, choices=Fabric.choices, default=Fabric.INFINIBAND_NDR)
    topology = models.CharField(max_length=32, choices=Topology.choices, default=Topology.RAIL_OPTIMIZED)
    oversubscription = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(1.0), MaxValueValidator(64)],
        help_text="Oversubscription above the island (1 = non-blocking; Meta: 7).",
    )
    switch_model = models.ForeignKey(
        "campus.SwitchModel", on_delete=models.PROTECT, null=True, blank=True, related_name="pods"
    )
    priority = models.SmallIntegerField(
        default=0, help_text="Higher keeps running longer when power must be shed."
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="pod_unique_name"),
            models.CheckConstraint(condition=Q(oversubscription__gte=1), name="pod_oversubscription_min"),
        ]

    def __str__(self) -> str:
        return self.name


class Switch(InventoryModel):
    """A group of ``count`` identical switches of one tier at one place (a single switch when count is 1)."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="switches")
    pod = models.ForeignKey(Pod, on_delete=models.CASCADE, null=True, blank=True, related_name="switches")
    hall = models.ForeignKey(
        "campus.DataHall", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="switches"
    )
    rack = models.ForeignKey(
        "campus.Rack", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="switches"
    )
    name = models.CharField(max_length=128)
    tier = models.CharField(max_length=16, choices=SwitchTier.choices)
    network = models.CharField(max_length=16, choices=Network.choices, default=Network.BACKEND)
    model = models.ForeignKey("campus.SwitchModel", on_delete=models.PROTECT, related_name="switches")
    count = models.PositiveIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(100_000)]
    )
    history = HistoricalRecords()
    # The links to and from it: deleting it would take them away and cut racks off the fabric without a
    # word (docs/api.md, "Deleting").
    DEPENDENTS = ("links_in", "links_out")

    class Meta:
        ordering = ("campus", "name")
        verbose_name_plural = "switches"
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="switch_unique_name"),
            models.CheckConstraint(condition=Q(count__gte=1), name="switch_count_positive"),
        ]

    def __str__(self) -> str:
        return self.name


class Link(InventoryModel):
    """A bundle of ``count`` identical cables from a rack's servers or a switch group to a switch group."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="links")
    pod = models.ForeignKey(Pod, on_delete=models.CASCADE, null=True, blank=True, related_name="links")
    network = models.CharField(max_length=16, choices=Network.choices, default=Network.BACKEND)
    a_rack = models.ForeignKey(
        "campus.Rack", on_delete=models.CASCADE, null=True, blank=True, related_name="links"
    )
    a_switch = models.ForeignKey(
        Switch, on_delete=models.CASCADE, null=True, blank=True, related_name="links_out"
    )
    b_switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="links_in")
    medium = models.ForeignKey("campus.LinkMedium", on_delete=models.PROTECT, related_name="links")
    count = models.PositiveIntegerField(validators=[MinValueValidator(1), MaxValueValidator(1_000_000)])
    length_m = models.FloatField(validators=[MinValueValidator(0.1), MaxValueValidator(200_000)])
    speed_gbps = models.FloatField(default=400, validators=[MinValueValidator(1), MaxValueValidator(3200)])
    history = HistoricalRecords()

    class Meta:
        ordering = ("campus", "id")
        constraints = [
            models.CheckConstraint(
                condition=(Q(a_rack__isnull=False) & Q(a_switch__isnull=True))
                | (Q(a_rack__isnull=True) & Q(a_switch__isnull=False)),
                name="link_one_a_end",
            ),
            models.CheckConstraint(condition=Q(count__gte=1), name="link_count_positive"),
            models.CheckConstraint(condition=Q(length_m__gt=0), name="link_length_positive"),
            models.CheckConstraint(condition=~Q(a_switch=models.F("b_switch")), name="link_not_to_itself"),
        ]

    def __str__(self) -> str:
        a = self.a_rack or self.a_switch
        return f"{self.count}× {a} → {self.b_switch}"

    def clean(self) -> None:
        if bool(self.a_rack_id) == bool(self.a_switch_id):
            raise ValidationError({"a_rack": "A link starts at exactly one rack or one switch group."})
        if self.medium_id and self.length_m and self.length_m > self.medium.max_reach_m:
            raise ValidationError(
                {
                    "length_m": f"{self.length_m} m exceeds the reach of {self.medium.slug} ({self.medium.max_reach_m} m)."
                }
            )
        super().clean()
