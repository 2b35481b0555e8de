"""Query parameters of the lists and objects: what an endpoint does not read is refused by name, never ignored
(``?rack__campus=1`` on the servers answered every campus's servers as if filtered), and everything the
dashboard sends is read. The inventory endpoints' own tests (``tests/api/base.py``) cover each of them."""

from __future__ import annotations

import pytest

from tests.factories import RackFactory

pytestmark = pytest.mark.django_db

# Every list request of the dashboard (frontend/src), with its query parameters.
DASHBOARD_LISTS = [
    "/api/energy-storage/?campus={campus}&limit=1000",
    "/api/campuses/?parent={campus}&limit=1000",
    "/api/changes/?model=rack&object_id={rack}&limit=10",
    "/api/cooling-plants/?campus={campus}&limit=1000",
    "/api/cooling-units/?campus={campus}&brief=1&limit=1000",
    "/api/cooling-plants/?campus={campus}&brief=1&limit=1000",
    "/api/power-devices/?campus={campus}&limit=1000",
    "/api/utility-feeds/?campus={campus}&limit=1000",
    "/api/nodes/?rack={rack}&limit=1000",
    "/api/links/?a_rack={rack}&limit=100",
    "/api/racks/?campus={campus}&ordering=name&limit=1&offset=5",
    "/api/runs/?campus={campus}&ordering=-created&limit=50",
    "/api/runs/?campus={campus}&status=succeeded&ordering=-created&limit=100",
    "/api/schedules/?campus={campus}&limit=1000",
    "/api/gpu-models/?limit=1000",
    "/api/jobs/?limit=10",
]


@pytest.mark.parametrize("url", DASHBOARD_LISTS)
def test_every_list_request_of_the_dashboard_is_read(admin_client_api, url):
    rack = RackFactory()
    response = admin_client_api.get(url.format(campus=rack.campus_id, rack=rack.pk))
    assert response.status_code == 200, response.json()


@pytest.mark.parametrize(
    ("url", "unknown"),
    [
        ("/api/nodes/?rack__campus=1", "rack__campus"),
        ("/api/racks/?campuss=1", "campuss"),
        ("/api/racks/?page_size=3", "page_size"),
        ("/api/racks/?campus_id=1", "campus_id"),
        ("/api/changes/?modle=rack", "modle"),
        ("/api/jobs/?status=failed", "status"),
        ("/api/runs/?campuss=1", "campuss"),
        ("/api/scenarios/?search=x&fields=name", "fields"),
        ("/api/users/?brief=1&rolee=admin", "rolee"),
        ("/api/gpu-models/?vendorr=nvidia", "vendorr"),
    ],
)
def test_an_unknown_parameter_is_a_400_naming_it(admin_client_api, url, unknown):
    response = admin_client_api.get(url)
    assert response.status_code == 400, response.json()
    assert list(response.json()) == [unknown]
    assert "this endpoint takes:" in response.json()[unknown][0]


def test_the_change_log_and_the_replicas_check_their_paging_too(admin_client_api):
    assert admin_client_api.get("/api/changes/", {"limit": "-1"}).json() == {
        "limit": ["Must be a positive integer; got '-1'."]
    }
    assert list(admin_client_api.get("/api/changes/", {"offset": "x"}).json()) == ["offset"]
    rack = RackFactory()
    history = admin_client_api.get(f"/api/racks/{rack.pk}/history/", {"limit": "5", "brieff": "1"})
    assert history.status_code == 400
    assert list(history.json()) == ["brieff"]


def test_runs_order_only_by_their_ordering_fields(admin_client_api):
    response = admin_client_api.get("/api/runs/", {"ordering": "-created,scenario__owner__password"})
    assert response.status_code == 400
    message = response.json()["ordering"][0]
    assert "scenario__owner__password" in message and "created" in message
