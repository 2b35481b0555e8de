"""Storage systems in the campus spec: import, export, round trip, and the errors naming the path."""

import copy

import pytest

from campus.interchange.exporter import export_campus
from campus.interchange.generate import generate_spec
from campus.interchange.importer import SpecError, import_campus
from campus.models import StorageSystem

# Meta's Tectonic for Llama 3 (arXiv 2407.21783, §3.3.1): 240 PB, 2 TB/s sustained
TECTONIC = {
    "name": "Tectonic",
    "kind": "object-store",
    "capacity_pb": 240.0,
    "read_gb_s": 2000.0,
    "write_gb_s": 2000.0,
}


def _spec(name="Storage", **system):
    spec = generate_spec(name, gpus=64, hall_max_it_mw=0.5)
    spec["storage_systems"] = [
        {**TECTONIC, "building": spec["buildings"][0]["name"], "racks": 12, **system},
        {
            "name": "Scratch",
            "capacity_pb": 5.0,
            "read_gb_s": 400.0,
            "write_gb_s": 300.0,
            "retire_date": "2030-01-01",
        },
    ]
    return spec


@pytest.mark.django_db
def test_storage_systems_round_trip():
    spec = _spec()
    campus = import_campus(copy.deepcopy(spec))
    row = StorageSystem.objects.get(campus=campus, name="Tectonic")
    assert (row.kind, row.capacity_pb, row.write_gb_s, row.racks) == ("object-store", 240.0, 2000.0, 12)
    assert row.building.name == spec["buildings"][0]["name"]
    exported = export_campus(campus)
    assert sorted(exported["storage_systems"], key=lambda s: s["name"]) == sorted(
        spec["storage_systems"], key=lambda s: s["name"]
    )
    again = import_campus(exported, replace=True)
    assert export_campus(again) == exported
    assert StorageSystem.objects.filter(campus=again).count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda s: s["storage_systems"][0].update(building="NOPE"), "storage_systems[0].building"),
        (lambda s: s["storage_systems"][0].update(write_gb_s=0), "storage_systems[0].write_gb_s"),
        (lambda s: s["storage_systems"][0].update(kind="tape"), "storage_systems[0].kind"),
        (lambda s: s["storage_systems"][0].update(iops=1), "storage_systems[0].iops"),
        (lambda s: s["storage_systems"].append(dict(s["storage_systems"][0])), "storage_systems[2].name"),
    ],
)
def test_a_bad_storage_system_is_refused_naming_its_path(edit, path):
    spec = _spec("Bad storage")
    edit(spec)
    with pytest.raises(SpecError) as err:
        import_campus(spec)
    assert path in {e["path"] for e in err.value.errors}, err.value.errors
    assert not StorageSystem.objects.exists()
