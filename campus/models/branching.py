from django.db import models

from .sites import Campus


class BranchBase(models.Model):
    """The branch point of a design branch: one content fingerprint per inventory object, keyed by model
    and natural key, as the branch and its parent both stood when the branch was taken (or last merged).
    A merge compares each side with it to tell what changed where (campus.branching)."""

    campus = models.OneToOneField(Campus, on_delete=models.CASCADE, related_name="branch_base")
    taken = models.DateTimeField()
    # {model name: {natural key as JSON text: fingerprint hex}}
    fingerprints = models.JSONField(default=dict)

    class Meta:
        verbose_name = "branch point"

    def __str__(self) -> str:
        return f"branch point of {self.campus}"
