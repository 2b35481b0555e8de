from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from twin.api.views import api_not_found
from twin.health import health, health_deep, health_ready

urlpatterns = [
    # First: the liveness probe is polled every second and resolves on the first pattern tried.
    path("api/health/", health, name="health"),
    path("api/health/ready/", health_ready, name="health-ready"),
    path("api/health/deep/", health_deep, name="health-deep"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("api/", include("simulations.api.urls")),
    path("api/", include("campus.api.urls")),
    # Last under /api/: whatever no app claims answers 404 in JSON.
    re_path(r"^api/", api_not_found),
    path("", include("frontend.urls")),
]
