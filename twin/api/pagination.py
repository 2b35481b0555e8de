from rest_framework.pagination import LimitOffsetPagination

# PostgreSQL's LIMIT and OFFSET are bigints, so offset + limit must stay below 2**63: an offset beyond this
# (beyond every row anyway) is read as this one and answers an empty page, never a database error.
MAX_OFFSET = 2**62


class BoundedOffsetPagination(LimitOffsetPagination):
    """?limit=&offset= paging with the offset bounded by what every supported database holds."""

    def get_offset(self, request) -> int:
        return min(super().get_offset(request), MAX_OFFSET)


class TwinPagination(BoundedOffsetPagination):
    """?limit=&offset= paging, NetBox style; ``limit`` is capped so one request stays bounded."""

    default_limit = 50
    max_limit = 1000


class ChangePagination(BoundedOffsetPagination):
    """Change-log pages: each entry is diffed against its predecessor, so pages stay smaller."""

    default_limit = 50
    max_limit = 200
