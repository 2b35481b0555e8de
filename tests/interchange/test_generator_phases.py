"""The generator's build-out in phases: each phase's GPUs enter service on its date.

Truth: the phases' own GPU counts, summed by hand. The generator builds whole servers (a count that is not
a whole number of servers is refused) and whole GB200 NVL72 racks of 72 GPUs (a phase's count rounded up
to the next multiple of 72, as for a mix), so on each phase date the GPUs in service are the cumulative sum
of the phases so far, each NVL72 phase rounded up to whole racks.
"""

import math
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus import state as states
from campus.analysis.phases import change_dates
from campus.interchange.generate import GeneratorError, generate, generate_spec
from campus.interchange.importer import validate_spec
from campus.interchange.spec_snapshot import spec_snapshot

GENERATE_URL = "/api/campuses/generate/"
NVL72_GPUS = 72


def gpus_on(spec: dict, day: date) -> int:
    snap = spec_snapshot(spec, as_of=day)
    return sum(sum(snap.rack_gpus(r).values()) for r in snap.racks)


def built(model: str, gpus: int) -> int:
    """GPUs the generator builds for one phase: whole NVL72 racks for gb200, else exactly the count."""
    return math.ceil(gpus / NVL72_GPUS) * NVL72_GPUS if model == "gb200" else gpus


PHASE = st.one_of(
    st.tuples(st.just("h100-sxm"), st.integers(1, 96).map(lambda n: 8 * n)),
    st.tuples(st.just("b200"), st.integers(1, 64).map(lambda n: 8 * n)),
    st.tuples(st.just("gb200"), st.integers(1, 400).map(lambda n: 4 * n)),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    phases=st.lists(PHASE, min_size=1, max_size=3),
    start=st.dates(date(2024, 1, 1), date(2030, 1, 1)),
    gaps=st.lists(st.integers(1, 800), min_size=2, max_size=2),
)
def test_gpus_in_service_on_each_phase_date_are_the_phases_so_far(phases, start, gaps):
    days = [start]
    for gap in gaps[: len(phases) - 1]:
        days.append(days[-1] + timedelta(days=gap))
    params = [
        {"date": day.isoformat(), "gpus": gpus, "gpu_model": model}
        for day, (model, gpus) in zip(days, phases, strict=True)
    ]
    spec = generate_spec("Phased", phases=params)
    assert gpus_on(spec, days[0] - timedelta(days=1)) == 0
    cumulative = 0
    for i, (day, (model, gpus)) in enumerate(zip(days, phases, strict=True)):
        cumulative += built(model, gpus)
        assert gpus_on(spec, day) == cumulative
        if i + 1 < len(days):  # holds until the next phase
            assert gpus_on(spec, days[i + 1] - timedelta(days=1)) == cumulative
    # the spec's change dates are exactly the phase dates
    assert change_dates(spec_snapshot(spec)) == days


def test_each_phase_has_buildings_of_its_own():
    spec = generate_spec(
        "Two",
        phases=[
            {"date": "2026-01-01", "gpus": 1024, "gpu_model": "h100-sxm"},
            {"date": "2027-01-01", "gpus": 1024, "gpu_model": "h100-sxm"},
        ],
    )
    assert [(b["name"], b["in_service_date"]) for b in spec["buildings"]] == [
        ("B1", "2026-01-01"),
        ("B2", "2027-01-01"),
    ]
    assert {f["in_service_date"] for f in spec["utility_feeds"]} == {"2026-01-01"}
    for device in spec["power_devices"]:
        assert device["in_service_date"] == ("2026-01-01" if device["building"] == "B1" else "2027-01-01")


@pytest.mark.parametrize(
    ("phases", "field"),
    [
        ([], "phases"),
        ([{"date": "2026-01-01", "gpus": 8}], "phases[0].gpu_model"),
        ([{"date": "2026-01-01", "gpus": 8, "gpu_model": "h100-sxm", "x": 1}], "phases[0].x"),
        ([{"date": "2026-02-30", "gpus": 8, "gpu_model": "h100-sxm"}], "phases[0].date"),
        ([{"date": "2026-01-01", "gpus": 0, "gpu_model": "h100-sxm"}], "phases[0].gpus"),
        ([{"date": "2026-01-01", "gpus": 8, "gpu_model": "no-such-gpu"}], "phases[0].gpu_model"),
        (
            [
                {"date": "2026-01-01", "gpus": 8, "gpu_model": "h100-sxm"},
                {"date": "2026-01-01", "gpus": 8, "gpu_model": "h100-sxm"},
            ],
            "phases[1].date",
        ),
    ],
)
def test_bad_phases_name_the_field(phases, field):
    with pytest.raises(GeneratorError) as err:
        generate("Bad", phases=phases)
    assert err.value.field == field


@pytest.mark.django_db
def test_generated_phases_import_and_the_timeline_follows_them(planner_client, viewer_client):
    states.forget()
    phases = [
        {"date": "2026-01-01", "gpus": 512, "gpu_model": "h100-sxm"},
        {"date": "2026-07-01", "gpus": 144, "gpu_model": "gb200"},
    ]
    response = planner_client.post(GENERATE_URL, {"name": "Phased", "phases": phases}, format="json")
    assert response.status_code == 201, response.json()
    campus_id = response.json()["id"]
    points = viewer_client.get(f"/api/campuses/{campus_id}/timeline/", {"as_of": "2025-12-31"}).json()[
        "points"
    ]
    assert [(p["date"], p["gpus"]) for p in points] == [
        ("2025-12-31", 0),
        ("2026-01-01", 512),
        ("2026-07-01", 512 + 144),
    ]
    assert points[0]["it_mw"] == 0 and 0 < points[1]["it_mw"] < points[2]["it_mw"]
    states.forget()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("phases", "field"),
    [
        ([{"date": "2026-01-01", "gpus": 8, "gpu_model": "no-such-gpu"}], "phases[0].gpu_model"),
        ([{"date": "soon", "gpus": 8, "gpu_model": "h100-sxm"}], "phases[0].date"),
        ("2026-01-01", "phases"),
    ],
)
def test_generate_endpoint_names_the_phase_field(planner_client, phases, field):
    response = planner_client.post(GENERATE_URL, {"name": "Bad", "phases": phases}, format="json")
    assert response.status_code == 400
    assert field in response.json()


@pytest.mark.django_db
def test_a_phased_spec_is_valid_and_the_spec_checks_its_dates():
    spec = generate_spec(
        "Valid",
        phases=[
            {"date": "2026-01-01", "gpus": 256, "gpu_model": "h100-sxm"},
            {"date": "2026-06-01", "gpus": 256, "gpu_model": "h100-sxm"},
        ],
    )
    assert validate_spec(spec) == []
    spec["buildings"][1]["retire_date"] = "2026-06-01"
    spec["buildings"][0]["halls"][0]["in_service_date"] = "2026-13-01"
    paths = {e["path"] for e in validate_spec(spec)}
    assert paths == {"buildings[1].retire_date", "buildings[0].halls[0].in_service_date"}


@pytest.mark.django_db
def test_the_command_takes_phases(tmp_path):
    from io import StringIO

    import yaml
    from django.core.management import call_command
    from django.core.management.base import CommandError

    target = tmp_path / "spec.yaml"
    call_command(
        "generate_campus",
        "--name",
        "Phased",
        "--phases",
        "2026-01-01:h100-sxm:256,2027-01-01:h100-sxm:512",
        "--spec-only",
        "-o",
        str(target),
        stdout=StringIO(),
        stderr=StringIO(),
    )
    spec = yaml.safe_load(target.read_text())
    assert gpus_on(spec, date(2026, 6, 1)) == 256 and gpus_on(spec, date(2027, 1, 1)) == 768
    with pytest.raises(CommandError, match="--phases"):
        call_command("generate_campus", "--name", "Bad", "--phases", "2026-01-01:h100-sxm", stdout=StringIO())
