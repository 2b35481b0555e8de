"""The whole-campus floor map of a campus of many buildings in one long row (as a planner may import one; the
generator lays out more than four buildings in rows): after fit every building lies inside the drawn map and carries its name, at
the usual viewports and on a narrow canvas (the rack panel open on a small screen) where the row needs a zoom
below the map's usual zoom-out limit.

32 generated buildings of 256 GPUs each, put side by side in one row (3.3 km of buildings) before the import. Positions are read from the page's map model (``window.floorMap``).
"""

from __future__ import annotations

import pytest

from .conftest import PASSWORD, login, new_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

USER = "row-planner"
# One 256-GPU pod per building (at most 0.5 MW of IT each): 32 small buildings side by side.
BUILDINGS = 32
SPEC = dict(gpus=8192, gpu_model="h100-sxm", pod_max_gpus=256, building_max_it_mw=0.5, hall_max_it_mw=0.5)


def row_spec() -> dict:
    """The generated campus with its buildings moved into one row, 60 m apart."""
    from campus.interchange.generate import generate_spec

    spec = generate_spec("Row of buildings", **SPEC)
    x = 0.0
    for building in spec["buildings"]:
        building["x_m"], building["y_m"] = x, 0.0
        x += building["width_m"] + 60.0
    return spec


@pytest.fixture(scope="module")
def row_campus(django_db_setup, django_db_blocker):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from campus.interchange.importer import import_campus

    with django_db_blocker.unblock():
        call_command("sync_catalog", verbosity=0)
        campus = import_campus(row_spec())
        assert campus.buildings.count() == BUILDINGS
        assert campus.buildings.filter(y_m=0).count() == BUILDINGS
        user = get_user_model().objects.create_user(username=USER, password=PASSWORD)
        user.groups.add(Group.objects.get_or_create(name="planner")[0])
    yield campus.id
    with django_db_blocker.unblock():
        campus.delete()
        get_user_model().objects.filter(username=USER).delete()


def fitted_map(page) -> dict:
    return page.evaluate(
        """() => {
          const m = window.floorMap;
          m.fit();
          m.draw();
          return { canvas: m.canvasBox, outlines: m.outlines, labels: m.labels, scale: m.scale };
        }"""
    )


def check_every_building_drawn(view: dict, expected: int, all_named: bool) -> None:
    canvas = view["canvas"]
    buildings = [o for o in view["outlines"] if o["level"] == "building"]
    assert len(buildings) == expected
    for b in buildings:
        # The building's walls lie within the canvas (a pixel of rounding allowed).
        assert b["left"] >= canvas["left"] - 0.5, b
        assert b["top"] >= canvas["top"] - 0.5, b
        assert b["left"] + b["width"] <= canvas["right"] + 0.5, b
        assert b["top"] + b["height"] <= canvas["bottom"] + 0.5, b
        assert b["width"] > 0.5, b
    labels = [lab for lab in view["labels"] if lab["level"] == "building"]
    for lab in view["labels"]:
        # Every name written lies inside the canvas.
        assert lab["x"] >= canvas["left"] and lab["x"] + lab["w"] <= canvas["right"] + 0.5, lab
        assert lab["y"] >= canvas["top"] and lab["y"] + lab["h"] <= canvas["bottom"] + 0.5, lab
    # No two names written over each other.
    for i, a in enumerate(view["labels"]):
        for b in view["labels"][i + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"]
                or b["x"] + b["w"] <= a["x"]
                or a["y"] + a["h"] <= b["y"]
                or b["y"] + b["h"] <= a["y"]
            )
            assert apart, (a, b)
    named = {lab["id"] for lab in labels}
    if all_named:
        assert named == {b["id"] for b in buildings}
    else:
        # Where names cannot all fit, they are spread along the row: the first and the last building's among them.
        ordered = sorted(buildings, key=lambda o: (o["top"], o["left"]))
        assert ordered[0]["id"] in named
        assert len(named) >= 4


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_whole_campus_fits_and_names_every_building(chromium, live_url, row_campus, width, height):
    context, page, watch = new_page(chromium, live_url, width=width, height=height)
    login(page, USER)
    page.goto(f"/campuses/{row_campus}/map/")
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")
    view = fitted_map(page)
    check_every_building_drawn(view, BUILDINGS, all_named=width >= 1920)
    screenshot(page, f"map-row-of-buildings-{width}")
    # The view zooms out no further than the fit needs and back in; the fit button restores it.
    page.click("#zoom-in")
    page.click("#zoom-fit")
    check_every_building_drawn(fitted_map(page), BUILDINGS, all_named=width >= 1920)
    watch.check()
    context.close()


def test_narrow_canvas_still_shows_the_whole_row(chromium, live_url, row_campus):
    """A small screen with the rack panel open leaves 200 px of canvas: 3.3 km of buildings need a zoom below the
    map's usual zoom-out limit (0.05 px/m), and the fit takes it."""
    context, page, watch = new_page(chromium, live_url, width=780, height=700)
    login(page, USER)
    page.goto(f"/campuses/{row_campus}/map/")
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")
    racks = page.evaluate("window.floorMap.racks.slice(0, 1).map((r) => r.id)")
    page.evaluate("(id) => window.floorMap.openRack(id)", racks[0])
    page.wait_for_selector("#rack-panel:not([hidden])")
    page.wait_for_function("window.floorMap.canvasBox.right - window.floorMap.canvasBox.left < 260")
    view = fitted_map(page)
    assert view["scale"] < 0.05
    check_every_building_drawn(view, BUILDINGS, all_named=False)
    # The wheel cannot zoom out past the fitted view (nothing would be left to show).
    page.evaluate("() => window.floorMap.zoomAt(0.1)")
    assert page.evaluate("window.floorMap.scale") == pytest.approx(view["scale"])
    screenshot(page, "map-row-of-buildings-narrow")
    watch.check()
    context.close()
