"""A warning exactly when a write takes a rack further below the declared redundancy, and strict writes
that would warn write nothing: a hypothesis state machine of API writes (docs/api.md, "Redundancy
warnings").

The campus: two racks of one 8-GPU server (10.2 kW) and three PDUs (sources). The machine adds and deletes
rack feeds (single and bulk), changes the PDUs' ratings (300 kW, or 8 kW: short of one rack alone, so
failures cascade and racks go dark at design) and the declared power redundancy, each write plain or
``?strict=true``. The truth is the test's own: before and after each write every single PDU and every pair
of PDUs is failed through impact mode (no pair search, no marks) on the snapshot of the rows, each rack's
level taken from that (N: a single failure or nothing failed loses it; N+1: only a pair; 2N: none), and a
warning is expected exactly when some rack's deficit (declared rank less its level's) grows.
"""

from __future__ import annotations

import itertools

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from campus import state as states
from campus.models import Campus, PowerDevice, PowerFeed, Rack
from campus.snapshot_adapter import build_snapshot
from tests import factories as f
from tests.analysis.test_redundancy_levels import brute_force_levels
from tests.conftest import client_for, make_user

RANK = {"N": 0, "N+1": 1, "2N": 2}


def _deficits(campus_id: int) -> dict[int, int]:
    campus = Campus.objects.get(pk=campus_id)
    declared = RANK.get(campus.power_redundancy or "", -1)
    levels = brute_force_levels(build_snapshot(campus_id, states.today()), "power")
    return {r: max(0, declared - RANK[lv]) for r, lv in levels.items()}


class WarningMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.client = client_for(make_user(f"planner{id(self)}", "planner"))
        self.serial = itertools.count()

    @initialize()
    def campus(self):
        campus = f.CampusFactory(power_redundancy="N+1", cooling_redundancy="")
        hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus))
        racks = [f.RackFactory(hall=hall, campus=campus, x_m=float(2 * i), y_m=0.0) for i in range(2)]
        for rack in racks:
            f.NodeFactory(rack=rack)
        pdus = [f.PowerDeviceFactory(campus=campus, name=f"PDU-{c}", rated_kw=300.0) for c in "ABC"]
        for rack in racks:
            f.PowerFeedFactory(rack=rack, campus=campus, upstream=pdus[0], side="A")
            f.PowerFeedFactory(rack=rack, campus=campus, upstream=pdus[1], side="B")
        self.campus_id = campus.pk

    def teardown(self):
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)
        states.forget()

    def _write(self, method: str, url: str, body, strict: bool) -> None:
        before = _deficits(self.campus_id)
        revision = Campus.objects.get(pk=self.campus_id).revision
        call = getattr(self.client, method)
        response = call(url + ("?strict=true" if strict else ""), body, format="json")
        assert response.status_code < 500
        if response.status_code == 409 and strict:
            # refused: nothing written; the same write without strict must then warn
            assert response.json()["warnings"]
            assert Campus.objects.get(pk=self.campus_id).revision == revision
            response = call(url, body, format="json")
            assert response.status_code in (200, 201), response.content
            assert response.json()["warnings"]
        if response.status_code == 400:
            return  # refused by the inventory rules: nothing written
        after = _deficits(self.campus_id)
        worse = {r for r, d in after.items() if d > before.get(r, 0)}
        answer = response.json() if response.content else {}
        assert response.status_code in (200, 201, 204), answer
        warnings = answer.get("warnings", []) if isinstance(answer, dict) else []
        assert bool(warnings) == bool(worse), (before, after, answer)
        assert {r for w in warnings for r in w["racks_at_risk"]} == worse

    @rule(data=st.data(), strict=st.booleans())
    def add_feed(self, data, strict):
        rack = data.draw(
            st.sampled_from(list(Rack.objects.filter(campus_id=self.campus_id).values_list("pk", flat=True)))
        )
        pdu = data.draw(
            st.sampled_from(
                list(PowerDevice.objects.filter(campus_id=self.campus_id).values_list("pk", flat=True))
            )
        )
        side = data.draw(st.sampled_from(["A", "B"]))
        body = {
            "campus": self.campus_id,
            "upstream": pdu,
            "rack": rack,
            "side": side,
            "name": f"F{next(self.serial)}",
        }
        self._write("post", reverse("powerfeed-list"), body, strict)

    @rule(data=st.data(), strict=st.booleans(), bulk=st.booleans())
    def delete_feed(self, data, strict, bulk):
        feeds = list(PowerFeed.objects.filter(campus_id=self.campus_id).values_list("pk", flat=True))
        if not feeds:
            return
        pk = data.draw(st.sampled_from(feeds))
        if bulk:
            self._write("delete", reverse("powerfeed-list"), [{"id": pk}], strict)
        else:
            self._write("delete", reverse("powerfeed-detail", kwargs={"pk": pk}), None, strict)

    @rule(data=st.data(), strict=st.booleans(), rated=st.sampled_from([300.0, 8.0]))
    def rate_pdu(self, data, strict, rated):
        pdu = data.draw(
            st.sampled_from(
                list(PowerDevice.objects.filter(campus_id=self.campus_id).values_list("pk", flat=True))
            )
        )
        self._write("patch", reverse("powerdevice-detail", kwargs={"pk": pdu}), {"rated_kw": rated}, strict)

    @rule(strict=st.booleans(), level=st.sampled_from(["N", "N+1", "2N", ""]))
    def declare(self, strict, level):
        url = reverse("campus-detail", kwargs={"pk": self.campus_id})
        self._write("patch", url, {"power_redundancy": level}, strict)

    @invariant()
    def nothing_half_written(self):
        # every feed the machine kept is whole (a refused bulk or strict write leaves none behind)
        assert not PowerFeed.objects.filter(
            campus_id=self.campus_id, rack__isnull=True, downstream_device__isnull=True
        ).exists()


@pytest.mark.django_db(transaction=False)
def test_a_warning_exactly_when_a_write_takes_a_rack_further_below_the_declared_level():
    run_state_machine_as_test(
        WarningMachine,
        settings=settings(
            max_examples=8,
            stateful_step_count=6,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
