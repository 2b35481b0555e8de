from rest_framework.routers import SimpleRouter

from . import views

# SimpleRouter: the API root view belongs to the campus router included at the same prefix.
router = SimpleRouter()
router.register("scenarios", views.ScenarioViewSet)
router.register("runs", views.RunViewSet)
router.register("schedules", views.ScheduleViewSet)

urlpatterns = router.urls
