"""Every watt of IT power is heat on a cooling unit or reported unassigned; liquid racks leave some in the air."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from campus import catalog_data as cat
from campus.analysis.catalog import catalog_specs
from campus.analysis.cooling import cooling_balance, mechanical_loads_kw
from campus.analysis.heat import NO_AIR_UNIT, NO_AIR_UNIT_NETWORK, heat_map
from campus.analysis.summary import campus_summary
from campus.interchange.generate import GeneratorError, generate_spec
from tests.analysis.builders import (
    CoolingPlantSnap,
    CoolingUnitSnap,
    HallSnap,
    SwitchSnap,
    campus,
    rack,
)
from tests.analysis.spec_snapshot import spec_snapshot


def _gb200_hall(with_crah: bool = True, other_it_fraction: float = 0.1, extra_units=(), **kw):
    specs = catalog_specs()
    units = [CoolingUnitSnap(1, "CDU-1", "cdu", 2000.0, 25.0, 45.0, 3000.0, 1, None, 1, group="cdu")]
    if with_crah:
        units.append(CoolingUnitSnap(2, "CRAH-1", "crah", 350.0, 25.0, 45.0, 0.0, 1, None, 1, group="crah"))
    units.extend(extra_units)
    return campus(
        gpus=specs["gpus"],
        node_models=specs["node_models"],
        other_it_fraction=other_it_fraction,
        racks=(rack(1, 18, node="gb200-nvl72-tray", cooling_unit_id=1),),
        cooling_units=tuple(units),
        cooling_plants=(CoolingPlantSnap(1, "CH-1", "chiller", 1000.0, 5.0, 1, None),),
        **kw,
    )


def test_gb200_nvl72_rack_heat_splits_between_cdu_and_crah_by_hand():
    # Catalog: a GB200 NVL72 compute tray = 4 x 1,200 W + 2,530 W overhead = 7,330 W; 18 trays = 131.94 kW.
    # Cold plates take 85% -> 112.149 kW to the CDU; 15% -> 19.791 kW to the hall's CRAH.
    # Other IT at 10% of IT: IT = 131.94 / 0.9 = 146.6 kW, so 14.66 kW more to the CRAH -> 34.451 kW.
    # Mechanical: CDU pumps 2% x 112.149 = 2.24298 kW; CRAH fans 4% x 34.451 = 1.37804 kW;
    # the chiller rejects the IT heat and the pumps' and fans' own: 146.6 + 2.24298 + 1.37804 = 150.22102 kW,
    # at COP 5 = 30.044204 kW.
    c = cooling_balance(_gb200_hall())
    cdu, crah = c.units
    assert cdu.heat_kw == pytest.approx(112.149)
    assert crah.heat_kw == pytest.approx(34.451)
    assert c.heat_load_kw == pytest.approx(146.6)
    assert c.liquid_heat_kw == pytest.approx(112.149)
    assert c.unassigned_heat_kw == 0.0
    assert c.plants[0].heat_kw == pytest.approx(150.22102)
    assert mechanical_loads_kw(_gb200_hall()) == pytest.approx(
        {("unit", 1): 2.24298, ("unit", 2): 1.37804, ("plant", 1): 30.044204}
    )


def test_air_share_of_a_liquid_rack_is_unassigned_in_a_hall_without_air_units():
    c = cooling_balance(_gb200_hall(with_crah=False, other_it_fraction=0.0))
    assert c.units[0].heat_kw == pytest.approx(112.149)
    assert c.unassigned_heat_kw == pytest.approx(19.791)
    assert c.unassigned_by_reason_kw == pytest.approx({NO_AIR_UNIT: 19.791})
    assert c.heat_load_kw == pytest.approx(131.94)


def test_switch_heat_goes_to_the_air_units_of_its_own_hall():
    # One QM9700 group of 2 with no links draws the copper figure: 2 x 747 W = 1.494 kW, in hall 2,
    # whose only air unit is CRAH 3; hall 1's CRAH gets none of it. Hall 3 has no air unit.
    snap = _gb200_hall(
        other_it_fraction=0.0,
        halls=(
            HallSnap(1, 1, "H1", 50.0, 50.0),
            HallSnap(2, 1, "H2", 50.0, 50.0),
            HallSnap(3, 1, "H3", 9, 9),
        ),
        switches=(
            SwitchSnap(1, "SPINE", None, "spine", "qm9700", 2, 2, None),
            SwitchSnap(2, "CORE", None, "core", "qm9700", 1, 3, None),
        ),
        extra_units=(
            CoolingUnitSnap(3, "CRAH-2", "crah", 350.0, 25.0, 45.0, 0.0, 1, None, 2, group="crah2"),
        ),
    )
    heat = heat_map(snap)
    assert heat.unit_air_kw[3] == pytest.approx(1.494)
    assert heat.unit_air_kw[2] == pytest.approx(19.791)
    assert heat.unassigned_kw == pytest.approx({NO_AIR_UNIT_NETWORK: 0.747})
    assert heat.network_kw == pytest.approx(2.241)


# every (GPU, NIC kind) pair the catalog has a server for
SERVERS = sorted({(r["gpu"], r["nic_kind"]) for r in cat.NODE_MODELS})


@settings(max_examples=15, deadline=None)
@given(
    # whole 8-GPU servers and whole 72-GPU NVL72 racks: 72 to 2,880 GPUs
    gpus=st.integers(min_value=1, max_value=40).map(lambda n: 72 * n),
    server=st.sampled_from(SERVERS),
    cooling=st.sampled_from(["liquid", "air"]),
    fabric=st.sampled_from(["infiniband-ndr", "spectrum-x", "tomahawk5"]),
    topology=st.sampled_from(["rail-optimized", "middle-of-rack"]),
)
def test_heat_on_every_generated_campus_equals_it_power(gpus, server, cooling, fabric, topology):
    gpu_model, nic = server
    try:
        spec = generate_spec(
            "p", gpus=gpus, gpu_model=gpu_model, cooling=cooling, fabric=fabric, topology=topology, nic=nic
        )
    except GeneratorError:
        assume(False)
    snap = spec_snapshot(spec)
    summary = campus_summary(snap, include_redundancy=False)
    heat = summary["cooling"]["heat_load_mw"]
    assert heat == pytest.approx(summary["power"]["it_mw"], rel=0.01)
    bal = cooling_balance(snap)
    assigned = sum(u.heat_kw for u in bal.units)
    assert assigned + bal.unassigned_heat_kw == pytest.approx(bal.heat_load_kw, rel=1e-9, abs=1e-9)
    assert sum(bal.unassigned_by_reason_kw.values()) == pytest.approx(bal.unassigned_heat_kw, abs=1e-9)


def test_gpu_power_fraction_scales_the_heat_by_hand():
    # GB200 NVL72 at 60% GPU draw: a tray = 4 x 1,200 W x 0.6 + 2,530 W = 5,410 W; 18 trays = 97.38 kW.
    # Cold plates 85% -> 82.773 kW to the CDU; 15% -> 14.607 kW to the CRAH. Other IT is 10% of IT at full
    # GPU power and held (storage and CPU nodes do not idle with the GPUs): trays at TDP 4 x 1,200 + 2,530 =
    # 7,330 W, 18 = 131.94 kW, other IT = 131.94 / 0.9 − 131.94 = 14.66 kW more to the CRAH -> 29.267 kW;
    # IT = 97.38 + 14.66 = 112.04 kW.
    c = cooling_balance(_gb200_hall(), gpu_power_fraction=0.6)
    cdu, crah = c.units
    assert cdu.heat_kw == pytest.approx(82.773)
    assert crah.heat_kw == pytest.approx(29.267)
    assert c.heat_load_kw == pytest.approx(112.04)


@pytest.mark.parametrize("cooling", ["liquid", "air"])
def test_summary_heat_follows_gpu_power_fraction(cooling):
    # The summary's IT power at 60% GPU draw (energy.it_breakdown) is the heat the cooling balance places.
    snap = spec_snapshot(generate_spec("p", gpus=1024, cooling=cooling, fabric="spectrum-x"))
    summary = campus_summary(snap, include_redundancy=False, gpu_power_fraction=0.6)
    full = campus_summary(snap, include_redundancy=False)
    # only the GPUs draw less: 1,024 x 700 W x (1 − 0.6) = 0.28672 MW off the full-load IT
    assert summary["power"]["it_mw"] == pytest.approx(full["power"]["it_mw"] - 0.28672, rel=1e-9)
    assert summary["power"]["other_it_mw"] == pytest.approx(full["power"]["other_it_mw"], rel=1e-9)
    assert summary["cooling"]["heat_load_mw"] == pytest.approx(summary["power"]["it_mw"], rel=1e-6)
