"""Grouping a bill of materials by building, hall or pod only splits its lines (docs/capex.md).

Property: for any placement of the items, some of them in no building, hall or pod at all, the grouped lines
add back to the ungrouped ones line by line, and the totals by category and the counts by kind are the
ungrouped ones. The campus is the hand-priced one of test_capex_bom with its items moved around at random.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.bom import COUNTED_KINDS, campus_bom
from campus.analysis.snapshot import BuildingSnap, HallSnap, PodSnap
from tests.analysis.test_capex_bom import small_campus

maybe = st.sampled_from([None, 1, 2])


@settings(max_examples=60, deadline=None)
@given(
    device_places=st.lists(st.tuples(maybe, maybe), min_size=3, max_size=3),
    rack_places=st.lists(st.tuples(st.sampled_from([1, 2]), maybe), min_size=2, max_size=2),
    switch_places=st.lists(st.tuples(maybe, maybe), min_size=2, max_size=2),
    unit_hall=maybe,
    plant_building=maybe,
    cooling=st.lists(st.sampled_from(["air", "direct-to-chip", "rear-door"]), min_size=2, max_size=2),
)
def test_grouped_lines_add_back_to_the_ungrouped_ones(
    device_places, rack_places, switch_places, unit_hall, plant_building, cooling
):
    base = small_campus()
    halls = (*base.halls, HallSnap(2, 2, "H2", 18.0, 28.0))
    hall_building = {h.id: h.building_id for h in halls}
    snap = replace(
        base,
        buildings=(*base.buildings, BuildingSnap(2, "B2", 40.0, 0.0, 20.0, 30.0)),
        halls=halls,
        pods=(*base.pods, PodSnap(2, "POD2", "infiniband-ndr", "rail-optimized", 1.0, "qm9700", 2)),
        power_devices=tuple(
            replace(d, building_id=b, hall_id=h)
            for d, (b, h) in zip(base.power_devices, device_places, strict=True)
        ),
        racks=tuple(
            replace(r, hall_id=h, building_id=hall_building[h], pod_id=p, cooling_type=c)
            for r, (h, p), c in zip(base.racks, rack_places, cooling, strict=True)
        ),
        switches=tuple(
            replace(s, hall_id=h, pod_id=p) for s, (h, p) in zip(base.switches, switch_places, strict=True)
        ),
        cooling_units=tuple(replace(u, hall_id=unit_hall) for u in base.cooling_units),
        cooling_plants=tuple(replace(p, building_id=plant_building) for p in base.cooling_plants),
    )
    whole = campus_bom(snap)
    joined = _by_line(whole)
    for group in ("building", "hall", "pod"):
        split = campus_bom(snap, group)
        assert {g[0] for x in split.lines if (g := x.group) is not None} <= {group}
        lines = _by_line(split)
        assert lines.keys() == joined.keys()
        for key, (count, usd) in joined.items():
            assert lines[key][0] == pytest.approx(count) and lines[key][1] == pytest.approx(usd), (group, key)
        assert split.capex_usd() == pytest.approx(whole.capex_usd())
        assert {k: split.count(k) for k in COUNTED_KINDS} == {k: whole.count(k) for k in COUNTED_KINDS}


def _by_line(bom) -> dict[tuple[str, str, str], tuple[float, float]]:
    out: dict[tuple[str, str, str], tuple[float, float]] = {}
    for x in bom.lines:
        count, usd = out.get((x.kind, x.item, x.detail), (0.0, 0.0))
        out[(x.kind, x.item, x.detail)] = (count + x.count, usd + x.total_usd)
    return out
