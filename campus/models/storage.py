"""Storage systems: the parallel file systems and object stores training jobs read data from and write
checkpoints to (docs/training.md, "Checkpoint and restart")."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from campus.choices import Status, StorageKind

from .base import InventoryModel


class StorageSystem(InventoryModel):
    """A parallel file system or object store: its capacity, its sustained aggregate read and write
    bandwidth, the racks it fills and the power it draws, and the front-end network bandwidth the compute
    nodes reach it with."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="storage_systems")
    building = models.ForeignKey(
        "campus.Building", on_delete=models.CASCADE, null=True, blank=True, related_name="storage_systems"
    )
    name = models.CharField(max_length=128)
    kind = models.CharField(max_length=16, choices=StorageKind.choices, default=StorageKind.PARALLEL_FS)
    capacity_pb = models.FloatField(
        validators=[MinValueValidator(0.001), MaxValueValidator(1_000_000)], help_text="Usable capacity, PB."
    )
    read_gb_s = models.FloatField(
        validators=[MinValueValidator(0.001), MaxValueValidator(10_000_000)],
        help_text="Sustained aggregate read bandwidth, GB/s.",
    )
    write_gb_s = models.FloatField(
        validators=[MinValueValidator(0.001), MaxValueValidator(10_000_000)],
        help_text="Sustained aggregate write bandwidth, GB/s.",
    )
    power_kw = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0), MaxValueValidator(1_000_000)],
        help_text="Electrical power of the storage servers and their switches, kW.",
    )
    racks = models.PositiveIntegerField(
        default=0, validators=[MaxValueValidator(100_000)], help_text="Racks the system fills."
    )
    frontend_gbps_per_node = models.FloatField(
        default=400.0,
        validators=[MinValueValidator(1), MaxValueValidator(100_000)],
        help_text="Front-end (storage) network bandwidth of each compute node, Gbit/s (DGX H100: 2 x 200G).",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()

    class Meta:
        ordering = ("campus", "name")
        verbose_name = "storage system"
        verbose_name_plural = "storage systems"
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="storagesystem_unique_name"),
            models.CheckConstraint(condition=Q(capacity_pb__gt=0), name="storagesystem_capacity_positive"),
            models.CheckConstraint(
                condition=Q(read_gb_s__gt=0, write_gb_s__gt=0), name="storagesystem_bandwidth_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name
