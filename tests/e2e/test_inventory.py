"""The inventory pages on the demo campus, in headless Chromium against the real API: the tables sort, filter,
page and download whole (CSV and XLSX read back here with the standard library, not the code that wrote them);
a power device's page agrees with impact mode and with a hand calculation of a 2N pair; a rack's elevations
hold its servers and ports; the capacity report adds up to the racks list; the top bar's search finds a
device; the print stylesheet keeps the top bar off the page; every chart downloads as a PNG; every page
passes axe-core's WCAG AA checks."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from .conftest import SCREENSHOTS, axe_violations, login, new_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

SHEET = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


@pytest.fixture
def planner(chromium, live_url, demo):
    context, page, watch = new_page(chromium, live_url, width=1400, height=950)
    login(page, demo["users"]["planner"])
    yield page
    watch.check()
    context.close()


def api(page, path: str):
    response = page.request.get(path)
    assert response.ok, f"{path}: HTTP {response.status} {response.text()[:300]}"
    return response.json()


def every(page, path: str) -> list[dict]:
    rows, url = [], f"{path}{'&' if '?' in path else '?'}limit=1000"
    while url:
        body = api(page, url)
        rows += body["results"]
        url = body["next"]
    return rows


def num(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-").split()[0])


def wait_table(page, key: str):
    page.wait_for_selector(f"[data-testid=table-{key}] tbody tr")
    page.wait_for_function(
        "document.querySelector('[data-testid=inventory-table]').getAttribute('aria-busy') === 'false'"
    )


def test_the_racks_table_sorts_filters_and_pages_as_the_api_does(planner, demo):
    campus = demo["campus_id"]
    planner.goto(f"/campuses/{campus}/inventory/?table=racks")
    wait_table(planner, "racks")
    total = api(planner, f"/api/racks/?campus={campus}&limit=1")["count"]
    assert planner.inner_text("[data-testid=table-count]").endswith(f"of {total:,} racks")
    screenshot(planner, "inventory-racks")

    # Sorting by the design column twice: descending, as the API orders it.
    planner.click("[data-testid=sort-design_kw]")
    planner.wait_for_selector("th[aria-sort=ascending] [data-testid=sort-design_kw]")
    planner.click("[data-testid=sort-design_kw]")
    planner.wait_for_selector("th[aria-sort=descending] [data-testid=sort-design_kw]")
    top = api(planner, f"/api/racks/?campus={campus}&ordering=-design_kw&limit=1")["results"][0]
    assert planner.inner_text("[data-testid=table-racks] tbody tr:first-child th") == top["name"]

    # A search narrows the table to the racks whose name holds it.
    name = top["name"]
    planner.fill("[data-testid=table-search]", name)
    planner.wait_for_function(
        "(n) => document.querySelector('[data-testid=table-count]').textContent.endsWith(`of ${n} racks`)",
        arg=str(api(planner, f"/api/racks/?campus={campus}&search={name}&limit=1")["count"]),
    )
    planner.fill("[data-testid=table-search]", "")
    # The next page starts where the first ended.
    planner.wait_for_function(
        "(n) => document.querySelector('[data-testid=table-count]').textContent.endsWith(`of ${n} racks`)",
        arg=f"{total:,}",
    )
    if total > 50:
        planner.click("[data-testid=page-next]")
        planner.wait_for_function(
            "document.querySelector('[data-testid=table-count]').textContent.startsWith('51')"
        )


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_table_downloads_every_row_of_its_list(planner, demo, fmt):
    campus = demo["campus_id"]
    planner.goto(f"/campuses/{campus}/inventory/?table=power")
    wait_table(planner, "power")
    with planner.expect_download() as info:
        planner.click(f"[data-testid=inventory-table] [data-testid=export-{fmt}]")
    download = info.value
    assert download.suggested_filename == f"power-devices.{fmt}"
    data = Path(download.path()).read_bytes()
    devices = every(planner, f"/api/power-devices/?campus={campus}&ordering=name")
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    else:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            assert {"[Content_Types].xml", "xl/workbook.xml", "xl/worksheets/sheet1.xml"} <= set(z.namelist())
            root = ElementTree.fromstring(z.read("xl/worksheets/sheet1.xml"))
        rows = []
        for row in root.iter(f"{SHEET}row"):
            cells = []
            for c in row.iter(f"{SHEET}c"):
                v = c.find(f"{SHEET}v")
                cells.append(
                    float(v.text) if v is not None else "".join(t.text or "" for t in c.iter(f"{SHEET}t"))
                )
            rows.append(cells)
    assert rows[0][:3] == ["Device", "Kind", "Rating (kW)"]
    assert len(rows) - 1 == len(devices)  # every page of the list, not the 50 shown
    assert [r[0] for r in rows[1:]] == [d["name"] for d in devices]
    assert [float(r[2]) for r in rows[1:]] == [d["rated_kw"] for d in devices]


def test_a_power_device_page_agrees_with_impact_mode_and_a_2n_hand_calculation(planner, demo):
    campus = demo["campus_id"]
    pdus = every(planner, f"/api/power-devices/?campus={campus}&kind=pdu&search=PDU-A1")
    pdu = next(d for d in pdus if re.search(r"-R\d+-PDU-A1$", d["name"]))  # a row's PDU, not the plant's
    planner.goto(f"/campuses/{campus}/inventory/power-devices/{pdu['id']}/")
    planner.wait_for_selector("[data-testid=device-serves]")
    screenshot(planner, "inventory-device", full_page=True)
    figures = api(planner, f"/api/power-devices/{pdu['id']}/figures/")
    hit = api(planner, f"/api/campuses/{campus}/impact/?device={pdu['id']}")["racks"]
    lost = set(hit["lost_a"]) | set(hit["lost_b"]) | set(hit["lost_both"]) | set(hit["lost_cooling"])
    # 2N as 2(N+1): a row PDU's racks keep the side's other whip, so its loss hits no rack (docs/generator.md)
    assert int(planner.get_attribute("[data-testid=device-serves]", "data-racks")) == len(lost) == 0
    assert "No rack is hit" in planner.inner_text("[data-testid=device-serves]")
    # The rating reads as the inventory table shows it: one decimal of kW on both pages, to the character.
    shown = planner.inner_text("[data-testid=device-rating]")
    assert shown == f"{pdu['rated_kw']:,.1f} kW"
    # 2N by hand: every rack this PDU feeds draws half its load from side A and half from B, a quarter from
    # each of its four whips (A1, A2, B1, B2); with the row's other A PDU (A2) lost, A1 carries side A's half
    # alone, so the worst single failure doubles this PDU's load (the same efficiency); a B whip lost leaves
    # side A's half as it was.
    worst = figures["worst_single_failure"]
    assert worst is not None and worst["device"]["name"] == pdu["name"][:-1] + "2"
    assert worst["load_kw"] == pytest.approx(2 * figures["load_kw"], rel=1e-6)
    assert worst["headroom_kw"] == pytest.approx(pdu["rated_kw"] * pdu["max_utilization"] - worst["load_kw"])
    assert worst["device"]["name"] in planner.inner_text("[data-testid=device-worst]")
    planner.goto(f"/campuses/{campus}/inventory/?table=power&search={pdu['name']}")
    wait_table(planner, "power")
    row = planner.locator(f"[data-testid=table-power] tbody tr[data-id='{pdu['id']}'] td").nth(1)
    assert f"{row.inner_text()} kW" == shown


def test_a_ups_on_the_floor_map_shows_the_racks_below_it_and_those_impact_mode_hits(planner, demo):
    campus = demo["campus_id"]
    ups = every(planner, f"/api/power-devices/?campus={campus}&kind=ups")[0]
    planner.goto(f"/campuses/{campus}/map/?hall={ups['hall']['id']}")
    planner.wait_for_function("window.floorMap && window.floorMap.ready === true")
    planner.evaluate(f"floorMap.showPaths('power:{ups['id']}')")
    planner.wait_for_selector("[data-testid=selection-served][data-racks]")
    hit = api(planner, f"/api/campuses/{campus}/impact/?device={ups['id']}")["racks"]
    lost = set(hit["lost_a"]) | set(hit["lost_b"]) | set(hit["lost_both"]) | set(hit["lost_cooling"])
    assert int(planner.get_attribute("[data-testid=selection-served]", "data-racks")) == len(lost)
    # the paths drawn reach every rack below the module; in the demo's 2(N+1) chain none of them is hit when
    # it fails (the side's other modules carry it), and the note says so
    below = planner.evaluate("floorMap.paths")["served"]
    assert below > 0 and len(lost) <= below
    assert not lost and "no rack is hit when it fails" in planner.inner_text("[data-testid=selection-served]")
    screenshot(planner, "map-ups-serves")


def test_a_rack_page_draws_its_servers_feeds_and_ports_front_and_rear(planner, demo):
    campus = demo["campus_id"]
    rack = api(planner, f"/api/racks/?campus={campus}&limit=1")["results"][0]
    nodes = every(planner, f"/api/nodes/?rack={rack['id']}")
    links = every(planner, f"/api/links/?a_rack={rack['id']}")
    planner.goto(f"/campuses/{campus}/inventory/racks/{rack['id']}/")
    planner.wait_for_selector("[data-testid=elevation-front]")
    screenshot(planner, "inventory-rack-elevation", full_page=True)
    for face in ("front", "rear"):
        drawn = planner.eval_on_selector_all(
            f"[data-testid=elevation-{face}] g[data-item]", "gs => gs.map(g => g.dataset.item)"
        )
        assert sorted(drawn) == sorted(n["name"] for n in nodes)
    assert planner.locator("[data-testid=elevation-rear] g[data-pdu]").count() == 2
    assert planner.locator("[data-testid=rack-power-ports] tbody tr").count() == len(rack["power"]["feeds"])
    assert planner.locator("[data-testid=rack-network-ports] tbody tr").count() == len(links)
    # U numbers count from the bottom: a rack of 48 U is labelled 1 and 45 on its scale.
    labels = planner.eval_on_selector_all(
        "[data-testid=elevation-front] text.u-number", "ts => ts.map(t => t.textContent)"
    )
    assert labels[0] == "1" and str(rack["rack_units"] - rack["rack_units"] % 5) in labels


def test_the_capacity_report_adds_up_to_the_racks_list(planner, demo):
    campus = demo["campus_id"]
    planner.goto(f"/campuses/{campus}/capacity/")
    planner.wait_for_selector("[data-testid=capacity-table] tbody tr")
    screenshot(planner, "capacity-report", full_page=True)
    report = api(planner, f"/api/campuses/{campus}/capacity/")
    racks = every(planner, f"/api/racks/?campus={campus}")
    for hall in report["halls"]:
        mine = [r for r in racks if r["hall"]["id"] == hall["id"]]
        # The same figures reached another way: the racks list's own heights and IT loads.
        assert hall["space_u"]["capacity"] == sum(r["rack_units"] for r in mine)
        live = [r for r in mine if r["status"] != "planned"]
        assert hall["power_kw"]["used"] == pytest.approx(
            sum(r["power"]["it_load_kw"] for r in live), abs=0.05 * len(live)
        )
        assert (
            hall["racks"]
            == len(mine)
            == sum(row["racks"] for row in hall["rows"]) + sum(1 for r in mine if r["row"] is None)
        )
        shown = planner.locator(f"[data-testid=capacity-table] tr[data-scope='{hall['name']}'] td").nth(1)
        assert num(shown.inner_text()) == hall["space_u"]["capacity"]


def test_the_top_bar_search_finds_a_device_and_opens_its_page(planner, demo):
    campus = demo["campus_id"]
    planner.goto(f"/campuses/{campus}/inventory/")
    ups = every(planner, f"/api/power-devices/?campus={campus}&kind=ups")[0]
    planner.fill("[data-testid=global-search]", ups["name"])
    planner.press("[data-testid=global-search]", "Enter")
    planner.wait_for_selector("[data-testid=search-power]")
    screenshot(planner, "inventory-search")
    planner.click(f"[data-testid=search-power] a:text-is('{ups['name']}')")
    planner.wait_for_selector("[data-testid=device-name]")
    assert planner.inner_text("[data-testid=device-name]") == ups["name"]


def test_print_keeps_the_top_bar_off_the_page_and_makes_a_pdf(planner, demo):
    campus = demo["campus_id"]
    planner.goto(f"/campuses/{campus}/capacity/")
    planner.wait_for_selector("[data-testid=capacity-table] tbody tr")
    planner.emulate_media(media="print")
    assert planner.evaluate("getComputedStyle(document.querySelector('.topbar')).position") == "static"
    assert planner.evaluate("getComputedStyle(document.querySelector('.mainnav')).display") == "none"
    assert planner.evaluate("getComputedStyle(document.querySelector('.export-bar')).display") == "none"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pdf = planner.pdf(path=str(SCREENSHOTS / "capacity-report.pdf"), format="A4", landscape=True)
    assert pdf.startswith(b"%PDF")
    planner.emulate_media(media="screen")


def test_every_chart_downloads_as_a_png(planner, demo):
    campus = demo["campus_id"]
    planner.goto(f"/campuses/{campus}/")
    planner.wait_for_selector("#overview[data-ready=true]")
    planner.wait_for_selector(".uplot", timeout=30_000)
    charts = planner.locator(".uplot").count()
    planner.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid=export-png]').length === n", arg=charts
    )
    with planner.expect_download() as info:
        planner.locator("[data-testid=export-png]").first.click()
    data = Path(info.value.path()).read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert re.fullmatch(r"[a-z0-9-]+\.png", info.value.suggested_filename)


@pytest.mark.parametrize(
    "path,ready",
    [
        ("/campuses/{id}/inventory/", "[data-testid=table-racks] tbody tr"),
        ("/campuses/{id}/inventory/?table=links", "[data-testid=table-links] tbody tr"),
        ("/campuses/{id}/capacity/", "[data-testid=capacity-table]"),
        ("/campuses/{id}/inventory/?q=PDU", "[data-testid=search-results]"),
        ("/campuses/{id}/inventory/racks/{rack}/", "[data-testid=elevation-rear]"),
        ("/campuses/{id}/inventory/power-devices/{device}/", "[data-testid=device-serves]"),
        ("/campuses/{id}/compare/", "#compare"),
    ],
)
def test_the_inventory_pages_pass_the_wcag_aa_checks(planner, demo, path, ready):
    campus = demo["campus_id"]
    rack = api(planner, f"/api/racks/?campus={campus}&limit=1")["results"][0]
    device = api(planner, f"/api/power-devices/?campus={campus}&kind=ups&limit=1")["results"][0]
    planner.goto(path.format(id=campus, rack=rack["id"], device=device["id"]))
    planner.wait_for_selector(ready)
    assert axe_violations(planner) == []
