"""Filters shared by every app's filtersets."""

from __future__ import annotations

from datetime import UTC

import django_filters
from django import forms
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from django_filters import utils
from django_filters.fields import IsoDateTimeField, ModelChoiceField
from django_filters.rest_framework import DjangoFilterBackend
from django_filters.utils import get_model_field
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter, SearchFilter

from twin.api.serializers.base import integer_column_range


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
    for filter_ in filters.values():
        if not isinstance(filter_, django_filters.NumberFilter) or model is None:
            continue
        model_field = get_model_field(model, filter_.field_name)
        bounds = integer_column_range(model_field) if model_field is not None else None
        if bounds is not None:
            filter_.extra.setdefault("min_value", bounds[0])
            filter_.extra.setdefault("max_value", bounds[1])


class BoundedModelChoiceField(ModelChoiceField):
    """A model-choice filter's form field for which an id beyond what the key column holds names no object
    (the database, which may not bind it, is never asked)."""

    def to_python(self, value):
        if value in self.empty_values or (self.null_label is not None and value == self.null_value):
            return super().to_python(value)
        model = self.queryset.model
        if self.to_field_name not in (None, "pk", model._meta.pk.name) or isinstance(value, model):
            return super().to_python(value)
        try:
            pk = model._meta.pk.to_python(value)
        except DjangoValidationError:
            return super().to_python(value)
        bounds = integer_column_range(model._meta.pk)
        if bounds is not None and isinstance(pk, int) and not bounds[0] <= pk <= bounds[1]:
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value}
            )
        return super().to_python(value)


class BoundedModelChoiceFilter(django_filters.ModelChoiceFilter):
    field_class = BoundedModelChoiceField


class TwinFilterSet(django_filters.FilterSet):
    """The base of every filter set: integer filters bounded to what the database column holds, and
    foreign keys filtered by ``BoundedModelChoiceFilter`` (``FILTER_DEFAULTS``, as django-filter's own REST
    framework filter set adjusts it)."""

    FILTER_DEFAULTS = {
        **django_filters.FilterSet.FILTER_DEFAULTS,
        **{
            field_class: {
                **django_filters.FilterSet.FILTER_DEFAULTS[field_class],
                "filter_class": BoundedModelChoiceFilter,
            }
            for field_class in (models.ForeignKey, models.OneToOneField)
        },
    }

    @classmethod
    def get_filters(cls):
        filters = super().get_filters()
        bound_integer_filters(cls._meta.model, filters)
        return filters


def _referenced_model(model, filter_):
    """The model a filter's ids name: the target of the foreign key its path ends on (``?campus=``,
    ``?building__in=``, ``?campus=`` through ``building__campus``), else None."""
    if model is None or filter_.lookup_expr not in ("exact", "in") or not filter_.field_name:
        return None
    field = get_model_field(model, filter_.field_name)
    if (
        field is None
        or not getattr(field, "is_relation", False)
        or not (field.many_to_one or field.one_to_one)
    ):
        return None
    return field.related_model


def unknown_references(filterset, *, choice_filters: bool = True) -> dict[str, list[str]]:
    """``{parameter: [message]}`` for each id filter of the request naming an object that does not exist
    (``?campus=999``: "There is no campus 999"), instead of django-filter's generic "Select a valid choice";
    a value that is not an id at all is left to the filter's own message. One query per such parameter.
    Without ``choice_filters``, the model-choice filters are left out: their form field reads the object
    anyway and fails on one that does not exist."""
    out: dict[str, list[str]] = {}
    model = filterset.queryset.model
    for name, filter_ in filterset.filters.items():
        if not choice_filters and isinstance(filter_, _CHOICE_FILTERS):
            continue
        raw = filterset.data.get(name) if hasattr(filterset.data, "get") else None
        if not raw or not isinstance(raw, str):
            continue
        target = _referenced_model(model, filter_)
        if target is None:
            continue
        parts = [p.strip() for p in raw.split(",")] if filter_.lookup_expr == "in" else [raw.strip()]
        bounds = integer_column_range(target._meta.pk)
        if bounds is None:
            continue  # not keyed by integers
        ids: list[int] | None = []
        for part in parts:
            try:
                value = int(part)
            except ValueError:
                ids = None  # not an id: the filter's own message
                break
            if not bounds[0] <= value <= bounds[1]:
                ids = None  # beyond the column: the filter's own bound
                break
            ids.append(value)
        if not ids:
            continue
        found = set(target._default_manager.filter(pk__in=ids).values_list("pk", flat=True))
        absent = [i for i in dict.fromkeys(ids) if i not in found]
        if absent:
            label = target._meta.verbose_name
            listed = ", ".join(str(i) for i in absent)
            out[name] = [
                f"There is no {label} {listed} (?{name}= takes the id of an existing {label})."
                if len(absent) == 1
                else f"There are no {target._meta.verbose_name_plural} {listed} (?{name}= takes ids of "
                f"existing {target._meta.verbose_name_plural})."
            ]
    return out


_CHOICE_FILTERS = (django_filters.ModelChoiceFilter, django_filters.ModelMultipleChoiceFilter)


class TwinFilterBackend(DjangoFilterBackend):
    """django-filter's backend with the project's filter set as the base of the ones it makes, and an id
    filter naming no object a 400 that says so."""

    filterset_base = TwinFilterSet

    def filter_queryset(self, request, queryset, view):
        # As DjangoFilterBackend.filter_queryset, with the missing ids named first.
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        # An id no row can reference answers a 400 naming it. A model-choice filter's form field reads its
        # object (one query) and fails on a missing one, so those are named only when the form fails; the
        # other id filters (a number through a relation) are checked first, or they would answer no rows.
        missing = unknown_references(filterset, choice_filters=False)
        if missing:
            raise ValidationError(missing)
        if not filterset.is_valid():
            missing = unknown_references(filterset)
            if missing:
                raise ValidationError(missing)
            if self.raise_exception:
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

    def get_ordering(self, request, queryset, view):
        """The asked order, then the id: rows that tie (many racks share a design_kw) keep one order from page
        to page and from database to database."""
        ordering = super().get_ordering(request, queryset, view)
        if ordering and not any(term.removeprefix("-") in ("pk", "id") for term in ordering):
            return [*ordering, "pk"]
        return ordering

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
