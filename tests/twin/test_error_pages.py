"""The project's own error pages: an unknown page is a 404 with a way back to the dashboard, a server error a
500 that says what to do, and `make run`'s settings (twin.settings.local) serve them too instead of Django's
debug pages with the URL list."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory
from django.views.defaults import server_error

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_an_unknown_page_is_the_projects_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert 'data-testid="error-page"' in body and "Page not found" in body
    assert "/no-such-page/" in body and 'href="/"' in body
    assert "URLconf" not in body


@pytest.mark.django_db
def test_an_unknown_campus_page_is_the_projects_404(admin_client):
    response = admin_client.get("/campuses/987654/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_a_server_error_is_the_projects_500():
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    body = response.content.decode()
    assert 'data-testid="error-page"' in body and "Something went wrong" in body


def test_make_run_settings_keep_debug_pages_off_unless_asked():
    env = {k: v for k, v in os.environ.items() if k != "DEBUG"}
    env["TWIN_VAR_DIR"] = str(ROOT / "var")
    code = "import twin.settings.local as s; print(s.DEBUG)"
    plain = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    asked = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**env, "DEBUG": "1"}, capture_output=True, text=True
    )
    assert (plain.stdout.strip(), asked.stdout.strip()) == ("False", "True"), plain.stderr + asked.stderr
