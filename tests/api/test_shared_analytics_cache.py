"""The shared analytics cache: the default summary and whole-campus floor map of a campus version, rendered
once and kept in Django's ``analytics`` cache (Redis when REDIS_URL is set, the file cache under the var
directory otherwise: whichever this run is configured with), filled by the job that wrote the campus.

A process that "forgot its state" (``states.forget()``) stands for another web worker: it holds nothing
of the campus, so what it answers without building a state came from the shared cache.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.cache import caches
from django.utils import timezone

from campus import jobs
from campus import state as states
from campus.models import Campus, Job, Rack
from campus.tasks import run_job

GENERATE_URL = "/api/campuses/generate/"
URLS = {"summary": "/api/campuses/{}/summary/", "floor-map": "/api/campuses/{}/floor-map/"}


@pytest.fixture(autouse=True)
def fresh_state():
    states.forget()
    yield
    states.forget()


def generated_by_a_job(client, name: str, gpus: int = 512) -> Campus:
    response = client.post(GENERATE_URL, {"name": name, "gpus": gpus, "background": True}, format="json")
    assert response.status_code == 202, response.content
    job_id = response.json()["job"]
    assert run_job(job_id) == "succeeded"
    job = Job.objects.get(pk=job_id)
    assert job.status == "succeeded" and job.progress == 1.0
    assert set(job.result["seconds"]) >= {"generate", "validate", "write", "commit", "analyse"}
    return job.campus


def computed(campus: Campus, endpoint: str) -> tuple[bytes, str]:
    """The body and ETag computed afresh in this process, which holds nothing of the campus."""
    states.forget()
    state = states.campus_state(campus)
    key, data = states.shared_endpoint(endpoint)
    value = states.rendered(state, key, lambda: data(state))
    states.forget()
    return value


def current_key(campus: Campus, endpoint: str) -> str:
    return states.shared_key(campus.pk, states.revision_key(campus.pk), states.today(), endpoint)


def test_the_configured_cache_is_a_shared_one():
    backend = settings.CACHES["analytics"]["BACKEND"]
    if settings.REDIS_URL:
        assert backend == "django.core.cache.backends.redis.RedisCache"
    else:
        assert backend == "django.core.cache.backends.filebased.FileBasedCache"
        assert settings.CACHES["analytics"]["LOCATION"].startswith(str(settings.VAR_DIR))


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ["summary", "floor-map"])
def test_a_jobs_campus_answers_its_first_read_from_the_shared_cache(planner_client, endpoint):
    campus = generated_by_a_job(planner_client, f"Warmed {endpoint}")
    states.forget()  # another process: it did not run the job

    stored = caches["analytics"].get(current_key(campus, endpoint))
    assert stored is not None  # the job put it there
    response = planner_client.get(URLS[endpoint].format(campus.pk))
    assert response.status_code == 200
    assert states.cached_state(campus.pk) is None  # answered without building the campus' state
    assert (response.content, response["ETag"]) == stored

    # The same bytes and ETag as a computation from scratch; the ETag still gives a 304.
    assert computed(campus, endpoint) == stored
    again = planner_client.get(URLS[endpoint].format(campus.pk), HTTP_IF_NONE_MATCH=stored[1])
    assert again.status_code == 304


@pytest.mark.django_db
def test_a_read_that_computes_fills_the_cache_for_the_other_processes(planner_client):
    campus = generated_by_a_job(planner_client, "Filled")
    key = current_key(campus, "summary")
    caches["analytics"].delete(key)
    states.forget()
    first = planner_client.get(URLS["summary"].format(campus.pk))
    assert states.cached_state(campus.pk) is not None  # computed here
    assert caches["analytics"].get(key) == (first.content, first["ETag"])


@pytest.mark.django_db
def test_the_shared_cache_is_what_answers_the_default_request_and_nothing_else(planner_client):
    campus = generated_by_a_job(planner_client, "Planted")
    real = {endpoint: computed(campus, endpoint) for endpoint in URLS}
    # A body no computation gives, under the current version's key: served as it is.
    planted = (b'{"planted": true}', '"planted"')
    for endpoint in URLS:
        caches["analytics"].set(current_key(campus, endpoint), planted)
    states.forget()
    for url in URLS.values():
        response = planner_client.get(url.format(campus.pk))
        assert (response.content, response["ETag"]) == planted

    # Any query parameter (a day, even today; an assumption; a hall) computes.
    hall = Rack.objects.filter(campus=campus).values_list("hall_id", flat=True).first()
    today = states.today().isoformat()
    for url, body in [
        (f"{URLS['summary']}?as_of={today}", real["summary"][0]),
        (f"{URLS['floor-map']}?as_of={today}", real["floor-map"][0]),
        (f"{URLS['summary']}?pue=1.3", None),
        (f"{URLS['floor-map']}?hall={hall}", None),
    ]:
        states.forget()
        response = planner_client.get(url.format(campus.pk))
        assert response.status_code == 200, response.content
        assert response.content != planted[0]
        if body is not None:
            assert response.content == body


@pytest.mark.django_db
def test_a_write_changes_the_version_and_the_old_body_is_never_served(planner_client, admin_client_api):
    campus = generated_by_a_job(planner_client, "Edited")
    old_keys = {endpoint: current_key(campus, endpoint) for endpoint in URLS}
    planted = (b'{"planted": true}', '"planted"')
    for key in old_keys.values():
        caches["analytics"].set(key, planted)

    response = planner_client.patch(f"/api/campuses/{campus.pk}/", {"name": "Edited again"}, format="json")
    assert response.status_code == 200, response.content
    campus.refresh_from_db()
    states.forget()  # this process wrote; another one learns of the write from the version alone
    for endpoint, url in URLS.items():
        assert current_key(campus, endpoint) != old_keys[endpoint]
        response = planner_client.get(url.format(campus.pk))
        assert response.content != planted[0]
        assert (response.content, response["ETag"]) == computed(campus, endpoint)
    assert planner_client.get(URLS["summary"].format(campus.pk)).json()["campus"]["name"] == "Edited again"


@pytest.mark.django_db
def test_an_unknown_campus_is_still_a_404(planner_client):
    for url in URLS.values():
        assert planner_client.get(url.format(987654321)).status_code == 404


@pytest.mark.django_db
def test_an_unreachable_cache_costs_the_warm_but_not_the_job_nor_the_read(planner_client, settings):
    settings.CACHES = {
        **settings.CACHES,
        "analytics": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens there
        },
    }
    campus = generated_by_a_job(planner_client, "No cache")
    states.forget()
    response = planner_client.get(URLS["summary"].format(campus.pk))
    assert response.status_code == 200
    assert (response.content, response["ETag"]) == computed(campus, "summary")


@pytest.mark.django_db
def test_the_reaper_finishes_a_job_whose_worker_died_while_analysing(planner_client, settings):
    settings.TWIN_JOB_STALE_SECONDS = 60
    campus = generated_by_a_job(planner_client, "Committed")
    stale = timezone.now() - timedelta(seconds=61)
    analysing = Job.objects.create(
        kind="generate", status="running", campus=campus, heartbeat=stale, message="analysing"
    )
    writing = Job.objects.create(kind="generate", status="running", heartbeat=stale, message="writing")
    report = jobs.reap_stale_jobs()
    assert (report["succeeded"], report["failed"]) == ([analysing.pk], [writing.pk])
    analysing.refresh_from_db()
    assert (analysing.status, analysing.progress, analysing.campus_id) == ("succeeded", 1.0, campus.pk)
    # A committed job is never marked failed (a time limit while it analyses).
    committed = Job.objects.create(kind="generate", status="running", campus=campus, heartbeat=timezone.now())
    assert not jobs.fail_job(committed.pk, None, "the job exceeded the hard time limit")
    assert Job.objects.get(pk=committed.pk).status == "running"


def test_a_body_read_from_the_shared_cache_is_read_from_it_once():
    """A process keeps the bodies it read from the shared cache by key (a key's body never changes): the next
    request of that key does not read the shared cache again; another key (another version) is read from it."""
    cache = caches[states.SHARED_CACHE]
    first, second = "twin-test:hits:v1", "twin-test:hits:v2"
    cache.set(first, (b'{"a":1}', '"e1"'))
    cache.set(second, (b'{"a":2}', '"e2"'))
    assert states.shared_get(first) == (b'{"a":1}', '"e1"')
    cache.delete(first)  # gone from the shared cache: the process still holds what it read
    assert states.shared_get(first) == (b'{"a":1}', '"e1"')
    assert states.shared_get(second) == (b'{"a":2}', '"e2"')
    for i in range(states.SHARED_HITS_MAX):  # bounded: the oldest goes first
        cache.set(f"twin-test:hits:other{i}", (b"{}", '"x"'))
        states.shared_get(f"twin-test:hits:other{i}")
    assert states.shared_get(first) is None
    states.forget()
    cache.delete(second)
    assert states.shared_get(second) is None
