from django.db.models import QuerySet
from rest_framework.pagination import LimitOffsetPagination

# PostgreSQL's LIMIT and OFFSET are bigints, so offset + limit must stay below 2**63: an offset beyond this
# (beyond every row anyway) is read as this one and answers an empty page, never a database error.
MAX_OFFSET = 2**62


class BoundedOffsetPagination(LimitOffsetPagination):
    """?limit=&offset= paging with the offset bounded by what every supported database holds."""

    def get_offset(self, request) -> int:
        return min(super().get_offset(request), MAX_OFFSET)


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
        self.request = request
        self.limit = self.get_limit(request)
        if self.limit is None:
            return None
        self.count = self.get_count(queryset)
        self.offset = self.get_offset(request)
        if self.count > self.limit and self.template is not None:
            self.display_page_controls = True
        if self.count == 0 or self.offset > self.count:
            return []
        keys = list(queryset.values_list("pk", flat=True)[self.offset : self.offset + self.limit])
        rows = {obj.pk: obj for obj in queryset.filter(pk__in=keys)} if keys else {}
        return [rows[key] for key in keys if key in rows]


class ChangePagination(BoundedOffsetPagination):
    """Change-log pages: each entry is diffed against its predecessor, so pages stay smaller."""

    default_limit = 50
    max_limit = 200
