"""The viewset bases every app's model endpoints build on (NetBox ``netbox/api/viewsets``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets

from twin.api.mixins import (
    BRIEF_PARAMETER,
    AtomicWriteMixin,
    BriefModeMixin,
    BulkMixin,
    ConditionalGetMixin,
    HistoryMixin,
    QueryParametersMixin,
)


def inventory_schema(serializer_class, noun: str):
    """The OpenAPI documentation shared by every model endpoint."""
    return extend_schema_view(
        list=extend_schema(summary=f"List {noun}", parameters=[BRIEF_PARAMETER]),
        retrieve=extend_schema(summary=f"Get one {noun.rstrip('s')}", parameters=[BRIEF_PARAMETER]),
        create=extend_schema(
            summary=f"Create {noun}",
            description="Send one object, or a JSON list of objects to create them all in one atomic request "
            "(errors keyed by list index). Related objects are written by id.",
        ),
        update=extend_schema(summary=f"Replace one {noun.rstrip('s')}"),
        partial_update=extend_schema(summary=f"Update fields of one {noun.rstrip('s')}"),
        destroy=extend_schema(summary=f"Delete one {noun.rstrip('s')}"),
    )


class TwinModelViewSet(
    QueryParametersMixin,
    BriefModeMixin,
    BulkMixin,
    ConditionalGetMixin,
    AtomicWriteMixin,
    viewsets.ModelViewSet,
):
    """List (filter, search, order, paginate), get, create (one object or a list), update and delete;
    related objects are written by id and read as brief objects."""

    search_fields = ("name",)
    ordering_fields = "__all__"
    full_prefetch = None

    def attach_page(self, page) -> None:
        """Add to a page's objects what their representation reads beyond their rows (one query per page,
        whatever its size)."""

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        if page is not None:
            self.attach_page(page)
        return page


class InventoryViewSet(HistoryMixin, TwinModelViewSet):
    """List (filter, search, order, paginate), get, create (one object or a list), update and delete;
    related objects are written by id and read as brief objects. Every change is kept in the history."""
