from campus.api import bom_views, calculators, job_views, site_climate_views, spec_views, views, weather_views
from twin.api.routers import TwinRouter
from twin.api.serializers import register_basename

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
    ("energy-storage", views.EnergyStorageViewSet, "energystorage"),
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
router.register("jobs", job_views.JobViewSet, basename="job")


urlpatterns = [
    # Paths of other modules (spec import/export) go here, before the router's.
    *calculators.urlpatterns,
    *spec_views.urlpatterns,
    *weather_views.urlpatterns,
    *site_climate_views.urlpatterns,
    *bom_views.urlpatterns,
    *router.urls,
]
