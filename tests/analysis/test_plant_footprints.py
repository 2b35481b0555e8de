"""The plant drawn on the floor map is drawn to scale: a hall's standby generators take less floor than the hall
they back up, the lines they are laid out on included, at the sizes the generator lays out.

Truth: the generator set's footprint from its data sheet (KOHLER SDMO KD3300-E, 2,640 kWe data-centre rating,
compact version 5,319 x 1,960 mm) and the halls' sizes in the spec; the layout is read from the pure core
(campus.analysis.plant_layout) on the generated spec without the database.
"""

from __future__ import annotations

import pytest

from campus.analysis.plant_layout import POWER_FOOTPRINT_M, plant_layout
from campus.analysis.power import power_graph
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot


def test_generator_footprint_is_the_data_sheet_set():
    width, depth = POWER_FOOTPRINT_M["generator"]
    assert (round(width, 1), round(depth, 1)) == (5.3, 2.0)


@pytest.mark.parametrize(
    "spec",
    [
        dict(gpus=4096, gpu_model="h100-sxm", pod_max_gpus=2048, building_max_it_mw=6.0, hall_max_it_mw=3.0),
        dict(gpus=8192, gpu_model="gb200"),
    ],
)
def test_a_halls_generators_take_less_floor_than_the_hall(spec):
    snap = spec_snapshot(generate_spec("Footprints", **spec))
    geometry = {h.id: {"x_m": 0.0, "y_m": 0.0} for h in snap.halls}
    plant = plant_layout(snap, power_graph(snap), geometry)["plant"]
    halls = {h.id: h for h in snap.halls}
    boxes: dict[int, list[float]] = {}  # hall id -> x0, y0, x1, y1 of its generators as laid out
    for item in plant:
        if item["kind"] == "generator" and item["hall_id"] in halls:
            x0, y0 = item["x_m"], item["y_m"]
            x1, y1 = x0 + item["width_m"], y0 + item["depth_m"]
            box = boxes.setdefault(item["hall_id"], [x0, y0, x1, y1])
            box[:] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
    assert boxes, "the generated campus has per-hall generators"
    for hall_id, (x0, y0, x1, y1) in boxes.items():
        hall = halls[hall_id]
        # the floor the generator lines take on the map, gaps included, against the hall's floor
        assert (x1 - x0) * (y1 - y0) < hall.width_m * hall.length_m, (hall.name, x1 - x0, y1 - y0)


def test_cooling_units_laid_out_stand_inside_their_hall():
    """A 1M-GPU-class hall of GB200 racks has more CRAHs than fit one line along its far wall: the lines wrap."""
    snap = spec_snapshot(generate_spec("Units", gpus=8192, gpu_model="gb200"))
    geometry = {h.id: {"x_m": 0.0, "y_m": 0.0} for h in snap.halls}
    halls = {h.id: h for h in snap.halls}
    units = [p for p in plant_layout(snap, power_graph(snap), geometry)["plant"] if p["type"] == "cooling"]
    assert units
    for u in units:
        hall = halls[u["hall_id"]]
        assert u["x_m"] >= 0 and u["x_m"] + u["width_m"] <= hall.width_m, u
        assert u["y_m"] >= 0 and u["y_m"] + u["depth_m"] <= hall.length_m, u
    boxes = [
        (u["x_m"], u["y_m"], u["x_m"] + u["width_m"], u["y_m"] + u["depth_m"], u["hall_id"]) for u in units
    ]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if a[4] == b[4]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
