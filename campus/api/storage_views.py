"""``/api/storage-systems/``: the campus's parallel file systems and object stores (list, detail, bulk writes),
the storage a training job checkpoints to (docs/training.md)."""

from __future__ import annotations

from campus import models
from campus.api.filtersets import CHOICE, ID, RANGE, TEXT, InventoryFilterSet
from campus.api.inventory_views import CampusInventoryViewSet
from campus.api.serializers_.storage import StorageSystemSerializer
from twin.api.viewsets import inventory_schema


class StorageSystemFilterSet(InventoryFilterSet):
    class Meta:
        model = models.StorageSystem
        fields = {
            "id": ID,
            "campus": ID,
            "building": ID,
            "name": TEXT,
            "kind": CHOICE,
            "status": CHOICE,
            "capacity_pb": RANGE,
            "read_gb_s": RANGE,
            "write_gb_s": RANGE,
        }


@inventory_schema(StorageSystemSerializer, "storage systems")
class StorageSystemViewSet(CampusInventoryViewSet):
    queryset = models.StorageSystem.objects.select_related("campus", "building")
    serializer_class = StorageSystemSerializer
    filterset_class = StorageSystemFilterSet
