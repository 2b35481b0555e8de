"""Campus jobs: POST /api/campuses/generate/ and /api/campuses/import/ as background jobs, GET /api/jobs/.

The job's task is run here in the test's own process (``campus.tasks.run_job`` called directly, as a worker
would); the real worker process is in tests/e2e/test_jobs_e2e.py. Sizes stay small: the thresholds are lowered
through settings.
"""

from __future__ import annotations

import json
import zlib
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from campus import jobs
from campus.interchange.exporter import export_campus
from campus.interchange.formats import SpecFormatError, ZlibReader, dump_spec, parse_json_stream
from campus.models import Campus, Job, Rack
from campus.tasks import run_job
from tests.conftest import client_for, make_user

from .conftest import inventory_counts

IMPORT_URL = "/api/campuses/import/"
GENERATE_URL = "/api/campuses/generate/"


def job_of(response) -> Job:
    assert response.status_code == 202, response.content
    body = response.json()
    assert set(body) == {"job", "url"}
    assert body["url"].endswith(f"/api/jobs/{body['job']}/")
    return Job.objects.get(pk=body["job"])


def post_json(client, spec, query=""):
    return client.generic(
        "POST", IMPORT_URL + query, json.dumps(spec).encode(), content_type="application/json"
    )


# ---------------------------------------------------------------- the streaming reader (pure)

_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=40,
)


@hsettings(max_examples=25, deadline=None)
@given(_json_values)
def test_streaming_parse_reads_what_the_standard_parser_reads(value):
    text = json.dumps(value).encode()
    assert parse_json_stream(ZlibReader(zlib.compress(text))) == json.loads(text)


@pytest.mark.parametrize("chunk", [1, 7, 65536])
def test_inflating_reader_gives_back_every_byte_whatever_the_read_size(chunk):
    data = json.dumps({"x": list(range(5000))}).encode()
    reader = ZlibReader(zlib.compress(data))
    out = b""
    while part := reader.read(chunk):
        out += part
    assert out == data
    assert reader.consumed == 1.0


@pytest.mark.parametrize("text", [b"", b"{", b'{"a": }', b"[1] 2", b"\xff\xfe"])
def test_streaming_parse_refuses_what_is_not_one_json_document(text):
    with pytest.raises(SpecFormatError):
        parse_json_stream(ZlibReader(zlib.compress(text)))


def test_the_upload_spool_deflates_and_gives_back_the_upload():
    spool = jobs.CompressedSpool()
    parts = [b"abc" * 1000, b"", b"xyz" * 5000]
    for p in parts:
        spool.write(p)
    assert spool.size == sum(map(len, parts))
    assert zlib.decompress(spool.getvalue()) == b"".join(parts)


# ---------------------------------------------------------------- generate


@pytest.mark.django_db
def test_background_generation_gives_202_then_the_same_campus_as_inline(planner_client):
    params = {"gpus": 512, "gpu_model": "h100-sxm"}
    inline = planner_client.post(GENERATE_URL, {"name": "Inline", **params}, format="json")
    assert inline.status_code == 201, inline.content
    job = job_of(
        planner_client.post(GENERATE_URL, {"name": "Job", **params, "background": True}, format="json")
    )
    assert (job.status, job.kind, job.progress, job.campus_id) == ("queued", "generate", 0.0, None)
    assert not Campus.objects.filter(name="Job").exists()

    assert run_job(job.pk) == "succeeded"
    body = planner_client.get(f"/api/jobs/{job.pk}/").json()
    assert (body["status"], body["progress"], body["error"]) == ("succeeded", 1.0, None)
    campus = Campus.objects.get(name="Job")
    assert body["campus"] == campus.pk == body["result"]["id"]
    assert body["result"]["counts"] == inline.json()["counts"]
    assert body["result"]["notes"] == inline.json()["notes"]
    # An independent read of both campuses: the same inventory apart from the name.
    a, b = export_campus(Campus.objects.get(name="Inline")), export_campus(campus)
    a["campus"].pop("name"), b["campus"].pop("name")
    assert a == b


@pytest.mark.django_db
def test_generation_above_the_threshold_is_a_job_and_below_is_inline(planner_client, settings):
    settings.TWIN_JOB_THRESHOLD_GPUS = 256
    assert planner_client.post(GENERATE_URL, {"name": "A", "gpus": 256}, format="json").status_code == 201
    job = job_of(planner_client.post(GENERATE_URL, {"name": "B", "gpus": 264}, format="json"))
    assert job.params["gpus"] == 264
    job_of(planner_client.post(GENERATE_URL + "?async=1", {"name": "C", "gpus": 8}, format="json"))


@pytest.mark.django_db
def test_generation_over_the_configured_limit_is_a_400_naming_gpus_and_the_setting(planner_client, settings):
    settings.TWIN_GENERATE_MAX_GPUS = 1000
    response = planner_client.post(GENERATE_URL, {"name": "Big", "gpus": 1001}, format="json")
    assert response.status_code == 400
    assert "TWIN_GENERATE_MAX_GPUS" in response.json()["gpus"][0]
    mix = [{"gpu_model": "h100-sxm", "gpus": 600}, {"gpu_model": "gb200", "gpus": 432}]
    response = planner_client.post(GENERATE_URL, {"name": "Big", "mix": mix}, format="json")
    assert response.status_code == 400 and "1000" in response.json()["mix"][0]
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_unknown_generator_parameter_is_a_400_naming_it_and_no_job(planner_client):
    response = planner_client.post(GENERATE_URL, {"name": "X", "gpus": 8, "backgroud": True}, format="json")
    assert response.status_code == 400
    assert "backgroud" in response.json()
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_a_generator_error_in_a_job_fails_it_naming_the_parameter(planner_client):
    # Each within its own range, together refused by the generator (checked when the job runs).
    job = job_of(
        planner_client.post(
            GENERATE_URL,
            {"name": "Halls", "gpus": 64, "hall_max_it_mw": 50, "building_max_it_mw": 20, "background": True},
            format="json",
        )
    )
    before = inventory_counts()
    assert run_job(job.pk) == "failed"
    job.refresh_from_db()
    assert job.status == "failed" and job.campus_id is None
    assert job.error == {"field": "hall_max_it_mw", "detail": "must be > 0 and at most building_max_it_mw"}
    assert inventory_counts() == before


@pytest.mark.django_db
def test_a_name_taken_between_request_and_job_fails_the_job_and_leaves_the_other_campus(planner_client):
    job = job_of(
        planner_client.post(GENERATE_URL, {"name": "Twice", "gpus": 8, "background": True}, format="json")
    )
    assert planner_client.post(GENERATE_URL, {"name": "Twice", "gpus": 16}, format="json").status_code == 201
    before = inventory_counts()
    assert run_job(job.pk) == "failed"
    job.refresh_from_db()
    assert job.error["field"] == "campus.name"
    assert inventory_counts() == before
    assert Rack.objects.filter(campus__name="Twice").count() >= 1


# ---------------------------------------------------------------- import


@pytest.mark.django_db
def test_import_job_writes_the_same_campus_as_an_inline_import(planner_client, small_spec):
    job = job_of(post_json(planner_client, small_spec, "?async=1"))
    assert job.kind == "import" and job.input_bytes == len(json.dumps(small_spec).encode())
    assert run_job(job.pk) == "succeeded"
    job.refresh_from_db()
    assert job.input is None  # the upload is dropped once the job finished
    assert job.result["counts"]["gpus"] == 64
    exported = export_campus(job.campus)
    assert (
        post_json(
            planner_client, {**small_spec, "campus": {**small_spec["campus"], "name": "Other"}}
        ).status_code
        == 201
    )
    other = export_campus(Campus.objects.get(name="Other"))
    exported["campus"].pop("name"), other["campus"].pop("name")
    assert exported == other


@pytest.mark.django_db
def test_a_json_spec_over_the_inline_limit_becomes_a_job(planner_client, small_spec, settings):
    body = json.dumps(small_spec).encode()
    settings.TWIN_SPEC_MAX_BYTES = len(body) - 1
    job = job_of(post_json(planner_client, small_spec))
    assert run_job(job.pk) == "succeeded"
    spec = {**small_spec, "campus": {**small_spec["campus"], "name": "Inline"}}
    settings.TWIN_SPEC_MAX_BYTES = len(json.dumps(spec).encode())
    assert post_json(planner_client, spec).status_code == 201


@pytest.mark.django_db
def test_a_yaml_spec_over_the_inline_limit_is_a_job_and_over_the_yaml_limit_a_413(
    planner_client, small_spec, settings
):
    body = dump_spec(small_spec, "yaml").encode()
    settings.TWIN_SPEC_MAX_BYTES = len(body) - 1
    job = job_of(planner_client.generic("POST", IMPORT_URL, body, content_type="application/x-yaml"))
    assert job.params["format"] == "yaml"
    settings.TWIN_YAML_SPEC_MAX_BYTES = len(body) - 1
    response = planner_client.generic("POST", IMPORT_URL, body, content_type="application/x-yaml")
    assert response.status_code == 413
    detail = response.json()["detail"]
    assert "TWIN_YAML_SPEC_MAX_BYTES" in detail and str(len(body) - 1) in detail
    assert Job.objects.count() == 1


@pytest.mark.django_db
def test_a_spec_over_the_job_limit_is_a_413_naming_it_and_nothing_is_stored(
    planner_client, small_spec, settings
):
    body = json.dumps(small_spec).encode()
    settings.TWIN_SPEC_MAX_BYTES = 10
    settings.TWIN_JOB_SPEC_MAX_BYTES = len(body) - 1
    before = inventory_counts()
    response = post_json(planner_client, small_spec)
    assert response.status_code == 413
    assert "TWIN_JOB_SPEC_MAX_BYTES" in response.json()["detail"]
    # Without a Content-Length (chunked) the body is still cut off at the limit.
    request = planner_client.generic("POST", IMPORT_URL, body, content_type="application/json")
    assert request.status_code == 413
    assert inventory_counts() == before and not Job.objects.exists()


@pytest.mark.django_db
def test_an_invalid_spec_in_a_job_fails_naming_the_field_and_writes_nothing(planner_client, small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["feed_a"] = "PDU-9"
    small_spec["links"][2]["medium"] = "dac"
    job = job_of(post_json(planner_client, small_spec, "?async=1"))
    before = inventory_counts()
    assert run_job(job.pk) == "failed"
    after = inventory_counts()
    assert after == before
    body = planner_client.get(f"/api/jobs/{job.pk}/").json()
    assert body["status"] == "failed" and body["campus"] is None
    assert body["error"]["field"] == "buildings[0].halls[0].rows[0].racks[0].feed_a"
    assert body["error"]["detail"] == 'unknown power device "PDU-9"'
    assert [e["path"] for e in body["error"]["errors"]] == [
        "buildings[0].halls[0].rows[0].racks[0].feed_a",
        "links[2].length_m",
    ]


@pytest.mark.django_db
def test_an_unknown_field_in_a_job_spec_fails_naming_it(planner_client, small_spec):
    small_spec["buildings"][0]["halls"][0]["colour"] = "red"
    job = job_of(post_json(planner_client, small_spec, "?async=1"))
    assert run_job(job.pk) == "failed"
    job.refresh_from_db()
    assert "colour" in job.error["field"] + job.error["detail"]


@pytest.mark.django_db
def test_broken_json_in_a_job_fails_at_the_document(planner_client):
    response = planner_client.generic(
        "POST", IMPORT_URL + "?async=1", b'{"spec_version": 1, "campus": {', content_type="application/json"
    )
    job = job_of(response)
    assert run_job(job.pk) == "failed"
    job.refresh_from_db()
    assert job.error["field"] == "$" and "invalid JSON" in job.error["detail"]


@pytest.mark.django_db
def test_a_small_yaml_spec_can_be_a_job(planner_client, small_spec):
    body = dump_spec(small_spec, "yaml").encode()
    job = job_of(
        planner_client.generic("POST", IMPORT_URL + "?async=1", body, content_type="application/x-yaml")
    )
    assert run_job(job.pk) == "succeeded"
    assert Campus.objects.filter(name="Small").exists()


@pytest.mark.django_db
def test_replace_in_a_job_keeps_the_campus_id(planner_client, small_spec):
    first = post_json(planner_client, small_spec)
    assert first.status_code == 201
    job = job_of(post_json(planner_client, small_spec, "?async=1&replace=true"))
    assert run_job(job.pk) == "succeeded"
    job.refresh_from_db()
    assert job.campus_id == first.json()["id"]


# ---------------------------------------------------------------- lifecycle and permissions


@pytest.mark.django_db
def test_a_job_runs_once_even_when_its_message_comes_twice(planner_client):
    job = job_of(
        planner_client.post(GENERATE_URL, {"name": "Once", "gpus": 8, "background": True}, format="json")
    )
    assert run_job(job.pk) == "succeeded"
    assert run_job(job.pk) == "succeeded"  # the status it found; nothing run again
    assert Campus.objects.filter(name="Once").count() == 1
    assert run_job(10**9) == "missing"


@pytest.mark.django_db
def test_jobs_list_shows_own_jobs_and_admins_see_all(planner_client, planner, admin_client_api):
    other = make_user("other-planner", "planner")
    mine = job_of(
        planner_client.post(GENERATE_URL, {"name": "M", "gpus": 8, "background": True}, format="json")
    )
    theirs = job_of(
        client_for(other).post(GENERATE_URL, {"name": "T", "gpus": 8, "background": True}, format="json")
    )
    listed = planner_client.get("/api/jobs/").json()["results"]
    assert [j["id"] for j in listed] == [mine.pk]
    assert listed[0]["created_by"] == planner.username
    assert planner_client.get(f"/api/jobs/{theirs.pk}/").status_code == 404
    assert {j["id"] for j in admin_client_api.get("/api/jobs/").json()["results"]} == {mine.pk, theirs.pk}


@pytest.mark.django_db
def test_viewers_cannot_start_jobs_and_anonymous_cannot_read(viewer_client, anon_client, small_spec):
    assert (
        viewer_client.post(
            GENERATE_URL, {"name": "V", "gpus": 8, "background": True}, format="json"
        ).status_code
        == 403
    )
    assert post_json(viewer_client, small_spec, "?async=1").status_code == 403
    assert anon_client.get("/api/jobs/").status_code == 401
    assert viewer_client.get("/api/jobs/").json()["results"] == []
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_jobs_cannot_be_written_through_the_api(planner_client):
    job = job_of(
        planner_client.post(GENERATE_URL, {"name": "R", "gpus": 8, "background": True}, format="json")
    )
    assert (
        planner_client.patch(f"/api/jobs/{job.pk}/", {"status": "succeeded"}, format="json").status_code
        == 405
    )
    assert planner_client.delete(f"/api/jobs/{job.pk}/").status_code == 405


# ---------------------------------------------------------------- the reaper


@pytest.mark.django_db
def test_the_reaper_fails_a_running_job_whose_worker_went_silent(settings):
    settings.TWIN_JOB_STALE_SECONDS = 60
    now = timezone.now()
    dead = Job.objects.create(kind="generate", status="running", heartbeat=now - timedelta(seconds=61))
    alive = Job.objects.create(kind="generate", status="running", heartbeat=now - timedelta(seconds=30))
    done = Job.objects.create(kind="generate", status="succeeded", heartbeat=now - timedelta(days=1))
    report = jobs.reap_stale_jobs(now)
    assert report["failed"] == [dead.pk]
    dead.refresh_from_db(), alive.refresh_from_db(), done.refresh_from_db()
    assert dead.status == "failed" and "no sign of life for 60 s" in dead.error["detail"]
    assert "nothing was written" in dead.error["detail"]
    assert (alive.status, done.status) == ("running", "succeeded")


@pytest.mark.django_db
def test_the_reaper_fails_a_queued_job_whose_message_was_lost_too_often(settings):
    settings.TWIN_JOB_QUEUED_STALE_SECONDS = 60
    settings.TWIN_JOB_MAX_ATTEMPTS = 2
    old = timezone.now() - timedelta(seconds=120)
    worn = Job.objects.create(kind="generate", status="queued", attempts=2)
    fresh = Job.objects.create(kind="generate", status="queued", attempts=0)
    Job.objects.filter(pk__in=[worn.pk, fresh.pk]).update(created=old)
    report = jobs.reap_stale_jobs()
    if report == {"failed": [], "resent": [], "succeeded": []}:
        pytest.skip("the broker reports a backlog: lost messages cannot be told from waiting ones")
    assert report == {"failed": [worn.pk], "resent": [fresh.pk], "succeeded": []}
    fresh.refresh_from_db()
    assert fresh.attempts == 1 and fresh.status == "queued"
    assert Job.objects.get(pk=worn.pk).status == "failed"
