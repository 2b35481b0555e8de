"""The campus spec's ``storage_systems``: written by the importer, read by the exporter (docs/campus-spec.md)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from campus.interchange.validation import PHASE_FIELDS as PHASES
from campus.models import StorageSystem

FIELDS = (
    "kind",
    "capacity_pb",
    "read_gb_s",
    "write_gb_s",
    "power_kw",
    "racks",
    "frontend_gbps_per_node",
    "status",
)
REQUIRED = ("capacity_pb", "read_gb_s", "write_gb_s")


def write_storage_systems(
    campus_id: int, data: dict, building_id: dict[str, int], progress: Callable[[str, int], None] | None
) -> None:
    rows = [
        StorageSystem(
            campus_id=campus_id,
            name=s["name"],
            building_id=building_id.get(s.get("building")),
            **{f: s[f] for f in FIELDS if f in s},
            **{f: date.fromisoformat(s[f]) if s.get(f) else None for f in PHASES},
        )
        for s in data.get("storage_systems", [])
    ]
    created = StorageSystem.objects.bulk_create(rows)
    if progress and rows:
        progress("storage_systems", len(created))


def export_storage_systems(campus_id: int, building_name: dict[int, str]) -> list[dict]:
    out = []
    defaults = {f: StorageSystem._meta.get_field(f).default for f in FIELDS}
    for row in StorageSystem.objects.filter(campus_id=campus_id).order_by("name").values():
        item = {"name": row["name"]}
        if row["building_id"] is not None:
            item["building"] = building_name[row["building_id"]]
        for f in FIELDS:
            if f in REQUIRED or row[f] != defaults[f]:
                item[f] = row[f]
        for f in PHASES:
            if row[f] is not None:
                item[f] = row[f].isoformat()
        out.append(item)
    return out
