"""Behaviour shared by the model viewsets of every app: brief mode, bulk writes, history, conditional GET."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404
from django.utils.http import http_date
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.metadata import SimpleMetadata
from rest_framework.request import clone_request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from twin.api import history
from twin.api.exceptions import Conflict, PayloadTooLarge, dependents_problem
from twin.api.pagination import ChangePagination
from twin.api.serializers import ChangeSerializer

# Most objects one bulk request may carry; larger lists get a 413 (split them).
MAX_BULK_OBJECTS = 5000
TRUE_VALUES = {"1", "true", "yes", "on"}

BRIEF_PARAMETER = OpenApiParameter(
    "brief",
    OpenApiTypes.BOOL,
    description="Return brief objects ({id, url, name}) instead of full ones.",
    required=False,
)


class BulkIdSerializer(serializers.Serializer):
    id = serializers.IntegerField(min_value=1)


def _is_brief(request) -> bool:
    if request is None:
        return False
    params = request.query_params
    # Asked first: a QueryDict's get() of an absent key raises and catches a KeyError inside.
    return "brief" in params and params.get("brief", "").lower() in TRUE_VALUES


class BriefModeMixin:
    """``?brief=1`` returns each object's ``Meta.brief_fields`` only (and skips the heavy prefetches)."""

    brief_prefetch: tuple = ()

    @property
    def brief(self) -> bool:
        return _is_brief(getattr(self, "request", None))

    def get_serializer(self, *args, **kwargs):
        if self.brief and "brief" not in kwargs:
            kwargs["brief"] = True
        return super().get_serializer(*args, **kwargs)

    def get_queryset(self):
        qs = super().get_queryset()
        if not self.brief and getattr(self, "full_prefetch", None):
            qs = qs.prefetch_related(*self.full_prefetch())
        return qs


class AtomicWriteMixin:
    """Each write in a savepoint, so a constraint error (→ 409) leaves the connection usable.

    ``write_check()`` may return an object with ``note(obj)`` and ``problems()`` (``campus.integrity``):
    every written object is noted before and after the change, and any problem of the final state undoes
    the whole request with a 400 naming the field (keyed by list index in a bulk request)."""

    def write_check(self):
        return None

    def verify(self, check, index: dict | None = None) -> None:
        if check is None:
            return
        problems = check.problems()
        if not problems:
            return
        errors: dict = {}
        for problem in problems:
            at = index.get(problem.obj) if index is not None else None
            target = errors.setdefault(str(at), {}) if at is not None else errors
            target.setdefault(problem.field, []).append(problem.message)
        raise serializers.ValidationError(errors)

    def _saved(self, serializer, check) -> None:
        if check is not None and serializer.instance is not None:
            check.note(serializer.instance)
        if serializer.instance is not None:
            before = serializer.instance
            history.record_baselines(before if isinstance(before, list) else [before])
        serializer.save()
        if check is not None:
            check.note(serializer.instance)

    def perform_create(self, serializer):
        with transaction.atomic():
            check = self.write_check()
            serializer.save()
            many = isinstance(serializer.instance, list)
            created = serializer.instance if many else [serializer.instance]
            if check is not None:
                for obj in created:
                    check.note(obj)
            self.verify(check, _positions(created) if many else None)

    def perform_update(self, serializer):
        with transaction.atomic():
            check = self.write_check()
            self._saved(serializer, check)
            self.verify(check)

    def refuse_if_depended_on(self, instance) -> None:
        """409 when other elements depend on ``instance`` (``twin.api.exceptions.dependents_problem``)."""
        if message := dependents_problem(instance):
            raise Conflict(message)

    def perform_destroy(self, instance):
        with transaction.atomic():
            self.refuse_if_depended_on(instance)
            check = self.write_check()
            if check is not None:
                check.note(instance)
            instance.delete()
            self.verify(check)


def _index_errors(errors) -> dict:
    """Bulk errors as ``{"<list index>": {field: [messages]}}``."""
    if isinstance(errors, dict):
        if set(errors) <= {"non_field_errors"}:
            return errors
        return {str(index): error for index, error in errors.items() if error}
    return {str(index): error for index, error in enumerate(errors) if error}


def _positions(objs) -> dict:
    """``(model label, pk)`` → index in the request's list."""
    return {(obj._meta.label_lower, obj.pk): index for index, obj in enumerate(objs)}


class TwinMetadata(SimpleMetadata):
    """OPTIONS: on list routes PUT means bulk update (there is no single object to check), so only the
    POST form is described there."""

    def determine_actions(self, request, view):
        lookup = getattr(view, "lookup_url_kwarg", None) or getattr(view, "lookup_field", "pk")
        if lookup in getattr(view, "kwargs", {}):
            return super().determine_actions(request, view)
        actions = {}
        if "POST" in view.allowed_methods:
            view.request = clone_request(request, "POST")
            try:
                view.check_permissions(view.request)
            except (APIException, PermissionDenied, Http404):
                pass
            else:
                actions["POST"] = self.get_serializer_info(view.get_serializer())
            finally:
                view.request = request
        return actions


class BulkMixin:
    """POST a list to create, PUT/PATCH a list of objects with ``id`` to update, DELETE a list of ``{id}``.
    All or nothing: one bad object rejects the whole request, with errors keyed by list index."""

    metadata_class = TwinMetadata

    def get_serializer_context(self):
        # Serializers of a bulk request know it: rules judging a set of objects wait for the final state.
        context = super().get_serializer_context()
        request = getattr(self, "request", None)
        context["bulk"] = request is not None and request.method != "GET" and isinstance(request.data, list)
        return context

    def _check_size(self, data) -> None:
        if len(data) > MAX_BULK_OBJECTS:
            raise PayloadTooLarge(f"At most {MAX_BULK_OBJECTS} objects per bulk request; got {len(data)}.")
        if not data:
            raise serializers.ValidationError({"non_field_errors": ["Expected a non-empty list of objects."]})

    def create(self, request, *args, **kwargs):
        if not isinstance(request.data, list):
            return super().create(request, *args, **kwargs)
        self._check_size(request.data)
        serializer = self.get_serializer(data=request.data, many=True)
        if not serializer.is_valid():
            errors = serializer.errors
            return Response(_index_errors(errors), status=status.HTTP_400_BAD_REQUEST)
        with transaction.atomic():
            # The view's own create step (e.g. stamping the owner) applies to every object of the list.
            self.perform_create(serializer)
        return Response(serializer.data, status=status.HTTP_201_CREATED)

    def _bulk_targets(self, data) -> tuple[list, dict]:
        if not isinstance(data, list):
            raise serializers.ValidationError(
                {"non_field_errors": ["Expected a list of objects with an id."]}
            )
        self._check_size(data)
        errors: dict[str, dict] = {}
        ids: list[int] = []
        for index, item in enumerate(data):
            id_serializer = BulkIdSerializer(data=item) if isinstance(item, dict) else None
            if id_serializer is None:
                errors[str(index)] = {"non_field_errors": ["Expected an object."]}
            elif not id_serializer.is_valid():
                errors[str(index)] = id_serializer.errors
            else:
                ids.append(id_serializer.validated_data["id"])
        if errors:
            raise serializers.ValidationError(errors)
        if len(set(ids)) != len(ids):
            seen: set[int] = set()
            for index, pk in enumerate(ids):
                if pk in seen:
                    errors[str(index)] = {"id": [f"Object {pk} appears more than once."]}
                seen.add(pk)
            raise serializers.ValidationError(errors)
        objects = self.filter_queryset(self.get_queryset()).in_bulk(ids) if ids else {}
        for index, pk in enumerate(ids):
            if pk not in objects:
                errors[str(index)] = {"id": [f"No object with id {pk}."]}
        if errors:
            raise serializers.ValidationError(errors)
        return ids, objects

    def _bulk_update(self, request, partial: bool):
        ids, objects = self._bulk_targets(request.data)
        errors: dict[str, dict] = {}
        with transaction.atomic():
            check = self.write_check()
            saved = []
            for index, (pk, item) in enumerate(zip(ids, request.data, strict=True)):
                data = {k: v for k, v in item.items() if k != "id"}
                serializer = self.get_serializer(objects[pk], data=data, partial=partial)
                if not serializer.is_valid():
                    errors[str(index)] = serializer.errors
                    continue
                if not errors:
                    self._saved(serializer, check)
                    saved.append(serializer)
            if errors:
                transaction.set_rollback(True)
                return Response(errors, status=status.HTTP_400_BAD_REQUEST)
            self.verify(check, _positions([objects[pk] for pk in ids]))
        return Response([s.data for s in saved], status=status.HTTP_200_OK)

    def bulk_update(self, request, *args, **kwargs):
        return self._bulk_update(request, partial=False)

    def bulk_partial_update(self, request, *args, **kwargs):
        return self._bulk_update(request, partial=True)

    def bulk_destroy(self, request, *args, **kwargs):
        ids, objects = self._bulk_targets(request.data)
        with transaction.atomic():
            check = self.write_check()
            positions = _positions([objects[pk] for pk in ids])
            for pk in ids:
                self.refuse_if_depended_on(objects[pk])
                if check is not None:
                    check.note(objects[pk])
                objects[pk].delete()
            self.verify(check, positions)
        return Response(status=status.HTTP_204_NO_CONTENT)


class HistoryMixin:
    """``GET …/{id}/history/``: the object's changes, newest first."""

    @extend_schema(
        summary="Change history of this object",
        description="Who changed the object and when: + created, ~ changed (with each field's before and "
        "after), - deleted. Newest first, paginated.",
        responses=ChangeSerializer(many=True),
        examples=[
            OpenApiExample(
                "A rating change",
                response_only=True,
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "id": 42,
                            "model": "rack",
                            "object_id": 7,
                            "object_repr": "R-A01",
                            "type": "~",
                            "date": "2026-11-21T19:00:00Z",
                            "user": {"id": 2, "username": "planner"},
                            "reason": None,
                            "changes": [{"field": "design_kw", "old": 40.0, "new": 60.0}],
                        }
                    ],
                },
            )
        ],
        filters=False,
    )
    @action(
        detail=True,
        methods=["get"],
        filter_backends=[],
        pagination_class=ChangePagination,
        url_path="history",
    )
    def history(self, request, pk=None):
        model = self.get_queryset().model
        # The object may be deleted; its history stays readable.
        try:
            pk_int = int(pk)
        except (TypeError, ValueError):
            raise NotFound() from None
        qs = history.history_queryset(model, pk_int)
        page = self.paginate_queryset(qs)
        if not page and not qs.exists():
            raise NotFound()
        return self.get_paginated_response(ChangeSerializer(history.entries(page), many=True).data)


# Query parameters that never filter: a detail request carrying only these skips the filter backends.
NON_FILTER_PARAMETERS = frozenset({"brief", "format"})


class ConditionalGetMixin:
    """Detail responses carry Last-Modified (from ``last_updated``); ConditionalGetMiddleware adds the ETag
    and answers If-None-Match / If-Modified-Since with 304.

    A detail request without filter parameters skips the filter backends: with no parameters every filter,
    the search and the ordering leave the queryset as it is, and building the filter set is most of the
    cost of a small object's GET."""

    def _plain_retrieve(self) -> bool:
        return getattr(self, "action", None) == "retrieve" and not (
            set(self.request.query_params) - NON_FILTER_PARAMETERS
        )

    def filter_queryset(self, queryset):
        if self._plain_retrieve():
            return queryset
        return super().filter_queryset(queryset)

    def retrieve(self, request, *args, **kwargs):
        instance = self.get_object()
        response = Response(self.get_serializer(instance).data)
        stamp = getattr(instance, "last_updated", None)
        if stamp is not None:
            response["Last-Modified"] = http_date(stamp.timestamp())
        return response


# (view class, action) -> the query parameters that action reads
_KNOWN_PARAMETERS: dict[tuple[type, str], frozenset[str]] = {}


class QueryParametersMixin:
    """A list or detail request naming a query parameter the endpoint does not read is a 400 naming it and
    listing the ones it takes (``?rack__campus=1`` or ``?campuss=1`` would otherwise answer every campus' rows
    as if filtered), as the analytics endpoints answer.

    What an action reads is worked out from the view once per class: its filter backends' parameters (the
    filter set's filters, ``search`` where the view searches, ``ordering``), the paginator's (``limit``,
    ``offset``) on paginated actions, ``format``, ``brief`` on views with brief objects, and
    ``query_parameters``, the ones a view reads itself."""

    query_parameters: tuple[str, ...] = ()
    checked_query_actions: frozenset[str] = frozenset({"list", "retrieve", "history"})

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.query_params and getattr(self, "action", None) in self.checked_query_actions:
            known = self.known_query_parameters()
            unknown = [name for name in request.query_params if name not in known]
            if unknown:
                message = f"Unknown query parameter; this endpoint takes: {', '.join(sorted(known))}."
                raise ValidationError({name: [message] for name in unknown})

    def known_query_parameters(self) -> frozenset[str]:
        key = (type(self), self.action)
        known = _KNOWN_PARAMETERS.get(key)
        if known is None:
            names = {api_settings.URL_FORMAT_OVERRIDE, *self.query_parameters}
            if isinstance(self, BriefModeMixin):
                names.add("brief")
            for backend_class in self.filter_backends:
                backend = backend_class()
                if hasattr(backend, "query_parameter_names"):
                    names.update(backend.query_parameter_names(self))
                else:
                    names.update(p["name"] for p in backend.get_schema_operation_parameters(self))
            if self.action != "retrieve" and self.paginator is not None:
                names.update(p["name"] for p in self.paginator.get_schema_operation_parameters(self))
            known = _KNOWN_PARAMETERS[key] = frozenset(names - {None, ""})
        return known
