"""Errors as answers: model validation → 400 naming the field, constraint violations and protected
references → 409, oversized bodies → 413. Nothing a client sends should end in a 500."""

from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, router
from django.db.models import ProtectedError, RestrictedError
from django.db.models.deletion import Collector
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from twin.api.serializers.base import model_errors


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Conflicts with existing data."
    default_code = "conflict"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "Request too large."
    default_code = "too_large"


def _protected_detail(exc) -> str:
    objs = list(getattr(exc, "protected_objects", None) or getattr(exc, "restricted_objects", None) or [])
    kinds = sorted({obj._meta.verbose_name for obj in objs})
    return f"Cannot delete: still referenced by {len(objs)} object(s) ({', '.join(kinds)})."


def dependents_problem(instance) -> str | None:
    """Why ``instance`` may not be deleted while others depend on it (the reverse relations its model names
    in ``DEPENDENTS``: a supplier whose deletion would silently cascade into, or unlink, other inventory), or
    None. Containers name none: deleting them is explicit."""
    counts: dict[str, int] = {}
    for accessor in getattr(type(instance), "DEPENDENTS", ()):
        manager = getattr(instance, accessor)
        n = manager.count()
        if n:
            kind = str(manager.model._meta.verbose_name)
            counts[kind] = counts.get(kind, 0) + n
    if not counts and getattr(type(instance), "CONTAINER", False):
        counts = _unlinked_outside(instance)
    if not counts:
        return None
    name = getattr(instance, "name", None) or str(instance)
    return dependents_detail(counts, name)


def _unlinked_outside(instance) -> dict[str, int]:
    """What deleting a container (``CONTAINER`` on its model: a building, a hall) would rewire outside it,
    by kind: an element it does not hold (placed in another building or hall, or in none) whose reference to
    something it holds would be set to null (a cooling unit of another building served by a plant of this
    one), and a power feed from something it holds into something it does not (deleted with it).
    Deleting the container deletes what it holds; the others would be rewired without a word."""
    halls = set(instance.halls.values_list("pk", flat=True)) if hasattr(instance, "halls") else {instance.pk}
    building = instance.pk if hasattr(instance, "halls") else None

    def held(obj) -> bool:
        if building is not None and getattr(obj, "building_id", None) == building:
            return True
        return getattr(obj, "hall_id", None) in halls

    collector = Collector(using=router.db_for_write(type(instance)))
    collector.collect([instance])
    doomed = {(model, obj.pk) for model, objs in collector.data.items() for obj in objs}
    counts: dict[str, int] = {}
    seen: set[tuple] = set()

    def count(obj) -> None:
        key = (type(obj), obj.pk)
        if key not in seen:
            seen.add(key)
            kind = str(type(obj)._meta.verbose_name)
            counts[kind] = counts.get(kind, 0) + 1

    for (field, value), batches in collector.field_updates.items():
        if value is not None or not field.is_relation:
            continue  # the stamp written beside a null (``SET_NULL_STAMPED``)
        for batch in batches:
            for obj in batch:
                if (type(obj), obj.pk) not in doomed and not held(obj):
                    count(obj)
    # a feed into an element it does not hold (a link goes with its rack or switch: nothing else loses power)
    ends = {"PowerFeed": ("downstream_device", "rack")}
    for model, objs in collector.data.items():
        names = ends.get(model.__name__)
        if not names or model._meta.app_label != "campus":
            continue
        for obj in objs:
            for name in names:
                target = getattr(obj, f"{name}_id")
                related = model._meta.get_field(name).related_model
                if target is not None and (related, target) not in doomed:
                    count(obj)
    return counts


def dependents_detail(counts: dict[str, int], name: str) -> str:
    """The 409 of deleting an element others depend on, in the words of the protected-reference 409:
    ``{"power feed": 2, "cooling unit": 1}`` → 'Cannot delete "PDU-A": still referenced by 3 object(s) (1
    cooling unit(s), 2 power feed(s)) ...'."""
    total = sum(counts.values())
    kinds = ", ".join(f"{n} {kind}(s)" for kind, n in sorted(counts.items()))
    return (
        f'Cannot delete "{name}": still referenced by {total} object(s) ({kinds}) that depend on it; '
        "delete them or point them elsewhere first."
    )


def exception_handler(exc, context):
    """DRF's handler, plus model validation (400) and database constraint violations (409) instead of 500s."""
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(detail=model_errors(exc))
    elif isinstance(exc, ProtectedError | RestrictedError):
        exc = Conflict(_protected_detail(exc))
    elif isinstance(exc, IntegrityError):
        return Response({"detail": f"Conflicts with existing data: {exc}"}, status=status.HTTP_409_CONFLICT)
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(str(exc) or PayloadTooLarge.default_detail)
    return drf_exception_handler(exc, context)


def field_error(
    exc: ValueError, rename: dict[str, str] | None = None, default_field: str = "non_field_errors"
):
    """A ValidationError from the analyses' ``ValueError("<field>: message")`` convention."""
    text = str(exc)
    field, sep, message = text.partition(": ")
    if not sep or not field.replace("_", "").replace("-", "").isalnum():
        field, message = default_field, text
    field = (rename or {}).get(field, field)
    return exceptions.ValidationError({field: [message]})


def error_paths(errors, prefix: str = "") -> dict:
    """Nested serializer errors keyed by the path of the bad value, as the spec importer and scenario
    parameters name them: ``{"rates": {"0": {"foo": [...]}}}`` → ``{"rates[0].foo": [...]}``."""
    if isinstance(errors, list) and not any(isinstance(e, dict | list) for e in errors):
        return {prefix or "non_field_errors": errors}
    items = errors.items() if isinstance(errors, dict) else enumerate(errors)
    out: dict = {}
    for key, value in items:
        if isinstance(key, int) or str(key).isdigit():
            path = f"{prefix}[{key}]"
        elif key == "non_field_errors" and prefix:
            path = prefix
        else:
            path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict | list) and value:
            for sub, messages in error_paths(value, path).items():
                out.setdefault(sub, []).extend(messages)
    return out
