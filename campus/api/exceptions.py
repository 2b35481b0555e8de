from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    """DRF's handler, plus model validation (400) and database constraint violations (409) instead of 500s."""
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail=detail)
    if isinstance(exc, IntegrityError):
        return Response({"detail": f"Conflicts with existing data: {exc}"}, status=status.HTTP_409_CONFLICT)
    return drf_exception_handler(exc, context)
