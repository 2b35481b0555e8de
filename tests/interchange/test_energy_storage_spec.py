"""Battery energy storage and on-site generation in the campus spec: the generator option, import, export,
the snapshot both ways, and the errors naming the path."""

import copy

import pytest

from campus.interchange.exporter import export_campus
from campus.interchange.generate import generate_spec
from campus.interchange.importer import SpecError, import_campus
from campus.interchange.spec_snapshot import spec_snapshot
from campus.models import EnergyStorage, PowerDevice
from campus.snapshot_adapter import build_snapshot


def _small(**extra):
    return generate_spec("Storage", gpus=256, hall_max_it_mw=0.5, **extra)


def test_the_generator_puts_half_the_storage_on_each_substation_bus_for_bess_hours():
    spec = _small(bess_mw_per_building=20.0, bess_hours=4.0)
    buildings = {b["name"] for b in spec["buildings"]}
    stores = spec["energy_storage"]
    assert len(stores) == 2 * len(buildings)
    devices = {d["name"]: d for d in spec["power_devices"]}
    for store in stores:
        assert store["power_mw"] == 10.0 and store["energy_mwh"] == 40.0
        assert devices[store["power_device"]]["kind"] == "substation"
        assert devices[store["power_device"]]["building"] == store["building"]
    assert "energy_storage" not in _small()


@pytest.mark.parametrize(("name", "value"), [("bess_mw_per_building", -1.0), ("bess_hours", 0.0)])
def test_bad_generator_storage_options_name_the_parameter(name, value):
    from campus.interchange.generate import GeneratorError

    with pytest.raises(GeneratorError) as err:
        _small(**{name: value})
    assert err.value.field == name


def _with_prime(spec):
    gen = next(d for d in spec["power_devices"] if d["kind"] == "generator")
    gen.update(prime_rating_kw=0.9 * gen["rated_kw"], ramp_kw_per_s=25.0, fuel_usd_per_mwh=40.0)
    return gen["name"]


@pytest.mark.django_db
def test_storage_and_prime_generation_round_trip_and_reach_both_snapshots():
    spec = _small(bess_mw_per_building=8.0)
    prime = _with_prime(spec)
    pure = spec_snapshot(copy.deepcopy(spec))
    campus = import_campus(copy.deepcopy(spec))
    assert EnergyStorage.objects.filter(campus=campus).count() == len(spec["energy_storage"])
    exported = export_campus(campus)
    assert sorted(exported["energy_storage"], key=lambda s: s["name"]) == sorted(
        (
            {k: v for k, v in s.items() if k not in ("round_trip_efficiency", "response_ms")}
            for s in spec["energy_storage"]
        ),
        key=lambda s: s["name"],
    )
    device = PowerDevice.objects.get(campus=campus, name=prime)
    assert (device.ramp_kw_per_s, device.fuel_usd_per_mwh) == (25.0, 40.0)
    db = build_snapshot(campus)

    def picture(snap):
        devices = {d.id: d.name for d in snap.power_devices}
        return (
            sorted(
                (s.name, s.power_kw, s.energy_kwh, s.round_trip_efficiency, devices[s.power_device_id])
                for s in snap.energy_storage
            ),
            sorted(
                (d.name, d.prime_rating_kw, d.ramp_kw_per_s, d.fuel_usd_per_mwh)
                for d in snap.power_devices
                if d.kind == "generator"
            ),
        )

    assert picture(pure) == picture(db)
    # export → import → export is stable
    again = import_campus(exported, replace=True)
    assert export_campus(again) == exported


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda s: s["energy_storage"][0].update(power_device="NOPE"), "energy_storage[0].power_device"),
        (
            lambda s: s["energy_storage"][0].update(round_trip_efficiency=0),
            "energy_storage[0].round_trip_efficiency",
        ),
        (
            lambda s: s["energy_storage"][0].update(round_trip_efficiency=1.1),
            "energy_storage[0].round_trip_efficiency",
        ),
        (lambda s: s["energy_storage"][0].update(energy_mwh=0), "energy_storage[0].energy_mwh"),
        (lambda s: s["energy_storage"][0].update(building="NOPE"), "energy_storage[0].building"),
        (lambda s: s["energy_storage"][0].update(voltage_kv=1), "energy_storage[0].voltage_kv"),
        (lambda s: s["energy_storage"].append(dict(s["energy_storage"][0])), "energy_storage[2].name"),
    ],
)
def test_a_bad_battery_in_a_spec_is_refused_naming_its_path(edit, path):
    spec = generate_spec("Bad storage", gpus=64, hall_max_it_mw=0.5, bess_mw_per_building=4.0)
    edit(spec)
    with pytest.raises(SpecError) as err:
        import_campus(spec)
    assert path in {e["path"] for e in err.value.errors}, err.value.errors
    assert not EnergyStorage.objects.exists()


@pytest.mark.django_db
def test_a_battery_on_another_buildings_device_and_prime_fields_on_a_ups_are_refused():
    spec = generate_spec("Bad places", gpus=64, hall_max_it_mw=0.5, bess_mw_per_building=4.0)
    spec["buildings"].append({"name": "Elsewhere"})
    spec["energy_storage"][0]["building"] = "Elsewhere"
    ups = next(i for i, d in enumerate(spec["power_devices"]) if d["kind"] == "ups")
    spec["power_devices"][ups]["fuel_usd_per_mwh"] = 10.0
    gen = next(i for i, d in enumerate(spec["power_devices"]) if d["kind"] == "generator")
    spec["power_devices"][gen]["prime_rating_kw"] = spec["power_devices"][gen]["rated_kw"] * 2
    with pytest.raises(SpecError) as err:
        import_campus(spec)
    paths = {e["path"] for e in err.value.errors}
    assert {
        "energy_storage[0].power_device",
        f"power_devices[{ups}].fuel_usd_per_mwh",
        f"power_devices[{gen}].prime_rating_kw",
    } <= paths
