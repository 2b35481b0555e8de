from django.apps import AppConfig


class SimulationsConfig(AppConfig):
    name = "simulations"
    verbose_name = "What-if simulations"
    default_auto_field = "django.db.models.BigAutoField"
