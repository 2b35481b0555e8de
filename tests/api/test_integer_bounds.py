"""Integer inputs are bounded by what every supported database holds (SQLite and PostgreSQL).

SQLite binds integers of at most 64 bits (a larger Python int raises ``OverflowError``: a 500); PostgreSQL's
columns are 16, 32 or 64 bits by type (PostgreSQL documentation, "8.1.1. Integer Types": smallint
-32768 to +32767, integer -2147483648 to +2147483647, bigint -9223372036854775808 to +9223372036854775807).
Every integer a client sends, in a body or a query, must be refused with a 400 before it reaches either.
"""

from __future__ import annotations

import json

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from tests import factories as f
from twin.api.serializers.base import BASENAMES

# PostgreSQL documentation, Table 8.2 "Integer Types".
SMALLINT = (-32768, 32767)
INTEGER = (-2147483648, 2147483647)
BIGINT = (-9223372036854775808, 9223372036854775807)
COLUMN_RANGE = {
    "SmallIntegerField": SMALLINT,
    "PositiveSmallIntegerField": (0, SMALLINT[1]),
    "IntegerField": INTEGER,
    "PositiveIntegerField": (0, INTEGER[1]),
    "BigIntegerField": BIGINT,
    "PositiveBigIntegerField": (0, BIGINT[1]),
    "AutoField": INTEGER,
    "BigAutoField": BIGINT,
    "SmallAutoField": SMALLINT,
}
BEYOND_64_BITS = 2**64


@pytest.fixture(scope="module")
def openapi() -> dict:
    raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(raw, cls=DjangoJSONEncoder))


def _integers(schema, path: str, components: dict, seen: frozenset = frozenset()):
    """(path, schema) of every integer in a request schema, following $refs, items, properties and maps."""
    if not isinstance(schema, dict):
        return
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name not in seen:
            yield from _integers(components[name], path, components, seen | {name})
        return
    if schema.get("readOnly"):
        return
    if schema.get("type") == "integer":
        yield path, schema
    for key in ("allOf", "oneOf", "anyOf"):
        for sub in schema.get(key, []):
            yield from _integers(sub, path, components, seen)
    for name, sub in (schema.get("properties") or {}).items():
        yield from _integers(sub, f"{path}.{name}", components, seen)
    if isinstance(schema.get("items"), dict):
        yield from _integers(schema["items"], f"{path}[]", components, seen)
    if isinstance(schema.get("additionalProperties"), dict):
        yield from _integers(schema["additionalProperties"], f"{path}{{}}", components, seen)


def test_every_integer_a_request_body_takes_is_bounded_within_64_bits(openapi):
    components = openapi["components"]["schemas"]
    unbounded = []
    checked = 0
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            content = (operation.get("requestBody") or {}).get("content", {})
            for media in content.values():
                for where, schema in _integers(media.get("schema"), f"{method.upper()} {path}", components):
                    checked += 1
                    low, high = schema.get("minimum"), schema.get("maximum")
                    if low is None or high is None or low < BIGINT[0] or high > BIGINT[1]:
                        unbounded.append(f"{where}: [{low}, {high}]")
    assert checked > 50
    assert unbounded == []


def _project_model_serializers():
    seen, stack = set(), list(serializers.ModelSerializer.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(cls.__subclasses__())
        meta = getattr(cls, "Meta", None)
        if cls.__module__.split(".")[0] in {"campus", "simulations", "twin"} and getattr(meta, "model", None):
            yield cls


def test_every_model_serializer_field_on_an_integer_column_fits_the_column_on_postgresql():
    """Walks every field of every model serializer of the project: a writable integer field on an integer
    column takes nothing the column cannot hold on PostgreSQL (the narrower database)."""
    too_wide = []
    checked = 0
    for cls in _project_model_serializers():
        model = cls.Meta.model
        for name, field in cls().fields.items():
            if field.read_only or not isinstance(field, serializers.IntegerField):
                continue
            source = field.source.split(".")[0]
            try:
                model_field = model._meta.get_field(source)
            except Exception:
                continue
            if not isinstance(model_field, models.IntegerField | models.AutoField):
                continue
            checked += 1
            low, high = COLUMN_RANGE[model_field.get_internal_type()]
            if field.min_value is None or field.max_value is None:
                too_wide.append(f"{cls.__name__}.{name}: unbounded")
            elif field.min_value < low or field.max_value > high:
                too_wide.append(
                    f"{cls.__name__}.{name}: [{field.min_value}, {field.max_value}] vs [{low}, {high}]"
                )
    assert checked >= 10
    assert too_wide == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("value", "accepted"),
    [(SMALLINT[1], True), (SMALLINT[1] + 1, False), (BEYOND_64_BITS, False)],
)
def test_a_small_integer_column_takes_what_a_postgresql_smallint_holds(planner_client, value, accepted):
    body = {
        "slug": f"switch-{value}",
        "name": "A switch",
        "source": "vendor sheet",
        "vendor": "Acme",
        "fabric": "tomahawk5",
        "radix": value,  # a small integer column bounded by its type alone (rack_units stops at 52)
        "port_speed_gbps": 400,
        "power_w_copper": 1000,
        "power_w_optics": 1500,
        "rack_units": 2,
    }
    response = planner_client.post("/api/switch-models/", body, format="json")
    if accepted:
        assert response.status_code == 201, response.content
    else:
        assert response.status_code == 400
        assert list(response.json()) == ["radix"]


def _integer_query_parameters(openapi):
    for path, operations in openapi["paths"].items():
        operation = operations.get("get")
        if operation is None or "{" in path:
            continue
        for parameter in operation.get("parameters", []):
            if parameter.get("in") != "query":
                continue
            schema = parameter.get("schema", {})
            if schema.get("type") == "integer":
                yield path, parameter["name"], str(BEYOND_64_BITS)
            elif schema.get("type") == "array" and schema.get("items", {}).get("type") == "integer":
                yield path, parameter["name"], f"1,{BEYOND_64_BITS}"


@pytest.mark.django_db
def test_every_integer_query_parameter_beyond_64_bits_is_refused_or_ignored_never_a_500(
    admin_client_api, openapi
):
    f.NodeFactory()
    checked = 0
    failures = []
    for path, name, value in _integer_query_parameters(openapi):
        checked += 1
        response = admin_client_api.get(path, {name: value})
        if response.status_code >= 500:
            failures.append(f"{path}?{name}: {response.status_code}")
        elif response.status_code == 400 and name not in response.json():
            failures.append(f"{path}?{name}: 400 without naming it: {response.content[:200]!r}")
        elif (name.endswith("__in") or name == "id") and response.status_code != 400:
            # Filters on integer columns refuse the value rather than matching nothing.
            failures.append(f"{path}?{name}: {response.status_code}, expected 400")
    assert checked > 40
    assert failures == []


def test_every_model_the_api_serves_with_an_integer_column_is_walked():
    """Guard for the walk above: every model with an API route and an integer column has a serializer in it."""
    import twin.urls  # noqa: F401  (registers the routes, hence BASENAMES)

    walked = {cls.Meta.model for cls in _project_model_serializers()}
    served = {
        m
        for m in BASENAMES
        if any(isinstance(fld, models.IntegerField) and not fld.primary_key for fld in m._meta.fields)
    }
    assert served
    assert served - walked == set()
