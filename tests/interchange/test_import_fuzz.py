"""Random mutations of a valid spec are either imported or rejected with paths: never an unhandled error,
and a rejected spec writes nothing."""

import copy
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from campus.interchange.formats import dump_spec
from campus.interchange.importer import SpecError, import_campus

from .conftest import SMALL_SPEC, inventory_counts


def locations(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path into the document (dict keys and list indices), parents before children."""
    out = [path] if path else []
    if isinstance(value, dict):
        for key, child in value.items():
            out += locations(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += locations(child, (*path, index))
    return out


LOCATIONS = locations(SMALL_SPEC)
# Names that exist in the spec: a reference mutated to one of them may dangle or duplicate.
NAMES = [
    "B1",
    "H1",
    "R01",
    "R01-01",
    "PDU-A",
    "SUB-A",
    "UPS-B",
    "CDU-1",
    "DRY-1",
    "POD-1",
    "LEAF-1",
    "UTIL-A",
]

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(NAMES),
    st.sampled_from([0, 0.0, 1.0, 4.0, 0.05, -1, 1e9, "", "A", "N", "air", "leaf", "sr"]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)

MUTATION = st.tuples(
    st.sampled_from(["replace", "delete", "duplicate", "add_key"]), st.sampled_from(LOCATIONS), VALUES
)


def mutate(spec: dict, kind: str, path: tuple, value: Any) -> dict:
    parent = spec
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if kind == "replace":
        parent[last] = value
    elif kind == "delete":
        del parent[last]
    elif kind == "duplicate" and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[last]))
    elif kind == "add_key" and isinstance(parent[last], dict):
        parent[last][str(value)] = value
    else:
        parent[last] = value
    return spec


@pytest.mark.django_db
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(MUTATION, min_size=1, max_size=3))
def test_mutated_specs_are_imported_or_rejected_with_paths(mutations):
    spec = copy.deepcopy(SMALL_SPEC)
    for kind, path, value in mutations:
        try:
            spec = mutate(spec, kind, path, value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced this location
    before = inventory_counts()
    with transaction.atomic():
        try:
            campus = import_campus(spec)
        except SpecError as exc:
            event("rejected")
            assert exc.errors
            for error in exc.errors:
                assert isinstance(error["path"], str) and error["path"]
                assert isinstance(error["message"], str) and error["message"]
            assert inventory_counts() == before
        else:
            event("imported")
            assert campus.pk is not None
        transaction.set_rollback(True)


BODIES = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda children: (
            st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
        ),
        max_leaves=10,
    ).map(lambda value: dump_spec({"campus": value}, "yaml").encode()),
)


@pytest.mark.django_db
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(BODIES, st.sampled_from(["application/json", "application/x-yaml"]))
def test_import_endpoint_answers_any_body_with_201_or_400(planner_client, body, content_type):
    before = inventory_counts()
    with transaction.atomic():
        response = planner_client.generic("POST", "/api/campuses/import/", body, content_type=content_type)
        assert response.status_code in (201, 400), response.content
        if response.status_code == 400:
            assert all(e["path"] and e["message"] for e in response.json()["errors"])
            assert inventory_counts() == before
        transaction.set_rollback(True)
