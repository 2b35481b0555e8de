"""Root fixtures. The database is whatever DATABASE_URL names (PostgreSQL in CI), else SQLite.

pytest-django creates the test database; the catalog and the role groups come from the migrations.
A transactional test flushes every table when it ends, migration data included, so every test that
touches the database first makes sure the catalog and the roles are there again.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

_DB_FIXTURES = {
    "db",
    "transactional_db",
    "live_server",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
}


@pytest.fixture
def fresh_analytics():
    """The process's analytics states and versions forgotten before and after the test."""
    from campus import state as states

    states.forget()
    yield
    states.forget()


@pytest.fixture(autouse=True)
def _catalog_and_roles(request):
    uses_db = request.node.get_closest_marker("django_db") is not None or bool(
        _DB_FIXTURES.intersection(request.fixturenames)
    )
    if uses_db:
        request.getfixturevalue("_django_db_helper")
        from campus.catalog_loader import ensure_catalog_and_roles

        ensure_catalog_and_roles()
    yield


def make_user(username: str, role: str | None):
    user = get_user_model().objects.create_user(username=username, password="pw-" + username)
    if role:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def viewer(db):
    return make_user("viewer", "viewer")


@pytest.fixture
def planner(db):
    return make_user("planner", "planner")


@pytest.fixture
def admin_user(db):
    return make_user("admin", "admin")


@pytest.fixture
def anon_client(db) -> APIClient:
    return APIClient()


@pytest.fixture
def viewer_client(viewer) -> APIClient:
    return client_for(viewer)


@pytest.fixture
def planner_client(planner) -> APIClient:
    return client_for(planner)


@pytest.fixture
def admin_client_api(admin_user) -> APIClient:
    return client_for(admin_user)
