from django.contrib import admin

from . import models


class ReplicaInline(admin.TabularInline):
    model = models.ReplicaResult
    fields = ("index", "seed", "events", "duration_s", "metrics")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(models.Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("name", "campus", "kind", "owner", "updated")
    list_filter = ("kind", "campus")
    search_fields = ("name", "description")


@admin.register(models.Run)
class RunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "scenario_name",
        "kind",
        "campus",
        "status",
        "progress",
        "replicas_done",
        "replicas",
        "flagged",
        "created",
    )
    list_filter = ("status", "flagged", "kind")
    search_fields = ("scenario_name", "scenario__name", "error")
    readonly_fields = (
        "created",
        "started",
        "finished",
        "updated",
        "celery_task_id",
        "attempts",
        "replicas_done",
        "kind",
        "campus",
        "scenario_name",
        "campus_state",
    )
    exclude = ("snapshot",)
    inlines = [ReplicaInline]


@admin.register(models.RunChunk)
class RunChunkAdmin(admin.ModelAdmin):
    list_display = ("run", "number", "state", "attempts", "heartbeat", "worker")
    list_filter = ("state",)


@admin.register(models.ReplicaResult)
class ReplicaResultAdmin(admin.ModelAdmin):
    list_display = ("run", "index", "seed", "events", "duration_s")
    exclude = ("series",)


@admin.register(models.RunSeries)
class RunSeriesAdmin(admin.ModelAdmin):
    list_display = ("run", "metric", "points")
    fields = ("run", "metric", "points")
    readonly_fields = fields


@admin.register(models.Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    list_display = ("name", "scenario", "crontab", "interval_seconds", "replicas", "enabled")
    list_filter = ("enabled",)
    search_fields = ("name",)
