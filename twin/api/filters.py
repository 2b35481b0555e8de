"""Filters shared by every app's filtersets."""

from __future__ import annotations

from datetime import UTC

import django_filters
from django import forms
from django_filters import utils
from django_filters.fields import IsoDateTimeField
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter, SearchFilter


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


# (filter set class, names of its filters) -> the form class of those filters; bounded.
_FORM_CLASSES: dict[tuple[type, tuple[str, ...]], type] = {}
MAX_FORM_CLASSES = 1024


class TwinFilterSet(django_filters.FilterSet):
    """The base of every filter set: integer filters bounded to what the database column holds.

    With ``named_only`` (what the API's filter backend asks for), a filter set holds only the filters the
    request names (a query parameter that is the filter's name or starts with it, as a range's ``_min`` and
    ``_max`` do) and the required ones: a filter given no value leaves the queryset as it is, and building,
    copying and cleaning the thirty-odd filters of an inventory table for every request was most of the cost
    of filtering a list. The form class of a set of filters is built once per process (unless a filter takes
    its choices from the request)."""

    def __init__(self, data=None, queryset=None, *, request=None, prefix=None, named_only=False):
        if named_only and data is not None and not prefix:
            keys = tuple(data)
            self.base_filters = {
                name: filter_
                for name, filter_ in type(self).base_filters.items()
                if filter_.extra.get("required") or any(key.startswith(name) for key in keys)
            }
        super().__init__(data, queryset, request=request, prefix=prefix)

    @classmethod
    def get_filters(cls):
        filters = super().get_filters()
        bound_integer_filters(cls._meta.model, filters)
        return filters

    def get_form_class(self):
        if any(callable(getattr(filter_, "queryset", None)) for filter_ in self.filters.values()):
            return super().get_form_class()
        key = (type(self), tuple(self.filters))
        form_class = _FORM_CLASSES.get(key)
        if form_class is None:
            form_class = super().get_form_class()
            if len(_FORM_CLASSES) >= MAX_FORM_CLASSES:
                _FORM_CLASSES.clear()
            _FORM_CLASSES[key] = form_class
        return form_class


class TwinFilterBackend(DjangoFilterBackend):
    """django-filter's backend, with the integer bounds applied to whatever filter set a view names (one that
    does not derive from TwinFilterSet included), once per class; a TwinFilterSet filters with the filters
    the request names only (the browsable API's form still shows them all)."""

    def get_filterset_class(self, view, queryset=None):
        filterset_class = super().get_filterset_class(view, queryset)
        if filterset_class is not None and not filterset_class.__dict__.get("_integers_bounded"):
            bound_integer_filters(filterset_class._meta.model, filterset_class.base_filters)
            filterset_class._integers_bounded = True
        return filterset_class

    def filter_queryset(self, request, queryset, view):
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is None or not issubclass(filterset_class, TwinFilterSet):
            return super().filter_queryset(request, queryset, view)
        filterset = filterset_class(**self.get_filterset_kwargs(request, queryset, view), named_only=True)
        if not filterset.is_valid() and self.raise_exception:
            raise utils.translate_validation(filterset.errors)
        return filterset.qs

    def query_parameter_names(self, view) -> set[str]:
        """The query parameters the view's filter set reads (a range widget's ``<name>_min``/``_max`` etc.)."""
        queryset = None if getattr(view, "filterset_class", None) else view.get_queryset()
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is None:
            return set()
        names: set[str] = set()
        for name, filter_ in filterset_class.base_filters.items():
            widget = filter_.field.widget
            suffixes = getattr(widget, "suffixes", None)
            if suffixes and hasattr(widget, "suffixed"):
                names.update(widget.suffixed(name, suffix) for suffix in suffixes)
            else:
                names.add(name)
        return names


class TwinSearchFilter(SearchFilter):
    """``?search=``, read only by views that name what it searches."""

    def query_parameter_names(self, view) -> set[str]:
        return {self.search_param} if getattr(view, "search_fields", None) else set()

    def get_schema_operation_parameters(self, view):
        return super().get_schema_operation_parameters(view) if getattr(view, "search_fields", None) else []


class TwinOrderingFilter(OrderingFilter):
    """``?ordering=``: a field the view cannot order by is a 400 naming it (DRF drops it silently and answers
    the default order, which reads as the asked one)."""

    def query_parameter_names(self, view) -> set[str]:
        return {self.ordering_param}

    def remove_invalid_fields(self, queryset, fields, view, request):
        valid = [item[0] for item in self.get_valid_fields(queryset, view, {"request": request})]
        terms = [term for term in fields if term]
        unknown = [term for term in terms if term.removeprefix("-") not in valid]
        if unknown:
            raise ValidationError(
                {
                    self.ordering_param: [
                        f"Cannot order by {', '.join(unknown)}; this endpoint orders by: "
                        f"{', '.join(sorted(valid))} (prefix - for descending)."
                    ]
                }
            )
        return terms
