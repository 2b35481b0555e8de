"""Users and the change log across the inventory."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.exceptions import ValidationError

from campus import models
from campus.api import filtersets
from campus.api import serializers_ as s
from twin.api import history
from twin.api.mixins import AtomicWriteMixin, BriefModeMixin, BulkMixin, QueryParametersMixin
from twin.api.pagination import ChangePagination
from twin.api.serializers import ChangeSerializer
from twin.api.viewsets import inventory_schema


@inventory_schema(s.UserSerializer, "users")
class UserViewSet(QueryParametersMixin, BriefModeMixin, BulkMixin, AtomicWriteMixin, viewsets.ModelViewSet):
    """Admins only: accounts and their role (viewer, planner, admin)."""

    queryset = get_user_model().objects.prefetch_related("groups").order_by("username")
    serializer_class = s.UserSerializer
    filterset_class = filtersets.UserFilterSet
    search_fields = ("username", "email", "first_name", "last_name")
    ordering_fields = ("id", "username", "email", "date_joined", "last_login")
    read_role = "admin"
    write_role = "admin"


@extend_schema_view(
    list=extend_schema(
        summary="Change log across the inventory",
        description="Every create (+), change (~) and delete (-) of inventory objects, newest first, with the "
        "user and each field's before and after. Filter with `model` (e.g. `rack`) and `object_id`.",
        parameters=[
            OpenApiParameter("model", OpenApiTypes.STR, description="Model name, e.g. rack, powerdevice."),
            OpenApiParameter(
                "object_id", OpenApiTypes.INT, description="Only this object's changes (needs model)."
            ),
        ],
    )
)
class ChangeViewSet(QueryParametersMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = ChangeSerializer
    pagination_class = ChangePagination
    filter_backends: list = []
    query_parameters = ("model", "object_id")

    def get_queryset(self):  # only for the schema generator; list() reads the history tables itself
        return models.Campus.history.none()

    def list(self, request, *args, **kwargs):
        tracked = history.tracked_models("campus")
        name = request.query_params.get("model", "").strip().lower().replace("-", "").replace("_", "")
        object_id = request.query_params.get("object_id")
        if name:
            aliases = {k: v for k, v in tracked.items()}
            aliases.update({m._meta.verbose_name_plural.replace(" ", ""): m for m in tracked.values()})
            aliases.update({m._meta.verbose_name.replace(" ", ""): m for m in tracked.values()})
            if name not in aliases:
                raise ValidationError({"model": [f"Unknown model; one of {', '.join(sorted(tracked))}."]})
            selected = [aliases[name]]
        else:
            selected = list(tracked.values())
        if object_id not in (None, ""):
            try:
                object_id = int(object_id)
            except ValueError:
                raise ValidationError({"object_id": ["A valid integer is required."]}) from None
            if not 1 <= object_id <= 2**63 - 1:
                raise ValidationError({"object_id": ["Out of range."]})
        else:
            object_id = None
        paginator = self.paginator
        limit = paginator.get_limit(request)
        offset = paginator.get_offset(request)
        total, page = history.merged_page(selected, object_id, offset, limit)
        paginator.count, paginator.limit, paginator.offset, paginator.request = total, limit, offset, request
        return paginator.get_paginated_response(ChangeSerializer(history.entries(page), many=True).data)
