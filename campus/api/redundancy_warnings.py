"""``warnings`` on API writes that take a campus below its declared redundancy, and ``?strict=true``
(``campus.redundancy_guard``; docs/api.md, "Redundancy warnings").

``RedundancyWarningsMixin`` sits on the campus app's inventory and catalog viewsets: each write (create,
update, delete, bulk) opens a guard on the campuses it touches before it writes, and the guard compares
their levels after it inside the same transaction, once the integrity rules pass. The answer carries the
warnings: an object's body gains ``warnings``; a bulk list is answered as ``{"results": [...], "warnings":
[...]}``; a delete answers 200 with ``{"warnings": [...]}`` instead of 204. Nothing changes in an answer
without warnings. With ``?strict=true`` a warning is a 409 (``{"detail", "warnings"}``) and nothing is
written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers, status

from campus import models
from campus.integrity import campus_of
from campus.redundancy_guard import RedundancyGuard, RedundancyShortfall, guarded
from twin.api.exceptions import Conflict
from twin.api.schema import TwinAutoSchema

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}
WARNINGS_KEY = "warnings"


def strict_flag(request) -> bool:
    """``?strict=``: true turns a redundancy warning into a 409; anything but a boolean is a 400."""
    value = (request.query_params.get("strict") or "").strip().lower() if request is not None else ""
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise serializers.ValidationError({"strict": ["Must be a boolean: true or false."]})


def shortfall_conflict(exc: RedundancyShortfall) -> Conflict:
    """The 409 of a strict write: ``{"detail", "warnings"}``, the warnings with their numbers as numbers."""
    conflict = Conflict()
    # set after construction: APIException would turn every number of the warnings into a string
    conflict.detail = {  # type: ignore[assignment]
        "detail": "The write would take a campus below its declared redundancy; nothing was written (strict).",
        WARNINGS_KEY: exc.warnings,
    }
    return conflict


def with_warnings(response, warnings: list[dict]):
    """The write's answer carrying ``warnings`` (see the module's docstring)."""
    if not warnings or response.status_code >= 300 and response.status_code != status.HTTP_204_NO_CONTENT:
        return response
    data = response.data
    if isinstance(data, dict):
        data[WARNINGS_KEY] = warnings
    elif isinstance(data, list):
        response.data = {"results": data, WARNINGS_KEY: warnings}
    else:
        response.status_code = status.HTTP_200_OK
        response.data = {WARNINGS_KEY: warnings}
    return response


T = TypeVar("T")

STRICT_PARAMETER = OpenApiParameter(
    "strict",
    OpenApiTypes.BOOL,
    description="true: a write that would take a campus below its declared redundancy is a 409 "
    "(`{detail, warnings}`) and writes nothing; else it is written and its answer carries `warnings` "
    '(docs/api.md, "Redundancy warnings").',
    required=False,
)


GUARDED_ACTIONS = frozenset(
    {
        "create",
        "update",
        "partial_update",
        "destroy",
        "bulk_update",
        "bulk_partial_update",
        "bulk_destroy",
        "merge",
    }
)


class RedundancyWarningsSchema(TwinAutoSchema):
    """The project's schema, with ``strict`` on every write of a view that takes it."""

    def get_override_parameters(self):
        params = super().get_override_parameters()
        if getattr(self.view, "action", None) in GUARDED_ACTIONS:
            params = [*params, STRICT_PARAMETER]
        return params


def run_guarded(request, campus_ids: Iterable[int | None], write: Callable[[], T]) -> tuple[T, list[dict]]:
    """``write()`` (a spec import, a branch merge) in one transaction under a guard on ``campus_ids`` (a new
    campus needs none: it is judged from nothing): its result and its warnings; strict, a 409."""
    return run_with_guard(request, campus_ids, lambda guard: write())


def run_with_guard(
    request, campus_ids: Iterable[int | None], write: Callable[[RedundancyGuard], T]
) -> tuple[T, list[dict]]:
    """``run_guarded`` for a write that tells the guard more as it goes (a branch: ``guard.inherit``)."""
    strict = strict_flag(request)
    try:
        with guarded(strict, [c for c in campus_ids if c is not None]) as guard:
            result = write(guard)
    except RedundancyShortfall as exc:
        raise shortfall_conflict(exc) from None
    return result, guard.warnings


class GuardedCheck:
    """A write check (``campus.integrity.WriteCheck``) whose final state is also judged for redundancy."""

    def __init__(self, check, guard: RedundancyGuard) -> None:
        self.check, self.guard = check, guard

    def note(self, obj) -> None:
        if self.check is not None:
            self.check.note(obj)

    def problems(self) -> list:
        problems = self.check.problems() if self.check is not None else []
        if problems:
            return problems
        try:
            self.guard.finish()
        except RedundancyShortfall as exc:
            raise shortfall_conflict(exc) from None
        return []


def _campus_of_data(data) -> int | None:
    """The campus an object about to be created belongs to, from its validated data."""
    if not isinstance(data, dict):
        return None
    for key in ("campus", "building", "hall", "row", "rack"):
        value = data.get(key)
        if value is not None:
            return campus_of(value)
    return None


class RedundancyWarningsMixin:
    """Warnings (or, strict, a 409) for writes that take a campus below its declared redundancy."""

    schema = RedundancyWarningsSchema()
    _guard: RedundancyGuard | None = None
    _watched: list[int | None] | None = None

    def guarded_check(self, check) -> GuardedCheck:
        """``check`` (the view's ``WriteCheck``) with a guard opened on the campuses the write touches."""
        guard = RedundancyGuard(strict=strict_flag(getattr(self, "request", None)))
        watched = self._watched
        if watched is None or (watched and all(c is None for c in watched)):
            guard.watch_all()  # the catalog, or a write whose campus is not known before it
        else:
            guard.watch(watched)
        self._guard = guard
        return GuardedCheck(check, guard)

    def perform_create(self, serializer):
        data = serializer.validated_data
        self._watched = [_campus_of_data(d) for d in (data if isinstance(data, list) else [data])]
        if self.queryset is not None and self.queryset.model is models.Campus:
            self._watched = []  # a new campus: no other campus to watch
        super().perform_create(serializer)

    def perform_update(self, serializer):
        self._watched = [campus_of(serializer.instance), _campus_of_data(serializer.validated_data)]
        super().perform_update(serializer)

    def perform_destroy(self, instance):
        self._watched = [campus_of(instance)]
        super().perform_destroy(instance)

    def _bulk_campuses(self, request) -> None:
        ids = (
            [item.get("id") for item in request.data if isinstance(item, dict)]
            if isinstance(request.data, list)
            else []
        )
        ids = [i for i in ids if isinstance(i, int)]
        objs = self.filter_queryset(self.get_queryset()).in_bulk(ids).values() if ids else []
        self._watched = [campus_of(o) for o in objs]
        for item in request.data if isinstance(request.data, list) else []:
            if isinstance(item, dict):
                for key in ("campus", "building", "hall", "rack"):
                    if isinstance(item.get(key), int):
                        self._watched.append(self._campus_of_ref(key, item[key]))

    @staticmethod
    def _campus_of_ref(key: str, pk: int) -> int | None:
        model = {
            "campus": models.Campus,
            "building": models.Building,
            "hall": models.DataHall,
            "rack": models.Rack,
        }[key]
        obj = model.objects.filter(pk=pk).first()
        return campus_of(obj) if obj is not None else None

    def bulk_update(self, request, *args, **kwargs):
        self._bulk_campuses(request)
        return super().bulk_update(request, *args, **kwargs)

    def bulk_partial_update(self, request, *args, **kwargs):
        self._bulk_campuses(request)
        return super().bulk_partial_update(request, *args, **kwargs)

    def bulk_destroy(self, request, *args, **kwargs):
        self._bulk_campuses(request)
        return super().bulk_destroy(request, *args, **kwargs)

    def finalize_response(self, request, response, *args, **kwargs):
        guard = self._guard
        if guard is not None and guard.warnings:
            response = with_warnings(response, guard.warnings)
        return super().finalize_response(request, response, *args, **kwargs)
