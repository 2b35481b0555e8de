"""Random sequences of valid and invalid API writes against two campuses never corrupt the inventory.

A hypothesis state machine creates, moves and deletes racks, devices, feeds and NVL72 trays through the
REST API (single and bulk), including loop-closing feeds, references into the other campus, racks on
another rack's tiles and misspelt fields, and moves and resizes halls and buildings under their contents;
it installs 8U servers (with and without service dates), shrinks racks' units and design power and dates or
fails single NVL72 trays. After every step the invariants are checked on the database by
brute force, with algorithms of the test's own (Kahn's topological sort, all pairs of racks, every day a
server enters or leaves service), not the code under test; and every analytics endpoint of both campuses
answers 200 or 4xx, never 500.
"""

from __future__ import annotations

import copy
import datetime
import itertools
from collections import defaultdict

import pytest
from django.db import transaction
from django.db.models import Count, F
from django.urls import reverse
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from campus import state as states
from campus.catalog_data import NIC_KINDS
from campus.interchange.importer import import_campus
from campus.models import Building, CoolingUnit, DataHall, Node, NodeModel, Pod, PowerDevice, PowerFeed, Rack
from tests.conftest import client_for, make_user
from tests.interchange.conftest import SMALL_SPEC

CAMPUS_ENDPOINTS = ("summary", "redundancy", "stranded", "floor-map")
UNKNOWN_FIELDS = ("rated_kwh", "design_kW", "hall_id", "colour")


def _acyclic(edges: list[tuple[int, int]]) -> bool:
    """Kahn's algorithm: a graph is acyclic when every node can be removed in topological order."""
    indegree: dict[int, int] = defaultdict(int)
    children: dict[int, list[int]] = defaultdict(list)
    nodes = set()
    for up, down in edges:
        children[up].append(down)
        indegree[down] += 1
        nodes |= {up, down}
    ready = [n for n in nodes if indegree[n] == 0]
    removed = 0
    while ready:
        node = ready.pop()
        removed += 1
        for child in children[node]:
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    return removed == len(nodes)


def _days_in_service(nodes) -> dict:
    """For each day a server enters or leaves service (and the start), the servers in service that day."""
    days = {datetime.date.min} | {d for n in nodes for d in (n.in_service_date, n.retire_date) if d}
    return {
        day: [
            n
            for n in nodes
            if (n.in_service_date is None or n.in_service_date <= day)
            and (n.retire_date is None or n.retire_date > day)
        ]
        for day in days
    }


def _server_kw(model) -> float:
    gpu = model.gpu_model
    nic_w = NIC_KINDS.get(model.nic_kind, {}).get("extra_w_per_nic", 0.0)
    return (model.gpus_per_node * gpu.tdp_w + model.overhead_w + model.nics * nic_w) / 1000.0


def _overlap(a: Rack, b: Rack) -> bool:
    eps = 1e-6
    return (
        a.x_m < b.x_m + b.width_m - eps
        and b.x_m < a.x_m + a.width_m - eps
        and a.y_m < b.y_m + b.depth_m - eps
        and b.y_m < a.y_m + a.depth_m - eps
    )


class InventoryMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        # Each example runs in a savepoint rolled back at teardown: examples start from the same campuses.
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.client = client_for(make_user(f"planner{id(self)}", "planner"))
        self.serial = itertools.count()
        self.statuses: list[int] = []

    @initialize()
    def two_campuses(self):
        one = import_campus(copy.deepcopy(SMALL_SPEC))
        spec = copy.deepcopy(SMALL_SPEC)
        spec["campus"]["name"] = "Other"
        two = import_campus(spec)
        self.campuses = [one.pk, two.pk]
        self.tray = NodeModel.objects.get(slug="gb200-nvl72-tray").pk
        self.h100 = NodeModel.objects.get(slug="hgx-h100-8").pk  # 8U, 10.2 kW

    def teardown(self):
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)
        states.forget()

    # ------------------------------------------------------------ helpers

    def _pick(self, model, data, campus=None, **filters):
        qs = model.objects.filter(**filters)
        if campus is not None:
            field = "building__campus_id" if model is DataHall else "campus_id"
            qs = qs.filter(**{field: campus})
        ids = list(qs.order_by("pk").values_list("pk", flat=True))
        return data.draw(st.sampled_from(ids)) if ids else None

    def _write(self, method: str, url: str, body) -> int:
        response = getattr(self.client, method)(url, body, format="json")
        assert response.status_code < 500, (method, url, body, response.content)
        self.statuses.append(response.status_code)
        return response.status_code

    # ------------------------------------------------------------ rules

    @rule(
        data=st.data(),
        x=st.floats(0, 19.4),
        y=st.floats(0, 18.8),
        foreign=st.sampled_from([None, "cooling_unit", "pod", "hall"]),
        unknown=st.sampled_from([None, *UNKNOWN_FIELDS]),
    )
    def create_rack(self, data, x, y, foreign, unknown):
        campus = data.draw(st.sampled_from(self.campuses))
        other = next(c for c in self.campuses if c != campus)
        pick = {name: other if name == foreign else campus for name in ("cooling_unit", "pod", "hall")}
        body = {
            "campus": campus,
            "hall": self._pick(DataHall, data, pick["hall"]),
            "cooling_unit": self._pick(CoolingUnit, data, pick["cooling_unit"]),
            "pod": self._pick(Pod, data, pick["pod"]),
            "name": f"R-{next(self.serial)}",
            "x_m": round(x, 2),
            "y_m": round(y, 2),
            "design_kw": 140.0,  # room for a GB200 NVL72: 18 x 7.33 kW = 131.94 kW
        }
        if unknown:
            body[unknown] = 1
        status = self._write("post", "/api/racks/", body)
        if foreign or unknown:
            assert status == 400

    @rule(data=st.data(), dx=st.floats(-2, 2), dy=st.floats(-2, 2))
    def move_rack(self, data, dx, dy):
        pk = self._pick(Rack, data)
        if pk is not None:
            rack = Rack.objects.get(pk=pk)
            body = {"x_m": round(max(0.0, rack.x_m + dx), 2), "y_m": round(max(0.0, rack.y_m + dy), 2)}
            self._write("patch", f"/api/racks/{pk}/", body)

    @rule(data=st.data(), count=st.integers(2, 3), spread=st.floats(0, 1.0))
    def bulk_create_racks(self, data, count, spread):
        campus = data.draw(st.sampled_from(self.campuses))
        hall = self._pick(DataHall, data, campus)
        body = [
            {
                "campus": campus,
                "hall": hall,
                "name": f"B-{next(self.serial)}",
                "x_m": round(12.0 + i * spread, 2),
                "y_m": 14.0,
                "design_kw": 10.0,
            }
            for i in range(count)
        ]
        before = Rack.objects.count()
        status = self._write("post", "/api/racks/", body)
        if status >= 400:
            assert Rack.objects.count() == before  # one bad row writes nothing

    @rule(
        data=st.data(),
        x=st.sampled_from([0.0, 5.0, 30.0, -1.0]),
        size=st.floats(2.0, 30.0),
        bulk=st.booleans(),
    )
    def move_or_resize_hall(self, data, x, size, bulk):
        pk = self._pick(DataHall, data)
        if pk is not None:
            body = {"x_m": x, data.draw(st.sampled_from(["width_m", "length_m"])): round(size, 2)}
            if bulk:
                self._write("patch", "/api/halls/", [{"id": pk, **body}])
            else:
                self._write("patch", f"/api/halls/{pk}/", body)

    @rule(data=st.data(), size=st.floats(10.0, 70.0))
    def resize_building(self, data, size):
        pk = self._pick(Building, data)
        if pk is not None:
            body = {data.draw(st.sampled_from(["width_m", "length_m"])): round(size, 2)}
            self._write("patch", f"/api/buildings/{pk}/", body)

    @rule(data=st.data())
    def delete_rack(self, data):
        pk = self._pick(Rack, data)
        if pk is not None:
            self._write("delete", f"/api/racks/{pk}/", None)

    @rule(data=st.data(), kind=st.sampled_from(["pdu", "ups", "rpp"]), foreign_hall=st.booleans())
    def create_device(self, data, kind, foreign_hall):
        campus = data.draw(st.sampled_from(self.campuses))
        other = next(c for c in self.campuses if c != campus)
        body = {
            "campus": campus,
            "name": f"D-{next(self.serial)}",
            "kind": kind,
            "rated_kw": 200.0,
            "hall": self._pick(DataHall, data, other if foreign_hall else campus),
        }
        status = self._write("post", "/api/power-devices/", body)
        if foreign_hall:
            assert status == 400

    @rule(data=st.data(), bulk=st.booleans())
    def create_feed(self, data, bulk):
        # Any two devices of either campus: many of these close a loop or cross campuses.
        campus = data.draw(st.sampled_from(self.campuses))
        up, down = self._pick(PowerDevice, data), self._pick(PowerDevice, data)
        body = {"campus": campus, "upstream": up, "downstream_device": down, "side": "A", "rating_kw": 100.0}
        before = PowerFeed.objects.count()
        status = self._write("post", "/api/power-feeds/", [body, {**body}] if bulk else body)
        if status >= 400:
            assert PowerFeed.objects.count() == before

    @rule(data=st.data())
    def repoint_feed(self, data):
        pk = self._pick(PowerFeed, data, downstream_device__isnull=False)
        if pk is not None:
            self._write("patch", f"/api/power-feeds/{pk}/", {"upstream": self._pick(PowerDevice, data)})

    @rule(data=st.data())
    def delete_feed(self, data):
        pk = self._pick(PowerFeed, data)
        if pk is not None:
            self._write("delete", f"/api/power-feeds/{pk}/", None)

    @rule(data=st.data(), count=st.sampled_from([1, 5, 17, 18, 18]))
    def install_trays(self, data, count):
        rack = self._pick(Rack, data)
        if rack is None:
            return
        body = [
            {"rack": rack, "node_model": self.tray, "name": f"T-{next(self.serial)}"} for _ in range(count)
        ]
        status = self._write("post", "/api/nodes/", body if count > 1 else body[0])
        if count != 18:
            assert status == 400

    @rule(
        data=st.data(),
        count=st.integers(1, 7),
        dated=st.sampled_from([None, "2027-01-01", "2028-01-01"]),
    )
    def install_servers(self, data, count, dated):
        rack = self._pick(Rack, data)
        if rack is None:
            return
        extra = {"in_service_date": dated} if dated else {}
        body = [
            {"rack": rack, "node_model": self.h100, "name": f"S-{next(self.serial)}", **extra}
            for _ in range(count)
        ]
        before = Node.objects.count()
        status = self._write("post", "/api/nodes/", body if count > 1 else body[0])
        if status >= 400:
            assert Node.objects.count() == before

    @rule(
        data=st.data(),
        field=st.sampled_from(["rack_units", "design_kw"]),
        value=st.sampled_from([0, 5, 8, 24, 48]),
        bulk=st.booleans(),
    )
    def shrink_rack(self, data, field, value, bulk):
        pk = self._pick(Rack, data)
        if pk is not None:
            if bulk:
                self._write("patch", "/api/racks/", [{"id": pk, field: value}])
            else:
                self._write("patch", f"/api/racks/{pk}/", {field: value})

    @rule(data=st.data(), field=st.sampled_from(["retire_date", "in_service_date", "status"]))
    def change_one_tray(self, data, field):
        pk = self._pick(Node, data, node_model_id=self.tray)
        if pk is not None:
            value = "failed" if field == "status" else "2027-06-01"
            status = self._write("patch", f"/api/nodes/{pk}/", {field: value})
            # A failed tray is an operational state; dates that split the domain are refused.
            assert status == (200 if field == "status" else 400)

    @rule(data=st.data())
    def remove_a_tray(self, data):
        pk = self._pick(Node, data, node_model_id=self.tray)
        if pk is not None:
            assert self._write("delete", f"/api/nodes/{pk}/", None) == 400

    @rule(data=st.data(), field=st.sampled_from(UNKNOWN_FIELDS))
    def misspelt_field(self, data, field):
        pk = self._pick(PowerDevice, data)
        if pk is not None:
            assert self._write("patch", f"/api/power-devices/{pk}/", {field: 100}) == 400

    # ------------------------------------------------------------ invariants

    @invariant()
    def power_graph_is_acyclic(self):
        for campus in getattr(self, "campuses", ()):
            edges = PowerFeed.objects.filter(campus_id=campus, downstream_device__isnull=False)
            assert _acyclic(list(edges.values_list("upstream_id", "downstream_device_id")))

    @invariant()
    def references_stay_in_campus(self):
        crossing = (
            Rack.objects.exclude(hall__building__campus_id=F("campus_id")).count()
            + Rack.objects.filter(cooling_unit__isnull=False)
            .exclude(cooling_unit__campus_id=F("campus_id"))
            .count()
            + Rack.objects.filter(pod__isnull=False).exclude(pod__campus_id=F("campus_id")).count()
            + PowerFeed.objects.exclude(upstream__campus_id=F("campus_id")).count()
            + PowerFeed.objects.filter(downstream_device__isnull=False)
            .exclude(downstream_device__campus_id=F("campus_id"))
            .count()
            + PowerDevice.objects.filter(hall__isnull=False)
            .exclude(hall__building__campus_id=F("campus_id"))
            .count()
        )
        assert crossing == 0

    @invariant()
    def racks_do_not_overlap(self):
        by_hall = defaultdict(list)
        for rack in Rack.objects.all():
            by_hall[rack.hall_id].append(rack)
        for racks in by_hall.values():
            for a, b in itertools.combinations(racks, 2):
                assert not _overlap(a, b), (a.name, b.name)

    @invariant()
    def racks_inside_halls_inside_buildings(self):
        eps = 1e-6
        for rack in Rack.objects.select_related("hall"):
            assert -eps <= rack.x_m and rack.x_m + rack.width_m <= rack.hall.width_m + eps, rack.name
            assert -eps <= rack.y_m and rack.y_m + rack.depth_m <= rack.hall.length_m + eps, rack.name
        for hall in DataHall.objects.select_related("building"):
            assert -eps <= hall.x_m and hall.x_m + hall.width_m <= hall.building.width_m + eps, hall.name
            assert -eps <= hall.y_m and hall.y_m + hall.length_m <= hall.building.length_m + eps, hall.name

    @invariant()
    def nvl72_racks_are_whole(self):
        counts = (
            Node.objects.filter(node_model_id=getattr(self, "tray", -1))
            .values("rack")
            .annotate(n=Count("id"))
        )
        assert all(row["n"] == 18 for row in counts)

    @invariant()
    def racks_hold_their_servers_on_every_day(self):
        by_rack = defaultdict(list)
        for node in Node.objects.select_related("node_model__gpu_model"):
            by_rack[node.rack_id].append(node)
        for rack in Rack.objects.filter(pk__in=list(by_rack)):
            for day, nodes in _days_in_service(by_rack[rack.pk]).items():
                units = sum(n.node_model.rack_units for n in nodes)
                kw = sum(_server_kw(n.node_model) for n in nodes) + rack.extra_it_kw
                assert units <= rack.rack_units, (rack.name, day, units)
                assert kw <= rack.design_kw + 0.01, (rack.name, day, kw)
                trays = sum(1 for n in nodes if n.node_model_id == self.tray)
                assert trays in (0, 18), (rack.name, day, trays)

    @invariant()
    def analytics_never_fail(self):
        for campus in getattr(self, "campuses", ()):
            for name in CAMPUS_ENDPOINTS:
                response = self.client.get(reverse(f"campus-{name}", kwargs={"pk": campus}))
                assert response.status_code < 500, (name, response.content)
            device = PowerDevice.objects.filter(campus_id=campus).order_by("pk").first()
            rack = Rack.objects.filter(campus_id=campus).order_by("pk").first()
            if device is not None:
                url = reverse("campus-impact", kwargs={"pk": campus})
                assert self.client.get(url, {"device": device.pk, "kind": "power"}).status_code < 500
            if rack is not None:
                url = reverse("campus-power-chain", kwargs={"pk": campus})
                assert self.client.get(url, {"rack": rack.pk}).status_code < 500


@pytest.mark.django_db(transaction=False)
def test_random_writes_keep_the_inventory_valid_and_the_analytics_answering():
    run_state_machine_as_test(
        InventoryMachine,
        settings=settings(
            max_examples=15,
            stateful_step_count=10,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
