from rest_framework.routers import SimpleRouter
from rest_framework.urlpatterns import format_suffix_patterns

from . import views

# SimpleRouter: the API root view belongs to the campus router included at the same prefix. Format suffixes
# as that router has them, so that every /api/<resource>/<something>/ path is answered by DRF (JSON errors).
router = SimpleRouter()
router.register("scenarios", views.ScenarioViewSet)
router.register("runs", views.RunViewSet)
router.register("schedules", views.ScheduleViewSet)

urlpatterns = format_suffix_patterns(router.urls)
