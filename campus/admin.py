from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from . import models


@admin.register(models.GPUModel, models.NodeModel, models.SwitchModel, models.LinkMedium)
class CatalogAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "estimate")
    search_fields = ("slug", "name", "source")


@admin.register(models.FailureRate)
class FailureRateAdmin(admin.ModelAdmin):
    list_display = ("dataset", "component", "per", "mtbf_hours", "interrupts_job", "repair_hours", "estimate")
    list_filter = ("dataset", "per", "interrupts_job")


@admin.register(models.Campus)
class CampusAdmin(SimpleHistoryAdmin):
    list_display = ("name", "location", "grid_capacity_mw", "design_pue", "price_usd_per_kwh")
    search_fields = ("name", "location")


@admin.register(models.UtilityFeed)
class UtilityFeedAdmin(SimpleHistoryAdmin):
    list_display = ("name", "campus", "capacity_mw", "status")
    list_filter = ("campus",)


@admin.register(models.Building)
class BuildingAdmin(SimpleHistoryAdmin):
    list_display = ("name", "campus", "design_it_mw", "status")
    list_filter = ("campus",)


@admin.register(models.DataHall)
class DataHallAdmin(SimpleHistoryAdmin):
    list_display = ("name", "building", "width_m", "length_m")
    list_filter = ("building__campus",)


@admin.register(models.Row)
class RowAdmin(SimpleHistoryAdmin):
    list_display = ("name", "hall")


@admin.register(models.Rack)
class RackAdmin(SimpleHistoryAdmin):
    list_display = ("name", "hall", "cooling_type", "design_kw", "pod", "cooling_unit", "status")
    list_filter = ("campus", "cooling_type", "status")
    search_fields = ("name",)
    raw_id_fields = ("hall", "row", "cooling_unit", "pod")


@admin.register(models.PowerDevice)
class PowerDeviceAdmin(SimpleHistoryAdmin):
    list_display = (
        "name",
        "kind",
        "campus",
        "building",
        "rated_kw",
        "efficiency",
        "max_utilization",
        "status",
    )
    list_filter = ("campus", "kind", "status")
    search_fields = ("name",)


@admin.register(models.PowerFeed)
class PowerFeedAdmin(SimpleHistoryAdmin):
    list_display = ("__str__", "side", "rating_kw")
    list_filter = ("campus", "side")
    raw_id_fields = ("upstream", "downstream_device", "rack")


@admin.register(models.CoolingPlant)
class CoolingPlantAdmin(SimpleHistoryAdmin):
    list_display = ("name", "kind", "campus", "capacity_kw", "cop", "power_device", "power_device_b")
    list_filter = ("campus", "kind")
    raw_id_fields = ("power_device", "power_device_b")


@admin.register(models.CoolingUnit)
class CoolingUnitAdmin(SimpleHistoryAdmin):
    list_display = ("name", "kind", "campus", "hall", "capacity_kw", "supply_temp_c", "group")
    list_filter = ("campus", "kind")
    search_fields = ("name",)
    raw_id_fields = ("power_device", "power_device_b")


@admin.register(models.Node)
class NodeAdmin(SimpleHistoryAdmin):
    list_display = ("name", "rack", "node_model", "status")
    list_filter = ("node_model", "status")
    search_fields = ("name", "serial")
    raw_id_fields = ("rack",)


@admin.register(models.Pod)
class PodAdmin(SimpleHistoryAdmin):
    list_display = ("name", "campus", "fabric", "topology", "oversubscription")
    list_filter = ("campus", "fabric", "topology")


@admin.register(models.Switch)
class SwitchAdmin(SimpleHistoryAdmin):
    list_display = ("name", "tier", "model", "count", "pod")
    list_filter = ("campus", "tier", "network")
    search_fields = ("name",)
    raw_id_fields = ("rack", "hall")


@admin.register(models.Link)
class LinkAdmin(SimpleHistoryAdmin):
    list_display = ("__str__", "medium", "count", "length_m", "speed_gbps")
    list_filter = ("campus", "medium", "network")
    raw_id_fields = ("a_rack", "a_switch", "b_switch")
