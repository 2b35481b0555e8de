"""The generator's site plan: buildings never overlap, stand at least the gap apart, a few of them stand in one
row, and a campus of many is laid out in rows about as deep as the site is wide."""

from __future__ import annotations

import itertools

import pytest

from campus.interchange.generate import generate_spec
from campus.interchange.generator.common import BUILDING_GAP_M


def site(buildings_wanted: int) -> list[dict]:
    # one 256-GPU pod per building: at most 0.5 MW of IT each
    spec = generate_spec(
        "Site",
        gpus=256 * buildings_wanted,
        gpu_model="h100-sxm",
        pod_max_gpus=256,
        building_max_it_mw=0.5,
        hall_max_it_mw=0.5,
    )
    assert len(spec["buildings"]) == buildings_wanted
    return spec["buildings"]


def apart(a: dict, b: dict) -> bool:
    """At least the gap between the two footprints along x or along y."""
    return (
        a["x_m"] + a["width_m"] + BUILDING_GAP_M <= b["x_m"] + 1e-6
        or b["x_m"] + b["width_m"] + BUILDING_GAP_M <= a["x_m"] + 1e-6
        or a["y_m"] + a["length_m"] + BUILDING_GAP_M <= b["y_m"] + 1e-6
        or b["y_m"] + b["length_m"] + BUILDING_GAP_M <= a["y_m"] + 1e-6
    )


@pytest.mark.parametrize("count", [1, 2, 4, 5, 9, 21, 40])
def test_buildings_stand_apart(count):
    buildings = site(count)
    for a, b in itertools.combinations(buildings, 2):
        assert apart(a, b), (a["name"], b["name"])


@pytest.mark.parametrize("count", [2, 3, 4])
def test_a_few_buildings_stand_in_one_row(count):
    assert {b["y_m"] for b in site(count)} == {0.0}


@pytest.mark.parametrize("count", [9, 21, 40])
def test_many_buildings_make_a_site_about_as_deep_as_wide(count):
    buildings = site(count)
    width = max(b["x_m"] + b["width_m"] for b in buildings)
    depth = max(b["y_m"] + b["length_m"] for b in buildings)
    assert 0.4 <= depth / width <= 2.5, (width, depth)
    # a row's buildings are in name order, left to right
    rows: dict[float, list[dict]] = {}
    for b in buildings:
        rows.setdefault(b["y_m"], []).append(b)
    assert len(rows) > 1
    for row in rows.values():
        assert [b["x_m"] for b in row] == sorted(b["x_m"] for b in row)
