"""The campus grid connection bounds the failover headroom and placement (worked by hand).

The campus: ``test_placement.two_halls()``, two halls of two 10 kW toy racks (40 kW of rack IT, no network
and no other IT, so the racks' feeds carry exactly their IT), the typed PUE 1.2 (the peak hour's too).
Without a grid limit the chain alone binds:

* H1: PDUs rated 40 kW, limit 32; one PDU carries the hall's 20 kW when the other side is lost: 12 kW;
* H2: PDUs rated 50 kW, limit 40: 20 kW;
* the building and the campus place added load over the halls by today's load (½ each): H1's PDU binds
  at 12 / ½ = 24 kW.

With a 66 kW grid connection the racks' feeds may carry 66 / 1.2 = 55 kW at the peak hour; they carry
40 today, so the grid takes 15 kW more of rack IT anywhere on the campus: H2 (20), the building and the
campus (24) are bound to 15 by the grid, H1 (12) keeps its PDU.
"""

from __future__ import annotations

import pytest

from campus.analysis.cards import building_cards
from campus.analysis.headroom import failover_headroom
from campus.analysis.placement import PlacementRequest, place
from campus.analysis.stranded import stranded_capacity
from campus.analysis.summary import campus_summary
from tests.analysis.test_placement import two_halls


def test_the_grid_bounds_every_scope_it_is_tighter_than_the_chain_for():
    free = failover_headroom(two_halls())
    assert free.grid is not None and free.grid.it_headroom_kw == pytest.approx(10_000 / 1.2 - 40)
    assert free.halls[1].headroom_kw == pytest.approx(12.0)
    assert free.halls[2].headroom_kw == pytest.approx(20.0)
    assert free.campus.headroom_kw == pytest.approx(24.0)

    h = failover_headroom(two_halls(grid_capacity_kw=66.0))
    assert (h.halls[1].headroom_kw, h.halls[1].binding_kind) == (pytest.approx(12.0), "pdu")
    for row in (h.halls[2], h.buildings[1], h.campus):
        assert row.headroom_kw == pytest.approx(15.0)
        assert row.binding_dict() == {
            "kind": "grid",
            "id": 1,
            "name": "grid connection",
            "failure": {"kind": "none", "id": None, "name": "no failure"},
        }
    # the chain's own figure is kept for stranded capacity, which counts the grid apart
    assert h.campus.chain_headroom_kw == pytest.approx(24.0)
    # the grid at the grid: 66 kW against 40 x 1.2 = 48
    assert h.grid.as_dict() == {
        "capacity_kw": 66.0,
        "facility_kw": pytest.approx(48.0),
        "peak_pue": 1.2,
        "headroom_kw": pytest.approx(18.0),
        "it_headroom_kw": pytest.approx(15.0),
    }


def test_an_exhausted_grid_gives_negative_headroom_everywhere_and_stranded_agrees():
    # 45 kW: the feeds may carry 37.5 at the peak hour, 2.5 kW less than today's 40
    snap = two_halls(grid_capacity_kw=45.0)
    h = failover_headroom(snap)
    for row in (*h.halls.values(), h.campus):
        assert row.headroom_kw == pytest.approx(-2.5)
        assert row.binding_kind == "grid"
    stranded = stranded_capacity(snap)
    # power in use is not stranded: usable is today's 40 kW (the headroom's -2.5 is the overload), and the
    # grid strands all above it: the halls' 65 kW after cooling (each hall's PDUs bind that hall alone, so
    # the building's chain adds no cap: both halls at their own headroom at once fit), 65 - 40 = 25
    # (the binding is design: the racks' 1e9 kW feeds strand the most)
    assert stranded.campus.usable_kw == pytest.approx(40.0)
    assert stranded.campus.stranded_by_constraint_kw["grid"] == pytest.approx(25.0)


def test_summary_and_building_cards_give_the_grid_bound_figure():
    snap = two_halls(grid_capacity_kw=66.0)
    power = campus_summary(snap)["power"]
    assert power["headroom_after_failover_mw"] == pytest.approx(0.015)
    assert power["headroom_binding"]["kind"] == "grid"
    # the same grid at the grid: 66 - 40 x 1.2 = 18 kW = 15 kW of IT x 1.2
    assert power["grid_headroom_mw"] == pytest.approx(0.018)
    (card,) = building_cards(snap, pue=1.2)
    assert card["headroom_mw"] == pytest.approx(0.015)
    stranded = stranded_capacity(snap)
    assert stranded.campus.usable_kw == pytest.approx(55.0)
    # H1 25 kW after its cooling, H2 40: 65 (the building's chain adds no cap, each hall's PDUs bind that
    # hall alone); the grid 65 - 55 = 10 kW
    assert stranded.campus.stranded_by_constraint_kw["grid"] == pytest.approx(10.0)


def test_placement_names_the_grid_when_it_binds_and_refuses_when_it_is_exhausted():
    # one rack of 10 kW in H2 (H1's cooling cannot take it): the PDU keeps 10 kW after a side is lost;
    # the grid: 55 - 50 = 5 kW of feeds at the peak hour, 5 x 1.2 = 6 kW at the grid. The option's
    # power_kw is rack IT (a rack's feeds carry its IT alone here, other_it_fraction 0): 5 kW; the 6 kW at
    # the grid is the element's own figure
    res = place(two_halls(grid_capacity_kw=66.0), PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert res["feasible"] is True
    after = res["options"][0]["headroom_after"]
    assert (after["power_kw"], after["power_level"]) == (pytest.approx(5.0), "grid")
    assert after["power_element_headroom_kw"] == pytest.approx(6.0)
    assert res["binding_constraint"] == "grid"
    # 54 kW: the feeds may carry 45, the new rack would make 50: 5 x 1.2 = 6 kW beyond the connection
    res = place(two_halls(grid_capacity_kw=54.0), PlacementRequest("toy8", 1, nodes_per_rack=10))
    assert res["feasible"] is False and res["options"] == []
    assert res["binding_constraint"] == "grid"
    assert res["binding"]["hall"] == "H2"
    assert "6.0 kW beyond" in res["binding"]["detail"]
