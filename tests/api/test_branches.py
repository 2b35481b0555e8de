"""Design branches: branch, diff, merge (campus.branching, docs/planning.md).

The truth comes from outside the code under test: the campus spec exporter (a branch exports as its parent
does, a merged parent as its branch), the summary endpoint (figures of a merged parent equal the branch's),
row counts of every model of the campus app (a branch doubles each), and hand-made edits whose fields the
diff must name exactly.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from django.apps import apps
from django.db import transaction
from django.db.models.signals import post_save
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus import state as states
from campus.api.branch_views import _figure, campus_gpus, diff_key
from campus.interchange.exporter import export_campus
from campus.interchange.importer import import_campus
from campus.models import (
    BranchBase,
    Campus,
    CampusWeather,
    DataHall,
    FailureRate,
    GPUModel,
    Job,
    LinkMedium,
    MeasurementRollup,
    NodeModel,
    PowerDevice,
    PrometheusSource,
    Rack,
    SwitchModel,
)
from campus.tasks import run_job
from tests.conftest import client_for, make_user
from tests.interchange.conftest import SMALL_SPEC

# Shared by every campus (not copied by a branch), bookkeeping of branches, or how a campus was made (jobs).
# measurements are what the site shows, not its design: a branch (a what-if design) starts without them
NOT_INVENTORY = {
    Campus,
    BranchBase,
    GPUModel,
    NodeModel,
    SwitchModel,
    LinkMedium,
    FailureRate,
    Job,
    MeasurementRollup,
    PrometheusSource,
}


def campus_app_models() -> list[type]:
    """Every model of the campus app but the history tables and the shared catalog."""
    return [
        m
        for m in apps.get_app_config("campus").get_models()
        if m not in NOT_INVENTORY and getattr(m, "instance_type", None) is None
    ]


def small_campus(name: str = "Small") -> Campus:
    spec = copy.deepcopy(SMALL_SPEC)
    spec["campus"]["name"] = name
    spec.setdefault("energy_storage", []).append(
        {"name": "BESS-1", "building": "B1", "power_device": "SUB-A", "power_mw": 0.5, "energy_mwh": 2.0}
    )
    spec.setdefault("storage_systems", []).append(
        {"name": "FS-1", "building": "B1", "capacity_pb": 2.0, "read_gb_s": 100.0, "write_gb_s": 80.0}
    )
    campus = import_campus(spec)
    hours = np.linspace(-5.0, 30.0, 8760)
    CampusWeather.objects.create(
        campus=campus,
        source="Testville EPW",
        pressure_pa=101_325.0,
        hours=CampusWeather.pack(hours, hours - 3.0, np.full(8760, 0.5)),
    )
    return campus


def spec_without_name(campus_id: int) -> dict:
    spec = export_campus(campus_id)
    spec["campus"].pop("name")
    return spec


def _without_ids(value):
    """A summary with the ids taken out (they differ between copies): id keys dropped, id lists counted,
    dicts keyed by id turned into their sorted values."""
    if isinstance(value, dict):
        if value and all(str(k).isdigit() for k in value):
            return sorted((_without_ids(v) for v in value.values()), key=repr)
        return {
            k: (len(v) if k.startswith("racks") and isinstance(v, list) else _without_ids(v))
            for k, v in value.items()
            if k != "id" and not k.endswith("_id")
        }
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return value


def summary_figures(client, campus_id: int) -> dict:
    body = client.get(f"/api/campuses/{campus_id}/summary/").json()
    body.pop("campus")
    return _without_ids(body)


@pytest.fixture
def planner_client(db):
    return client_for(make_user("branch-planner", "planner"))


@pytest.fixture(autouse=True)
def _fresh_analytics():
    states.forget()
    yield
    states.forget()


def branch(client, campus_id: int, name: str = "Small – try") -> int:
    response = client.post(f"/api/campuses/{campus_id}/branch/", {"name": name}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["parent"] == campus_id
    return response.json()["id"]


def diff(client, ours: int, theirs: int) -> dict:
    response = client.get(f"/api/campuses/{ours}/diff/", {"against": theirs})
    assert response.status_code == 200, response.content
    return response.json()


# ---------------------------------------------------------------- branch


@pytest.mark.django_db
def test_every_model_of_a_campus_is_copied_by_a_branch(planner_client):
    """A model added to the campus app must appear in the fixture campus and be copied by a branch."""
    campus = small_campus()
    before = {m: m.objects.count() for m in campus_app_models()}
    missing = [m.__name__ for m, n in before.items() if n == 0]
    assert not missing, f"add a {', '.join(missing)} to small_campus() so branching is tested on it"
    branch(planner_client, campus.pk)
    after = {m: m.objects.count() for m in campus_app_models()}
    assert after == {m: 2 * n for m, n in before.items()}


@pytest.mark.django_db
def test_branch_is_a_copy_with_new_ids_and_empty_diff(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    copy_ = Campus.objects.get(pk=branch_id)
    assert copy_.parent_id == campus.pk and copy_.branched_at is not None
    assert spec_without_name(branch_id) == spec_without_name(campus.pk)
    parent_racks = set(Rack.objects.filter(campus=campus).values_list("pk", flat=True))
    branch_racks = Rack.objects.filter(campus_id=branch_id)
    assert not parent_racks & set(branch_racks.values_list("pk", flat=True))
    # references stay inside the copy
    for rack in branch_racks.select_related("hall__building", "cooling_unit", "pod"):
        assert rack.hall.building.campus_id == branch_id
        assert rack.cooling_unit.campus_id == branch_id and rack.pod.campus_id == branch_id
    assert bytes(CampusWeather.objects.get(campus_id=branch_id).hours) == bytes(campus.weather.hours)
    body = diff(planner_client, branch_id, campus.pk)
    assert body["objects"] == {"added": [], "removed": [], "changed": []}
    assert body["figures"]["power.it_mw"][0] > 0
    for name, (theirs, ours, delta) in body["figures"].items():
        assert theirs == ours, name
        assert delta in (0, None), name
    # the campus list tells branches from their parent
    listed = planner_client.get("/api/campuses/", {"parent": campus.pk}).json()["results"]
    assert [c["id"] for c in listed] == [branch_id]


@pytest.mark.django_db
def test_branch_name_clash_and_bad_requests_are_400_naming_the_field(planner_client):
    campus = small_campus()
    response = planner_client.post(f"/api/campuses/{campus.pk}/branch/", {"name": "Small"}, format="json")
    assert response.status_code == 400 and "name" in response.json()
    response = planner_client.post(
        f"/api/campuses/{campus.pk}/branch/", {"name": "X", "colour": 1}, format="json"
    )
    assert response.status_code == 400 and "colour" in response.json()
    response = planner_client.get(f"/api/campuses/{campus.pk}/diff/", {"against": 2**40})
    assert response.status_code == 400 and "against" in response.json()
    response = planner_client.get(f"/api/campuses/{campus.pk}/diff/")
    assert response.status_code == 400 and "against" in response.json()
    response = planner_client.post(f"/api/campuses/{campus.pk}/merge/", {}, format="json")
    assert response.status_code == 400 and "not a branch" in response.json()["detail"]
    # a name is JSON text: a number or a boolean is not turned into "123" or "True"
    for name in (123, True, 1.5, ["x"]):
        response = planner_client.post(f"/api/campuses/{campus.pk}/branch/", {"name": name}, format="json")
        assert response.status_code == 400 and list(response.json()) == ["name"], name
    assert Campus.objects.count() == 1


# ---------------------------------------------------------------- branch as a background job


def branch_job(client, campus_id: int, name: str, query: str = "") -> Job:
    response = client.post(f"/api/campuses/{campus_id}/branch/{query}", {"name": name}, format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    assert set(body) == {"job", "url"} and body["url"].endswith(f"/api/jobs/{body['job']}/")
    assert response["Location"] == body["url"]
    return Job.objects.get(pk=body["job"])


@pytest.mark.django_db
def test_a_campus_above_the_job_threshold_is_branched_by_a_job_and_one_at_it_inline(planner_client, settings):
    campus = small_campus()
    gpus = campus_gpus(campus.pk)
    assert gpus > 0
    settings.TWIN_JOB_THRESHOLD_GPUS = gpus
    inline = branch(planner_client, campus.pk, "Inline")  # at the threshold: 201, as before

    settings.TWIN_JOB_THRESHOLD_GPUS = gpus - 1
    job = branch_job(planner_client, campus.pk, "By job")
    assert (job.kind, job.status, job.progress, job.campus_id) == ("branch", "queued", 0.0, None)
    assert job.params == {"parent": campus.pk, "name": "By job", "strict": False}
    assert not Campus.objects.filter(name="By job").exists()

    assert run_job(job.pk) == "succeeded"
    body = planner_client.get(f"/api/jobs/{job.pk}/").json()
    assert (body["status"], body["progress"], body["error"]) == ("succeeded", 1.0, None)
    made = Campus.objects.get(name="By job")
    assert body["campus"] == made.pk == body["result"]["id"]
    assert body["result"]["parent"] == campus.pk == made.parent_id
    assert body["result"]["branched_at"] == made.branched_at.isoformat()
    # The same copy as an inline branch, with the same branch point.
    assert spec_without_name(made.pk) == spec_without_name(inline) == spec_without_name(campus.pk)
    fingerprints = BranchBase.objects.get(campus=made).fingerprints
    assert fingerprints == BranchBase.objects.get(campus_id=inline).fingerprints
    assert diff(planner_client, made.pk, campus.pk)["objects"] == {"added": [], "removed": [], "changed": []}


@pytest.mark.django_db
def test_async_branches_a_small_campus_by_a_job_and_checks_the_name_first(planner_client):
    campus = small_campus()
    response = planner_client.post(
        f"/api/campuses/{campus.pk}/branch/?async=1", {"name": "Small"}, format="json"
    )
    assert response.status_code == 400 and "name" in response.json()
    assert not Job.objects.exists()
    job = branch_job(planner_client, campus.pk, "Later", "?async=1")
    assert run_job(job.pk) == "succeeded"
    assert Campus.objects.get(name="Later").parent_id == campus.pk


@pytest.mark.django_db
def test_a_branch_job_failing_after_every_row_is_copied_leaves_no_half_branch(planner_client):
    campus = small_campus()
    job = branch_job(planner_client, campus.pk, "Half", "?async=1")
    before = {m: m.objects.count() for m in campus_app_models()}

    def disk_full(sender, **kwargs):  # the last write of a branch: the branch point, after every row
        raise OSError("no space left on device")

    post_save.connect(disk_full, sender=BranchBase, dispatch_uid="test-disk-full")
    try:
        assert run_job(job.pk) == "failed"
    finally:
        post_save.disconnect(dispatch_uid="test-disk-full", sender=BranchBase)
    job.refresh_from_db()
    assert job.status == "failed" and job.campus_id is None
    assert job.error["detail"] == "OSError: no space left on device"
    assert {m: m.objects.count() for m in campus_app_models()} == before
    assert not Campus.objects.filter(name="Half").exists()


@pytest.mark.django_db
def test_a_branch_job_whose_name_or_parent_went_meanwhile_fails_naming_it(planner_client):
    campus = small_campus()
    taken = branch_job(planner_client, campus.pk, "Twice", "?async=1")
    gone = branch_job(planner_client, campus.pk, "Orphan", "?async=1")
    branch(planner_client, campus.pk, "Twice")
    before = {m: m.objects.count() for m in campus_app_models()}
    assert run_job(taken.pk) == "failed"
    taken.refresh_from_db()
    assert taken.error == {"field": "name", "detail": 'A campus named "Twice" exists already.'}
    assert {m: m.objects.count() for m in campus_app_models()} == before

    campus_id = campus.pk
    Campus.objects.filter(parent=campus).delete()
    campus.delete()
    assert run_job(gone.pk) == "failed"
    gone.refresh_from_db()
    assert gone.error["field"] == "parent" and f"No campus {campus_id}" in gone.error["detail"]
    assert not Campus.objects.exists()


@pytest.mark.django_db
def test_viewer_may_diff_but_not_branch_or_merge(db):
    campus = small_campus()
    viewer = client_for(make_user("branch-viewer", "viewer"))
    assert viewer.post(f"/api/campuses/{campus.pk}/branch/", {"name": "V"}, format="json").status_code == 403
    assert viewer.post(f"/api/campuses/{campus.pk}/merge/", {}, format="json").status_code == 403
    assert viewer.get(f"/api/campuses/{campus.pk}/diff/", {"against": campus.pk}).status_code == 200


# ---------------------------------------------------------------- diff


@pytest.mark.django_db
def test_diff_names_exactly_the_changed_fields_as_theirs_ours(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    rack = Rack.objects.get(campus_id=branch_id, name="R01-01")
    ups = PowerDevice.objects.get(campus_id=branch_id, name="UPS-A")
    assert (
        planner_client.patch(f"/api/racks/{rack.pk}/", {"design_kw": 55.5}, format="json").status_code == 200
    )
    response = planner_client.patch(f"/api/power-devices/{ups.pk}/", {"rated_kw": 650.0}, format="json")
    assert response.status_code == 200
    body = diff(planner_client, branch_id, campus.pk)
    assert body["objects"]["added"] == [] and body["objects"]["removed"] == []
    assert sorted(body["objects"]["changed"], key=lambda c: c["model"]) == [
        {"model": "powerdevice", "name": "UPS-A", "fields": {"rated_kw": [500.0, 650.0]}},
        {"model": "rack", "name": "R01-01", "fields": {"design_kw": [40.8, 55.5]}},
    ]
    # the other way round, theirs and ours swap
    back = diff(planner_client, campus.pk, branch_id)["objects"]["changed"]
    assert {c["name"]: c["fields"] for c in back}["UPS-A"] == {"rated_kw": [650.0, 500.0]}


@pytest.mark.django_db
def test_diff_figures_are_the_summaries_figures_and_shared_with_the_summary_page(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    rack = Rack.objects.filter(campus_id=branch_id).order_by("name").first()
    rack.design_kw = 30.0
    rack.save()
    body = diff(planner_client, branch_id, campus.pk)
    assert [c["name"] for c in body["objects"]["changed"]] == [rack.name]
    # The figures are those of a summary computed afresh with no assumption given, for each side.
    fresh = []
    for campus_id in (campus.pk, branch_id):
        states.forget()
        fresh.append(states.campus_summary(states.campus_state(Campus.objects.get(pk=campus_id))))
    for path, (theirs, ours, _delta) in body["figures"].items():
        assert [theirs, ours] == [_figure(fresh[0], path), _figure(fresh[1], path)], path
    assert body["figures"]["power.it_mw"][0] > 0
    # The diff stored both default summaries in the shared cache: another process (one that holds no state)
    # answers either summary page from there, the very bytes.
    states.forget()
    for campus_id in (campus.pk, branch_id):
        version = states.revision_key(campus_id)
        key = states.shared_key(campus_id, version, states.today(), "summary")
        stored = states.shared_get(key)
        assert stored is not None
        response = planner_client.get(f"/api/campuses/{campus_id}/summary/")
        assert response.content == stored[0]
        assert states.cached_state(campus_id) is None  # answered without a state


@pytest.mark.django_db
def test_a_diff_is_shared_while_both_campuses_are_unchanged_and_made_anew_after_a_write(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    url = f"/api/campuses/{branch_id}/diff/"
    first = planner_client.get(url, {"against": campus.pk})
    assert first.json()["objects"]["changed"] == []
    states.forget()  # another process: it reads the stored body, the very bytes
    assert states.shared_get(diff_key(branch_id, campus.pk)) == (first.content, first["ETag"])
    again = planner_client.get(url, {"against": campus.pk})
    assert (again.content, again["ETag"]) == (first.content, first["ETag"])
    rack = Rack.objects.filter(campus_id=branch_id).order_by("name").first()
    rack.design_kw = 30.0
    rack.save()
    changed = diff(planner_client, branch_id, campus.pk)["objects"]["changed"]
    assert changed == [{"model": "rack", "name": rack.name, "fields": {"design_kw": [40.8, 30.0]}}]
    # a write to the other side counts too
    theirs = Rack.objects.filter(campus=campus, name=rack.name).get()
    theirs.design_kw = 30.0
    theirs.save()
    assert diff(planner_client, branch_id, campus.pk)["objects"]["changed"] == []


@pytest.mark.django_db
def test_diff_matches_by_name_and_reports_references_by_name(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    rack = Rack.objects.get(campus_id=branch_id, name="R01-02")
    pdu = PowerDevice.objects.get(campus_id=branch_id, name="PDU-A")
    # a new device, a removed rack and a rack moved to another cooling unit feed
    created = planner_client.post(
        "/api/power-devices/",
        {"campus": branch_id, "name": "PDU-C", "kind": "pdu", "rated_kw": 150.0},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert planner_client.delete(f"/api/racks/{rack.pk}/").status_code == 204
    feed_b = PowerDevice.objects.get(campus_id=branch_id, name="PDU-B")
    response = planner_client.patch(f"/api/power-devices/{pdu.pk}/", {"hall": None}, format="json")
    assert response.status_code == 200
    body = diff(planner_client, branch_id, campus.pk)["objects"]
    assert body["added"] == [{"model": "powerdevice", "name": "PDU-C"}]
    removed = {(o["model"], o["name"]) for o in body["removed"]}
    assert ("rack", "R01-02") in removed
    assert {("node", f"R01-02 / R01-02-n0{i}") for i in range(1, 5)} <= removed
    assert ("powerfeed", f"{feed_b.name} / R01-02 / B") in removed
    assert {"model": "powerdevice", "name": "PDU-A", "fields": {"hall": ["B1 / H1", None]}} in body["changed"]


@pytest.mark.django_db
def test_two_unrelated_campuses_compare_by_name(planner_client):
    one = small_campus("One")
    spec = copy.deepcopy(SMALL_SPEC)
    spec["campus"]["name"] = "Two"
    spec["campus"]["grid_capacity_mw"] = 3.0
    spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["design_kw"] = 42.0
    two = import_campus(spec)
    body = diff(planner_client, two.pk, one.pk)
    changed = {(c["model"], c["name"]): c["fields"] for c in body["objects"]["changed"]}
    assert changed[("rack", "R01-01")] == {"design_kw": [40.8, 42.0]}
    assert changed[("campus", "(one per campus)")] == {"grid_capacity_mw": [2.0, 3.0]}
    removed = {(o["model"], o["name"]) for o in body["objects"]["removed"]}
    assert removed == {
        ("campusweather", "(one per campus)"),
        ("energystorage", "BESS-1"),
        ("storagesystem", "FS-1"),
    }
    assert body["figures"]["power.grid_capacity_mw"] == [2.0, 3.0, 1.0]


# ---------------------------------------------------------------- merge


@pytest.mark.django_db
def test_merge_makes_the_parent_equal_to_the_branch_and_records_history(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    rack = Rack.objects.get(campus_id=branch_id, name="R01-01")
    ups = PowerDevice.objects.get(campus_id=branch_id, name="UPS-A")
    planner_client.patch(f"/api/racks/{rack.pk}/", {"design_kw": 55.5}, format="json")
    planner_client.patch(f"/api/power-devices/{ups.pk}/", {"rated_kw": 650.0}, format="json")
    planner_client.patch(f"/api/campuses/{branch_id}/", {"grid_capacity_mw": 2.5}, format="json")
    response = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {"parent": campus.pk, "added": 0, "changed": 3, "removed": 0}
    assert spec_without_name(campus.pk) == spec_without_name(branch_id)
    assert summary_figures(planner_client, campus.pk) == summary_figures(planner_client, branch_id)
    assert diff(planner_client, branch_id, campus.pk)["objects"] == {
        "added": [],
        "removed": [],
        "changed": [],
    }
    parent_rack = Rack.objects.get(campus=campus, name="R01-01")
    entries = planner_client.get("/api/changes/", {"model": "rack", "object_id": parent_rack.pk}).json()
    latest = entries["results"][0]
    assert latest["reason"] == f'Merge of branch "Small – try" (campus {branch_id})'
    assert latest["user"]["username"] == "branch-planner"
    assert latest["type"] == "~"
    assert {c["field"]: c["new"] for c in latest["changes"]}["design_kw"] == 55.5
    reasons = [
        e["reason"] for e in planner_client.get("/api/changes/", {"model": "campus"}).json()["results"]
    ]
    assert f'Branched from "Small" (campus {campus.pk})' in reasons
    assert f'Merge of branch "Small – try" (campus {branch_id})' in reasons
    # merging again applies nothing: the branch point moved
    again = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json").json()
    assert again == {"parent": campus.pk, "added": 0, "changed": 0, "removed": 0}


@pytest.mark.django_db
def test_merge_adds_and_removes_objects_and_keeps_parent_only_changes(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    hall = Rack.objects.get(campus_id=branch_id, name="R01-01").hall_id
    doomed = Rack.objects.get(campus_id=branch_id, name="R01-02")
    assert planner_client.delete(f"/api/racks/{doomed.pk}/").status_code == 204
    created = planner_client.post(
        "/api/racks/",
        {"campus": branch_id, "hall": hall, "name": "R-NEW", "x_m": 12.0, "y_m": 12.0, "design_kw": 20.0},
        format="json",
    )
    assert created.status_code == 201, created.content
    # an independent change on the parent, on an object the branch left alone
    sub = PowerDevice.objects.get(campus=campus, name="SUB-A")
    planner_client.patch(f"/api/power-devices/{sub.pk}/", {"rated_kw": 2100.0}, format="json")
    response = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
    assert response.status_code == 200, response.content
    names = set(Rack.objects.filter(campus=campus).values_list("name", flat=True))
    assert names == {"R01-01", "R-NEW"}
    assert PowerDevice.objects.get(pk=sub.pk).rated_kw == 2100.0
    expected = spec_without_name(branch_id)
    expected["power_devices"] = [
        {**d, "rated_kw": 2100.0} if d["name"] == "SUB-A" else d for d in expected["power_devices"]
    ]
    assert spec_without_name(campus.pk) == expected


@pytest.mark.django_db
def test_conflict_is_409_naming_the_object_and_leaves_the_parent_untouched(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    mine = Rack.objects.get(campus_id=branch_id, name="R01-01")
    theirs = Rack.objects.get(campus=campus, name="R01-01")
    other = PowerDevice.objects.get(campus_id=branch_id, name="UPS-B")
    planner_client.patch(f"/api/racks/{mine.pk}/", {"design_kw": 55.5}, format="json")
    planner_client.patch(f"/api/power-devices/{other.pk}/", {"rated_kw": 600.0}, format="json")
    planner_client.patch(f"/api/racks/{theirs.pk}/", {"design_kw": 45.0}, format="json")
    before = export_campus(campus.pk)
    response = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
    assert response.status_code == 409, response.content
    assert [(o["model"], o["name"]) for o in response.json()["objects"]] == [("rack", "R01-01")]
    assert export_campus(campus.pk) == before


@pytest.mark.django_db
def test_a_merge_that_would_break_the_parent_is_400_and_writes_nothing(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    hall = Rack.objects.get(campus=campus, name="R01-01").hall_id
    # the branch moves a rack to a free spot; the parent meanwhile puts a new rack on that spot
    mine = Rack.objects.get(campus_id=branch_id, name="R01-02")
    assert (
        planner_client.patch(f"/api/racks/{mine.pk}/", {"x_m": 15.0, "y_m": 15.0}, format="json").status_code
        == 200
    )
    created = planner_client.post(
        "/api/racks/",
        {"campus": campus.pk, "hall": hall, "name": "R-P", "x_m": 15.2, "y_m": 15.2, "design_kw": 10.0},
        format="json",
    )
    assert created.status_code == 201
    before = export_campus(campus.pk)
    response = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
    assert response.status_code == 400, response.content
    problems = response.json()["objects"]
    assert [(o["model"], o["name"]) for o in problems] == [("rack", "R01-02")]
    assert "overlaps" in problems[0]["fields"]["x_m"][0]
    assert export_campus(campus.pk) == before


@pytest.mark.django_db
def test_a_branch_removing_what_the_parent_still_uses_is_a_conflict(planner_client):
    campus = small_campus()
    branch_id = branch(planner_client, campus.pk)
    pdu = PowerDevice.objects.get(campus_id=branch_id, name="PDU-A")
    # its feeds to the racks first: a device others depend on is not deleted (409)
    out = [{"id": feed.pk} for feed in pdu.downstream_feeds.all()]
    assert planner_client.delete("/api/power-feeds/", out, format="json").status_code == 204
    assert planner_client.delete(f"/api/power-devices/{pdu.pk}/").status_code == 204
    # the parent feeds a new device from PDU-A meanwhile
    parent_pdu = PowerDevice.objects.get(campus=campus, name="PDU-A")
    rpp = planner_client.post(
        "/api/power-devices/",
        {"campus": campus.pk, "name": "RPP-1", "kind": "rpp", "rated_kw": 50.0},
        format="json",
    ).json()
    feed = planner_client.post(
        "/api/power-feeds/",
        {
            "campus": campus.pk,
            "upstream": parent_pdu.pk,
            "downstream_device": rpp["id"],
            "side": "A",
            "rating_kw": 50,
        },
        format="json",
    )
    assert feed.status_code == 201, feed.content
    before = export_campus(campus.pk)
    response = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
    assert response.status_code == 409, response.content
    assert ("powerfeed", "PDU-A / RPP-1 / A") in {(o["model"], o["name"]) for o in response.json()["objects"]}
    assert export_campus(campus.pk) == before


# ---------------------------------------------------------------- random writes, then merge

RACK_FIELDS = st.sampled_from(["design_kw", "extra_it_kw", "status"])


@st.composite
def writes(draw):
    kind = draw(
        st.sampled_from(["rack_field", "device_rating", "delete_rack", "add_rack", "move_rack", "campus"])
    )
    return kind, draw(st.integers(0, 10_000)), draw(st.floats(0.0, 1.0))


@pytest.mark.django_db(transaction=False)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(writes(), min_size=1, max_size=8))
def test_any_sequence_of_branch_writes_then_merge_gives_the_branch_export(steps, planner_client):
    with transaction.atomic():
        campus = small_campus()
        branch_id = branch(planner_client, campus.pk)
        for index, (kind, pick, fraction) in enumerate(steps):
            racks = list(Rack.objects.filter(campus_id=branch_id).order_by("name"))
            devices = list(PowerDevice.objects.filter(campus_id=branch_id).order_by("name"))
            if kind == "rack_field" and racks:
                rack = racks[pick % len(racks)]
                field = ["design_kw", "extra_it_kw", "status"][pick % 3]
                value = {
                    "design_kw": round(10 + 90 * fraction, 2),
                    "extra_it_kw": round(5 * fraction, 2),
                }.get(field, ["active", "planned", "offline"][pick % 3])
                planner_client.patch(f"/api/racks/{rack.pk}/", {field: value}, format="json")
            elif kind == "device_rating" and devices:
                device = devices[pick % len(devices)]
                planner_client.patch(
                    f"/api/power-devices/{device.pk}/",
                    {"rated_kw": round(100 + 2000 * fraction, 1)},
                    format="json",
                )
            elif kind == "delete_rack" and racks:
                planner_client.delete(f"/api/racks/{racks[pick % len(racks)].pk}/")
            elif kind == "add_rack":
                hall = DataHall.objects.filter(building__campus_id=branch_id).first()
                body = {
                    "campus": branch_id,
                    "hall": hall.pk,
                    "name": f"R-ADD-{index}",
                    "x_m": round(1 + 17 * fraction, 2),
                    "y_m": round(8 + (pick % 10), 2),
                    "design_kw": 20.0,
                }
                planner_client.post("/api/racks/", body, format="json")
            elif kind == "move_rack" and racks:
                rack = racks[pick % len(racks)]
                planner_client.patch(
                    f"/api/racks/{rack.pk}/",
                    {"x_m": round(18 * fraction, 2), "y_m": round(pick % 18, 2)},
                    format="json",
                )
            elif kind == "campus":
                planner_client.patch(
                    f"/api/campuses/{branch_id}/",
                    {"price_usd_per_kwh": round(0.05 + fraction / 10, 4)},
                    format="json",
                )
        response = planner_client.post(f"/api/campuses/{branch_id}/merge/", {}, format="json")
        assert response.status_code == 200, response.content
        assert spec_without_name(campus.pk) == spec_without_name(branch_id)
        assert diff(planner_client, branch_id, campus.pk)["objects"] == {
            "added": [],
            "removed": [],
            "changed": [],
        }
        transaction.set_rollback(True)
