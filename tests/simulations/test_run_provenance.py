"""A run keeps what it ran: the kind, campus, scenario name and parameters it was queued with, and the campus
state it computed on. Edits of the scenario or of the campus afterwards neither change a queued run nor
relabel a finished one, and compare says when two runs read different campus states.

The campus is tests/simulations/campus_builder.py's: 4 racks of 4 HGX H100 servers (8 GPUs each), no
switches, no rack extras. By hand, from published figures:

* a server at full power draws 10.2 kW (NVIDIA DGX H100 user guide, 2023: 8 x 700 W GPUs + 4.6 kW of the
  rest), so 16 servers draw 163.2 kW, and with the campus's other IT at 10 % of IT (the campus default,
  ``other_it_fraction`` 0.10) IT = 163.2 / 0.9 = 181.333 kW = 0.181333 MW;
* power capping at a cap of 1.0 for 6 h, every GPU busy: IT energy 0.181333 MW x 6 h = 1.088 MWh;
* facility energy = IT x PUE, cost = facility energy x price: with the PUE typed 1.2 then 1.5, same
  inventory, same price, the cost grows by 1.5 / 1.2 - 1 = 25 %.
"""

from __future__ import annotations

import importlib

import pytest

from campus.models import Campus
from simulations.models import Run, Scenario

from .campus_builder import build_small_campus
from .helpers import run_all

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]

IT_MW = 16 * 10.2 / 0.9 / 1000  # 0.181333 MW (module docstring)
HOURS = 6


def capping(client, campus) -> int:
    response = client.post(
        "/api/scenarios/",
        {
            "campus": campus.pk,
            "kind": "power_capping",
            "name": "Cap 1.0",
            "params": {"duration_hours": HOURS, "caps": [{"cap_fraction": 1.0}]},
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def queue(client, scenario_id: int, **body) -> Run:
    response = client.post(f"/api/scenarios/{scenario_id}/run/", {"seed": 7, **body}, format="json")
    assert response.status_code == 202, response.json()
    assert response.json()["status"] == "queued"
    return Run.objects.get(pk=response.json()["id"])


def succeeded(run: Run) -> Run:
    run = run_all(run)
    assert run.status == "succeeded", run.error
    return run


def to_heat_wave(client, scenario_id: int) -> None:
    response = client.patch(
        f"/api/scenarios/{scenario_id}/", {"kind": "heat_wave", "params": {}}, format="json"
    )
    assert response.status_code == 200, response.json()


def test_editing_the_kind_of_a_scenario_does_not_relabel_its_finished_runs(planner_client, campus):
    sid = capping(planner_client, campus)
    first = succeeded(queue(planner_client, sid))
    second = succeeded(queue(planner_client, sid))
    to_heat_wave(planner_client, sid)

    body = planner_client.get(f"/api/runs/{first.pk}/").json()
    assert (body["kind"], body["campus"], body["scenario_name"]) == ("power_capping", campus.pk, "Cap 1.0")
    assert body["explanation"]  # power capping's sentences, from its own kind
    assert body["params"]["duration_hours"] == HOURS
    listed = planner_client.get(f"/api/runs/?kind=power_capping&scenario={sid}").json()["results"]
    assert sorted(r["id"] for r in listed) == sorted([first.pk, second.pk])
    assert planner_client.get(f"/api/runs/?kind=heat_wave&scenario={sid}").json()["results"] == []
    compared = planner_client.get(f"/api/runs/compare/?ids={first.pk},{second.pk}")
    assert compared.status_code == 200, compared.json()
    assert [r["kind"] for r in compared.json()["runs"]] == ["power_capping", "power_capping"]

    # a run of the edited scenario is a heat wave, and compare refuses to set it beside a power capping run
    later = queue(planner_client, sid)
    assert later.kind == "heat_wave"
    refused = planner_client.get(f"/api/runs/compare/?ids={first.pk},{later.pk}")
    assert refused.status_code == 400
    assert f"run {first.pk} is Power capping; run {later.pk} is Heat wave" in refused.json()["ids"][0]


def test_a_run_queued_before_the_kind_changed_runs_what_it_was_queued_with(planner_client, campus):
    sid = capping(planner_client, campus)
    run = queue(planner_client, sid)
    to_heat_wave(planner_client, sid)
    planner_client.patch(f"/api/scenarios/{sid}/", {"name": "Renamed"}, format="json")

    run = succeeded(run)
    body = planner_client.get(f"/api/runs/{run.pk}/").json()
    assert (body["kind"], body["scenario_name"]) == ("power_capping", "Cap 1.0")
    metrics = body["summary"]["metrics"]
    assert metrics["energy_it_mwh"]["mean"] == pytest.approx(IT_MW * HOURS, rel=1e-6)  # 1.088 MWh


def test_moving_a_scenario_to_another_campus_leaves_its_runs_on_theirs(planner_client, campus):
    other = build_small_campus(name="Other campus", racks=2)  # 2 racks: half the servers
    sid = capping(planner_client, campus)
    done = succeeded(queue(planner_client, sid))
    queued = queue(planner_client, sid)
    response = planner_client.patch(f"/api/scenarios/{sid}/", {"campus": other.pk}, format="json")
    assert response.status_code == 200, response.json()

    queued = succeeded(queued)  # runs on the campus it was queued for: all 16 servers, not the other's 8
    for run in (done, queued):
        body = planner_client.get(f"/api/runs/{run.pk}/").json()
        assert body["campus"] == campus.pk
        assert body["campus_state"]["campus"] == campus.pk
        assert body["campus_state"]["gpus"] == 4 * 4 * 8
        assert body["summary"]["metrics"]["mean_it_mw"]["mean"] == pytest.approx(IT_MW, rel=1e-6)
    assert {r["id"] for r in planner_client.get(f"/api/runs/?campus={campus.pk}").json()["results"]} == {
        done.pk,
        queued.pk,
    }
    assert planner_client.get(f"/api/runs/?campus={other.pk}").json()["results"] == []
    moved = succeeded(queue(planner_client, sid))
    assert moved.campus_id == other.pk
    assert moved.summary["metrics"]["mean_it_mw"]["mean"] == pytest.approx(IT_MW / 2, rel=1e-6)
    flag = planner_client.get(f"/api/runs/compare/?ids={done.pk},{moved.pk}").json()["campus_state"]
    assert (flag["same"], flag["differ"]) == (False, [moved.pk])
    changes = flag["changes"][str(moved.pk)]
    assert f"campus {campus.pk} vs {other.pk}" in changes
    assert "gpus 128 vs 64" in changes  # 4 racks x 4 servers x 8 GPUs, then 2 racks


def test_a_run_records_the_campus_state_it_computed_on(planner_client, campus):
    planner_client.patch(f"/api/campuses/{campus.pk}/", {"design_pue": 1.2}, format="json")
    run = succeeded(queue(planner_client, capping(planner_client, campus)))
    state = planner_client.get(f"/api/runs/{run.pk}/").json()["campus_state"]
    assert state["it_mw"] == pytest.approx(IT_MW, rel=1e-6)
    assert (state["pue"], state["pue_source"], state["design_pue"]) == (1.2, "override", 1.2)
    assert state["gpus"] == 128
    assert state["as_of"] == run.as_of.isoformat()
    # the revision the analytics key the campus's summary on
    assert state["version"] == str(Campus.objects.get(pk=campus.pk).revision)


def test_compare_says_when_runs_computed_on_different_campus_states(planner_client, campus):
    planner_client.patch(f"/api/campuses/{campus.pk}/", {"design_pue": 1.2}, format="json")
    sid = capping(planner_client, campus)
    before = succeeded(queue(planner_client, sid))
    again = succeeded(queue(planner_client, sid))
    response = planner_client.patch(f"/api/campuses/{campus.pk}/", {"design_pue": 1.5}, format="json")
    assert response.status_code == 200, response.json()
    after = succeeded(queue(planner_client, sid))

    same = planner_client.get(f"/api/runs/compare/?ids={before.pk},{again.pk}").json()
    assert same["campus_state"] == {"same": True, "differ": [], "unknown": [], "changes": {}, "note": None}

    body = planner_client.get(f"/api/runs/compare/?ids={before.pk},{after.pk}").json()
    cost = body["metrics"]["cost_usd"][1]["vs_baseline"]
    # 1.5 / 1.2 - 1 = 25 % (module docstring): the whole difference is the campus's PUE
    assert cost["mean_delta_pct"] == pytest.approx(25.0, rel=1e-6)
    assert cost["same_campus_state"] is False
    flag = body["campus_state"]
    assert (flag["same"], flag["differ"], flag["unknown"]) == (False, [after.pk], [])
    assert "pue 1.2 vs 1.5" in flag["changes"][str(after.pk)]
    assert f"baseline run {before.pk}" in flag["note"] and "campus" in flag["note"]
    assert [r["same_campus_state"] for r in body["runs"]] == [True, False]
    assert [r["campus_state"]["pue"] for r in body["runs"]] == [1.2, 1.5]
    assert [r["campus_state"]["it_mw"] for r in body["runs"]] == pytest.approx([IT_MW, IT_MW], rel=1e-6)


def test_existing_runs_take_their_scenarios_kind_campus_and_name(planner_client, campus):
    """The data migration: runs stored before runs recorded these take their scenario's (what the API showed
    for them until then); their campus state stays unknown, and compare says so."""
    sid = capping(planner_client, campus)
    runs = [succeeded(queue(planner_client, sid)) for _ in range(2)]
    other = build_small_campus(name="Other campus", racks=1)
    Run.objects.filter(pk__in=[r.pk for r in runs]).update(
        kind="heat_wave", campus=other, scenario_name="", campus_state=None
    )
    from django.apps import apps

    migration = importlib.import_module("simulations.migrations.0007_run_records_what_it_ran")
    migration.fill_from_scenario(apps, None)

    scenario = Scenario.objects.get(pk=sid)
    for run in Run.objects.filter(pk__in=[r.pk for r in runs]):
        assert (run.kind, run.campus_id, run.scenario_name) == (scenario.kind, campus.pk, scenario.name)
    body = planner_client.get(f"/api/runs/compare/?ids={runs[0].pk},{runs[1].pk}").json()
    assert body["campus_state"]["same"] is None
    assert body["campus_state"]["unknown"] == [runs[0].pk, runs[1].pk]
    assert "not known" in body["campus_state"]["note"]


def test_a_scheduled_run_records_its_scenario_as_it_fired(campus, planner):
    from simulations.models import Schedule
    from simulations.tasks import run_schedule

    scenario = Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="Nightly", params={"duration_days": 1}, owner=planner
    )
    schedule = Schedule.objects.create(scenario=scenario, name="nightly", crontab="0 2 * * *", replicas=2)
    run = Run.objects.get(pk=run_schedule(schedule.pk))
    Scenario.objects.filter(pk=scenario.pk).update(kind="heat_wave", params={}, name="Renamed")
    run = succeeded(run)
    assert (run.kind, run.campus_id, run.scenario_name) == ("failure_cascade", campus.pk, "Nightly")
    assert run.params["duration_days"] == 1
