"""Runs read what is in service on their day (``as_of``, default today), as the analytics do.

The campus is tests/simulations/campus_builder.py's: 4 racks R0-R3 of 4 HGX H100 servers (8 GPUs each, 32
GPUs a rack), no power chain. R2 retires on 2025-01-01 and R3 enters service on 2099-01-01, so by hand:

* 2024-06-01: R0, R1, R2 in service -> 3 x 32 = 96 GPUs;
* today (2026 or later, before 2099): R0, R1 -> 64 GPUs;
* 2099-06-01: R0, R1, R3 -> 96 GPUs;
* designed (every rack, whatever its dates): 128 GPUs, the figure runs used before they had a day.

IT power at a cap of 1.0 with every GPU busy, by hand from the catalog rows: a server draws 8 x TDP plus its
overhead (its ConnectX-7 NICs are inside the overhead), racks add no extra IT, and the campus's other IT is
``other_it_fraction`` of the total, so IT = servers x W / (1 - other_it_fraction).
"""

from datetime import date
from unittest import mock

import pytest
from django.utils import timezone

from campus.models import Campus, NodeModel, Rack
from simulations import runs
from simulations.models import Run, Scenario, Schedule
from simulations.runs import plans
from simulations.tasks import run_schedule

from .helpers import run_all

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]

BEFORE, PAST, FUTURE = date(2024, 6, 1), date(2025, 1, 1), date(2099, 1, 1)
GPUS_PER_RACK = 4 * 8


@pytest.fixture
def phased(campus):
    racks = list(Rack.objects.filter(campus=campus).order_by("name"))
    Rack.objects.filter(pk=racks[2].pk).update(retire_date=PAST)
    Rack.objects.filter(pk=racks[3].pk).update(in_service_date=FUTURE)
    return campus


def it_mw_at_full_power(servers: int, campus: Campus) -> float:
    node = NodeModel.objects.select_related("gpu_model").get(slug="hgx-h100-8")
    assert node.nic_kind == "connectx7"  # its NIC power is part of overhead_w (catalog_data.NIC_KINDS)
    server_w = node.gpus_per_node * node.gpu_model.tdp_w + node.overhead_w
    return servers * server_w / (1 - campus.other_it_fraction) / 1e6


def cascade(campus, planner) -> Scenario:
    return Scenario.objects.create(
        campus=campus,
        kind="failure_cascade",
        name="Failures",
        params={"duration_days": 2, "recovery": "checkpoint_restart"},
        owner=planner,
    )


def capping(campus, planner) -> Scenario:
    return Scenario.objects.create(
        campus=campus,
        kind="power_capping",
        name="Cap 1.0",
        params={"duration_hours": 6, "caps": [{"cap_fraction": 1.0}]},
        owner=planner,
    )


def job_gpus(run: Run) -> float:
    assert run.status == "succeeded", run.error
    return run.summary["metrics"]["job_gpus"]["mean"]


def test_a_run_uses_the_gpus_in_service_today_by_default(planner_client, phased, planner):
    scenario = cascade(phased, planner)
    body = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"replicas": 1, "seed": 3}).json()
    assert body["as_of"] == timezone.localdate().isoformat()
    run = run_all(Run.objects.get(pk=body["id"]))
    # the job spans every eligible node (no hot spares with checkpoint restart): R0 and R1 only
    assert job_gpus(run) == 2 * GPUS_PER_RACK
    summary = planner_client.get(f"/api/campuses/{phased.pk}/summary/").json()
    assert summary["inventory"]["gpus"] == 2 * GPUS_PER_RACK


@pytest.mark.parametrize(("day", "racks"), [(BEFORE, 3), (date(2026, 1, 1), 2), (date(2099, 6, 1), 3)])
def test_a_run_for_a_day_uses_what_is_in_service_that_day(planner_client, phased, planner, day, racks):
    scenario = cascade(phased, planner)
    body = planner_client.post(
        f"/api/scenarios/{scenario.pk}/run/", {"replicas": 1, "seed": 3, "as_of": day.isoformat()}
    ).json()
    assert body["as_of"] == day.isoformat()
    assert job_gpus(run_all(Run.objects.get(pk=body["id"]))) == racks * GPUS_PER_RACK


def test_power_capping_at_full_cap_draws_the_in_service_servers_it_power(planner_client, phased, planner):
    scenario = capping(phased, planner)
    for day, servers in ((BEFORE, 12), (date(2026, 1, 1), 8)):
        body = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"as_of": day.isoformat()}).json()
        run = run_all(Run.objects.get(pk=body["id"]))
        assert run.status == "succeeded", run.error
        mean_it = run.summary["metrics"]["mean_it_mw"]["mean"]
        assert mean_it == pytest.approx(it_mw_at_full_power(servers, phased), rel=1e-9)


@pytest.mark.parametrize("value", ["2027-02-30", "tomorrow", "2027-13-01"])
def test_a_bad_day_is_a_400_naming_as_of(planner_client, phased, planner, value):
    scenario = cascade(phased, planner)
    response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"as_of": value})
    assert response.status_code == 400
    assert "as_of" in response.json()
    if value == "2027-02-30":
        assert "not a day of the calendar" in str(response.json()["as_of"])
    assert not Run.objects.exists()


def test_a_day_with_nothing_in_service_is_a_400_before_anything_is_stored(planner_client, phased, planner):
    Rack.objects.filter(campus=phased).update(in_service_date=FUTURE)
    scenario = cascade(phased, planner)
    response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {})
    assert response.status_code == 400
    # keyed on the day, not on a parameter the scenario never set (gpu_models)
    assert list(response.json()) == ["as_of"]
    assert "nothing is in service on" in response.json()["as_of"][0]
    assert not Run.objects.exists()
    later = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"as_of": "2099-06-01", "replicas": 1})
    assert later.status_code == 202, later.json()


def test_a_run_rebuilt_without_its_stored_snapshot_reads_its_own_day(phased, planner):
    run = runs.launch_run(cascade(phased, planner), replicas=1, seed=1, as_of=BEFORE)
    snap = plans.campus_snapshot(run, None)
    assert sum(n for r in snap.racks for _, n in r.nodes) == 12  # R0-R2, 4 servers each


def test_a_scheduled_run_reads_the_day_it_fires(phased, planner):
    schedule = Schedule.objects.create(
        scenario=cascade(phased, planner), name="nightly", crontab="30 2 * * *", replicas=1, seed=4
    )
    with mock.patch("django.utils.timezone.localdate", return_value=BEFORE):
        run = Run.objects.get(pk=run_schedule(schedule.pk))
    assert run.as_of == BEFORE
    assert job_gpus(run_all(run)) == 3 * GPUS_PER_RACK
    again = Run.objects.get(pk=run_schedule(schedule.pk))
    assert again.as_of == timezone.localdate()
    assert job_gpus(run_all(again)) == 2 * GPUS_PER_RACK


def test_compare_says_which_day_each_run_read(viewer_client, phased, planner):
    scenario = cascade(phased, planner)
    then = run_all(runs.launch_run(scenario, replicas=1, seed=2, as_of=BEFORE))
    now = run_all(runs.launch_run(scenario, replicas=1, seed=2))
    body = viewer_client.get(f"/api/runs/compare/?ids={then.pk},{now.pk}").json()
    assert [r["as_of"] for r in body["runs"]] == [BEFORE.isoformat(), timezone.localdate().isoformat()]
    # the retired rack R2: 96 GPUs then, 64 now, -32 against the baseline
    assert body["metrics"]["job_gpus"][1]["vs_baseline"]["mean_delta"] == -GPUS_PER_RACK


def test_a_generated_phased_campus_runs_on_its_phases_so_far(planner_client, planner):
    """The generator's build-out: phase 1 (2025-01-01) 64 H100 GPUs, phase 2 (2099-01-01) 128 more. Today
    only phase 1 is in service: a failure cascade's job spans 64 GPUs, as the summary counts; on
    2099-06-01, 64 + 128 = 192."""
    import copy

    from campus.interchange.generate import generate_spec
    from campus.interchange.importer import import_campus

    phases = [
        {"date": "2025-01-01", "gpus": 64, "gpu_model": "h100-sxm"},
        {"date": "2099-01-01", "gpus": 128, "gpu_model": "h100-sxm"},
    ]
    campus = import_campus(copy.deepcopy(generate_spec("Phased", phases=phases)))
    assert planner_client.get(f"/api/campuses/{campus.pk}/summary/").json()["inventory"]["gpus"] == 64
    scenario = cascade(campus, planner)
    for day, gpus in ((None, 64), ("2099-06-01", 192)):
        body = {"replicas": 1, "seed": 5, **({"as_of": day} if day else {})}
        response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", body)
        assert response.status_code == 202, response.json()
        assert job_gpus(run_all(Run.objects.get(pk=response.json()["id"]))) == gpus


@pytest.mark.parametrize(
    "kind",
    ["power_capping", "grid_limit", "liquid_cooling", "failure_cascade", "power_dynamics", "heat_wave"],
)
def test_every_kind_refuses_a_day_with_nothing_in_service_on_as_of(planner_client, phased, planner, kind):
    # Every rack enters service in 2099: on 2024-06-01 no GPU is in service, whatever the kind simulates (a
    # cap that "cost 100 % of the throughput" of nothing, a job of 0 GPUs).
    Rack.objects.filter(campus=phased).update(in_service_date=FUTURE)
    scenario = Scenario.objects.create(campus=phased, kind=kind, name=kind, params={}, owner=planner)
    response = planner_client.post(f"/api/scenarios/{scenario.pk}/run/", {"as_of": BEFORE.isoformat()})
    assert response.status_code == 400, response.json()
    assert response.json() == {
        "as_of": [
            "nothing is in service on 2024-06-01: no GPU of the campus is in service that day (equipment not "
            "yet in service or already retired does not count); choose a day on which a phase of the campus "
            "is in service"
        ]
    }
    assert not Run.objects.exists()


def test_a_scheduled_run_on_a_day_with_nothing_in_service_fails_saying_so(phased, planner):
    # A schedule fires unchecked by the API: the run fails naming the day, it does not "succeed" with a
    # throughput of 0.
    Rack.objects.filter(campus=phased).update(in_service_date=FUTURE)
    run = run_all(runs.launch_run(capping(phased, planner), replicas=1, seed=1, as_of=BEFORE))
    assert run.status == "failed"
    assert "as_of: nothing is in service on 2024-06-01" in run.error
