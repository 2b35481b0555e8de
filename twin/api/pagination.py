import re

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


class TwinPagination(BoundedOffsetPagination):
    """?limit=&offset= paging, NetBox style; ``limit`` is capped so one request stays bounded."""

    default_limit = 50
    max_limit = 1000


class ChangePagination(BoundedOffsetPagination):
    """Change-log pages: each entry is diffed against its predecessor, so pages stay smaller."""

    default_limit = 50
    max_limit = 200
