import io

import pytest
from django.core.management import call_command
from django_celery_beat.models import PeriodicTask

from campus.interchange.demo import DEMO_NAME, load_demo_campus
from simulations.management.commands.load_demo_schedules import DEMO_SCHEDULES
from simulations.models import Schedule


@pytest.mark.django_db
def test_demo_schedules_are_attached_once_with_their_beat_tasks():
    load_demo_campus()
    call_command("load_demo_schedules", stderr=io.StringIO())
    call_command("load_demo_schedules", stderr=io.StringIO())
    schedules = Schedule.objects.select_related("scenario", "periodic_task")
    assert schedules.count() == len(DEMO_SCHEDULES)
    for schedule in schedules:
        assert schedule.scenario.campus.name == DEMO_NAME
        assert schedule.periodic_task is not None and schedule.periodic_task.enabled
    assert PeriodicTask.objects.filter(id__in=[s.periodic_task_id for s in schedules]).count() == len(
        DEMO_SCHEDULES
    )


@pytest.mark.django_db
def test_demo_schedules_need_the_demo_campus():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="load_demo_campus"):
        call_command("load_demo_schedules", stderr=io.StringIO())


@pytest.mark.django_db
def test_the_demo_grid_cut_forces_a_choice_on_the_demo_campus():
    """The nightly grid cut (grid_limit's defaults: shed a quarter of the load for 3 h) on the demo campus:
    the campus is well inside its connection, yet it must shed, and its flexibility resources do."""
    from campus.state import in_service_snapshot
    from simulations.engine.runner import run_replica

    campus, _ = load_demo_campus()
    params = DEMO_SCHEDULES[0]["scenario"]["params"]
    m = run_replica("grid_limit", in_service_snapshot(campus), params, seed=1).metrics
    assert m["shortfall_mwh"] > 0 and m["event_asked_mwh"] == pytest.approx(m["shortfall_mwh"])
    assert m["flex_cost_usd"] > 0 and m["throughput_lost_fraction"] > 0
    assert m["can_commit"] == 1.0
