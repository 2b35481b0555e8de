"""The buildings add up to the campus: the building cards' IT and facility power, over all buildings, are
the summary's ``power.it_mw`` and ``power.facility_mw``, and each building's halls add up to the building.

Truth from outside the figure under test: the campus IT load is counted from the inventory (servers,
fabric, rack extras, other IT: ``it_breakdown``), the building cards from what each rack's feeds carry in
the power graph; a watt the chain carries on no building (or two) breaks the sum. Pure: generated specs as
in-memory snapshots, no database.
"""

from __future__ import annotations

import pytest

from campus.analysis.cards import rack_it_mw_by
from campus.analysis.summary import campus_summary
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot

DESIGNS = [
    {"gpus": 4096},
    {"gpus": 3000, "cooling": "air", "fabric": "tomahawk5"},
    {"gpus": 16384, "building_max_it_mw": 10.0, "hall_max_it_mw": 5.0, "pod_max_gpus": 4096},
    {
        "mix": [
            {"gpu_model": "h100-sxm", "gpus": 2048},
            {"gpu_model": "gb200", "gpus": 576},
            {"gpu_model": "mi300x", "gpus": 512},
        ]
    },
]


@pytest.mark.parametrize("params", DESIGNS, ids=["4k", "air", "several-buildings", "mix"])
def test_building_cards_add_up_to_the_campus(params):
    spec = generate_spec("G", **params)
    snap = spec_snapshot(spec)
    summary = campus_summary(snap)
    cards = summary["buildings"]
    assert cards, "a generated campus has buildings"
    power = summary["power"]
    assert sum(c["it_mw"] for c in cards) == pytest.approx(power["it_mw"], rel=1e-9)
    assert sum(c["facility_mw"] for c in cards) == pytest.approx(power["facility_mw"], rel=1e-9)
    assert sum(c["gpus"] for c in cards) == summary["inventory"]["gpus"]
    # the halls of each building add up to it
    halls = rack_it_mw_by(snap, "hall_id")
    building_of_hall = {h.id: h.building_id for h in snap.halls}
    per_building: dict[int, float] = {}
    for hid, mw in halls.items():
        per_building[building_of_hall[hid]] = per_building.get(building_of_hall[hid], 0.0) + mw
    for card in cards:
        assert per_building.get(card["id"], 0.0) == pytest.approx(card["it_mw"], rel=1e-9)


def test_a_big_design_spans_several_buildings():
    """The design above whose buildings are summed has more than one, each with more than one hall."""
    spec = generate_spec("G", gpus=16384, building_max_it_mw=10.0, hall_max_it_mw=5.0, pod_max_gpus=4096)
    assert len(spec["buildings"]) > 1
    assert all(len(b["halls"]) > 1 for b in spec["buildings"])
