from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, re_path, resolve
from django.views.decorators.csrf import csrf_exempt
from rest_framework.routers import DefaultRouter, Route

from campus.api import calculators, spec_views, views
from campus.api.serializers_.base import register_basename


class TwinRouter(DefaultRouter):
    """DefaultRouter plus bulk writes on the list route (NetBox's NetBoxRouter): PUT/PATCH/DELETE a list."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        list_route = self.routes[0]
        self.routes[0] = Route(
            url=list_route.url,
            mapping={
                **list_route.mapping,
                "put": "bulk_update",
                "patch": "bulk_partial_update",
                "delete": "bulk_destroy",
            },
            name=list_route.name,
            detail=list_route.detail,
            initkwargs=list_route.initkwargs,
        )


router = TwinRouter()
router.include_root_view = False

REGISTRY = [
    ("campuses", views.CampusViewSet, "campus"),
    ("utility-feeds", views.UtilityFeedViewSet, "utilityfeed"),
    ("buildings", views.BuildingViewSet, "building"),
    ("halls", views.DataHallViewSet, "datahall"),
    ("rows", views.RowViewSet, "row"),
    ("racks", views.RackViewSet, "rack"),
    ("power-devices", views.PowerDeviceViewSet, "powerdevice"),
    ("power-feeds", views.PowerFeedViewSet, "powerfeed"),
    ("cooling-plants", views.CoolingPlantViewSet, "coolingplant"),
    ("cooling-units", views.CoolingUnitViewSet, "coolingunit"),
    ("nodes", views.NodeViewSet, "node"),
    ("pods", views.PodViewSet, "pod"),
    ("switches", views.SwitchViewSet, "switch"),
    ("links", views.LinkViewSet, "link"),
    ("gpu-models", views.GPUModelViewSet, "gpumodel"),
    ("node-models", views.NodeModelViewSet, "nodemodel"),
    ("switch-models", views.SwitchModelViewSet, "switchmodel"),
    ("link-media", views.LinkMediumViewSet, "linkmedium"),
    ("failure-rates", views.FailureRateViewSet, "failurerate"),
    ("users", views.UserViewSet, "user"),
]
for prefix, viewset, basename in REGISTRY:
    router.register(prefix, viewset, basename=basename)
    register_basename(viewset.queryset.model, basename)
router.register("changes", views.ChangeViewSet, basename="change")


# csrf_exempt: it only answers 404 in JSON (it changes nothing), also to a POST with a session cookie.
@csrf_exempt
@csrf_exempt  # a 404 changes nothing; without this, unsafe methods would get Django's HTML CSRF page
def api_not_found(request, *args, **kwargs):
    """Unknown paths under /api/ answer in JSON like every other API error (Django's page is HTML).
    A path missing its trailing slash is redirected for GET, as APPEND_SLASH would."""
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            if request.method in ("GET", "HEAD"):
                query = request.META.get("QUERY_STRING", "")
                return HttpResponsePermanentRedirect(request.path + "/" + (f"?{query}" if query else ""))
            return JsonResponse({"detail": f"Not found. Did you mean {request.path}/ ?"}, status=404)
    return JsonResponse({"detail": "Not found."}, status=404)


urlpatterns = [
    # Paths of other modules (spec import/export) go here, before the router's.
    *calculators.urlpatterns,
    *spec_views.urlpatterns,
    *router.urls,
    # Last: nothing after this under /api/ (twin/urls.py includes this module after the other API apps).
    re_path(r"^", api_not_found),
]
