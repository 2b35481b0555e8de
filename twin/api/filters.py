"""Filters shared by every app's filtersets."""

from __future__ import annotations

from datetime import UTC

import django_filters
from django import forms
from django_filters.fields import IsoDateTimeField


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
