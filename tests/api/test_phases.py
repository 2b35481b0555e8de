"""Phases by date: service dates on the inventory, ``?as_of=`` on every analytics endpoint, the timeline.

The campus is tests/api/test_analytics.py's small 2N campus: 4 racks of two 8-GPU servers
(8 × 700 W + 4,600 W = 10.2 kW each). Truth comes from outside the code under test: a campus whose every
object enters service in the future has no GPU and no IT load; a phase-1-only campus built apart (the
same factories, phase 2 deleted) gives the figures of the phased campus's phase-1 day.
"""

from datetime import date, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campus import models as m
from campus import state as states
from tests.api.test_analytics import NODES_PER_RACK, RACKS, build_campus

GPUS_PER_RACK = NODES_PER_RACK * 8

INVENTORY = (
    m.UtilityFeed,
    m.Building,
    m.DataHall,
    m.Row,
    m.Rack,
    m.Node,
    m.PowerDevice,
    m.PowerFeed,
    m.EnergyStorage,
    m.CoolingPlant,
    m.CoolingUnit,
    m.Pod,
    m.Switch,
    m.Link,
)

pytestmark = pytest.mark.usefixtures("fresh_analytics")


def url(name: str, campus, **kwargs) -> str:
    return reverse(f"campus-{name}", kwargs={"pk": campus.pk, **kwargs})


def date_everything(day: date) -> None:
    for model in INVENTORY:
        model.objects.update(in_service_date=day)


def get(client, path, **params):
    response = client.get(path, params)
    assert response.status_code == 200, (path, params, response.content[:300])
    return response.json()


@pytest.mark.django_db
class TestServiceDates:
    def test_retire_before_service_is_400_naming_retire_date(self, planner_client):
        site = build_campus()
        rack = site["racks"][0]
        response = planner_client.patch(
            reverse("rack-detail", kwargs={"pk": rack.pk}),
            {"in_service_date": "2027-01-01", "retire_date": "2027-01-01"},
            format="json",
        )
        assert response.status_code == 400
        assert "retire_date" in response.json()
        rack.refresh_from_db()
        assert rack.in_service_date is None and rack.retire_date is None

    def test_dates_round_trip_and_filter_in_service_on(self, planner_client):
        site = build_campus()
        first, second = site["racks"][:2]
        for rack, body in (
            (first, {"in_service_date": "2027-01-01", "retire_date": "2030-01-01"}),
            (second, {"in_service_date": "2028-01-01"}),
        ):
            response = planner_client.patch(
                reverse("rack-detail", kwargs={"pk": rack.pk}), body, format="json"
            )
            assert response.status_code == 200, response.json()
            assert response.json()["in_service_date"] == body["in_service_date"]
        names = lambda day: {  # noqa: E731
            r["name"]
            for r in planner_client.get(reverse("rack-list"), {"in_service_on": day, "limit": 100}).json()[
                "results"
            ]
        }
        assert names("2026-06-01") == {"R2", "R3"}
        assert names("2027-06-01") == {"R0", "R2", "R3"}
        assert names("2029-06-01") == {"R0", "R1", "R2", "R3"}
        assert names("2030-01-01") == {"R1", "R2", "R3"}  # retire_date is the first day out
        bad = planner_client.get(reverse("rack-list"), {"in_service_on": "2027-02-30"})
        assert bad.status_code == 400 and "in_service_on" in bad.json()


@pytest.mark.django_db
class TestAsOf:
    def test_every_analytics_route_counts_only_what_is_in_service(self, viewer_client):
        """Everything enters service 30 days ago: the day before, the campus holds nothing (0 GPUs, 0 MW);
        today, all of it. Each route's figures differ accordingly."""
        site = build_campus()
        campus = site["campus"]
        start = timezone.localdate() - timedelta(days=30)
        date_everything(start)
        before = (start - timedelta(days=1)).isoformat()

        summary_then = get(viewer_client, url("summary", campus), as_of=before)
        summary_now = get(viewer_client, url("summary", campus))
        assert summary_then["inventory"]["gpus"] == 0
        assert summary_then["power"]["it_mw"] == 0
        assert summary_then["inventory"]["racks"] == 0
        assert summary_now["inventory"]["gpus"] == RACKS * GPUS_PER_RACK
        assert summary_now["power"]["it_mw"] > 0
        assert get(viewer_client, url("summary", campus), as_of=start.isoformat()) == summary_now

        floor_then = get(viewer_client, url("floor-map", campus), as_of=before)
        floor_now = get(viewer_client, url("floor-map", campus))
        assert floor_then != floor_now
        hall_then = viewer_client.get(url("floor-map", campus), {"hall": site["hall"].pk, "as_of": before})
        assert hall_then.status_code == 400 and "hall" in hall_then.json()  # not built yet
        hall_now = get(viewer_client, url("floor-map", campus), hall=site["hall"].pk)
        assert len(hall_now["racks"]) == RACKS

        # the day before, the substation does not exist yet: failing it is a 400 naming the day (it was
        # answered, 0 GPUs lost, as a device failing in a chain it is not part of)
        impact_then = viewer_client.get(
            url("impact", campus), {"kind": "power", "device": site["sub"].pk, "as_of": before}
        )
        assert impact_then.status_code == 400
        assert (
            f"is not in service on {before}: it enters service on {start.isoformat()}"
            in (impact_then.json()["device"][0])
        )
        impact_now = get(viewer_client, url("impact", campus), kind="power", device=site["sub"].pk)
        assert impact_now["gpus"]["usable_before"] == RACKS * GPUS_PER_RACK
        assert impact_now["gpus_lost"] == RACKS * GPUS_PER_RACK

        stranded_then = get(viewer_client, url("stranded", campus), as_of=before)
        stranded_now = get(viewer_client, url("stranded", campus))
        assert stranded_then["campus"]["provisioned_kw"] == 0
        assert stranded_now["campus"]["provisioned_kw"] > 0

        red_then = get(viewer_client, url("redundancy", campus), as_of=before)
        red_now = get(viewer_client, url("redundancy", campus))
        assert all(f["gpus_lost"] == 0 for f in red_then["findings"])
        assert (
            red_now["findings"] and max(f["gpus_lost"] for f in red_now["findings"]) == RACKS * GPUS_PER_RACK
        )

        year_then = get(viewer_client, url("facility-year", campus), as_of=before)
        year_now = get(viewer_client, url("facility-year", campus))
        assert all(not v for v in year_then["it_mw"])  # 0 or null (no IT) every hour
        assert min(year_now["it_mw"]) > 0

        rack = site["racks"][0].pk
        chain_then = viewer_client.get(url("power-chain", campus), {"rack": rack, "as_of": before})
        assert chain_then.status_code == 400 and "rack" in chain_then.json()
        assert get(viewer_client, url("power-chain", campus), rack=rack)["rack"]["powered"] is True

        points = get(viewer_client, url("timeline", campus))["points"]
        assert [p["date"] for p in points] == [start.isoformat(), timezone.localdate().isoformat()]
        assert [p["gpus"] for p in points] == [RACKS * GPUS_PER_RACK] * 2
        then_points = get(viewer_client, url("timeline", campus), as_of=before)["points"]
        assert then_points[0] == {
            "date": before,
            "gpus": 0,
            "it_mw": 0.0,
            "facility_mw": 0.0,
            "headroom_mw": then_points[0]["headroom_mw"],
        }

    def test_a_campus_entirely_in_the_future_shows_nothing_today(self, viewer_client):
        site = build_campus()
        date_everything(timezone.localdate() + timedelta(days=1))
        body = get(viewer_client, url("summary", site["campus"]))
        assert body["inventory"]["gpus"] == 0
        assert body["power"]["it_mw"] == 0

    @pytest.mark.parametrize("value", ["2027-02-30", "tomorrow", "2027-13-01"])
    @pytest.mark.parametrize(
        "route", ["summary", "floor-map", "redundancy", "stranded", "facility-year", "timeline"]
    )
    def test_a_bad_date_is_400_naming_as_of(self, viewer_client, route, value):
        site = build_campus()
        response = viewer_client.get(url(route, site["campus"]), {"as_of": value})
        assert response.status_code == 400
        assert "as_of" in response.json()
        if value == "2027-02-30":  # written right, but no such day: said so, not "wrong format"
            assert "not a day of the calendar" in str(response.json()["as_of"])

    def test_racks_of_a_retired_hall_are_out(self, viewer_client):
        site = build_campus()
        m.DataHall.objects.filter(pk=site["hall"].pk).update(retire_date=date(2020, 1, 1))
        body = get(viewer_client, url("summary", site["campus"]), as_of="2020-01-01")
        assert body["inventory"]["racks"] == 0 and body["inventory"]["gpus"] == 0
        body = get(viewer_client, url("summary", site["campus"]), as_of="2019-12-31")
        assert body["inventory"]["gpus"] == RACKS * GPUS_PER_RACK

    def test_a_rack_whose_feeds_are_not_in_service_loses_power(self, viewer_client):
        """Both of R0's feeds enter service in 2030: before then R0 is dark, like a rack whose PDUs failed
        (GPUs installed, none usable)."""
        site = build_campus()
        rack = site["racks"][0]
        m.PowerFeed.objects.filter(rack=rack).update(in_service_date=date(2030, 1, 1))
        body = get(viewer_client, url("summary", site["campus"]), as_of="2029-06-01")
        assert body["inventory"]["gpus"] == RACKS * GPUS_PER_RACK
        assert body["power"]["racks_without_power"] == 1
        chain = get(viewer_client, url("power-chain", site["campus"]), rack=rack.pk, as_of="2029-06-01")
        assert chain["rack"]["powered"] is False
        after = get(viewer_client, url("summary", site["campus"]), as_of="2030-01-01")
        assert after["power"]["racks_without_power"] == 0

    def test_impact_on_a_cooling_element_not_yet_in_service_names_it_and_the_day(self, viewer_client):
        """CDU-9 on chiller CH-9 enters service on 2030-01-01; CH-10 is in service but its building is
        retired on 2029-01-01. Asked on 2029-06-01 (or with a chiller among several failed), the answer is
        a 400 naming the element, the day and when it enters or left service, not "no cooling unit"."""
        from tests import factories as f

        site = build_campus()
        campus, building = site["campus"], site["hall"].building
        plant = f.CoolingPlantFactory(campus=campus, building=building, name="CH-9")
        unit = f.CoolingUnitFactory(
            campus=campus, hall=site["hall"], plant=plant, name="CDU-9", in_service_date=date(2030, 1, 1)
        )
        path = url("impact", campus)
        response = viewer_client.get(path, {"device": unit.pk, "kind": "cooling", "as_of": "2029-06-01"})
        assert response.status_code == 400, response.content
        assert response.json() == {
            "device": [
                f"cooling unit {unit.pk} (CDU-9) is not in service on 2029-06-01: it enters service on "
                "2030-01-01"
            ]
        }
        assert get(viewer_client, path, device=unit.pk, kind="cooling", as_of="2030-01-01")["failed"] == [
            {"kind": "cooling", "id": unit.pk, "name": "CDU-9"}
        ]
        m.Building.objects.filter(pk=building.pk).update(retire_date=date(2029, 1, 1))
        states.forget()  # an update() leaves the cached states as they were
        device = site["devices"]["A"][0]
        failed = f"power:{device.pk},plant:{plant.pk}"
        response = viewer_client.get(path, {"failed": failed, "as_of": "2029-06-01"})
        assert response.status_code == 400
        # every element out of service is named: the power device of the retired building too (it was
        # answered, "0 GPUs lost", as a device failing in a chain it is not part of)
        assert response.json() == {
            "failed": [
                f"power device {device.pk} ({device.name}) is not in service on 2029-06-01: it is out of "
                "service from 2029-01-01 (with the building, hall or plant it belongs to)",
                f"cooling plant {plant.pk} (CH-9) is not in service on 2029-06-01: it is out of service from "
                "2029-01-01 (with the building, hall or plant it belongs to)",
            ]
        }
        # an element of no campus day is still "no such element"
        response = viewer_client.get(path, {"device": 10**9, "kind": "cooling", "as_of": "2029-06-01"})
        assert response.status_code == 400 and response.json() == {"device": ["no cooling unit 1000000000"]}


@pytest.mark.django_db
class TestInventoryCountsOfTheDay:
    """build_campus's power chain by hand: SUB, UPS-A, PDU-A, UPS-B, PDU-B = 5 devices; SUB->UPS and UPS->PDU
    on each side (4 feeds) plus an A and a B feed to each of the 4 racks (8) = 12 feeds."""

    def inventory(self, client, site, day):
        return get(client, url("summary", site["campus"]), as_of=day)["inventory"]

    def test_the_campus_as_built_counts_everything(self, viewer_client):
        site = build_campus()
        inv = self.inventory(viewer_client, site, "2026-01-01")
        assert (inv["power_devices"], inv["power_feeds"]) == (5, 12)

    def test_before_anything_is_in_service_nothing_is_counted(self, viewer_client):
        site = build_campus()
        date_everything(date(2030, 1, 1))
        inv = self.inventory(viewer_client, site, "2029-06-01")
        assert inv == {**inv, "racks": 0, "gpus": 0, "power_devices": 0, "power_feeds": 0, "buildings": 0}
        inv = self.inventory(viewer_client, site, "2030-01-01")
        assert (inv["power_devices"], inv["power_feeds"]) == (5, 12)

    def test_feeds_not_yet_in_service_are_not_counted(self, viewer_client):
        """R0's A and B feeds enter service in 2030: 12 - 2 = 10 feeds before, the 5 devices all along."""
        site = build_campus()
        m.PowerFeed.objects.filter(rack=site["racks"][0]).update(in_service_date=date(2030, 1, 1))
        inv = self.inventory(viewer_client, site, "2029-06-01")
        assert (inv["power_devices"], inv["power_feeds"]) == (5, 10)

    def test_a_retired_device_and_the_feeds_at_its_ends_are_not_counted(self, viewer_client):
        """UPS-A retires on 2028-01-01: 4 devices; SUB->UPS-A and UPS-A->PDU-A go, 12 - 2 = 10 feeds (PDU-A and
        its rack feeds stay: there, unpowered)."""
        site = build_campus()
        ups_a = site["devices"]["A"][0]
        m.PowerDevice.objects.filter(pk=ups_a.pk).update(retire_date=date(2028, 1, 1))
        inv = self.inventory(viewer_client, site, "2028-06-01")
        assert (inv["power_devices"], inv["power_feeds"]) == (4, 10)
        assert get(viewer_client, url("summary", site["campus"]), as_of="2028-06-01")["power"]["it_mw"] > 0

    def test_devices_of_a_retired_building_are_not_counted(self, viewer_client):
        site = build_campus()
        m.Building.objects.filter(campus=site["campus"]).update(retire_date=date(2028, 1, 1))
        inv = self.inventory(viewer_client, site, "2028-06-01")
        assert (inv["buildings"], inv["racks"], inv["power_devices"], inv["power_feeds"]) == (0, 0, 0, 0)


def two_buildings():
    """build_campus (building B1: 4 racks, 5 devices, 12 feeds) and a building B2 with everything it can hold:
    hall H2, row W2, rack R4 in W2 with 2 servers, PDU-2 feeding R4, a chiller and a CDU, a pod with a leaf
    switch, a switch in R4, links R4 -> leaf and R4's switch -> leaf, a battery."""
    from tests import factories as f

    site = build_campus()
    campus = site["campus"]
    b2 = f.BuildingFactory(campus=campus, name="B2")
    h2 = f.DataHallFactory(building=b2, name="H2")
    w2 = f.RowFactory(hall=h2, name="W2")
    plant = f.CoolingPlantFactory(campus=campus, building=b2)
    cdu = f.CoolingUnitFactory(campus=campus, hall=h2, plant=plant)
    pod = f.PodFactory(campus=campus, building=b2)
    r4 = f.RackFactory(hall=h2, row=w2, name="R4", cooling_unit=cdu, pod=pod)
    for _ in range(2):
        f.NodeFactory(rack=r4, node_model=site["node_model"])
    pdu2 = f.PowerDeviceFactory(campus=campus, building=b2, kind="pdu", name="PDU-2")
    f.PowerFeedFactory(campus=campus, rack=None, upstream=site["sub"], downstream_device=pdu2, side="A")
    f.PowerFeedFactory(campus=campus, rack=r4, upstream=pdu2, side="A")
    leaf = f.SwitchFactory(campus=campus, pod=pod, name="leaf")
    tor = f.SwitchFactory(campus=campus, rack=r4, name="tor")
    f.LinkFactory(campus=campus, pod=pod, a_rack=r4, b_switch=leaf)
    f.LinkFactory(campus=campus, pod=pod, a_rack=None, a_switch=tor, b_switch=leaf)
    f.EnergyStorageFactory(campus=campus, building=b2)
    return {**site, "b2": b2, "w2": w2, "r4": r4}


@pytest.mark.django_db
class TestInServiceOnFollowsContainment:
    def ids(self, client, route, campus, day):
        body = client.get(
            reverse(f"{route}-list"), {"campus": campus.pk, "in_service_on": day, "limit": 1000}
        )
        assert body.status_code == 200, body.content[:300]
        return {row["id"] for row in body.json()["results"]}

    def test_racks_of_a_retired_building_are_out(self, viewer_client):
        """B2 retires on 2028-06-01: on 2028-07-01 the racks in service are B1's 4 (R4 is in B2), as the
        summary of that day says; on 2028-05-31 all 5."""
        site = two_buildings()
        m.Building.objects.filter(pk=site["b2"].pk).update(retire_date=date(2028, 6, 1))
        campus = site["campus"]
        assert len(self.ids(viewer_client, "rack", campus, "2028-07-01")) == 4
        assert len(self.ids(viewer_client, "rack", campus, "2028-05-31")) == 5
        assert get(viewer_client, url("summary", campus), as_of="2028-07-01")["inventory"]["racks"] == 4
        # B2's row, servers, devices, plant, unit, pod, switches, links and battery are out with it
        for route in ("row", "powerdevice", "coolingplant", "coolingunit", "pod", "switch", "link"):
            then = self.ids(viewer_client, route, campus, "2028-07-01")
            before = self.ids(viewer_client, route, campus, "2028-05-31")
            assert len(before - then) >= 1, route
        assert len(self.ids(viewer_client, "node", campus, "2028-07-01")) == RACKS * NODES_PER_RACK

    @pytest.mark.parametrize(
        "dates",
        [
            {"b2": ("retire_date", date(2028, 6, 1))},
            {"w2": ("retire_date", date(2027, 1, 1))},
            {"r4": ("in_service_date", date(2029, 1, 1)), "b2": ("retire_date", date(2031, 1, 1))},
        ],
        ids=["building", "row", "rack"],
    )
    def test_every_list_agrees_with_the_snapshot_of_the_day(self, viewer_client, dates):
        """The brute-force truth: the ids in service in the snapshot of each day (campus.analysis.phases),
        devices and feeds as the summary counts them."""
        from campus.analysis.phases import in_service_devices, in_service_feeds
        from campus.snapshot_adapter import build_snapshot

        site = two_buildings()
        for key, (field, day) in dates.items():
            obj = site[key]
            type(obj).objects.filter(pk=obj.pk).update(**{field: day})
        campus = site["campus"]
        for day in ("2026-06-01", "2027-06-01", "2028-07-01", "2029-06-01", "2031-06-01"):
            snap = build_snapshot(campus, date.fromisoformat(day))
            truth = {
                "utilityfeed": {u.id for u in snap.utility_feeds},
                "building": {b.id for b in snap.buildings},
                "datahall": {h.id for h in snap.halls},
                "rack": {r.id for r in snap.racks},
                "powerdevice": {d.id for d in in_service_devices(snap)},
                "powerfeed": {fd.id for fd in in_service_feeds(snap)},
                "energystorage": {e.id for e in snap.energy_storage},
                "coolingplant": {p.id for p in snap.cooling_plants},
                "coolingunit": {u.id for u in snap.cooling_units},
                "pod": {p.id for p in snap.pods},
                "switch": {sw.id for sw in snap.switches},
                "link": {ln.id for ln in snap.links},
            }
            for route, expected in truth.items():
                assert self.ids(viewer_client, route, campus, day) == expected, (route, day)
            nodes = sum(n for r in snap.racks for _, n in r.nodes)
            assert len(self.ids(viewer_client, "node", campus, day)) == nodes, day


@pytest.mark.django_db
class TestTimeline:
    def test_two_phases_against_a_phase_one_campus_built_apart(self, viewer_client):
        """Phase 1 (2026-03-01): the building, power chain and racks R0, R1; phase 2 (2027-03-01): R2, R3
        and their servers and feeds. GPUs by hand: 2 racks × 16 = 32, then 64. IT and facility power of
        phase 1 equal those of the same campus built with R2 and R3 deleted."""
        p1, p2 = date(2026, 3, 1), date(2027, 3, 1)
        site = build_campus()
        date_everything(p1)
        late = [r.pk for r in site["racks"][2:]]
        m.Rack.objects.filter(pk__in=late).update(in_service_date=p2)
        m.Node.objects.filter(rack__in=late).update(in_service_date=p2)
        m.PowerFeed.objects.filter(rack__in=late).update(in_service_date=p2)

        alone = build_campus()
        m.Campus.objects.filter(pk=alone["campus"].pk).update(name="phase-1 only")
        m.Rack.objects.filter(pk__in=[r.pk for r in alone["racks"][2:]]).delete()
        reference_1 = get(viewer_client, url("summary", alone["campus"]))["power"]
        states.forget()
        full = build_campus()
        m.Campus.objects.filter(pk=full["campus"].pk).update(name="both phases")
        reference_2 = get(viewer_client, url("summary", full["campus"]))["power"]

        points = get(viewer_client, url("timeline", site["campus"]), as_of="2026-01-01")["points"]
        assert [p["date"] for p in points] == ["2026-01-01", "2026-03-01", "2027-03-01"]
        assert [p["gpus"] for p in points] == [0, 2 * GPUS_PER_RACK, 4 * GPUS_PER_RACK]
        assert points[0]["it_mw"] == 0 and points[0]["facility_mw"] == 0
        for point, ref in ((points[1], reference_1), (points[2], reference_2)):
            assert point["it_mw"] == pytest.approx(ref["it_mw"])
            assert point["facility_mw"] == pytest.approx(ref["facility_mw"])
            assert point["headroom_mw"] == pytest.approx(ref["headroom_after_failover_mw"])
        # each point is the summary of its day
        for p in points:
            s = get(viewer_client, url("summary", site["campus"]), as_of=p["date"])
            assert (p["gpus"], p["it_mw"]) == (s["inventory"]["gpus"], s["power"]["it_mw"])
        # phase 2 adds IT: per rack 2 servers × 10.2 kW at TDP plus the same share of other IT
        assert points[2]["it_mw"] == pytest.approx(2 * points[1]["it_mw"])

    def test_the_state_before_the_first_change_is_shown(self, viewer_client):
        """Nothing dated but R2 and R3 retired 30 days ago: before that day the campus had 4 racks × 16 = 64
        GPUs, after it 2 × 16 = 32. The timeline starts on the day before the retirement with 64."""
        site = build_campus()
        retired = timezone.localdate() - timedelta(days=30)
        m.Rack.objects.filter(pk__in=[r.pk for r in site["racks"][2:]]).update(retire_date=retired)
        points = get(viewer_client, url("timeline", site["campus"]))["points"]
        assert [(p["date"], p["gpus"]) for p in points] == [
            ((retired - timedelta(days=1)).isoformat(), RACKS * GPUS_PER_RACK),
            (retired.isoformat(), 2 * GPUS_PER_RACK),
            (timezone.localdate().isoformat(), 2 * GPUS_PER_RACK),
        ]
        # the first point is the summary of its day
        before = get(viewer_client, url("summary", site["campus"]), as_of=points[0]["date"])
        assert points[0]["it_mw"] == pytest.approx(before["power"]["it_mw"]) and points[0]["it_mw"] > 0
        # asked about a day before the retirement, that day already shows the earlier state: no extra point
        early = (retired - timedelta(days=10)).isoformat()
        points = get(viewer_client, url("timeline", site["campus"]), as_of=early)["points"]
        assert [(p["date"], p["gpus"]) for p in points] == [
            (early, RACKS * GPUS_PER_RACK),
            (retired.isoformat(), 2 * GPUS_PER_RACK),
        ]


@pytest.mark.django_db
def test_a_branch_copies_the_dates_and_the_diff_and_merge_carry_them(planner_client):
    site = build_campus()
    campus = site["campus"]
    m.Rack.objects.filter(pk=site["racks"][0].pk).update(in_service_date=date(2027, 1, 1))
    response = planner_client.post(f"/api/campuses/{campus.pk}/branch/", {"name": "dated"}, format="json")
    assert response.status_code == 201, response.json()
    branch_id = response.json()["id"]
    copy = m.Rack.objects.get(campus_id=branch_id, name="R0")
    assert copy.in_service_date == date(2027, 1, 1)
    patched = planner_client.patch(
        reverse("rack-detail", kwargs={"pk": copy.pk}), {"retire_date": "2031-01-01"}, format="json"
    )
    assert patched.status_code == 200, patched.json()
    body = planner_client.get(f"/api/campuses/{branch_id}/diff/", {"against": campus.pk}).json()
    assert body["objects"]["changed"] == [
        {"model": "rack", "name": "R0", "fields": {"retire_date": [None, "2031-01-01"]}}
    ]
    merged = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
    assert merged.status_code == 200, merged.json()
    assert m.Rack.objects.get(campus_id=campus.pk, name="R0").retire_date == date(2031, 1, 1)
