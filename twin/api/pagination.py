from rest_framework.pagination import LimitOffsetPagination


class TwinPagination(LimitOffsetPagination):
    """?limit=&offset= paging, NetBox style; ``limit`` is capped so one request stays bounded."""

    default_limit = 50
    max_limit = 1000


class ChangePagination(LimitOffsetPagination):
    """Change-log pages: each entry is diffed against its predecessor, so pages stay smaller."""

    default_limit = 50
    max_limit = 200
