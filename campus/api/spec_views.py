"""HTTP edges of the campus spec: import (YAML/JSON body), export, and the reference-design generator.

Small work is done inside the request (201); large work, or work asked for with ``?async=1`` /
``"background": true``, becomes a background job (202 ``{job, url}``, ``campus.jobs``).

The views only parse, check sizes and map errors to responses; validation and writing live in
``campus.interchange`` (one path for the API, the management commands and the generator).
"""

from __future__ import annotations

import json

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.compat import SHORT_SEPARATORS
from rest_framework.exceptions import APIException, ParseError, UnsupportedMediaType
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.utils import encoders
from rest_framework.views import APIView

from campus import jobs
from campus.api.redundancy_warnings import STRICT_PARAMETER, run_guarded, strict_flag, with_warnings
from campus.api.serializers_.generate import GenerateSerializer
from campus.interchange.catalog import db_catalog
from campus.interchange.exporter import export_campus
from campus.interchange.formats import SpecFormatError, dump_spec, dump_spec_chunks, encode_chunks, parse_spec
from campus.interchange.generate import GeneratorError, generate
from campus.interchange.importer import SpecError, import_campus, spec_counts
from campus.models import Campus, Job
from campus.redundancy_guard import spec_campus_id

READ_CHUNK = 1024 * 1024


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The spec is larger than the limit."
    default_code = "payload_too_large"


def _flag(value) -> bool:
    return str(value or "").strip().lower() in {"1", "true", "yes", "on"}


def _too_large(fmt: str) -> PayloadTooLarge:
    if fmt == "yaml":
        return PayloadTooLarge(
            f"A YAML spec is limited to {jobs.yaml_spec_max_bytes()} bytes (TWIN_YAML_SPEC_MAX_BYTES); send a "
            f"larger spec as JSON (application/json), up to {jobs.job_spec_max_bytes()} bytes "
            "(TWIN_JOB_SPEC_MAX_BYTES)."
        )
    return PayloadTooLarge(
        f"The spec is larger than the limit of {jobs.job_spec_max_bytes()} bytes (TWIN_JOB_SPEC_MAX_BYTES)."
    )


def _job_accepted(request, job) -> Response:
    url = request.build_absolute_uri(reverse("job-detail", args=[job.pk]))
    return Response({"job": job.pk, "url": url}, status=status.HTTP_202_ACCEPTED, headers={"Location": url})


class _SpecParser(BaseParser):
    fmt = "yaml"

    def parse(self, stream, media_type=None, parser_context=None):
        # The import view reads its body itself (CampusImportView.read_body); this serves other callers.
        limit = jobs.yaml_spec_max_bytes()
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise _too_large("yaml")
        try:
            return parse_spec(body, self.fmt)
        except SpecFormatError as exc:
            raise ParseError(str(exc)) from None


class SpecJSONParser(_SpecParser):
    media_type = "application/json"
    fmt = "json"


class SpecYAMLParser(_SpecParser):
    media_type = "application/x-yaml"


class SpecYAMLParserApplication(_SpecParser):
    media_type = "application/yaml"


class SpecYAMLParserText(_SpecParser):
    media_type = "text/yaml"


class YAMLRenderer(BaseRenderer):
    media_type = "application/x-yaml"
    format = "yaml"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        response = (renderer_context or {}).get("response")
        if response is not None and response.status_code >= 400:
            # Error bodies hold DRF's ErrorDetail strings, which YAML cannot represent as they are.
            data = json.loads(json.dumps(data, cls=encoders.JSONEncoder))
        return dump_spec(data, "yaml").encode("utf-8")


_ERROR_LIST = inline_serializer(
    "SpecErrorList",
    {
        "errors": serializers.ListField(
            child=inline_serializer(
                "SpecErrorItem", {"path": serializers.CharField(), "message": serializers.CharField()}
            )
        )
    },
)
_IMPORT_RESULT = inline_serializer(
    "SpecImportResult",
    {
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "counts": serializers.DictField(child=serializers.IntegerField()),
    },
)
_GENERATE_RESULT = inline_serializer(
    "GenerateResult",
    {
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "counts": serializers.DictField(child=serializers.IntegerField()),
        "notes": serializers.ListField(
            child=serializers.CharField(), help_text="What the generator changed, e.g. GPUs rounded up."
        ),
    },
)
_SMALL_SPEC = {
    "spec_version": 1,
    "campus": {"name": "Example", "grid_capacity_mw": 2},
    "power_devices": [{"name": "PDU-A", "kind": "pdu", "rated_kw": 100}],
    "buildings": [
        {
            "name": "B1",
            "halls": [
                {
                    "name": "H1",
                    "width_m": 20,
                    "length_m": 30,
                    "rows": [
                        {
                            "name": "R01",
                            "racks": [
                                {
                                    "name": "R01-01",
                                    "x_m": 3,
                                    "y_m": 3,
                                    "design_kw": 40.8,
                                    "feed_a": "PDU-A",
                                    "nodes": [{"model": "hgx-h100-8", "count": 4}],
                                }
                            ],
                        }
                    ],
                }
            ],
        }
    ],
}


def _created(campus: Campus, spec: dict) -> Response:
    return Response(
        {"id": campus.pk, "name": campus.name, "counts": spec_counts(spec)}, status=status.HTTP_201_CREATED
    )


_JOB_ACCEPTED = inline_serializer(
    "JobAccepted",
    {
        "job": serializers.IntegerField(help_text="The job's id."),
        "url": serializers.URLField(help_text="GET it for status, progress 0-1 and the campus once done."),
    },
)


class CampusImportView(APIView):
    """Import a whole campus from a spec document; every error is listed with its path, nothing is written.

    A spec up to TWIN_SPEC_MAX_BYTES (8 MiB) is imported inside the request (201); a larger JSON spec, up to
    TWIN_JOB_SPEC_MAX_BYTES (256 MiB; YAML up to TWIN_YAML_SPEC_MAX_BYTES), or any spec with ``?async=1``, becomes a background job (202). The body
    is read in chunks and, for a job, deflated as it comes, so a large upload is never held whole. YAML, which is
    parsed whole, is limited to TWIN_YAML_SPEC_MAX_BYTES (50 MiB)."""

    parser_classes = [SpecJSONParser, SpecYAMLParser, SpecYAMLParserApplication, SpecYAMLParserText]
    FORMATS = {parser.media_type: parser.fmt for parser in parser_classes}

    @extend_schema(
        operation_id="campuses_import",
        summary="Import a campus spec (YAML or JSON)",
        description=(
            "The body is a campus spec (docs/campus-spec.md) as JSON (`application/json`) or YAML "
            "(`application/x-yaml`, `application/yaml`, `text/yaml`). `?replace=true` replaces the contents of "
            "an existing campus of the same name. A spec up to `TWIN_SPEC_MAX_BYTES` (8 MiB) is imported in the "
            "request: 201, or 400 with every error and its path. A larger spec (JSON up to "
            "`TWIN_JOB_SPEC_MAX_BYTES`, 256 MiB), or any spec with `?async=1`, runs as a background job: 202 "
            "`{job, url}`; `GET /api/jobs/{id}/` gives its status, progress and the campus once done, or the "
            "field at fault once failed (nothing written). Over the limit: 413 naming it. YAML is limited to "
            "`TWIN_YAML_SPEC_MAX_BYTES` (50 MiB; it is not parsed as a stream)."
        ),
        parameters=[
            STRICT_PARAMETER,
            OpenApiParameter("replace", OpenApiTypes.BOOL, description="Replace a campus of the same name."),
            OpenApiParameter(
                "async", OpenApiTypes.BOOL, description="Run as a background job whatever the size (202)."
            ),
        ],
        request={"application/json": OpenApiTypes.OBJECT, "application/x-yaml": OpenApiTypes.STR},
        responses={
            201: _IMPORT_RESULT,
            202: _JOB_ACCEPTED,
            400: _ERROR_LIST,
            413: OpenApiResponse(description="The body is larger than the limit, which the message names."),
            415: OpenApiResponse(description="Not JSON or YAML."),
        },
        examples=[
            OpenApiExample("A one-rack campus", value=_SMALL_SPEC, request_only=True),
            OpenApiExample(
                "Errors",
                value={
                    "errors": [
                        {
                            "path": "buildings[0].halls[0].rows[0].racks[0].feed_a",
                            "message": 'unknown power device "PDU-9"',
                        }
                    ]
                },
                response_only=True,
                status_codes=["400"],
            ),
        ],
        tags=["campus spec"],
    )
    def post(self, request):
        media_type = (request.content_type or "").split(";")[0].strip().lower()
        fmt = self.FORMATS.get(media_type)
        if fmt is None:
            raise UnsupportedMediaType(media_type or "none")
        background = _flag(request.query_params.get("async"))
        replace = _flag(request.query_params.get("replace"))
        sync_limit = jobs.spec_max_bytes()
        hard_limit = jobs.job_spec_max_bytes() if fmt == "json" else jobs.yaml_spec_max_bytes()
        length = request.META.get("CONTENT_LENGTH") or "0"
        if length.isdigit() and int(length) > hard_limit:
            raise _too_large(fmt)
        body, spool = self.read_body(request.stream, sync_limit, hard_limit, fmt, background)
        if spool is not None:
            job = jobs.create_job(
                Job.Kind.IMPORT,
                {"replace": replace, "format": fmt, "strict": strict_flag(request)},
                user=request.user,
                spec=spool.getvalue(),
                spec_bytes=spool.size,
            )
            return _job_accepted(request, job)
        try:
            data = parse_spec(body, fmt)
        except SpecFormatError as exc:
            return Response(
                {"errors": [{"path": "$", "message": str(exc)}]}, status=status.HTTP_400_BAD_REQUEST
            )
        try:
            campus, warnings = run_guarded(
                request,
                [spec_campus_id(data) if replace else None],
                lambda: import_campus(data, replace=replace),
            )
        except SpecError as exc:
            return Response({"errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)
        return with_warnings(_created(campus, data), warnings)

    @staticmethod
    def read_body(stream, sync_limit: int, hard_limit: int, fmt: str, background: bool):
        """The body in memory while it fits the inline limit, else deflated chunk by chunk into a spool (a job);
        413 beyond ``hard_limit`` even when no Content-Length was sent (chunked)."""
        head = bytearray()
        spool = jobs.CompressedSpool() if background else None
        total = 0
        while stream is not None:
            chunk = stream.read(READ_CHUNK)
            if not chunk:
                break
            total += len(chunk)
            if total > hard_limit:
                raise _too_large(fmt)
            if spool is None:
                head += chunk
                if len(head) > sync_limit:
                    spool = jobs.CompressedSpool()
                    spool.write(bytes(head))
                    head = bytearray()
            else:
                spool.write(chunk)
        return bytes(head), spool


def _api_json(value) -> str:
    """``value`` as DRF's JSONRenderer writes a response body (the same encoder, compact separators and
    escapes)."""
    renderer = JSONRenderer
    text = json.dumps(
        value,
        cls=renderer.encoder_class,
        ensure_ascii=renderer.ensure_ascii,
        allow_nan=not renderer.strict,
        separators=SHORT_SEPARATORS,
    )
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


STREAM_CHUNK = 256 * 1024


def _export_stream(campus: Campus, fmt: str):
    """The export's body as it is written, in pieces of about STREAM_CHUNK bytes: the same text as the whole
    document rendered at once (YAMLRenderer, JSONRenderer). An empty piece comes first: the WSGI server sends
    the status and headers with it, before the campus is read (a 1M-GPU campus takes seconds)."""
    yield b""
    spec = export_campus(campus)
    pieces = dump_spec_chunks(spec) if fmt == "yaml" else encode_chunks(spec, _api_json)
    buffer: list[str] = []
    size = 0
    for piece in pieces:
        buffer.append(piece)
        size += len(piece)
        if size >= STREAM_CHUNK:
            yield "".join(buffer).encode("utf-8")
            buffer, size = [], 0
    if buffer:
        yield "".join(buffer).encode("utf-8")


class CampusExportView(APIView):
    """The campus as a spec document: YAML by default, JSON with ``?format=json``.

    The body is streamed as it is written (a 1M-GPU campus is tens of MB), so the first bytes leave at once
    and the text is never held whole."""

    renderer_classes = [YAMLRenderer, JSONRenderer]

    @extend_schema(
        operation_id="campuses_export",
        summary="Export a campus as a spec",
        description="YAML (default) or JSON (`?format=json` or `Accept: application/json`); import gives it back. "
        "The body is streamed as it is written: the headers leave at once, the text follows in pieces (a 1M-GPU "
        "campus is about 42 MB).",
        responses={
            (200, "application/x-yaml"): OpenApiTypes.STR,
            (200, "application/json"): OpenApiTypes.OBJECT,
            404: OpenApiResponse(description="No campus with this id."),
        },
        tags=["campus spec"],
    )
    def get(self, request, pk: int, format=None):
        campus = get_object_or_404(Campus, pk=pk)
        renderer = getattr(request, "accepted_renderer", None) or YAMLRenderer()
        extension = "json" if renderer.format == "json" else "yaml"
        content_type = renderer.media_type
        if renderer.charset:
            content_type += f"; charset={renderer.charset}"
        response = StreamingHttpResponse(_export_stream(campus, extension), content_type=content_type)
        response["Content-Disposition"] = f'inline; filename="campus-{campus.pk}.{extension}"'
        return response


class CampusGenerateView(APIView):
    """Generate a reference design and import it (the same importer as a spec upload)."""

    @extend_schema(
        operation_id="campuses_generate",
        summary="Generate a reference-design campus",
        request=GenerateSerializer,
        description=(
            "Up to `TWIN_JOB_THRESHOLD_GPUS` (50,000) GPUs the campus is generated and imported inside the "
            "request (201). Above it, or with `background: true` (or `?async=1`), a background job does it: "
            "202 `{job, url}`; `GET /api/jobs/{id}/` gives its status, progress and the campus once done."
        ),
        parameters=[
            STRICT_PARAMETER,
            OpenApiParameter(
                "async", OpenApiTypes.BOOL, description="Run as a background job whatever the size."
            ),
        ],
        responses={
            201: _GENERATE_RESULT,
            202: _JOB_ACCEPTED,
            400: OpenApiResponse(description="The field at fault and why."),
        },
        examples=[
            OpenApiExample(
                "16k H100, InfiniBand, rail-optimized",
                value={
                    "name": "Campus A",
                    "gpus": 16384,
                    "gpu_model": "h100-sxm",
                    "fabric": "infiniband-ndr",
                },
                request_only=True,
            ),
            OpenApiExample(
                "A mix",
                value={
                    "name": "Campus B",
                    "mix": [{"gpu_model": "h100-sxm", "gpus": 8192}, {"gpu_model": "gb200", "gpus": 4608}],
                    "cooling": "liquid",
                    "pue": 1.2,
                },
                request_only=True,
            ),
        ],
        tags=["campus spec"],
    )
    def post(self, request):
        params = GenerateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        options = dict(params.validated_data)
        replace = options.pop("replace")
        background = options.pop("background") or _flag(request.query_params.get("async"))
        if options.get("mix"):
            options["mix"] = [dict(m) for m in options["mix"]]
        parts = options.get("phases") or options.get("mix")
        total = sum(int(p["gpus"]) for p in parts) if parts else options["gpus"]
        if background or total > jobs.job_threshold_gpus():
            params = {**options, "replace": replace, "strict": strict_flag(request)}
            job = jobs.create_job(Job.Kind.GENERATE, params, user=request.user)
            return _job_accepted(request, job)
        try:
            design = generate(catalog=db_catalog(), **options)
        except GeneratorError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        try:
            campus, warnings = run_guarded(
                request,
                [spec_campus_id(design.spec) if replace else None],
                lambda: import_campus(design.spec, replace=replace),
            )
        except SpecError as exc:
            return Response({"errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)
        response = _created(campus, design.spec)
        response.data["notes"] = design.notes
        return with_warnings(response, warnings)


urlpatterns = [
    path("campuses/import/", CampusImportView.as_view(), name="campus-import"),
    path("campuses/generate/", CampusGenerateView.as_view(), name="campus-generate"),
    path("campuses/<int:pk>/export/", CampusExportView.as_view(), name="campus-export"),
]
