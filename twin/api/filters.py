"""Filters shared by every app's filtersets."""

from __future__ import annotations

from datetime import UTC

import django_filters
from django import forms
from django_filters.fields import IsoDateTimeField
from django_filters.rest_framework import DjangoFilterBackend


class UtcIsoDateTimeField(IsoDateTimeField):
    """An ISO 8601 date-time normalised to UTC.

    Python accepts UTC offsets up to ±23:59, PostgreSQL only up to ±15:59: an offset such as +20:40 would reach the
    database as written and fail there. Converting to UTC first gives every valid instant the same meaning on every
    database; an instant outside the representable range is a 400 on the parameter, not a server error.
    """

    def to_python(self, value):
        parsed = super().to_python(value)
        if parsed is None or parsed.tzinfo is None:
            return parsed
        try:
            return parsed.astimezone(UTC)
        except OverflowError:
            raise forms.ValidationError("date-time out of range", code="invalid") from None


class UtcIsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UtcIsoDateTimeField


def bound_integer_filters(model, filters: dict) -> None:
    """Give every number filter on an integer column (``?id=``, ``?id__in=``, ``?campus=`` through a relation)
    the range the column holds on every supported database, so a value beyond it is a 400 naming the parameter
    instead of a database error (SQLite cannot bind an integer beyond 64 bits)."""
    from django_filters.utils import get_model_field

    from twin.api.serializers.base import integer_column_range

    for filter_ in filters.values():
        if not isinstance(filter_, django_filters.NumberFilter) or model is None:
            continue
        model_field = get_model_field(model, filter_.field_name)
        bounds = integer_column_range(model_field) if model_field is not None else None
        if bounds is not None:
            filter_.extra.setdefault("min_value", bounds[0])
            filter_.extra.setdefault("max_value", bounds[1])


class TwinFilterSet(django_filters.FilterSet):
    """The base of every filter set: integer filters bounded to what the database column holds."""

    @classmethod
    def get_filters(cls):
        filters = super().get_filters()
        bound_integer_filters(cls._meta.model, filters)
        return filters


class TwinFilterBackend(DjangoFilterBackend):
    """django-filter's backend, with the integer bounds applied to whatever filter set a view names (one that
    does not derive from TwinFilterSet included), once per class."""

    def get_filterset_class(self, view, queryset=None):
        filterset_class = super().get_filterset_class(view, queryset)
        if filterset_class is not None and not filterset_class.__dict__.get("_integers_bounded"):
            bound_integer_filters(filterset_class._meta.model, filterset_class.base_filters)
            filterset_class._integers_bounded = True
        return filterset_class
