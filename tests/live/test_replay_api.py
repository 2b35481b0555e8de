"""A measured series replayed into a what-if (docs/live.md, "Replay"): the campus's measured power uploaded as
rows, a grid_limit scenario whose load source names the campus and a window, a run through the real tasks.
The truth is a hand calculation on the 5-minute means uploaded (a missing bucket: the mean of its
neighbours, the linear interpolation's midpoint)."""

from datetime import UTC, datetime, timedelta

import pytest

from campus.models import MeasurementRollup
from simulations.choices import RunStatus
from simulations.models import Run, Scenario, Schedule
from simulations.tasks import run_schedule
from tests.simulations.campus_builder import build_small_campus
from tests.simulations.helpers import run_all

pytestmark = pytest.mark.django_db

T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=1)
# 5-minute means, kW; None: no row uploaded for that bucket (a gap)
MEANS = [400.0, 420.0, 520.0, None, 560.0, 480.0, 610.0, 590.0, 300.0, 310.0, 450.0, 460.0]
CAP_KW = 500.0


def _rows(campus_name):
    # two samples per bucket (1 and 3 minutes in) whose mean is the bucket's mean
    lines = ["object_kind,object_name,metric,time,value"]
    for i, mean in enumerate(MEANS):
        if mean is None:
            continue
        for dt_s, dv in ((60, -10.0), (180, 10.0)):
            t = T0 + timedelta(seconds=300 * i + dt_s)
            lines.append(f"campus,{campus_name},power_kw,{t.isoformat()},{mean + dv}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def measured_campus(planner_client):
    campus = build_small_campus()
    answer = planner_client.post(
        f"/api/campuses/{campus.pk}/measurements/", _rows(campus.name), content_type="text/csv"
    )
    assert answer.status_code == 201, answer.content
    return campus


def _scenario(client, campus, source, **params):
    return client.post(
        "/api/scenarios/",
        {
            "campus": campus.pk,
            "kind": "grid_limit",
            "name": "Replay",
            "params": {"capacity_kw": CAP_KW, "events": [], "policy": "cap", "load_source": source, **params},
        },
        format="json",
    )


def _window(hours_before=0.0, hours=1.0):
    start = T0 - timedelta(hours=hours_before)
    return {"start": start.isoformat(), "end": (start + timedelta(hours=hours)).isoformat()}


def test_a_replayed_campus_series_gives_the_hand_shortfall(measured_campus, planner_client):
    campus = measured_campus
    answer = _scenario(planner_client, campus, {"kind": "measured", **_window()}, step_minutes=5.0)
    assert answer.status_code == 201, answer.content
    scenario_id = answer.json()["id"]
    run_answer = planner_client.post(f"/api/scenarios/{scenario_id}/run/", {}, format="json")
    assert run_answer.status_code == 202, run_answer.content
    run = run_all(Run.objects.get(pk=run_answer.json()["id"]))
    assert run.status == RunStatus.SUCCEEDED, run.error
    # the gap is the mean of its neighbours: (520 + 560) / 2
    filled = [v if v is not None else (MEANS[i - 1] + MEANS[i + 1]) / 2 for i, v in enumerate(MEANS)]
    hand_mwh = sum(max(0.0, v - CAP_KW) for v in filled) * (5 / 60) / 1000.0
    metrics = run.summary["metrics"]
    assert metrics["shortfall_mwh"]["mean"] == pytest.approx(hand_mwh, rel=1e-9)
    assert metrics["max_shortfall_kw"]["mean"] == pytest.approx(110.0)
    source = run.params["load_source"]
    assert source["values_kw"] == pytest.approx(filled)
    assert source["filled_steps"] == 1 and source["object_name"] == campus.name
    words = planner_client.get(f"/api/runs/{run.pk}/").json()["explanation"]
    assert words[0].startswith(f"The load was replayed from the measured power of {campus.name} from ")
    assert "1 missing 5-minute means filled in" in words[0]


def test_a_window_without_measurements_is_a_400_naming_the_start(measured_campus, planner_client):
    answer = _scenario(planner_client, measured_campus, {"kind": "measured", **_window(hours_before=5.0)})
    assert answer.status_code == 400
    errors = answer.json()["params"]
    assert list(errors) == ["load_source.start"]
    assert "no measured power of campus" in errors["load_source.start"][0]


def test_an_unknown_building_is_a_400_naming_the_object(measured_campus, planner_client):
    source = {"kind": "measured", "object_kind": "building", "object_name": "B9", **_window()}
    answer = _scenario(planner_client, measured_campus, source)
    assert answer.status_code == 400
    assert "no building named 'B9'" in answer.json()["params"]["load_source.object_name"][0]
    # a building that exists but was never measured: no data in the window
    source["object_name"] = "B1"
    answer = _scenario(planner_client, measured_campus, source)
    assert answer.status_code == 400
    assert list(answer.json()["params"]) == ["load_source.start"]


def test_a_window_without_its_end_is_a_400_naming_it(measured_campus, planner_client):
    answer = _scenario(planner_client, measured_campus, {"kind": "measured", "start": T0.isoformat()})
    assert answer.status_code == 400
    assert list(answer.json()["params"]) == ["load_source.end"]
    answer = _scenario(
        planner_client, measured_campus, {"kind": "measured", "start": "yesterday", "end": "x"}
    )
    assert answer.status_code == 400
    assert "load_source.start" in answer.json()["params"]


def test_an_unknown_field_of_the_load_source_is_named(measured_campus, planner_client):
    answer = _scenario(planner_client, measured_campus, {"kind": "measured", "object": "campus", **_window()})
    assert answer.status_code == 400
    assert "load_source.object" in answer.json()["params"]


def test_a_schedule_whose_window_is_gone_keeps_a_failed_run_saying_why(measured_campus, planner_client):
    answer = _scenario(planner_client, measured_campus, {"kind": "measured", **_window()}, step_minutes=5.0)
    assert answer.status_code == 201, answer.content
    scenario = Scenario.objects.get(pk=answer.json()["id"])
    schedule = Schedule.objects.create(scenario=scenario, name="nightly replay", crontab="30 2 * * *")
    MeasurementRollup.objects.filter(campus=measured_campus).delete()  # pruned past the retention
    run = Run.objects.get(pk=run_schedule(schedule.pk))
    assert run.status == RunStatus.FAILED and run.schedule_id == schedule.pk
    assert run.error.startswith("could not read the measured load: load_source.start: no measured power")


# ---------------------------------------------------------------- a window relative to the firing: last_hours


def _relative_rows(campus_name, now):
    """Means before ``now`` (a 5-minute boundary): six old buckets 3 h to 2.5 h before it (outside a 2 h
    window), a gap, then the last 1 h 50 min to 15 min before it with one bucket missing."""
    old = {now - timedelta(minutes=180 - 5 * i): 9000.0 for i in range(6)}
    recent = {now - timedelta(minutes=110 - 5 * i): 400.0 + 10.0 * i for i in range(20)}
    del recent[now - timedelta(minutes=60)]
    lines = ["object_kind,object_name,metric,time,value"]
    for t, mean in sorted({**old, **recent}.items()):
        lines.append(f"campus,{campus_name},power_kw,{(t + timedelta(seconds=90)).isoformat()},{mean}")
    return "\n".join(lines) + "\n", recent


def test_a_schedule_replays_the_last_hours_before_it_fires(planner_client):
    from campus.analysis.measurements import bucket_start

    campus = build_small_campus()
    now = bucket_start(datetime.now(UTC))
    body, recent = _relative_rows(campus.name, now)
    answer = planner_client.post(f"/api/campuses/{campus.pk}/measurements/", body, content_type="text/csv")
    assert answer.status_code == 201, answer.content
    answer = _scenario(planner_client, campus, {"kind": "measured", "last_hours": 2}, step_minutes=5.0)
    assert answer.status_code == 201, answer.content
    scenario = Scenario.objects.get(pk=answer.json()["id"])
    assert "start" not in scenario.params["load_source"]  # the scenario keeps the relative window
    schedule = Schedule.objects.create(scenario=scenario, name="replay the last 2 h", crontab="0 2 * * *")
    run = run_all(Run.objects.get(pk=run_schedule(schedule.pk)))
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.schedule_id == schedule.pk
    # the window [fired − 2 h, fired) starts in the gap (a firing up to 5 minutes later moves it into the
    # gap still): the series runs from the first mean held, 1 h 50 min before, to the last; the missing
    # bucket is the mean of its neighbours; the old buckets (9,000 kW) are outside
    times = sorted(recent)
    first, missing = times[0], now - timedelta(minutes=60)
    hand, t = [], first
    while t <= times[-1]:
        if t == missing:
            hand.append((recent[t - timedelta(minutes=5)] + recent[t + timedelta(minutes=5)]) / 2)
        else:
            hand.append(recent[t])
        t += timedelta(minutes=5)
    source = run.params["load_source"]
    assert source["values_kw"] == pytest.approx(hand)
    assert source["filled_steps"] == 1 and source["last_hours"] == 2
    assert datetime.fromisoformat(source["start"]) == first
    assert datetime.fromisoformat(source["end"]) == times[-1] + timedelta(minutes=5)
    hand_mwh = sum(max(0.0, v - CAP_KW) for v in hand) * (5 / 60) / 1000.0
    assert run.summary["metrics"]["shortfall_mwh"]["mean"] == pytest.approx(hand_mwh, rel=1e-9)
    words = planner_client.get(f"/api/runs/{run.pk}/").json()["explanation"]
    assert "the last 2 h before the run" in words[0]


@pytest.mark.parametrize(
    ("source", "field"),
    [
        ({"kind": "synthetic", "last_hours": 24}, "load_source.last_hours"),
        ({"kind": "measured", "last_hours": 0}, "load_source.last_hours"),
        ({"kind": "measured", "last_hours": 9000}, "load_source.last_hours"),
        ({"kind": "measured", "last_hours": "a day"}, "load_source.last_hours"),
        ({"kind": "measured", "last_hours": 24, "window": 1}, "load_source.window"),
    ],
)
def test_a_bad_relative_window_is_a_400_naming_its_field(measured_campus, planner_client, source, field):
    answer = _scenario(planner_client, measured_campus, source)
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["params"], answer.json()


def test_a_relative_window_without_measurements_is_a_400_naming_last_hours(planner_client):
    campus = build_small_campus()  # nothing measured
    answer = _scenario(planner_client, campus, {"kind": "measured", "last_hours": 24})
    assert answer.status_code == 400
    errors = answer.json()["params"]
    assert list(errors) == ["load_source.last_hours"]
    assert "no measured power of campus" in errors["load_source.last_hours"][0]
