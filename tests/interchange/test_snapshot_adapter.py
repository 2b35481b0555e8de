"""The table-driven snapshot adapter: every snapshot field is mapped, units convert, queries stay few."""

from __future__ import annotations

import dataclasses

import pytest

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.snapshot_adapter import TABLES, build_snapshot
from tests import factories as f


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.target.__name__)
def test_every_dataclass_field_has_exactly_one_rule(table):
    assert set(table.fields) == {fld.name for fld in dataclasses.fields(table.target)}


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.target.__name__)
def test_every_column_a_rule_reads_exists_on_the_model(table):
    for column in table.columns():
        model = table.model
        *path, last = column.split("__")
        for hop in path:
            model = model._meta.get_field(hop).related_model
        # a foreign key is read by its attribute name ("hall_id") or followed ("gpu_model__slug")
        names = {fld.name for fld in model._meta.concrete_fields} | {
            fld.attname for fld in model._meta.concrete_fields
        }
        assert last in names, f"{table.target.__name__}: {column} is not a column of {model.__name__}"


@pytest.mark.django_db
def test_megawatt_columns_arrive_in_kilowatts():
    campus = f.CampusFactory(grid_capacity_mw=12.5)
    f.UtilityFeedFactory(campus=campus, capacity_mw=3.2)
    snap = build_snapshot(campus.pk)
    assert snap.grid_capacity_kw == pytest.approx(12_500.0)
    assert [u.capacity_kw for u in snap.utility_feeds] == [pytest.approx(3_200.0)]


@pytest.mark.django_db
def test_storage_megawatts_and_megawatt_hours_arrive_in_kilowatts_and_kilowatt_hours():
    campus = f.CampusFactory()
    f.EnergyStorageFactory(campus=campus, power_mw=5.0, energy_mwh=10.0, round_trip_efficiency=0.9)
    (store,) = build_snapshot(campus.pk).energy_storage
    assert (store.power_kw, store.energy_kwh, store.round_trip_efficiency) == pytest.approx(
        (5_000.0, 10_000.0, 0.9)
    )


@pytest.mark.django_db
def test_a_campus_is_read_in_the_same_few_queries_whatever_its_size(django_assert_num_queries):
    # the campus row, five catalog tables, thirteen campus tables (catalog slugs joined in; the storage
    # systems the thirteenth), one count of active servers per rack and model and the campus's uploaded
    # weather year
    small = f.DataHallFactory().building.campus
    with django_assert_num_queries(21):
        build_snapshot(small.pk)
    big = import_campus(
        generate_spec("Big", mix=[{"gpu_model": "h100-sxm", "gpus": 1024}], pod_max_gpus=1024)
    )
    with django_assert_num_queries(21):
        snap = build_snapshot(big.pk)
    assert sum(n for r in snap.racks for _, n in r.nodes) * 8 == 1024
