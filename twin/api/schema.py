"""OpenAPI: every operation documents the errors it can answer with, the same shapes everywhere."""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, inline_serializer
from rest_framework import serializers

Detail = inline_serializer("ErrorDetail", {"detail": serializers.CharField()})
FieldErrors = inline_serializer(
    "FieldErrors",
    {"field_name": serializers.ListField(child=serializers.CharField(), required=False)},
)

ERROR_RESPONSES = {
    400: OpenApiResponse(
        response=FieldErrors,
        description="Invalid request: an object naming each bad field (for bulk requests, keyed by list index) "
        "or query parameter. A query parameter the endpoint does not take is refused, not ignored, with the "
        "list of those it takes; so are a `limit` or `offset` that is not a positive (non-negative) integer and "
        "an `ordering` by a field the list cannot be ordered by.",
        examples=[
            OpenApiExample(
                "Field error", value={"design_kw": ["Ensure this value is less than or equal to 500."]}
            ),
            OpenApiExample("Bulk error", value={"2": {"name": ["This field is required."]}}),
            OpenApiExample(
                "Unknown query parameter",
                value={
                    "campuss": [
                        "Unknown query parameter; this endpoint takes: brief, campus, campus__in, format, id, "
                        "id__in, limit, name, offset, ordering, search, status."
                    ]
                },
            ),
            OpenApiExample("Bad paging", value={"limit": ["Must be a positive integer; got '-1'."]}),
        ],
    ),
    401: OpenApiResponse(
        Detail, description="No or invalid credentials (send `Authorization: Token <key>`)."
    ),
    403: OpenApiResponse(Detail, description="Authenticated, but the role does not allow this."),
    404: OpenApiResponse(Detail, description="No such object."),
    405: OpenApiResponse(Detail, description="Method not allowed on this path."),
    409: OpenApiResponse(
        Detail,
        description="Conflicts with existing data (a database constraint, or the object is still referenced).",
        examples=[
            OpenApiExample("Protected", value={"detail": "Cannot delete: still referenced by 3 node(s)."})
        ],
    ),
    413: OpenApiResponse(Detail, description="Request body or bulk list too large."),
    415: OpenApiResponse(Detail, description="Unsupported request body type (bulk requests take JSON only)."),
    429: OpenApiResponse(Detail, description="Throttled; retry after the Retry-After header."),
}

BULK_SUMMARIES = {
    "bulk_update": (
        "Bulk replace",
        "Replace several objects in one atomic request: a JSON list of full objects, each with its `id`. "
        "Any error rejects the whole list; errors are keyed by list index.",
    ),
    "bulk_partial_update": (
        "Bulk update",
        "Update fields of several objects in one atomic request: a JSON list of partial objects, each with "
        "its `id`. Any error rejects the whole list; errors are keyed by list index.",
    ),
    "bulk_destroy": (
        "Bulk delete",
        'Delete several objects in one atomic request: a JSON list of `{"id": …}`.',
    ),
}

READ_ERRORS = (400, 401, 403, 404, 405, 429)
HEALTH_PREFIX = "/api/health/"


class TwinAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction=direction)
        codes = ERROR_RESPONSES.keys() if self.method not in ("GET", "HEAD") else READ_ERRORS
        path = getattr(self, "path", "") or ""
        if path.startswith(HEALTH_PREFIX):
            # Anonymous, unthrottled probes that take no parameters: their answers are the ones they declare.
            return responses
        for code in codes:
            key = str(code)
            if key in responses:
                continue
            responses[key] = self._get_response_for_code(ERROR_RESPONSES[code], key, direction=direction)
        if self.method == "GET" and "304" not in responses and self._is_detail():
            responses["304"] = {
                "description": "Not modified (the ETag / Last-Modified you sent still holds)."
            }
        return responses

    def _is_detail(self) -> bool:
        return bool(getattr(self.view, "action", None) == "retrieve")

    # Bulk writes on list routes: PUT/PATCH a list of objects with ids, DELETE a list of {id}.
    def _bulk_action(self) -> str | None:
        action = getattr(self.view, "action", None)
        return action if action in BULK_SUMMARIES else None

    def get_request_serializer(self):
        action = self._bulk_action()
        if action == "bulk_destroy":
            # cycle: twin.api.mixins decorates its actions with extend_schema, which reads REST framework's
            # DEFAULT_SCHEMA_CLASS: this module's TwinAutoSchema
            from twin.api.mixins import BulkIdSerializer

            return BulkIdSerializer(many=True)
        if action:
            return self.view.get_serializer_class()(many=True)
        return super().get_request_serializer()

    def get_response_serializers(self):
        action = self._bulk_action()
        if action == "bulk_destroy":
            return {204: None}
        if action:
            return {200: self.view.get_serializer_class()(many=True)}
        return super().get_response_serializers()

    def map_parsers(self):
        if self._bulk_action():
            return ["application/json"]
        return super().map_parsers()

    def get_summary(self):
        action = self._bulk_action()
        return BULK_SUMMARIES[action][0] if action else super().get_summary()

    def get_description(self):
        action = self._bulk_action()
        return BULK_SUMMARIES[action][1] if action else super().get_description()

    def get_filter_backends(self):
        return [] if self._bulk_action() else super().get_filter_backends()

    def _is_list_view(self, serializer=None):
        return False if self._bulk_action() else super()._is_list_view(serializer)

    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        brief = getattr(getattr(serializer, "Meta", None), "brief_fields", None)
        if direction == "response" and brief and "required" in schema:
            # ?brief=1 answers with the brief fields only: only they are always present.
            schema["required"] = [name for name in schema["required"] if name in brief]
        return schema

    def get_operation_id(self):
        action = getattr(self.view, "action", None)
        if action and action.startswith("bulk_"):
            tokenized = self._tokenize_path()
            return "_".join([*tokenized, action])
        return super().get_operation_id()


def document_liveness(result, generator, request, public):
    """Postprocessing hook: the liveness probe is a plain Django view (no REST framework, no query), which
    drf-spectacular does not enumerate; its operation is added here, before the other health paths."""
    # cycle: twin.health decorates its views with extend_schema, which reads REST framework's
    # DEFAULT_SCHEMA_CLASS: this module's TwinAutoSchema
    from twin.health import LIVENESS_OPERATION

    paths = result.get("paths", {})
    if HEALTH_PREFIX in paths:
        return result
    ordered: dict = {}
    for path, item in paths.items():
        if path.startswith(HEALTH_PREFIX) and HEALTH_PREFIX not in ordered:
            ordered[HEALTH_PREFIX] = {"get": LIVENESS_OPERATION}
        ordered[path] = item
    ordered.setdefault(HEALTH_PREFIX, {"get": LIVENESS_OPERATION})
    result["paths"] = ordered
    return result
