"""On PostgreSQL the server binds the parameters and a statement a connection has run
TWIN_PG_PREPARE_THRESHOLD times is prepared (twin/settings/base.py): a detail GET and a page of racks are then
parsed and planned once per connection. Read from PostgreSQL's own view of the session's prepared statements,
``pg_prepared_statements``; the answers stay what they were."""

import pytest
from django.conf import settings
from django.db import connection

from campus.models import GPUModel, Rack

pytestmark = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="prepared statements are PostgreSQL's",
)


def _prepared(fragment: str) -> list[tuple[str, int]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        return [(sql, plans) for sql, plans in cursor.fetchall() if fragment in sql]


def test_the_settings_bind_on_the_server_and_prepare():
    options = settings.DATABASES["default"]["OPTIONS"]
    assert options["server_side_binding"] is True
    assert isinstance(options["prepare_threshold"], int)


@pytest.mark.django_db
def test_a_repeated_detail_get_runs_a_prepared_statement(one_of_each, viewer_client):
    gpu = GPUModel.objects.first()
    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    first = viewer_client.get(f"/api/gpu-models/{gpu.pk}/").json()
    for _ in range(threshold + 3):
        assert viewer_client.get(f"/api/gpu-models/{gpu.pk}/").json() == first
    table = GPUModel._meta.db_table
    prepared = _prepared(f'FROM "{table}" WHERE "{table}"."id" = $1')
    assert prepared, "the detail's statement was not prepared"
    assert max(plans for _, plans in prepared) >= 3  # run from the prepared statement, not parsed again


@pytest.mark.django_db
def test_a_page_of_racks_reads_its_rows_with_prepared_statements(one_of_each, viewer_client):
    campus = Rack.objects.first().campus_id
    url = f"/api/racks/?campus={campus}&limit=50"
    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    first = viewer_client.get(url).json()
    assert first["results"]
    for _ in range(threshold + 2):
        assert viewer_client.get(url).json() == first
    assert _prepared(f'FROM "{Rack._meta.db_table}"'), "the page's statements were not prepared"
