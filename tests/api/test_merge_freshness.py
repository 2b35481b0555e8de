"""A merge's writes reach every process's analytics, and its history says what each field was before.

The analytics cache keeps a campus's state while the campus's revision is unchanged. A merge writes the
parent's changed rows in bulk; they must raise the parent's revision (and carry a new ``last_updated`` as a
save does), or a process that had read the parent keeps showing the design before the merge. Each test reads the parent once before the merge (the cache is warm), then after.

Truth, by hand: the phased campus is 1,024 H100 in B1 from 2026-01-01 and 1,024 in B2 from 2027-06-01
(docs/generator.md, "Phases"), so on 2028-01-02 it has 2,048 GPUs in service; with B1 retired on
2028-01-01 only B2's 1,024 remain. A PDU whose rating is raised tenfold while its twins (same rating, same
load) keep theirs can no longer be the binding device after failover.
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from campus import state as states
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Building, PowerDevice
from tests.conftest import client_for, make_user
from twin.api.history import BASELINE_REASON

AS_OF = "2028-01-02"


@pytest.fixture
def planner_client(db):
    return client_for(make_user("merge-planner", "planner"))


@pytest.fixture(autouse=True)
def _fresh_analytics():
    states.forget()
    yield
    states.forget()


@pytest.fixture
def phased(db, settings):
    settings.TWIN_JOB_THRESHOLD_GPUS = 1_000_000  # branch inline
    spec = generate_spec(
        "Phased",
        phases=[
            {"date": "2026-01-01", "gpus": 1024, "gpu_model": "h100-sxm"},
            {"date": "2027-06-01", "gpus": 1024, "gpu_model": "h100-sxm"},
        ],
    )
    return import_campus(spec)


def branch(client, campus_id: int) -> int:
    response = client.post(f"/api/campuses/{campus_id}/branch/", {"name": "Phased – try"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def merge(client, branch_id: int) -> dict:
    response = client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def summary(client, campus_id: int, **params) -> dict:
    response = client.get(f"/api/campuses/{campus_id}/summary/", params)
    assert response.status_code == 200, response.content
    return response.json()


def timeline(client, campus_id: int) -> dict:
    response = client.get(f"/api/campuses/{campus_id}/timeline/")
    assert response.status_code == 200, response.content
    today = timezone.localdate().isoformat()  # the timeline's as_of point, not a change date
    return {p["date"]: p["gpus"] for p in response.json()["points"] if p["date"] != today}


def test_a_merged_retirement_reaches_a_warm_summary_timeline_and_racks(planner_client, phased):
    parent = phased.pk
    assert summary(planner_client, parent, as_of=AS_OF)["inventory"]["gpus"] == 2048  # warm, by hand
    assert timeline(planner_client, parent) == {"2026-01-01": 1024, "2027-06-01": 2048}
    branch_id = branch(planner_client, parent)
    b1 = Building.objects.get(campus_id=branch_id, name="B1")
    response = planner_client.patch(f"/api/buildings/{b1.pk}/", {"retire_date": "2028-01-01"}, format="json")
    assert response.status_code == 200, response.content
    assert merge(planner_client, branch_id)["changed"] == 1

    assert summary(planner_client, parent, as_of=AS_OF)["inventory"]["gpus"] == 1024
    assert summary(planner_client, parent, as_of="2027-12-31")["inventory"]["gpus"] == 2048
    # B1's 1,024 leave service on 2028-01-01: one more point on the timeline.
    assert timeline(planner_client, parent) == {"2026-01-01": 1024, "2027-06-01": 2048, "2028-01-01": 1024}
    # The rows agree (an independent path: the list filter reads the table, not the analytics cache).
    racks = planner_client.get("/api/racks/", {"campus": parent, "in_service_on": AS_OF}).json()
    assert racks["count"] == 32  # B2's racks only (64 in all, 32 per phase)
    assert summary(planner_client, branch_id, as_of=AS_OF)["inventory"]["gpus"] == 1024


def test_a_merged_pdu_rating_moves_a_warm_summarys_binding(planner_client, phased):
    parent = phased.pk
    binding = summary(planner_client, parent)["power"]["headroom_binding"]
    assert binding["kind"] == "pdu"
    old = PowerDevice.objects.get(pk=binding["id"])
    twins = PowerDevice.objects.filter(campus=phased, kind=old.kind, rated_kw=old.rated_kw).exclude(pk=old.pk)
    assert twins.exists()  # the same rating elsewhere: another device binds once this one is raised
    branch_id = branch(planner_client, parent)
    pdu = PowerDevice.objects.get(campus_id=branch_id, name=old.name)
    raised = old.rated_kw * 10
    response = planner_client.patch(f"/api/power-devices/{pdu.pk}/", {"rated_kw": raised}, format="json")
    assert response.status_code == 200, response.content
    assert merge(planner_client, branch_id)["changed"] == 1

    after = summary(planner_client, parent)["power"]["headroom_binding"]
    assert after["name"] != old.name
    ours = summary(planner_client, branch_id)["power"]["headroom_binding"]
    assert (after["name"], after["failure"]["name"]) == (ours["name"], ours["failure"]["name"])
    assert PowerDevice.objects.get(pk=after["id"]).campus_id == parent


def test_a_merges_history_records_each_changed_fields_value_before_then_after(planner_client, phased):
    """As an API change does (docs/api.md, "Change history"): the generated rows were written in bulk,
    without history, so the merge first records their state before it, then the merge's change."""
    old = PowerDevice.objects.get(campus=phased, name="B1-H1-R01-PDU-A1")  # its rating, read from the row
    branch_id = branch(planner_client, phased.pk)
    pdu = PowerDevice.objects.get(campus_id=branch_id, name=old.name)
    raised = old.rated_kw + 150.0
    response = planner_client.patch(f"/api/power-devices/{pdu.pk}/", {"rated_kw": raised}, format="json")
    assert response.status_code == 200, response.content
    assert merge(planner_client, branch_id)["changed"] == 1

    # The history of the merge says what the rating was before, then what it is now.
    entries = planner_client.get(f"/api/power-devices/{old.pk}/history/").json()
    entries = entries["results"] if isinstance(entries, dict) else entries
    merged = entries[0]
    assert merged["type"] == "~"
    assert merged["reason"] == f'Merge of branch "Phased – try" (campus {branch_id})'
    assert merged["changes"] == [{"field": "rated_kw", "old": old.rated_kw, "new": raised}]
    assert merged["user"]["username"] == "merge-planner"
    assert entries[1]["reason"] == BASELINE_REASON  # the state before, recorded first
