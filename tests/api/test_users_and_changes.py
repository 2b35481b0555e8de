import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests import factories as f
from twin.api.permissions import user_role


@pytest.mark.django_db
class TestUsers:
    def test_admin_creates_a_user_with_a_role_and_password(self, admin_client_api):
        body = {
            "username": "ops",
            "email": "ops@example.org",
            "role": "planner",
            "password": "s3cret-pass-42",
        }
        response = admin_client_api.post(reverse("user-list"), body, format="json")
        assert response.status_code == 201, response.data
        assert response.data["role"] == "planner"
        assert "password" not in response.data
        user = get_user_model().objects.get(username="ops")
        assert user.check_password("s3cret-pass-42")
        assert user_role(user) == "planner"

    def test_admin_changes_a_role(self, admin_client_api):
        user = f.UserFactory(role="viewer")
        response = admin_client_api.patch(
            reverse("user-detail", kwargs={"pk": user.pk}), {"role": "admin"}, format="json"
        )
        assert response.status_code == 200
        user.refresh_from_db()
        assert user_role(get_user_model().objects.get(pk=user.pk)) == "admin"

    @pytest.mark.parametrize("client_name", ["viewer_client", "planner_client"])
    def test_non_admins_can_neither_list_nor_create_users(self, request, client_name):
        client = request.getfixturevalue(client_name)
        assert client.get(reverse("user-list")).status_code == 403
        assert client.post(reverse("user-list"), {"username": "x"}, format="json").status_code == 403

    def test_short_password_is_400_naming_password(self, admin_client_api):
        response = admin_client_api.post(
            reverse("user-list"), {"username": "u2", "password": "short"}, format="json"
        )
        assert response.status_code == 400
        assert "password" in response.data


@pytest.mark.django_db
class TestChanges:
    def test_change_log_shows_who_changed_what(self, planner_client, viewer_client):
        rack = f.RackFactory(design_kw=40.0)
        response = planner_client.patch(
            reverse("rack-detail", kwargs={"pk": rack.pk}), {"design_kw": 60.0}, format="json"
        )
        assert response.status_code == 200
        log = viewer_client.get(reverse("change-list"), {"model": "rack", "object_id": rack.pk})
        assert log.status_code == 200, log.data
        latest = log.data["results"][0]
        assert latest["type"] == "~"
        assert latest["user"]["username"] == "planner"
        assert {"field": "design_kw", "old": 40.0, "new": 60.0} in latest["changes"]

    def test_deleted_objects_keep_their_history(self, planner_client, viewer_client):
        building = f.BuildingFactory()
        assert (
            planner_client.delete(reverse("building-detail", kwargs={"pk": building.pk})).status_code == 204
        )
        history = viewer_client.get(reverse("building-history", kwargs={"pk": building.pk}))
        assert history.status_code == 200
        assert history.data["results"][0]["type"] == "-"

    def test_global_log_merges_models_newest_first(self, viewer_client):
        f.CampusFactory()
        f.PowerDeviceFactory()
        response = viewer_client.get(reverse("change-list"), {"limit": 200})
        assert response.status_code == 200
        dates = [row["date"] for row in response.data["results"]]
        assert dates == sorted(dates, reverse=True)
        assert {"campus", "powerdevice"} <= {row["model"] for row in response.data["results"]}
        assert response.data["count"] >= 3

    def test_unknown_model_is_400_naming_model(self, viewer_client):
        response = viewer_client.get(reverse("change-list"), {"model": "teapot"})
        assert response.status_code == 400
        assert "model" in response.data

    def test_kebab_plural_model_names_are_accepted(self, viewer_client):
        device = f.PowerDeviceFactory()
        response = viewer_client.get(
            reverse("change-list"), {"model": "power-devices", "object_id": device.pk}
        )
        assert response.status_code == 200
        assert [row["object_id"] for row in response.data["results"]] == [device.pk]
