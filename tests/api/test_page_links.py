"""A page's next and previous links (twin.api.pagination: the request's URL parsed once for both links): the
truth is REST framework's own links, made by its replace_query_param and remove_query_param, for any query
string, page size, offset and count."""

from urllib.parse import quote

from django.test import RequestFactory
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.request import Request
from rest_framework.utils.urls import remove_query_param, replace_query_param

from twin.api.pagination import TwinPagination

_TEXT = st.text(alphabet=st.sampled_from("ab=&+%;?# é/\u2603_0"), max_size=8)


def _rest_framework_links(request, limit: int, offset: int, count: int) -> tuple[str | None, str | None]:
    """REST framework's LimitOffsetPagination.get_next_link and get_previous_link, as it writes them."""
    url = request.build_absolute_uri()
    with_limit = replace_query_param(url, "limit", limit)
    following = None if offset + limit >= count else replace_query_param(with_limit, "offset", offset + limit)
    if offset <= 0:
        preceding = None
    elif offset - limit <= 0:
        preceding = remove_query_param(with_limit, "offset")
    else:
        preceding = replace_query_param(with_limit, "offset", offset - limit)
    return following, preceding


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(st.tuples(_TEXT, _TEXT), max_size=5),
    raw=_TEXT,
    limit=st.integers(1, 1000),
    offset=st.integers(0, 5000),
    count=st.integers(0, 6000),
)
def test_the_links_are_rest_frameworks(pairs, raw, limit, offset, count):
    query = "&".join(f"{quote(k)}={quote(v)}" for k, v in pairs)
    if raw:
        query = f"{query}&{raw}" if query else raw
    request = Request(RequestFactory().get(f"/api/racks/?{query}"))
    paginator = TwinPagination()
    paginator.request, paginator.limit, paginator.offset, paginator.count = request, limit, offset, count
    assert (paginator.get_next_link(), paginator.get_previous_link()) == _rest_framework_links(
        request, limit, offset, count
    )


def test_a_second_request_on_the_same_paginator_gets_its_own_links():
    paginator = TwinPagination()
    paginator.limit, paginator.offset, paginator.count = 10, 10, 100
    for path in ("/api/racks/?campus=1", "/api/racks/?campus=2"):
        paginator.request = Request(RequestFactory().get(path))
        assert f"campus={path[-1]}" in paginator.get_next_link()
        assert f"campus={path[-1]}" in paginator.get_previous_link()
