"""``/api/jobs/``: the background jobs that generate, import or branch a campus, or place racks in one
(``campus.jobs``).

Everyone reads their own jobs; admins read everyone's. A job is written only by its worker.
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets

from campus.api.serializers_.placement import PlacementSerializer
from campus.models import Job
from twin.api.mixins import QueryParametersMixin
from twin.api.permissions import has_role


class JobErrorSerializer(serializers.Serializer):
    field = serializers.CharField(allow_null=True, help_text="The spec path or parameter at fault, if any.")
    detail = serializers.CharField()
    errors = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        required=False,
        help_text="Every error of an invalid spec ({path, message}), the first 100.",
    )


class JobSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    error = JobErrorSerializer(read_only=True, allow_null=True)
    result = serializers.JSONField(
        read_only=True,
        help_text="id, name, counts and notes of the campus written, and the seconds each stage took "
        "(generate or read, validate, write; the commit is the rest of started to finished); for a branch: "
        "id, name, parent, branched_at and the seconds of the copy, the commit and the analysis; for a "
        "placement (`async`): the answer of POST /api/campuses/{id}/placement/, the job's campus the one read.",
    )

    class Meta:
        model = Job
        fields = (
            "id",
            "url",
            "kind",
            "status",
            "progress",
            "message",
            "error",
            "campus",
            "result",
            "params",
            "input_bytes",
            "created_by",
            "created",
            "started",
            "finished",
        )
        read_only_fields = fields

    def to_representation(self, job: Job) -> dict:
        data = super().to_representation(job)
        if job.kind == Job.Kind.PLACEMENT and job.result is not None:
            # stored as the analysis answered it; shaped on the way out as the request answers it
            data["result"] = PlacementSerializer(job.result).data
        return data

    def get_url(self, job: Job) -> str:
        path = reverse("job-detail", args=[job.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


@extend_schema_view(
    list=extend_schema(summary="Your campus jobs (admins: everyone's), newest first", tags=["campus spec"]),
    retrieve=extend_schema(
        summary="A campus job: status, progress 0-1, the campus once succeeded, the cause once failed",
        tags=["campus spec"],
    ),
)
class JobViewSet(
    QueryParametersMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = JobSerializer
    queryset = Job.objects.defer("input").select_related("created_by")
    filter_backends: list = []

    def get_queryset(self):
        qs = super().get_queryset()
        user = getattr(self.request, "user", None)
        if user is None or not user.is_authenticated:
            return qs.none()
        if has_role(user, "admin"):
            return qs
        return qs.filter(created_by=user)
