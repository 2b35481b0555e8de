"""Shared serializer machinery: brief nested objects, write-by-id, model validation naming the field."""

from __future__ import annotations

import copy
import datetime
import math
import re
from collections.abc import Mapping
from functools import lru_cache

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import CheckConstraint, F, Q, UniqueConstraint
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import build_basic_type, build_object_type
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers

# Model -> router basename, filled by each app's api/urls.py as it registers its viewsets.
BASENAMES: dict[type[models.Model], str] = {}


def register_basename(model: type[models.Model], basename: str) -> None:
    BASENAMES[model] = basename


@lru_cache(maxsize=256)
def _detail_path_template(basename: str) -> str:
    # One reverse() per basename and process; list pages with thousands of nested objects only format strings.
    return reverse(f"{basename}-detail", kwargs={"pk": 987654321}).replace("987654321", "{pk}")


def _origin(request) -> str:
    if request is None:
        return ""
    origin = getattr(request, "_twin_origin", None)
    if origin is None:
        origin = request.build_absolute_uri("/").rstrip("/")
        request._twin_origin = origin
    return origin


def detail_url(model: type[models.Model], pk, request) -> str | None:
    basename = BASENAMES.get(model)
    if basename is None:
        return None
    return _origin(request) + _detail_path_template(basename).format(pk=pk)


def display_name(obj) -> str:
    name = getattr(obj, "name", None)
    return name if isinstance(name, str) and name else str(obj)


class BoundedPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """Writes by primary key; an id beyond what the key's column holds does not exist (no query is made)."""

    def to_internal_value(self, data):
        bounds = integer_column_range(self.get_queryset().model._meta.pk)
        if bounds is not None and not isinstance(data, bool):
            try:
                number = int(data)
            except (TypeError, ValueError):
                number = None
            if number is not None and not bounds[0] <= number <= bounds[1]:
                self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


def _related_request_schema(field) -> dict:
    schema = build_basic_type(OpenApiTypes.INT)
    queryset = getattr(field, "queryset", None)
    bounds = integer_column_range(queryset.model._meta.pk) if queryset is not None else None
    if bounds is not None:
        schema["minimum"], schema["maximum"] = bounds
    return schema


class BoundedPrimaryKeyRelatedFieldExtension(OpenApiSerializerFieldExtension):
    target_class = "twin.api.serializers.base.BoundedPrimaryKeyRelatedField"

    def map_serializer_field(self, auto_schema, direction):
        if direction == "request":
            return _related_request_schema(self.target)
        return build_basic_type(OpenApiTypes.INT)


class BriefRelatedField(BoundedPrimaryKeyRelatedField):
    """Writes by primary key; reads as the brief object ``{id, url, name}``."""

    def use_pk_only_optimization(self) -> bool:
        return False

    def to_representation(self, value):
        return {
            "id": value.pk,
            "url": detail_url(type(value), value.pk, self.context.get("request")),
            "name": display_name(value),
        }

    def get_choices(self, cutoff=None):
        """The browsable API's choices, keyed by id (what a write sends): REST framework keys them by
        ``to_representation``, here a dict, which cannot be a key."""
        queryset = self.get_queryset()
        if queryset is None:
            return {}
        if cutoff is not None:
            queryset = queryset[:cutoff]
        return {item.pk: self.display_value(item) for item in queryset}


class BriefRelatedFieldExtension(OpenApiSerializerFieldExtension):
    target_class = "twin.api.serializers.base.BriefRelatedField"

    def map_serializer_field(self, auto_schema, direction):
        if direction == "request":
            return _related_request_schema(self.target)
        return build_object_type(
            properties={
                "id": build_basic_type(OpenApiTypes.INT),
                "url": {"type": "string", "format": "uri", "nullable": True},
                "name": build_basic_type(OpenApiTypes.STR),
            },
            required=["id", "url", "name"],
        )


class FiniteFloatField(serializers.FloatField):
    """A float that is a real number: NaN and ±infinity are refused (they are not JSON and break the analytics)."""

    default_error_messages = {"finite": "Enter a finite number."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            self.fail("finite")
        return value


# The integer range of each column type that every supported database holds: SQLite stores any integer in 64
# bits, PostgreSQL in 16, 32 or 64 by type, so PostgreSQL's ranges (Django's defaults) bound both.
PORTABLE_INTEGER_RANGES: dict[str, tuple[int, int]] = dict(BaseDatabaseOperations.integer_field_ranges)


def integer_column_range(model_field) -> tuple[int, int] | None:
    """(min, max) a column of ``model_field`` holds on every supported database; a relation is its target's
    column. None for a field that is not an integer column."""
    if getattr(model_field, "is_relation", False) and getattr(model_field, "target_field", None) is not None:
        model_field = model_field.target_field
    get_type = getattr(model_field, "get_internal_type", None)
    return PORTABLE_INTEGER_RANGES.get(get_type()) if get_type else None


def bounded_integer_kwargs(kwargs: dict, bounds: tuple[int, int]) -> dict:
    """``min_value``/``max_value`` narrowed to ``bounds`` (the model's own tighter limits are kept)."""
    low, high = bounds
    current_min, current_max = kwargs.get("min_value"), kwargs.get("max_value")
    kwargs["min_value"] = low if current_min is None else max(current_min, low)
    kwargs["max_value"] = high if current_max is None else min(current_max, high)
    return kwargs


class SelfUrlField(serializers.Field):
    """The object's own API URL, without one reverse() per row."""

    def __init__(self, **kwargs):
        kwargs["read_only"] = True
        kwargs["source"] = "*"
        super().__init__(**kwargs)

    def to_representation(self, value):
        return detail_url(type(value), value.pk, self.context.get("request"))


class SelfUrlFieldExtension(OpenApiSerializerFieldExtension):
    target_class = "twin.api.serializers.base.SelfUrlField"

    def map_serializer_field(self, auto_schema, direction):
        return {"type": "string", "format": "uri", "readOnly": True}


def _q_fields(q) -> list[str]:
    out: list[str] = []
    for child in q.children:
        if isinstance(child, Q):
            out.extend(_q_fields(child))
        else:
            out.append(child[0].split("__")[0])
    return out


def constraint_field(constraint) -> str:
    """The field an error of this constraint is reported on (the last field of a unique set: its name)."""
    if isinstance(constraint, UniqueConstraint) and constraint.fields:
        return constraint.fields[-1]
    if isinstance(constraint, CheckConstraint):
        fields = _q_fields(constraint.condition)
        if fields:
            return fields[0]
    return "non_field_errors"


def unique_message(model: type[models.Model], fields: tuple[str, ...] | list[str], values: dict) -> str:
    """A taken unique set said as a person reads it, on its last field: 'a scenario named "Grid cut" already
    exists in this campus' rather than 'The fields campus, name must make a unique set.'"""
    opts = model._meta
    *scope, field = fields
    value = values.get(field)
    if hasattr(value, "pk"):
        value = display_name(value)
    if field == "name":
        what = f'a {opts.verbose_name} named "{value}"'
    else:
        label = opts.get_field(field).verbose_name
        what = f'a {opts.verbose_name} with {label} "{value}"'
    if not scope:
        return f"{what} already exists"
    where = " and ".join(str(opts.get_field(name).verbose_name) for name in scope)
    return f"{what} already exists in this {where}"


class NamedUniqueTogetherValidator(serializers.UniqueTogetherValidator):
    """DRF's check of a unique set, its error on the set's last field (the one a person changes) in words."""

    def __call__(self, attrs, serializer):
        try:
            super().__call__(attrs, serializer)
        except serializers.ValidationError as exc:
            codes = exc.get_codes()
            if not (isinstance(codes, list) and "unique" in codes):
                raise
            sources = [serializer.fields[name].source for name in self.fields]
            values = {
                source: attrs[source] if source in attrs else getattr(serializer.instance, source, None)
                for source in sources
            }
            message = unique_message(self.queryset.model, sources, values)
            raise serializers.ValidationError({self.fields[-1]: [message]}, code="unique") from None


_LOOKUP_WORDS = {
    "gt": "greater than",
    "gte": "at least",
    "lt": "less than",
    "lte": "at most",
    "exact": "equal to",
}
_NEGATED_WORDS = {
    "gt": "at most",
    "gte": "less than",
    "lt": "at least",
    "lte": "greater than",
    "exact": "different from",
}


def constraint_sentence(constraint, instance) -> str | None:
    """A check between two fields said in words on the first (``shutdown_temp_c must be greater than
    slowdown_temp_c (1 vs 90).``) instead of the database's 'Constraint "…" is violated.'; None for any
    other constraint or one with a message of its own."""
    if not isinstance(constraint, CheckConstraint):
        return None
    if constraint.violation_error_message != constraint.default_violation_error_message:
        return None
    q = constraint.condition
    if len(q.children) != 1 or not isinstance(q.children[0], tuple) or not isinstance(q.children[0][1], F):
        return None
    key, other = q.children[0][0], q.children[0][1].name
    name, _, lookup = key.partition("__")
    words = (_NEGATED_WORDS if q.negated else _LOOKUP_WORDS).get(lookup or "exact")
    if words is None or "__" in other:
        return None
    opts = instance._meta
    try:
        fields = opts.get_field(name), opts.get_field(other)
    except Exception:  # noqa: BLE001 (a lookup through a relation: keep the database's words)
        return None
    a, b = (getattr(instance, f.attname) for f in fields)
    numbers = not any(f.is_relation for f in fields) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b)
    )
    figures = f" ({a:g} vs {b:g})" if numbers else ""
    return f"{name} must be {words} {other}{figures}."


def model_errors(exc: DjangoValidationError) -> dict:
    detail = exc.message_dict if hasattr(exc, "error_dict") else {NON_FIELD_ERRORS: exc.messages}
    if NON_FIELD_ERRORS in detail:
        detail = dict(detail)
        detail["non_field_errors"] = detail.pop(NON_FIELD_ERRORS)
    return detail


def validate_model_instance(instance: models.Model) -> None:
    """full_clean() with constraint violations attributed to a field, raised as a DRF ValidationError."""
    errors: dict[str, list[str]] = {}
    try:
        instance.full_clean(validate_unique=False, validate_constraints=False)
    except DjangoValidationError as exc:
        for key, messages in model_errors(exc).items():
            errors.setdefault(key, []).extend(messages)
    if not errors:
        try:
            instance.validate_unique()
        except DjangoValidationError as exc:
            for key, messages in model_errors(exc).items():
                errors.setdefault(key, []).extend(messages)
        for constraint in instance._meta.constraints:
            try:
                constraint.validate(type(instance), instance)
            except DjangoValidationError as exc:
                messages = exc.messages
                if (
                    isinstance(constraint, UniqueConstraint)
                    and constraint.fields
                    and constraint.violation_error_message == constraint.default_violation_error_message
                ):
                    values = {name: getattr(instance, name, None) for name in constraint.fields}
                    messages = [unique_message(type(instance), constraint.fields, values)]
                elif sentence := constraint_sentence(constraint, instance):
                    messages = [sentence]
                errors.setdefault(constraint_field(constraint), []).extend(messages)
    if errors:
        raise serializers.ValidationError(errors)


class StrictFieldsMixin:
    """Unknown fields are a 400 naming them: a misspelt field must not be dropped silently
    (``rated_kwh`` would leave ``rated_kw`` unchanged, a misspelt calculator input would take its default).
    Read-only fields are accepted and ignored, so an object read by GET can be sent back as it is."""

    def unknown_field_message(self) -> str:
        return "Unknown field."

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = [name for name in data if name not in self.fields]
            if unknown:
                message = self.unknown_field_message()
                raise serializers.ValidationError({name: [message] for name in unknown})
            booleans = boolean_number_errors(self.fields, data)
            if booleans:
                # The other fields' errors are reported with them, a boolean's own message in its place.
                try:
                    super().to_internal_value(data)
                except serializers.ValidationError as exc:
                    detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
                    raise serializers.ValidationError({**detail, **booleans}) from None
                raise serializers.ValidationError(booleans)
        return super().to_internal_value(data)


# Fields that take a number: a JSON true/false sent to one is refused (Python reads True as 1, so REST
# framework's FloatField stored 1.0), as the spec importer's JSON Schema and the analyses refuse it.
NUMBER_FIELDS = (serializers.FloatField, serializers.IntegerField, serializers.DecimalField)
BOOLEAN_NUMBER_MESSAGE = "must be a number, not a boolean."


def boolean_number_errors(fields, data: Mapping) -> dict[str, list[str]]:
    """``{name: [message]}`` for each writable number field of ``fields`` given a JSON boolean in ``data``."""
    return {
        name: [f"{name} {BOOLEAN_NUMBER_MESSAGE}"]
        for name, value in data.items()
        if isinstance(value, bool)
        and isinstance(fields.get(name), NUMBER_FIELDS)
        and not fields[name].read_only
    }


# Query parameters DRF and the project read on any endpoint (format suffix, paging, brief objects, field
# selection, ordering and search): accepted everywhere, never reported as unknown.
STANDARD_QUERY_PARAMETERS = frozenset(
    {"format", "page", "page_size", "limit", "offset", "brief", "fields", "ordering", "search"}
)


class StrictQueryMixin:
    """For a serializer of query parameters: an unknown parameter is a 400 naming it (a planner typing
    ``?gpu_power_fractoin=0.6`` must not get the default answer), listing the ones the endpoint takes."""

    def to_internal_value(self, data):
        unknown = [name for name in data if name not in self.fields and name not in STANDARD_QUERY_PARAMETERS]
        if unknown:
            known = ", ".join(sorted(self.fields)) or "none"
            message = f"Unknown query parameter; this endpoint takes: {known}."
            raise serializers.ValidationError({name: [message] for name in unknown})
        return super().to_internal_value(data)


class TwinModelSerializer(StrictFieldsMixin, serializers.ModelSerializer):
    """NetBox-style: ``url``, brief nested relations written by id, ``Meta.brief_fields`` for ``?brief=1``,
    and the model's own validation (field validators, clean(), constraints) run before saving."""

    serializer_related_field = BriefRelatedField
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.FloatField: FiniteFloatField,
    }
    url = SelfUrlField()

    def __init__(self, *args, brief: bool = False, **kwargs):
        self.brief = brief
        super().__init__(*args, **kwargs)

    def get_unique_together_validators(self):
        return [
            NamedUniqueTogetherValidator(
                queryset=v.queryset,
                fields=v.fields,
                message=v.message,
                condition_fields=v.condition_fields,
                condition=v.condition,
                code=v.code,
                nulls_distinct=v.nulls_distinct,
            )
            if type(v) is serializers.UniqueTogetherValidator
            else v
            for v in super().get_unique_together_validators()
        ]

    def build_standard_field(self, field_name, model_field):
        """An integer column takes only what every supported database holds: without the bounds SQLite
        accepts, then fails to store, any integer beyond 64 bits (a 500), and PostgreSQL's 32-bit columns
        refuse what SQLite took."""
        field_class, field_kwargs = super().build_standard_field(field_name, model_field)
        bounds = integer_column_range(model_field)
        if (
            bounds is not None
            and issubclass(field_class, serializers.IntegerField)
            and not field_kwargs.get("read_only")
        ):
            field_kwargs = bounded_integer_kwargs(field_kwargs, bounds)
            # The connection's own range validators (64-bit on SQLite) are replaced by the bounds above.
            field_kwargs["validators"] = [
                v
                for v in field_kwargs.get("validators", [])
                if not isinstance(v, MinValueValidator | MaxValueValidator)
            ]
            if not field_kwargs["validators"]:
                field_kwargs.pop("validators")
        return field_class, field_kwargs

    def get_fields(self):
        fields = super().get_fields()
        if self.brief:
            fields = {name: field for name, field in fields.items() if name in self.Meta.brief_fields}
        return fields

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if self.instance is not None and not isinstance(self.instance, list | tuple | models.QuerySet):
            instance = copy.copy(self.instance)
            # The copy shares the cache of related objects; drop it so clean() sees the new relations.
            instance._state = copy.copy(instance._state)
            instance._state.fields_cache = {}
        else:
            instance = self.Meta.model()
        for name, value in attrs.items():
            setattr(instance, name, value)
        # Rules that judge a set of objects (whole NVL72 racks) wait for the final state of a bulk request.
        instance._in_bulk = bool(self.context.get("bulk")) or isinstance(
            self.parent, serializers.ListSerializer
        )
        validate_model_instance(instance)
        return attrs


class AwareDateTimeField(serializers.DateTimeField):
    """An ISO 8601 instant with its zone, in UTC. A time without one is refused rather than read in the
    server's zone: a site's local time would be taken for UTC, hours off, silently (as the measurements'
    and a replay's ``load_source`` times are)."""

    default_error_messages = {"naive": "give the time zone (e.g. Z or +00:00)."}

    def to_internal_value(self, value):
        if isinstance(value, str):
            try:
                parsed = parse_datetime(value.strip())
            except ValueError:
                parsed = None  # written right but not on the calendar: the parent names it
            if parsed is not None and parsed.tzinfo is None:
                self.fail("naive")
        return super().to_internal_value(value)


class DayField(serializers.DateField):
    """A YYYY-MM-DD day; one written right but not on the calendar (2026-02-30) is named as such."""

    default_error_messages = {"no_such_day": "{value} is not a day of the calendar: {reason}."}

    def to_internal_value(self, value):
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
            try:
                datetime.date.fromisoformat(value.strip())
            except ValueError as exc:
                self.fail("no_such_day", value=value.strip(), reason=exc)
        return super().to_internal_value(value)
