"""A background job: a generation, a spec import or a branch too large for one request, or a capacity
placement whose expansion proposal takes too long for one (it writes nothing).

Like a run, everything about a job lives on its own row (Celery only carries the message): status, a progress
that only rises, the cause of a failure, the campus once it succeeded. The spec of an import is stored
zlib-compressed on the row until the job finishes, so a worker on another host reads it from the database.
"""

from django.conf import settings
from django.db import models


class Job(models.Model):
    class Kind(models.TextChoices):
        GENERATE = "generate", "Generate"
        IMPORT = "import", "Import"
        BRANCH = "branch", "Branch"
        PLACEMENT = "placement", "Placement"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.FloatField(default=0.0, help_text="Share of the work done, 0-1; never goes down.")
    message = models.CharField(max_length=256, blank=True, help_text="The stage the job is at.")
    error = models.JSONField(
        null=True,
        blank=True,
        help_text='Why the job failed: {"field": ..., "detail": ...} (field may be null).',
    )
    params = models.JSONField(
        default=dict,
        blank=True,
        help_text="The generator's parameters, the import's, the branch's (parent, name), or the placement's "
        "(campus and the placement request).",
    )
    input = models.BinaryField(null=True, blank=True, help_text="An import's spec, zlib-compressed JSON.")
    input_bytes = models.BigIntegerField(default=0, help_text="Size of the uploaded spec, bytes.")
    campus = models.ForeignKey(
        "campus.Campus", null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    result = models.JSONField(
        null=True,
        blank=True,
        help_text="Counts of what was written, and notes; for a placement, its answer.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="campus_jobs"
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True, help_text="Last sign of life of the worker.")

    class Meta:
        ordering = ("-created", "-id")

    def __str__(self) -> str:
        return f"{self.kind} job {self.pk} ({self.status})"
