import re
import threading
from collections import OrderedDict
from urllib import parse

from django.core.exceptions import EmptyResultSet
from django.db import connections, models
from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

# PostgreSQL's LIMIT and OFFSET are bigints, so offset + limit must stay below 2**63: an offset beyond this
# (beyond every row anyway) is read as this one and answers an empty page, never a database error.
MAX_OFFSET = 2**62

_DIGITS = re.compile(r"[0-9]+")


class BoundedOffsetPagination(LimitOffsetPagination):
    """?limit=&offset= paging with the offset bounded by what every supported database holds.

    A ``limit`` that is not a positive integer or an ``offset`` that is not a non-negative one is a 400 naming
    it (DRF would answer the first page as if the parameter were absent). A limit above ``max_limit`` is
    capped; an empty value is the parameter's absence."""

    def _integer(self, request, name: str, minimum: int) -> int | None:
        raw = request.query_params.get(name, "")
        if raw == "":
            return None
        if _DIGITS.fullmatch(raw):
            digits = raw.lstrip("0") or "0"
            # Beyond every cap and bound anyway (and int() refuses thousands of digits).
            value = int(digits) if len(digits) <= 30 else 10**30
            if value >= minimum:
                return value
        kind = "a positive" if minimum > 0 else "a non-negative"
        raise ValidationError({name: [f"Must be {kind} integer; got {raw[:40]!r}."]})

    def get_limit(self, request) -> int | None:
        if not self.limit_query_param:
            return self.default_limit
        limit = self._integer(request, self.limit_query_param, 1)
        if limit is None:
            return self.default_limit
        return min(limit, self.max_limit) if self.max_limit else limit

    def get_offset(self, request) -> int:
        offset = self._integer(request, self.offset_query_param, 0)
        return 0 if offset is None else min(offset, MAX_OFFSET)

    # The next and previous links: REST framework's, with the request's URL split and its query parsed once
    # for both (its replace_query_param splits, parses and encodes the whole URL again for each parameter of
    # each link, four times a page). The links are the same (tests/api/test_page_links.py).

    def _link_parts(self) -> tuple:
        parts = getattr(self, "_twin_link_parts", None)
        if parts is None or parts[0] is not self.request:
            scheme, netloc, path, query, fragment = parse.urlsplit(self.request.build_absolute_uri())
            params = parse.parse_qs(query, keep_blank_values=True)
            params[self.limit_query_param] = [str(self.limit)]
            parts = (self.request, scheme, netloc, path, params, fragment)
            self._twin_link_parts = parts
        return parts

    def _link(self, offset: int | None) -> str:
        _, scheme, netloc, path, params, fragment = self._link_parts()
        params = dict(params)
        if offset is None:
            params.pop(self.offset_query_param, None)
        else:
            params[self.offset_query_param] = [str(offset)]
        query = parse.urlencode(sorted(params.items()), doseq=True)
        return parse.urlunsplit((scheme, netloc, path, query, fragment))

    def get_next_link(self):
        if self.offset + self.limit >= self.count:
            return None
        return self._link(self.offset + self.limit)

    def get_previous_link(self):
        if self.offset <= 0:
            return None
        return self._link(None if self.offset - self.limit <= 0 else self.offset - self.limit)


class TwinPagination(BoundedOffsetPagination):
    """?limit=&offset= paging, NetBox style; ``limit`` is capped so one request stays bounded.

    A page of a queryset that joins related rows (``select_related``) is read in two steps: the page's
    primary keys in the list's order (a query that sorts keys, not joined rows), then those rows with their
    joins and prefetches. Ordering and offsetting thousands of joined rows to keep 50 was most of the cost of
    a deep page."""

    default_limit = 50
    max_limit = 1000

    def paginate_queryset(self, queryset, request, view=None):
        if not isinstance(queryset, QuerySet) or not queryset.query.select_related or queryset.query.distinct:
            return super().paginate_queryset(queryset, request, view)
        keys = self.page_keys(queryset, request)
        if keys is None:
            return None
        # In the keys' order below: the rows need no ORDER BY (nor the joins an ordering may bring).
        rows = {obj.pk: obj for obj in queryset.filter(pk__in=keys).order_by()} if keys else {}
        return [rows[key] for key in keys if key in rows]

    @staticmethod
    def kept_statements(model, db: str, shape: tuple | None) -> tuple | None:
        """The count and keys statements kept for a request ``shape`` of this model's list, where they are kept
        and plain (``page_keys`` then needs no filtered queryset: pass them to it), else ``None``."""
        if shape is None or not KEEP_STATEMENTS:
            return None
        with _kept_lock:
            statements = _KEPT.get((*shape, model, db))
        return statements or None  # None where not kept, not plain or empty (those take the full path)

    def page_keys(self, queryset, request, shape: tuple | None = None, statements=None) -> list | None:
        """The primary keys of the requested page in the list's order (``None`` when the request is not
        paged), with the count and the page controls set as ``paginate_queryset`` sets them.

        ``shape``, where given, names everything the filtered list's statements depend on but the page (its
        view and the request's parameters other than ``limit`` and ``offset``): the statements compiled for
        it are kept and run again, with the page's numbers, for the next request of that shape."""
        self.request = request
        self.limit = self.get_limit(request)
        if self.limit is None:
            return None
        self.offset = self.get_offset(request)
        keys, count = self._keys_and_count(queryset, shape, statements)
        self.count = count
        if self.count > self.limit and self.template is not None:
            self.display_page_controls = True
        return keys

    def _keys_and_count(self, queryset, shape: tuple | None = None, statements=None) -> tuple[list, int]:
        """The list's count, then the page's keys (none past the end). Not a ``COUNT(*) OVER ()`` beside each
        key: PostgreSQL then reads every row of the list to number the page (1.5 ms for a campus of 3,133
        racks, against 0.5 ms for the count and the keys apart); on PostgreSQL the two are subqueries of one
        statement instead (docs/performance.md)."""
        compiled = _compiled_keys_and_count(queryset, self.offset, self.limit, shape, statements)
        if compiled is not None:
            return compiled
        count = self.get_count(queryset)
        if count == 0 or self.offset >= count:
            return [], count
        return list(queryset.values_list("pk", flat=True)[self.offset : self.offset + self.limit]), count


_PLAIN_KEYS = (models.AutoField, models.BigAutoField, models.SmallAutoField, models.IntegerField)


# shape -> the filtered list's count and keys statements (count SQL, its parameters, keys SQL without the
# page, its parameters), or EMPTY where no row can match, or None where the list is not a plain one; bounded.
_KEPT: OrderedDict[tuple, tuple | None] = OrderedDict()
_KEPT_MAX = 512
_kept_lock = threading.Lock()
_MISSING = object()
EMPTY = ()
# Whether statements are kept for shapes at all (tests compare the answers with and without).
KEEP_STATEMENTS = True


def forget() -> None:
    with _kept_lock:
        _KEPT.clear()


def _statements(queryset) -> tuple | None:
    """The count statement and the unpaged keys statement of a filtered list, compiled."""
    query = queryset.query
    if (
        query.distinct
        or query.combinator
        or query.is_sliced
        or query.extra
        or query.annotations
        or query.group_by is not None
        or not isinstance(queryset.model._meta.pk, _PLAIN_KEYS)
    ):
        return None
    db = queryset.db
    try:
        count_sql, count_params = queryset.order_by().values_list("pk").query.get_compiler(db).as_sql()
        keys_sql, keys_params = queryset.values_list("pk").query.get_compiler(db).as_sql()
    except EmptyResultSet:  # a filter no row can match (``pk__in=[]``): the ORM asks nothing either
        return EMPTY
    return count_sql, tuple(count_params), keys_sql, tuple(keys_params)


def _compiled_keys_and_count(queryset, offset: int, limit: int, shape: tuple | None = None, statements=None):
    """The list's count and the page's keys from the filtered list's statements, compiled once each (and,
    for a request ``shape``, kept for the next request of that shape) and run through Django's cursor:
    ``QuerySet.count()`` and a sliced ``values_list`` build and compile their queries again and again
    (aggregation clones, iterables, converters), most of the Python cost of both. The count is
    ``SELECT COUNT(*)`` over the list's keys, unordered (as ``count()`` does); the keys keep the list's order,
    the page added as Django adds it (``LIMIT n OFFSET m``, the numbers written into the statement, so that
    PostgreSQL plans each page as it would the ORM's). ``None`` where the list is not a plain filtered one
    (distinct, grouped, annotated, sliced, combined, extra) or its keys need converting: the caller then asks
    the ORM. On PostgreSQL both are one statement (the keys as an array beside the count)."""
    if statements is None:
        statements = _MISSING
    if statements is _MISSING and shape is not None and KEEP_STATEMENTS:
        shape = (*shape, queryset.model, queryset.db)
        with _kept_lock:
            statements = _KEPT.get(shape, _MISSING)
            if statements is not _MISSING:
                _KEPT.move_to_end(shape)
    if statements is _MISSING:
        statements = _statements(queryset)
        if shape is not None and KEEP_STATEMENTS:
            with _kept_lock:
                _KEPT[shape] = statements
                while len(_KEPT) > _KEPT_MAX:
                    _KEPT.popitem(last=False)
    if statements is None:
        return None
    if statements is EMPTY:
        return [], 0
    count_sql, count_params, keys_sql, keys_params = statements
    page = f" LIMIT {int(limit)} OFFSET {int(offset)}"
    connection = connections[queryset.db]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One round trip: the count and the page's keys (in the list's order) as one row.
            cursor.execute(
                f"SELECT (SELECT COUNT(*) FROM ({count_sql}) counted), ARRAY({keys_sql}{page})",
                (*count_params, *keys_params),
            )
            count, keys = cursor.fetchone()
            return (keys if offset < count else []), count
        cursor.execute(f"SELECT COUNT(*) FROM ({count_sql}) counted", count_params)
        count = cursor.fetchone()[0]
        if count == 0 or offset >= count:
            return [], count
        cursor.execute(f"{keys_sql}{page}", keys_params)
        return [row[0] for row in cursor.fetchall()], count


class ChangePagination(BoundedOffsetPagination):
    """Change-log pages: each entry is diffed against its predecessor, so pages stay smaller."""

    default_limit = 50
    max_limit = 200
