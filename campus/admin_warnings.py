"""The admin's redundancy warnings: a save or delete that takes a campus below its declared redundancy is
kept (the admin has no strict mode) and says so with a Django messages warning on the next page
(``campus.redundancy_guard``, the same guard as the API's writes)."""

from __future__ import annotations

from django.contrib import messages

from campus.integrity import campus_of
from campus.models import Campus
from campus.redundancy_guard import guarded


class RedundancyWarningsAdmin:
    """Saves and deletions of a model admin judged by the redundancy guard; its warnings as messages."""

    def _guarded(self, request, campus_ids, write, new_campus: bool = False) -> None:
        ids = [c for c in campus_ids if c is not None]
        # a catalog row (no campus) may change any campus: every campus is watched; a new campus, none
        with guarded(False, ids if ids or new_campus else None) as guard:
            write()
        for warning in guard.warnings:
            messages.warning(request, f"Campus {warning['campus']}: {warning['message']}")

    def save_model(self, request, obj, form, change):
        fresh = type(obj)._default_manager.filter(pk=obj.pk).first() if obj.pk else None
        ids = [campus_of(obj), campus_of(fresh) if fresh is not None else None]
        self._guarded(
            request,
            ids,
            lambda: super(RedundancyWarningsAdmin, self).save_model(request, obj, form, change),
            new_campus=isinstance(obj, Campus) and fresh is None,
        )

    def delete_model(self, request, obj):
        self._guarded(
            request, [campus_of(obj)], lambda: super(RedundancyWarningsAdmin, self).delete_model(request, obj)
        )

    def delete_queryset(self, request, queryset):
        ids = {campus_of(o) for o in queryset}
        self._guarded(
            request, ids, lambda: super(RedundancyWarningsAdmin, self).delete_queryset(request, queryset)
        )
