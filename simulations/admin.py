from django import forms
from django.contrib import admin

from simulations.api.serializers import ConfidenceTargetSerializer
from simulations.runs.confidence import schedule_target_errors

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


class ScheduleAdminForm(forms.ModelForm):
    """The admin's schedule form checks the confidence target as the API does (docs/runs.md): its fields by
    the API's serializer, then against the scenario and the replica cap; every problem is an error on
    ``confidence_target`` naming its field, and nothing is saved."""

    def clean(self):
        data = super().clean()
        target = data.get("confidence_target")
        if not target:
            return data
        checked = ConfidenceTargetSerializer(data=target)
        if not checked.is_valid():
            for name, problems in checked.errors.items():
                self.add_error("confidence_target", f"{name}: {' '.join(str(p) for p in problems)}")
            return data
        data["confidence_target"] = target = dict(checked.validated_data)
        scenario = data.get("scenario")
        replicas = data.get("replicas") or models.Schedule._meta.get_field("replicas").default
        if scenario is not None:
            for name, problems in schedule_target_errors(
                scenario.kind, scenario.params, target, replicas
            ).items():
                words = problems if isinstance(problems, str) else " ".join(str(p) for p in problems)
                self.add_error("confidence_target", f"{name}: {words}")
        return data


@admin.register(models.Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    form = ScheduleAdminForm
    list_display = ("name", "scenario", "crontab", "interval_seconds", "replicas", "enabled")
    list_filter = ("enabled",)
    search_fields = ("name",)
