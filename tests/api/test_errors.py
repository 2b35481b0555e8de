"""Every bad request is answered with a 4xx that says what is wrong; none ends in a 500."""

import json

import pytest
from django.core import signals
from django.db import close_old_connections
from django.urls import reverse
from rest_framework.authtoken.models import Token
from werkzeug.test import Client as WsgiClient

from tests import factories as f
from twin.api.mixins import MAX_BULK_OBJECTS
from twin.wsgi import application


@pytest.mark.django_db
class TestErrors:
    def test_deleting_a_catalog_row_still_in_use_is_409(self, planner_client):
        node = f.NodeFactory()
        response = planner_client.delete(reverse("nodemodel-detail", kwargs={"pk": node.node_model_id}))
        assert response.status_code == 409
        assert "referenced" in response.data["detail"]

    def test_duplicate_name_in_a_campus_is_400_naming_name(self, planner_client):
        rack = f.RackFactory()
        body = {
            "campus": rack.campus_id,
            "hall": rack.hall_id,
            "name": rack.name,
            # a free spot beside the factory's rack, wherever its sequence put it: only the name clashes
            "x_m": (rack.x_m + 2) % 40,
            "y_m": rack.y_m,
            "design_kw": 40,
        }
        response = planner_client.post(reverse("rack-list"), body, format="json")
        assert response.status_code == 400
        assert set(response.data) == {"name"}

    def test_duplicate_names_within_one_bulk_request_are_409_and_create_nothing(self, planner_client):
        hall = f.DataHallFactory()
        body = {
            "campus": hall.building.campus_id,
            "hall": hall.pk,
            "name": "twin",
            "x_m": 1,
            "y_m": 1,
            "design_kw": 40,
        }
        response = planner_client.post(reverse("rack-list"), [body, body], format="json")
        assert response.status_code == 409
        assert not hall.racks.exists()

    def test_rack_in_a_hall_of_another_campus_is_400_naming_hall(self, planner_client):
        hall = f.DataHallFactory()
        other = f.CampusFactory()
        body = {"campus": other.pk, "hall": hall.pk, "name": "R", "x_m": 1, "y_m": 1, "design_kw": 40}
        response = planner_client.post(reverse("rack-list"), body, format="json")
        assert response.status_code == 400
        assert "hall" in response.data

    def test_nan_is_refused_by_name(self, planner_client):
        rack = f.RackFactory()
        response = planner_client.patch(
            reverse("rack-detail", kwargs={"pk": rack.pk}), {"design_kw": "NaN"}, format="json"
        )
        assert response.status_code == 400
        assert "design_kw" in response.data

    def test_malformed_json_is_400(self, planner_client):
        response = planner_client.generic(
            "POST", reverse("campus-list"), "{not json", content_type="application/json"
        )
        assert response.status_code == 400

    def test_too_many_bulk_objects_is_413(self, planner_client):
        response = planner_client.post(reverse("campus-list"), [{}] * (MAX_BULK_OBJECTS + 1), format="json")
        assert response.status_code == 413

    def test_body_over_the_upload_limit_is_413(self, planner_client, settings):
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
        body = json.dumps({"name": "x" * 4096, "grid_capacity_mw": 1})
        response = planner_client.generic(
            "POST", reverse("campus-list"), body, content_type="application/json"
        )
        assert response.status_code == 413

    def test_wrong_method_is_405(self, planner_client):
        assert planner_client.put(reverse("change-list"), [], format="json").status_code == 405

    def test_search_with_a_nul_character_is_not_a_500(self, viewer_client):
        response = viewer_client.get(reverse("rack-list"), {"search": "a\x00b"})
        assert response.status_code in (200, 400)

    def test_bulk_delete_of_a_non_list_is_400(self, planner_client):
        response = planner_client.delete(reverse("campus-list"), {"id": 1}, format="json")
        assert response.status_code == 400

    def test_bulk_update_with_a_bad_field_rolls_back_every_object(self, planner_client):
        racks = f.RackFactory.create_batch(2, design_kw=40.0)
        payload = [{"id": racks[0].pk, "design_kw": 50.0}, {"id": racks[1].pk, "design_kw": 9999}]
        response = planner_client.patch(reverse("rack-list"), payload, format="json")
        assert response.status_code == 400
        assert "design_kw" in response.data["1"]
        racks[0].refresh_from_db()
        assert racks[0].design_kw == 40.0

    def test_unknown_api_path_is_a_json_404(self, viewer_client):
        response = viewer_client.get("/api/racks/not.a.number/")
        assert response.status_code == 404
        assert response.headers["Content-Type"] == "application/json"

    def test_list_path_without_trailing_slash_redirects(self, viewer_client):
        response = viewer_client.get("/api/racks", {"limit": 1})
        assert response.status_code == 301
        assert response.headers["Location"] == "/api/racks/?limit=1"

    def test_options_on_a_list_describes_the_create_form(self, planner_client):
        response = planner_client.options(reverse("campus-list"), {"brief": "true"})
        assert response.status_code == 200
        assert "name" in response.data["actions"]["POST"]


@pytest.fixture
def wsgi_client(db):
    """The WSGI application as a script reaches it (no test-client shortcuts such as CSRF exemption)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield WsgiClient(application)
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path"), [("PUT", "/api/users/0.5/"), ("POST", "/api/racks/0.5/history/")]
)
def test_unknown_api_path_is_a_json_404_for_writes_too(wsgi_client, planner, method, path):
    token = Token.objects.create(user=planner).key
    response = wsgi_client.open(
        path, method=method, headers={"Authorization": f"Token {token}"}, json={"a": 1}
    )
    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/json"
