from campus.api import (
    battery_sizing_views,
    bom_views,
    calculators,
    calibration_views,
    campus_views,
    device_views,
    inventory_views,
    job_views,
    measured_series_views,
    measured_views,
    replay_views,
    site_climate_views,
    spec_views,
    step_time_views,
    storage_views,
    user_views,
    weather_views,
)
from twin.api.routers import TwinRouter
from twin.api.serializers import register_basename

router = TwinRouter()
router.include_root_view = False

REGISTRY = [
    ("campuses", campus_views.CampusViewSet, "campus"),
    ("utility-feeds", inventory_views.UtilityFeedViewSet, "utilityfeed"),
    ("buildings", inventory_views.BuildingViewSet, "building"),
    ("halls", inventory_views.DataHallViewSet, "datahall"),
    ("rows", inventory_views.RowViewSet, "row"),
    ("racks", inventory_views.RackViewSet, "rack"),
    ("power-devices", inventory_views.PowerDeviceViewSet, "powerdevice"),
    ("power-feeds", inventory_views.PowerFeedViewSet, "powerfeed"),
    ("energy-storage", inventory_views.EnergyStorageViewSet, "energystorage"),
    ("storage-systems", storage_views.StorageSystemViewSet, "storagesystem"),
    ("cooling-plants", inventory_views.CoolingPlantViewSet, "coolingplant"),
    ("cooling-units", inventory_views.CoolingUnitViewSet, "coolingunit"),
    ("nodes", inventory_views.NodeViewSet, "node"),
    ("pods", inventory_views.PodViewSet, "pod"),
    ("switches", inventory_views.SwitchViewSet, "switch"),
    ("links", inventory_views.LinkViewSet, "link"),
    ("gpu-models", inventory_views.GPUModelViewSet, "gpumodel"),
    ("node-models", inventory_views.NodeModelViewSet, "nodemodel"),
    ("switch-models", inventory_views.SwitchModelViewSet, "switchmodel"),
    ("link-media", inventory_views.LinkMediumViewSet, "linkmedium"),
    ("failure-rates", inventory_views.FailureRateViewSet, "failurerate"),
    ("users", user_views.UserViewSet, "user"),
]
for prefix, viewset, basename in REGISTRY:
    router.register(prefix, viewset, basename=basename)
    register_basename(viewset.queryset.model, basename)
router.register("changes", user_views.ChangeViewSet, basename="change")
router.register("jobs", job_views.JobViewSet, basename="job")


urlpatterns = [
    # Paths of other modules (spec import/export) go here, before the router's.
    *calculators.urlpatterns,
    *device_views.urlpatterns,
    *step_time_views.urlpatterns,
    *battery_sizing_views.urlpatterns,
    *spec_views.urlpatterns,
    *weather_views.urlpatterns,
    *site_climate_views.urlpatterns,
    *measured_views.urlpatterns,
    *replay_views.urlpatterns,
    *calibration_views.urlpatterns,
    *measured_series_views.urlpatterns,
    *bom_views.urlpatterns,
    *router.urls,
]
