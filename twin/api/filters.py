"""Filters shared by every app's filtersets."""

from __future__ import annotations

import copy
from datetime import UTC

import django_filters
from django import forms
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from django.http import QueryDict
from django_filters import utils
from django_filters.fields import IsoDateTimeField, ModelChoiceField
from django_filters.filters import FilterMethod
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


# (filter set class, names of its filters) -> the form class of those filters; bounded.
_FORM_CLASSES: dict[tuple[type, tuple[str, ...]], type] = {}
MAX_FORM_CLASSES = 1024


# (filter set class, the request's parameter names) -> the filters those name; bounded.
_NAMED_FILTERS: dict[tuple[type, tuple[str, ...]], dict] = {}


def _named_filters(filterset_class, keys: tuple[str, ...]) -> dict:
    """The filters a request's parameters name (a parameter that is the filter's name or starts with it) and
    the required ones, worked out once per set of parameter names."""
    key = (filterset_class, keys)
    named = _NAMED_FILTERS.get(key)
    if named is None:
        named = {
            name: filter_
            for name, filter_ in filterset_class.base_filters.items()
            if filter_.extra.get("required") or any(parameter.startswith(name) for parameter in keys)
        }
        if len(_NAMED_FILTERS) >= MAX_FORM_CLASSES:
            _NAMED_FILTERS.clear()
        _NAMED_FILTERS[key] = named
    return named


class _SharedFields(dict):
    """A form's fields that each form instance shares instead of deep-copying them (Django copies them so
    that one form may change its fields; a filter form that is only cleaned changes none)."""

    def __deepcopy__(self, memo):
        return dict(self)


def _bound_copy(filter_, filterset, model):
    """A request's copy of a filter, bound to its filter set and model."""
    bound = copy.copy(filter_)
    if isinstance(bound.__dict__.get("filter"), FilterMethod):
        bound.method = filter_.method  # a FilterMethod of this copy, which finds the method on its parent
    bound.model = model
    bound.parent = filterset
    return bound


class TwinFilterSet(django_filters.FilterSet):
    """The base of every filter set: integer filters bounded to what the database column holds.

    With ``named_only`` (what the API's filter backend asks for), a filter set holds only the filters the
    request names (a query parameter that is the filter's name or starts with it, as a range's ``_min`` and
    ``_max`` do) and the required ones: a filter given no value leaves the queryset as it is, and building,
    copying and cleaning the thirty-odd filters of an inventory table for every request was most of the cost
    of filtering a list. The form class of a set of filters is built once per process (unless a filter takes
    its choices from the request)."""

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

    def __init__(self, data=None, queryset=None, *, request=None, prefix=None, named_only=False):
        self._named_only = named_only and data is not None and not prefix
        if self._named_only:
            self.base_filters = _named_filters(type(self), tuple(data))
        # As django-filter's BaseFilterSet.__init__, with each filter copied shallowly: its deep copy copied
        # the form field and the model-choice queryset each filter holds, on every request (a tenth of a
        # page of racks), though a request binds nothing on them but the filter's model and parent.
        if queryset is None:
            queryset = self._meta.model._default_manager.all()
        self.is_bound = data is not None
        self.data = data or QueryDict()
        self.queryset = queryset
        self.request = request
        self.form_prefix = prefix
        self.filters = {
            name: _bound_copy(filter_, self, queryset.model) for name, filter_ in self.base_filters.items()
        }

    @classmethod
    def get_filters(cls):
        filters = super().get_filters()
        bound_integer_filters(cls._meta.model, filters)
        return filters

    def get_form_class(self):
        if any(callable(getattr(filter_, "queryset", None)) for filter_ in self.filters.values()):
            return super().get_form_class()
        key = (type(self), tuple(self.filters), self._named_only)
        form_class = _FORM_CLASSES.get(key)
        if form_class is None:
            form_class = super().get_form_class()
            if self._named_only:
                # The API's forms only clean (never render): their fields are shared, not deep-copied.
                form_class.base_fields = _SharedFields(form_class.base_fields)
            if len(_FORM_CLASSES) >= MAX_FORM_CLASSES:
                _FORM_CLASSES.clear()
            _FORM_CLASSES[key] = form_class
        return form_class


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
    model = filterset._meta.model
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
        return self._valid_filterset(filterset_class, request, queryset, view).qs

    def _valid_filterset(self, filterset_class, request, queryset, view):
        filterset = filterset_class(**self.get_filterset_kwargs(request, queryset, view), named_only=True)
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
        return filterset

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
