"""The cooling spare is the whole chain's: the units' pools and the plant loops behind them
(docs/model.md §3, "Usable capacity").

An air hall: four 350 kW CRAHs, ungrouped (the hall's air units, one pool), on two 1,000 kW chillers of
building 1 (one loop), cooling declared N+1. Racks of toy 1 kW servers, air-cooled on CRAH 1.
"""

from __future__ import annotations

import pytest

from campus.analysis.cooling import cooling_balance
from campus.analysis.summary import campus_summary
from tests.analysis.builders import CoolingPlantSnap, CoolingUnitSnap, campus, rack


def _air_hall(racks_kw: tuple[int, ...]):
    units = tuple(
        CoolingUnitSnap(u, f"CRAH-{u}", "crah", 350.0, 24.0, 40.0, 0.0, 1 + u % 2, None, 1)
        for u in (1, 2, 3, 4)
    )
    plants = tuple(CoolingPlantSnap(p, f"CH{p}", "chiller", 1000.0, 5.0, 1, None) for p in (1, 2))
    racks = tuple(rack(i + 1, n, cooling_unit_id=1, cooling_type="air") for i, n in enumerate(racks_kw))
    return campus(racks=racks, cooling_units=units, cooling_plants=plants, cooling_redundancy="N+1")


def test_spare_is_capped_by_the_plant():
    # 10 racks x 70 kW = 700 kW of heat on the CRAHs. Units, N+1: 3 x 350 = 1,050 kW usable, 350 kW spare.
    # Plants, N+1: one 1,000 kW chiller; their heat is the units' 700 kW plus the CRAH fans' 4 % (catalog
    # crah_fan_kw_per_kw_heat 0.04): 728 kW, 272 kW spare at the plant = 272 / 1.04 = 261.54 kW of IT heat.
    # The chain's spare is the smaller: 261.54 kW (the units alone said 350 kW).
    c = cooling_balance(_air_hall((70,) * 10))
    assert c.heat_load_kw == pytest.approx(700.0)
    assert c.unit_spare_kw == pytest.approx(350.0)
    assert c.plant_spare_kw == pytest.approx(272.0 / 1.04)
    assert c.spare_kw == pytest.approx(261.538, abs=1e-3)
    s = campus_summary(_air_hall((70,) * 10), include_redundancy=False)["cooling"]
    assert s["spare_mw"] == pytest.approx(0.261538, abs=1e-6)
    assert s["unit_spare_mw"] == pytest.approx(0.350)


def test_no_spare_while_the_plant_is_short():
    # 14 racks x 70 kW = 980 kW: the units keep 1,050 - 980 = 70 kW spare, but the plant carries
    # 980 x 1.04 = 1,019.2 kW on 1,000 kW usable (N+1): short, so the chain has no spare
    c = cooling_balance(_air_hall((70,) * 14))
    assert c.unit_spare_kw == pytest.approx(70.0)
    assert c.plant_spare_kw == 0.0
    assert c.spare_kw == 0.0
