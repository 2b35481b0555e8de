"""The admin site. Inventory forms and deletions keep the same rules as the API: each object's own
(``clean()``) and those of the final state (``campus.integrity.trial_problems``: a tray moved out of or
deleted from a whole NVL72 rack, feeds closing a loop), shown on the form naming the field."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.utils import unquote
from django.http import HttpResponseRedirect
from simple_history.admin import SimpleHistoryAdmin

from campus.admin_warnings import RedundancyWarningsAdmin
from campus.integrity import trial_problems
from twin.api.exceptions import dependents_problem

from . import models


def _fresh(obj):
    """The object as the database holds it (a form has already changed ``obj`` in memory)."""
    return type(obj)._default_manager.filter(pk=obj.pk).first() if obj.pk else None


class FinalStateForm(forms.ModelForm):
    """After the object's own validation, a trial save (rolled back) judges the state the save would leave."""

    def _post_clean(self):
        super()._post_clean()
        if self.errors:
            return
        obj = self.instance
        adding = obj._state.adding
        before = [b for b in [_fresh(obj)] if b is not None]
        try:
            problems = trial_problems(obj.save, before, [obj])
        finally:
            if adding:
                obj.pk = None
                obj._state.adding = True
        for problem in problems:
            self.add_error(problem.field if problem.field in self.fields else None, problem.message)


def _deletion_problems(objs) -> list[str]:
    objs = list(objs)
    # a supplier others depend on (a PDU feeding racks) is refused as the API refuses it (docs/api.md, "Deleting")
    depended = [message for obj in objs if (message := dependents_problem(obj))]
    if depended:
        return depended

    def delete():
        for obj in objs:
            type(obj)._default_manager.filter(pk=obj.pk).delete()

    return [f"{p.field}: {p.message}" for p in trial_problems(delete, objs, [])]


@admin.action(permissions=["delete"], description=delete_selected.short_description)
def checked_delete_selected(modeladmin, request, queryset):
    if request.POST.get("post"):
        problems = _deletion_problems(queryset)
        if problems:
            for message in problems:
                modeladmin.message_user(request, f"Not deleted: {message}", messages.ERROR)
            return None
    return delete_selected(modeladmin, request, queryset)


class InventoryAdmin(RedundancyWarningsAdmin, SimpleHistoryAdmin):
    """An inventory model's admin: saves and deletions keep the API's rules on the final state."""

    form = FinalStateForm

    def get_list_display(self, request):
        """Every inventory list shows the service dates (models.InventoryModel) after its own columns."""
        columns = tuple(super().get_list_display(request))
        if hasattr(self.model, "retire_date"):
            columns += tuple(c for c in ("in_service_date", "retire_date") if c not in columns)
        return columns

    def get_list_filter(self, request):
        filters = tuple(super().get_list_filter(request))
        if hasattr(self.model, "retire_date"):
            filters += tuple(c for c in ("in_service_date", "retire_date") if c not in filters)
        return filters

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            actions["delete_selected"] = (
                checked_delete_selected,
                "delete_selected",
                delete_selected.short_description,
            )
        return actions

    def delete_view(self, request, object_id, extra_context=None):
        if request.method == "POST":
            obj = self.get_object(request, unquote(object_id))
            problems = _deletion_problems([obj]) if obj is not None else []
            if problems:
                for message in problems:
                    self.message_user(request, f"Not deleted: {message}", messages.ERROR)
                return HttpResponseRedirect(request.path.rsplit("delete/", 1)[0] + "change/")
        return super().delete_view(request, object_id, extra_context)


@admin.register(models.GPUModel, models.NodeModel, models.SwitchModel, models.LinkMedium)
class CatalogAdmin(RedundancyWarningsAdmin, admin.ModelAdmin):
    """A catalog row: a node or GPU model made bigger is judged against the racks that hold it."""

    form = FinalStateForm
    list_display = ("slug", "name", "estimate")
    search_fields = ("slug", "name", "source")


@admin.register(models.FailureRate)
class FailureRateAdmin(admin.ModelAdmin):
    list_display = ("dataset", "component", "per", "mtbf_hours", "interrupts_job", "repair_hours", "estimate")
    list_filter = ("dataset", "per", "interrupts_job")


class CampusForm(FinalStateForm):
    def clean_price_overrides(self):
        """A blank field is no override ({}), as the API's default; a form field reads blank as None."""
        return self.cleaned_data.get("price_overrides") or {}


@admin.register(models.Campus)
class CampusAdmin(InventoryAdmin):
    form = CampusForm
    list_display = ("name", "location", "climate", "grid_capacity_mw", "design_pue", "price_usd_per_kwh")
    list_filter = ("climate",)
    search_fields = ("name", "location")


@admin.register(models.UtilityFeed)
class UtilityFeedAdmin(InventoryAdmin):
    list_display = ("name", "campus", "capacity_mw", "status")
    list_filter = ("campus",)


@admin.register(models.Building)
class BuildingAdmin(InventoryAdmin):
    list_display = ("name", "campus", "design_it_mw", "status")
    list_filter = ("campus",)


@admin.register(models.DataHall)
class DataHallAdmin(InventoryAdmin):
    list_display = ("name", "building", "width_m", "length_m")
    list_filter = ("building__campus",)


@admin.register(models.Row)
class RowAdmin(InventoryAdmin):
    list_display = ("name", "hall")


@admin.register(models.Rack)
class RackAdmin(InventoryAdmin):
    list_display = ("name", "hall", "cooling_type", "design_kw", "pod", "cooling_unit", "status")
    list_filter = ("campus", "cooling_type", "status")
    search_fields = ("name",)
    raw_id_fields = ("hall", "row", "cooling_unit", "pod")


@admin.register(models.PowerDevice)
class PowerDeviceAdmin(InventoryAdmin):
    list_display = (
        "name",
        "kind",
        "campus",
        "building",
        "rated_kw",
        "efficiency",
        "max_utilization",
        "prime_rating_kw",
        "status",
    )
    list_filter = ("campus", "kind", "status")
    search_fields = ("name",)


@admin.register(models.EnergyStorage)
class EnergyStorageAdmin(InventoryAdmin):
    list_display = (
        "name",
        "campus",
        "building",
        "power_device",
        "power_mw",
        "energy_mwh",
        "round_trip_efficiency",
        "response_ms",
        "status",
    )
    list_filter = ("campus", "status")
    search_fields = ("name",)
    raw_id_fields = ("power_device",)


@admin.register(models.StorageSystem)
class StorageSystemAdmin(InventoryAdmin):
    list_display = ("name", "kind", "campus", "building", "capacity_pb", "read_gb_s", "write_gb_s", "status")
    list_filter = ("campus", "kind", "status")
    search_fields = ("name",)


@admin.register(models.PowerFeed)
class PowerFeedAdmin(InventoryAdmin):
    list_display = ("__str__", "side", "rating_kw")
    list_filter = ("campus", "side")
    raw_id_fields = ("upstream", "downstream_device", "rack")


@admin.register(models.CoolingPlant)
class CoolingPlantAdmin(InventoryAdmin):
    list_display = ("name", "kind", "campus", "capacity_kw", "cop", "power_device", "power_device_b")
    list_filter = ("campus", "kind")
    raw_id_fields = ("power_device", "power_device_b")


@admin.register(models.CoolingUnit)
class CoolingUnitAdmin(InventoryAdmin):
    list_display = ("name", "kind", "campus", "hall", "capacity_kw", "supply_temp_c", "group")
    list_filter = ("campus", "kind")
    search_fields = ("name",)
    raw_id_fields = ("power_device", "power_device_b")


@admin.register(models.Node)
class NodeAdmin(InventoryAdmin):
    list_display = ("name", "rack", "node_model", "status")
    list_filter = ("node_model", "status")
    search_fields = ("name", "serial")
    raw_id_fields = ("rack",)


@admin.register(models.Pod)
class PodAdmin(InventoryAdmin):
    list_display = ("name", "campus", "fabric", "topology", "oversubscription")
    list_filter = ("campus", "fabric", "topology")


@admin.register(models.Switch)
class SwitchAdmin(InventoryAdmin):
    list_display = ("name", "tier", "model", "count", "pod")
    list_filter = ("campus", "tier", "network")
    search_fields = ("name",)
    raw_id_fields = ("rack", "hall")


@admin.register(models.Link)
class LinkAdmin(InventoryAdmin):
    list_display = ("__str__", "medium", "count", "length_m", "speed_gbps")
    list_filter = ("campus", "medium", "network")
    raw_id_fields = ("a_rack", "a_switch", "b_switch")
