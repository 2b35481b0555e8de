"""The viewset bases every app's model endpoints build on (NetBox ``netbox/api/viewsets``)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets

from twin.api import rows
from twin.api.mixins import (
    BRIEF_PARAMETER,
    AtomicWriteMixin,
    BriefModeMixin,
    BulkMixin,
    ConditionalGetMixin,
    HistoryMixin,
    QueryParametersMixin,
)
from twin.api.pagination import TwinPagination


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
    # Method fields that read nothing but a row's columns and what attach_page adds (twin.api.rows).
    row_methods: tuple[str, ...] = ()
    # Whether the filtered list's statement depends on nothing but the view and the request's parameters:
    # not on the user, the day, or rows a filter reads to build it (an object a filter names enters the
    # statement by its key, which its parameter gives). Its count and keys statements are then kept per set
    # of parameters (TwinPagination); the filters still check every request.
    list_by_parameters = False

    def attach_page(self, page) -> None:
        """Add what the page's representation reads beyond its columns (model objects or rows)."""

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        if page is not None:
            self.attach_page(page)
        return page

    def list(self, request, *args, **kwargs):
        """A page whose serializer reads only columns, related objects' names and URLs is read as plain rows
        (``twin.api.rows``); any other list as REST framework does."""
        response = self._row_page(request)
        return response if response is not None else super().list(request, *args, **kwargs)

    def _row_page(self, request):
        paginator = self.paginator
        if not rows.ENABLED or not isinstance(paginator, TwinPagination):
            return None
        serializer = self.get_serializer()
        plan = rows.plan_for(self, serializer)
        if plan is None:
            return None
        shape = self._list_shape(request)
        base = self.queryset
        statements = (
            paginator.kept_statements(base.model, base.db, shape) if isinstance(base, QuerySet) else None
        )
        if statements is not None:
            # The list's statements are kept for these parameters (so an earlier request of them took this
            # path through get_queryset): the filters only check the request (an object named that no
            # longer exists is a 400 as before); no queryset is built or filtered.
            queryset = base
            self.check_filters(queryset)
        else:
            queryset = self.get_queryset()
            if queryset._prefetch_related_lookups:
                return None
            # The list's queryset gives the page's keys and count only (the rows are read apart, by the
            # plan): without its joins and deferred columns, each of the clones filtering makes is cheaper.
            queryset = self.filter_queryset(queryset.select_related(None).defer(None))
            if queryset.query.distinct or queryset._prefetch_related_lookups:
                return None
        keys = paginator.page_keys(queryset, request, shape, statements)
        if keys is None:
            return None
        found = plan.read(keys, queryset.db) if keys else []
        if not plan.displayable(found):
            return None
        objects = plan.objects(found)
        self.attach_page(objects)
        return paginator.get_paginated_response(plan.render(found, objects, serializer, request))

    def check_filters(self, queryset) -> None:
        """What filtering the list checks of the request, without filtering: each filter backend's ``check``
        where it has one. The others check nothing that can change between two requests of the same
        parameters (an ordering or a search term is judged by its text), and only lists whose statements
        were kept for these parameters, so checked once already, are checked this way."""
        for backend in self.filter_backends:
            check = getattr(backend(), "check", None)
            if check is not None:
                check(self.request, queryset, self)

    def _list_shape(self, request) -> tuple | None:
        """What this list's statement depends on, where that is the view and the request's parameters."""
        if not self.list_by_parameters:
            return None
        page = (self.paginator.limit_query_param, self.paginator.offset_query_param)
        parameters = tuple(
            sorted((name, tuple(values)) for name, values in request.query_params.lists() if name not in page)
        )
        return (type(self), self.action, tuple(sorted(self.kwargs.items())), parameters)


class InventoryViewSet(HistoryMixin, TwinModelViewSet):
    """List (filter, search, order, paginate), get, create (one object or a list), update and delete;
    related objects are written by id and read as brief objects. Every change is kept in the history."""

    list_by_parameters = True
