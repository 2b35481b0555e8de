from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

app_name = "frontend"

urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.home, name="home"),
    path("campuses/<int:campus_id>/", views.overview, name="overview"),
    path("campuses/<int:campus_id>/map/", views.floor_map, name="map"),
    path("campuses/<int:campus_id>/scenarios/", views.scenarios, name="scenarios"),
    path("campuses/<int:campus_id>/compare/", views.compare, name="compare"),
    path("campuses/<int:campus_id>/inventory/", views.inventory, name="inventory"),
    path(
        "campuses/<int:campus_id>/inventory/power-devices/<int:object_id>/",
        views.inventory,
        {"view": "device"},
        name="inventory-device",
    ),
    path(
        "campuses/<int:campus_id>/inventory/cooling-units/<int:object_id>/",
        views.inventory,
        {"view": "cooling"},
        name="inventory-cooling-unit",
    ),
    path(
        "campuses/<int:campus_id>/inventory/racks/<int:object_id>/",
        views.inventory,
        {"view": "rack"},
        name="inventory-rack",
    ),
    path("campuses/<int:campus_id>/capacity/", views.inventory, {"view": "capacity"}, name="capacity"),
]
