"""The database-free spec snapshot of the property tests agrees with the importer's snapshot."""

import copy

import pytest

from campus.analysis.cooling import cooling_balance
from campus.analysis.energy import it_breakdown
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.snapshot_adapter import build_snapshot
from tests.analysis.spec_snapshot import spec_snapshot


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
