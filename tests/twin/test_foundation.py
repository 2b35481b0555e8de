import io

import pytest
from django.core.management import call_command
from django.db import connection
from rest_framework.authtoken.models import Token

from campus import catalog_data
from campus.models import FailureRate, GPUModel, NodeModel


@pytest.mark.django_db
def test_no_model_change_is_missing_a_migration():
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)


@pytest.mark.django_db
def test_catalog_is_seeded_from_the_documented_defaults():
    assert set(GPUModel.objects.values_list("slug", flat=True)) == {
        row["slug"] for row in catalog_data.GPU_MODELS
    }
    h100 = GPUModel.objects.get(slug="h100-sxm")
    assert h100.tdp_w == catalog_data.gpu("h100-sxm")["tdp_w"]
    assert NodeModel.objects.get(slug="hgx-h100-8").gpu_model == h100
    assert FailureRate.objects.filter(dataset=catalog_data.DEFAULT_JOB_RATE_SET).exists()


@pytest.mark.django_db
def test_create_api_token_prints_a_token_for_a_user_with_that_role():
    out = io.StringIO()
    call_command("create_api_token", "robot", "--role", "planner", stdout=out)
    token = Token.objects.get(user__username="robot")
    assert out.getvalue().strip() == token.key
    assert list(token.user.groups.values_list("name", flat=True)) == ["planner"]
    # Changing the role replaces the group, the token stays.
    call_command("create_api_token", "robot", "--role", "viewer", stdout=io.StringIO())
    assert list(token.user.groups.values_list("name", flat=True)) == ["viewer"]


@pytest.mark.django_db
def test_liveness_probe_answers_from_the_process_alone(client, monkeypatch, django_assert_num_queries):
    from twin.celery import app

    # A broker nobody listens on: the deep check is down; liveness and readiness do not ask it.
    monkeypatch.setitem(app.conf, "broker_url", "redis://127.0.0.1:1/0")
    with django_assert_num_queries(0):
        live = client.get("/api/health/")
    assert live.status_code == 200
    assert live.json() == {"status": "ok"}
    assert client.head("/api/health/").status_code == 200
    with django_assert_num_queries(1):
        ready = client.get("/api/health/ready/")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok", "database": {"ok": True, "vendor": connection.vendor}}
    deep = client.get("/api/health/deep/")
    assert deep.status_code == 503
    assert deep.json()["broker"]["ok"] is False
    assert deep.json()["status"] == "down"


def test_liveness_probe_refuses_writes_in_json(client):
    response = client.post("/api/health/", {"a": 1})
    assert response.status_code == 405
    assert response.json() == {"detail": 'Method "POST" not allowed.'}
    assert "GET" in response["Allow"]


def test_every_health_path_is_in_the_schema_with_only_its_own_answers():
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    health = [path for path in paths if path.startswith("/api/health/")]
    assert health == ["/api/health/", "/api/health/deep/", "/api/health/ready/"]
    assert set(paths["/api/health/"]["get"]["responses"]) == {"200"}
    assert set(paths["/api/health/ready/"]["get"]["responses"]) == {"200", "503"}
    assert set(paths["/api/health/deep/"]["get"]["responses"]) == {"200", "503"}
    assert paths["/api/health/"]["get"]["security"] == [{}]


@pytest.mark.django_db
def test_deep_health_reports_database_and_broker(client):
    response = client.get("/api/health/deep/")
    body = response.json()
    assert response.status_code == 200
    assert body["database"] == {"ok": True, "vendor": connection.vendor}
    assert body["broker"]["ok"] is True
    assert set(body["workers"]) >= {"ok", "count", "names"}


def test_production_settings_pass_the_deployment_checks():
    import os
    import subprocess
    import sys

    # The browser tests' process sets DJANGO_ALLOW_ASYNC_UNSAFE; a deployment never does.
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env |= {
        "DJANGO_SETTINGS_MODULE": "twin.settings.production",
        "SECRET_KEY": "a-long-random-value-used-only-by-this-test-" + "x" * 40,
        "ALLOWED_HOSTS": "twin.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_a_missing_secret_key():
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env["DJANGO_SETTINGS_MODULE"] = "twin.settings.production"
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr
