"""The floor map a planner reads at a glance, on the demo campus: one IT figure everywhere it shows, the plant drawn
with a rack's power and cooling paths, racks that stay legible at every zoom, and an impact picker grouped by kind
and building with search and the worst single failures first.

Truth: the REST API's answers (summary, floor map, power chain, redundancy, cooling units), the canvas pixels, and
the database rows a test changes itself.
"""

from __future__ import annotations

import re

import pytest

from .conftest import axe_violations, csrf_headers, screenshot
from .test_dashboard import api, campus_racks, wait_map_ready

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

MW_TEXT = re.compile(r"([\d,]+\.\d) MW")


def _mw_text(text: str) -> str:
    found = MW_TEXT.search(text)
    assert found, text
    return found.group(1)


def test_one_it_figure_reads_the_same_on_overview_cards_map_and_api(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    summary = api(page, f"/api/campuses/{campus_id}/summary/")
    floor = api(page, f"/api/campuses/{campus_id}/floor-map/")
    it_mw = summary["power"]["it_mw"]
    assert floor["campus"]["it_mw"] == it_mw

    page.goto(f"/campuses/{campus_id}/")
    page.wait_for_selector("#overview[data-ready=true]")
    overview = page.locator("[data-testid=fig-it-mw]")
    assert float(overview.get_attribute("data-value")) == it_mw
    overview_text = _mw_text(page.inner_text("[data-testid=fig-it-mw-text]"))
    assert "IT load" in overview.get_attribute("title")
    cards = {}
    for b in summary["buildings"]:
        card = page.locator(f"[data-testid=building-card][data-building-id='{b['id']}']")
        cell = card.locator("[data-field=it_mw]")
        assert float(cell.get_attribute("data-value")) == b["it_mw"]
        assert cell.get_attribute("title")
        cards[b["id"]] = _mw_text(cell.inner_text())
        headroom_term = card.locator("dt", has_text="Headroom").get_attribute("title")
        assert "after the worst single failure" in headroom_term

    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    header = page.locator("[data-testid=map-it-mw]")
    assert float(header.get_attribute("data-value")) == it_mw
    assert _mw_text(header.inner_text()) == overview_text
    assert "IT load" in header.get_attribute("title")
    assert "worst single failure" in page.get_attribute("[data-testid=map-headroom]", "title")

    for b in floor["buildings"]:
        page.goto(f"/campuses/{campus_id}/map/?building={b['id']}")
        wait_map_ready(page)
        header = page.locator("[data-testid=map-it-mw]")
        assert float(header.get_attribute("data-value")) == b["it_mw"]
        assert _mw_text(header.inner_text()) == cards[b["id"]]
        assert float(page.get_attribute("[data-testid=map-headroom]", "data-value")) == b["headroom_mw"]
    watch.check()


PLANT_PIXELS = """
() => {
  window.floorMap.draw();
  const canvas = document.querySelector('[data-testid=floor-canvas]');
  const ctx = canvas.getContext('2d');
  const box = canvas.getBoundingClientRect();
  const dpr = canvas.width / box.width;
  const hex = (d) => '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
  const out = [];
  for (const p of window.floorMap.plant) {
    if (p.w < 8 || p.h < 8) continue;
    // just inside the top-left corner: past the 1 px border, clear of the centred label
    const px = Math.floor((p.x - p.w / 2 + 2.5 - box.left) * dpr), py = Math.floor((p.y - p.h / 2 + 2.5 - box.top) * dpr);
    if (px < 0 || py < 0 || px >= canvas.width || py >= canvas.height) continue;
    out.push([p.key, p.type, p.kind, hex(ctx.getImageData(px, py, 1, 1).data)]);
  }
  return out;
}
"""
PLANT_FILL = {"power": "#475467", "generator": "#7a5a1e", "cooling": "#0e7490", "plant": "#164e63"}


def test_the_floor_map_draws_the_plant_and_a_racks_power_and_cooling_paths(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    floor = api(page, f"/api/campuses/{campus_id}/floor-map/")
    units = api(page, f"/api/cooling-units/?campus={campus_id}&limit=1000")["results"]
    devices = api(page, f"/api/power-devices/?campus={campus_id}&limit=1000")["results"]
    plants = api(page, f"/api/cooling-plants/?campus={campus_id}&limit=1000")["results"]

    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    drawn = {p["key"] for p in page.evaluate("floorMap.plant")}
    expected = {f"cooling:{u['id']}" for u in units} | {f"power:{d['id']}" for d in devices}
    expected |= {f"plant:{p['id']}" for p in plants}
    assert drawn == expected
    # Each element is painted in its kind's fill (the key beside the map says which is which).
    page.evaluate("floorMap.zoomAt(2.5)")
    checked = 0
    for key, kind_type, kind, colour in page.evaluate(PLANT_PIXELS):
        assert colour == PLANT_FILL["generator" if kind == "generator" else kind_type], key
        checked += 1
    assert checked > 0

    # A rack of the first hall: its paths run through its feed devices up to the sources and to its cooling unit.
    hall = floor["buildings"][0]["halls"][0]
    page.goto(f"/campuses/{campus_id}/map/?hall={hall['id']}")
    wait_map_ready(page)
    rack = next(r for r in campus_racks(floor) if r["hall_id"] == hall["id"])
    page.evaluate(f"floorMap.openRack({rack['id']})")
    page.wait_for_selector("[data-testid=rack-panel][data-ready=true]")
    paths = page.evaluate("floorMap.paths")
    assert paths["node"] == f"rack:{rack['id']}"
    chain = api(page, f"/api/campuses/{campus_id}/power-chain/?rack={rack['id']}")
    on_map = {p["key"] for p in page.evaluate("floorMap.plant")}
    upstream = {f"power:{d['id']}" for s in chain["sides"] for d in s["devices"]}
    assert upstream & on_map
    assert upstream & on_map <= set(paths["items"])
    assert f"cooling:{rack['cooling_unit_id']}" in paths["items"]
    assert paths["segments"] >= len(upstream & on_map)
    note = page.locator("[data-testid=selection-note]")
    assert note.get_attribute("data-node") == f"rack:{rack['id']}"
    screenshot(page, "map-plant-rack-paths")

    # A device picked on the map: what it serves is outlined (the racks its feeds reach).
    pdu = next(d for d, side in rack["feed_devices"] if side == "A")
    page.evaluate(f"floorMap.showPaths('power:{pdu}')")
    served = page.evaluate("floorMap.paths")
    fed = {r["id"] for r in campus_racks(floor) if any(d == pdu for d, _ in r["feed_devices"])}
    assert fed <= set(served["racks"]) and served["served"] == len(fed)

    # The standby generators stand beside the switchgear they back, never in series on the path.
    generators = {d["name"] for d in devices if d["kind"] == "generator"}
    power = page.locator("[data-testid=rack-panel-power]")
    for side in ("A", "B"):
        series = power.locator(f".path[data-side={side}] .chain-name").all_inner_texts()
        assert not generators & set(series)
        entry = next(s for s in chain["sides"] if s["side"] == side)
        standby = {d["name"] for d in entry["devices"] if d["standby"]}
        assert set(power.locator(f".path[data-side={side}] .chain-standby-name").all_inner_texts()) == standby
    assert axe_violations(page) == []
    watch.check()


AREA_CHECK = """
([radius, minShare]) => {
  window.floorMap.draw();
  const canvas = document.querySelector('[data-testid=floor-canvas]');
  const ctx = canvas.getContext('2d');
  const box = canvas.getBoundingClientRect();
  const dpr = canvas.width / box.width;
  const hex = (d) => '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
  const bad = [];
  let checked = 0;
  for (const r of window.floorMap.racks) {
    const rx = radius ?? Math.max(1, Math.floor(Math.min(r.w, r.h) / 2) - 1);
    const ry = radius ?? Math.max(1, Math.floor(Math.max(r.w, r.h) / 2) - 1);
    const cx = r.x - box.left, cy = r.y - box.top;
    if (cx - rx < 0 || cy - ry < 0 || cx + rx >= box.width || cy + ry >= box.height) continue;
    const w = r.w >= r.h ? ry : rx, h = r.w >= r.h ? rx : ry;
    const data = ctx.getImageData(Math.floor((cx - w) * dpr), Math.floor((cy - h) * dpr),
      Math.max(1, Math.floor(2 * w * dpr)), Math.max(1, Math.floor(2 * h * dpr))).data;
    let same = 0, all = 0;
    for (let i = 0; i < data.length; i += 4) {
      all += 1;
      if (hex(data.subarray(i, i + 3)) === r.color.toLowerCase()) same += 1;
    }
    checked += 1;
    if (same / all < minShare) bad.push([r.name, Math.round((100 * same) / all)]);
  }
  return {bad, checked};
}
"""


def test_racks_stay_legible_at_every_zoom(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    floor = api(page, f"/api/campuses/{campus_id}/floor-map/")
    hall = max(
        (h for b in floor["buildings"] for h in b["halls"]),
        key=lambda h: sum(1 for r in campus_racks(floor) if r["hall_id"] == h["id"]),
    )
    # Hall view zoomed in to where names are written: each rack still shows its colour over most of its face.
    page.goto(f"/campuses/{campus_id}/map/?hall={hall['id']}")
    wait_map_ready(page)
    ids = [r["id"] for r in campus_racks(floor) if r["hall_id"] == hall["id"]][:12]
    page.evaluate(f"(() => {{ floorMap.fitToIds({ids}); floorMap.zoomAt(32 / floorMap.scale); }})()")
    assert page.evaluate("floorMap.scale") == pytest.approx(32)
    result = page.evaluate(AREA_CHECK, [None, 0.6])
    assert result["checked"] > 0 and result["bad"] == []
    screenshot(page, "map-hall-names")

    # Campus view zoomed out until a rack is a pixel wide: racks are merged into blocks, never hair-lines, so at
    # least half the 4 x 4 px around every rack's centre shows its colour (a 1.2 m row drawn to scale, 2.4 px high,
    # would cover a third at most after anti-aliasing; a row-end rack shares its window with the PDU beside it).
    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    page.uncheck("[data-testid=show-plant]")  # the racks alone: the plant is a layer over them
    page.evaluate("(() => { floorMap.fit(); floorMap.zoomAt(2 / floorMap.scale); })()")
    detail = page.evaluate("floorMap.detail")
    assert detail["rackPx"] < 2.5 and detail["aggregated"]
    result = page.evaluate(AREA_CHECK, [2, 0.5])
    assert result["checked"] == len(floor["racks"]) and result["bad"] == []
    # Every building is inside the canvas at the fitted view.
    page.evaluate("floorMap.fit()")
    canvas = page.evaluate("floorMap.canvasBox")
    for o in page.evaluate("floorMap.outlines"):
        assert canvas["left"] <= o["left"] and o["left"] + o["width"] <= canvas["right"] + 0.5, o["label"]
    screenshot(page, "map-campus-cells")
    watch.check()


def test_the_impact_picker_groups_by_kind_and_building_with_search(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    devices = api(page, f"/api/power-devices/?campus={campus_id}&limit=1000")["results"]
    units = api(page, f"/api/cooling-units/?campus={campus_id}&limit=1000")["results"]
    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    page.wait_for_selector("[data-testid=impact-device][data-worst-ready=true]")
    groups = page.locator("[data-testid=impact-device] optgroup").evaluate_all(
        "els => els.map(g => [g.label, g.dataset.group, [...g.querySelectorAll('option')].map(o => o.value)])"
    )
    assert groups[0][1] == "worst"
    by_kind = [g for g in groups if g[1] not in ("worst", "hall", "utility")]
    for label, _group, values in by_kind:
        assert re.fullmatch(r".+ · .+ \(\d+\)", label), label
        assert label.endswith(f"({len(values)})")
    listed = [v for g in by_kind for v in g[2]]
    assert len(listed) == len(set(listed))
    assert {f"power:{d['id']}" for d in devices} | {f"cooling:{u['id']}" for u in units} <= set(listed)
    # One group per kind and building: every device of a group has that kind and stands in that building.
    names = {f"power:{d['id']}": d for d in devices}
    for label, _group, values in by_kind:
        building = label.split(" · ")[1].rsplit(" (", 1)[0]
        for v in values:
            if v in names:
                assert names[v]["building"]["name"] == building, (label, names[v]["name"])
    # The hint names every kind the picker lists.
    hint = page.inner_text("[data-testid=impact-hint]").lower()
    for d in devices:
        assert d["kind"] in hint, d["kind"]
    for u in units:
        assert u["kind"] in hint, u["kind"]

    # Search: only matching names stay, Enter fails the first of them.
    ups = next(d for d in devices if d["kind"] == "ups")
    page.fill("[data-testid=impact-search]", ups["name"])
    visible = page.locator("[data-testid=impact-device] option[data-search]").evaluate_all(
        "els => els.filter(o => !o.hidden && !o.parentElement.hidden).map(o => o.textContent)"
    )
    assert visible and all(ups["name"].lower() in t.lower() for t in visible)
    assert page.inner_text("[data-testid=impact-search-count]").startswith(f"{len(visible)} match")
    page.press("[data-testid=impact-search]", "Enter")
    page.wait_for_selector("[data-testid=impact-gpus-lost]")
    impact = api(page, f"/api/campuses/{campus_id}/impact/?device={ups['id']}&kind=power")
    lost = impact["gpus"]["lost_power"] + impact["gpus"]["lost_cooling"]
    assert int(page.get_attribute("[data-testid=impact-gpus-lost]", "data-value")) == lost
    assert "null" not in page.inner_text("[data-testid=impact-result]")
    assert page.evaluate("floorMap.paths.node") == f"power:{ups['id']}"
    assert axe_violations(page) == []
    watch.check()


def test_the_worst_single_failures_come_first(planner_page, demo):
    # Take the B feeds off one row (through the API, as a planner): its A-side PDU and UPS become single points; the
    # redundancy check lists them by GPUs lost and the picker shows them first, in that order, with the GPUs lost.
    page, watch = planner_page
    campus_id = demo["campus_id"]
    floor = api(page, f"/api/campuses/{campus_id}/floor-map/")
    racks = campus_racks(floor)
    row_y = racks[0]["y_m"]
    row = [r["id"] for r in racks if r["hall_id"] == racks[0]["hall_id"] and r["y_m"] == row_y]
    page.goto(f"/campuses/{campus_id}/map/")  # a page of the site first: the CSRF cookie
    for rack_id in row:
        for feed in api(page, f"/api/power-feeds/?rack={rack_id}&side=B")["results"]:
            response = page.request.delete(f"/api/power-feeds/{feed['id']}/", headers=csrf_headers(page))
            # 200 with the redundancy warnings when the deletion takes racks below the declared level
            assert response.status in (200, 204), response.text()[:300]
    findings = api(page, f"/api/campuses/{campus_id}/redundancy/")["findings"]
    assert findings and findings == sorted(findings, key=lambda f: -f["gpus_lost"])
    page.goto(f"/campuses/{campus_id}/map/")
    wait_map_ready(page)
    page.wait_for_selector("[data-testid=impact-device][data-worst-ready=true]")
    worst = page.locator("[data-testid=impact-device] optgroup[data-group=worst] option").evaluate_all(
        "els => els.map(o => [o.value, o.textContent])"
    )
    assert [v for v, _ in worst] == [f"{f['device_kind']}:{f['device_id']}" for f in findings[:10]]
    for (_, text), f in zip(worst, findings, strict=False):
        assert text.startswith(f["device_name"]) and f"{f['gpus_lost']:,} GPUs lost" in text
    screenshot(page, "map-impact-worst-first")
    watch.check()
