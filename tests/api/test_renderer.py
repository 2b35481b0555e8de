"""The API's JSON renderer (``twin.api.renderers``) against REST framework's own ``JSONRenderer``: the same
document for every value the API writes, the same bytes where REST framework's form is fixed."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import uuid

import numpy as np
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from twin.api.renderers import TwinJSONRenderer

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


def both(value, media_type=None):
    return TwinJSONRenderer().render(value, media_type), JSONRenderer().render(value, media_type)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_document_reads_back_as_rest_frameworks(value):
    ours, theirs = both(value)
    if value is None:  # no body at all, as REST framework writes for None
        assert ours == theirs == b""
        return
    assert json.loads(ours) == json.loads(theirs)


def test_strings_and_integers_are_byte_for_byte_rest_frameworks():
    value = {"name": "Hall \u00e9 \u2014 B1", "racks": [1, 2, 3], "nested": {"a": None, "b": True}, "e": ""}
    ours, theirs = both(value)
    assert ours == theirs


def test_line_separators_are_escaped_as_rest_framework_escapes_them():
    ours, theirs = both({"note": "a\u2028b\u2029c"})
    assert ours == theirs == b'{"note":"a\\u2028b\\u2029c"}'


def test_types_beyond_json_are_written_by_rest_frameworks_encoder():
    when = dt.datetime(2026, 11, 23, 15, 4, 5, 678901, tzinfo=dt.UTC)
    value = {
        "when": when,
        "day": dt.date(2026, 11, 23),
        "time": dt.time(7, 30),
        "span": dt.timedelta(hours=1, seconds=1),
        "price": decimal.Decimal("0.078"),
        "id": uuid.UUID(int=7),
        "lazy": gettext_lazy("Not found."),
        "set": {3},
        "bytes": b"kW",
        1: "integer key",
    }
    ours, theirs = both(value)
    assert json.loads(ours) == json.loads(theirs)
    # REST framework's own forms: UTC as Z, a Decimal as a number.
    assert json.loads(ours)["when"] == "2026-11-23T15:04:05.678901Z"
    assert json.loads(ours)["price"] == 0.078


def test_numpy_values_are_their_python_values():
    value = {
        "kw": np.float64(40.8),
        "racks": np.int64(4),
        "ok": np.bool_(True),
        "series": np.array([1.5, 2.0]),
    }
    ours, theirs = both(value)
    assert (
        json.loads(ours) == json.loads(theirs) == {"kw": 40.8, "racks": 4, "ok": True, "series": [1.5, 2.0]}
    )


def test_a_float_that_is_not_finite_is_null_where_rest_framework_fails():
    assert json.loads(TwinJSONRenderer().render({"pue": math.nan, "kw": math.inf})) == {
        "pue": None,
        "kw": None,
    }


def test_an_indented_body_is_rest_frameworks_own():
    value = {"a": [1, 2.5, "x"], "b": {"c": None}}
    ours, theirs = both(value, "application/json; indent=4")
    assert ours == theirs
    assert b"\n    " in ours


def test_the_api_answers_with_it(viewer_client):
    response = viewer_client.get("/api/gpu-models/?limit=1")
    assert response.status_code == 200
    assert isinstance(response.accepted_renderer, TwinJSONRenderer)
