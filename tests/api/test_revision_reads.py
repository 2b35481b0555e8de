"""Every read after a write shows the write: the campus's revision grows with each write, whatever its path,
and the cached figures keyed on it follow at once.

A hypothesis state machine writes to a campus through the REST API (servers added one by one and in bulk,
deleted; racks created, changed one by one and in bulk, deleted; halls renamed; a node model's power in the
catalog), through a queryset ``update()`` that sends no signal (as a job or a merge writes) and through the
spec importer. After every step, against the same process's caches (never forgotten between steps):

- the revision grew after a write that was accepted, and did not move after one that was refused;
- the summary's GPU and rack counts, the floor map's racks (design power, GPUs) and halls (names), and each
  rack's power block in the racks list (GPUs, design power, IT load) equal what the test works out itself
  from the rows (GPUs per server from the node model, a server's power as the catalog's sum of its parts).
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter

import pytest
from django.db import transaction
from django.db.models import F
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from campus import state as states
from campus.catalog_data import NIC_KINDS
from campus.choices import NodeStatus
from campus.interchange.importer import import_campus
from campus.models import Campus, DataHall, Node, NodeModel, Rack
from tests.conftest import client_for, make_user
from tests.interchange.conftest import SMALL_SPEC


def _server_kw(model: NodeModel) -> float:
    gpu = model.gpu_model
    nic_w = NIC_KINDS.get(model.nic_kind, {}).get("extra_w_per_nic", 0.0)
    return (model.gpus_per_node * gpu.tdp_w + model.overhead_w + model.nics * nic_w) / 1000.0


def _expected_racks(campus_id: int) -> dict[str, dict]:
    """Each rack's figures worked out from the rows: active servers' GPUs and power, design power."""
    out = {}
    for rack in Rack.objects.filter(campus_id=campus_id):
        servers = [
            n.node_model
            for n in Node.objects.filter(rack=rack, status=NodeStatus.ACTIVE).select_related(
                "node_model__gpu_model"
            )
        ]
        out[rack.name] = {
            "gpus": sum(m.gpus_per_node for m in servers),
            "design_kw": rack.design_kw,
            "it_load_kw": sum(_server_kw(m) for m in servers) + rack.extra_it_kw,
        }
    return out


class WriteThenReadMachine(RuleBasedStateMachine):
    # (method, accepted) of every API write over all examples: the test is not vacuous
    writes: Counter = Counter()

    def __init__(self):
        super().__init__()
        # Each example runs in a savepoint rolled back at teardown; the caches are those of the process.
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.client = client_for(make_user(f"revision{id(self)}", "admin"))
        self.serial = itertools.count()
        self.accepted: bool | None = None  # the last step's write: accepted, refused, or none made

    @initialize()
    def imported_campus(self):
        self.campus = import_campus(copy.deepcopy(SMALL_SPEC)).pk
        self.h100 = NodeModel.objects.get(slug="hgx-h100-8").pk
        self.revision = Campus.objects.get(pk=self.campus).revision

    def teardown(self):
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)
        states.forget()

    # ------------------------------------------------------------ helpers

    def _pick(self, queryset, data):
        ids = list(queryset.order_by("pk").values_list("pk", flat=True))
        return data.draw(st.sampled_from(ids)) if ids else None

    def _write(self, method: str, url: str, body=None) -> int:
        response = getattr(self.client, method)(url, body, format="json")
        assert response.status_code < 500, (method, url, body, response.content)
        self.accepted = response.status_code < 300
        self.writes[(method, self.accepted)] += 1
        return response.status_code

    # ------------------------------------------------------------ writes

    @rule(data=st.data(), count=st.integers(1, 2), bulk=st.booleans())
    def add_servers(self, data, count, bulk):
        rack = self._pick(Rack.objects.filter(campus_id=self.campus), data)
        if rack is None:
            return
        bodies = [
            {"rack": rack, "node_model": self.h100, "name": f"S-{next(self.serial)}"} for _ in range(count)
        ]
        self._write("post", "/api/nodes/", bodies if bulk else bodies[0])

    @rule(data=st.data())
    def delete_server(self, data):
        pk = self._pick(Node.objects.filter(rack__campus_id=self.campus), data)
        if pk is not None:
            self._write("delete", f"/api/nodes/{pk}/")

    @rule(data=st.data(), design_kw=st.sampled_from([20.0, 45.5, 90.0, 140.0]), bulk=st.booleans())
    def change_rack_design_power(self, data, design_kw, bulk):
        pk = self._pick(Rack.objects.filter(campus_id=self.campus), data)
        if pk is None:
            return
        if bulk:
            self._write("patch", "/api/racks/", [{"id": pk, "design_kw": design_kw}])
        else:
            self._write("patch", f"/api/racks/{pk}/", {"design_kw": design_kw})

    @rule(data=st.data(), x=st.floats(0, 19.0), y=st.floats(0, 18.0))
    def create_rack(self, data, x, y):
        hall = self._pick(DataHall.objects.filter(building__campus_id=self.campus), data)
        body = {
            "campus": self.campus,
            "hall": hall,
            "name": f"R-{next(self.serial)}",
            "x_m": round(x, 2),
            "y_m": round(y, 2),
            "design_kw": 60.0,
        }
        self._write("post", "/api/racks/", body)

    @rule(data=st.data())
    def delete_rack(self, data):
        pk = self._pick(Rack.objects.filter(campus_id=self.campus), data)
        if pk is not None:
            self._write("delete", f"/api/racks/{pk}/")

    @rule(data=st.data())
    def rename_hall(self, data):
        pk = self._pick(DataHall.objects.filter(building__campus_id=self.campus), data)
        if pk is not None:
            self._write("patch", f"/api/halls/{pk}/", {"name": f"Hall {next(self.serial)}"})

    @rule(overhead_w=st.sampled_from([2000.0, 4600.0, 5000.0]))
    def change_server_power_in_the_catalog(self, overhead_w):
        self._write("patch", f"/api/node-models/{self.h100}/", {"overhead_w": overhead_w})

    @rule(step_kw=st.sampled_from([1.0, 2.5]))
    def queryset_update_without_signals(self, step_kw):
        changed = Rack.objects.filter(campus_id=self.campus).update(design_kw=F("design_kw") + step_kw)
        self.accepted = changed > 0 or None

    @rule()
    def import_into_another_campus(self):
        spec = copy.deepcopy(SMALL_SPEC)
        spec["campus"]["name"] = f"Imported {next(self.serial)}"
        other = import_campus(spec)
        # the new campus reads right at once; this campus's revision does not move
        body = self.client.get(f"/api/campuses/{other.pk}/summary/").json()
        assert body["inventory"]["gpus"] == sum(r["gpus"] for r in _expected_racks(other.pk).values())
        self.accepted = None

    # ------------------------------------------------------------ reads

    @invariant()
    def the_revision_grew_with_each_accepted_write(self):
        if not hasattr(self, "campus"):
            return
        now = Campus.objects.get(pk=self.campus).revision
        if self.accepted is True:
            assert now > self.revision
        elif self.accepted is False:
            assert now == self.revision
        self.revision, self.accepted = now, None

    @invariant()
    def every_read_shows_the_rows(self):
        if not hasattr(self, "campus"):
            return
        expected = _expected_racks(self.campus)
        summary = self.client.get(f"/api/campuses/{self.campus}/summary/").json()
        assert summary["inventory"]["racks"] == len(expected)
        assert summary["inventory"]["gpus"] == sum(r["gpus"] for r in expected.values())

        floor = self.client.get(f"/api/campuses/{self.campus}/floor-map/").json()
        columns = floor["rack_columns"]
        shown = {row[columns.index("name")]: dict(zip(columns, row, strict=True)) for row in floor["racks"]}
        assert set(shown) == set(expected)
        for name, figures in expected.items():
            assert shown[name]["design_kw"] == figures["design_kw"], name
            assert shown[name]["gpus"] == figures["gpus"], name
        halls = {h["name"] for b in floor["buildings"] for h in b["halls"]}
        assert halls == set(
            DataHall.objects.filter(building__campus_id=self.campus).values_list("name", flat=True)
        )

        page = self.client.get(f"/api/racks/?campus={self.campus}&limit=1000").json()
        listed = {r["name"]: r["power"] for r in page["results"]}
        assert set(listed) == set(expected)
        for name, figures in expected.items():
            assert listed[name]["gpus"] == figures["gpus"], name
            assert listed[name]["design_kw"] == figures["design_kw"], name
            assert listed[name]["it_load_kw"] == pytest.approx(figures["it_load_kw"], abs=1e-3), name


@pytest.mark.django_db
def test_every_read_after_a_write_shows_it():
    WriteThenReadMachine.writes.clear()
    run_state_machine_as_test(
        WriteThenReadMachine,
        settings=settings(
            max_examples=8,
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )
    accepted = {method for (method, ok), n in WriteThenReadMachine.writes.items() if ok and n}
    assert accepted == {"post", "patch", "delete"}, WriteThenReadMachine.writes
