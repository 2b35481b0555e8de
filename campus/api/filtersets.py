"""django-filter filter sets: ``?field=`` exact, ``?field__in=1,2`` lists, ``__gte``/``__lte`` ranges on sizes."""

import django_filters as filters
from django.contrib.auth import get_user_model

from campus import models
from campus.in_service import in_service_with_parents_q
from twin.api.filters import TwinFilterSet

ID = ["exact", "in"]
CHOICE = ["exact", "in"]
RANGE = ["exact", "gte", "lte"]
TEXT = ["exact", "icontains"]


class NumberInFilter(filters.BaseInFilter, filters.NumberFilter):
    pass


def related(path: str, label: str) -> tuple[filters.NumberFilter, NumberInFilter]:
    """``?<name>=ID`` and ``?<name>__in=ID,ID`` through a relation path (e.g. hall → building__campus)."""
    return (
        filters.NumberFilter(field_name=path, label=f"{label} id"),
        NumberInFilter(field_name=path, lookup_expr="in", label=f"{label} ids (comma-separated)"),
    )


class InventoryFilterSet(TwinFilterSet):
    """An inventory table's filters, with its service dates: ``?in_service_on=YYYY-MM-DD`` keeps what is in
    service that day, itself and what it is in or hangs from (``campus.in_service.PARENT_PATHS``: a rack of a
    retired building is out); ``?in_service_date__gte=`` etc. range over either date."""

    in_service_on = filters.DateFilter(
        method="filter_in_service_on", label="In service on this day (YYYY-MM-DD)"
    )
    in_service_date = filters.DateFilter(field_name="in_service_date")
    in_service_date__gte = filters.DateFilter(field_name="in_service_date", lookup_expr="gte")
    in_service_date__lte = filters.DateFilter(field_name="in_service_date", lookup_expr="lte")
    retire_date = filters.DateFilter(field_name="retire_date")
    retire_date__gte = filters.DateFilter(field_name="retire_date", lookup_expr="gte")
    retire_date__lte = filters.DateFilter(field_name="retire_date", lookup_expr="lte")

    def filter_in_service_on(self, queryset, name, value):
        # In service with what it is in or hangs from (a rack of a retired building is out), as the
        # analytics' snapshot of that day counts it.
        return queryset.filter(in_service_with_parents_q(queryset.model.__name__, value))


class CampusFilterSet(TwinFilterSet):
    class Meta:
        model = models.Campus
        fields = {
            "id": ID,
            "name": TEXT,
            "grid_capacity_mw": RANGE,
            "design_pue": RANGE,
            "climate": CHOICE,
            "parent": ID,
        }


class UtilityFeedFilterSet(InventoryFilterSet):
    class Meta:
        model = models.UtilityFeed
        fields = {"id": ID, "campus": ID, "name": TEXT, "status": CHOICE, "capacity_mw": RANGE}


class BuildingFilterSet(InventoryFilterSet):
    class Meta:
        model = models.Building
        fields = {"id": ID, "campus": ID, "name": TEXT, "status": CHOICE, "design_it_mw": RANGE}


class DataHallFilterSet(InventoryFilterSet):
    campus, campus__in = related("building__campus", "Campus")

    class Meta:
        model = models.DataHall
        fields = {"id": ID, "building": ID, "name": TEXT, "design_it_mw": RANGE}


class RowFilterSet(InventoryFilterSet):
    campus, campus__in = related("hall__building__campus", "Campus")
    building, building__in = related("hall__building", "Building")

    class Meta:
        model = models.Row
        fields = {"id": ID, "hall": ID, "name": TEXT}


class RackFilterSet(InventoryFilterSet):
    building, building__in = related("hall__building", "Building")

    class Meta:
        model = models.Rack
        fields = {
            "id": ID,
            "campus": ID,
            "hall": ID,
            "row": ID,
            "pod": ID,
            "cooling_unit": ID,
            "name": TEXT,
            "status": CHOICE,
            "cooling_type": CHOICE,
            "design_kw": RANGE,
        }


class PowerDeviceFilterSet(InventoryFilterSet):
    class Meta:
        model = models.PowerDevice
        fields = {
            "id": ID,
            "campus": ID,
            "building": ID,
            "hall": ID,
            "utility_feed": ID,
            "name": TEXT,
            "kind": CHOICE,
            "status": CHOICE,
            "rated_kw": RANGE,
            "prime_rating_kw": RANGE,
            "fuel_usd_per_mwh": RANGE,
        }


class EnergyStorageFilterSet(InventoryFilterSet):
    class Meta:
        model = models.EnergyStorage
        fields = {
            "id": ID,
            "campus": ID,
            "building": ID,
            "power_device": ID,
            "name": TEXT,
            "status": CHOICE,
            "power_mw": RANGE,
            "energy_mwh": RANGE,
            "round_trip_efficiency": RANGE,
            "response_ms": RANGE,
        }


class PowerFeedFilterSet(InventoryFilterSet):
    class Meta:
        model = models.PowerFeed
        fields = {
            "id": ID,
            "campus": ID,
            "upstream": ID,
            "downstream_device": ID,
            "rack": ID,
            "side": CHOICE,
            "rating_kw": RANGE,
        }


class CoolingPlantFilterSet(InventoryFilterSet):
    class Meta:
        model = models.CoolingPlant
        fields = {
            "id": ID,
            "campus": ID,
            "building": ID,
            "power_device": ID,
            "power_device_b": ID,
            "name": TEXT,
            "kind": CHOICE,
            "status": CHOICE,
            "capacity_kw": RANGE,
        }


class CoolingUnitFilterSet(InventoryFilterSet):
    building, building__in = related("hall__building", "Building")

    class Meta:
        model = models.CoolingUnit
        fields = {
            "id": ID,
            "campus": ID,
            "hall": ID,
            "plant": ID,
            "power_device": ID,
            "power_device_b": ID,
            "name": TEXT,
            "kind": CHOICE,
            "status": CHOICE,
            "group": ["exact"],
            "capacity_kw": RANGE,
        }


class NodeFilterSet(InventoryFilterSet):
    campus, campus__in = related("rack__campus", "Campus")
    hall, hall__in = related("rack__hall", "Hall")
    building, building__in = related("rack__hall__building", "Building")
    pod, pod__in = related("rack__pod", "Pod")
    gpu_model, gpu_model__in = related("node_model__gpu_model", "GPU model")

    class Meta:
        model = models.Node
        fields = {"id": ID, "rack": ID, "node_model": ID, "name": TEXT, "serial": ["exact"], "status": CHOICE}


class PodFilterSet(InventoryFilterSet):
    class Meta:
        model = models.Pod
        fields = {
            "id": ID,
            "campus": ID,
            "building": ID,
            "switch_model": ID,
            "name": TEXT,
            "fabric": CHOICE,
            "topology": CHOICE,
        }


class SwitchFilterSet(InventoryFilterSet):
    class Meta:
        model = models.Switch
        fields = {
            "id": ID,
            "campus": ID,
            "pod": ID,
            "hall": ID,
            "rack": ID,
            "model": ID,
            "name": TEXT,
            "tier": CHOICE,
            "network": CHOICE,
        }


class LinkFilterSet(InventoryFilterSet):
    class Meta:
        model = models.Link
        fields = {
            "id": ID,
            "campus": ID,
            "pod": ID,
            "network": CHOICE,
            "a_rack": ID,
            "a_switch": ID,
            "b_switch": ID,
            "medium": ID,
            "length_m": RANGE,
        }


class GPUModelFilterSet(TwinFilterSet):
    class Meta:
        model = models.GPUModel
        fields = {
            "id": ID,
            "slug": ID,
            "vendor": TEXT,
            "fp8_support": ["exact"],
            "estimate": ["exact"],
            "tdp_w": RANGE,
        }


class NodeModelFilterSet(TwinFilterSet):
    class Meta:
        model = models.NodeModel
        fields = {"id": ID, "slug": ID, "gpu_model": ID, "nic_kind": CHOICE, "estimate": ["exact"]}


class SwitchModelFilterSet(TwinFilterSet):
    class Meta:
        model = models.SwitchModel
        fields = {"id": ID, "slug": ID, "vendor": TEXT, "fabric": CHOICE, "estimate": ["exact"]}


class LinkMediumFilterSet(TwinFilterSet):
    class Meta:
        model = models.LinkMedium
        fields = {"id": ID, "slug": ID, "kind": CHOICE, "is_optical": ["exact"], "estimate": ["exact"]}


class FailureRateFilterSet(TwinFilterSet):
    class Meta:
        model = models.FailureRate
        fields = {
            "id": ID,
            "dataset": ID,
            "component": ID,
            "per": CHOICE,
            "interrupts_job": ["exact"],
            "estimate": ["exact"],
        }


class UserFilterSet(TwinFilterSet):
    role = filters.ChoiceFilter(
        field_name="groups__name", choices=[(r, r) for r in ("viewer", "planner", "admin")], label="Role"
    )

    class Meta:
        model = get_user_model()
        fields = {"id": ID, "username": TEXT, "is_active": ["exact"]}
