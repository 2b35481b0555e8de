"""The serializer bases every app's API builds on."""

from .base import (
    BoundedPrimaryKeyRelatedField,
    BriefRelatedField,
    FiniteFloatField,
    SelfUrlField,
    TwinModelSerializer,
    model_errors,
    register_basename,
    validate_model_instance,
)
from .history import ChangeSerializer

__all__ = [
    "BoundedPrimaryKeyRelatedField",
    "BriefRelatedField",
    "ChangeSerializer",
    "FiniteFloatField",
    "SelfUrlField",
    "TwinModelSerializer",
    "model_errors",
    "register_basename",
    "validate_model_instance",
]
