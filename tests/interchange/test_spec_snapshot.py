"""The database-free spec snapshot of the property tests agrees with the importer's snapshot."""

import copy

import pytest

from campus.analysis.cooling import cooling_balance
from campus.analysis.energy import it_breakdown
from campus.analysis.power import rollup
from campus.analysis.redundancy import redundancy_check
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.interchange.spec_snapshot import spec_snapshot
from campus.snapshot_adapter import build_snapshot


@pytest.mark.django_db
@pytest.mark.parametrize("cooling", ["liquid", "air"])
def test_spec_snapshot_gives_the_imported_campus_heat_and_it_power(cooling):
    spec = generate_spec(
        f"Spec snapshot {cooling}",
        mix=[{"gpu_model": "h100-sxm", "gpus": 512}, {"gpu_model": "mi300x", "gpus": 256}],
        cooling=cooling,
        hall_max_it_mw=0.5,
    )
    pure = spec_snapshot(copy.deepcopy(spec))
    db = build_snapshot(import_campus(spec))
    assert it_breakdown(pure).it_kw == pytest.approx(it_breakdown(db).it_kw)
    a, b = cooling_balance(pure), cooling_balance(db)
    assert (a.heat_load_kw, a.unassigned_heat_kw) == pytest.approx((b.heat_load_kw, b.unassigned_heat_kw))
    assert {u.name: u.heat_kw for u in a.units} == pytest.approx({u.name: u.heat_kw for u in b.units})
    assert {p.name: p.heat_kw for p in a.plants} == pytest.approx({p.name: p.heat_kw for p in b.plants})


def _by_name(snap, result) -> dict:
    devices = {d.id: d.name for d in snap.power_devices}
    bal = cooling_balance(snap)
    return {
        "devices": {devices[d]: round(kw, 6) for d, kw in result.device_load_kw.items()},
        "units": {u.name: round(u.heat_kw, 6) for u in bal.units},
        "plants": {p.name: round(p.heat_kw, 6) for p in bal.plants},
        "unit_supplies": sorted(
            (u.name, tuple(devices[s] for s in u.supply_ids)) for u in snap.cooling_units
        ),
        "plant_supplies": sorted(
            (p.name, tuple(devices[s] for s in p.supply_ids)) for p in snap.cooling_plants
        ),
        "it_kw": round(it_breakdown(snap).it_kw, 6),
        "racks": sorted((r.name, r.cooling_type, r.nodes, r.design_kw) for r in snap.racks),
        "single_points": [f.device_name for f in redundancy_check(snap)],
    }


@pytest.mark.django_db
def test_spec_snapshot_matches_the_database_path():
    spec = generate_spec(
        "Both ways",
        mix=[{"gpu_model": "h100-sxm", "gpus": 1024}, {"gpu_model": "gb200", "gpus": 144}],
        topology="middle-of-rack",
        pod_max_gpus=512,
    )
    memory = spec_snapshot(spec)
    database = build_snapshot(import_campus(spec))
    assert _by_name(memory, rollup(memory)) == _by_name(database, rollup(database))
    assert (memory.grid_capacity_kw, memory.design_pue, memory.other_it_fraction) == (
        database.grid_capacity_kw,
        database.design_pue,
        database.other_it_fraction,
    )
