from twin.api.routers import TwinRouter
from twin.api.serializers import register_basename

from . import dr_views, views

# The API root view belongs to no app; format suffixes come with the router, so that every
# /api/<resource>/<something>/ path is answered by DRF (JSON errors).
router = TwinRouter()
router.include_root_view = False
REGISTRY = [
    ("scenarios", views.ScenarioViewSet, "scenario"),
    ("runs", views.RunViewSet, "run"),
    ("schedules", views.ScheduleViewSet, "schedule"),
]
for prefix, viewset, basename in REGISTRY:
    router.register(prefix, viewset, basename=basename)
    register_basename(viewset.queryset.model, basename)

urlpatterns = router.urls + dr_views.urlpatterns
