from django.db import models
from simple_history.models import HistoricalRecords

from campus.choices import NodeStatus

from .base import InventoryModel


class Node(InventoryModel):
    """One server in a rack. GPUs are counted from its node model, not stored one row each."""

    rack = models.ForeignKey("campus.Rack", on_delete=models.CASCADE, related_name="nodes")
    node_model = models.ForeignKey("campus.NodeModel", on_delete=models.PROTECT, related_name="nodes")
    name = models.CharField(max_length=128)
    position_u = models.PositiveSmallIntegerField(null=True, blank=True)
    serial = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=16, choices=NodeStatus.choices, default=NodeStatus.ACTIVE)
    history = HistoricalRecords()

    class Meta:
        ordering = ("rack", "name")
        constraints = [models.UniqueConstraint(fields=("rack", "name"), name="node_unique_name_in_rack")]

    def __str__(self) -> str:
        return self.name
