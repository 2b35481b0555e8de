"""``GET /api/demand-response-events/``: the OpenADR events the campus's VEN received and what it answered,
with the predicted impact (``simulations.openadr``; docs/grid.md, "OpenADR"). Read-only: the VEN writes
them."""

from __future__ import annotations

import django_filters
from rest_framework import serializers, viewsets

from simulations.models import DemandResponseEvent
from twin.api.filters import TwinFilterSet, UtcIsoDateTimeFilter
from twin.api.mixins import QueryParametersMixin
from twin.api.routers import TwinRouter


class DemandResponseEventSerializer(serializers.ModelSerializer):
    campus = serializers.IntegerField(source="campus_id", read_only=True)

    class Meta:
        model = DemandResponseEvent
        fields = (
            "id",
            "campus",
            "vtn_url",
            "ven_id",
            "event_id",
            "modification_number",
            "market_context",
            "signal_name",
            "signal_type",
            "starts_at",
            "duration_s",
            "notice_minutes",
            "intervals",
            "params",
            "opt",
            "reason",
            "impact",
            "received",
        )
        read_only_fields = fields


class DemandResponseEventFilterSet(TwinFilterSet):
    campus = django_filters.NumberFilter(field_name="campus_id", label="Campus id")
    opt = django_filters.ChoiceFilter(choices=DemandResponseEvent.OPT_CHOICES)
    received_after = UtcIsoDateTimeFilter(field_name="received", lookup_expr="gte")

    class Meta:
        model = DemandResponseEvent
        fields = ("campus", "opt", "event_id")


class DemandResponseEventViewSet(QueryParametersMixin, viewsets.ReadOnlyModelViewSet):
    """The events the VEN received, newest first, and its answers."""

    queryset = DemandResponseEvent.objects.all()
    serializer_class = DemandResponseEventSerializer
    filterset_class = DemandResponseEventFilterSet
    ordering_fields = ("id", "received", "starts_at")


router = TwinRouter()
router.include_root_view = False
router.register("demand-response-events", DemandResponseEventViewSet, basename="demandresponseevent")
urlpatterns = router.urls
