from django.apps import AppConfig


class CampusConfig(AppConfig):
    name = "campus"
    verbose_name = "Campus inventory"
    default_auto_field = "django.db.models.BigAutoField"
